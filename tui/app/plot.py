"""Braille line plots as Rich text (Textual has no plot widget, and bpe-lab adds no plotting library).

Each terminal cell holds a 2×4 grid of braille dots, so a plot ``width`` cells wide and ``height``
cells tall has ``2 * width`` columns and ``4 * height`` rows of dots.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from rich.cells import cell_len
from rich.text import Text

from tui.app.theme import current
from tui.i18n import _

#: The current step's column where the curve does not pass: dashed, unlike the frame's │.
MARK_BAR = "┆"
#: Bit of each dot in a braille cell, by (column, row) inside the cell (Unicode's dot numbering).
_DOT = ((0x01, 0x02, 0x04, 0x40), (0x08, 0x10, 0x20, 0x80))


def _x_fraction(step: int, last: int, log_x: bool) -> float:
    if last <= 0:
        return 0.0
    if log_x:
        return math.log1p(step) / math.log1p(last)
    return step / last


def mark_cell(step: int, last: int, width: int, log_x: bool = False) -> int:
    """The cell column that shows ``step``."""
    dots = 2 * width
    return min(round(_x_fraction(step, last, log_x) * (dots - 1)), dots - 1) // 2


def _step_at(column: int, dots: int, last: int, log_x: bool) -> int:
    frac = column / (dots - 1) if dots > 1 else 0.0
    if log_x:
        return min(last, round(math.expm1(frac * math.log1p(last))))
    return min(last, round(frac * last))


def braille_plot(
    values: Sequence[float],
    width: int,
    height: int,
    *,
    mark: int | None = None,
    log_x: bool = False,
) -> list[Text]:
    """``values[k]`` against k as ``height`` lines of ``width`` cells; the cell column of step
    ``mark`` stands out and steps after it are dimmed (undone merges redo would re-apply).

    Example: ``braille_plot([4, 3, 2, 1], 2, 1)`` -> one line with a falling line of dots.
    """
    width, height = max(width, 1), max(height, 1)
    if not values:
        return [Text(" " * width) for _ in range(height)]
    last = len(values) - 1
    top, bottom = max(values), min(values)
    span = (top - bottom) or 1
    dots_x, dots_y = 2 * width, 4 * height
    cells = [[0] * width for _ in range(height)]
    previous = None
    for column in range(dots_x):
        value = values[_step_at(column, dots_x, last, log_x)]
        row = round((top - value) / span * (dots_y - 1))
        low, high = (row, row) if previous is None else sorted((previous, row))
        for r in range(low, high + 1):  # join to the previous column: no gaps on steep parts
            cells[r // 4][column // 2] |= _DOT[column % 2][r % 4]
        previous = row
    marked = mark_cell(mark, last, width, log_x) if mark is not None else None
    palette = current()
    LINE, MARK, AFTER = palette.bar, f"bold {palette.accent}", palette.muted  # noqa: N806
    lines = []
    for row in cells:
        line = Text()
        for index, bits in enumerate(row):
            if index == marked:
                # An empty cell of the mark's column is a dashed bar (a solid one at the last step
                # read as a right frame the curve broke), except right beside the frame's own bar
                # (step 0), where the x axis's tick alone shows the mark.
                line.append(chr(0x2800 + bits) if bits or index == 0 else MARK_BAR, style=MARK)
            else:
                line.append(chr(0x2800 + bits), style=AFTER if marked is not None and index > marked else LINE)
        lines.append(line)
    return lines


def axis_label(value: float) -> str:
    """Example: ``axis_label(1234567) -> '1,234,567'``; ``axis_label(1.5) -> '1.50'``"""
    if isinstance(value, int) or float(value).is_integer() and abs(value) >= 100:
        return f"{int(value):,}"
    return f"{value:.2f}"


def framed_plot(
    title: str,
    values: Sequence[float],
    width: int,
    height: int,
    *,
    mark: int | None = None,
    log_x: bool = False,
    label_width: int = 0,
) -> Text:
    """A plot with its title, y labels (top and bottom values) and an x axis from 0 to the last step.

    ``label_width`` reserves room for the y labels, so plots stacked together line up.
    """
    labels = [axis_label(max(values)), axis_label(min(values))] if values else ["", ""]
    pad = max(label_width, *(len(s) for s in labels))
    plot_width = max(width - pad - 2, 4)
    lines = braille_plot(values, plot_width, height, mark=mark, log_x=log_x)
    out = Text(title + "\n", style="bold")
    for index, line in enumerate(lines):
        label = labels[0] if index == 0 else labels[1] if index == len(lines) - 1 else ""
        out.append(f"{label:>{pad}} ┤" if label else f"{'':>{pad}} │", style="dim")
        out.append_text(line)
        out.append("\n")
    last = max(len(values) - 1, 0)
    axis = ["─"] * plot_width
    if mark is not None and values:
        axis[mark_cell(mark, last, plot_width, log_x)] = "┴"  # where the current step is
    out.append(f"{'':>{pad}} └" + "".join(axis) + "\n", style="dim")
    scale = _("merges (log scale)") if log_x else _("merges")
    left, right = "0", str(last)
    middle = plot_width - len(left) - len(right)
    for words in (scale, _("log") if log_x else "", ""):  # the longest that fits between the ends
        if cell_len(words) + 2 <= middle or not words:
            break
    room = max(middle - cell_len(words), 0)  # centred in cells: a CJK character takes two
    words = " " * (room // 2) + words + " " * (room - room // 2)
    out.append(f"{'':>{pad}}  {left}{words}{right}", style="dim")
    return out
