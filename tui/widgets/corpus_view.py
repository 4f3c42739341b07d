"""The corpus, segmented into the current tokens: only the visible rows are ever rendered.

A line is a row, scrolled sideways when it is wide; a line longer than ``ROW_UNITS`` corpus
units (bytes or characters) wraps into rows of that many, so a 50 MB file on one line scrolls
like any other: a row is found by a bisect over the rows each line starts, and only the units
on screen are read from the trainer.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region, Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from engine import hex_bytes, visible_text

from ..workbench import Busy, Workbench

#: Alternating token backgrounds (tokenizer playgrounds colour tokens the same way).
PALETTE = ("#2e3c55", "#4a3a28", "#2d4a3a", "#4a2f48", "#3a3f4f")
HIGHLIGHT = Style(color="#1a1a1a", bgcolor="#e9c46a", bold=True)
UNCOVERED = Style(color="#777777", italic=True)
NEWLINE = Style(color="#8a8f98")
#: A screen holds thousands of tokens (each byte is one at step 0): their styles are made once.
TOKEN_STYLES = tuple(Style(bgcolor=colour) for colour in PALETTE)
NEWLINE_STYLES = tuple(style + NEWLINE for style in TOKEN_STYLES)
#: Corpus units on one row at most (a longer line wraps).
ROW_UNITS = 512


class CorpusView(ScrollView, can_focus=True):
    """Each corpus line as coloured tokens; a token cut by a row's end continues on the next.

    Tokens that are not whole UTF-8 characters show as their bytes in brackets (seed 002). The
    workbench is read once per paint for all visible rows, under its lock.
    """

    DEFAULT_CSS = """
    CorpusView { height: 1fr; }
    """

    show_ids: reactive[bool] = reactive(False)
    """Show token ids instead of text."""
    highlight: reactive[int | None] = reactive(None)
    """Token id whose occurrences stand out (the last merged token)."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.workbench: Workbench | None = None
        self._version = 0
        self._row_width = 0  # corpus units per row
        self._row_starts = array("q", [0])  # first row of each line; one extra: the total
        self._spans: dict[int, list[tuple[int, int, int]]] = {}  # row -> spans read last
        self._spans_key: tuple[int, int, int] | None = None

    def attach(self, workbench: Workbench | None) -> None:
        """Show another corpus (or nothing)."""
        self.workbench = workbench
        self._row_width = 0
        self._layout_rows()
        self.scroll_to(0, 0, animate=False)
        self.refresh_tokens()

    def _layout_rows(self) -> None:
        """Which row each line starts on (lines of more than ROW_UNITS units take several)."""
        if self.workbench is None:
            self._row_starts = array("q", [0])
            self.virtual_size = Size(0, 0)
            return
        width = self._row_width = ROW_UNITS
        corpus = self.workbench.corpus
        starts = corpus.line_starts
        rows = array("q", [0])
        total = widest = 0
        for i in range(len(starts) - 1):
            length = starts[i + 1] - starts[i]
            total += max(1, -(-length // width))
            widest = max(widest, min(length, width))
            rows.append(total)
        self._row_starts = rows
        # Bytes of partial characters show as "[e4]": up to 4 cells a byte; whole characters
        # and ASCII take about a cell each.
        hexy = isinstance(corpus.units, bytes) and not corpus.text.isascii()
        self.virtual_size = Size(widest * (4 if hexy else 1) + 2, max(total, 1))
        self._spans_key = None

    def refresh_tokens(self) -> None:
        """The segmentation changed (a merge, an undo): repaint what is visible."""
        self._version += 1
        self.refresh()

    def watch_show_ids(self) -> None:
        self.refresh_tokens()

    def watch_highlight(self) -> None:
        self.refresh_tokens()

    def row_range(self, row: int) -> tuple[int, int] | None:
        """Corpus units [start, end) shown on a row, or None past the end."""
        rows = self._row_starts
        if self.workbench is None or row >= rows[-1]:
            return None
        line = bisect_right(rows, row) - 1
        lo, hi = self.workbench.corpus.line_range(line)
        start = lo + (row - rows[line]) * self._row_width
        end = min(hi, start + self._row_width)
        return self._whole(start, lo), self._whole(end, lo)

    def _whole(self, unit: int, floor: int) -> int:
        """Move a row boundary back to the start of a UTF-8 character (bytes base), so a row
        never cuts a character in half (its bytes would show in brackets)."""
        units = self.workbench.corpus.units
        if isinstance(units, bytes):
            for _ in range(3):
                if unit <= floor or unit >= len(units) or not 0x80 <= units[unit] < 0xC0:
                    break
                unit -= 1
        return unit

    def scroll_to_unit(self, unit: int) -> None:
        """Scroll so the row holding corpus unit ``unit`` is near the top."""
        if self.workbench is None or not self._row_width:
            return
        starts = self.workbench.corpus.line_starts
        line = max(bisect_right(starts, unit) - 1, 0)
        row = self._row_starts[min(line, len(self._row_starts) - 1)] + (unit - starts[line]) // self._row_width
        self.scroll_to(y=max(row - 2, 0), animate=False)

    # -- rendering --------------------------------------------------------------------------

    def render_lines(self, crop: Region) -> list[Strip]:
        self._prefetch()
        return super().render_lines(crop)

    def _prefetch(self) -> None:
        """Read the tokens of every visible row at once: the rows are one stretch of corpus."""
        if self.workbench is None:
            return
        first = int(self.scroll_y)
        last = first + self.size.height
        key = (self._version, first, last)
        if key == self._spans_key:
            return
        ranges = {row: self.row_range(row) for row in range(first, last)}
        ranges = {row: r for row, r in ranges.items() if r is not None}
        if not ranges:
            return
        lo = min(r[0] for r in ranges.values())
        hi = max(r[1] for r in ranges.values())
        try:
            with self.workbench.reading():
                spans = self.workbench.trainer.spans(lo, hi)
        except Busy:
            return  # training holds the trainer: show the last segmentation read
        self._spans = {row: [s for s in spans if s[2] > a and s[1] < b] for row, (a, b) in ranges.items()}
        self._spans_key = key

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        blank = Strip.blank(width, self.rich_style)
        row = int(self.scroll_y) + y
        bounds = self.row_range(row)
        spans = self._spans.get(row)
        if bounds is None or spans is None:
            return blank
        segments = self._row_segments(bounds, spans)
        scroll_x = int(self.scroll_x)
        return Strip(segments).crop(scroll_x, scroll_x + width).extend_cell_length(width, self.rich_style)

    def _row_segments(self, bounds: tuple[int, int], spans: list[tuple[int, int, int]]) -> list[Segment]:
        lo, hi = bounds
        units = self.workbench.corpus.units
        highlight, show_ids = self.highlight, self.show_ids  # reactives: read once, not per token
        colours = len(TOKEN_STYLES)
        segments: list[Segment] = []
        append = segments.append
        cursor = lo
        for index, (tid, start, end) in enumerate(spans):
            s, e = max(start, lo), min(end, hi)
            if s > cursor:  # text no chunk covers (a custom pattern skipped it)
                append(Segment(_show(units[cursor:s]), UNCOVERED))
            lit = tid == highlight
            style = HIGHLIGHT if lit else TOKEN_STYLES[index % colours]
            if show_ids:
                append(Segment(self.workbench.id_text(tid), style))  # a replayed file's id
                append(Segment(" "))
            else:
                text = _show(units[s:e])
                if text.endswith("↵"):
                    append(Segment(text[:-1], style))
                    append(Segment("↵", style if lit else NEWLINE_STYLES[index % colours]))
                else:
                    append(Segment(text, style))
            cursor = e
        if cursor < hi:
            segments.append(Segment(_show(units[cursor:hi]), UNCOVERED))
        return segments


def _show(piece: bytes | str) -> str:
    """A piece of a row for display: text when whole characters, else bytes in brackets."""
    if isinstance(piece, bytes):
        try:
            text = piece.decode("utf-8")
        except UnicodeDecodeError:
            return hex_bytes(piece)
    else:
        text = piece
    return visible_text(text)
