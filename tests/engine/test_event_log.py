"""The event log: merges kept as arrays, events made as they are read, equal to those training made."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from engine import TrainConfig, Trainer
from engine.train.event_log import EventLog, Events, rows
from engine.train.events import TIE_CAP, Merge
from engine.train.reference import train as reference_train

from test_engine_differential import configs, corpora


@given(corpora(), configs(), st.data())
def test_events_read_back_equal_those_training_made_and_the_reference(text, kw, data):
    expected, sizes = reference_train(text, **kw)
    trainer = Trainer(text, TrainConfig(**kw))
    made = trainer.train()
    assert [e.pair for e in trainer.history] == expected and [e.tokens_after for e in trainer.history] == sizes
    assert trainer.history == made and list(trainer.history) == made
    assert [trainer.made_by(e.new_id) for e in made] == made
    back = data.draw(st.integers(0, len(made)))
    trainer.goto(back)
    assert trainer.history == made[:back] and trainer.future == made[back:]
    assert trainer.history.tokens_after() == sizes[:back] and trainer.future.tokens_after() == sizes[back:]  # no events made
    assert trainer.future.pairs() == expected[back:]
    assert trainer.last == (made[back - 1] if back else None)
    trainer.goto(len(made))
    assert trainer.history == made and len(trainer.timeline.log) == len(made)  # redone from their rows


def test_an_event_read_back_is_the_merge_made_field_by_field():
    trainer = Trainer("aaab aaab abab" * 3, TrainConfig(pretokenizer="simple", max_merges=5))
    made = trainer.train()
    forced = trainer.force((98, 32)) if trainer.pair_count((98, 32)) else None
    for event, again in zip(made, trainer.history):
        assert type(again) is Merge and tuple(again) == tuple(event)
        assert again.pair is again.ties[0] or again.pair not in again.ties[:1]
    if forced is not None:
        assert trainer.last == forced and trainer.last.manual


def test_events_is_a_read_only_snapshot_that_compares_with_lists():
    trainer = Trainer("abababcabc abab", TrainConfig(pretokenizer="none", max_merges=4))
    made = trainer.train()
    history = trainer.history
    trainer.goto(1)
    assert len(made) == 3 and len(history) == 3 and history == made  # a snapshot: the undo did not change it
    assert history[-1] == made[-1] and history[1:3] == made[1:3] and isinstance(history[1:3], Events)
    assert history != made[:2] and history != "abc" and history != [*made[:2], made[0]]
    assert trainer.history + trainer.future == made and bool(trainer.future) and not trainer.events(1, 1)
    assert repr(trainer.history) == repr(made[:1])


def test_a_log_row_keeps_every_field_and_its_undo_record():
    log = EventLog()
    row = log.add(1, 5, 7, 300, b"xy", count=2**40, ties=((5, 7), (1, 2)), tie_total=9, tokens_after=2**35,
                  removed=12, manual=True, record=None)
    assert log.event(row) == Merge(1, (5, 7), 300, b"xy", 2**40, ((5, 7), (1, 2)), 9, 2**35, 12, True)
    assert log.record(row) is None and log.moved(row) == 0 and log.is_manual(row)
    assert Events(log, rows([row, row])) == [log.event(row)] * 2


def test_the_log_holds_no_object_a_merge_and_few_bytes():
    """A long run of tied merges (each event lists TIE_CAP pairs): the log keeps them in arrays,
    under 150 bytes a merge besides the tokens' and the records' own (as objects, an event, its
    tie set and its entry took about 350, and the undo record 150 more)."""
    words = [f"{chr(0x4E00 + i)}{chr(0x4E00 + 500 + i)}" for i in range(400)]
    trainer = Trainer(" ".join(words * 2), TrainConfig(base="chars", pretokenizer="simple"))
    made = trainer.train()
    log = trainer.timeline.log
    assert len(made) > 300 and sum(len(e.ties) == TIE_CAP for e in made) > 300
    assert log.nbytes() / len(log) < 150
    assert all(type(field) is not Merge for field in vars(trainer.timeline).values())
    pool = len(log.pool)
    trainer.goto(0)
    trainer.goto(len(made))
    assert len(log.pool) == pool and trainer.history == made  # redone records took their old places


def test_a_record_read_back_undoes_its_merge():
    trainer = Trainer("abababcabc abab" * 3, TrainConfig(pretokenizer="none", max_merges=4))
    trainer.train()
    state = trainer._state
    log, row = trainer.timeline.log, trainer.timeline.applied[-1]
    record = log.record(row)
    assert record is not None and (record.a, record.b, record.new_id) == (*log.pair(row), log.new_id(row))
    assert record.moved == log.moved(row) > 0 and record.removed == trainer.last.removed
    before = state.pair_counts()
    trainer.undo()
    assert state.pair_counts() != before
    trainer._state.verify()
    assert trainer.redo() == log.event(row) and state.pair_counts() == before
    keeps_none = Trainer("abababcabc abab", TrainConfig(pretokenizer="none", max_merges=2, record_undo=False))
    keeps_none.train()
    assert keeps_none.timeline.log.record(0) is None and keeps_none.timeline.log.pool is None
