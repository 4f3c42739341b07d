"""BPE beside the baselines: vocabulary, tokens on the training text and held-out text, unknowns,
characters per token (seed 002's char tokenizer, seed 004's word level, WordPiece, Unigram)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from engine.analysis import Row
from tui.app.theme import current
from tui.i18n import N_, _


def _number(value: int | None) -> str:
    return "–" if value is None else f"{value:,}"


def rows_table(rows: Sequence[Row]) -> Table:
    """One row per tokenizer; a tokenizer that could not be built shows why instead."""
    table = Table(box=None, padding=(0, 1), header_style="bold")
    for name, justify in ((N_("tokenizer"), "left"), (N_("vocab"), "right"), (N_("training text"), "right"),
                          (N_("held-out"), "right"), (N_("unknown"), "right"), (N_("chars/token"), "right")):
        table.add_column(_(name), justify=justify, no_wrap=True)
    for row in rows:
        if row.note is not None:
            table.add_row(Text(row.name), Text(row.note, style=current().accent), "", "", "", "")
            continue
        cpt = row.chars_per_token
        table.add_row(
            Text(row.name, style=f"bold {current().accent}" if row.name.startswith("bpe") else ""),
            _number(row.vocab_size),
            _number(row.corpus_tokens),
            _number(row.heldout_tokens),
            Text(_number(row.unknown), style=current().error if row.unknown else ""),
            "–" if cpt is None else f"{cpt:.3f}",
        )
    return table


class BaselinesPane(Static):
    """The comparison table with a line on what was trained on what."""

    DEFAULT_CSS = """
    BaselinesPane { padding: 0 1; }
    """

    def show(self, rows: Sequence[Row], label: str, vocab_size: int | None, pending: str | None = None) -> None:
        grid = Table.grid()
        head = Text()
        head.append(_("held-out: {label}").format(label=label), style="bold")
        if vocab_size is not None:
            head.append(" · " + _("baselines trained on the training text at vocabulary {n} "
                                  "(b: retrain at the current one)").format(n=f"{vocab_size:,}"), style="dim")
        grid.add_row(head)
        grid.add_row(Text(""))
        grid.add_row(rows_table(rows))
        if pending:
            grid.add_row(Text("\n" + pending, style=f"italic {current().accent}"))
        grid.add_row(Text("\n" + _("unknown and chars/token are measured on the held-out text; the word tokenizer "
                                 "drops whitespace, WordPiece splits on it, Unigram and BPE keep it"), style="dim"))
        self.update(grid)
