"""The corpus, segmented into the current tokens: only the visible lines are ever rendered."""

from __future__ import annotations

from bisect import bisect_right

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region, Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from engine.display import hex_bytes, visible_text

from ..workbench import Busy, Workbench

#: Alternating token backgrounds (tokenizer playgrounds colour tokens the same way).
PALETTE = ("#2e3c55", "#4a3a28", "#2d4a3a", "#4a2f48", "#3a3f4f")
HIGHLIGHT = Style(color="#1a1a1a", bgcolor="#e9c46a", bold=True)
UNCOVERED = Style(color="#777777", italic=True)
NEWLINE = Style(color="#8a8f98")


class CorpusView(ScrollView, can_focus=True):
    """Each corpus line as coloured tokens; a token cut by a line end continues on the next.

    Tokens that are not whole UTF-8 characters show as their bytes in brackets (seed 002). The
    workbench is read once per paint for all visible lines, under its lock.
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
        self._spans: dict[int, list[tuple[int, int, int]]] = {}
        self._spans_key: tuple[int, int, int] | None = None

    def attach(self, workbench: Workbench | None) -> None:
        """Show another corpus (or nothing)."""
        self.workbench = workbench
        if workbench is None:
            self.virtual_size = Size(0, 0)
        else:
            corpus = workbench.corpus
            starts = corpus.line_starts
            widest = max((starts[i + 1] - starts[i] for i in range(min(len(starts) - 1, 200_000))), default=0)
            # Bytes of partial characters show as "[e4]": up to 4 cells a byte. Pure ASCII and
            # whole characters take about a cell each.
            hexy = isinstance(corpus.units, bytes) and not corpus.text.isascii()
            self.virtual_size = Size(min(widest * (4 if hexy else 1) + 2, 8000), corpus.line_count)
        self.scroll_to(0, 0, animate=False)
        self.refresh_tokens()

    def refresh_tokens(self) -> None:
        """The segmentation changed (a merge, an undo): repaint what is visible."""
        self._version += 1
        self.refresh()

    def watch_show_ids(self) -> None:
        self.refresh_tokens()

    def watch_highlight(self) -> None:
        self.refresh_tokens()

    def scroll_to_unit(self, unit: int) -> None:
        """Scroll so the line holding corpus unit ``unit`` is near the top."""
        if self.workbench is None:
            return
        line = max(bisect_right(self.workbench.corpus.line_starts, unit) - 1, 0)
        self.scroll_to(y=max(line - 2, 0), animate=False)

    # -- rendering --------------------------------------------------------------------------

    def render_lines(self, crop: Region) -> list[Strip]:
        self._prefetch()
        return super().render_lines(crop)

    def _prefetch(self) -> None:
        if self.workbench is None:
            return
        first = int(self.scroll_y)
        last = first + self.size.height
        key = (self._version, first, last)
        if key != self._spans_key:
            try:
                self._spans = self.workbench.line_spans(first, last)
                self._spans_key = key
            except Busy:
                pass  # training holds the trainer: show the last segmentation read

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        blank = Strip.blank(width, self.rich_style)
        if self.workbench is None:
            return blank
        line = int(self.scroll_y) + y
        if line >= self.workbench.corpus.line_count:
            return blank
        spans = self._spans.get(line)
        if spans is None:
            try:
                spans = self.workbench.line_spans(line, line).get(line, [])
            except Busy:
                return blank
        segments = self._line_segments(line, spans)
        strip = Strip(segments).crop(int(self.scroll_x), int(self.scroll_x) + width)
        return strip.extend_cell_length(width, self.rich_style)

    def _line_segments(self, line: int, spans: list[tuple[int, int, int]]) -> list[Segment]:
        corpus = self.workbench.corpus
        lo, hi = corpus.line_range(line)
        units = corpus.units
        segments: list[Segment] = []
        cursor = lo
        for index, (tid, start, end) in enumerate(spans):
            s, e = max(start, lo), min(end, hi)
            if s > cursor:  # text no chunk covers (a custom pattern skipped it)
                segments.append(Segment(_show(units[cursor:s]), UNCOVERED))
            style = HIGHLIGHT if tid == self.highlight else Style(bgcolor=PALETTE[index % len(PALETTE)])
            if self.show_ids:
                segments.append(Segment(str(tid), style))
                segments.append(Segment(" "))
            else:
                text = _show(units[s:e])
                if text.endswith("↵") and not self.show_ids:
                    segments.append(Segment(text[:-1], style))
                    segments.append(Segment("↵", style + NEWLINE if tid != self.highlight else style))
                else:
                    segments.append(Segment(text, style))
            cursor = e
        if cursor < hi:
            segments.append(Segment(_show(units[cursor:hi]), UNCOVERED))
        return segments


def _show(piece: bytes | str) -> str:
    """A piece of a line for display: text when whole characters, else bytes in brackets."""
    if isinstance(piece, bytes):
        try:
            text = piece.decode("utf-8")
        except UnicodeDecodeError:
            return hex_bytes(piece)
    else:
        text = piece
    return visible_text(text)
