"""The compare tab's aligned rows: each tokenizer's pieces on the theme's alternating backgrounds,
its count, and the text aligned by character with the other rows (``│`` where a row cuts, a
blank in the piece's colour where another row cuts and it does not, ``^`` under the cuts they
disagree on), wrapped into bands that fit the pane. The alignment is engine.analysis.alignment's,
the one ``bpe-lab compare-text`` prints; this module only draws it, in cells (CJK and emoji two)."""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size
from rich.console import Group, RenderableType
from rich.text import Text

from engine.analysis import AlignedRow, Alignment
from tui.app.theme import current
from tui.i18n import _
from tui.model.cells import seal

#: The cells a band keeps for the text where it can: a longer name is cut to leave them, but to
#: no fewer than MIN_NAME cells (beside a lesson the pane is 30 to 40 cells wide).
MIN_ROOM, MIN_NAME = 24, 8


def heads(found: Alignment, width: int) -> list[str]:
    """Each aligned row's label, ``name  count``; names cut with … so the text keeps
    :data:`MIN_ROOM` cells of ``width`` (0: any width) where a name keeps :data:`MIN_NAME`."""
    out = []
    for row in found.aligned:
        count = f"  {row.count:,}"
        name = row.name
        most = max(width - MIN_ROOM - 2 - cell_len(count), MIN_NAME) if width else cell_len(name)
        if cell_len(name) > most:
            name = set_cell_size(name, max(most - 1, 1)).rstrip() + "…"
        out.append(name + count)
    return out


def band_line(found: Alignment, row: AlignedRow, band, head: str, label: int) -> Text:
    """One row of one band: its label, then its cells, each character on its piece's colour."""
    palette = current()
    line = Text(no_wrap=True, overflow="crop")
    line.append(head, style="bold")
    line.append(" " * (label - cell_len(head)))
    for column in band:
        shown = found.cell(row, column)
        if column.cut and shown != " ":
            line.append(shown, style="dim")
        else:  # a character, or a blank inside a piece: the piece's colour, so it reads as one
            line.append(seal(shown), style=palette.on_token(row.piece_of(column.at)))
    return line


def aligned_view(found: Alignment, width: int = 0) -> RenderableType:
    """The aligned rows of ``found`` in bands of ``width`` cells (0: one band), and how many of
    the cuts differ."""
    rows = found.aligned
    if not rows:
        return Text("")
    labels = heads(found, width)
    label = max(cell_len(head) for head in labels) + 2
    bands = found.bands(width - label if width else 1 << 30, cell_len)
    parts: list[RenderableType] = []
    for index, band in enumerate(bands):
        if index:
            parts.append(Text(""))
        parts += [band_line(found, row, band, head, label) for row, head in zip(rows, labels)]
        marks = found.marks(band, cell_len)
        if marks and len(rows) > 1:
            parts.append(Text(" " * label + marks, style=f"bold {current().accent}", no_wrap=True))
    if len(rows) > 1:
        parts.append(Text(_("{n} of {total} cuts differ").format(n=found.differing, total=found.cut_count),
                          style="dim"))
    return Group(*parts)
