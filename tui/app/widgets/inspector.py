"""The token inspector: id, text, bytes in hex/decimal/binary with UTF-8 roles, merge tree."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text

from engine import TokenInfo
from engine.analysis import MergeTree
from engine.text import token_display
from tui.app.theme import current
from tui.app.widgets.text_view import TextView
from tui.i18n import N_, _, ngettext

#: The engine's words for a byte's role and a token's completeness, as the inspector shows them.
ROLES = {
    "ASCII": N_("ASCII"), "lead of 2": N_("lead of 2"), "lead of 3": N_("lead of 3"), "lead of 4": N_("lead of 4"),
    "continuation": N_("continuation"), "invalid": N_("invalid"),
}
COMPLETENESS = {
    "complete": N_("complete"), "starts and ends mid-character": N_("starts and ends mid-character"),
    "starts mid-character": N_("starts mid-character"), "ends mid-character": N_("ends mid-character"),
    "not valid UTF-8": N_("not valid UTF-8"),
}


#: How many leading bits of a byte are UTF-8's marker, by the byte's role (the rest is payload).
MARKER_BITS = {"ASCII": 1, "continuation": 2, "lead of 2": 3, "lead of 3": 4, "lead of 4": 5}


def split_bits(value: int, role: str) -> tuple[str, str]:
    """The byte's bits as (UTF-8 marker, payload): ``split_bits(0xE4, "lead of 3") -> ('1110', '0100')``.

    A byte that is no UTF-8 at all (f8-ff) is all marker, nothing payload."""
    bits = f"{value:08b}"
    cut = MARKER_BITS.get(role, 8)
    return bits[:cut], bits[cut:]


def tree_lines(tree: MergeTree, id_text: Callable[[int], str], prefix: str = "") -> list[str]:
    """``MergeTree.lines`` with each id as ``id_text`` shows it (a replayed file's ids)."""
    out = [f"{prefix}{id_text(tree.token_id)} {token_display(tree.data, space='·')}"]
    for child in (tree.left, tree.right):
        if child is not None:
            out.extend(tree_lines(child, id_text, prefix + "  "))
    return out


def byte_lines(info: TokenInfo, overlap: object = None) -> tuple[int, int]:
    """The lines of :func:`render_info`'s text that show the bytes and their UTF-8 roles, as
    (first, last): what a lesson step that selects a token is about."""
    # after the token, its completeness, its mark, its birth, the overlap line and its count
    first = 4 + bool(info.mark) + (overlap is not None)
    return first, first + min(len(info.roles), 16) + (len(info.roles) > 16)


def render_info(info: TokenInfo, id_text: Callable[[int], str] | None = None,
                overlap: tuple[int, str] | None = None) -> Text:
    """The inspector's text for one token: short lines, so a narrow pane cuts nothing vital.

    ``id_text`` shows an id as the user sees it (a replayed tokenizer's file's ids); ``overlap``:
    (occurrences merged, the repeated token) when its merge made fewer than its count."""
    text = Text()
    text.append(_("token {id}").format(id=id_text(info.token_id) if id_text else info.token_id) + "  ", style="bold")
    text.append(info.display, style=f"bold {current().accent}")
    text.append("\n")
    complete = info.completeness == "complete"
    text.append(_(COMPLETENESS.get(info.completeness, info.completeness)) if complete
                else _("partial: {what}").format(what=_(COMPLETENESS.get(info.completeness, info.completeness))),
                style=current().ok if complete else current().partial)
    text.append("\n")
    if info.mark:
        text.append(_("continues a word ({mark})").format(mark=info.mark) + "\n", style="dim")
    if info.born_step is None:
        text.append(_("base token"))
    else:
        text.append(_("born at step {step}, count {count}").format(step=info.born_step, count=info.count_then))
    if overlap is not None:  # step 1 on the workshop: · + · counted 92, the corpus loses 46 tokens
        merged, token = overlap
        text.append("\n" + _("{made} merged: {run} counts twice, merges once (no overlap)").format(
            made=merged, run=token * 3), style=current().accent)
    text.append("\n" + _("now {n}× in the corpus").format(n=info.frequency) + "\n")
    text.append(ngettext("{n} byte:", "{n} bytes:", len(info.data)).format(n=len(info.data)) + " ", style="dim")
    text.append(" ".join(f"{b:02x}" for b in info.data) + "\n")
    for role in info.roles[:16]:
        marker, payload = split_bits(role.value, role.role)
        text.append(f" {role.value:02x} {role.value:3d} ")
        text.append(marker, style="dim")
        text.append(" " + payload + " ")  # always 9 cells: marker, a space, payload
        text.append(_(ROLES.get(role.role, role.role)) + "\n", style=current().role(role.role))
    if len(info.roles) > 16:
        text.append(" " + _("… {n} more bytes").format(n=len(info.roles) - 16) + "\n", style="dim")
    if info.tree.depth():
        text.append(_("merge tree:") + "\n", style="dim")
        lines = tree_lines(info.tree, id_text) if id_text else info.tree.lines()
        for line in lines[:40]:
            text.append(" " + line + "\n")
        if len(lines) > 40:
            text.append(" " + _("… {n} more nodes").format(n=len(lines) - 40) + "\n", style="dim")
    return text


class Inspector(TextView):
    """Shows one token at a time (``None``: a hint). It takes focus (Tab) and scrolls with the
    arrow keys, PgUp/PgDn, Home and End, so a deep merge tree can be read to its last line."""

    DEFAULT_CSS = """
    Inspector { scrollbar-size-vertical: 1; }
    """

    #: Two short lines: each fits the pane at 80×24 (tests/app/test_screen_fits.py).
    HINT = N_("select a merge in the log,\nor press / to find a token")

    def on_mount(self) -> None:
        self.set_text(_(self.HINT))

    def show(self, info: TokenInfo | None, id_text: Callable[[int], str] | None = None, *, reveal: bool = False,
             overlap: tuple[int, str] | None = None) -> None:
        """Show ``info``; ``reveal``: scroll so that its bytes and their roles are in view (a
        lesson's step that selects a token is about them; they start on the fifth line)."""
        self.set_text(_(self.HINT) if info is None else render_info(info, id_text, overlap))
        if reveal and info is not None:
            self.reveal_lines(*byte_lines(info, overlap))
