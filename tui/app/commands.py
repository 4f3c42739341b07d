"""The command palette's entries: every action of :mod:`tui.app.keys`, findable by name, once."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from textual.app import SystemCommand
from textual.screen import Screen

from tui.app.keys import palette_entries
from tui.i18n import N_, _

if TYPE_CHECKING:
    from textual.app import App


#: Textual's own strings the app shows (its footer's palette key, its palette commands), marked so
#: the catalogs hold them and translated where shown (the footer; :func:`translated_system`).
TEXTUAL_STRINGS = [
    N_("palette"), N_("Open the command palette"),
    N_("Theme"), N_("Change the current theme"),
    N_("Keys"), N_("Hide the keys and widget help panel"), N_("Show help for the focused widget and a summary of available keys"),
    N_("Minimize"), N_("Minimize the widget and restore to normal size"),
    N_("Maximize"), N_("Maximize the focused widget"),
    N_("Screenshot"), N_("Save an SVG 'screenshot' of the current screen"),
]


def translated_system(command: SystemCommand) -> SystemCommand:
    """One of Textual's palette commands, its title and help in the app's language."""
    return SystemCommand(_(command.title), _(command.help), command.callback, command.discover)


def system_commands(app: App, screen: Screen) -> Iterable[SystemCommand]:
    """One palette entry per action, running the same action as its key.

    Actions on the main screen's panes (find, copy, ids, trace) are listed only when the palette
    is opened from the main screen, where they act."""
    on_main = screen is app.screen_stack[0]
    for title, help_text, action in palette_entries():
        if action.startswith("app."):
            yield SystemCommand(title, help_text, lambda a=action: app.run_action(a))
        elif on_main:
            yield SystemCommand(title, help_text, lambda a=action: app.run_action(a, screen))
