"""The driver: all that lessons and the quiz may do to the lab, and all they may read of it.

A lesson's player (:mod:`tui.lessons.player`) and the quiz see a :class:`LabDriver`, never the
Textual app: the app's :class:`tui.app.lab.Lab` implements it, and tests can implement it over a
bare :class:`tui.model.workbench.Workbench` without a screen. Nothing here imports textual.

Rules of the contract:

- Every method that changes training is a coroutine that returns once the change is done and
  shown, and goes through the lab's own paths (the open dialog's load, ``Training``'s workers), so
  a lesson's move can be paused or cancelled like any run: cancelling the awaiting task stops the
  move at a merge boundary and leaves a consistent trainer.
- Failures a lesson can cause (a file that will not open, no corpus yet) raise :class:`DriverError`
  with one translated line; the player shows it as the step's ✗ line.
- What is shown is plain data: the player hands the lesson pane a :class:`LessonView`
  (strings and numbers), never itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from engine import Tokenizer, TrainConfig
    from tui.model.workbench import Workbench


class DriverError(Exception):
    """A lesson's action that could not be done: one line, shown in the lesson pane."""


@dataclass(frozen=True)
class ClaimLine:
    """One claim of a step as the pane shows it: ✓ or ✗, its text, and why when it fails."""

    ok: bool
    text: str
    detail: str = ""


@dataclass(frozen=True)
class LessonView:
    """What the lesson pane draws: plain data, made by the player after every change."""

    title: str
    step_index: int
    step_count: int
    step_title: str
    prose: str
    claims: tuple[ClaimLine, ...] = ()
    notes: tuple[str, ...] = ()
    failures: tuple[str, ...] = ()
    busy: bool = False
    drifted: bool = False
    note: str | None = None
    lang: str = "en"
    extra: dict = field(default_factory=dict)


@runtime_checkable
class LabDriver(Protocol):
    """The lab as a lesson or the quiz drives it."""

    @property
    def workbench(self) -> Workbench | None:
        """The corpus and trainer now shown, or None before the first corpus has loaded. Read it
        under ``workbench.reading()``; never move its trainer directly."""

    @property
    def busy(self) -> bool:
        """A load, a run or a jump holds the trainer."""

    async def open(self, source: str, config: TrainConfig, script: Tokenizer | None = None,
                   file_ids: list[int | None] | None = None) -> None:
        """Load ``source`` (a path or ``sample:NAME``) with ``config`` (and a tokenizer to replay),
        as the open dialog does; returns once it is shown. DriverError when it cannot be read."""

    async def move(self, target: int | None) -> int:
        """Train or jump to step ``target`` (None: to the end), through the lab's ``Training``;
        returns the step reached (less than ``target`` when a stop rule holds). Cancellable."""

    async def idle(self, *, stop: bool = False) -> None:
        """Return once nothing holds the trainer; ``stop``: pause a live run first."""

    def select(self, token_id: int) -> None:
        """Select a token in every pane (corpus highlight, inspector, log)."""

    def tokenize(self, text: str | None = None, *, trace: bool | None = None) -> None:
        """Put ``text`` into the tokenize pane (None: leave it) and turn the trace on or off."""

    def show_tab(self, tab: str | None, *, text: str | None = None, add: tuple[str, ...] = ()) -> None:
        """Show the analysis screen at ``tab`` (a tab id of the one tab list), with ``text`` in
        that tab's input where it has one, and the tokenizers ``add`` names (names or files)
        added to the compare tab; None: back to the main screen. The lesson's text stays
        visible beside it."""

    def start_quiz(self, mode: str, rounds: int = 1) -> None:
        """Open the predict-the-next-merge quiz in ``mode`` (shuffled, hidden or typed)."""

    def say(self, message: str, *, timeout: float = 3.0) -> None:
        """A short message to the user (a toast)."""

    def marked(self) -> list[str]:
        """The texts the user marked as surprising (``!`` on a tokenized text), oldest first."""

    def hand_in(self, stem: str, markdown: str) -> str:
        """Write a lesson's hand-in (``STEM.md``) where a save goes (in a browser: downloaded) and
        say where; the path written. DriverError when it cannot be written."""

    def show_lesson(self, view: LessonView | None) -> None:
        """Redraw the lesson pane with ``view`` (None: the lesson has ended; hide the pane)."""
