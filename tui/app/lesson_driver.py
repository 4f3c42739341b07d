"""A :class:`tui.model.driver.LabDriver` over today's :class:`tui.app.BpeApp`, for the lesson
player until the app's ``Lab`` implements the driver itself (issue 20); then this file goes.

It reaches into the app as the player used to (the open dialog's ``open_with``, a move in a
thread on the workbench's lock while the app shows "running", the main screen's panes): all of
that now lives here, on the app's side of the driver, and none in the player.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from tui.i18n import _
from tui.model.driver import DriverError, LessonView

if TYPE_CHECKING:
    from engine import Tokenizer, TrainConfig
    from tui.app.shell import BpeApp


class AppDriver:
    """The lab as a lesson drives it, over the app."""

    def __init__(self, app: BpeApp) -> None:
        self.app = app
        #: The view the player last handed over (None: no lesson shown).
        self.view: LessonView | None = None

    @property
    def workbench(self):
        return self.app.workbench

    @property
    def busy(self) -> bool:
        return bool(self.app.loading or self.app.running)

    async def open(self, source: str, config: TrainConfig, script: Tokenizer | None = None,
                   file_ids: list[int | None] | None = None) -> None:
        if not self.app.open_with(source, config, script, file_ids):
            raise DriverError(_("cannot open {name}").format(name=source.removeprefix("sample:")))
        await asyncio.sleep(0)
        await self.idle()

    async def move(self, target: int | None) -> int:
        app = self.app
        workbench = app.workbench
        if workbench is None:
            raise DriverError(_("no corpus is open (an open directive comes first)"))

        def work() -> int:
            workbench.training = True
            try:
                with workbench.lock:
                    if target is None:
                        workbench.trainer.train()
                        return workbench.trainer.steps
                    return workbench.trainer.goto(max(target, 0))
            finally:
                workbench.training = False

        app.running = True
        try:
            reached = await asyncio.to_thread(work)
        finally:
            app.running = False
        app.main_screen.moved()
        return reached

    async def idle(self, *, stop: bool = False) -> None:
        if stop and self.app.running:
            self.app.training.stop()
        while self.app.loading or self.app.running:
            await asyncio.sleep(0.02)

    def select(self, token_id: int) -> None:
        screen = self.app.main_screen
        screen.corpus_view.highlight = token_id
        screen.select(token_id)

    def tokenize(self, text: str | None = None, *, trace: bool | None = None) -> None:
        screen = self.app.main_screen
        if trace is not None:
            screen.set_trace(trace)
        if text is not None:
            screen.set_tokenize_text(text)

    def show_tab(self, tab: str | None, *, text: str | None = None) -> None:
        from tui.app.screens.analysis import AnalysisScreen
        from tui.app.screens.quiz import QuizScreen

        app = self.app
        if tab is None:
            while isinstance(app.screen, (AnalysisScreen, QuizScreen)):
                app.pop_screen()
            return
        app.action_analysis(tab)
        if text is not None:
            app.run_worker(self._compare_text(text), group="lesson-compare")

    async def _compare_text(self, text: str) -> None:
        from textual.widgets import Input

        from tui.app.screens.analysis import AnalysisScreen

        screen = self.app.screen
        while isinstance(screen, AnalysisScreen) and not screen.query("#compare-text"):
            await asyncio.sleep(0.01)
        if isinstance(screen, AnalysisScreen):
            screen.query_one("#compare-text", Input).value = text

    def start_quiz(self, mode: str, rounds: int = 1) -> None:
        self.app.start_quiz(mode)

    def say(self, message: str, *, timeout: float = 3.0) -> None:
        self.app.say(message, timeout=timeout)

    def show_lesson(self, view: LessonView | None) -> None:
        self.view = view
        self.app.refresh_bindings()
        self.app.show_lesson()
