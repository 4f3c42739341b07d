"""Copying: the system clipboard through pyperclip, else the terminal's (OSC 52)."""

from __future__ import annotations

from collections.abc import Callable

from tui.i18n import _


def system_copy(text: str) -> None:
    """Copy with pyperclip; raises when this machine has no clipboard it can reach."""
    import pyperclip

    pyperclip.copy(text)


def copy_text(text: str, system: Callable[[str], None] | None, terminal: Callable[[str], None]) -> str:
    """Copy ``text``; returns which clipboard took it.

    ``system`` defaults to pyperclip; when it fails (no xclip/wl-copy/pbcopy, a headless box),
    ``terminal`` (Textual's OSC 52 escape) carries the text to the terminal's clipboard instead.
    """
    try:
        (system or system_copy)(text)
        return _("system clipboard")
    except Exception:  # pyperclip raises its own PyperclipException, or OSError
        terminal(text)
        return _("terminal clipboard (OSC 52)")


def server_clipboard(text: str) -> None:
    """In a browser (bpe-lab serve) the system clipboard is the server's, not the participant's:
    refuse it, so that the copy goes to the page by OSC 52 (textual-serve's page takes it)."""
    raise RuntimeError("the system clipboard here is the server's")
