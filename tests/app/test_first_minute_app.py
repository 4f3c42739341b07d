"""The app's first minute (issue 39): the footer shows `l Lessons`, and an earlier session on the
corpus is offered where it stays: `R Resume step N` in the footer for as long as the offer holds,
not only in a toast that fades."""

from __future__ import annotations

import pytest
from helpers import app_on, settle_until, settled
from textual.widgets._footer import FooterKey

from engine import TrainConfig
from tui.i18n import _, set_language
from tui.model.session import Session, corpus_session_path
from tui.model.workbench import LoadedCorpus

CONFIG = TrainConfig(vocab_size=400)


def footer(app) -> dict[str, str]:
    """The footer's keys as shown: key -> label."""
    return {key.key: key.description for key in app.screen.query(FooterKey) if not key.has_class("-command-palette")}


@pytest.fixture
def found(tmp_path, monkeypatch):
    """A session with three merges on the workshop corpus, where the app looks for one."""
    monkeypatch.delenv("BPE_LAB_SESSION", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    corpus = LoadedCorpus.open("sample:workshop.txt", CONFIG.base)
    path = corpus_session_path(corpus.source, corpus.sha256)
    path.parent.mkdir(parents=True, exist_ok=True)
    Session(corpus.source, corpus.sha256, corpus.size, CONFIG, [(32, 32), (101, 114), (32, 116)], 3).save(path)
    return corpus


@pytest.mark.parametrize(("lang", "size"), [("en", (80, 24)), ("zh", (80, 24)), ("de", (100, 30))])
async def test_the_footer_shows_lessons(lang, size, tmp_path, monkeypatch):
    """At 80 columns in English and Chinese; German's longer labels leave it room from 100 (at 80
    it would push out Quit: it stays in the palette and the help there)."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    set_language(lang)
    app = app_on("workshop.txt", autosave=False)
    async with app.run_test(size=size) as pilot:
        await settled(pilot)
        shown = footer(app)
        assert shown.get("l") == _("Lessons"), shown
        assert "R" not in shown  # nothing to resume: no key for it
        for key in ("space", "n", "u", "question_mark", "q"):
            assert key in shown, shown


async def test_an_earlier_session_stays_offered_in_the_footer_until_R(found):
    app = app_on(found, CONFIG)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle_until(pilot, lambda: app.workbench is not None and "R" in footer(app), "R offered")
        assert footer(app)["R"] == "Resume step 3"
        assert any("R resumes it" in text for text in app.toasts.texts())
        app.clear_notifications()  # the toast has faded: the offer is still in the footer
        await settled(pilot)
        assert footer(app)["R"] == "Resume step 3"
        await pilot.press("R")
        await settle_until(pilot, lambda: app.workbench.steps == 3 and "R" not in footer(app), "resumed, R gone")
        assert footer(app).get("l") == "Lessons"


async def test_the_offer_leaves_the_footer_when_the_session_is_kept_aside(found):
    app = app_on(found, CONFIG)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle_until(pilot, lambda: app.workbench is not None and "R" in footer(app), "R offered")
        await pilot.press("n")
        app.autosave(now=True)  # the first save keeps the earlier session aside
        await settle_until(pilot, lambda: "R" not in footer(app), "R gone")
        assert any("is kept as" in text for text in app.toasts.texts())


@pytest.mark.slow
def test_a_known_rank_file_replays_without_a_pattern_name(capsys):
    """`bpe-lab --tokenizer gpt2.tiktoken CORPUS`, as the README says: exit 2 before, until
    --pattern-name gpt2 was added. Now GPT-2's pattern is chosen, in one note."""
    import argparse

    from fetch_tokenizers import needed

    from tui.app.launch import imported_tokenizer

    path = needed("whisper-gpt2.tiktoken")  # GPT-2's ranks, as Whisper ships them
    imported = imported_tokenizer(argparse.Namespace(tokenizer=str(path), pattern_name=None, pattern=None))
    assert imported.tokenizer.pretokenizer.name == "gpt2"
    notes = [line for line in capsys.readouterr().err.splitlines() if line.startswith("bpe-lab: note:")]
    assert notes == [f"bpe-lab: note: {path}: GPT-2 (r50k_base)'s rank file (50,256 ranks): text is split with its "
                     "pattern, gpt2 (--pattern-name or --pattern gives another)"]
