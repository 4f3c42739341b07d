"""Playing a lesson in the app: each step's actions on the app's workbench, in order, and the
training state each step left, so that back (`<`) returns to it and a learner who explored can
return to the lesson (`>`).

The actions go through the app's own paths: ``open`` through :meth:`tui.app.BpeApp.open_with`
(the open dialog's), moves on the workbench's lock in a thread while the app shows "running"
(keys that change training are greyed meanwhile), claims through :mod:`tui.lessons.claims` (the
headless run's). :attr:`LessonPlayer.settled` is set whenever a step has finished: tests wait on it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tui.i18n import _
from tui.lessons.claims import Result, evaluate
from tui.lessons.format import Claim, Directive, Lesson
from tui.lessons.directives import ActionFailed, open_source
from tui.model.finder import find_token

if TYPE_CHECKING:
    from tui.app import BpeApp


@dataclass(frozen=True)
class Mark:
    """The training state a step left: corpus, settings, replayed tokenizer, step."""

    source: str
    config: object
    script: object
    file_ids: object
    steps: int


@dataclass
class Shown:
    """What a step showed when it ran: its claims' verdicts, the actions that failed, and what
    its actions said (a stop rule that ended a move early, the quiz's instruction)."""

    results: list[Result]
    notes: list[str]
    failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures and all(r.ok for r in self.results)


class LessonPlayer:
    """One lesson being played in the app."""

    def __init__(self, app: BpeApp, lesson: Lesson, note: str | None = None) -> None:
        self.app = app
        self.lesson = lesson
        self.note = note  # e.g. "no de version: showing it in en"
        self.index = 0
        self.marks: dict[int, Mark] = {}
        self.shown: dict[int, Shown] = {}
        self.busy = False
        self.settled = asyncio.Event()
        #: A quiz the step being entered asks for, (mode, rounds): opened after its other actions.
        self._pending_quiz: tuple[str, int] | None = None

    # -- where the lesson is --------------------------------------------------------------------

    @property
    def count(self) -> int:
        """Steps after the introduction."""
        return len(self.lesson.steps) - 1

    @property
    def step(self):
        return self.lesson.steps[self.index]

    def current(self) -> Mark | None:
        workbench = self.app.workbench
        if workbench is None:
            return None
        return Mark(workbench.corpus.source, workbench.config, workbench.script, workbench.file_ids, workbench.steps)

    def drifted(self) -> bool:
        """Whether the learner has left the state the current step set (explored)."""
        if self.busy or self.app.loading or self.app.running:
            return False
        mark = self.marks.get(self.index)
        now = self.current()
        if mark is None or now is None:
            return False
        return (now.source, now.config, now.script is mark.script, now.steps) != (mark.source, mark.config, True, mark.steps)

    # -- moving through the lesson --------------------------------------------------------------

    def start(self) -> None:
        self.index = 0
        self.marks.clear()
        self.shown.clear()
        self._launch(self._enter(0))

    def next(self) -> None:
        if self.busy:
            self.app.say(_("the lesson's step is still running"), timeout=2)
            return
        if self.drifted():
            self._launch(self._restore(self.index))  # return to the lesson first; > again goes on
            return
        if self.index >= self.count:
            self.app.say(_("this is the lesson's last step: L starts it again"), timeout=3)
            return
        self._launch(self._enter(self.index + 1))

    def back(self) -> None:
        if self.busy:
            self.app.say(_("the lesson's step is still running"), timeout=2)
            return
        if self.index == 0:
            if self.drifted():
                self._launch(self._restore(0))
            else:
                self.app.say(_("this is the lesson's introduction"), timeout=2)
            return
        self._launch(self._restore(self.index - 1))

    def restart(self) -> None:
        if self.busy:
            self.app.say(_("the lesson's step is still running"), timeout=2)
            return
        first = self.marks.get(0)
        self.marks = {0: first} if first is not None else {}
        self.shown.clear()
        self._launch(self._restore(0) if first is not None else self._enter(0))

    def _launch(self, work) -> None:
        self.busy = True
        self.app.refresh_bindings()
        self.settled.clear()
        self.app.show_lesson()
        self.app.run_worker(work, group="lesson", exclusive=True, exit_on_error=False)

    async def _enter(self, index: int) -> None:
        """Run step ``index``'s actions in order and remember the state it leaves."""
        try:
            self.index = index
            step = self.lesson.steps[index]
            shown = Shown([], [])
            self.shown[index] = shown
            await self._idle(stop=True)
            self._leave_analysis()
            actions = list(step.actions)
            if index == 0 and self.app.workbench is None:  # started with no corpus: the lesson's first
                actions = [a for s in self.lesson.steps for a in s.actions if a.kind == "open"][:1]
            for action in actions:
                self.app.show_lesson()
                if isinstance(action, Claim):
                    shown.results.append(self._check(action))
                    continue
                try:
                    note = await self._act(action)
                except ActionFailed as exc:
                    shown.failures.append(_("✗ line {line}: {message}").format(line=action.line, message=exc))
                    continue
                if note:
                    shown.notes.append(note)
            mark = self.current()
            if mark is not None:
                self.marks[index] = mark
            if self._pending_quiz is not None:  # asked last, once the step's state is kept
                mode, rounds = self._pending_quiz
                self._pending_quiz = None
                note = self.quiz(mode, rounds)
                if note:
                    shown.notes.append(note)
        finally:
            self._done()

    async def _restore(self, index: int) -> None:
        """Bring back the state step ``index`` left (its corpus and settings, its step), and what
        it showed (selection, tokenize text)."""
        try:
            self.index = index
            await self._idle(stop=True)
            self._leave_analysis()
            mark = self.marks.get(index)
            if mark is not None:
                await self._bring_back(mark)
            for action in self.lesson.steps[index].actions:
                if isinstance(action, Directive) and action.kind in ("select", "tokenize", "trace"):
                    try:
                        await self._act(action)
                    except ActionFailed:
                        pass
        finally:
            self._done()

    def _done(self) -> None:
        self.busy = False
        self.app.refresh_bindings()
        self.app.show_lesson()
        self.settled.set()

    # -- the actions ----------------------------------------------------------------------------

    async def _idle(self, stop: bool = False) -> None:
        """Wait until no training run, jump or load holds the trainer (``stop``: pause a run first)."""
        if stop and self.app.running:
            self.app.training.stop()
        while self.app.loading or self.app.running:
            await asyncio.sleep(0.02)

    async def _bring_back(self, mark: Mark) -> None:
        app = self.app
        workbench = app.workbench
        if workbench is None or workbench.corpus.source != mark.source or workbench.config != mark.config \
                or workbench.script is not mark.script:
            if not app.open_with(mark.source, mark.config, mark.script, mark.file_ids):
                raise ActionFailed(_("cannot open {source} again").format(source=mark.source))
            await asyncio.sleep(0)
            await self._idle()
        await self._move(mark.steps)

    async def _move(self, target: int | None) -> str | None:
        """Train or jump to ``target`` (None: to the end), on the workbench's lock in a thread."""
        app = self.app
        workbench = app.workbench
        if workbench is None:
            raise ActionFailed(_("no corpus is open (an open directive comes first)"))

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
        if target is not None and reached < target:
            return _("stopped at step {step}: a stop rule holds").format(step=reached)
        return None

    async def _act(self, action: Directive) -> str | None:
        app = self.app
        kind, args, options = action.kind, action.args, action.options
        if kind == "open":
            source = open_source(self.lesson, action)
            if not app.open_with(source.source, source.config):
                raise ActionFailed(_("cannot open {name}").format(name=source.name))
            await asyncio.sleep(0)
            await self._idle()
            if app.workbench is None or app.workbench.corpus.source != source.source or app.workbench.config != source.config:
                raise ActionFailed(_("{name} did not open with these settings").format(name=source.name))
            return None
        if kind == "replay":
            return await self._replay(action)
        workbench = app.workbench
        if workbench is None:
            raise ActionFailed(_("no corpus is open (an open directive comes first)"))
        if kind in ("step", "undo", "run", "goto"):
            steps = workbench.steps
            if kind == "step":
                target = steps + (int(args[0]) if args else 1)
            elif kind == "undo":
                target = max(steps - (int(args[0]) if args else 1), 0)
            elif kind == "run" and not args:
                target = None
            else:
                target = int(args[0])
            return await self._move(target)
        screen = app.main_screen
        if kind == "select":
            with workbench.reading():
                found = find_token(workbench.trainer, args[0], workbench.our_id)
            if found is None:
                raise ActionFailed(_("select: no token matches {token!r}").format(token=args[0]))
            screen.corpus_view.highlight = found
            screen.select(found)
            return None
        if kind == "tokenize":
            if options.get("trace"):
                screen.set_trace(options["trace"] == "on")
            if args:
                screen.set_tokenize_text(args[0])
            return None
        if kind == "trace":
            screen.set_trace(args[0] == "on")
            return None
        if kind == "analysis":
            app.action_analysis(args[0])
            if "text" in options:
                await self._compare_text(options["text"])
            return None
        if kind == "quiz":  # opened when the step's other actions are done (see _enter)
            self._pending_quiz = (options.get("mode", "shuffled"), int(options.get("rounds", "1")))
            return None
        return None

    async def _compare_text(self, text: str) -> None:
        """Type ``text`` into the analysis screen's compare tab (once the screen is up)."""
        from textual.widgets import Input

        from tui.app.screens.analysis import AnalysisScreen

        screen = self.app.screen
        while isinstance(screen, AnalysisScreen) and not screen.query("#compare-text"):
            await asyncio.sleep(0.01)
        if isinstance(screen, AnalysisScreen):
            screen.query_one("#compare-text", Input).value = text

    def _leave_analysis(self) -> None:
        """A step begins on the main screen (where the lesson pane is): close the analysis screen
        and a quiz an earlier step opened."""
        from tui.app.screens.analysis import AnalysisScreen
        from tui.app.screens.quiz import QuizScreen

        while isinstance(self.app.screen, (AnalysisScreen, QuizScreen)):
            self.app.pop_screen()

    def quiz(self, mode: str, rounds: int) -> str | None:
        """The one place a lesson calls into the predict-the-next-merge quiz: the app's
        ``start_quiz`` when it has one, else an instruction in the pane."""
        start = getattr(self.app, "start_quiz", None)
        if start is not None:
            start(mode)
            return None
        return _("quiz: press p and predict the next merge ({mode}, {rounds} rounds)").format(mode=mode, rounds=rounds)

    async def _replay(self, action: Directive) -> str | None:
        from engine import load_any

        app = self.app
        workbench = app.workbench
        if workbench is None:
            raise ActionFailed(_("no corpus is open (an open directive comes first)"))
        path = self.lesson.resolve(action.args[0])
        try:
            imported = await asyncio.to_thread(load_any, path)
        except (ValueError, OSError) as exc:
            raise ActionFailed(str(exc)) from None
        if not app.open_with(workbench.corpus.source, workbench.config, imported.tokenizer, imported.file_ids):
            raise ActionFailed(_("cannot replay {path}").format(path=action.args[0]))
        await asyncio.sleep(0)
        await self._idle()
        return None

    def _check(self, claim: Claim) -> Result:
        workbench = self.app.workbench
        if workbench is None:
            return evaluate(claim, None)
        with workbench.reading():
            return evaluate(claim, workbench.trainer, workbench.tokenizer())
