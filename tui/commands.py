"""The command palette's entries: every action of :mod:`tui.keys`, findable by name, once."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from textual.app import SystemCommand
from textual.screen import Screen

from .keys import palette_entries

if TYPE_CHECKING:
    from .app import BpeApp


def system_commands(app: BpeApp, screen: Screen) -> Iterable[SystemCommand]:
    """One palette entry per action, running the same action as its key.

    Actions on the main screen's panes (find, copy, ids, trace) are listed only when the palette
    is opened from the main screen, where they act."""
    on_main = screen is app.main_screen
    for title, help_text, action in palette_entries():
        if action.startswith("app."):
            yield SystemCommand(title, help_text, lambda a=action: app.run_action(a))
        elif on_main:
            yield SystemCommand(title, help_text, lambda a=action: app.run_action(a, screen))
