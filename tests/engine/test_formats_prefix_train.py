"""Training with a continuing-subword prefix (``TrainConfig(subword_prefix="##")``) against
tokenizers' BpeTrainer(continuing_subword_prefix="##").

BpeTrainer numbers the prefixed units (``##b``) as it meets them in a hash map of the words,
whose order changes from run to run (ahash's random state), and breaks ties by the smallest
pair of ids: so two runs on the same corpus can differ where pairs of prefixed units tie. A
naive reference of its algorithm (:func:`hf_merges`), given the order one run used (read off
that run's vocabulary), gives exactly that run's merges; given the prefixed units in the order
of their characters, it gives exactly bpe-lab's (lowest-ids on characters, the hf rule on bytes).
And bpe-lab's merges equal BpeTrainer's up to the first tie its hash order decided."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from helpers import SAMPLES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.config import TrainConfig
from engine.formats.hfpre import WHITESPACE
from engine.text.bytelevel import token_to_unicode, unicode_to_token
from engine.train.trainer import Trainer

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import models, pre_tokenizers, trainers  # noqa: E402

PREFIX = "##"


def hf_merges(words: Counter[str], variant_key, min_frequency: int, alphabet: list[str] | None = None) -> list[tuple[str, str]]:
    """BpeTrainer's merges on these word counts, naively: units are a word's characters, all but
    the first after the prefix; ids are the alphabet sorted by code point, then the prefixed units
    sorted by ``variant_key``, then each new token (a token made again keeps its id); each step
    merges the pair of the highest count, then the smallest ids, left to right in every word."""
    seqs = [([w[0]] + [PREFIX + c for c in w[1:]], n) for w, n in words.items()]
    ids: dict[str, int] = {}
    for c in sorted(alphabet if alphabet is not None else {c for w in words for c in w}):
        ids[c] = len(ids)
    for unit in sorted({u for s, _ in seqs for u in s if u not in ids}, key=variant_key):
        ids[unit] = len(ids)
    merges = []
    while True:
        counts: Counter[tuple[str, str]] = Counter()
        for s, n in seqs:
            for pair in zip(s, s[1:]):
                counts[pair] += n
        if not counts:
            break
        best = min(counts, key=lambda p: (-counts[p], ids[p[0]], ids[p[1]]))
        if counts[best] < min_frequency:
            break
        a, b = best
        new = a + b[len(PREFIX):]
        ids.setdefault(new, len(ids))
        merges.append(best)
        for s, _ in seqs:
            i = 0
            while i < len(s) - 1:
                if s[i] == a and s[i + 1] == b:
                    s[i : i + 2] = [new]
                i += 1
    return merges


def train_hf(lines: list[str], min_frequency: int, byte_level: bool = False):
    tok = tokenizers.Tokenizer(models.BPE(continuing_subword_prefix=PREFIX))
    options = {}
    if byte_level:
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        options["initial_alphabet"] = pre_tokenizers.ByteLevel.alphabet()
    else:
        tok.pre_tokenizer = pre_tokenizers.Whitespace()
    trainer = trainers.BpeTrainer(vocab_size=1_000_000, min_frequency=min_frequency, continuing_subword_prefix=PREFIX,
                                  show_progress=False, **options)
    tok.train_from_iterator(lines, trainer)
    model = json.loads(tok.to_str())["model"]
    merges = [tuple(m.split(" ")) if isinstance(m, str) else tuple(m) for m in model["merges"]]
    words = Counter(w for line in lines for w, _ in tok.pre_tokenizer.pre_tokenize_str(line))
    return merges, model["vocab"], words


def ours(lines: list[str], min_frequency: int, byte_level: bool = False) -> list[tuple[str, str]]:
    """bpe-lab's merges, spelled as tokenizers spells them."""
    if byte_level:
        config = TrainConfig(base="bytes", pretokenizer="gpt2", tie_rule="hf", subword_prefix=PREFIX, min_frequency=min_frequency)
    else:
        config = TrainConfig(base="chars", pretokenizer="custom", pattern=WHITESPACE, subword_prefix=PREFIX,
                             min_frequency=min_frequency)
    trainer = Trainer("\n".join(lines), config)
    for _ in trainer.run():
        pass
    tok = trainer.tokenizer()
    spell = token_to_unicode if byte_level else (lambda piece: piece.decode("utf-8"))
    return [(spell(tok.pieces[a]), spell(tok.pieces[b])) for a, b in tok.merges]


def until_made_again(merges: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The merges before the first that makes a token an earlier one made (tokenizers then
    keeps one id for both, bpe-lab two tokens: their pairs are counted apart from there on)."""
    seen: set[str] = set()
    for k, (a, b) in enumerate(merges):
        new = a + b[len(PREFIX):]
        if new in seen:
            return merges[:k + 1]
        seen.add(new)
    return merges


def byte_order(unit: str) -> tuple[int, ...]:
    """bpe-lab's order of prefixed bytes (``##`` + a byte-level character): by byte value."""
    return tuple(unicode_to_token(unit[len(PREFIX):]))


def char_order(unit: str) -> str:
    return unit


def check_against_tokenizers(lines: list[str], min_frequency: int, byte_level: bool) -> int:
    """Assert the three agreements of the module doc; return how many merges bpe-lab is checked on."""
    theirs, vocab, words = train_hf(lines, min_frequency, byte_level)
    alphabet = [token_to_unicode(bytes([b])) for b in range(256)] if byte_level else None
    their_order = hf_merges(words, vocab.__getitem__, min_frequency, alphabet)
    assert their_order == theirs  # the reference, given this run's order, is this run
    our_order = hf_merges(words, byte_order if byte_level else char_order, min_frequency, alphabet)
    mine = ours(lines, min_frequency, byte_level)
    agreed = until_made_again(our_order)
    assert mine[: len(agreed)] == agreed  # bpe-lab is the reference given the prefixed units' own order
    split = next((k for k, (x, y) in enumerate(zip(their_order, our_order)) if x != y), min(len(theirs), len(our_order)))
    same = next((k for k, (x, y) in enumerate(zip(mine, theirs)) if x != y), min(len(mine), len(theirs)))
    assert same >= min(split, len(agreed))  # so bpe-lab and the run part only where the run's order decided
    return len(agreed)


def test_bpe_lab_trains_as_bpe_trainer_on_the_workshop_text():
    lines = (SAMPLES / "workshop.txt").read_text(encoding="utf-8").split("\n")
    assert check_against_tokenizers(lines, 2, byte_level=False) > 200


def test_bpe_lab_trains_as_bpe_trainer_on_bytes_with_the_hf_rule():
    lines = (SAMPLES / "workshop.txt").read_text(encoding="utf-8").split("\n")
    assert check_against_tokenizers(lines, 2, byte_level=True) > 200


WORDS = st.lists(st.text(st.sampled_from("abcdé中"), min_size=1, max_size=6), min_size=1, max_size=10)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(WORDS.map(" ".join), min_size=1, max_size=6), st.integers(1, 3), st.booleans())
def test_random_corpora_train_as_bpe_trainer(lines, min_frequency, byte_level):
    check_against_tokenizers(lines, min_frequency, byte_level)


@pytest.mark.parametrize("base", ["chars", "bytes"])
@pytest.mark.parametrize("suffix", [None, "</w>"])
def test_the_trained_tokenizer_segments_the_corpus_as_training_left_it(base, suffix):
    """Training and encoding agree on the layout (prefixed twins, with a suffix four blocks): each
    distinct chunk encodes to the tokens training left it in, and decodes to itself."""
    text = (SAMPLES / "workshop.txt").read_text(encoding="utf-8")
    config = TrainConfig(base=base, pretokenizer="gpt2", subword_prefix=PREFIX, end_of_word=suffix, max_merges=300)
    trainer = Trainer(text, config)
    for _ in trainer.run():
        pass
    tok = trainer.tokenizer()
    assert tok.base_size == (256 if base == "bytes" else len(trainer.alphabet)) * (2 if suffix is None else 4)
    chunks = list(trainer.pretokenizer.count(text))
    assert [list(tok.encode_ordinary(c)) for c in chunks] == [list(s) for s in trainer.sequences()]
    assert all(tok.decode(tok.encode_ordinary(c)) == c for c in chunks)
    assert tok.decode(tok.encode(text)) == text
