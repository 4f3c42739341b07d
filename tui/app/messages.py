"""Messages that workers post to the app (thread-safe via post_message), and what the lab's
``changed`` signal tells the screens (:class:`Change`)."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from tui.model.workbench import Workbench


@dataclass
class Trained(Message):
    """The training worker made some merges. Coalesces: only the latest matters."""

    done: bool
    final: bool = False  # the worker has stopped: the last refresh of a run
    each: bool = False  # a paced run's merge: show every one (at most a few a second)

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, Trained) and not (message.final or message.done)


@dataclass
class Loaded(Message):
    """A corpus and its trainer are ready (``note``: something the user should know)."""

    workbench: Workbench
    note: str | None = None


@dataclass
class LoadFailed(Message):
    """Loading a corpus or building its trainer failed; ``reason`` is one line."""

    reason: str


@dataclass(frozen=True)
class Change:
    """What :attr:`Lab.changed` says happened to the trainer.

    ``kind``: ``moved`` (a step, undo or jump: inspect the last merge again), ``refresh`` (bring
    the panes up to date), ``status`` (only the status line: running, loading, the speed) or
    ``follow`` (a training batch: ``done``, ``final``, ``each`` as in :class:`Trained`)."""

    kind: str
    done: bool = False
    final: bool = False
    each: bool = False
    text: str | None = None  # ``status``: what the status line says instead of its state
