"""Undo, redo and goto: any path through training leaves the state a fresh run would have."""

from __future__ import annotations

import os

import pytest
from helpers import shared_corpus
from hypothesis import event as event_note
from hypothesis import given, note, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from engine import TrainConfig, Trainer
from engine.train.reference import train as reference_train

from test_engine_differential import configs, corpora


def snapshot(trainer: Trainer):
    """Everything the acceptance criterion names: sequences, pair counts, tokens, candidates."""
    trainer._state.verify()
    return (
        trainer.sequences(),
        trainer.pair_counts(),
        trainer.corpus_tokens,
        trainer.candidates(10),
        [e.pair for e in trainer.history],
        trainer.vocab,
    )


def fresh_at(text, config, k):
    trainer = Trainer(text, config)
    for _ in range(k):
        trainer.step()
    return trainer


@given(corpora(), configs(), st.lists(st.tuples(st.sampled_from(["step", "undo", "redo", "goto"]), st.integers(0, 45)), max_size=25))
def test_any_path_equals_fresh_trainer(text, kw, ops):
    config = TrainConfig(**kw)
    trainer = Trainer(text, config)
    for op, arg in ops:
        if op == "goto":
            trainer.goto(arg)
        else:
            getattr(trainer, op)()
    note(f"at step {trainer.steps}")
    assert snapshot(trainer) == snapshot(fresh_at(text, config, trainer.steps))


@given(corpora(), configs(), st.integers(0, 40))
def test_k_steps_then_k_undos_is_the_start(text, kw, k):
    config = TrainConfig(**kw)
    trainer = Trainer(text, config)
    start = snapshot(trainer)
    made = sum(1 for _ in range(k) if trainer.step() is not None)
    for _ in range(made):
        assert trainer.undo() is not None
    assert trainer.undo() is None
    assert snapshot(trainer) == start


def test_redo_replays_the_recorded_event():
    trainer = Trainer("abababcabc abab", TrainConfig(pretokenizer="none", max_merges=4))
    events = trainer.train()
    trainer.goto(1)
    assert trainer.future == events[1:]
    assert trainer.redo() == events[1]
    assert trainer.step() == events[2]  # the next step after an undo is the recorded one
    assert len(trainer.timeline.log) == len(events)  # re-applied from the log: nothing made anew
    assert trainer.goto(10) == len(events)
    assert trainer.history == events


@pytest.mark.slow  # tang_2000: a large real corpus
def test_undo_on_a_real_corpus():
    text = shared_corpus("tang_2000.txt").read_text(encoding="utf-8")[:8000]
    config = TrainConfig(pretokenizer="gpt2", tie_rule="first-seen", max_merges=250)
    trainer = Trainer(text, config)
    trainer.train()
    trainer.goto(137)
    assert snapshot(trainer) == snapshot(fresh_at(text, config, 137))
    trainer.goto(250)
    assert [e.pair for e in trainer.history] == reference_train(text, pretokenizer="gpt2", tie_rule="first-seen", max_merges=250)[0]


class TrainerMachine(RuleBasedStateMachine):
    """Step / undo / redo / goto / candidates / tokenizer against the naive reference (issue 7)."""

    @initialize(data=st.data())
    def setup(self, data):
        self.text = data.draw(corpora())
        self.kw = data.draw(configs())
        self.expected, self.sizes = reference_train(self.text, **self.kw)
        self.trainer = Trainer(self.text, TrainConfig(**self.kw))
        self.k = 0

    @rule()
    def step(self):
        event = self.trainer.step()
        if self.k < len(self.expected):
            assert event is not None and event.pair == self.expected[self.k]
            assert event.tokens_after == self.sizes[self.k]
            self.k += 1
        else:
            assert event is None

    @rule()
    def undo(self):
        event = self.trainer.undo()
        if self.k:
            assert event is not None and event.pair == self.expected[self.k - 1]
            self.k -= 1
        else:
            assert event is None

    @rule()
    def redo(self):
        event = self.trainer.redo()
        if event is not None:
            assert event.pair == self.expected[self.k]
            self.k += 1

    @rule(to=st.integers(0, 50))
    def goto(self, to):
        self.k = min(to, len(self.expected))
        assert self.trainer.goto(to) == self.k

    @rule(k=st.integers(1, 8))
    def candidates(self, k):
        top = self.trainer.candidates(k)
        counts = self.trainer.pair_counts()
        assert all(counts[c.pair] == c.count for c in top)
        floor = self.kw["min_frequency"]
        eligible = sorted((c for c in counts.values() if c >= floor), reverse=True)
        assert [c.count for c in top] == eligible[:k]

    @rule()
    def snapshot_tokenizer(self):
        tok = self.trainer.tokenizer()
        assert tok.merges == self.expected[: self.k]
        ids = tok.encode(self.text)
        assert tok.decode(ids) == self.text
        assert len(ids) == self.trainer.corpus_tokens

    @invariant()
    def in_step(self):
        assert self.trainer.steps == self.k
        assert [e.pair for e in self.trainer.history] == self.expected[: self.k]
        expected_tokens = self.sizes[self.k - 1] if self.k else self.trainer.initial_tokens
        assert self.trainer.corpus_tokens == expected_tokens


TestTrainerMachine = TrainerMachine.TestCase
TestTrainerMachine.settings = settings(
    max_examples=int(os.environ.get("STATEFUL_EXAMPLES", "60")), stateful_step_count=40, deadline=None
)


class BranchMachine(TrainerMachine):
    """The same walk with manual merges and branch switches (issue 14): each branch's line is
    the reference trainer's after forcing that line's merges up to its last manual one."""

    @initialize(data=st.data())
    def setup(self, data):
        self.text = data.draw(corpora())
        self.kw = data.draw(configs())
        self.trainer = Trainer(self.text, TrainConfig(**self.kw), checkpoints=data.draw(st.sampled_from([0, 2])))
        self.lines = {"main": ([], set())}  # branch -> (forced prefix, manual steps)
        self.at = {"main": 0}
        self.current = "main"
        self.k = 0
        self._line()

    def _line(self):
        prefix, self.manual = self.lines[self.current]
        self.expected, self.sizes = reference_train(self.text, **self.kw, forced=prefix)

    @rule(data=st.data())
    def force(self, data, pairs=None):
        floor = self.kw["min_frequency"]
        pairs = pairs or sorted(p for p, c in self.trainer.pair_counts().items() if c >= floor)
        if not pairs:
            return
        pair = data.draw(st.sampled_from(pairs))
        if self.k >= self.kw["max_merges"]:
            with pytest.raises(ValueError, match="merge limit"):
                self.trainer.force(pair)
            return
        future = self.trainer.future
        event = self.trainer.force(pair)
        assert event.pair == pair
        if future and future[0].pair == pair:
            assert not event.manual or self.k + 1 in self.manual
        else:
            assert event.manual and event.step == self.k + 1
            if future:  # a fork: the old line stays, left at this step
                event_note("fork")
                self.at[self.current] = self.k
                name = self.trainer.branch.name
                self.lines[name] = ([], set(self.manual))
                self.current = name
            prefix, manual = self.lines[self.current]
            prefix[:] = self.expected[: self.k] + [pair]
            manual -= {s for s in manual if s > self.k}
            manual.add(self.k + 1)
            self._line()
        self.k += 1

    @rule(data=st.data(), back=st.integers(1, 3))
    def undo_then_fork(self, data, back):
        """Undo a few steps and force a pair other than the recorded next one: a new branch."""
        for _ in range(back):
            self.undo()
        future = self.trainer.future
        floor = self.kw["min_frequency"]
        pairs = sorted(p for p, c in self.trainer.pair_counts().items() if c >= floor and (not future or p != future[0].pair))
        if pairs and self.k < self.kw["max_merges"]:
            self.force(data, pairs)

    @rule(data=st.data())
    def switch(self, data):
        names = list(self.lines)
        name = data.draw(st.sampled_from(names))
        self.at[self.current] = self.k
        branch = self.trainer.switch(name)
        event_note("switch to another branch" if name != self.current else "switch to the same branch")
        assert branch.name == name and branch.current
        self.current = name
        self.k = self.at[name]
        self._line()

    @invariant()
    def in_line(self):
        assert [e.step for e in self.trainer.history if e.manual] == sorted(s for s in self.manual if s <= self.k)
        future = [e.pair for e in self.trainer.future]
        assert future == self.expected[self.k : self.k + len(future)]
        assert [b.name for b in self.trainer.branches] == list(self.lines)


TestBranchMachine = BranchMachine.TestCase
TestBranchMachine.settings = settings(
    max_examples=int(os.environ.get("STATEFUL_EXAMPLES", "60")), stateful_step_count=40, deadline=None
)
