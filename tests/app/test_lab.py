"""The lab (tui/app/lab.py): what moves the trainer, apart from any screen.

- Issue 21 item 16: whatever a loader's worker raises becomes a message and leaves the app
  usable; each loader gets a failure injected (the corpus's trainer, a tokenizer for the compare
  tab, the tie-rule runs, the baselines, the branch comparison).
- The lab as a lesson's driver: move() goes through Training's worker, can be cancelled at a
  batch's end, and reports the step reached; `>` moves a lesson even from an input, and types
  into it when no lesson is open; an analysis step keeps the lesson's pane in view.
"""

from __future__ import annotations

import asyncio
from functools import partial

import pytest
from helpers import ROOT, app_on, settle_until
from textual.widgets import Input, Static

from engine import TrainConfig
from tui.app import BpeApp
from tui.app.screens.analysis import AnalysisScreen
from tui.app.widgets.lesson_pane import LessonPane
from tui.model.driver import DriverError, LabDriver
from tui.model.workbench import LoadedCorpus

SIZE = (80, 24)
CONFIG = TrainConfig(vocab_size=400)


bench_app = partial(app_on, "workshop.txt", CONFIG, autosave=False)


def said(app: BpeApp) -> str:
    return "\n".join(app.toasts.texts())


class Boom(RuntimeError):
    pass


def boom(*args, **kwargs):
    raise Boom("injected")


# -- loaders fail, the app goes on -----------------------------------------------------------------


async def test_a_trainer_that_fails_to_build_is_said_and_the_app_stays_usable(monkeypatch):
    import tui.app.lab as lab_module

    monkeypatch.setattr(lab_module, "Workbench", boom)
    app = app_on(LoadedCorpus.open("sample:workshop.txt", "bytes"), CONFIG, autosave=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle_until(pilot, lambda: not app.loading and "Boom: injected" in said(app), "the state")
        assert app.workbench is None
        assert "loading" not in str(app.main_screen.query_one("#status").render())
        monkeypatch.undo()
        app.lab.open_with("sample:workshop.txt", CONFIG)  # the app still opens a corpus
        await settle_until(pilot, lambda: not app.loading and app.workbench is not None, "the state")
        await pilot.press("n")
        assert app.workbench.steps == 1


async def test_a_failing_open_in_a_lesson_is_a_driver_error(monkeypatch):
    app = bench_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle_until(pilot, lambda: app.main_screen.workbench is not None, "the state")
        assert isinstance(app.lab, LabDriver)
        with pytest.raises(DriverError):
            await app.lab.open("/no/such/corpus.txt", CONFIG)
        import tui.app.lab as lab_module

        monkeypatch.setattr(lab_module, "Workbench", boom)
        with pytest.raises(DriverError, match="Boom"):
            await app.lab.open("sample:workshop.txt", CONFIG)
        assert not app.lab.busy and app.workbench.corpus.source == "sample:workshop.txt"


@pytest.mark.slow
async def test_each_analysis_loader_that_fails_is_said_never_pending(monkeypatch, tmp_path):
    import engine.analysis
    import tui.app.widgets.compare_pane as compare_pane
    import tui.app.widgets.tiediff_pane as tiediff_pane
    from tui.model.evaluation import Evaluation

    monkeypatch.setattr(compare_pane, "load_any", boom)
    monkeypatch.setattr(tiediff_pane, "tie_rule_diff", boom)
    monkeypatch.setattr(Evaluation, "baselines", boom)
    monkeypatch.setattr(engine.analysis, "compare_branches", boom)
    app = bench_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle_until(pilot, lambda: app.main_screen.workbench is not None, "the state")
        await pilot.press("n", "n", "n")
        await pilot.press("a", "4")  # baselines
        screen = app.screen
        assert isinstance(screen, AnalysisScreen)
        await settle_until(pilot, lambda: "no baselines: Boom: injected" in said(app) and screen._baselines_pending is None, "the state")
        await pilot.press("6")  # tie rules
        await settle_until(pilot, lambda: "Boom: injected" in str(screen.query_one("#tiediff-output", Static).render()), "the state")
        tokenizer = tmp_path / "t.json"
        tokenizer.write_text("{}", encoding="utf-8")
        screen.query_one("#compare-pane")._load(str(tokenizer))
        await settle_until(pilot, lambda: "Boom: injected" in said(app), "the tokenizer's load")
        await pilot.press("escape", "escape")
        await settle_until(pilot, lambda: app.screen is app.main_screen, "the state")
        # a what-if branch, then its comparison
        await pilot.press("u", "u", "m")
        await settle_until(pilot, lambda: app.screen is not app.main_screen, "the state")
        await pilot.press("down", "enter")
        await settle_until(pilot, lambda: len(app.workbench.trainer.branches) == 2, "the state")
        await pilot.press("b")
        await settle_until(pilot, lambda: app.screen is not app.main_screen, "the state")
        await pilot.press("c")
        branches = app.screen
        await settle_until(pilot, lambda: "Boom: injected" in str(branches.query_one("#branch-compare", Static).render()), "the state")
        await pilot.press("escape")
        await settle_until(pilot, lambda: app.screen is app.main_screen, "the state")
        await pilot.press("n")  # usable
        assert not app.running and not app.loading


# -- the driver ----------------------------------------------------------------------------------


async def test_move_trains_through_the_worker_jumps_back_and_can_be_cancelled(tmp_path):
    import random

    rng = random.Random(0)
    words = ("".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 9))) for _ in range(30_000))
    corpus = tmp_path / "words.txt"
    corpus.write_text(" ".join(words), encoding="utf-8")
    config = TrainConfig(vocab_size=4000)
    app = app_on(str(corpus), config, autosave=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle_until(pilot, lambda: app.main_screen.workbench is not None, "the state")
        lab = app.lab
        app.training.posted.clear()
        assert await lab.move(900) == 900 and not lab.busy
        assert app.training.posted.is_set()  # through Training's worker, not a thread of the player's own
        assert await lab.move(10) == 10  # back: at once, from a copy or a short walk
        # a move to the end, cancelled: it stops at a batch's end and leaves a consistent trainer.
        # The run's second batch waits until the move is cancelled: the compiled core makes every
        # merge of this corpus in one batch, and a test that raced it found the run over.
        import threading

        gate, batches, real = threading.Event(), [], app.workbench.run_batch

        def gated(*args, **kwargs):
            batches.append(1)
            if len(batches) > 1:
                gate.wait(60)
            return real(*args, **{**kwargs, "limit": min(kwargs.get("limit") or 20, 20)})

        app.workbench.run_batch = gated
        app.training.posted.clear()
        task = asyncio.create_task(lab.move(None))
        await settle_until(pilot, lambda: app.training.posted.is_set() and lab.running and len(batches) > 1,
                           "a batch, and the next one waiting", workers=False)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        gate.set()
        await lab.idle()
        steps = app.workbench.steps
        assert 10 <= steps < 4000 - 256 and not lab.busy
        assert len(app.workbench.trainer.history) == steps


LESSON = ROOT / "tests" / "data" / "lessons" / "001-low.en.md"


async def lesson_settled(app, pilot) -> None:
    while app.lesson is None:
        await pilot.pause()
    await app.lesson.settled.wait()
    await pilot.pause()


async def test_greater_than_types_into_an_input_without_a_lesson():
    app = bench_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle_until(pilot, lambda: app.main_screen.workbench is not None, "the state")
        await pilot.press("e", "a", "greater_than_sign", "less_than_sign")
        assert app.main_screen.query_one("#tokenize-input", Input).value == "a><"


@pytest.mark.slow
async def test_greater_than_moves_the_lesson_from_an_input_and_analysis_keeps_the_pane(tmp_path, monkeypatch):
    from tui.lessons.format import parse

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    app = app_on(None, autosave=False, lesson=parse(LESSON))
    async with app.run_test(size=SIZE) as pilot:
        await lesson_settled(app, pilot)
        await pilot.press("e")  # typing into the tokenize input
        assert isinstance(app.focused, Input)
        await pilot.press("greater_than_sign")
        await lesson_settled(app, pilot)
        assert app.lesson.index == 1
        assert ">" not in app.main_screen.query_one("#tokenize-input", Input).value
        app.lab.show_tab("compare", text="lowest")  # as an analysis step does
        await settle_until(pilot, lambda: isinstance(app.screen, AnalysisScreen) and app.screen.query("#compare-text"), "the state")
        screen = app.screen
        pane = screen.query_one("#analysis-lesson", LessonPane)
        await settle_until(pilot, lambda: pane.has_class("shown") and pane.region.width >= 28, "the state")
        assert screen.query_one("#compare-text", Input).value == "lowest"
        assert not isinstance(app.focused, Input)  # the lesson's text in the input takes no keys
        await pilot.press("greater_than_sign")  # moves the lesson, from the analysis screen too
        await lesson_settled(app, pilot)
        assert app.lesson.index == 2 and app.screen is app.main_screen  # each step begins on the main screen


# (Issue 20's acceptance, every bundled lesson played by `>` only: tests/app/test_lessons_acceptance.py.)


def test_the_tab_list_is_kept_once_and_every_tab_has_its_class():
    """tui.model.tabs.TABS is the one list: the screen's tab classes, the palette's entries and
    the lesson format's analysis TAB all follow it, in its order."""
    from tui.app.keys import ANALYSIS_COMMANDS
    from tui.app.screens.analysis_tabs import TAB_CLASSES, AnalysisTab
    from tui.lessons.directives import TABS as LESSON_TABS
    from tui.model.tabs import TAB_IDS

    assert sorted(TAB_CLASSES) == sorted(TAB_IDS) and all(issubclass(c, AnalysisTab) for c in TAB_CLASSES.values())
    assert tuple(LESSON_TABS) == TAB_IDS
    assert [action for _key, action, _title, _help in ANALYSIS_COMMANDS] == [f"app.analysis('{t}')" for t in TAB_IDS]
