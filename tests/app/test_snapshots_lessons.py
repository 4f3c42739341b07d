"""Issue 22's acceptance snapshots not held elsewhere, at 80x24 and 100x30: a lesson's table
(lesson 001 step 8: the curve tab beside the lesson, its table as a list where the columns do
not fit), and a Chinese toast over the panes (the end of training, ``--lang zh``).

The curve tab, the emoji sample's log and its vocabulary tab are in test_snapshots_workshop.py
(``test_analysis_screen[workshop-*]``, ``test_main_screen[emoji-*]``, ``test_analysis_screen[emoji-*]``).
What to look for: the table's header words whole, the milestone table on the curve tab, every
Chinese character of the toast. Update after a deliberate change:
``pytest tests/app/test_snapshots_lessons.py -m slow --snapshot-update`` (and read the SVGs)."""

from __future__ import annotations

import pytest
from helpers import ROOT, app_on, settle_until
from textual.widgets._toast import Toast

from engine import TrainConfig
from tui.i18n import set_language
from tui.lessons.format import parse

SIZES = {"80x24": (80, 24), "100x30": (100, 30)}
LESSONS = ROOT / "assets" / "lessons"


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
def test_lesson_table_beside_the_curve(snap_compare, size, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    app = app_on(None, still=True, autosave=False, lesson=parse(LESSONS / "001-low-lower-lowest.en.md"))

    async def run_before(pilot) -> None:
        await settle_until(pilot, lambda: app.lesson is not None and not app.lesson.busy, "the lesson started")
        while app.lesson.index < 8:
            await pilot.press("greater_than_sign")
            await settle_until(pilot, lambda: not app.lesson.busy and not app.lab.busy, "the step ran")
        app.screen.query_one("#lesson-scroll").scroll_end(animate=False)  # down to the table

    assert snap_compare(app, run_before=run_before, terminal_size=SIZES[size])


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
def test_chinese_toast_over_the_panes(snap_compare, size, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    set_language("zh")
    app = app_on("chinese.txt", TrainConfig(), still=True, autosave=False)
    app.NOTIFICATION_TIMEOUT = 600  # the toast stays until the screenshot, however loaded the machine

    async def run_before(pilot) -> None:
        await pilot.press("space")
        await settle_until(pilot, lambda: app.workbench.done and not app.lab.busy, "training done")
        app.clear_notifications()
        await pilot.press("space")  # "训练已结束：…" again, the one toast
        await settle_until(pilot, lambda: len(app.screen.query(Toast)) == 1, "the toast shown")

    assert snap_compare(app, run_before=run_before, terminal_size=SIZES[size])
