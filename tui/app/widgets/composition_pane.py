"""Vocabulary composition (seed 002): complete characters, multi-character tokens, partial UTF-8."""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from rich.text import Text
from textual.widgets import Static

from engine.analysis import KINDS, LABELS, Composition
from engine.text import token_display
from tui.app.theme import current
from tui.app.widgets.line_break import break_offsets
from tui.i18n import N_, _

BAR = 24
#: The cells before a bar: a count of up to 7 digits and a share.
ROW_START = 15
#: The narrowest column the labels wrap in after their bars (else each stands above its bar).
LEAST_LABEL = 20
#: The engine's labels (``engine.analysis.LABELS``), marked for the catalogs.
KIND_LABELS = {
    "char": N_("exactly one complete character"),
    "multi": N_("two or more characters"),
    "partial": N_("partial UTF-8 (part of a character, or across a boundary)"),
}


def token_row(text: Text, title: str, ids: Sequence[int], vocab: Sequence[bytes], width: int = 80) -> None:
    """A titled row of tokens on alternating backgrounds (whitespace visible), packed into lines
    of ``width`` cells so that no token is broken across two lines (``[e4 b8]`` holds a space)."""
    text.append(f"\n{title}\n", style="bold")
    if not ids:
        text.append(_("none yet") + "\n", style="dim")
        return
    used = 0
    for index, token in enumerate(ids):
        shown = token_display(vocab[token], space="·")
        cells = cell_len(shown)
        if used and used + 1 + cells > width:
            text.append("\n")
            used = 0
        elif used:
            text.append(" ")
            used += 1
        text.append(shown, style=current().on_token(index))
        used += cells
    text.append("\n")


class CompositionPane(Static):
    """How many learned tokens are one character, several, or partial UTF-8; the earliest of each
    kind and the longest tokens."""

    DEFAULT_CSS = """
    CompositionPane { padding: 0 1; }
    """

    _last: tuple | None = None

    def on_resize(self) -> None:
        if self._last is not None:
            self.show(*self._last)

    def show(self, comp: Composition | None, vocab: Sequence[bytes] = (), step: int = 0) -> None:
        self._last = (comp, vocab, step)
        if comp is None:
            self.update(Text(_("no corpus yet"), style="dim"))
            return
        self.update(composition_text(comp, vocab, step, self.content_size.width or 80))


def composition_text(comp: Composition, vocab: Sequence[bytes], step: int, width: int) -> Text:
    """The tab for ``width`` cells: the count of learned tokens, a bar per kind, the earliest and
    longest tokens."""
    text = Text()
    text.append(_("{n} learned tokens").format(n=comp.learned), style="bold")
    text.append(" " + (_("(merges 1–{step})").format(step=step) if step else _("— make some merges (n, or space to run)")) + "\n",
                style="dim")
    labels = {kind: _(KIND_LABELS.get(kind, LABELS[kind])) for kind in KINDS}
    # Each kind's label after its bar, a longer one wrapped under itself; where that leaves the
    # labels too narrow a column (beside a lesson at 80 columns), each on a line of its own above
    # its bar. (Wrapped by the pane, a label went on under the counts: "… exactly" / "one
    # complete character".)
    column = width - ROW_START - BAR - 1
    beside = column >= LEAST_LABEL or all(cell_len(label) <= column for label in labels.values())
    for kind in KINDS:
        count = comp.counts[kind]
        share = comp.share(kind)
        if not beside:
            text.append(" " + labels[kind] + "\n")
        text.append(f"{count:>7} {share:>6.1%} ")
        text.append("█" * round(BAR * share), style=current().partial if kind == "partial" else current().bar)
        if beside:
            text.append(" " * (BAR - round(BAR * share) + 1))
            cuts = [0, *break_offsets(labels[kind], column), len(labels[kind])]
            parts = [labels[kind][a:b].rstrip() for a, b in zip(cuts, cuts[1:])]
            text.append(("\n" + " " * (ROW_START + BAR + 1)).join(parts))
        text.append("\n")
    token_row(text, _("earliest tokens of two or more characters"), comp.earliest["multi"], vocab, width)
    token_row(text, _("earliest partial UTF-8 tokens (bytes in brackets)"), comp.earliest["partial"], vocab, width)
    token_row(text, _("earliest single characters"), comp.earliest["char"], vocab, width)
    token_row(text, _("longest tokens"), comp.longest, vocab, width)
    return text
