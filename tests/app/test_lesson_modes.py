"""Issue 20's lesson items: a key leaves the lesson and ordinary sessions come back; the lesson's
own quiz is not "exploring"; back (<) to a step that opened an analysis tab shows that tab; typing
into an input is a visible mode that escape leaves, while > and < still move the lesson."""

from __future__ import annotations

import json

import pytest
from helpers import ROOT, app_on, settle_until, settled
from textual.widgets import Input

from tui.app.screens.analysis import AnalysisScreen
from tui.app.screens.quiz import QuizScreen
from tui.lessons.format import parse

LESSONS = ROOT / "assets" / "lessons"


def lesson_app(name: str, **options):
    return app_on(None, still=True, lesson=parse(LESSONS / f"{name}.en.md"), **options)


async def ran(pilot) -> None:
    app = pilot.app
    await settle_until(pilot, lambda: app.lesson is None or (not app.lesson.busy and not app.lab.busy), "the step ran")
    await settled(pilot)


async def to_step(pilot, step: int) -> None:
    app = pilot.app
    await settle_until(pilot, lambda: app.lesson is not None, "the lesson started")
    await ran(pilot)
    while app.lesson.index < step:
        await pilot.press("greater_than_sign")
        await ran(pilot)


# -- (a) a key to leave the lesson -------------------------------------------------------------------

@pytest.mark.slow
async def test_E_ends_the_lesson_and_sessions_act_as_ever(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    session = tmp_path / "session.json"
    app = lesson_app("000-die-katze", session_file=session)
    async with app.run_test(size=(80, 24)) as pilot:
        await to_step(pilot, 2)
        app.lab.autosave(now=True)
        assert not session.exists()  # the lesson owns the training state: nothing saved
        assert not app.lab.unsaved
        await pilot.press("E")
        await settled(pilot)
        assert app.lesson is None and not app.lab.keeper.lesson
        assert not app.main_screen.query_one("#lesson").has_class("shown")  # the pane is gone
        assert any("lesson ended" in said for said in app.toasts.texts())
        steps = app.workbench.steps
        await pilot.press("n")  # a merge of the learner's own
        await settled(pilot)
        assert app.workbench.steps == steps + 1
        assert app.lab.unsaved  # quitting would ask, as without a lesson
        app.lab.autosave(now=True)
        saved = json.loads(session.read_text(encoding="utf-8"))
        assert len(saved["merges"]) == steps + 1  # the session is written again
        await pilot.press("greater_than_sign")  # no lesson: > does nothing to training
        await settled(pilot)
        assert app.workbench.steps == steps + 1 and app.lesson is None


async def test_E_without_a_lesson_is_no_key_at_all(tmp_path, monkeypatch):
    """As `>` and `<`: without a lesson the key is off, and the footer and palette do not offer it."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    app = app_on("workshop.txt", still=True, autosave=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(pilot)
        assert app.check_action("lesson_end", ()) is False
        await pilot.press("E")
        await settled(pilot)
        assert app.toasts.texts() == [] and app.lesson is None and app.screen is app.main_screen


# -- (b) the lesson's own quiz is not exploring --------------------------------------------------------

@pytest.mark.slow
async def test_the_lessons_quiz_merges_are_not_exploring(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    app = lesson_app("001-low-lower-lowest", autosave=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await to_step(pilot, app.lesson.count)  # the last step opens the quiz
        await settle_until(pilot, lambda: isinstance(app.screen, QuizScreen), "the lesson's quiz open")
        steps = app.workbench.steps
        await pilot.press("1")
        await settle_until(pilot, lambda: app.workbench.steps == steps + 1, "the quiz's merge")
        await settled(pilot)
        assert not app.lesson.drifted() and not app.lab.lesson_view.drifted
        await pilot.press("enter", "1")  # a second round
        await settle_until(pilot, lambda: app.workbench.steps == steps + 2, "the second merge")
        await pilot.press("escape")
        await settled(pilot)
        assert not app.lesson.drifted()
        await pilot.press("n")  # a merge of the learner's own, after the quiz: exploring
        await settled(pilot)
        assert app.lesson.drifted() and app.lab.lesson_view.drifted


@pytest.mark.slow
async def test_a_quiz_the_learner_opens_is_exploring(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    app = lesson_app("001-low-lower-lowest", autosave=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await to_step(pilot, 1)
        await pilot.press("p")
        await settle_until(pilot, lambda: isinstance(app.screen, QuizScreen), "the quiz open")
        steps = app.workbench.steps
        await pilot.press("1")
        await settle_until(pilot, lambda: app.workbench.steps == steps + 1, "the quiz's merge")
        await settled(pilot)
        assert app.lesson.drifted()


# -- (c) back to a step that opened an analysis tab ----------------------------------------------------

@pytest.mark.slow
async def test_back_to_a_step_that_opened_a_tab_shows_that_tab(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    app = lesson_app("001-low-lower-lowest", autosave=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await to_step(pilot, 8)  # "analysis curve"
        assert isinstance(app.screen, AnalysisScreen) and app.screen.active_tab == "curve"
        await pilot.press("greater_than_sign")  # the quiz step: back on the main screen, the quiz
        await ran(pilot)
        assert not isinstance(app.screen, AnalysisScreen)
        await pilot.press("less_than_sign")
        await ran(pilot)
        await settle_until(pilot, lambda: isinstance(app.screen, AnalysisScreen), "the curve tab again")
        assert app.lesson.index == 8 and app.screen.active_tab == "curve"
        assert app.workbench.steps == 48


# -- (d) typing is a visible mode that escape leaves ----------------------------------------------------

def footer_keys(app) -> dict[str, str]:
    """What the active footer shows: key display -> description."""
    bindings = app.screen.active_bindings
    return {b.binding.key: b.binding.description for b in bindings.values() if b.binding.show and b.enabled}


@pytest.mark.slow
async def test_typing_beside_a_lesson_is_a_mode_escape_leaves(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    app = lesson_app("000-die-katze", autosave=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await to_step(pilot, 1)
        steps = app.workbench.steps
        await pilot.press("e")
        await settled(pilot)
        field = app.main_screen.query_one("#tokenize-input", Input)
        assert app.focused is field
        keys = footer_keys(app)
        assert keys.get("escape") == "Leave" and "n" not in keys  # the footer says how to leave; n types
        await pilot.press("n", "u", "space")
        await settled(pilot)
        assert field.value == "nu " and app.workbench.steps == steps  # typed, not stepped
        await pilot.press("greater_than_sign")  # > moves the lesson even while typing
        await ran(pilot)
        assert app.lesson.index == 2 and field.value == "nu "
        await pilot.press("escape")
        await settled(pilot)
        assert not isinstance(app.focused, Input)
        await pilot.press("n")
        await settled(pilot)
        assert app.workbench.steps == app.lesson.marks[2].steps + 1  # n steps again


@pytest.mark.slow
async def test_the_compare_input_beside_a_lesson_is_left_by_escape(tmp_path, monkeypatch):
    """Lesson 003's compare step: the compare input does not take the keyboard by itself; focused,
    it types, > still moves the lesson, and escape leaves the input before it leaves the screen."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    app = lesson_app("003-the-cat-in-the-hat", autosave=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle_until(pilot, lambda: app.lesson is not None, "the lesson started")
        await ran(pilot)
        while not (isinstance(app.screen, AnalysisScreen) and app.screen.active_tab == "compare"):
            assert app.lesson.index < app.lesson.count, "no step opens the compare tab"
            await pilot.press("greater_than_sign")
            await ran(pilot)
        screen, index = app.screen, app.lesson.index
        field = screen.query_one("#compare-text", Input)
        assert app.focused is not field
        field.focus()
        await settled(pilot)
        await pilot.press("x")
        await settled(pilot)
        assert field.value.endswith("x")
        await pilot.press("escape")
        await settled(pilot)
        assert app.screen is screen and app.focused is not field  # the input left, the screen stays
        field.focus()
        await settled(pilot)
        typed = field.value
        await pilot.press("less_than_sign")  # < moves the lesson, never types into the input
        await ran(pilot)
        assert app.lesson.index == index - 1 and field.value == typed
