"""The lab as the :class:`tui.model.driver.LabDriver` lessons and the quiz use: open, move (through
``Training``: awaitable, cancellable), wait until idle, select, tokenize, show a tab, start the
quiz, show the lesson pane; and starting and ending a lesson. A mixin of :class:`tui.app.lab.Lab`."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from engine import Tokenizer, TrainConfig
from tui.app.messages import Change
from tui.i18n import _
from tui.model.driver import DriverError, LessonView

if TYPE_CHECKING:
    from textual.app import App

    from tui.app.training import Training
    from tui.model.session_keeper import SessionKeeper
    from tui.model.workbench import Workbench


class LabDriving:
    """The driver's side of the lab (the :class:`~tui.app.lab.Lab` sets these)."""

    app: App
    workbench: Workbench | None
    keeper: SessionKeeper
    training: Training
    lesson: object
    lesson_view: LessonView | None
    lesson_pane_shown: bool
    surprises: list[str]
    _load_error: str | None
    _idle: asyncio.Event

    async def open(self, source: str, config: TrainConfig, script: Tokenizer | None = None,
                   file_ids: list[int | None] | None = None) -> None:
        """Load ``source`` with ``config`` as the open dialog does; returns once it is shown."""
        await self.idle(stop=True)
        if not self.open_with(source, config, script, file_ids):
            raise DriverError(self._load_error or _("cannot open"))
        await self.idle()
        if self._load_error is not None:
            raise DriverError(self._load_error)

    async def move(self, target: int | None) -> int:
        """Train or jump to ``target`` (None: to the end) through :class:`Training`, at full
        speed; the step reached. Cancelling the awaiting task pauses the move at a batch's end."""
        workbench = self.workbench
        if workbench is None:
            raise DriverError(_("no corpus is open (an open directive comes first)"))
        await self.idle(stop=True)
        try:
            if target is not None and (target <= workbench.steps or self.training.at_once(workbench, target)):
                workbench.goto(max(target, 0))
                self._tell(Change("moved"))
                self.app.call_after_refresh(workbench.settle)
            else:
                self._tell(Change("moved"))
                self.running = True
                if target is not None and target < workbench.steps:
                    self.training.jump(workbench, target)
                else:
                    self.training.start(workbench, until=target, paced=False)
                await self.idle()
        except asyncio.CancelledError:
            self.training.stop()
            raise
        self._tell(Change("moved"))
        return workbench.steps

    async def idle(self, *, stop: bool = False) -> None:
        """Return once nothing holds the trainer; ``stop``: pause a live run first."""
        if stop and self.running:
            self.training.stop()
        while self.busy:
            await self._idle.wait()

    def select(self, token_id: int) -> None:
        """Select a token in every pane (corpus highlight, inspector, log)."""
        self.selected.publish(token_id)

    def tokenize(self, text: str | None = None, *, trace: bool | None = None) -> None:
        self.tokenized.publish((text, trace))

    def show_tab(self, tab: str | None, *, text: str | None = None, add: tuple[str, ...] = ()) -> None:
        """The analysis screen at ``tab`` (with ``text`` in its input), the lesson beside it;
        None: back to the main screen (closing the quiz too). The app pushes and pops screens."""
        self.app.show_tab(tab, text=text, add=add)

    def start_quiz(self, mode: str = "shuffled", rounds: int = 1) -> bool:
        """Open the quiz in ``mode`` (``shuffled``, ``hidden`` or ``typed``; see tui.model.quiz),
        or switch an open quiz to it. False (and a message) when it cannot start now."""
        return self.app.start_quiz(mode, for_lesson=True)

    def marked(self) -> list[str]:
        """The texts marked as surprising (``!`` on the main screen), oldest first."""
        return list(self.surprises)

    def hand_in(self, stem: str, markdown: str) -> str:
        """Write ``STEM.md`` where a save goes (in a browser: this tab's own name, downloaded) and
        say so; the path written."""
        from engine.corpus import atomic_write_text
        from tui.model.confine import abandon, default_name, deliver, output_path

        name = default_name(self.app, stem, ".md")
        try:
            target = output_path(self.app, name)
            atomic_write_text(target, markdown)
        except (OSError, ValueError) as exc:
            abandon(self.app, name)
            raise DriverError(_("handin not written: {path}: {reason}").format(
                path=name, reason=getattr(exc, "strerror", None) or exc)) from None
        deliver(self.app, target)
        self.say(_("your findings are in {path}: add why each surprised you, and hand it in").format(path=target.resolve()),
                 timeout=8)
        return str(target)

    def show_lesson(self, view: LessonView | None) -> None:
        """Redraw the lesson pane with ``view`` (None: the lesson has ended; hide it)."""
        self.lesson_view = view
        self.lesson_shown.publish(view)
        self.app.refresh_bindings()  # a lesson's step being busy greys the keys that move training

    def toggle_lesson_pane(self, shown: bool | None = None) -> None:
        """Hide or show the lesson's pane (``shown``: which), on the main screen."""
        self.lesson_pane_shown = not self.lesson_pane_shown if shown is None else shown
        if shown is None:
            self.show_tab(None)
        self.lesson_shown.publish(self.lesson_view)

    # -- lessons ------------------------------------------------------------------------------

    def start_lesson(self, lesson, note: str | None = None) -> None:
        """Play ``lesson`` (a tui.lessons.format.Lesson) from its introduction: a mode of the lab
        in which the lesson owns the training state (see SessionKeeper's lesson mode). The
        user's own merges are saved first."""
        from tui.lessons.player import LessonPlayer

        self.autosave(now=True)
        self.keeper.begin_lesson()
        self.lesson_pane_shown = True
        self.lesson = LessonPlayer(self, lesson, note)
        self.lesson.start()

    def end_lesson(self) -> None:
        """Leave the lesson: ordinary sessions again, from the state it left."""
        lesson = self.lesson
        if lesson is None:
            return
        self.lesson = None
        lesson.close()  # a step still running is cancelled; the pane is hidden
        self.keeper.end_lesson()
        if self.workbench is not None:
            note = self.keeper.notice(self.workbench.corpus.source, self.workbench.corpus.sha256)
            if note:
                self.say(note, timeout=10)
        self.app.refresh_bindings()
