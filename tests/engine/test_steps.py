"""Trainer.advance: the merges made without events (on the compiled path, lowest-ids, in the core's
one loop: engine/native/steps.pxi) are the merges step() makes one at a time, with the same
events in the log, the same stop reason and the same state, in batches of any size; their undo
records undo them. On the pure path advance steps one at a time, so the comparison holds there
too (CI runs both)."""

from __future__ import annotations

import pytest
from helpers import sample_text
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import TrainConfig, Trainer
from engine.native.door import COMPILED, WHY_PURE
from engine.train import trainer as trainer_module
from engine.train.gc_pause import gc_paused
from engine.train.pair_state import PairState
from engine.train.reference import train as reference_train

needs_compiled = pytest.mark.skipif(COMPILED is None, reason=f"no compiled core here: {WHY_PURE}")

#: Few symbols, so that counts tie often (long tie sets, the read-ahead refilled and dropped).
TEXTS = st.text(alphabet="ab cd\n\u4e2d\u6587\u00e9", min_size=1, max_size=120).map(lambda t: t * 3)


@st.composite
def setups(draw):
    config = {
        "base": draw(st.sampled_from(["bytes", "chars"])),
        "pretokenizer": draw(st.sampled_from(["none", "simple", "gpt2"])),
        "min_frequency": draw(st.integers(1, 3)),
        "max_merges": draw(st.one_of(st.none(), st.integers(1, 60))),
    }
    mark = draw(st.sampled_from([None, "prefix", "suffix"]))
    if mark == "prefix":
        config["subword_prefix"] = "##"
    elif mark == "suffix":
        config["end_of_word"] = "</w>"
    return config


def stepped(text: str, config: dict, undo_log: bool) -> Trainer:
    trainer = Trainer(text, TrainConfig(**config), undo_log=undo_log)
    with gc_paused():
        while trainer.step() is not None:
            pass
    return trainer


def state_of(trainer: Trainer) -> tuple:
    state = trainer._state
    return trainer.steps, trainer.stop_reason, trainer.corpus_tokens, dict(state.count.items()), list(state.data)


@settings(max_examples=60, deadline=None)
@given(TEXTS, setups(), st.lists(st.integers(1, 7), min_size=1, max_size=6), st.booleans())
def test_advance_makes_the_merges_step_makes(text, config, batches, undo_log):
    expected = stepped(text, config, undo_log)
    trainer = Trainer(text, TrainConfig(**config), undo_log=undo_log)
    made = 0
    for size in batches:  # batches of the sizes drawn, then the rest in one
        made += trainer.advance(size)
    made += trainer.advance()
    assert made == trainer.steps
    assert list(trainer.history) == list(expected.history)
    assert state_of(trainer) == state_of(expected)
    assert trainer.advance() == 0  # stopped: nothing more
    if undo_log:  # each undo record undoes its merge: all the way back, then the same merges again
        while trainer.undo() is not None:
            pass
        fresh = Trainer(text, TrainConfig(**config), undo_log=False)
        assert dict(trainer._state.count.items()) == dict(fresh._state.count.items())
        assert list(trainer._state.data) == list(fresh._state.data)
        trainer.advance()
        assert list(trainer.history) == list(expected.history)


@settings(max_examples=40, deadline=None)
@given(st.text(alphabet="abc \n", min_size=1, max_size=80), st.integers(1, 3))
def test_advance_gives_the_naive_references_merges(text, min_frequency):
    trainer = Trainer(text, TrainConfig(pretokenizer="simple", min_frequency=min_frequency))
    events = trainer.train()
    merges, sizes = reference_train(text, pretokenizer="simple", min_frequency=min_frequency)
    assert [e.pair for e in events] == merges
    assert [e.tokens_after for e in events] == sizes


def test_the_vocabularys_byte_bound_stops_both_alike(monkeypatch):
    text = "abababab cdcdcdcd abcdabcd " * 40
    monkeypatch.setattr(trainer_module, "MAX_VOCAB_BYTES", 300)
    expected = stepped(text, {"pretokenizer": "none"}, False)
    trainer = Trainer(text, TrainConfig(pretokenizer="none"), undo_log=False)
    trainer.advance()
    assert expected.stop_reason == trainer.stop_reason == "vocab-bytes"
    assert list(trainer.history) == list(expected.history)


def test_a_stop_rule_ends_advance_and_says_which():
    text = "the cat sat on the mat " * 20
    trainer = Trainer(text, TrainConfig(max_merges=5))
    assert trainer.advance(3) == 3 and trainer.stop_reason is None
    assert trainer.advance() == 2 and trainer.stop_reason == "merges"
    rare = Trainer("abcdefg ab", TrainConfig(pretokenizer="none", min_frequency=3))
    assert rare.advance() == 0
    assert rare.stop_reason == stepped("abcdefg ab", {"pretokenizer": "none", "min_frequency": 3}, False).stop_reason
    assert rare.stop_reason is not None


def test_advance_redoes_what_was_undone_first():
    text = "low lower lowest newer wider " * 10
    expected = stepped(text, {"max_merges": 12}, True)
    trainer = Trainer(text, TrainConfig(max_merges=12))
    trainer.advance(8)
    trainer.undo()
    trainer.undo()
    assert trainer.advance() == 6
    assert list(trainer.history) == list(expected.history)


@needs_compiled
def test_the_core_makes_the_usual_rules_merges_in_one_loop(monkeypatch):
    """Under lowest-ids the compiled path never chooses a step at a time (the loop is in use),
    and under first-seen it does (the loop is only for the queue it knows)."""
    chosen = []
    original = PairState.choose
    monkeypatch.setattr(PairState, "choose", lambda self, cap: chosen.append(1) or original(self, cap))
    text = "the cat sat on the mat, the hat " * 30
    Trainer(text, TrainConfig(max_merges=20)).advance()
    assert chosen == []
    made = Trainer(text, TrainConfig(max_merges=20, tie_rule="first-seen")).advance()
    assert made > 0 and len(chosen) >= made


@settings(max_examples=30, deadline=None)
@given(TEXTS, st.sampled_from(["bytes", "chars"]), st.lists(st.integers(1, 9), min_size=1, max_size=4))
def test_checkpoints_are_taken_where_stepping_takes_them(text, base, batches):
    """With copies kept for jumps (the app), the loop stops where a copy is due: the copies are
    those of the same steps, their work the same, and a jump back and forth lands on the same
    merges."""
    config = TrainConfig(base=base, pretokenizer="gpt2", max_merges=80, min_frequency=1)
    stepping = Trainer(text, config, checkpoints=6)
    with gc_paused():
        while stepping.step() is not None:
            pass
    trainer = Trainer(text, config, checkpoints=6)
    for size in batches:
        trainer.advance(size)
    trainer.advance()
    assert list(trainer.history) == list(stepping.history)
    ours, theirs = trainer.timeline.checkpoints, stepping.timeline.checkpoints
    assert sorted(ours.copies) == sorted(theirs.copies) and ours.work == theirs.work
    trainer.goto(trainer.steps // 3)
    trainer.goto(stepping.steps)  # (reaching it, the walk tries no step after: no stop reason)
    assert list(trainer.history) == list(stepping.history)
    assert state_of(trainer)[2:] == state_of(stepping)[2:]


def test_copies_along_the_way_are_the_ones_stepping_takes():
    text = sample_text("workshop.txt") * 3
    config = TrainConfig(max_merges=600, min_frequency=1)
    stepping = Trainer(text, config, checkpoints=12)
    with gc_paused():
        while stepping.step() is not None:
            pass
    trainer = Trainer(text, config, checkpoints=12)
    trainer.advance()
    ours, theirs = trainer.timeline.checkpoints, stepping.timeline.checkpoints
    assert len(theirs.copies) > 2  # taken along the way, not only step 0's
    assert sorted(ours.copies) == sorted(theirs.copies) and ours.work == theirs.work
    assert list(trainer.history) == list(stepping.history)
