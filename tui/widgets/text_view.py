"""A scrollable block of styled lines that repaints without a layout pass.

Static.update() re-lays out the whole screen whenever the text's height may change (~20 ms
with these panes); here the scroll extent grows in blocks of lines, so a new text only
repaints.
"""

from __future__ import annotations

from rich.console import Console
from rich.segment import Segment
from rich.text import Text
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

BLOCK = 16
_CONSOLE = Console(width=10_000, legacy_windows=False)


class TextView(ScrollView, can_focus=True):
    """Shows a Rich Text, one line per ``\\n``; lines wider than the pane are cut."""

    DEFAULT_CSS = """
    TextView { height: 1fr; overflow-x: hidden; }
    """

    def __init__(self, text: Text | str = "", **kwargs) -> None:
        super().__init__(**kwargs)
        self._lines: list[list[Segment]] = []
        self.set_text(text)

    def set_text(self, text: Text | str) -> None:
        """Replace the content; scrolls back to the top."""
        if isinstance(text, str):
            text = Text(text)
        self._lines = [list(line.render(_CONSOLE)) for line in text.split("\n", allow_blank=True)]
        self._fit_extent()
        self.scroll_to(y=0, animate=False)
        self.refresh()

    def _fit_extent(self) -> None:
        """The scroll extent: the pane's height while the text fits (no scroll bar), else the
        text's lines rounded up to a block."""
        lines, height = max(len(self._lines), 1), self.size.height
        rows = height if lines <= height else -(-lines // BLOCK) * BLOCK
        if self.virtual_size.height != rows:
            self.virtual_size = Size(0, rows)

    def on_resize(self) -> None:
        self._fit_extent()

    @property
    def max_scroll_y(self) -> int:
        """Scroll no further than the last line's being at the bottom: the extent is rounded up
        to blocks of lines, and End must still show the last line, not the blank rows after it."""
        return max(0, len(self._lines) - self.scrollable_content_region.height)

    @property
    def plain(self) -> str:
        """The text shown, without styles (for tests)."""
        return "\n".join("".join(s.text for s in line) for line in self._lines)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        row = int(self.scroll_y) + y
        if row >= len(self._lines):
            return Strip.blank(width, self.rich_style)
        # Segments without a background would show the screen's, not this pane's.
        strip = Strip(self._lines[row]).apply_style(self.rich_style)
        return strip.crop(0, width).extend_cell_length(width, self.rich_style)
