"""Issue 13 point 12: a run speed a class can watch (1, 2, 5, 20 merges a second or full speed;
`+`/`-`, `--speed`) and "run to step N" (`G`). The pacing is tested on a clock moved by hand:
no test here waits for wall time."""

from __future__ import annotations

import asyncio
from functools import partial

import pytest
from helpers import app_on, settled

from tui.app import BpeApp
from tui.app.launch import build_parser
from tui.app.screens.dialogs import PromptScreen
from tui.app.widgets.corpus_view import CorpusView
from tui.app.widgets.merge_log import MergeLog
from tui.app.widgets.status_line import StatusLine
from tui.model.pacing import SPEED_NAMES, SPEEDS, Pacer, faster, slower, speed_label

SIZE = (80, 24)


class Clock:
    """A clock that moves only when a test moves it."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


make_app = partial(app_on, "workshop.txt", autosave=False)


def status(app: BpeApp) -> str:
    return str(app.query_one(StatusLine).render())


# -- the pacer, on a clock moved by hand -------------------------------------------------------


def test_the_first_merge_is_due_at_once_then_one_per_beat():
    clock = Clock()
    pacer = Pacer(2, clock)
    assert pacer.delay() == 0.0
    pacer.made()
    assert pacer.delay() == 0.5
    clock.now += 0.3
    assert abs(pacer.delay() - 0.2) < 1e-9
    clock.now += 0.2
    assert pacer.delay() == 0.0


def test_the_beat_stays_steady_but_never_hurries_to_catch_up():
    clock = Clock()
    pacer = Pacer(1, clock)
    pacer.made()  # at 100.0
    clock.now += 1.1  # the merge came a little late (it took time)
    pacer.made()
    assert abs(pacer.delay() - 0.9) < 1e-9  # due at 102.0: the beat, not 1 s after the late merge
    clock.now += 5.0  # far behind (a busy machine): the next one is a full beat later, not at once
    pacer.made()
    assert pacer.delay() == 1.0


def test_a_new_speed_counts_from_the_last_merge_and_a_restart_is_due_at_once():
    clock = Clock()
    pacer = Pacer(1, clock)
    pacer.made()
    clock.now += 0.1
    pacer.speed = 5
    assert abs(pacer.delay() - 0.1) < 1e-9
    pacer.speed = None
    assert pacer.delay() == 0.0 and not pacer.paced
    pacer.speed = 1
    pacer.restart()
    assert pacer.delay() == 0.0


def test_speeds_step_up_and_down_and_stop_at_the_ends():
    assert SPEEDS == (0.1, 0.2, 0.5, 1, 2, 5, 20, None)
    assert [faster(s) for s in SPEEDS] == [0.2, 0.5, 1, 2, 5, 20, None, None]
    assert [slower(s) for s in SPEEDS] == [0.1, 0.1, 0.2, 0.5, 1, 2, 5, 20]
    assert speed_label(1) == "1 merge/s" and speed_label(20) == "20 merges/s"
    assert speed_label(0.1) == "1 merge every 10 s" and speed_label(0.5) == "1 merge every 2 s"
    assert speed_label(None) == "full speed"


def test_a_slow_speed_waits_its_seconds_between_merges():
    """Issue 39 item 8: 1 merge/s was the slowest; a class talking about each merge needs
    more time (one every 10, 5 or 2 s)."""
    clock = Clock()
    pacer = Pacer(0.2, clock)
    pacer.made()
    assert pacer.delay() == 5.0
    clock.now += 4.0
    assert pacer.delay() == pytest.approx(1.0)


def test_the_command_line_sets_the_speed():
    assert SPEED_NAMES[build_parser().parse_args(["--speed", "5"]).speed] == 5
    assert SPEED_NAMES[build_parser().parse_args(["--speed", "0.2"]).speed] == 0.2
    assert SPEED_NAMES[build_parser().parse_args([]).speed] is None


# -- the app ------------------------------------------------------------------------------------


async def next_merge(app: BpeApp, pilot, clock: Clock | None = None) -> None:
    """Let one beat pass on the pacer's clock, wait for the worker to post its merge, and let the
    screen take it."""
    posted = app.training.posted
    if clock is not None:
        posted.clear()
        clock.now += 1.0 / app.training.speed
        app.training.nudge()
    assert await asyncio.to_thread(posted.wait, 30), "the worker posted no merge"
    await pilot.pause()


@pytest.mark.slow
async def test_at_one_merge_a_second_each_merge_is_shown_before_the_next():
    app = make_app(speed=1)
    clock = Clock()
    app.training.pacer.clock = clock
    async with app.run_test(size=SIZE) as pilot:
        app.training.posted.clear()
        await pilot.press("space")
        await next_merge(app, pilot)  # the first merge is made at once
        assert app.running
        log = app.query_one(MergeLog)
        for step in range(1, 5):
            if step > 1:
                await next_merge(app, pilot, clock)
            trainer = app.workbench.trainer
            assert trainer.steps == step  # one merge per beat, never a batch
            assert log.row_count == step and log.cursor_row == step - 1 and log.cursor_in_view
            assert app.query_one(CorpusView).highlight == trainer.last.new_id
            line = status(app)
            assert line.startswith("running at 1 merge/s") and f"step {step}" in line
        clock.now += 0.5  # half a beat: nothing is due
        app.training.nudge()
        await settled(pilot, workers=False)
        assert app.training.pacer.delay() == 0.5 and app.workbench.steps == 4
        await pilot.press("space")  # the pause ends the worker's wait at once
        await app.workers.wait_for_complete()
        await settled(pilot)
        assert not app.running and app.workbench.steps == 4
        assert status(app).startswith("paused │ runs at 1/s")


@pytest.mark.slow
async def test_plus_and_minus_change_the_speed_while_running():
    app = make_app(speed=1)
    clock = Clock()
    app.training.pacer.clock = clock
    async with app.run_test(size=SIZE) as pilot:
        app.training.posted.clear()
        await pilot.press("space")
        await next_merge(app, pilot)
        await pilot.press("plus", "plus")
        assert app.training.speed == 5
        assert status(app).startswith("running at 5 merges/s")
        await next_merge(app, pilot, clock)  # a fifth of a second is now a beat
        assert app.workbench.steps == 2
        await pilot.press("minus")
        assert app.training.speed == 2 and status(app).startswith("running at 2 merges/s")
        await pilot.press("plus", "plus", "plus")  # full speed: it runs to the end by itself
        assert app.training.speed is None
        await app.workers.wait_for_complete()
        await settled(pilot)
        assert app.workbench.done
        assert status(app).startswith("done: no pair occurs 2 times or more")


@pytest.mark.slow
async def test_run_to_a_step_stops_exactly_there():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("G")
        assert isinstance(app.screen, PromptScreen)
        await pilot.press(*"123", "enter")
        await app.workers.wait_for_complete()
        await settled(pilot)
        assert app.workbench.steps == 123 and not app.running
        assert status(app).startswith("paused │ step 123")
        await pilot.press("G", *"40", "enter")  # behind: a jump back, as `g` does
        await app.workers.wait_for_complete()
        assert app.workbench.steps == 40
        await pilot.press("G", *"9999", "enter")  # past the end: a stop rule ends it first
        await app.workers.wait_for_complete()
        await settled(pilot)
        assert app.workbench.done and app.workbench.steps < 9999
        await pilot.press("G", *"x", "enter")
        assert "not a step number" in str(app.screen.query_one("#prompt-error").render())


@pytest.mark.slow
async def test_run_to_a_step_at_a_speed_makes_one_merge_a_beat_and_stops_there():
    app = make_app(speed=2)
    clock = Clock()
    app.training.pacer.clock = clock
    async with app.run_test(size=SIZE) as pilot:
        app.training.posted.clear()
        await pilot.press("G", "3", "enter")
        await next_merge(app, pilot)
        assert app.workbench.steps == 1 and app.running
        await next_merge(app, pilot, clock)
        assert app.workbench.steps == 2
        await next_merge(app, pilot, clock)
        await app.workers.wait_for_complete()
        await settled(pilot)
        assert app.workbench.steps == 3 and not app.running
        assert app.query_one(MergeLog).cursor_row == 2


@pytest.mark.slow
async def test_the_settings_dialog_sets_the_speed_without_restarting_training():
    from textual.widgets import Select

    from tui.app.screens.settings import SettingsScreen

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("n", "comma")
        assert isinstance(app.screen, SettingsScreen)
        assert app.screen.query_one("#speed", Select).value == 0  # full speed
        app.screen.query_one("#speed", Select).value = 5
        await pilot.press("ctrl+s")
        await settled(pilot)
        assert not isinstance(app.screen, SettingsScreen)  # no question: nothing restarts
        assert app.training.speed == 5 and app.workbench.steps == 1
        assert "runs at 5/s" in status(app)
        await pilot.press("comma")
        assert app.screen.query_one("#speed", Select).value == 5
        app.screen.query_one("#speed", Select).value = 0
        await pilot.press("ctrl+s")
        assert app.training.speed is None
