"""The readable references (engine/train/reference.py, engine/encode/reference.py): their
examples run, and the training reference reproduces the seeds' worked examples."""

from __future__ import annotations

import doctest

from helpers import sample_text

import engine.encode.reference
import engine.train.reference
from engine.encode.reference import encode
from engine.train.reference import train


def test_every_example_in_the_references_runs():
    for module in (engine.train.reference, engine.encode.reference):
        result = doctest.testmod(module)
        assert result.attempted >= 3 and result.failed == 0, module.__name__


def test_seed_001_low_lower_lowest():
    """Seed 001: lo, low, ' low', ' lowe'; 16 -> 13 -> 10 -> 8 -> 6 tokens."""
    text = "low lower lowest"
    merges, sizes = train(text, base="chars", max_merges=4)
    alphabet = ["\ufffd", *sorted(set(text))]
    tokens = list(alphabet)
    for a, b in merges:
        tokens.append(tokens[a] + tokens[b])
    assert tokens[len(alphabet):] == ["lo", "low", " low", " lowe"]
    assert [len(text), *sizes] == [16, 13, 10, 8, 6]


def test_seed_000_die_katze():
    """Seed 000: 256 bytes + 9 merges + 5 specials = 270; "die katze" -> [259, 264, 101]."""
    specials = ("<pad>", "<bos>", "<eos>", "<user>", "<assistant>")
    merges, _ = train(sample_text("die-katze.txt"), pretokenizer="simple", vocab_size=270, specials=specials)
    assert len(merges) == 9
    assert encode(list(b"die"), merges) + encode(list(b" katze"), merges) == [259, 264, 101]
