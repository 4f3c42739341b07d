"""Checkpoints: jumps that restore a copy of the state end exactly where walking would."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest
from helpers import shared_corpus
from hypothesis import given, note
from hypothesis import strategies as st

from engine import TrainConfig, Trainer
from engine.train.checkpoints import SPACING, WORK_PER_MERGE, Checkpoints

from test_engine_differential import configs, corpora
from test_engine_undo import fresh_at, snapshot

moves = st.lists(
    st.tuples(st.sampled_from(["goto", "goto", "goto", "step", "undo", "redo", "within", "settle", "candidates"]),
              st.integers(0, 45)),
    max_size=30,
)


@given(corpora(), configs(), st.integers(1, 3), moves, st.sampled_from([None, 1 << 30]))
def test_jumps_through_copies_equal_a_fresh_trainer(text, kw, limit, ops, memory):
    """(Under a memory bound step 0's copy is lean: its index is made again on restore.)"""
    config = TrainConfig(**kw)
    trainer = Trainer(text, config, checkpoints=limit, checkpoint_memory=memory)
    if memory is not None:
        trainer.step()
        copies = trainer.timeline.checkpoints.copies
        assert not copies or copies[0].lean
        if trainer.steps:
            trainer.undo()
    for op, arg in ops:
        if op == "goto":
            trainer.goto(arg)
        elif op == "within":  # a jump cut short, as the app's worker does between batches
            trainer.goto_within(arg, time.perf_counter() - 1)
        elif op == "candidates":  # a read: it may repair the queue a restore borrowed
            trainer.candidates(arg % 12 + 1)
        else:
            getattr(trainer, op)()
        marks = trainer.timeline.checkpoints
        assert 0 in marks.copies or not marks.copies
        assert len(marks.copies) <= limit + 1
    note(f"at step {trainer.steps}, copies at {sorted(trainer.timeline.checkpoints.copies)}")
    assert snapshot(trainer) == snapshot(fresh_at(text, config, trainer.steps))
    assert trainer.future == [e for e in fresh_at(text, config, trainer.steps + len(trainer.future)).history[trainer.steps :]]
    assert_copies_hold_their_steps(trainer, text, config)


def assert_copies_hold_their_steps(trainer: Trainer, text: str, config: TrainConfig) -> None:
    """Each copy, restored into a fresh state, is the state of its step: the loans of the
    restores before (node array, dicts, queue) came back whole."""
    trainer.settle()
    for step, copy in trainer.timeline.checkpoints.copies.items():
        probe = Trainer(text, config)._state
        probe.restore(copy)
        fresh = fresh_at(text, config, step)._state
        probe.verify()
        assert probe.sequences() == fresh.sequences()
        assert probe.tokens == fresh.tokens
        assert probe.top(10) == fresh.top(10)
        probe.own()  # the copy gets its node array back


@given(corpora(), configs(), st.integers(0, 45))
def test_a_time_boxed_jump_gets_there_in_pieces(text, kw, target):
    config = TrainConfig(**kw)
    trainer = Trainer(text, config, checkpoints=2)
    trainer.train()
    calls = 0
    while not trainer.goto_within(target, time.perf_counter() - 1):  # one move per call
        calls += 1
        assert calls <= 10_000
    assert snapshot(trainer) == snapshot(fresh_at(text, config, trainer.steps))


def test_a_long_jump_back_and_forth_restores_copies():
    text = "".join(f"word{i % 997} other{i % 13} " for i in range(4000))
    trainer = Trainer(text, TrainConfig(max_merges=300), checkpoints=3)
    trainer.train()
    marks = trainer.timeline.checkpoints
    marks.copies = {0: marks.copies[0]}  # as if training had taken no copy but step 0's
    walk_back = marks.work[300] - marks.work[0]
    assert trainer.jump_work(0) < walk_back / 10  # the copy of step 0 beats 300 undos
    trainer.goto(0)
    assert 300 in marks.copies  # the place left behind is kept
    assert trainer.jump_work(300) < walk_back / 10
    trainer.goto(300)
    trainer._state.verify()
    assert [e.pair for e in trainer.history] == [e.pair for e in fresh_at(text, TrainConfig(max_merges=300), 300).history]
    assert trainer.jump_work(301) is None  # a merge not made yet: cost unknown


def trained_with_step_0s_copy_only():
    """300 merges trained, keeping only step 0's copy: (text, config, trainer, its marks)."""
    text = "".join(f"word{i % 997} other{i % 13} " for i in range(4000))
    config = TrainConfig(max_merges=300)
    trainer = Trainer(text, config, checkpoints=3)
    trainer.train()
    marks = trainer.timeline.checkpoints
    marks.copies = {0: marks.copies[0]}
    return text, config, trainer, marks


def test_jumps_that_borrow_a_copy_give_it_back_whole():
    """A restore borrows the copy's node array, dicts and queue until own() (settle, or the next
    merge or undo): jumps in a row, reads in between, and a merge after leave every copy whole."""
    text, config, trainer, marks = trained_with_step_0s_copy_only()
    trainer.goto(0)  # restores step 0's copy, keeping one of 300
    trainer.goto(300)  # restores that one: the loan of step 0's is given back unchanged
    trainer.goto(150)  # restores a copy and walks: the walk owns the state first
    trainer.goto(0)
    trainer.candidates(8)  # repairs the borrowed queue of step 0's copy
    trainer.goto(300)  # a second restore in a row: the first loan is given back unchanged
    trainer.candidates(8)
    trainer.step()  # nothing to merge at 300 (a stop rule): the loan stays
    trainer.undo()  # an undo owns the state first
    assert sorted(marks.copies)[0] == 0 and 300 in marks.copies
    assert_copies_hold_their_steps(trainer, text, config)
    assert snapshot(trainer) == snapshot(fresh_at(text, config, trainer.steps))


def test_a_jump_that_walks_from_where_it_keeps_a_copy():
    """Leaving a place far from any copy keeps one of it, made of the state's own parts (no
    copying); when walking from there is still the cheapest way, the walk starts on its loan."""
    text, config, trainer, marks = trained_with_step_0s_copy_only()
    assert marks.plan(300, 250) is None  # walking back beats step 0's copy
    trainer.goto(250)
    assert 300 in marks.copies
    assert snapshot(trainer) == snapshot(fresh_at(text, config, 250))
    trainer.goto(300)
    assert snapshot(trainer) == snapshot(fresh_at(text, config, 300))
    assert_copies_hold_their_steps(trainer, text, config)


def test_jump_work_is_the_walk_without_checkpoints_kept():
    trainer = Trainer("abab abab cdcd " * 50, TrainConfig(max_merges=5))
    trainer.train()
    assert trainer.jump_work(0) is None


def test_thinning_keeps_step_zero_and_spreads_the_rest():
    marks = Checkpoints(limit=2)
    marks.work = [i * (WORK_PER_MERGE + 1) for i in range(101)]

    class State:  # what a copy needs from a pair state
        def own(self):  # a restored state gives back what it borrowed (nothing here)
            pass

        def snapshot(self, into=None, lean=False):
            return SimpleNamespace(data=into)

    for step in (0, 10, 12, 90):
        marks.take(step, State())
    assert sorted(marks.copies) == [0, 12, 90]  # 10 and 12 were closest: one of them goes
    marks.take(50, State())
    assert 0 in marks.copies and 50 in marks.copies and len(marks.copies) == 3
    marks.take(100, State())  # the furthest step: training carries on from there
    marks.take(70, State())  # arriving elsewhere drops another copy, not the end's
    assert sorted(marks.copies) == [0, 70, 100]


def test_training_takes_copies_spaced_by_work():
    text = "".join(f"word{i % 997} other{i % 13} " for i in range(4000))
    trainer = Trainer(text, TrainConfig(max_merges=300), checkpoints=50)  # no thinning
    trainer.train()
    marks = trainer.timeline.checkpoints
    steps = sorted(marks.copies)
    assert steps[0] == 0 and len(steps) > 2
    for before, after in zip(steps, steps[1:]):  # each one SPACING copies' worth after the last
        assert marks.work[after] >= marks.work[before] + SPACING * marks.copies[before].cost
        assert marks.work[after - 1] < marks.work[before] + SPACING * max(marks.copies[before].cost, 1)


def test_copies_stay_within_their_memory_bound():
    text = "".join(f"word{i % 997} other{i % 13} " for i in range(4000))
    config = TrainConfig(max_merges=300)
    one = Trainer(text, config, checkpoints=1)._state.snapshot().size  # step 0's copy
    bounded = Trainer(text, config, checkpoints=50, checkpoint_memory=int(2.5 * one))
    bounded.train()
    for target in (0, 300, 100, 200, 0, 300):
        bounded.goto(target)
        copies = bounded.timeline.checkpoints.copies
        assert 0 in copies and sum(c.size for c in copies.values()) <= 2.5 * one
    assert len(bounded.timeline.checkpoints.copies) >= 2  # the bound thins copies, it does not stop them
    assert snapshot(bounded) == snapshot(fresh_at(text, config, 300))

    unbounded = Trainer(text, config, checkpoints=50)
    unbounded.train()
    assert len(unbounded.timeline.checkpoints.copies) > len(bounded.timeline.checkpoints.copies)


def test_no_copies_when_one_is_over_the_memory_bound():
    text = "".join(f"word{i % 997} other{i % 13} " for i in range(4000))
    config = TrainConfig(max_merges=300)
    trainer = Trainer(text, config, checkpoints=3, checkpoint_memory=1000)
    trainer.train()
    trainer.goto(0)
    trainer.goto(300)
    assert trainer.timeline.checkpoints.copies == {}  # jumps walk
    assert trainer.jump_work(0) == trainer.timeline.checkpoints.work[300]
    assert snapshot(trainer) == snapshot(fresh_at(text, config, 300))


@pytest.mark.slow  # tang_2000: a large real corpus
def test_copies_on_a_real_corpus_match_walking():
    text = shared_corpus("tang_2000.txt").read_text(encoding="utf-8")  # skips without ../shared
    config = TrainConfig(max_merges=600)
    jumping = Trainer(text, config, checkpoints=2)
    walking = Trainer(text, config)
    jumping.train()
    walking.train()
    for target in (0, 600, 150, 450, 0, 300, 600):
        jumping.goto(target)
        walking.goto(target)
        assert jumping.candidates(10) == walking.candidates(10)
        assert jumping.corpus_tokens == walking.corpus_tokens
        assert jumping.sequences() == walking.sequences()
    jumping._state.verify()
