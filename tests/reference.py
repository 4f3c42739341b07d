"""A naive reference trainer written straight from the seeds' code, for differential tests.

It recounts every pair at every step (seeds 000/001/002) and breaks ties the way each seed does:
``lowest-ids`` is seed 000's ``max(..., key=(count, -left, -right))`` over chunks deduplicated with
their counts; ``first-seen`` is seed 001/002's ``Counter.most_common(1)`` over every chunk in text
order (no deduplication at all, exactly as minbpe and tiktoken's educational trainer do).
"""

from __future__ import annotations

import re
from collections import Counter

import regex

from engine.text.pretokenize import GPT2_PATTERN, GPT4_PATTERN, SIMPLE_PATTERN


def merge(ids, pair, new_id):
    """Seed 000's merge(), verbatim apart from names."""
    out, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def split(text, pretokenizer, pattern=None, split_digits=False):
    if pretokenizer == "none":
        chunks = [text] if text else []
    elif pretokenizer == "simple":
        chunks = re.compile(SIMPLE_PATTERN).findall(text)
    else:
        source = {"gpt2": GPT2_PATTERN, "gpt4": GPT4_PATTERN}.get(pretokenizer, pattern)
        chunks = [m.group(0) for m in regex.finditer(source, text)]
    if split_digits:
        chunks = [p for c in chunks for p in regex.split(r"(\p{N})", c)]
    return [c for c in chunks if c]


def reference_train(text, *, base="bytes", pretokenizer="none", pattern=None, split_digits=False,
                    tie_rule="lowest-ids", vocab_size=None, max_merges=None, min_frequency=2,
                    no_merge_newline=False, specials=(), forced=()):
    """Return (merges as id pairs, corpus token count after each merge).

    ``forced`` pairs are merged first, in order, whatever their counts (manual merges); then
    training goes on by the rule (they count toward ``max_merges`` and ``vocab_size``)."""
    chunks = split(text, pretokenizer, pattern, split_digits)
    if base == "chars":
        vocab = ["\ufffd"] + sorted(set(text) - {"\ufffd"})
        index = {c: i for i, c in enumerate(vocab)}
        pieces = [c.encode("utf-8") for c in vocab]
        encode = lambda chunk: [index[c] for c in chunk]  # noqa: E731
    else:
        pieces = [bytes([i]) for i in range(256)]
        encode = lambda chunk: list(chunk.encode("utf-8", "surrogateescape"))  # noqa: E731
    if tie_rule == "lowest-ids":
        words = Counter(chunks)
        seqs = {w: encode(w) for w in words}
    else:
        seqs = [encode(c) for c in chunks]
    learned, sizes = [], []
    base_size = len(pieces)
    for pair in forced:
        new_id = len(pieces)
        pieces.append(pieces[pair[0]] + pieces[pair[1]])
        learned.append(tuple(pair))
        if tie_rule == "lowest-ids":
            for w in seqs:
                seqs[w] = merge(seqs[w], tuple(pair), new_id)
            sizes.append(sum(len(seqs[w]) * n for w, n in words.items()))
        else:
            seqs = [merge(s, tuple(pair), new_id) for s in seqs]
            sizes.append(sum(len(s) for s in seqs))
    while True:
        if max_merges is not None and len(learned) >= max_merges:
            break
        if vocab_size is not None and base_size + len(learned) + len(specials) >= vocab_size:
            break
        pairs = Counter()
        items = words.items() if tie_rule == "lowest-ids" else ((None, 1),) * 0
        if tie_rule == "lowest-ids":
            for w, count in items:
                s = seqs[w]
                for pair in zip(s, s[1:]):
                    if no_merge_newline and b"\n" in pieces[pair[0]] + pieces[pair[1]]:
                        continue
                    pairs[pair] += count
        else:
            for s in seqs:
                for pair in zip(s, s[1:]):
                    if no_merge_newline and b"\n" in pieces[pair[0]] + pieces[pair[1]]:
                        continue
                    pairs[pair] += 1
        if not pairs:
            break
        if tie_rule == "lowest-ids":
            pair, count = max(pairs.items(), key=lambda item: (item[1], -item[0][0], -item[0][1]))
        else:
            pair, count = pairs.most_common(1)[0]
        if count < min_frequency:
            break
        new_id = len(pieces)
        pieces.append(pieces[pair[0]] + pieces[pair[1]])
        learned.append(pair)
        if tie_rule == "lowest-ids":
            for w in seqs:
                seqs[w] = merge(seqs[w], pair, new_id)
            sizes.append(sum(len(seqs[w]) * n for w, n in words.items()))
        else:
            seqs = [merge(s, pair, new_id) for s in seqs]
            sizes.append(sum(len(s) for s in seqs))
    return learned, sizes


def reference_train_counts(chunks, *, base="bytes", tie_rule="lowest-ids", max_merges=None, min_frequency=2):
    """The same naive loop on a chunk-count table: ``chunks`` is (chunk text, count) in order of
    first occurrence, and every pair counts its chunk's count (Python ints: any size). Ties:
    lowest-ids as above; first-seen takes the pair met first walking the chunks in order (their
    first occurrences are in that order, so this is the text's first occurrence)."""
    if base == "chars":
        vocab = ["\ufffd"] + sorted(set().union(*(c for c, _ in chunks)) - {"\ufffd"})
        index = {c: i for i, c in enumerate(vocab)}
        seqs = [([index[ch] for ch in c], n) for c, n in chunks]
        size = len(vocab)
    else:
        seqs = [(list(c.encode("utf-8", "surrogateescape")), n) for c, n in chunks]
        size = 256
    learned = []
    while max_merges is None or len(learned) < max_merges:
        pairs = Counter()
        for s, n in seqs:
            for pair in zip(s, s[1:]):
                pairs[pair] += n
        if not pairs:
            break
        if tie_rule == "lowest-ids":
            pair, count = max(pairs.items(), key=lambda item: (item[1], -item[0][0], -item[0][1]))
        else:
            pair, count = pairs.most_common(1)[0]
        if count < min_frequency:
            break
        learned.append((pair, count))
        seqs = [(merge(s, pair, size + len(learned) - 1), n) for s, n in seqs]
    return learned


def tiktoken_parts(piece, ranks):
    """tiktoken's merging as its docs say: rescan every pair of parts, join the one whose joined
    bytes rank lowest (the leftmost of equal ranks), until no joined pair is a token."""
    parts = [piece[i:i + 1] for i in range(len(piece))]
    while len(parts) > 1:
        best = at = None
        for i in range(len(parts) - 1):
            r = ranks.get(parts[i] + parts[i + 1])
            if r is not None and (best is None or r < best):
                best, at = r, i
        if at is None:
            break
        parts[at:at + 2] = [parts[at] + parts[at + 1]]
    return parts
