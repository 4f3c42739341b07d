"""Running a lesson without the app (``bpe-lab lesson --run``): every step's training actions
with the engine alone, every claim checked. No textual.

The app runs the same steps on its workbench (tui/lessons/player.py); what both share lives
here: where an ``open`` reads its corpus and with which settings (:func:`open_source`,
:func:`tui.lessons.format.config_for`), and the claims (:mod:`tui.lessons.claims`).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from engine import TrainConfig, Trainer, decode_corpus
from tui.i18n import _
from tui.lessons.claims import Result, evaluate
from tui.lessons.format import Claim, Directive, Lesson, Step, config_for, sample_name
from tui.model.finder import find_token

#: Directives that change the training state (the app waits for its workers around them).
TRAINING = ("open", "step", "run", "goto", "undo", "replay")
#: Directives only the app shows (the headless run checks what it can of them and goes on).
SHOWN = ("select", "tokenize", "trace", "analysis", "quiz")


class ActionFailed(Exception):
    """An action that cannot be done (a file gone, settings the corpus refuses): one line."""


@dataclass(frozen=True)
class Source:
    """Where an ``open`` reads its corpus: ``sample:NAME`` or a file path (inline text is written
    to a file of its own, so that sessions and resume work on it as on any file)."""

    source: str
    name: str
    config: TrainConfig


def text_file(text: str) -> Path:
    """The file an inline ``open text="..."`` corpus is kept in (by its hash, in the state folder)."""
    from engine import atomic_write_bytes

    data = text.encode("utf-8")
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    path = Path(state) / "bpe-lab" / "lessons" / f"text-{hashlib.sha256(data).hexdigest()[:12]}.txt"
    if not path.is_file() or path.read_bytes() != data:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(path, data)
    return path


def open_source(lesson: Lesson, action: Directive, *, write_text: bool = True) -> Source:
    """The corpus and settings an ``open`` directive names. ActionFailed when it cannot be."""
    options = action.options
    try:
        config = config_for(options)
    except ValueError as exc:
        raise ActionFailed(str(exc)) from None
    if "sample" in options:
        name = sample_name(options["sample"])
        return Source(f"sample:{name}", name, config)
    if "file" in options:
        path = lesson.resolve(options["file"])
        if not path.is_file():
            raise ActionFailed(_("{file}: no such file").format(file=options['file']))
        return Source(str(path), path.name, config)
    if not write_text:
        return Source("", "lesson text", config)
    try:
        path = text_file(options["text"])
    except OSError as exc:
        raise ActionFailed(_("cannot keep the lesson's text in a file: {reason}").format(reason=exc.strerror or exc)) from None
    return Source(str(path), path.name, config)


def read_source(source: Source, text: str | None = None) -> str:
    """The corpus text of a source, decoded as the app decodes it."""
    if source.source.startswith("sample:"):
        from tui.model.samples import sample

        data = sample(source.name).read_bytes()
    elif text is not None:
        data = text.encode("utf-8")
    else:
        try:
            data = Path(source.source).read_bytes()
        except OSError as exc:
            raise ActionFailed(_("{file}: {reason}").format(file=source.source, reason=exc.strerror or exc)) from None
    return decode_corpus(data, base=source.config.base, name=source.name).text


def move(trainer: Trainer, action: Directive) -> str | None:
    """Do a step/run/goto/undo on ``trainer``; a note when a stop rule ends it early."""
    kind, args = action.kind, action.args
    if kind == "step":
        target = trainer.steps + (int(args[0]) if args else 1)
    elif kind == "undo":
        target = max(trainer.steps - (int(args[0]) if args else 1), 0)
    elif kind == "run" and not args:
        trainer.train()
        return None
    else:
        target = int(args[0])
    reached = trainer.goto(target)
    if reached < target:
        return _("stopped at step {step}: a stop rule holds").format(step=reached)
    return None


def replay(lesson: Lesson, action: Directive, text: str) -> Trainer:
    """A trainer replaying the tokenizer file ``replay PATH`` names on ``text``."""
    from engine import load_any

    path = lesson.resolve(action.args[0])
    try:
        imported = load_any(path)
    except ValueError as exc:
        raise ActionFailed(str(exc)) from None
    return Trainer.replaying(text, imported.tokenizer)


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

    def __init__(self, lesson: Lesson) -> None:
        self.lesson = lesson
        self.trainer: Trainer | None = None
        self.text: str | None = None

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
        kind = action.kind
        if kind == "open":
            source = open_source(self.lesson, action, write_text=False)
            text = read_source(source, action.options.get("text"))
            try:
                self.trainer = Trainer(text, source.config)
            except ValueError as exc:
                raise ActionFailed(str(exc)) from None
            self.text = text
            return None
        if self.trainer is None:
            if kind in TRAINING:
                raise ActionFailed(_("{kind}: no corpus is open (an open directive comes first)").format(kind=kind))
            return None
        if kind == "replay":
            self.trainer = replay(self.lesson, action, self.text or "")
            return None
        if kind in ("step", "run", "goto", "undo"):
            return move(self.trainer, action)
        if kind == "select" and find_token(self.trainer, action.args[0]) is None:
            raise ActionFailed(_("select: no token matches {token}").format(token=repr(action.args[0])))
        return None

    def run(self) -> list[StepReport]:
        return [self.run_step(i) for i in range(len(self.lesson.steps))]
