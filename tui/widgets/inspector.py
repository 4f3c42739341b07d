"""The token inspector: id, text, bytes in hex/decimal/binary with UTF-8 roles, merge tree."""

from __future__ import annotations

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from engine.inspect import TokenInfo

ROLE_STYLE = {
    "ASCII": "green",
    "lead of 2": "cyan",
    "lead of 3": "cyan",
    "lead of 4": "cyan",
    "continuation": "magenta",
    "invalid": "red",
}


def render_info(info: TokenInfo) -> Text:
    """The inspector's text for one token."""
    text = Text()
    text.append(f"token {info.token_id}  ", style="bold")
    text.append(info.display, style="bold #e9c46a")
    text.append("\n")
    complete = info.completeness == "complete"
    text.append(info.completeness if complete else f"partial: {info.completeness}", style="green" if complete else "#e07a5f")
    if info.born_step is None:
        text.append(" · base token")
    else:
        text.append(f" · born at step {info.born_step} (count {info.count_then})")
    text.append(f" · {info.frequency}× in the corpus now\n")
    text.append(f"{len(info.data)} byte{'s' if len(info.data) != 1 else ''}: ", style="dim")
    text.append(" ".join(f"{b:02x}" for b in info.data) + "\n")
    for role in info.roles[:16]:
        text.append(f" {role.value:02x} {role.value:3d} {role.binary} ")
        text.append(role.role + "\n", style=ROLE_STYLE.get(role.role, ""))
    if len(info.roles) > 16:
        text.append(f"  … {len(info.roles) - 16} more bytes\n", style="dim")
    if info.tree.depth():
        text.append("merge tree:\n", style="dim")
        lines = info.tree.lines()
        for line in lines[:40]:
            text.append("  " + line + "\n")
        if len(lines) > 40:
            text.append(f"  … {len(lines) - 40} more nodes\n", style="dim")
    return text


class Inspector(VerticalScroll):
    """Shows one token at a time (``None``: a hint)."""

    DEFAULT_CSS = """
    Inspector > Static { width: 1fr; }
    """

    def compose(self):
        yield Static("select a merge in the log, or press / to find a token", id="inspector-body")

    def show(self, info: TokenInfo | None) -> None:
        body = self.query_one("#inspector-body", Static)
        if info is None:
            body.update("select a merge in the log, or press / to find a token")
        else:
            body.update(render_info(info))
