"""Tokenizer: encode/decode round trips, the long-chunk path, specials, trace, save/load."""

from __future__ import annotations

import json

import pytest
from helpers import sample_text
from hypothesis import given
from hypothesis import strategies as st

from engine import PreTokenizer, Tokenizer, TrainConfig, Trainer
from engine.encode.apply_merges import _apply_long, _apply_short
from engine.encode.reference import merge
from engine.encode.tokenizer import load_tokenizer, tokenizer_from_dict


@pytest.fixture(scope="module")
def workshop_tok() -> Tokenizer:
    trainer = Trainer(sample_text("workshop.txt"), TrainConfig(vocab_size=600, specials=("<|endoftext|>",)))
    trainer.train()
    return trainer.tokenizer()


@pytest.fixture(scope="module")
def whole_text_tok() -> Tokenizer:
    trainer = Trainer(sample_text("workshop.txt"), TrainConfig(pretokenizer="none", max_merges=300, min_frequency=2))
    trainer.train()
    return trainer.tokenizer()


@given(st.text())
def test_round_trip_bytes_base(workshop_tok, text):
    assert workshop_tok.decode(workshop_tok.encode(text)) == text


@given(st.text(max_size=300))
def test_round_trip_whole_text_one_chunk(whole_text_tok, text):
    assert whole_text_tok.decode(whole_text_tok.encode(text)) == text


def seed_encode(tok: Tokenizer, ids: list[int]) -> list[int]:
    """Seed 002's encode: repeatedly merge the earliest-learned pair present."""
    while len(ids) >= 2:
        pair = min(set(zip(ids, ids[1:])), key=lambda p: tok.rank(p) or float("inf"))
        if tok.rank(pair) is None:
            break
        ids = merge(ids, pair, tok.rank(pair))
    return ids


@given(st.text(alphabet="abc ät\n", max_size=400))
def test_long_and_short_paths_agree_with_the_seed(whole_text_tok, text):
    base = list(text.encode("utf-8"))
    expected = seed_encode(whole_text_tok, base)
    assert _apply_long(base, whole_text_tok.vocab.ranks) == expected
    assert _apply_short(list(base), whole_text_tok.vocab.ranks) == expected


def test_encode_equals_training_segmentation():
    text = sample_text("workshop.txt")
    for pre in ("none", "gpt2"):
        trainer = Trainer(text, TrainConfig(pretokenizer=pre, max_merges=250, tie_rule="first-seen"))
        trainer.train()
        assert len(trainer.tokenizer().encode(text)) == trainer.corpus_tokens


def test_chars_base_unknown_characters():
    trainer = Trainer("banana bandana", TrainConfig(base="chars", pretokenizer="none", max_merges=3))
    trainer.train()
    tok = trainer.tokenizer()
    ids = tok.encode("bandit")
    assert ids.count(0) == 2  # i and t were never seen
    assert tok.decode(ids) == "band\ufffd\ufffd"
    assert tok.decode([0]) == "\ufffd"


def test_specials_are_recognised_and_decoded(workshop_tok):
    eot = workshop_tok.specials["<|endoftext|>"]
    assert eot == workshop_tok.vocab_size - 1
    ids = workshop_tok.encode("hi<|endoftext|>there")
    assert eot in ids
    assert workshop_tok.decode(ids) == "hi<|endoftext|>there"
    assert eot not in workshop_tok.encode("hi<|endoftext|>there", specials=False)


def test_decode_replaces_partial_utf8_and_rejects_bad_ids(workshop_tok):
    assert workshop_tok.decode([0xE4, 0xB8]) == "\ufffd"
    assert workshop_tok.decode_bytes([0xE4, 0xB8]) == b"\xe4\xb8"
    with pytest.raises(ValueError, match="out of range"):
        workshop_tok.decode([10**6])
    with pytest.raises(ValueError, match="out of range"):
        workshop_tok.decode([-1])


def test_encode_trace_matches_encode(workshop_tok):
    for text in ("Die Katze", "the tokenizer", "Müller 1001 🚀", "分词器"):
        start, steps = workshop_tok.encode_trace(text)
        final = steps[-1].tokens if steps else start
        assert list(final) == workshop_tok.encode(text)
        assert [s.rule for s in steps] == sorted({s.rule for s in steps})
        for before, step in zip([start, *[s.tokens for s in steps]], steps):
            assert len(before) - len(step.tokens) == step.places


def test_encode_trace_refuses_long_text(workshop_tok):
    with pytest.raises(ValueError, match="short texts"):
        workshop_tok.encode_trace("x" * 5000)


def test_save_load_round_trip(tmp_path, workshop_tok):
    path = tmp_path / "tok.json"
    workshop_tok.save(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["format"] == "bpe-lab" and data["version"] == 1
    assert data["merges"] == [list(p) for p in workshop_tok.merges]
    loaded = Tokenizer.load(path)
    text = sample_text("workshop.txt")
    assert loaded.encode(text) == workshop_tok.encode(text)
    assert loaded.specials == workshop_tok.specials
    assert loaded.config == workshop_tok.config
    assert loaded.pretokenizer == workshop_tok.pretokenizer


def test_save_load_chars_base(tmp_path):
    trainer = Trainer("low lower lowest", TrainConfig(base="chars", pretokenizer="none", max_merges=4))
    trainer.train()
    tok = trainer.tokenizer()
    tok.save(tmp_path / "c.json")
    data = json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))
    assert data["alphabet"][0] == "\ufffd"
    assert data["merges"] == [[3, 4], [9, 8], [1, 10], [11, 2]]
    loaded = load_tokenizer(tmp_path / "c.json")
    assert loaded.encode("lowest") == tok.encode("lowest")


def test_config_options_are_written_by_their_names_and_old_names_still_load(tmp_path):
    """TrainConfig says max_merges and tie_rule; files written when they were merges and
    tie_break (sessions, tokenizer files) still load, as the same options."""
    config = TrainConfig(base="chars", pretokenizer="none", tie_rule="first-seen", max_merges=4)
    written = config.to_dict()
    assert written["max_merges"] == 4 and written["tie_rule"] == "first-seen"
    assert "merges" not in written and "tie_break" not in written
    old = {k: v for k, v in written.items() if k not in ("max_merges", "tie_rule")}
    old.update(merges=4, tie_break="first-seen")
    assert TrainConfig.from_dict(old) == config
    tok = Trainer("low lower lowest", config).tokenizer()
    data = tok.to_dict()
    data["config"] = old
    (tmp_path / "old.json").write_text(json.dumps(data), encoding="utf-8")
    assert load_tokenizer(tmp_path / "old.json").config == config
    with pytest.raises(ValueError, match="'merges' and 'max_merges' are the same option"):
        TrainConfig.from_dict({**written, "merges": 4})


@pytest.mark.parametrize(
    "mutate,message",
    [
        (lambda d: d.update(format="other"), "not a bpe-lab tokenizer"),
        (lambda d: d.update(version=99), "unsupported"),
        (lambda d: d.update(merges=[[1, 2], [300, 1]]), "refers to id 300, outside the vocabulary \\(0-257\\)"),
        (lambda d: d.update(merges=[[1, 2], [258, 1], [1, 3]]), "refers to id 258, which only a later merge makes"),
        (lambda d: d.update(merges=[[1, 2], [1, 2]]), "repeats"),
        (lambda d: d.update(merges=[[1, "x"]]), "not a \\[left, right\\] pair"),
        (lambda d: d.update(merges={"a": 1}), "must be a list"),
        (lambda d: d.update(specials=[{"token": "<s>", "id": 5}]), "must have id"),
        (lambda d: d.update(base="words"), "unknown base"),
    ],
)
def test_malformed_native_files(mutate, message):
    data = Tokenizer(merges=[(104, 105)]).to_dict()
    mutate(data)
    with pytest.raises(ValueError, match=message):
        tokenizer_from_dict(data)


def test_load_errors_name_the_file(tmp_path):
    with pytest.raises(ValueError, match="no such file"):
        Tokenizer.load(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match="invalid JSON"):
        Tokenizer.load(bad)


def test_pretokenizer_patterns():
    assert PreTokenizer("simple").split("Da sprach er:") == ["Da", " sprach", " er", ":"]
    assert PreTokenizer("gpt2").split("Hello world's 123") == ["Hello", " world", "'s", " 123"]
    assert PreTokenizer("gpt4").split("Hello 12345") == ["Hello", " ", "123", "45"]
    assert PreTokenizer("gpt2", split_digits=True).split("room 101") == ["room", " ", "1", "0", "1"]
    assert PreTokenizer("none", split_newlines=True).split("a\nb\n") == ["a", "\n", "b", "\n"]
    with pytest.raises(ValueError, match="invalid pattern"):
        PreTokenizer("custom", pattern="(")


@given(st.text(alphabet=" \n\t\ra1'é中,-", max_size=400), st.sampled_from(["simple", "gpt2", "gpt4"]), st.booleans())
def test_piecewise_counting_equals_whole_text_scan(text, name, split):
    """count() scans big texts a piece at a time; with tiny pieces every boundary case shows."""
    from collections import Counter

    import engine.text.pretokenize as pre

    saved = pre._PIECE, pre._MARGIN
    pre._PIECE, pre._MARGIN = 16, 4
    try:
        tokenizer = PreTokenizer(name, split_digits=split, split_newlines=split)
        counted = tokenizer.count(text)
        expected = Counter(tokenizer.split(text))
        assert counted == expected and list(counted) == list(expected)
    finally:
        pre._PIECE, pre._MARGIN = saved


def test_atomic_write_keeps_the_old_file_on_failure(tmp_path, monkeypatch):
    import os

    from engine.corpus.files import atomic_write_text

    target = tmp_path / "tok.json"
    atomic_write_text(target, "old")
    assert target.stat().st_mode & 0o777 == 0o666 & ~_umask()

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError):
        atomic_write_text(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["tok.json"]  # no temp file left behind


def _umask() -> int:
    import os

    mask = os.umask(0)
    os.umask(mask)
    return mask
