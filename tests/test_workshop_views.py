"""Issue 22, the lessons and the screen as a workshop sees them: what a step talks about is on
screen at 80x24 (the curve's table, the inspector's byte roles), a lesson's table keeps its
header words, inline code shows its spaces on a background that stands out in every theme."""

from __future__ import annotations

import re

import pytest
from textual.geometry import Region

from tui.app import BpeApp
from tui.app.screens.analysis import AnalysisScreen
from tui.app.widgets.curve_pane import CurvePane
from tui.lessons.format import parse

from conftest import ROOT, settle_until, settled

LESSONS = ROOT / "assets" / "lessons"


def shown_lines(widget) -> list[str]:
    """The rows a widget draws now, as text (what the terminal shows of it)."""
    strips = widget.render_lines(Region(0, 0, widget.size.width, widget.size.height))
    return [strip.text for strip in strips]


async def lesson_at(pilot, app: BpeApp, step: int) -> None:
    """Press `>` until the lesson is at ``step`` (nothing else: no escape out of a tab)."""
    await settle_until(pilot, lambda: app.lesson is not None and not app.lesson.busy, "the lesson started")
    while app.lesson.index < step:
        await pilot.press("greater_than_sign")
        await settle_until(pilot, lambda: not app.lesson.busy and not app.lab.busy, "the step ran")
    await settled(pilot)


def assert_milestones_shown(lines: list[str], rows: dict[int, int]) -> None:
    text = "\n".join(lines)
    for word in ("merges", "tokens", "B/token"):
        assert word in text, text
    for merges, tokens in rows.items():  # a table row: merges, then tokens
        row = re.compile(rf"(^|[\s▶]){merges} +{tokens:,} ")
        assert any(row.search(line) for line in lines), (merges, text)


# -- 1: the curve tab's table at 80x24 ----------------------------------------------------------

SEED_001 = {0: 3225, 6: 2747, 12: 2506, 24: 2188, 48: 1816}


@pytest.mark.parametrize("size", [(80, 24), (100, 30)])
async def test_the_curve_tab_shows_seed_001s_table_beside_the_lesson(size, tmp_path, monkeypatch):
    """Lesson 001 step 8 says the curve tab shows seed 001's table at every row: at 80x24 beside
    the lesson pane it was absent (the table showed only from 88 cells on)."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    app = BpeApp(autosave=False, lesson=parse(LESSONS / "001-low-lower-lowest.en.md"))
    app.animation_level = "none"
    async with app.run_test(size=size) as pilot:
        await lesson_at(pilot, app, 8)
        assert isinstance(app.screen, AnalysisScreen)
        pane = app.screen.query_one(CurvePane)
        await settle_until(pilot, lambda: pane.curve is not None and pane.curve.current == 48, "the curve at 48")
        assert_milestones_shown(shown_lines(pane), SEED_001)


@pytest.mark.parametrize("size", [(80, 24), (60, 20), (100, 30), (120, 40)])
async def test_the_curve_table_is_whole_at_any_size(size):
    """Without a lesson too: the table beside the plots when there is room, else above them."""
    from tui.model.samples import sample
    from tui.model.workbench import LoadedCorpus, Workbench

    chosen = sample("qa.txt")
    config = chosen.config()
    app = BpeApp(workbench=Workbench(LoadedCorpus.open(f"sample:{chosen.name}", config.base), config), autosave=False)
    app.animation_level = "none"
    async with app.run_test(size=size) as pilot:
        app.lab.go(48)
        await settled(pilot)
        await pilot.press("a")
        await settled(pilot)
        pane = app.screen.query_one(CurvePane)
        await settle_until(pilot, lambda: pane.curve is not None, "the curve drawn")
        lines = shown_lines(pane)
        assert_milestones_shown(lines, SEED_001)
        assert any("corpus tokens" in line for line in lines)  # a plot still shows
