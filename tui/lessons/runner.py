"""Running a lesson without the app (``bpe-lab lesson --run``): every step's training actions
with the engine alone, every claim checked. No textual.

Each directive runs through its class's ``headless`` (:mod:`tui.lessons.directives`, which the
app's player shares for where an ``open`` reads its corpus and for the step arithmetic); the
claims through :mod:`tui.lessons.claims`, as in the app.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path

from engine import Trainer
from tui.lessons.claims import Result, evaluate
from tui.lessons.directives import DIRECTIVES, ActionFailed
from tui.lessons.format import Claim, Directive, Lesson, Step


@dataclass
class StepReport:
    """What one step did: its claims' verdicts and the notes of actions that failed or stopped early."""

    index: int
    step: Step
    results: list[Result] = field(default_factory=list)
    notes: list[tuple[int, str]] = field(default_factory=list)  # (line, message)
    failed_actions: int = 0

    @property
    def ok(self) -> bool:
        return self.failed_actions == 0 and all(r.ok for r in self.results)


class HeadlessRun:
    """A lesson played with the engine alone: ``run_step(i)`` for each step in order."""

    def __init__(self, lesson: Lesson, *, handin_folder: Path | None = None, surprises: tuple[str, ...] = ()) -> None:
        self.lesson = lesson
        self.trainer: Trainer | None = None
        self.text: str | None = None
        self.corpus_name = ""
        #: the real tokenizers ``need`` named so far (tui.lessons.real)
        self.needed: list[str] = []
        #: texts the student marked as surprising (``lesson --run --surprise TEXT``), and the
        #: hand-in ``handin`` made: written into ``handin_folder`` when one is given
        self.surprises = surprises
        self.handin_folder = handin_folder
        self.handin: str | None = None
        self.handin_path: Path | None = None

    def resolve(self, relative: str) -> Path:
        return self.lesson.resolve(relative)

    def reading(self) -> AbstractContextManager[None]:
        return self.lesson.reading()

    def run_step(self, index: int) -> StepReport:
        step = self.lesson.steps[index]
        report = StepReport(index, step)
        for action in step.actions:
            if isinstance(action, Claim):
                report.results.append(evaluate(action, self.trainer))
                continue
            try:
                note = self.act(action)
            except ActionFailed as exc:
                report.notes.append((action.line, str(exc)))
                report.failed_actions += 1
                continue
            if note:
                report.notes.append((action.line, note))
        return report

    def act(self, action: Directive) -> str | None:
        return DIRECTIVES[action.kind].headless(action, self)

    def run(self) -> list[StepReport]:
        return [self.run_step(i) for i in range(len(self.lesson.steps))]
