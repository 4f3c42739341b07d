"""Messages that workers post to the app (thread-safe via post_message)."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from .workbench import Workbench


@dataclass
class Trained(Message):
    """The training worker made some merges. Coalesces: only the latest matters."""

    done: bool

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, Trained)


@dataclass
class Loaded(Message):
    """A corpus and its trainer are ready."""

    workbench: Workbench


@dataclass
class LoadFailed(Message):
    """Loading a corpus or building its trainer failed; ``reason`` is one line."""

    reason: str
