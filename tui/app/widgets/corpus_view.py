"""The corpus, segmented into the current tokens: only the visible rows are ever rendered.

By default each line wraps at the pane's width, measured in terminal cells (CJK and emoji take
two), and a row breaks between tokens: a token is split only when it is wider than the pane.
``w`` (:meth:`CorpusView.action_toggle_wrap`) shows one row per line instead, scrolled sideways.

Lines are cut into pieces of at most ``WRAP_UNITS`` (wrapping) or ``ROW_UNITS`` (not wrapping)
corpus units, so a 50 MB file on one line costs no more than any other. Where a piece's rows
are depends on the tokens, which change with every merge, so the scroll extent is an estimate
per piece (from its length, computed once per width) and only the pieces on screen are wrapped
for real, cached until the next merge or resize. The screen shows the real rows from where the
estimate puts the scroll position, and is bottom-aligned when that would run past the end, so
the last line is always reachable.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from itertools import accumulate

from rich.cells import cell_len, get_character_cell_size
from rich.markup import escape
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region, Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from engine.text import mark_edges, token_display, visible_text
from tui.app.theme import current
from tui.i18n import _
from tui.model.cells import seal
from tui.model.workbench import Busy, Workbench

#: Corpus units on one row at most when not wrapping (a longer line continues on the next row).
ROW_UNITS = 512
#: Corpus units in one piece of a line when wrapping (a row also breaks at a piece's end).
WRAP_UNITS = 2048
#: How far past the screen (in corpus units) ``show_last_merge`` looks for the merged token.
FOLLOW_SCAN = 65536

#: Added to a whole piece's colours (tokens of a rank file that no merge makes).
_UNDERLINE = Style(underline=True)

#: A token as drawn: its segments and their width in cells.
Group = tuple[list[Segment], int]


class CorpusView(ScrollView, can_focus=True):
    """Each corpus line as coloured tokens, wrapped at the pane's width (or not: ``wrap``).

    Tokens that are not whole UTF-8 characters show as their bytes in brackets (seed 002). The
    workbench is read once per paint for the pieces on screen, under its lock.
    """

    DEFAULT_CSS = """
    CorpusView { height: 1fr; }
    """

    show_ids: reactive[bool] = reactive(False)
    """Show token ids instead of text."""
    highlight: reactive[int | None] = reactive(None)
    """Token id whose occurrences stand out (the last merged token)."""
    wrap: reactive[bool] = reactive(True)
    """Wrap lines at the pane's width (else one row per line, scrolled sideways)."""
    follow: reactive[bool] = reactive(True)
    """Keep the last merged token in view: :meth:`show_last_merge` scrolls to it when it is not.
    On from the start, so a class watching a run sees each merged token (`f` turns it off)."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.workbench: Workbench | None = None
        self._version = 0
        self._width = 0  # the wrap width the layout was made for (0: not wrapping)
        self._lo = array("q", [0])  # first unit of each piece; one extra: the corpus's end
        self._est = array("q", [0])  # estimated first row of each piece; one extra: the total
        self._wrapped: dict[int, list[Strip]] = {}  # piece -> its rows, for the key below
        self._wrapped_key: tuple | None = None
        self._view: list[tuple[int, Strip]] = []  # the rows on screen: (piece, row)
        self._view_key: tuple | None = None
        self._measured: tuple | None = None  # (corpus, show_ids) -> what _measure found
        #: What a piece's rows show that the border's subtitle explains (a replay's whole pieces,
        #: byte fallback); filled as the rows are made.
        self._kinds: dict[int, frozenset[str]] = {}
        self._drawn: set[str] = set()

    def attach(self, workbench: Workbench | None) -> None:
        """Show another corpus (or nothing)."""
        self.workbench = workbench
        self._layout_rows()
        self.scroll_to(0, 0, animate=False)
        self.refresh_tokens()

    def _wrap_width(self) -> int:
        """Cells in a wrapped row: the pane's width less the vertical scroll bar's, whether or
        not it shows yet (it appears once the rows are laid out, without a resize)."""
        if not self.wrap:
            return 0
        return max(self.size.width - self.styles.scrollbar_size_vertical, 8)

    def _layout_rows(self) -> None:
        """Cut lines into pieces and estimate each piece's rows (once per width and mode)."""
        self._view_key = None
        self._wrapped_key = None
        if self.workbench is None:
            self._lo, self._est = array("q", [0]), array("q", [0])
            self.virtual_size = Size(0, 0)
            return
        width = self._width = self._wrap_width()
        corpus = self.workbench.corpus
        starts = corpus.line_starts
        size = ROW_UNITS if not width else WRAP_UNITS
        scaled, widest, scale, hexy = self._measure()
        if widest <= size:  # every line is one piece: one cheap pass (a resize stays cheap on a large corpus)
            lo = array("q", starts)
            per = [(c + width - 1) // width or 1 for c in scaled] if width else [1] * len(scaled)
        else:
            lo, per = array("q"), []
            for a, b in zip(starts, starts[1:]):
                for piece in range(a, max(b, a + 1), size):
                    lo.append(piece)
                    cells = int(min(size, b - piece) * scale)
                    per.append(max(1, -(-cells // width)) if width else 1)
            lo.append(starts[-1] if len(starts) else 0)
        est = array("q", [0])
        est.extend(accumulate(per))
        self._lo, self._est = lo, est
        cells = min(widest, size) * (4 if hexy else 1) * scale
        self.virtual_size = Size(0 if width else int(cells) + 2, max(est[-1], 1))

    def _measure(self) -> tuple[list[int], int, float, bool]:
        """Each line's estimated width in cells, the longest line in units, cells per unit, and
        whether partial characters show as bytes; once per corpus and ``show_ids``.

        Cells per unit, roughly and for the whole corpus: a byte or an ASCII character takes
        one, a CJK character two; ids about four ("101 "). The screen shows the real rows.
        """
        corpus = self.workbench.corpus
        key = (id(corpus), self.show_ids)
        if self._measured is not None and self._measured[0] == key:
            return self._measured[1]
        starts = corpus.line_starts
        ascii_text = corpus.text.isascii()
        chars = isinstance(corpus.units, str)
        scale = 4.0 if self.show_ids else 1.0
        if chars and not ascii_text and corpus.text:
            scale *= 1 + (len(corpus.text.encode("utf-8", "surrogateescape")) - len(corpus.text)) / (2 * len(corpus.text))
        lengths = [b - a for a, b in zip(starts, starts[1:])]
        scaled = lengths if scale == 1.0 else [int(n * scale) for n in lengths]
        measured = (scaled, max(lengths, default=0), scale, not chars and not ascii_text)
        self._measured = (key, measured)
        return measured

    def on_resize(self) -> None:
        if self.workbench is not None and self._wrap_width() != self._width:
            self._layout_rows()
            self.refresh()

    def refresh_tokens(self) -> None:
        """The segmentation changed (a merge, an undo): repaint what is visible."""
        self._version += 1
        self.refresh()

    def watch_show_ids(self) -> None:
        if self.workbench is not None:
            self._layout_rows()
        self.refresh_tokens()

    def watch_highlight(self) -> None:
        self.refresh_tokens()

    def watch_wrap(self) -> None:
        """Keep the text at the top of the screen in view when the layout changes."""
        top = self.top_unit()
        if self.workbench is not None:
            self._layout_rows()
            self.scroll_to(x=0, animate=False)
            if top is not None:
                self.scroll_to_unit(top, margin=0)
        self.refresh_tokens()

    def action_toggle_wrap(self) -> None:
        """Wrap lines at the pane's width, or show one row per line (scrolled sideways)."""
        self.wrap = not self.wrap

    # -- where things are -------------------------------------------------------------------

    def piece_range(self, piece: int) -> tuple[int, int]:
        """Corpus units [start, end) of a piece, its ends moved to whole UTF-8 characters."""
        lo = self._lo
        return self._whole(lo[piece]), self._whole(lo[piece + 1])

    def _whole(self, unit: int) -> int:
        """Move a piece boundary back to the start of a UTF-8 character (bytes base), so a row
        never cuts a character in half (its bytes would show in brackets)."""
        units = self.workbench.corpus.units
        if isinstance(units, bytes):
            for _ in range(3):
                if unit <= 0 or unit >= len(units) or not 0x80 <= units[unit] < 0xC0:
                    break
                unit -= 1
        return unit

    def visible_units(self) -> tuple[int, int] | None:
        """Corpus units [start, end) of the pieces on screen (as last drawn)."""
        if not self._view:
            return None
        return self.piece_range(self._view[0][0])[0], self.piece_range(self._view[-1][0])[1]

    def top_unit(self) -> int | None:
        """The first corpus unit of the top row's piece (as last drawn)."""
        return self.piece_range(self._view[0][0])[0] if self._view else None

    def scroll_to_unit(self, unit: int, margin: int = 2) -> None:
        """Scroll so the row holding corpus unit ``unit`` is near the top (``margin`` rows of its
        piece above it, when it has them)."""
        if self.workbench is None or len(self._lo) < 2:
            return
        piece = min(max(bisect_right(self._lo, unit) - 1, 0), len(self._lo) - 2)
        est = self._est[piece + 1] - self._est[piece]
        try:
            with self.workbench.reading():
                self._fresh_cache()
                rows = self._rows(piece)
                lo, _ = self.piece_range(piece)
                unit = max(unit, lo)
                before = sum(w for _, w in self._groups(lo, unit, self.workbench.trainer.spans(lo, unit)))
        except Busy:
            a, b = self._lo[piece], self._lo[piece + 1]
            row = self._est[piece] + (est * (unit - a) // (b - a) if b > a else 0)
            self.scroll_to(y=max(row - margin, 0), animate=False)
            return
        target = end = 0  # the row the unit's token starts on
        for target, strip in enumerate(rows):  # noqa: B007 - target is read after the loop
            end += strip.cell_length
            if end > before:
                break
        # the scroll position whose first row (see _prefetch) is at most ``margin`` rows above
        k = max(target - margin, 0) * est // len(rows)
        self.scroll_to(y=self._est[piece] + k, animate=False)
        if not self._width and not self.scroll_x <= before < self.scroll_x + self.scrollable_content_region.width:
            self.scroll_to(x=max(before - 4, 0), animate=False)  # one row per line: sideways too

    def show_last_merge(self) -> None:
        """With :attr:`follow` on, bring an occurrence of the highlighted (last merged) token into
        view if none is on screen: the next one after the screen, else the first in the corpus.
        The screen calls this after each merge; it reads at most ``FOLLOW_SCAN`` units twice."""
        token, workbench = self.highlight, self.workbench
        if not self.follow or token is None or workbench is None:
            return
        shown = self.visible_units()
        start, end = shown if shown is not None else (0, 0)
        total = self._lo[-1]
        try:
            with workbench.reading():
                spans = workbench.trainer.spans(start, end)
                if any(tid == token for tid, _, _ in spans):
                    return
                for lo, hi in ((end, min(end + FOLLOW_SCAN, total)), (0, min(start, FOLLOW_SCAN))):
                    found = next((s for tid, s, _ in workbench.trainer.spans(lo, hi) if tid == token), None)
                    if found is not None:
                        break
        except Busy:
            return
        if found is not None:
            self.scroll_to_unit(found)

    # -- rendering --------------------------------------------------------------------------

    def render_lines(self, crop: Region) -> list[Strip]:
        self._prefetch()
        return super().render_lines(crop)

    def _rows(self, piece: int) -> list[Strip]:
        """A piece's rows (one when not wrapping), made from the trainer's tokens (held)."""
        rows = self._wrapped.get(piece)
        if rows is None:
            lo, hi = self.piece_range(piece)
            self._drawn = set()
            groups = self._groups(lo, hi, self.workbench.trainer.spans(lo, hi)) if hi > lo else []
            rows = self._wrapped[piece] = wrap_groups(groups, self._width)
            self._kinds[piece] = frozenset(self._drawn)
        return rows

    def _explain(self) -> None:
        """The border's subtitle says what the rows on screen mark: underlined whole pieces,
        bytes in brackets that a character falls back to."""
        kinds = set().union(*(self._kinds.get(piece, frozenset()) for piece in {p for p, _ in self._view}))
        said = []
        if "whole" in kinds:
            said.append(_("underlined: found whole, no merge makes it"))
        if "byte" in kinds:
            said.append(_("[e5]: a byte of a character not in the vocabulary"))
        self.border_subtitle = escape(" · ".join(said))  # "[e5]" is text, not markup

    def _fresh_cache(self) -> None:
        """Forget the wrapped pieces when the tokens or the width have changed since."""
        key = (self._version, self._width)
        if key != self._wrapped_key:
            self._wrapped, self._wrapped_key, self._kinds = {}, key, {}

    def _prefetch(self) -> None:
        """Lay out the rows on screen: real rows from where the estimate puts the scroll
        position, bottom-aligned when they would run past the corpus's end."""
        if self.workbench is None:
            self._view = []
            return
        height = self.scrollable_content_region.height  # without a horizontal scroll bar
        first = int(self.scroll_y)
        key = (self._version, self._width, first, height, self.max_scroll_y)
        if key == self._view_key:
            return
        self._fresh_cache()
        pieces = len(self._lo) - 1
        est = self._est
        piece = min(bisect_right(est, first) - 1, pieces - 1)
        try:
            with self.workbench.reading():
                if piece < 0:
                    self._view, self._view_key = [], key
                    return
                rows = self._rows(piece)
                span = est[piece + 1] - est[piece]
                skip = min((first - est[piece]) * len(rows) // max(span, 1), len(rows) - 1)
                view = [(piece, row) for row in rows[skip:]]
                p = piece + 1
                while len(view) < height and p < pieces:
                    view += [(p, row) for row in self._rows(p)]
                    p += 1
                # Scrolled to the end, or the rows would run out before the screen does: the
                # screen ends with the corpus (the estimate may be short of the real rows).
                at_end = first >= self.max_scroll_y and first > 0
                if at_end or (len(view) < height and (piece > 0 or skip > 0)):
                    view = []
                    p = pieces - 1
                    while len(view) < height and p >= 0:
                        view[:0] = [(p, row) for row in self._rows(p)]
                        p -= 1
                    view = view[-height:]
        except Busy:
            return  # training holds the trainer: show the last segmentation read
        self._view, self._view_key = view[:height], key
        if self.workbench.script is not None:
            self._explain()
        if len(self._wrapped) > 4 * max(height, 16):  # keep the cache to a few screens
            keep = {p for p, _ in self._view}
            self._wrapped = {p: r for p, r in self._wrapped.items() if p in keep}

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        if y >= len(self._view):
            return Strip.blank(width, self.rich_style)
        strip = self._view[y][1]
        scroll_x = int(self.scroll_x) if not self._width else 0
        return strip.crop(scroll_x, scroll_x + width).extend_cell_length(width, self.rich_style)

    def _groups(self, lo: int, hi: int, spans: list[tuple[int, int, int]]) -> list[Group]:
        """Units [lo, hi) as drawn: one group of segments per token, with its width in cells."""
        units = self.workbench.corpus.units
        highlight, show_ids = self.highlight, self.show_ids  # reactives: read once, not per token
        # Alternating token backgrounds from the theme (tokenizer playgrounds colour tokens the
        # same way); a screen holds thousands of tokens, so their styles are made once a theme.
        palette = current()
        token_styles, newline_styles = palette.token_styles, palette.newline_styles
        highlight_style, uncovered = palette.highlight, palette.uncovered
        colours = len(token_styles)
        groups: list[Group] = []
        append = groups.append
        cursor = lo
        script = self.workbench.script
        fallback = script is not None and script.byte_fallback  # ids 1-256 are bytes (engine.Trainer.spans)
        for index, (tid, start, end) in enumerate(spans):
            s, e = max(start, lo), min(end, hi)
            if s > cursor:  # text no chunk covers (a custom pattern skipped it; a table's counts)
                text = self._uncovered(units[cursor:s])
                append(([Segment(text, uncovered)], cell_len(text)))
            lit = tid == highlight
            style = highlight_style if lit else token_styles[index % colours]
            if tid < 0:  # a whole piece of a replayed rank file, found whole: underlined, as in the tokenize pane
                style = style + _UNDERLINE
                self._drawn.add("whole")
            if show_ids:
                text = self.workbench.id_text(tid)  # a replayed file's id
                append(([Segment(text, style), Segment(" ")], len(text) + 1))
            elif fallback and 0 < tid <= 256 and (e - s != 1 or len(units[s].encode("utf-8", "surrogateescape")) > 1):
                text = self.workbench.token_name(tid)  # a character's byte, as sentencepiece spells it: [e5]
                self._drawn.add("byte")
                append(([Segment(text, style)], cell_len(text)))
            else:
                text = _show(units[s:e])
                if text.endswith("↵"):
                    nl = style if lit else newline_styles[index % colours]
                    append(([Segment(text[:-1], style), Segment("↵", nl)], cell_len(text)))
                else:
                    append(([Segment(text, style)], cell_len(text)))
            cursor = e
        if cursor < hi:
            text = self._uncovered(units[cursor:hi])
            append(([Segment(text, uncovered)], cell_len(text)))
        return groups

    def _uncovered(self, piece: bytes | str) -> str:
        """Text no chunk covers, as drawn: a chunk-count table's listing ends each row with a
        newline of its own, which is no part of the chunk and is not shown."""
        text = _show(piece)
        if self.workbench.corpus.table is not None and text.endswith("↵"):
            return text[:-1]
        return text


def wrap_groups(groups: list[Group], width: int) -> list[Strip]:
    """Tokens into rows of at most ``width`` cells, broken between tokens, before a token that
    starts with a space where one lies in the row's last third (so words stay whole, as in word
    wrap); a token wider than a row is broken between its characters (a combining mark stays with
    its letter). ``width`` 0: one row, however wide.

    Example: tokens "ab", "cd", "e" at width 4 -> rows "abcd", "e"; "abcdef" at 4 -> "abcd", "ef".
    """
    if not width:
        return [Strip([seg for segs, _ in groups for seg in segs], sum(w for _, w in groups))]
    rows: list[Strip] = []
    row: list[Segment] = []
    cells = 0
    #: Where, in the row so far, a token starting with a space begins (segment index, cells before
    #: it): a full row breaks at the last of these, like word wrap, unless that leaves it short.
    words: list[tuple[int, int]] = []
    for segments, w in groups:
        if cells and cells + w > width:
            cut = next(((i, c) for i, c in reversed(words) if c * 3 >= width * 2), None)
            if cut is not None and w <= width and cells - cut[1] + w <= width:
                rows.append(Strip(row[:cut[0]], cut[1]))  # the word that does not fit moves down
                row, cells = row[cut[0]:], cells - cut[1]
                words = []
            else:
                rows.append(Strip(row, cells))
                row, cells, words = [], 0, []
        if w <= width:
            if cells and segments and segments[0].text[:1].isspace():
                words.append((len(row), cells))
            row.extend(segments)
            cells += w
            continue
        words = []
        for segment in segments:  # wider than the pane: character by character
            text, style = segment.text, segment.style
            start = 0
            for index, char in enumerate(text):
                size = get_character_cell_size(char)
                if cells and cells + size > width:
                    if index > start:
                        row.append(Segment(text[start:index], style))
                    rows.append(Strip(row, cells))
                    row, cells, start = [], 0, index
                cells += size
            if len(text) > start:
                row.append(Segment(text[start:], style))
    if row or not rows:
        rows.append(Strip(row, cells))
    return rows


def _show(piece: bytes | str) -> str:
    """A piece of a row for display, as the merge log and the inspector write it (engine's
    token_display): text when whole characters, only the cut bytes in brackets (``M[c3]``), and
    what draws nothing at its edges named (``⟨ZWJ⟩``)."""
    if isinstance(piece, bytes):
        return seal(token_display(piece))  # a token ending in a joiner must not join the next one
    return seal(visible_text(mark_edges(piece)))
