"""The Trainer's collaborators on their own: each chooser answers with a ``Choice`` or a
``Stop``, and a trainer and its parts hold no reference cycle (the app relies on reference
counting to free a trainer it replaces, frozen out of the collector or not)."""

from __future__ import annotations

import gc
import weakref
from collections import Counter

import pytest

from engine import TrainConfig, Trainer
from engine.train.choosing import Choice, RuleChooser, ScriptChooser, Stop, TextTieChooser
from engine.train.pair_state import PairState


def test_the_rule_chooser_answers_a_choice_then_stops():
    state = PairState([([1, 2, 1, 2], 1), ([3, 4], 1)], "lowest-ids")
    assert RuleChooser(state, 1).choose() == Choice((1, 2), 2, ((1, 2),), 1)
    assert RuleChooser(state, 3).choose() == Stop("min-frequency")
    assert RuleChooser(PairState([([1], 1)], "lowest-ids"), 1).choose() == Stop("no-pairs")


def test_each_trainer_holds_the_chooser_its_rule_names():
    text = "ab ab ba ba cd"
    assert isinstance(Trainer(text, TrainConfig(tie_rule="subword-nmt")).chooser, TextTieChooser)
    assert isinstance(Trainer(text, TrainConfig(tie_rule="first-seen")).chooser, RuleChooser)
    replay = Trainer.replaying(text, Trainer(text, TrainConfig(max_merges=2)).tokenizer_of([(97, 98)]))
    assert isinstance(replay.chooser, ScriptChooser)
    assert replay.chooser.choose() == Choice((97, 98), 2, ((97, 98),), replay.tie_count(2))
    replay.step()
    assert replay.chooser.choose() == Stop("replay-end")


def test_subword_nmt_ties_go_to_the_largest_text():
    """Four pairs tied at count 1: subword-nmt takes the largest pair of texts, ``(c, d)``."""
    chunks = Counter({"ab": 1, "ba": 1, "cd": 1, "dc": 1})
    trainer = Trainer("", TrainConfig(base="chars", pretokenizer="none", tie_rule="subword-nmt", min_frequency=1), chunks=chunks)
    chosen = trainer.chooser.choose()
    assert isinstance(chosen, Choice) and chosen.tie_total == 4
    assert [trainer.token_text(i) for i in chosen.pair] == ["d", "c"]
    assert [c.pair for c in trainer.candidates(4)] == list(chosen.ties[:4])


def test_a_trainer_is_freed_by_reference_counting_after_every_kind_of_move():
    text = "low lower lowest newer newest wider " * 5
    trainer = Trainer(text, TrainConfig(max_merges=12), checkpoints=2)
    trainer.train()
    trainer.goto(4)
    trainer.force(trainer.candidates(3)[-1].pair)  # a branch: the old line is kept aside
    trainer.switch("main")
    trainer.spans(0, 20)
    trainer.candidates()
    gone = weakref.ref(trainer)
    replay = Trainer.replaying(text, trainer.tokenizer())
    replay.train()
    replay.spans(0, 20)
    replay_gone = weakref.ref(replay)
    was = gc.isenabled()
    gc.disable()
    try:
        del trainer, replay
        assert gone() is None and replay_gone() is None
    finally:
        if was:
            gc.enable()


def test_a_trainer_without_an_undo_log_trains_the_same_and_keeps_the_config():
    """``undo_log=False`` (bpe-lab train): the same merges and events, no record kept, no undo,
    and the config (saved with the tokenizer) still says what it was given."""
    text = "low lower lowest newer wider " * 3
    logged, unlogged = Trainer(text, TrainConfig(max_merges=8)), Trainer(text, TrainConfig(max_merges=8), undo_log=False)
    assert logged.train() == unlogged.train()
    assert unlogged.timeline.last_record is None and logged.timeline.last_record is not None
    assert unlogged.tokenizer().to_dict() == logged.tokenizer().to_dict()
    assert unlogged.config.record_undo
    with pytest.raises(RuntimeError, match="record_undo=False"):
        unlogged.undo()
