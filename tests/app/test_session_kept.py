"""Issue 13 point 5: nothing overwrites a session that holds merges nobody saved. Each corpus has
its own session file (unless one file is named), a file this app did not make is kept aside
before anything is written there, ``R`` resumes a session found on the corpus, and the quit and
open questions say truthfully where the merges go."""

from __future__ import annotations

import json

import pytest
from helpers import app_on, settled

from engine import TrainConfig
from tui.app import BpeApp
from tui.app.launch import resume_file, resumed
from tui.app.screens.dialogs import ConfirmScreen
from tui.model.session import Session, corpus_session_path, latest_session_path
from tui.model.workbench import LoadedCorpus

SIZE = (80, 24)
CONFIG = TrainConfig(vocab_size=400)


@pytest.fixture
def per_corpus(tmp_path, monkeypatch):
    """No explicit session file: sessions go to $XDG_STATE_HOME/bpe-lab/sessions/."""
    monkeypatch.delenv("BPE_LAB_SESSION", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return tmp_path / "state" / "bpe-lab" / "sessions"


def launched(source: str, **kwargs) -> BpeApp:
    """The app as the launcher starts it: the corpus is built into a workbench by its worker."""
    return app_on(LoadedCorpus.open(source, CONFIG.base), CONFIG, **kwargs)


def notes(app: BpeApp) -> list[str]:
    return app.toasts.texts()


async def train(app: BpeApp, *keys: str, quit: bool = True):
    """Run ``app``, wait for its corpus, press ``keys``; quit answering yes to the question."""
    question = None
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press(*keys)
        await app.workers.wait_for_complete()
        await pilot.pause()
        if quit:
            await pilot.press("q")
            await pilot.pause()
            if isinstance(app.screen, ConfirmScreen):
                question = app.screen.question
                await pilot.press("y")
                await pilot.pause()
    return question


@pytest.mark.slow
async def test_a_plain_launch_keeps_an_explicit_files_merges_aside(tmp_path):
    """The issue's repro: merges on the-cat-in-the-hat, then a plain launch on the workshop
    corpus and one `n`, sharing one session file."""
    session_file = tmp_path / "session.json"
    await train(launched("sample:the-cat-in-the-hat.txt", session_file=session_file), "n", "n", "n")
    cat = json.loads(session_file.read_text(encoding="utf-8"))
    assert cat["step"] == 3 and cat["corpus"]["source"] == "sample:the-cat-in-the-hat.txt"

    app = launched("sample:workshop.txt", session_file=session_file)
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await settled(pilot)
        assert any("holds a session on the-cat-in-the-hat.txt at step 3" in n for n in notes(app))
        app.autosave(now=True)  # nothing made yet: the file is left alone
        assert json.loads(session_file.read_text(encoding="utf-8")) == cat
        await pilot.press("n")
        app.autosave(now=True)
        await pilot.pause()
        kept = list(tmp_path.glob("session.kept-*.json"))
        assert len(kept) == 1
        assert json.loads(kept[0].read_text(encoding="utf-8")) == cat  # moved, not rewritten
        assert any(f"kept as {kept[0]}" in n and "--resume --session" in n for n in notes(app))
        assert json.loads(session_file.read_text(encoding="utf-8"))["corpus"]["source"] == "sample:workshop.txt"
        await pilot.press("n")
        app.autosave(now=True)  # its own file now: written over, nothing more kept aside
        assert len(list(tmp_path.glob("session.kept-*.json"))) == 1
        assert json.loads(session_file.read_text(encoding="utf-8"))["step"] == 2


@pytest.mark.slow
async def test_each_corpus_has_its_own_session_and_resume_finds_them(per_corpus, tmp_path):
    question = await train(launched("sample:the-cat-in-the-hat.txt"), "n", "n", "n")
    assert question is not None and "3 merges are kept in the session:" in question
    assert "`bpe-lab --resume`" in question
    await train(launched("sample:workshop.txt"), "n")
    files = sorted(p.name for p in per_corpus.iterdir())
    assert len(files) == 2 and files[0].startswith("the-cat-in-the-hat.txt-") and files[1].startswith("workshop.txt-")

    class Args:
        corpus = None

    latest = latest_session_path()
    assert Session.load(latest).source == "sample:workshop.txt"  # the most recent
    assert resume_file(Args, None) == latest
    Args.corpus = "sample:the-cat-in-the-hat.txt"
    session, corpus = resumed(Args, resume_file(Args, None))
    assert (session.step, corpus.name) == (3, "the-cat-in-the-hat.txt")


def test_resuming_a_changed_or_unknown_corpus_is_one_line(per_corpus, tmp_path):
    text = tmp_path / "c.txt"
    text.write_text("low lower lowest\n", encoding="utf-8")
    corpus = LoadedCorpus.open(text, "bytes")
    Session(corpus.source, corpus.sha256, corpus.size, CONFIG, [(108, 111)], 1).save(
        corpus_session_path(corpus.source, corpus.sha256))

    class Args:
        corpus = str(text)

    assert resume_file(Args, None) == corpus_session_path(corpus.source, corpus.sha256)
    text.write_text("low lower lowest newest\n", encoding="utf-8")
    with pytest.raises(ValueError, match="changed since the session was saved"):
        resume_file(Args, None)
    Args.corpus = str(tmp_path / "other.txt")
    (tmp_path / "other.txt").write_text("x", encoding="utf-8")
    with pytest.raises(ValueError, match="no session on"):
        resume_file(Args, None)


@pytest.mark.slow
async def test_a_session_found_on_the_corpus_is_offered_and_R_resumes_it(per_corpus):
    await train(launched("sample:workshop.txt"), "n", "n", "n", "n", "u")
    app = launched("sample:workshop.txt")
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await settled(pilot)
        assert app.workbench.steps == 0
        assert any("a session on this corpus at step 3 exists: R resumes it" in n for n in notes(app))
        await pilot.press("R")
        await app.workers.wait_for_complete()
        await settled(pilot)
        assert app.workbench.steps == 3
        await pilot.press("r")  # the undone merge came back too
        assert app.workbench.steps == 4
        app.autosave(now=True)
    assert [p.name for p in per_corpus.iterdir() if ".kept-" in p.name] == []  # its own: written over


@pytest.mark.slow
async def test_a_fresh_start_beside_a_found_session_keeps_it(per_corpus):
    await train(launched("sample:workshop.txt"), "n", "n")
    path = next(per_corpus.iterdir())
    before = path.read_text(encoding="utf-8")
    app = launched("sample:workshop.txt")
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("n", "n", "n")
        app.autosave(now=True)
        await pilot.pause()
        kept = [p for p in per_corpus.iterdir() if ".kept-" in p.name]
        assert len(kept) == 1 and kept[0].read_text(encoding="utf-8") == before
        assert json.loads(path.read_text(encoding="utf-8"))["step"] == 3
        await pilot.press("R")  # no longer offered: the found session was kept aside
        await settled(pilot)
        assert app.workbench.steps == 3


@pytest.mark.slow
async def test_opening_another_corpus_says_the_merges_stay_in_its_session(per_corpus):
    app = launched("sample:workshop.txt")
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("n", "n", "o")
        await pilot.pause()
        await pilot.press(*"sample:mueller.txt", "enter")
        await settled(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        assert "2 merges are kept in this corpus's session" in app.screen.question
        assert "bpe-lab --resume sample:workshop.txt" in app.screen.question
        await pilot.press("y")
        await app.workers.wait_for_complete()
        await settled(pilot)
        assert app.workbench.corpus.name == "mueller.txt"
        await pilot.press("n")
        app.autosave(now=True)
    workshop = LoadedCorpus.open("sample:workshop.txt", "bytes")
    assert Session.load(corpus_session_path(workshop.source, workshop.sha256)).step == 2
    assert len(list(per_corpus.iterdir())) == 2


@pytest.mark.slow
async def test_without_a_session_the_quit_question_says_lost(tmp_path):
    app = launched("sample:workshop.txt", session_file=tmp_path / "s.json", autosave=False)
    question = await train(app, "n")
    assert "1 merge will be lost" in question


def test_resume_without_a_session_is_one_line(per_corpus, capsys):
    from tui.app.launch import launch

    assert launch(["--resume", "--headless"]) == 2
    assert launch(["--resume", "sample:workshop.txt", "--headless"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2
    assert err[0].startswith("bpe-lab: error: no session to resume (none in ")
    assert err[1] == "bpe-lab: error: no session on sample:workshop.txt to resume"
