"""What the app reads from the engine: corpus spans, token frequencies, token inspection."""

from __future__ import annotations

from collections import Counter

import pytest
from helpers import sample_text
from hypothesis import given
from hypothesis import strategies as st

from engine import TrainConfig, Trainer
from engine.analysis.inspector import byte_role, completeness, token_info, utf8_roles
from engine.text.bytelevel import bytes_to_unicode, hf_byte_rank, token_to_unicode, unicode_to_token

from test_engine_differential import configs, corpora


def units(trainer: Trainer) -> bytes | str:
    text = trainer.text
    return text.encode("utf-8", "surrogateescape") if trainer.unit == "bytes" else text


@given(corpora(), configs(), st.integers(0, 40), st.integers(0, 80), st.integers(0, 80))
def test_spans_cover_the_corpus_as_the_tokens_now(text, kw, k, a, b):
    trainer = Trainer(text, TrainConfig(**kw))
    trainer.goto(k)
    data = units(trainer)
    spans = trainer.spans(0, len(data))
    assert [s[0] for s in spans] == trainer.tokenizer().encode(text)
    assert [(s, e) for _, s, e in spans] == list(zip([0] + [e for _, _, e in spans[:-1]], [e for _, _, e in spans]))
    for tid, s, e in spans:
        piece = data[s:e]
        assert (piece if isinstance(piece, bytes) else piece.encode("utf-8")) == trainer.token_bytes(tid)
    lo, hi = sorted((a % (len(data) + 1), b % (len(data) + 1)))
    window = trainer.spans(lo, hi)
    assert window == [s for s in spans if s[2] > lo and s[1] < hi]


def test_spans_skip_what_a_custom_pattern_drops():
    trainer = Trainer("ab, ab; ab", TrainConfig(pretokenizer="custom", pattern=r"\w+", max_merges=1))
    trainer.train()
    assert trainer.layout().size == 10
    assert trainer.spans(0, 10) == [(256, 0, 2), (256, 4, 6), (256, 8, 10)]


@given(corpora(), configs(), st.lists(st.sampled_from(["step", "undo", "redo"]), max_size=30))
def test_frequencies_follow_merges_and_undos(text, kw, ops):
    trainer = Trainer(text, TrainConfig(**kw))
    trainer.frequencies()  # start tracking at step 0
    for op in ops:
        getattr(trainer, op)()
    expected = Counter(trainer.tokenizer().encode(text))
    freq = trainer.frequencies()
    assert {i: n for i, n in enumerate(freq) if n} == dict(expected)


def test_token_info_for_a_partial_character():
    trainer = Trainer("不与世东" * 20, TrainConfig(pretokenizer="none", max_merges=1))
    event = trainer.step()
    info = token_info(trainer, event.new_id)
    assert info.display == "[e4 b8]"
    assert info.completeness == "ends mid-character"
    assert [r.role for r in info.roles] == ["lead of 3", "continuation"]
    assert [r.binary for r in info.roles] == ["11100100", "10111000"]
    assert info.born_step == 1 and info.count_then == 80 and info.frequency == 80
    assert info.tree.lines() == ["256 [e4 b8]", "  228 [e4]", "  184 [b8]"]


def test_token_info_tree_and_frequency():
    trainer = Trainer(sample_text("low-lower-lowest.txt"), TrainConfig(base="chars", pretokenizer="none", tie_rule="first-seen", max_merges=4))
    trainer.train()
    info = token_info(trainer, 12)
    assert info.display == "·lowe" and info.completeness == "complete"
    assert info.tree.depth() == 4
    assert info.frequency == 2 and info.born_step == 4
    with pytest.raises(ValueError):
        token_info(trainer, 99)


def test_utf8_roles_like_seed003_show_utf8():
    assert [byte_role(b) for b in b"H"] == ["ASCII"]
    assert [r.role for r in utf8_roles("世".encode())] == ["lead of 3", "continuation", "continuation"]
    assert [r.role for r in utf8_roles("😊".encode())][0] == "lead of 4"
    assert completeness(b"\x96") == "starts mid-character"
    assert completeness(b"\xb8\x96\xe4") == "starts and ends mid-character"
    assert completeness(b"\xff") == "not valid UTF-8"


def test_bytelevel_mapping():
    mapping = bytes_to_unicode()
    assert mapping[ord(" ")] == "Ġ" and mapping[ord("\n")] == "Ċ" and mapping[ord("a")] == "a"
    assert len(set(mapping.values())) == 256
    rank = hf_byte_rank()
    assert sorted(rank) == list(range(256)) and rank[ord("!")] == 0
    assert unicode_to_token(token_to_unicode(bytes(range(256)))) == bytes(range(256))


def test_hf_rule_needs_bytes_base():
    with pytest.raises(ValueError, match="bytes"):
        TrainConfig(base="chars", tie_rule="hf")


@pytest.mark.parametrize("base", ["bytes", "chars"])
def test_replaying_a_tokenizer_on_another_corpus(base):
    """An imported tokenizer replayed merge by merge on your text ends where encode() does."""
    source = Trainer(sample_text("workshop.txt"), TrainConfig(base=base, max_merges=150, pretokenizer="gpt2"))
    source.train()
    tok = source.tokenizer()
    text = "Die Katze und der Tokenizer: 1001 Wörter, 中文 and emoji 🚀 and the tokens the tokenizer made."
    replay = Trainer.replaying(text, tok)
    assert replay.is_replay and not source.is_replay
    events = replay.train()
    assert [e.pair for e in events] == tok.merges
    assert replay.stop_reason == "replay-end"
    assert [s[0] for s in replay.spans(0, replay.layout().size)] == tok.encode(text)
    assert all(e.count >= 0 and e.ties == (e.pair,) for e in events)
    assert any(e.count == 0 for e in events)  # some merges never fire on this text
    replay.goto(40)
    again = Trainer.replaying(text, tok)
    again.goto(40)
    assert replay.sequences() == again.sequences()
    assert replay.tokenizer().merges == tok.merges[:40]


def test_replay_on_the_training_corpus_matches_training():
    text = sample_text("workshop.txt")
    source = Trainer(text, TrainConfig(max_merges=120))
    events = source.train()
    replay = Trainer.replaying(text, source.tokenizer())
    again = replay.train()
    assert [(e.pair, e.count, e.tokens_after) for e in again] == [(e.pair, e.count, e.tokens_after) for e in events]
