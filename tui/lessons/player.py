"""Playing a lesson in the app: each step's actions, in order, through a
:class:`tui.model.driver.LabDriver`, and the training state each step left, so that back (`<`)
returns to it and a learner who explored is told so and returns to the lesson (`>`).

The player sees the driver only: no textual, no thread, no lock. Each action goes through its
directive's ``play`` (:mod:`tui.lessons.directives`), the claims through :mod:`tui.lessons.claims`
(the headless run's). After every change the player hands the lesson pane a
:class:`tui.model.driver.LessonView` (plain data) through ``driver.show_lesson``.

How the lab uses it::

    player = LessonPlayer(driver, lesson, note)
    player.start()              # the introduction (opening the lesson's first corpus if none is)
    player.next(); player.back(); player.restart()   # the keys > < L
    player.refresh()            # the trainer moved by the learner's hand: redraw (drift)
    player.close()              # the lesson ends: its step stops, the pane is hidden

``next``/``back``/``restart`` return at once; the step runs in a task (``spawn``, by default an
asyncio task; the app may pass its own worker runner). :attr:`LessonPlayer.settled` is set
whenever a step has finished, and :meth:`LessonPlayer.wait` awaits it (raising what the step
raised): tests wait on either.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.i18n import _
from tui.lessons.claim_syntax import REAL_QUANTITIES
from tui.lessons.claims import Result, evaluate
from tui.lessons.directives import DIRECTIVES, ActionFailed
from tui.lessons.format import Claim, Directive, Lesson
from tui.model.driver import ClaimLine, DriverError, LessonView

if TYPE_CHECKING:
    from tui.model.driver import LabDriver


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
    its actions said (a stop rule that ended a move early)."""

    results: list[Result]
    notes: list[str]
    failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures and all(r.ok for r in self.results)


def claim_line(result: Result) -> ClaimLine:
    """A claim's verdict as the pane shows it: ✓/✗, ``SUBJECT OP VALUE``, and the actual value
    (or why there is none) when it fails."""
    return ClaimLine(result.ok, f"{result.claim.subject} {result.claim.expected}", "" if result.ok else result.shown_actual)


class LessonPlayer:
    """One lesson being played through a driver."""

    def __init__(self, driver: LabDriver, lesson: Lesson, note: str | None = None, *,
                 spawn: Callable[[Coroutine[Any, Any, None]], Any] | None = None) -> None:
        self.driver = driver
        self.lesson = lesson
        self.note = note  # e.g. "no de version: showing it in en"
        self.index = 0
        self.marks: dict[int, Mark] = {}
        #: The state a step's own quiz has since moved it to (its merges are the lesson's, not
        #: the learner exploring); back and restore still bring back the step's mark.
        self.adopted: dict[int, Mark] = {}
        self.shown: dict[int, Shown] = {}
        self.busy = False
        self.settled = asyncio.Event()
        #: Why the state of a step could not be brought back (shown as a ✗ line until the next step).
        self.trouble: str | None = None
        self._spawn = spawn or asyncio.ensure_future
        self._task: Any = None
        self.closed = False
        #: A quiz the step being entered asks for, (mode, rounds): opened after its other actions.
        self._pending_quiz: tuple[str, int] | None = None
        #: The real tokenizers ``need`` named so far (tui.lessons.real), for the hand-in.
        self.needed: list[str] = []

    # -- what directives ask of their player ------------------------------------------------------

    def resolve(self, relative: str) -> Path:
        return self.lesson.resolve(relative)

    def reading(self) -> AbstractContextManager[None]:
        return self.lesson.reading()

    def ask_quiz(self, mode: str, rounds: int) -> None:
        self._pending_quiz = (mode, rounds)

    def adopt(self) -> None:
        """The state now is the current step's own (the driver calls it after a merge the step's
        quiz made): not a drift from the lesson."""
        if not self.busy and not self.closed:
            now = self.current()
            if now is not None:
                self.adopted[self.index] = now

    # -- where the lesson is ----------------------------------------------------------------------

    @property
    def count(self) -> int:
        """Steps after the introduction."""
        return len(self.lesson.steps) - 1

    @property
    def step(self):
        return self.lesson.steps[self.index]

    def current(self) -> Mark | None:
        workbench = self.driver.workbench
        if workbench is None:
            return None
        return Mark(workbench.corpus.source, workbench.config, workbench.script, workbench.file_ids, workbench.steps)

    def drifted(self) -> bool:
        """Whether the learner has left the state the current step set (explored)."""
        if self.busy or self.driver.busy:
            return False
        mark = self.marks.get(self.index)
        now = self.current()
        if mark is None or now is None:
            return False
        adopted = self.adopted.get(self.index)
        return not any(m is not None and (now.source, now.config, now.script is m.script, now.steps) == (m.source, m.config, True, m.steps)
                       for m in (mark, adopted))

    def view(self) -> LessonView:
        """What the lesson pane shows now."""
        step = self.step
        shown = self.shown.get(self.index)
        failures = [*(shown.failures if shown else ()), *([self.trouble] if self.trouble else [])]
        return LessonView(
            title=self.lesson.title,
            step_index=self.index,
            step_count=self.count,
            step_title=self.lesson.title if self.index == 0 else step.title,
            prose=step.markdown,
            claims=tuple(claim_line(r) for r in shown.results) if shown else (),
            notes=tuple(shown.notes) if shown else (),
            failures=tuple(failures),
            busy=self.busy,
            drifted=self.drifted(),
            note=self.note,
            lang=self.lesson.lang,
        )

    def refresh(self) -> None:
        """Redraw the lesson pane (the lab calls it when the trainer moved by other hands)."""
        if not self.closed:
            self.driver.show_lesson(self.view())

    # -- moving through the lesson ----------------------------------------------------------------

    def start(self) -> None:
        self.index = 0
        self.marks.clear()
        self.adopted.clear()
        self.shown.clear()
        self._launch(self._enter(0))

    def next(self) -> None:
        """`>`: the next step; after exploring, back to the lesson's state first."""
        if self._refused():
            return
        if self.drifted():
            self._launch(self._restore(self.index))  # return to the lesson first; > again goes on
            return
        if self.index >= self.count:
            self.driver.say(_("this is the lesson's last step: L starts it again"), timeout=3)
            return
        self._launch(self._enter(self.index + 1))

    def back(self) -> None:
        """`<`: the previous step's state."""
        if self._refused():
            return
        if self.index == 0:
            if self.drifted():
                self._launch(self._restore(0))
            else:
                self.driver.say(_("this is the lesson's introduction"), timeout=2)
            return
        self._launch(self._restore(self.index - 1))

    def restart(self) -> None:
        """`L`: the introduction again, as it first was."""
        if self._refused():
            return
        first = self.marks.get(0)
        self.marks = {0: first} if first is not None else {}
        self.adopted.clear()
        self.shown.clear()
        self._launch(self._restore(0) if first is not None else self._enter(0))

    def close(self) -> None:
        """The lesson ends: a step still running is cancelled (at a merge boundary, by the
        driver), and the pane is hidden."""
        self.closed = True
        if self._task is not None and self.busy:
            self._task.cancel()
        self.driver.show_lesson(None)

    async def wait(self) -> None:
        """Return once the step now running has finished (what it raised, raised)."""
        task = self._task
        if task is not None and isinstance(task, asyncio.Future):
            await task
        await self.settled.wait()

    def _refused(self) -> bool:
        if self.busy:
            self.driver.say(_("the lesson's step is still running"), timeout=2)
        return self.busy

    def _launch(self, work: Coroutine[Any, Any, None]) -> None:
        self.busy = True
        self.trouble = None
        self.settled.clear()
        self.refresh()
        self._task = self._spawn(work)

    def _done(self) -> None:
        self.busy = False
        self.refresh()
        self.settled.set()

    # -- running a step ---------------------------------------------------------------------------

    async def _enter(self, index: int) -> None:
        """Run step ``index``'s actions in order and remember the state it leaves."""
        try:
            self.index = index
            self.adopted.pop(index, None)
            shown = Shown([], [])
            self.shown[index] = shown
            await self.driver.idle(stop=True)
            self.driver.show_tab(None)  # a step begins on the main screen, beside the pane
            actions = list(self.lesson.steps[index].actions)
            if index == 0 and self.driver.workbench is None:  # started with no corpus: the lesson's first
                actions = [a for s in self.lesson.steps for a in s.actions if a.kind == "open"][:1]
            self._pending_quiz = None
            for action in actions:
                self.refresh()
                if isinstance(action, Claim):
                    if action.quantity in REAL_QUANTITIES:  # a real tokenizer's measure: off the screen's thread
                        shown.results.append(await asyncio.to_thread(self._check, action))
                    else:
                        shown.results.append(self._check(action))
                    continue
                try:
                    note = await DIRECTIVES[action.kind].play(action, self)
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
                self.driver.start_quiz(mode, rounds)
        finally:
            self._done()

    async def _restore(self, index: int) -> None:
        """Bring back the state step ``index`` left (its corpus and settings, its step), and what
        it showed (selection, tokenize text, trace)."""
        try:
            self.index = index
            await self.driver.idle(stop=True)
            self.driver.show_tab(None)
            mark = self.marks.get(index)
            try:
                if mark is not None:
                    await self._bring_back(mark)
            except DriverError as exc:
                self.trouble = f"✗ {exc}"  # the driver's line, already in the UI's language
                return
            for action in self.lesson.steps[index].actions:
                if isinstance(action, Directive) and DIRECTIVES[action.kind].shown_again:
                    try:
                        await DIRECTIVES[action.kind].play(action, self)
                    except ActionFailed:
                        pass  # it failed when the step ran, and says so there
        finally:
            self._done()

    async def _bring_back(self, mark: Mark) -> None:
        driver = self.driver
        workbench = driver.workbench
        if workbench is None or workbench.corpus.source != mark.source or workbench.config != mark.config \
                or workbench.script is not mark.script:
            await driver.open(mark.source, mark.config, mark.script, mark.file_ids)
        await driver.move(mark.steps)

    def _check(self, claim: Claim) -> Result:
        workbench = self.driver.workbench
        if workbench is None:
            return evaluate(claim, None)
        with workbench.reading():
            return evaluate(claim, workbench.trainer, workbench.tokenizer())
