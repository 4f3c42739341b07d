"""The work a long replay jump does (never its time): the step's tokenizer is built from the
file's own token bytes (no merge joined again, one build, not two), and a batch's end does not
walk the objects the app froze (``gc.get_freeze_count`` walks them all). Figures:
tests/bench/bench_replay_jump.py and docs/benchmarks.md."""

from __future__ import annotations

import gc

import pytest

from engine import TrainConfig, Trainer
from engine.train import gc_pause as gcpause
from engine.train.timeline import WALK_BATCH
from tui.model.workbench import LoadedCorpus, Workbench

TEXT = "".join(f"the cat {i} sat on the mat {i * 7}. the bakery opens at {i % 13}; bakers bake.\n" for i in range(200))


@pytest.fixture
def replayed():
    trainer = Trainer(TEXT, TrainConfig(max_merges=300, min_frequency=1))
    trainer.train()
    tok = trainer.tokenizer()
    corpus = LoadedCorpus.open("sample:workshop.txt", "bytes")
    return tok, Workbench(corpus, TrainConfig(), script=tok)


def test_a_replays_tokenizer_takes_the_files_token_bytes(replayed):
    tok, workbench = replayed
    workbench.goto(140)
    made = workbench.tokenizer()
    assert made.merges == tok.merges[:140] and made.vocab_size == tok.base_size + 140
    # the same bytes objects as the file's: none was joined again for this step
    assert all(made.pieces[i] is tok.pieces[i] for i in range(tok.base_size, tok.base_size + 140))


def test_the_step_tokenizer_encodes_as_the_file_cut_there(replayed):
    tok, workbench = replayed
    for step in (0, 17, 300):
        workbench.goto(step)
        cut = Trainer(TEXT, TrainConfig(max_merges=step, min_frequency=1))
        cut.train()
        assert workbench.tokenizer().encode(TEXT) == cut.tokenizer().encode(TEXT), step


def test_a_short_batch_does_not_walk_frozen_objects(replayed, monkeypatch):
    tok, workbench = replayed
    walks = []
    real = gc.get_freeze_count
    monkeypatch.setattr(gcpause.gc, "get_freeze_count", lambda: walks.append(1) or real())
    kept = [[i] for i in range(1000)]  # something frozen, as the app's loaded state is
    gc.freeze()
    try:
        done = False
        batches = 0
        while not done:  # a jump in short batches, as the app's worker makes it
            done = workbench.goto_batch(len(tok.merges), budget=0.0)
            batches += 1
        # (a batch of no time makes up to WALK_BATCH merges before it looks at the clock)
        assert batches >= len(tok.merges) // WALK_BATCH > 5 and workbench.steps == len(tok.merges)
    finally:
        gc.unfreeze()
    assert kept and not walks  # no batch made YOUNG_SCAN objects: the frozen ones were not counted


def test_a_batch_that_made_many_objects_moves_them_out_of_the_young_collection(monkeypatch):
    monkeypatch.setattr(gcpause, "YOUNG_SCAN", 10)
    was = gc.isenabled()
    gc.enable()
    try:
        with gcpause.gc_paused():
            made = [[i] for i in range(1000)]
        assert gc.get_count()[0] < 100  # frozen and unfrozen: out of the youngest generation
    finally:
        if not was:
            gc.disable()
    assert made
