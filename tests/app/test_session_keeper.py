"""The SessionKeeper (tui.model.session): one object decides what an app does with session files.

Unit tests on real files in a temporary folder (no textual), then the lesson mode in the app: a
lesson owns its training state, so it never offers a found session, never keeps one aside and
never writes a file in the session folder, with or without $BPE_LAB_SESSION; leaving the lesson
brings the ordinary behaviour back."""

from __future__ import annotations

import pytest

from engine import TrainConfig, Trainer
from tui.model.session import Session, corpus_session_path, fingerprint
from tui.model.session_keeper import SessionKeeper

CONFIG = TrainConfig(vocab_size=300)
TEXT = "low lower lowest newer newest wider widest " * 20


def session_on(source: str = "sample:x.txt", merges: int = 3, text: str = TEXT) -> Session:
    trainer = Trainer(text, CONFIG)
    for _ in range(merges):
        trainer.step()
    data = text.encode("utf-8")
    return Session(source=source, sha256=fingerprint(data), size=len(data), config=CONFIG,
                   merges=[m.pair for m in trainer.history], step=merges)


@pytest.fixture
def state(tmp_path, monkeypatch):
    monkeypatch.delenv("BPE_LAB_SESSION", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return tmp_path / "state" / "bpe-lab" / "sessions"


def files(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_a_corpus_has_its_own_file_and_an_explicit_one_wins(state, tmp_path):
    mine = session_on()
    assert SessionKeeper().path_for(mine.source, mine.sha256) == corpus_session_path(mine.source, mine.sha256)
    explicit = tmp_path / "one.json"
    assert SessionKeeper(explicit).path_for(mine.source, mine.sha256) == explicit


def test_a_found_session_is_offered_then_taken_and_owned(state):
    earlier = session_on(merges=4)
    path = corpus_session_path(earlier.source, earlier.sha256)
    earlier.save(path)
    keeper = SessionKeeper()
    note = keeper.notice(earlier.source, earlier.sha256)
    assert note is not None and "step 4" in note and "R resumes" in note
    taken = keeper.take_found()
    assert taken[0] == path and taken[1].step == 4 and keeper.owned == path
    assert isinstance(keeper.take_found(), str)  # offered once


def test_someone_elses_merges_are_kept_aside_before_a_write_and_said_once(state):
    earlier = session_on(merges=4)
    path = corpus_session_path(earlier.source, earlier.sha256)
    earlier.save(path)
    keeper = SessionKeeper()
    keeper.notice(earlier.source, earlier.sha256)
    mine = session_on(merges=2)
    assert keeper.changed(mine) and not keeper.changed(mine)  # the same session is not saved twice
    target, lock_note = keeper.claim(keeper.path_for(mine.source, mine.sha256))
    assert target == path and lock_note is None
    assert keeper.write(mine, target) is None
    kept = [name for name in files(state) if ".kept-" in name]
    assert len(kept) == 1 and Session.load(state / kept[0]).step == 4
    assert Session.load(path).step == 2 and keeper.owned == path
    note = keeper.take_kept_note()
    assert note is not None and kept[0] in note and keeper.take_kept_note() is None
    keeper.write(session_on(merges=3), target)  # its own file now: written over, nothing more kept
    assert len([name for name in files(state) if ".kept-" in name]) == 1
    keeper.release()


def test_an_empty_session_never_replaces_someone_elses_merges(state):
    earlier = session_on(merges=4)
    path = corpus_session_path(earlier.source, earlier.sha256)
    earlier.save(path)
    keeper = SessionKeeper()
    assert keeper.write(session_on(merges=0), path) is None
    assert Session.load(path).step == 4 and files(state) == [path.name]


def test_a_failed_write_is_said_and_makes_the_fate_lost(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("", encoding="utf-8")
    keeper = SessionKeeper(blocked / "session.json")  # a folder that is a file
    problem = keeper.write(session_on(), blocked / "session.json")
    assert problem is not None and "session not saved" in problem and keeper.write_failed
    assert "will be lost" in keeper.fate(3, "sample:x.txt", "0" * 64)


@pytest.mark.parametrize("explicit", [False, True])
def test_lesson_mode_offers_keeps_and_writes_nothing_then_ends(state, tmp_path, explicit):
    earlier = session_on(merges=4)
    chosen = tmp_path / "explicit.json" if explicit else None
    keeper = SessionKeeper(chosen)
    path = keeper.path_for(earlier.source, earlier.sha256)
    earlier.save(path)
    before = files(path.parent)
    keeper.begin_lesson()
    assert not keeper.saving
    assert keeper.notice(earlier.source, earlier.sha256) is None and keeper.found is None
    lesson_state = session_on(merges=7)
    assert keeper.write(lesson_state, path) is None
    assert files(path.parent) == before and Session.load(path).step == 4  # untouched, nothing kept aside
    assert "will be lost" in keeper.fate(7, earlier.source, earlier.sha256)
    keeper.end_lesson()
    assert keeper.saving
    assert keeper.notice(earlier.source, earlier.sha256) is not None  # ordinary again: offered
    assert keeper.write(lesson_state, path) is None  # and someone's merges are kept aside first
    assert any(".kept-" in name for name in files(path.parent))


# -- lesson mode in the app ---------------------------------------------------------------------

LOW = "sample:low-lower-lowest.txt"


def low_session(merges: int) -> Session:
    from tui.model.workbench import LoadedCorpus

    corpus = LoadedCorpus.open(LOW, "chars")
    config = TrainConfig(base="chars", pretokenizer="none", vocab_size=None, max_merges=4)
    trainer = Trainer(corpus.text, config)
    for _ in range(merges):
        trainer.step()
    return Session(source=LOW, sha256=corpus.sha256, size=corpus.size, config=config,
                   merges=[m.pair for m in trainer.history], step=merges)


async def settled(app, pilot) -> None:
    while app.lesson is None:
        await pilot.pause()
    await app.lesson.settled.wait()
    await pilot.pause()


def toasts(app) -> str:
    return "\n".join(app.toasts.texts())


@pytest.mark.slow
@pytest.mark.parametrize("explicit", [False, True])
async def test_a_lesson_in_the_app_leaves_sessions_alone_until_it_ends(state, tmp_path, monkeypatch, explicit):
    """An earlier session on the lesson's own sample: the lesson opens it, steps, goes back and on,
    and nothing is offered, kept aside or written; after the lesson ends, the first save keeps
    the earlier session aside as for any corpus (the ordinary behaviour)."""
    from helpers import ROOT, app_on

    from tui.lessons.format import parse

    earlier = low_session(3)
    if explicit:
        path = tmp_path / "explicit" / "session.json"
        monkeypatch.setenv("BPE_LAB_SESSION", str(path))
    else:
        path = corpus_session_path(earlier.source, earlier.sha256)
    earlier.save(path)
    before = files(path.parent)
    app = app_on(None, lesson=parse(ROOT / "tests" / "data" / "lessons" / "001-low.en.md"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(app, pilot)
        for key in ("greater_than_sign", "greater_than_sign", "less_than_sign", "greater_than_sign"):
            await pilot.press(key)
            await settled(app, pilot)
            app.autosave(now=True)
        assert app.workbench.corpus.source == LOW and app.workbench.steps > 0
        said = toasts(app)
        assert "R resumes" not in said and "kept" not in said and "kept aside" not in said
        assert files(path.parent) == before and Session.load(path).step == 3
        app.lab.end_lesson()
        await pilot.pause()
        assert app.lesson is None and app.lab.keeper.saving
        assert "R resumes" in toasts(app)  # ordinary again: the earlier session is offered
        app.autosave(now=True)
        await pilot.pause()
        assert any(".kept-" in name for name in files(path.parent))
        assert Session.load(path).step == app.workbench.steps
