"""Lessons in the app, driven by Pilot: play a lesson to its end with next, back and restart;
leave the script, explore, and return; back restores the training state; a failed claim shows
as failed; `l` opens the list and hides the pane. Tests wait on the player's ``settled`` event."""

from __future__ import annotations

import pytest
from helpers import ROOT, app_on, settle_until
from textual.widgets import Input, OptionList, Static

from tui.app import BpeApp
from tui.app.screens.lessons import LessonListScreen
from tui.app.widgets.lesson_pane import LessonPane
from tui.lessons import catalog
from tui.lessons.format import parse

DATA = ROOT / "tests" / "data" / "lessons"
SIZE = (80, 24)


async def settle(app: BpeApp, pilot) -> None:
    while app.lesson is None:  # the lesson starts once the main screen is mounted
        await pilot.pause()
    await app.lesson.settled.wait()
    await pilot.pause()


def where(app: BpeApp) -> tuple[int, str, int]:
    """(lesson step, corpus, trainer step)."""
    return app.lesson.index, app.workbench.corpus.source, app.workbench.steps


def pane_text(app: BpeApp) -> str:
    pane = app.main_screen.query_one(LessonPane)
    return "\n".join([str(pane.border_title), str(pane.query_one("#lesson-banner", Static).render()),
                      str(pane.query_one("#lesson-claims", Static).render())])


def all_claims_hold(app: BpeApp) -> bool:
    shown = app.lesson.shown[app.lesson.index]
    return bool(shown.results) and shown.ok and not shown.notes


LOW = "sample:low-lower-lowest.txt"


@pytest.mark.slow
async def test_play_a_lesson_to_the_end_back_restart_and_explore(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    app = app_on(None, autosave=False, lesson=parse(DATA / "001-low.en.md"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert where(app) == (0, LOW, 0)  # started with no corpus: the lesson's first one opens
        assert app.main_screen.query_one(LessonPane).has_class("shown")
        assert pane_text(app).startswith(("lesson: low lower lowest", "lesson · 4 steps"))  # whole where it fits

        await pilot.press("greater_than_sign")
        await settle(app, pilot)
        assert where(app) == (1, LOW, 0) and all_claims_hold(app)
        assert "step 1/4" in pane_text(app) and "✓ candidate 1 == \"l o\"" in pane_text(app)

        await pilot.press("greater_than_sign")
        await settle(app, pilot)
        assert where(app) == (2, LOW, 2) and all_claims_hold(app)
        assert app.main_screen.selected == app.workbench.trainer.vocab.index(b"low")
        assert app.main_screen.query_one("#tokenize-input", Input).value == "lowest"

        # leave the script: two merges more, then > returns to the lesson's state first
        await pilot.press("n", "n")
        assert app.workbench.steps == 4 and app.lesson.drifted()
        assert "you explored: press > to return to the lesson" in pane_text(app)
        await pilot.press("greater_than_sign")
        await settle(app, pilot)
        assert where(app) == (2, LOW, 2) and not app.lesson.drifted()
        assert "you explored" not in pane_text(app)

        await pilot.press("greater_than_sign")
        await settle(app, pilot)
        assert where(app) == (3, LOW, 4) and all_claims_hold(app)
        await pilot.press("greater_than_sign")
        await settle(app, pilot)
        assert where(app) == (4, LOW, 3) and all_claims_hold(app)
        await pilot.press("greater_than_sign")  # the last step: it stays
        await settle(app, pilot)
        assert where(app) == (4, LOW, 3)

        # back returns the training state of each step
        await pilot.press("less_than_sign")
        await settle(app, pilot)
        assert where(app) == (3, LOW, 4)
        await pilot.press("less_than_sign")
        await settle(app, pilot)
        assert where(app) == (2, LOW, 2)

        # explore far: another corpus with other settings; back brings the lesson's corpus again
        assert app.open_with("sample:qa.txt", app.workbench.config.with_changes(max_merges=48))
        await settle_until(pilot, lambda: not app.loading and app.workbench.corpus.source == "sample:qa.txt", "qa.txt loaded")
        assert app.workbench.corpus.source == "sample:qa.txt" and app.lesson.drifted()
        await pilot.press("less_than_sign")
        await settle(app, pilot)
        assert where(app) == (1, LOW, 0) and app.workbench.config.max_merges == 4

        await pilot.press("L")
        await settle(app, pilot)
        assert where(app) == (0, LOW, 0) and set(app.lesson.marks) == {0}


@pytest.mark.slow
async def test_a_failed_claim_and_a_failed_action_show_in_the_pane(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    app = app_on(None, autosave=False, lesson=parse(DATA / "002-failing.en.md"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("greater_than_sign")
        await settle(app, pilot)
        assert app.workbench.steps == 1 and app.workbench.corpus.source.endswith(".txt")
        text = pane_text(app)
        assert "✗ tokens == 3" in text and "actual: 7" in text and "✓ tokens == 7" in text
        assert "✗ line 15: select: no token matches 'zz'" in text and not app.lesson.shown[1].ok


@pytest.mark.slow
async def test_l_lists_the_lessons_and_then_hides_and_shows_the_pane(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.setattr(catalog, "lesson_folder", lambda: DATA)
    from test_app import workbench

    app = app_on(workbench("low-lower-lowest.txt", base="chars", vocab_size=None), autosave=False)
    async with app.run_test(size=SIZE) as pilot:
        assert not app.check_action("lesson_next", ())  # no lesson: the keys are hidden
        await pilot.press("l")
        assert isinstance(app.screen, LessonListScreen)
        options = app.screen.query_one(OptionList)
        assert options.option_count == 2
        await pilot.press("enter")  # the first: 001-low
        await settle(app, pilot)
        assert app.lesson.lesson.title == "low lower lowest: the first merges"
        pane = app.main_screen.query_one(LessonPane)
        assert pane.has_class("shown")
        await pilot.press("l")
        assert not pane.has_class("shown")
        await pilot.press("l")
        assert pane.has_class("shown")


@pytest.mark.slow
async def test_a_lesson_file_that_does_not_parse_is_said_in_the_list(tmp_path, monkeypatch):
    monkeypatch.setattr(catalog, "lesson_folder", lambda: tmp_path)
    bad = tmp_path / "bad.txt"
    bad.write_text("+++\ntitle = \"t\"\n+++\n## a\n```bpe\nstepp\n```\n", encoding="utf-8")
    app = app_on(None, autosave=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("l")
        screen = app.screen
        screen.query_one("#lesson-path", Input).value = str(bad)
        await pilot.press("enter")
        assert isinstance(app.screen, LessonListScreen) and app.lesson is None
        assert f"{bad}:6: unknown directive 'stepp'" in str(screen.query_one("#lesson-error").render())


@pytest.mark.slow
def test_lesson_pane_at_80x24(snap_compare, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    app = app_on(None, autosave=False, lesson=parse(DATA / "001-low.en.md"))
    app.animation_level = "none"

    async def run_before(pilot) -> None:
        await settle(app, pilot)
        for _ in range(2):
            await pilot.press("greater_than_sign")
            await settle(app, pilot)

    assert snap_compare(app, run_before=run_before, terminal_size=SIZE)


@pytest.mark.slow
async def test_show_directives_analysis_quiz_and_replay(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    from engine import TrainConfig, Trainer

    trainer = Trainer("aaab aaab", TrainConfig(base="bytes", pretokenizer="none"))
    trainer.goto(2)
    trainer.tokenizer().save(tmp_path / "tok.json")
    path = tmp_path / "show.en.md"
    path.write_text("""+++
title = "show"
+++
## analysis
```bpe
open text="aaab aaab" base=bytes pretokenizer=none
step
tokenize "aab" trace=on
analysis compare text="aaab"
```
## quiz
```bpe
quiz mode=hidden rounds=2
step
expect step == 2
```
## replay
```bpe
replay tok.json
step 2
expect step == 2
expect merges == ["aa", "ab"]
```
""", encoding="utf-8")
    from tui.app.screens.analysis import AnalysisScreen
    from tui.app.widgets.tokenize_pane import TokenizePane

    app = app_on(None, autosave=False, lesson=parse(path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("greater_than_sign")
        await settle(app, pilot)
        assert isinstance(app.screen, AnalysisScreen) and app.screen.active_tab == "compare"
        assert app.screen.query_one("#compare-text", Input).value == "aaab"
        assert app.main_screen.query_one(TokenizePane).trace is True
        app.screen.set_focus(None)  # (with the compare input focused, > types into it)
        await pilot.press("greater_than_sign")  # works on the analysis screen, and closes it
        await settle(app, pilot)
        # the step asks the quiz last, once its other actions are done: hidden mode, at step 2
        from tui.app.screens.quiz import QuizScreen

        assert isinstance(app.screen, QuizScreen) and app.screen.mode == "hidden"
        shown = app.lesson.shown[2]
        assert all(r.ok for r in shown.results) and not shown.notes and not shown.failures
        assert app.workbench.steps == 2
        await pilot.press("escape")  # the quiz's own way out (its input has the keys)
        await pilot.press("greater_than_sign")
        await settle(app, pilot)
        assert app.screen is app.main_screen
        assert app.workbench.script is not None and app.workbench.steps == 2
        assert all(r.ok for r in app.lesson.shown[3].results)


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["de", "zh"])
async def test_l_lists_the_lessons_titled_in_the_ui_s_language(lang, tmp_path, monkeypatch):
    from tui.i18n import set_language
    from tui.lessons.catalog import bundled

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    set_language(lang)
    app = app_on(None, autosave=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("l")
        assert isinstance(app.screen, LessonListScreen)
        shown = [str(app.screen.query_one(OptionList).get_option_at_index(i).prompt)
                 for i in range(app.screen.query_one(OptionList).option_count)]
        for each, line in zip(bundled(), shown, strict=True):
            title = parse(each.files[lang]).title
            assert title != parse(each.files["en"]).title and title in line
