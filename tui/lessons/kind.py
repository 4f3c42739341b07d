"""What every lesson directive shares: the :class:`Directive` line, its two errors (a line that
does not check, an action that cannot be done), the contexts it runs in (headless, or played in
the app) and :class:`Kind`, the base class each directive of :mod:`tui.lessons.directives` is."""

from __future__ import annotations

import re
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Protocol

from tui.i18n import _
from tui.model.driver import DriverError

if TYPE_CHECKING:
    from engine import Trainer
    from tui.model.driver import LabDriver


class BadDirective(ValueError):
    """A directive line that does not check: one line, ``FILE:LINE: message`` (the parser makes
    it a :class:`tui.lessons.format.LessonError`)."""


class ActionFailed(Exception):
    """An action that cannot be done (a file gone, settings the corpus refuses): one line."""


@dataclass(frozen=True)
class Directive:
    """One line of a ``bpe`` block: ``kind`` (open, step, expect, ...), its positional words and
    its ``key=value`` options; ``line`` is its line in the file, ``source`` the line as written."""

    kind: str
    args: tuple[str, ...]
    options: dict[str, str]
    line: int
    source: str


class HeadlessContext(Protocol):
    """What a directive run headless works on (:class:`tui.lessons.runner.HeadlessRun`)."""

    trainer: Trainer | None
    text: str | None

    def resolve(self, relative: str) -> Path:
        """A file the lesson names, relative to it."""

    def reading(self) -> AbstractContextManager[None]:
        """A block whose file reads stay in the lesson's reach (:meth:`tui.lessons.format.Lesson.reading`)."""


class PlayContext(Protocol):
    """What a directive played in the app works on (:class:`tui.lessons.player.LessonPlayer`)."""

    driver: LabDriver

    def resolve(self, relative: str) -> Path:
        """A file the lesson names, relative to it."""

    def reading(self) -> AbstractContextManager[None]:
        """A block whose file reads stay in the lesson's reach (:meth:`tui.lessons.format.Lesson.reading`)."""

    def ask_quiz(self, mode: str, rounds: int) -> None:
        """Open the quiz once the step's other actions are done."""


def whole_number(where: str, word: str, what: str, minimum: int = 1) -> int:
    """``word`` as a whole number of at least ``minimum`` and at most ``engine.config.MAX_WHOLE``
    (2**63 - 1: a candidate number reaches the compiled core's ``Py_ssize_t``, and every number a
    lesson gives has the one range); BadDirective (one line) otherwise."""
    from engine.config import MAX_WHOLE

    digits = re.fullmatch(r"\d+", word) is not None
    if digits and (len(word.lstrip("0")) > len(str(MAX_WHOLE)) or int(word) > MAX_WHOLE):  # (no int() of 5000 digits)
        shown = word if len(word) <= 40 else word[:37] + "..."
        raise BadDirective(_("{where}: {what} {word} is too large (at most {most})").format(
            where=where, what=what, word=shown, most=MAX_WHOLE))
    if not digits or int(word) < minimum:
        raise BadDirective(_("{where}: bad {what} {word}: a whole number of {minimum} or more").format(
            where=where, what=what, word=repr(word), minimum=minimum))
    return int(word)


def no_corpus(kind: str) -> ActionFailed:
    return ActionFailed(_("{kind}: no corpus is open (an open directive comes first)").format(kind=kind))


class Kind:
    """A directive: how it reads (``least``..``most`` words, the ``options`` it takes), how it is
    checked, run headless and played. ``training``: it changes the training state (it needs a
    corpus, and the app waits for it); ``shown_again``: what it shows is shown again when a step's
    state is brought back (back, or > after exploring)."""

    name: ClassVar[str]
    usage: ClassVar[str]
    least: ClassVar[int] = 0
    most: ClassVar[int] = 0
    options: ClassVar[tuple[str, ...] | None] = ()  # None: the directive checks its options itself
    training: ClassVar[bool] = False
    shown_again: ClassVar[bool] = False

    def check(self, where: str, args: tuple[str, ...], options: dict[str, str]) -> None:
        """BadDirective (one line) when the words or options are wrong."""
        if not self.least <= len(args) <= self.most:
            raise BadDirective(_("{where}: {kind} reads: {usage}").format(where=where, kind=self.name, usage=self.usage))
        if self.options is not None:
            extra = sorted(set(options) - set(self.options))
            if extra:
                raise BadDirective(_("{where}: {kind} takes no option {option}=").format(
                    where=where, kind=self.name, option=extra[0]))
        self.check_values(where, args, options)

    def check_values(self, where: str, args: tuple[str, ...], options: dict[str, str]) -> None:
        """What :meth:`check` checks beyond the number of words and the option names."""

    def headless(self, action: Directive, run: HeadlessContext) -> str | None:
        """Do the action on ``run.trainer``; a note to show (a stop rule that ended a move early),
        ActionFailed when it cannot be done. What only the app shows is checked as far as a
        trainer can check it."""
        if run.trainer is None:
            if self.training:
                raise no_corpus(self.name)
            return None
        return self.on_trainer(action, run, run.trainer)

    def on_trainer(self, action: Directive, run: HeadlessContext, trainer: Trainer) -> str | None:
        return None

    async def play(self, action: Directive, player: PlayContext) -> str | None:
        """Do the action in the app, through ``player.driver``; a note to show, ActionFailed
        when it cannot be done (a DriverError's line)."""
        if player.driver.workbench is None:
            raise no_corpus(self.name)
        try:
            return await self.on_driver(action, player, player.driver)
        except DriverError as exc:
            raise ActionFailed(str(exc)) from None

    async def on_driver(self, action: Directive, player: PlayContext, driver: LabDriver) -> str | None:
        return None
