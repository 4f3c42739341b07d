"""Messages that workers post to the app (thread-safe via post_message)."""

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
