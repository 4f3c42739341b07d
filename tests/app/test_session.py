"""Sessions: autosave, resume exactly where the user was, refuse a changed corpus, survive SIGKILL."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys

import pytest
from helpers import ROOT, app_on, settled

from engine import TrainConfig, Trainer
from tui.app.launch import launch, resumed
from tui.app.widgets.merge_log import MergeLog
from tui.model.session import Session, SessionError
from tui.model.workbench import LoadedCorpus, Workbench

SIZE = (100, 30)


def test_session_round_trip(tmp_path):
    session = Session("sample:mueller.txt", "ab" * 32, 23, TrainConfig(max_merges=5), [(1, 2), (256, 3)], 1, 256)
    path = session.save(tmp_path / "s" / "session.json")
    again = Session.load(path)
    assert (again.source, again.merges, again.step, again.selected, again.config) == (
        session.source, session.merges, 1, 256, session.config)


@pytest.mark.parametrize("content,fragment", [
    (None, "no session to resume"),
    ("{not json", "invalid JSON at line 1, column 2"),
    ('{"format": "other"}', "not a bpe-lab session file"),
    ('{"format": "bpe-lab session", "version": 1, "corpus": {"source": "x", "sha256": "' + "0" * 64 + '", "size": 1},'
     ' "config": {}, "merges": [[1, 2]], "step": 5}', '"step" must be a whole number from 0 to 1, not 5'),
    ('{"format": "bpe-lab session", "version": 1, "corpus": {"source": "x", "sha256": "' + "0" * 64 + '", "size": 1,'
     ' "counts": "yes"}, "config": {}, "merges": [], "step": 0}', '"corpus.counts" must be true or false'),
])
def test_damaged_sessions_are_one_line(tmp_path, content, fragment):
    path = tmp_path / "session.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(SessionError, match=fragment):
        Session.load(path)
    rc = launch(["--resume", "--session", str(path)])
    assert rc == 2


@pytest.mark.slow
async def test_autosave_then_resume_exactly(tmp_path):
    corpus_file = tmp_path / "c.txt"
    corpus_file.write_text((ROOT / "assets" / "samples" / "workshop.txt").read_text(encoding="utf-8"), encoding="utf-8")
    session_file = tmp_path / "session.json"
    config = TrainConfig(vocab_size=500, tie_rule="first-seen")
    wb = Workbench(LoadedCorpus.open(corpus_file, "bytes"), config)
    app = app_on(wb, session_file=session_file)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("right_square_bracket", "right_square_bracket", "u", "u", "u")
        app.query_one(MergeLog).move_cursor(row=4)
        await pilot.pause()
        app.autosave(now=True)
        expected_merges = [e.pair for e in wb.trainer.events()] + [e.pair for e in wb.trainer.future]
        selected = app.selected
    data = json.loads(session_file.read_text(encoding="utf-8"))
    assert data["step"] == 17 and len(data["merges"]) == 20
    session, corpus = resumed(None, session_file)
    assert [tuple(m) for m in session.merges] == expected_merges
    app = app_on(corpus, session.config, resume=session, session_file=session_file)
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        trainer = app.workbench.trainer
        assert trainer.steps == 17
        assert [e.pair for e in trainer.events()] + [e.pair for e in trainer.future] == expected_merges
        assert app.selected == selected
        assert app.query_one(MergeLog).row_count == 17
        await pilot.press("r")
        assert trainer.steps == 18


def test_resume_refuses_a_changed_corpus(tmp_path, capsys):
    corpus_file = tmp_path / "c.txt"
    corpus_file.write_text("abc abc abd", encoding="utf-8")
    corpus = LoadedCorpus.open(corpus_file, "bytes")
    Session(corpus.source, corpus.sha256, corpus.size, TrainConfig(), [], 0).save(tmp_path / "s.json")
    corpus_file.write_text("abc abc abe", encoding="utf-8")
    assert launch(["--resume", "--session", str(tmp_path / "s.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "changed since the session was saved" in err


async def test_a_failed_autosave_keeps_the_old_session_and_says_so(tmp_path, monkeypatch):
    session_file = tmp_path / "session.json"
    app = app_on(Workbench(LoadedCorpus.open("sample:workshop.txt", "bytes"), TrainConfig(max_merges=50)), session_file=session_file)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n")
        app.autosave(now=True)
        before = session_file.read_text(encoding="utf-8")

        def full(src, dst):
            raise OSError(28, "No space left on device")

        monkeypatch.setattr(os, "replace", full)
        await pilot.press("n")
        app.autosave(now=True)
        await settled(pilot)
        assert session_file.read_text(encoding="utf-8") == before
        assert any("session not saved" in said for said in app.toasts.texts())
        # no temp files left; the lock is the app's own, held while it runs
        assert sorted(p.name for p in tmp_path.iterdir()) == ["session.json", "session.json.lock"]


async def test_an_autosave_that_finds_a_batch_running_tries_again_soon(tmp_path):
    """A tick during a batch is not lost until the next tick: it tries again once the batch is over."""
    import threading

    session_file = tmp_path / "session.json"
    wb = Workbench(LoadedCorpus.open("sample:workshop.txt", "bytes"), TrainConfig(max_merges=50))
    app = app_on(wb, session_file=session_file)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "n")
        held, release = threading.Event(), threading.Event()

        def batch() -> None:  # what a training worker does: hold the trainer for a while
            with wb.lock:
                held.set()
                release.wait()

        holder = threading.Thread(target=batch)
        wb.training = True
        # On a loaded machine the periodic autosave may already have saved the two merges.
        await app.workers.wait_for_complete()  # ... and its worker is done writing
        before = session_file.read_bytes() if session_file.exists() else None
        holder.start()
        held.wait()
        app.autosave()
        now = session_file.read_bytes() if session_file.exists() else None
        assert now == before and app.lab._save_retry  # busy: nothing written, a retry set
        release.set()
        holder.join()
        wb.training = False
        while app.lab._save_retry:  # the retry's timer fires
            await pilot.pause()
        await app.workers.wait_for_complete()
    assert len(json.loads(session_file.read_text(encoding="utf-8"))["merges"]) == 2


def big_corpus(path) -> None:
    import random

    rng = random.Random(3)
    syllables = [a + b for a in "bcdfghklmnprstvwz" for b in ("a", "e", "i", "o", "u", "ei", "au")]
    words = ["".join(rng.choice(syllables) for _ in range(rng.randint(1, 4))) for _ in range(40_000)]
    path.write_text(" ".join(rng.choice(words) for _ in range(300_000)), encoding="utf-8")


#: ``bpe-lab`` as the command runs it, but each session save, once on disk, is reported as a line
#: (the number of merges saved) on the file descriptor $SAVES_FD: the test waits on saves, not on
#: the clock. The run is slowed to at most 500 merges a second: on a fast machine the whole run
#: otherwise ended before the first autosave, and the test waited for a save that never came.
REPORTING_SAVES = """
import os
from tui.model.session import Session

saves = int(os.environ["SAVES_FD"])
save = Session.save


def reported(self, *args, **kwargs):
    path = save(self, *args, **kwargs)
    os.write(saves, f"{len(self.merges)}\\n".encode())
    return path


Session.save = reported

# A batch makes at most 5 merges and starts after 10 ms: the run lasts a minute or more on any
# machine (30,000 merges), so two autosaves (3 s apart) come mid-training however fast it is.
import time
from tui.model.workbench import Workbench

run_batch = Workbench.run_batch


def slow_batch(self, budget=0.02, limit=None):
    time.sleep(0.01)
    return run_batch(self, budget, 5 if limit is None else min(limit, 5))


Workbench.run_batch = slow_batch
from tui.main import entry

entry()
"""


@pytest.mark.slow  # a 2 MB corpus trained in a process of its own until it has autosaved twice
def test_sigkill_mid_training_loses_only_the_last_seconds(tmp_path):
    corpus_file = tmp_path / "big.txt"
    big_corpus(corpus_file)
    session_file = tmp_path / "session.json"
    read_end, write_end = os.pipe()
    env = dict(os.environ, PYTHONPATH=str(ROOT), SAVES_FD=str(write_end))
    proc = subprocess.Popen(
        [sys.executable, "-c", REPORTING_SAVES, str(corpus_file), "--vocab-size", "30000", "--run", "--headless",
         "--session", str(session_file)],
        env=env, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, pass_fds=(write_end,),
    )
    os.close(write_end)  # the child holds the only writer: its death ends the stream
    saves: list[int] = []
    try:
        with os.fdopen(read_end, "r", encoding="ascii") as reports:
            # Two autosaves while training, the second with more merges than the first (past 100):
            # the session keeps up with the run. Then the kill, at once, mid-training.
            while not (len(saves) >= 2 and saves[-1] > max(saves[-2], 100)):
                ready, _, _ = select.select([reports], [], [], 120)  # a hang guard, not a wait
                line = reports.readline() if ready else ""
                assert line, proc.stderr.read().decode() if proc.poll() is not None else "no session saved in 120 s"
                saves.append(int(line))
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=60)
            saves += [int(line) for line in reports]  # any save that finished before the kill
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGKILL
    session, corpus = resumed(None, session_file)
    assert len(session.merges) >= saves[-1] > 100  # what was saved last is there, whole
    reference = Trainer(corpus.text, session.config)
    reference.goto(len(session.merges))
    assert [e.pair for e in reference.events()] == [tuple(m) for m in session.merges]
    assert session.step == len(session.merges)
