"""Exactness: the incremental trainer makes exactly the merges of the naive seed algorithm."""

from __future__ import annotations

import pytest
from helpers import shared_corpus
from hypothesis import given
from hypothesis import strategies as st

from engine import TrainConfig, Trainer
from engine.train.reference import train as reference_train

# Small alphabets make ties and runs (aaaa, abab: the classic traps) likely.
ALPHABETS = ["ab", "aab", "abc ", "a b\n", "ab\n\n", "aä ", "xy 12", "中文，。\n", "a1 b2\n", "😀a "]


@st.composite
def corpora(draw):
    alphabet = draw(st.sampled_from(ALPHABETS))
    return draw(st.text(alphabet=alphabet, min_size=1, max_size=80))


@st.composite
def configs(draw):
    return {
        "base": draw(st.sampled_from(["bytes", "chars"])),
        "pretokenizer": draw(st.sampled_from(["none", "simple", "gpt2", "gpt4"])),
        "tie_rule": draw(st.sampled_from(["lowest-ids", "first-seen"])),
        "no_merge_newline": draw(st.booleans()),
        "split_digits": draw(st.booleans()),
        "min_frequency": draw(st.sampled_from([1, 2, 2, 3])),
        "max_merges": draw(st.integers(min_value=0, max_value=40)),
    }


def train_both(text, kw):
    expected, sizes = reference_train(text, **kw)
    trainer = Trainer(text, TrainConfig(**kw))
    events = trainer.train()
    return expected, sizes, trainer, events


@given(corpora(), configs())
def test_merges_match_reference(text, kw):
    expected, sizes, trainer, events = train_both(text, kw)
    assert [e.pair for e in events] == expected
    assert [e.tokens_after for e in events] == sizes
    assert [e.step for e in events] == list(range(1, len(events) + 1))
    trainer._state.verify()


@given(corpora(), st.sampled_from(["bytes", "chars"]), st.sampled_from(["lowest-ids", "first-seen"]))
def test_vocab_size_stop_rule_matches_reference(text, base, tie):
    kw = {"base": base, "pretokenizer": "none", "tie_rule": tie, "specials": ("<s>",)}
    base_size = 256 if base == "bytes" else len(set(text) | {"\ufffd"})
    kw["vocab_size"] = base_size + 1 + 5
    expected, _, trainer, events = train_both(text, kw)
    assert [e.pair for e in events] == expected
    assert trainer.vocab_size <= kw["vocab_size"]


@given(corpora(), configs())
def test_event_count_and_ties_are_consistent(text, kw):
    trainer = Trainer(text, TrainConfig(**kw))
    while True:
        top = trainer.candidates(50)
        event = trainer.step()
        if event is None:
            break
        best = [c for c in top if c.count == event.count]
        assert top[0].pair == event.pair and top[0].count == event.count
        assert event.tie_total >= len(event.ties) >= 1
        assert list(event.ties) == [c.pair for c in best][: len(event.ties)]
        if len(best) < 50:
            assert event.tie_total == len(best)
        assert event.tokens_before - event.tokens_after == event.removed > 0


@pytest.mark.slow  # 8 runs of the naive reference trainer on real text
@pytest.mark.parametrize("tie", ["lowest-ids", "first-seen"])
@pytest.mark.parametrize(
    "pre,base,newline",
    [("gpt2", "bytes", False), ("simple", "chars", False), ("none", "bytes", True), ("gpt4", "chars", True)],
)
def test_real_corpus_the_verdict(pre, base, newline, tie):
    text = shared_corpus("the-verdict.txt").read_text(encoding="utf-8")[:6000]
    kw = {"base": base, "pretokenizer": pre, "tie_rule": tie, "no_merge_newline": newline, "max_merges": 120}
    expected, sizes, _, events = train_both(text, kw)
    assert [e.pair for e in events] == expected
    assert [e.tokens_after for e in events] == sizes


@pytest.mark.slow  # tang_2000 through the naive reference trainer
@pytest.mark.parametrize("tie", ["lowest-ids", "first-seen"])
def test_real_corpus_tang_poems(tie):
    text = shared_corpus("tang_2000.txt").read_text(encoding="utf-8")[:2500]
    for pre in ("none", "gpt2"):
        kw = {"base": "bytes", "pretokenizer": pre, "tie_rule": tie, "max_merges": 150}
        expected, sizes, _, events = train_both(text, kw)
        assert [e.pair for e in events] == expected
        assert [e.tokens_after for e in events] == sizes


def test_runs_of_one_symbol_merge_left_to_right():
    """aaaaa: (a,a) counts 4 (overlapping) but merges to aa aa a; then (aa,aa) counts 1."""
    trainer = Trainer("aaaaa", TrainConfig(pretokenizer="none", min_frequency=1))
    first = trainer.step()
    assert first.count == 4
    assert trainer.sequences() == [(256, 256, 97)]
    assert trainer.pair_counts() == {(256, 256): 1, (256, 97): 1}
