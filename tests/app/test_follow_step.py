"""Issue 13 point 3: after any step, run, jump or find, the merge log's cursor is on the current
(or found) step, and that row is in view."""

from __future__ import annotations

import pytest
from helpers import app_on, settled

from engine import TrainConfig
from tui.app import BpeApp
from tui.app.widgets.merge_log import MergeLog
from tui.model.workbench import LoadedCorpus

SIZE = (80, 24)


def launched() -> BpeApp:
    """As `bpe-lab` starts: the corpus is loaded in a worker, the log starts empty."""
    config = TrainConfig()
    return app_on(LoadedCorpus.open("sample:workshop.txt", config.base), config, autosave=False)


def on_current_step(app: BpeApp) -> bool:
    log = app.query_one(MergeLog)
    return log.cursor_row == app.workbench.steps - 1 and log.cursor_in_view


@pytest.mark.slow
async def test_jumps_on_a_fresh_launch_bring_the_log_along():
    app = launched()
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        log = app.query_one(MergeLog)
        await pilot.press("right_curly_bracket")
        assert app.workbench.steps == 100
        assert on_current_step(app) and log.scroll_y > 0
        await pilot.press("left_square_bracket")
        assert app.workbench.steps == 90 and on_current_step(app)
        await pilot.press("left_curly_bracket", "right_square_bracket")
        assert app.workbench.steps == 10 and on_current_step(app)


@pytest.mark.slow
async def test_a_step_brings_the_cursor_back_from_where_the_user_left_it():
    app = launched()
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("right_curly_bracket")
        log = app.query_one(MergeLog)
        log.focus()
        await pilot.press("home")
        assert log.cursor_row == 0 and log.scroll_y == 0
        await pilot.press("n")
        assert app.workbench.steps == 101 and on_current_step(app)
        await pilot.press("up", "up", "u")
        assert app.workbench.steps == 100 and on_current_step(app)


@pytest.mark.slow
async def test_a_run_and_a_long_jump_end_with_the_log_on_the_last_step():
    app = launched()
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("space")
        await app.workers.wait_for_complete()
        await settled(pilot)
        assert app.workbench.done and app.workbench.steps > 300
        assert on_current_step(app)
        await pilot.press("g", "0", "enter")
        assert app.workbench.steps == 0
        await pilot.press("g", *"300", "enter")  # more than 200 new steps: walked in the worker
        await app.workers.wait_for_complete()
        await settled(pilot)
        assert app.workbench.steps == 300 and on_current_step(app)


@pytest.mark.slow
async def test_find_scrolls_the_log_to_the_step_that_made_the_token():
    app = launched()
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("g", *"300", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        trainer = app.workbench.trainer
        early = trainer.base_size + 1  # made by step 2, far above the rows in view
        await pilot.press("slash", *f"#{early}", "enter")
        log = app.query_one(MergeLog)
        assert app.selected == early
        assert log.cursor_row == 1 and log.cursor_in_view
        await pilot.press("slash", *"#97", "enter")  # a byte: no step made it, the log stays
        assert app.selected == 97 and log.cursor_row == 1


def history_above(app: BpeApp) -> bool:
    """The current step is the log's last line, with earlier steps filling every line above it."""
    log = app.query_one(MergeLog)
    lines = log.size.height - 1  # below the header
    return on_current_step(app) and int(log.scroll_y) == max(app.workbench.steps - lines, 0)


async def test_stepping_back_keeps_the_history_above_the_current_step():
    """Issue 39 item 1: `}`, `u`, `[` left step 89 alone at the top of the log, as if the
    history were gone; after any move the rows above it show the steps before it."""
    app = app_on("workshop.txt", autosave=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("right_curly_bracket", "u", "left_square_bracket")
        await settled(pilot)
        assert app.workbench.steps == 89 and history_above(app)
        log = app.query_one(MergeLog)
        top = int(log.scroll_y)
        assert set(log._texts) >= set(range(top, 89))  # the rows above were drawn, not blank
        await pilot.press("g", *"50", "enter")
        await settled(pilot)
        await pilot.press("u")
        await settled(pilot)
        assert app.workbench.steps == 49 and history_above(app)
        await pilot.press("g", "0", "enter", "n", "n")
        await settled(pilot)
        assert app.workbench.steps == 2 and log.scroll_y == 0 and on_current_step(app)
