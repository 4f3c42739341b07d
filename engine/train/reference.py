"""BPE training as the course texts teach it, in the fewest lines: count every pair, take the
most frequent (ties broken by a named rule), merge it everywhere, repeat. Nothing is incremental
and nothing is fast: each step recounts the whole corpus. It is the oracle the tests compare the
real trainer with (``tests/engine/test_engine_differential.py``, on both paths), and the code to
read beside a merge.

The two tie rules of the seeds:

- ``lowest-ids`` (seed 000): among pairs of the top count, the one with the lowest ids,
  ``max(pairs, key=(count, -left, -right))``; chunks are counted once with how often they occur.
- ``first-seen`` (seeds 001 and 002, minbpe, tiktoken's educational trainer): the pair met first
  in the text, ``Counter.most_common(1)``; every chunk is walked in text order.

>>> merges, sizes = train("low lower lowest", base="chars", max_merges=2)  # seed 001: lo, low
>>> merges, sizes
([(3, 4), (9, 8)], [13, 10])
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

import regex

from engine.encode.reference import merge
from engine.text.pretokenize import GPT2_PATTERN, GPT4_PATTERN, SIMPLE_PATTERN

Pair = tuple[int, int]


def count_pairs(
    sequences: Iterable[tuple[Sequence[int], int]],
    skip: frozenset[Pair] = frozenset(),
) -> Counter[Pair]:
    """How often each adjacent pair occurs: each sequence's pairs count its weight.

    >>> count_pairs([([1, 2, 1, 2], 1), ([2, 1], 5)])
    Counter({(2, 1): 6, (1, 2): 2})
    """
    pairs: Counter[Pair] = Counter()
    for ids, weight in sequences:
        # neighbours overlap: a a a holds the pair (a, a) twice
        for pair in zip(ids, ids[1:]):
            if pair not in skip:
                pairs[pair] += weight
    return pairs


def best_pair(pairs: Counter[Pair],
              tie_rule: str) -> tuple[Pair, int]:
    """The pair to merge next and its count, ties broken by ``tie_rule``.

    >>> best_pair(Counter({(5, 1): 2, (1, 2): 2}), "lowest-ids"), best_pair(Counter({(5, 1): 2, (1, 2): 2}), "first-seen")
    (((1, 2), 2), ((5, 1), 2))
    """
    if tie_rule == "lowest-ids":
        # on a tie: the lowest left id, then the lowest right id
        return max(pairs.items(),
                   key=lambda kv: (kv[1], -kv[0][0], -kv[0][1]))
    # on a tie: the pair counted first (met first in the text)
    return pairs.most_common(1)[0]


def split(text: str, pretokenizer: str, pattern: str | None = None, split_digits: bool = False) -> list[str]:
    """The chunks a pre-tokenizer cuts ``text`` into; merges never cross them.

    >>> split("hi there 42", "gpt2", split_digits=True)
    ['hi', ' there', ' ', '4', '2']
    """
    if pretokenizer == "none":
        chunks = [text] if text else []
    elif pretokenizer == "simple":
        chunks = re.compile(SIMPLE_PATTERN).findall(text)
    else:
        source = {"gpt2": GPT2_PATTERN, "gpt4": GPT4_PATTERN}.get(pretokenizer, pattern)
        assert source is not None, "a custom pre-tokenizer needs its pattern"
        chunks = [m.group(0) for m in regex.finditer(source, text)]
    if split_digits:
        chunks = [part for chunk in chunks for part in regex.split(r"(\p{N})", chunk)]
    return [chunk for chunk in chunks if chunk]


def train(text: str, *, base: str = "bytes", pretokenizer: str = "none", pattern: str | None = None,
          split_digits: bool = False, tie_rule: str = "lowest-ids", vocab_size: int | None = None,
          max_merges: int | None = None, min_frequency: int = 2, no_merge_newline: bool = False,
          specials: Sequence[str] = (), forced: Sequence[Pair] = ()) -> tuple[list[Pair], list[int]]:
    """The merges learned on ``text`` (as id pairs) and the corpus's token count after each.

    ``forced`` pairs are merged first, in order, whatever their counts (manual merges); they
    count toward ``max_merges`` and ``vocab_size``. Training stops at ``max_merges``, at
    ``vocab_size`` (base, merges and ``specials``), or when no pair occurs ``min_frequency`` times.

    >>> train("aaab aaab", pretokenizer="simple", max_merges=2)  # then (256, 97) and (97, 98) tie at 2
    ([(97, 97), (97, 98)], [7, 5])
    """
    chunks = split(text, pretokenizer, pattern, split_digits)
    if base == "chars":
        alphabet = ["\ufffd"] + sorted(set(text) - {"\ufffd"})
        index = {char: i for i, char in enumerate(alphabet)}
        pieces = [char.encode("utf-8") for char in alphabet]

        def encode(chunk: str) -> list[int]:
            return [index[char] for char in chunk]
    else:
        pieces = [bytes([i]) for i in range(256)]

        def encode(chunk: str) -> list[int]:
            return list(chunk.encode("utf-8", "surrogateescape"))
    # lowest-ids counts each distinct chunk once, with its count; first-seen walks every chunk in order
    weighted = Counter(chunks).items() if tie_rule == "lowest-ids" else [(chunk, 1) for chunk in chunks]
    sequences = [(encode(chunk), weight) for chunk, weight in weighted]
    base_size = len(pieces)
    merges: list[Pair] = []
    sizes: list[int] = []

    def apply(pair: Pair) -> None:
        # the pair's two tokens, joined, are the next token
        new_id = len(pieces)
        pieces.append(pieces[pair[0]] + pieces[pair[1]])
        merges.append(pair)
        # every occurrence becomes the new id, left to right
        sequences[:] = [(merge(ids, pair, new_id), weight)
                        for ids, weight in sequences]
        # the corpus's length in tokens after this merge
        sizes.append(sum(len(ids) * weight
                         for ids, weight in sequences))

    # merges you chose by hand come first, whatever their counts
    for left, right in forced:
        apply((left, right))
    while max_merges is None or len(merges) < max_merges:
        size = base_size + len(merges) + len(specials)
        if vocab_size is not None and size >= vocab_size:
            break
        # count every pair again, on the corpus as the merges left it
        pairs = count_pairs(sequences)
        if no_merge_newline:
            # seed 001: a token never holds a newline
            pairs = Counter({
                p: n for p, n in pairs.items()
                if b"\n" not in pieces[p[0]] + pieces[p[1]]})
        if not pairs:
            break
        pair, count = best_pair(pairs, tie_rule)
        # a pair rarer than this is not worth a token: training stops
        if count < min_frequency:
            break
        apply(pair)
    return merges, sizes


def train_counts(chunks: Sequence[tuple[str, int]], *, base: str = "bytes", tie_rule: str = "lowest-ids",
                 max_merges: int | None = None, min_frequency: int = 2) -> list[tuple[Pair, int]]:
    """The same loop on a chunk-count table, ``(chunk, count)`` in order of first occurrence:
    the merges with their counts (Python ints: any size). The pair met first walking the chunks
    in order is the text's first, so first-seen needs no text.

    >>> train_counts([("ab", 3), ("abab", 1)], max_merges=1)
    [((97, 98), 5)]
    """
    if base == "chars":
        alphabet = ["\ufffd"] + sorted(set().union(*(chunk for chunk, _ in chunks)) - {"\ufffd"})
        index = {char: i for i, char in enumerate(alphabet)}
        sequences = [([index[char] for char in chunk], n) for chunk, n in chunks]
        size = len(alphabet)
    else:
        sequences = [(list(chunk.encode("utf-8", "surrogateescape")), n) for chunk, n in chunks]
        size = 256
    learned: list[tuple[Pair, int]] = []
    while max_merges is None or len(learned) < max_merges:
        pairs = count_pairs(sequences)
        if not pairs:
            break
        pair, count = best_pair(pairs, tie_rule)
        if count < min_frequency:
            break
        learned.append((pair, count))
        sequences = [(merge(ids, pair, size + len(learned) - 1), n) for ids, n in sequences]
    return learned
