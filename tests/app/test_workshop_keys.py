"""Issue 22's words at the keys and in dialogs: the lesson's keys are "next step" and "previous
step" wherever they are named (footer, palette, help, the lesson pane, in en, de and zh), no
dialog or toast shows Markdown's backticks, and the go-to dialog gives its range."""

from __future__ import annotations

import re

import pytest
from helpers import ROOT, app_on, settle_until, settled
from textual.widgets import Input, Label
from textual.widgets._footer import FooterKey

from tui.app.keys import KEYS, markdown_table, palette_entries
from tui.app.screens.analysis import AnalysisScreen
from tui.app.screens.dialogs import ConfirmScreen, PromptScreen, shown_code, unticked
from tui.app.widgets.lesson_pane import lesson_keys
from tui.i18n import _, set_language
from tui.lessons.format import parse

LESSONS = ROOT / "assets" / "lessons"
POT = ROOT / "tui" / "locale" / "bpe_lab.pot"


# -- 11: "next step" and "previous step" ---------------------------------------------------------------

def test_the_lesson_keys_are_named_next_and_previous_step():
    by_action = {key.action: key for key in KEYS}
    assert by_action["app.lesson_next"].description == "Next step"
    assert by_action["app.lesson_back"].description == "Previous step"
    table = markdown_table()
    assert "| `>` | lesson: the next step" in table and "| `<` | lesson: the previous step" in table
    titles = [title for title, _help, _action in palette_entries()]
    assert "Lesson: next step (>)" in titles and "Lesson: previous step (<)" in titles


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "de", "zh"])
async def test_one_name_per_key_beside_a_lesson_on_the_analysis_screen(lang, tmp_path, monkeypatch):
    """Lesson 001 step 8 shows the curve beside the lesson: the footer showed `esc Back … < Back`
    (zh: 返回 twice, while the pane said 上一步). Now every shown key has its own name, the
    lesson's are the translated "next step"/"previous step", and the pane's key line agrees."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    set_language(lang)
    app = app_on(None, still=True, autosave=False, lesson=parse(LESSONS / f"001-low-lower-lowest.{lang}.md"))
    async with app.run_test(size=(80, 24)) as pilot:  # the narrowest: both lesson keys still shown
        await settle_until(pilot, lambda: app.lesson is not None and not app.lesson.busy, "the lesson started")
        while app.lesson.index < 8:
            await pilot.press("greater_than_sign")
            await settle_until(pilot, lambda: not app.lesson.busy and not app.lab.busy, "the step ran")
        await settled(pilot)
        assert isinstance(app.screen, AnalysisScreen)
        shown = {key.key: key.description for key in app.screen.query(FooterKey) if not key.has_class("-command-palette")}
        assert shown.get("greater_than_sign") == _("Next step") and shown.get("less_than_sign") == _("Previous step"), shown
        names = list(shown.values())
        assert len(names) == len(set(names)), shown  # no two keys called "Back"
        pane = str(app.screen.query_one("#lesson-keys").visual)
        for item in lesson_keys():
            assert item in pane
        # the pane names the keys as the footer does
        assert _("> next step")[2:].casefold() == _("Next step").casefold()
        assert _("< previous step")[2:].casefold() == _("Previous step").casefold()
        if lang != "en":
            assert _("Previous step") != "Previous step"  # translated


# -- 12: no backticks in a dialog or a toast -----------------------------------------------------------

def backticked_messages() -> list[str]:
    """Every message in the catalog template that writes code between backticks."""
    from babel.messages.pofile import read_po

    with POT.open("rb") as file:
        catalog = read_po(file)
    ids = [text for message in catalog if message.id
           for text in (message.id if isinstance(message.id, tuple) else (message.id,))]
    return [i for i in ids if re.search(r"`[^`\n]+`", i) and "```" not in i]


def test_every_message_with_code_reads_without_its_backticks():
    messages = backticked_messages()
    assert any("brings them back" in m for m in messages)  # the one the issue quotes
    for message in messages:
        assert "`" not in unticked(message), message
        content = shown_code(message)
        assert "`" not in content.plain, message
        assert len(content.spans) == message.count("`") // 2, message  # each piece of code styled
    for title, help_text, _action in palette_entries():  # the palette's lines are plain text too
        assert "`" not in title + help_text, (title, help_text)


async def test_the_quit_dialog_and_the_kept_note_show_no_backticks(tmp_path, monkeypatch):
    """The quit question says how to get the merges back: `bpe-lab --resume ...` is shown as
    code, not between literal backticks; toasts (the kept-aside note) drop them."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    session = tmp_path / "s.json"
    app = app_on("workshop.txt", still=True, session_file=session)
    async with app.run_test(size=(100, 30)) as pilot:
        await settled(pilot)
        await pilot.press("n")
        await settled(pilot)
        await pilot.press("q")
        await settle_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the quit question")
        label = app.screen.query_one(".dialog-title", Label)
        text = str(label.visual)
        assert "bpe-lab --resume" in text and "`" not in text, text
        await pilot.press("n")
        await settled(pilot)
        app.lab.say("kept: `bpe-lab --resume x.json` resumes it")
        await settled(pilot)
        assert all("`" not in said for said in app.toasts.texts())


# -- 13: the go-to dialog's range ---------------------------------------------------------------------

@pytest.mark.parametrize(("settings", "expected"), [({"vocab_size": 300}, "0 … 44"), ({}, "0 … 12 (made so far; more trains on)")])
async def test_the_go_to_dialog_gives_its_range(settings, expected, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    app = app_on("workshop.txt", still=True, autosave=False, **settings)
    async with app.run_test(size=(100, 30)) as pilot:
        await settled(pilot)
        for _ in range(12):
            app.lab.step()
        app.lab.undo()  # an undone step is still one that exists
        await settled(pilot)
        await pilot.press("g")
        await settle_until(pilot, lambda: isinstance(app.screen, PromptScreen), "the go-to dialog")
        hint = app.screen.query_one("#prompt-input", Input).placeholder
        if "vocab_size" in settings:
            base = app.workbench.trainer.base_size + len(app.workbench.config.specials)
            expected = f"0 … {300 - base}"
        assert hint == expected
