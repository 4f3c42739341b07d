"""Reading a lesson at 80x24, as a workshop does (issue 22's last items): the pane's border
title is never cut, a toast never covers the step's text, and J/K scroll the text from the
main and the analysis screen (page down belongs to the focused pane there)."""

from __future__ import annotations

import pytest
from helpers import ROOT, app_on, settle_until
from rich.cells import cell_len
from textual.containers import VerticalScroll
from textual.widgets import Input
from textual.widgets._toast import Toast

from tui.app import BpeApp
from tui.app.widgets.lesson_pane import TITLE_FRAME, LessonPane
from tui.i18n import _, set_language
from tui.lessons.format import parse

LESSONS = ROOT / "assets" / "lessons"


async def started(app: BpeApp, pilot) -> None:
    await settle_until(pilot, lambda: app.lesson is not None, 'app.lesson is not None')
    await app.lesson.settled.wait()
    await pilot.pause()


def title_of(app: BpeApp) -> str:
    return str(app.screen.query_one(LessonPane).border_title)


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "de", "zh"])
async def test_the_introductions_border_title_fits_whole_or_says_the_steps(lang, tmp_path, monkeypatch):
    """At 80 columns "lesson: Tang poems: h…" was cut; now the title shows whole where it fits
    (120 columns) and otherwise the pane says how many steps the lesson has (the title is the
    heading just below)."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    set_language(lang)
    lesson = parse(LESSONS / f"002-tang-poems.{lang}.md")
    for size in ((80, 24), (160, 40)):
        app = app_on(None, autosave=False, lesson=lesson)
        async with app.run_test(size=size) as pilot:
            await started(app, pilot)
            pane = app.screen.query_one(LessonPane)
            title = title_of(app)
            assert cell_len(title) <= pane.outer_size.width - TITLE_FRAME, (size, title)
            full = _("lesson: {title}").format(title=lesson.title)
            whole = cell_len(full) <= pane.outer_size.width - TITLE_FRAME
            assert (title == full) == whole and (whole or str(app.lesson.count) in title), (size, title)
            assert whole == (size == (160, 40) and lang == "zh")  # 唐诗：… fits a wide pane; the long titles never
            await pilot.press("greater_than_sign")
            await app.lesson.settled.wait()
            await settle_until(pilot, lambda: app.lesson.index == 1, 'app.lesson.index == 1')
            assert f"1/{app.lesson.count}" in title_of(app)


async def test_a_toast_beside_a_lesson_never_covers_it(tmp_path, monkeypatch):
    """"this is the lesson's last step" rose over the pane's text and keys; beside a lesson
    toasts rise on the left."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    app = app_on(None, autosave=False, lesson=parse(LESSONS / "001-low-lower-lowest.en.md"))
    app.animation_level = "none"
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await started(app, pilot)
        app.say("a message beside the lesson", timeout=30)
        await settle_until(pilot, lambda: bool(app.screen.query(Toast)), 'bool(app.screen.query(Toast))')
        await pilot.pause()
        lesson = app.screen.query_one(LessonPane).region
        for toast in app.screen.query(Toast):
            assert toast.region.right <= lesson.x, (toast.region, lesson)
        await pilot.press("l")  # the pane hidden: toasts rise on the right again, as without a lesson
        await settle_until(pilot, lambda: not app.screen.query_one(LessonPane).display, 'not app.screen.query_one(LessonPane).display')
        app.say("another message", timeout=30)
        await settle_until(pilot, lambda: len(app.screen.query(Toast)) == 2, 'len(app.screen.query(Toast)) == 2')
        await pilot.pause()
        assert all(t.region.right > lesson.x for t in app.screen.query(Toast))  # where the pane was


@pytest.mark.slow
async def test_j_and_k_scroll_the_lesson_on_both_screens_and_type_in_an_input(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    app = app_on(None, autosave=False, lesson=parse(LESSONS / "002-tang-poems.en.md"))
    app.animation_level = "none"
    async with app.run_test(size=(80, 18)) as pilot:  # short: the introduction overflows on both screens
        await started(app, pilot)

        def scroll() -> VerticalScroll:
            return app.screen.query_one("#lesson-scroll", VerticalScroll)

        await settle_until(pilot, lambda: scroll().max_scroll_y > 0, "the introduction is longer than the pane")
        await pilot.press("J")
        await settle_until(pilot, lambda: scroll().scroll_y > 0, 'scroll().scroll_y > 0')
        await pilot.press("K")
        await settle_until(pilot, lambda: scroll().scroll_y == 0, 'scroll().scroll_y == 0')
        await pilot.press("a")  # the analysis screen: its tabs take page down; J still scrolls the lesson
        await settle_until(pilot, lambda: app.screen is not app.main_screen and bool(app.screen.query("#lesson-scroll")), 'app.screen is not app.main_screen and bool(app.screen.query("#lesson-scroll"))')
        await settle_until(pilot, lambda: scroll().max_scroll_y > 0, 'scroll().max_scroll_y > 0')
        await pilot.press("J")
        await settle_until(pilot, lambda: scroll().scroll_y > 0, 'scroll().scroll_y > 0')
        await pilot.press("escape")
        await settle_until(pilot, lambda: app.screen is app.main_screen, 'app.screen is app.main_screen')
        await pilot.press("e")  # the tokenize input: J is a letter there
        await settle_until(pilot, lambda: isinstance(app.focused, Input), 'isinstance(app.focused, Input)')
        before = scroll().scroll_y
        await pilot.press("J", "K")
        await settle_until(pilot, lambda: app.focused.value.endswith("JK"), 'app.focused.value.endswith("JK")')
        assert scroll().scroll_y == before
