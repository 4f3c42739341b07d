"""A scrollable block of styled lines that repaints without a layout pass.

Static.update() re-lays out the whole screen whenever the text's height may change (slow with
these panes: docs/benchmarks.md); here the scroll extent grows in blocks of lines, so a new text only
repaints. A line wider than the pane is folded, never cut: its next rows are indented two cells
more than the line itself, so a folded node of a merge tree still reads as one node.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.console import Console
from rich.segment import Segment
from rich.text import Text
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

BLOCK = 16
_CONSOLE = Console(width=10_000, legacy_windows=False)


def fold(line: Text, width: int) -> list[Text]:
    """``line`` in rows of at most ``width`` cells: the first as it starts, the rest indented two
    cells more than its leading spaces (no indent when that would leave too little room). A row
    ends after a space when one falls in its second half (hex bytes stay whole), else mid-word.

    Example: ``fold(Text("  12 abcdefghijkl"), 8)`` -> ``["  12 abc", "    defg", "    hijk", "    l"]``
    """
    if width <= 0 or line.cell_len <= width:
        return [line]
    plain = line.plain
    indent = len(plain) - len(plain.lstrip(" ")) + 2
    if indent > width // 2:
        indent = 0
    cuts, start, used, room = [], 0, 0, width
    for index, char in enumerate(plain):
        cells = cell_len(char)
        if used + cells > room and used:
            space = plain.rfind(" ", start, index)
            cut = space + 1 if space - start > room // 2 else index  # after a space, if not too early
            cuts.append(cut)
            start, used, room = cut, cell_len(plain[cut:index]), width - indent
        used += cells
    first, *rest = line.divide(cuts)
    return [first, *(Text(" " * indent) + part for part in rest)]


class TextView(ScrollView, can_focus=True):
    """Shows a Rich Text, one line per ``\\n``; lines wider than the pane are folded."""

    DEFAULT_CSS = """
    TextView { height: 1fr; overflow-x: hidden; }
    """

    def __init__(self, text: Text | str = "", **kwargs) -> None:
        super().__init__(**kwargs)
        self._lines: list[list[Segment]] = []
        self._text = Text()
        self._folded_at = 0
        self.set_text(text)

    def set_text(self, text: Text | str) -> None:
        """Replace the content; scrolls back to the top."""
        if isinstance(text, str):
            text = Text(text)
        self._text = text
        self._reveal: tuple[int, int] | None = None
        self._lay_out()
        self.scroll_to(y=0, animate=False)
        self.refresh()

    def _fold_width(self) -> int:
        """Cells a row may take: the content width less a vertical scroll bar's, whether it shows
        or not (so folding never depends on, or toggles, the scroll bar)."""
        return max(self.content_size.width - self.styles.scrollbar_size_vertical, 0)

    def _lay_out(self) -> None:
        width = self._folded_at = self._fold_width()
        self._lines = [
            list(row.render(_CONSOLE))
            for line in self._text.split("\n", allow_blank=True)
            for row in fold(line, width)
        ]
        self._fit_extent()

    def _fit_extent(self) -> None:
        """The scroll extent: the pane's height while the text fits (no scroll bar), else the
        text's lines rounded up to a block."""
        lines, height = max(len(self._lines), 1), self.size.height
        rows = height if lines <= height else -(-lines // BLOCK) * BLOCK
        if self.virtual_size.height != rows:
            self.virtual_size = Size(0, rows)

    def on_resize(self) -> None:
        if self._fold_width() != self._folded_at:
            self._lay_out()
            if self._reveal is not None:  # folded again: the revealed lines moved
                self.reveal_lines(*self._reveal)
            self.refresh()
        else:
            self._fit_extent()
            if self._reveal is not None:
                self.reveal_lines(*self._reveal)

    def reveal_lines(self, first: int, last: int) -> None:
        """Scroll as little as needed for the text's lines ``first`` to ``last`` (before folding)
        to be in view, the first of them at least (a block taller than the pane starts at the top).
        Folding follows the pane's width: once laid out at a new width, the lines are found again."""
        self._reveal = (first, last)
        rows = self._rows_of(first, last)
        if rows is None:
            return
        top, bottom = rows
        height = self.scrollable_content_region.height
        if not height:
            return
        y = int(self.scroll_y)
        if bottom >= y + height:
            y = bottom - height + 1
        y = min(y, top)
        self.scroll_to(y=max(y, 0), animate=False)

    def _rows_of(self, first: int, last: int) -> tuple[int, int] | None:
        """The rows (after folding) where text lines ``first`` and ``last`` start and end."""
        width, row, found = self._folded_at, 0, []
        for index, line in enumerate(self._text.split("\n", allow_blank=True)):
            rows = len(fold(line, width))
            if index == first:
                found.append(row)
            if index == last:
                found.append(row + rows - 1)
                break
            row += rows
        return (found[0], found[-1]) if len(found) == 2 else None

    @property
    def max_scroll_y(self) -> int:
        """Scroll no further than the last line's being at the bottom: the extent is rounded up
        to blocks of lines, and End must still show the last line, not the blank rows after it."""
        return max(0, len(self._lines) - self.scrollable_content_region.height)

    @property
    def plain(self) -> str:
        """The text shown, without styles and before folding (for tests)."""
        return self._text.plain

    @property
    def rows(self) -> list[str]:
        """The rows as laid out (long lines folded), without styles (for tests)."""
        return ["".join(segment.text for segment in line) for line in self._lines]

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        row = int(self.scroll_y) + y
        if row >= len(self._lines):
            return Strip.blank(width, self.rich_style)
        # Segments without a background would show the screen's, not this pane's.
        strip = Strip(self._lines[row]).apply_style(self.rich_style)
        return strip.crop(0, width).extend_cell_length(width, self.rich_style)
