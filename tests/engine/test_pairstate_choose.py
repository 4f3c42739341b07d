"""PairState.choose gives exactly what the trainer's pick did: best(), ties(count), then top().

Two states built alike walk the same path of merges and undos: one picks with ``choose``, the
other the old way (``top`` repairs the queue as it reads it, ``choose`` leaves stale entries in
place), so any difference in pairs, counts, tie sets or totals shows.
"""

from __future__ import annotations

import pytest
from helpers import shared_corpus
from hypothesis import given
from hypothesis import strategies as st

from engine.text.bytelevel import hf_byte_rank
from engine.train.events import TIE_CAP
from engine.train.pair_state import PairState

from test_engine_differential import corpora


def old_choose(state: PairState, cap: int = TIE_CAP):
    best = state.best()
    if best is None:
        return None
    a, b, count = best
    total = state.ties(count)
    if total > 1:
        ties = tuple((x, y) for x, y, c in state.top(min(total, cap)) if c == count)
    else:
        ties = ((a, b),)
    return a, b, count, ties, total


def sequences(text: str, split: bool) -> list[tuple[list[int], int]]:
    chunks: dict[bytes, int] = {}
    for chunk in (text.split(" ") if split else [text]):
        data = chunk.encode("utf-8")
        chunks[data] = chunks.get(data, 0) + 1
    return [(list(data), n) for data, n in chunks.items()]


def states(seqs, tie: str, floor: int) -> tuple[PairState, PairState]:
    rank = hf_byte_rank() if tie == "hf" else None
    return PairState(seqs, tie, floor, rank), PairState(seqs, tie, floor, rank)


def walk(new: PairState, old: PairState, ops, cap: int = TIE_CAP) -> int:
    """Apply ``ops`` ("step", "undo" or "top") to both states, comparing every pick; returns the steps."""
    records = []
    next_id = 256
    for op in ops:
        if op == "top":  # the app reads candidates between steps: top repairs the queue
            assert new.top(7) == old.top(7)
            continue
        if op == "undo":
            if records:
                rec_new, rec_old = records.pop()
                new.unmerge(rec_new)
                old.unmerge(rec_old)
                next_id -= 1
            continue
        picked = new.choose(cap)
        assert picked == old_choose(old, cap)
        if picked is None:
            continue
        a, b = picked[0], picked[1]
        assert picked[3][0] == (a, b) and len(picked[3]) == min(picked[4], cap)
        records.append((new.merge(a, b, next_id), old.merge(a, b, next_id)))
        next_id += 1
    new.verify()
    return len(records)


@given(
    corpora(),
    st.sampled_from(["lowest-ids", "first-seen", "hf"]),
    st.sampled_from([1, 2, 3]),
    st.booleans(),
    st.integers(1, 6),
    st.lists(st.sampled_from(["step", "step", "step", "undo", "top"]), max_size=150),
)
def test_choose_equals_the_old_pick(text, tie, floor, split, cap, ops):
    new, old = states(sequences(text, split), tie, floor)
    walk(new, old, ops, cap)


@pytest.mark.slow  # thousands of steps on real text, three times, against the old pick
def test_choose_on_real_source_to_the_end():
    """Thousands of tied steps (late training is all ties at count 2), undos on the way."""
    text = shared_corpus("the-verdict.txt").read_text(encoding="utf-8")[:40000]
    for tie in ("lowest-ids", "first-seen", "hf"):
        new, old = states(sequences(text, True), tie, 2)
        ops = (["step"] * 40 + ["undo"] * 7 + ["step", "top"] * 5) * 60 + ["step"] * 5000
        assert walk(new, old, ops) > 1000
        assert new.choose(TIE_CAP) is None


def test_a_long_run_of_ties_lists_the_same_tie_sets_each_time():
    """A run of tied merges lists its tie sets (kept as flat ints in the event log: see
    tests/engine/test_event_log.py for what they cost) the same on every run."""
    from engine import TrainConfig, Trainer

    words = [f"{chr(0x4E00 + i)}{chr(0x4E00 + 500 + i)}" for i in range(400)]
    trainer = Trainer(" ".join(words * 2), TrainConfig(base="chars", pretokenizer="simple"), checkpoints=0)
    events = trainer.train()
    listed = [pair for event in events for pair in event.ties]
    assert len(listed) > 1000 and all(event.tie_total > 1 for event in events[:300])
    reference = Trainer(" ".join(words * 2), TrainConfig(base="chars", pretokenizer="simple"), checkpoints=0)
    assert [(e.pair, e.ties, e.tie_total) for e in reference.train()] == [(e.pair, e.ties, e.tie_total) for e in events]
