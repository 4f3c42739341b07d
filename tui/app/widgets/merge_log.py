"""The merge log: step, left, right, new token, count, corpus tokens after (seed 002's log).

A Line API widget over the trainer's history: it keeps no rows of its own, so a jump of
thousands of steps costs nothing here, and only the visible rows are ever read and drawn.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.events import Click
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from engine import Merge
from engine.text import token_display
from tui.app.cut_mark import fit_segments
from tui.app.theme import current
from tui.i18n import N_, _
from tui.model.cells import fit
from tui.model.workbench import Busy, Workbench

#: Column titles; numbers get fixed widths, the three token columns share the rest.
TITLES = (N_("step"), N_("left"), N_("right"), N_("new"), N_("count"), N_("tokens"))
NUMBER_WIDTHS = {0: 5, 4: 7, 5: 8}
ROW_BLOCK = 64
#: A narrow pane (beside a lesson at 80 columns) drops whole columns rather than cut a value:
#: first the corpus length after the merge (the status line shows the current one), then the
#: new token (left and right joined). Step, left, right and count always show.
DROP_ORDER = (5, 3)
#: From this width on (the log without a lesson pane, 80 columns and up) the columns depend on
#: the width alone; a narrower log chooses them by the values on screen.
STEADY_WIDTH = 44
#: The cells a token column is assumed to need before any row is drawn.
MIN_TOKEN = 5
#: Token values up to this many cells ([80 82], Müll) are never cut: a column drops first.
#: Longer ones (a whole word learned late) may end in "…" rather than take the pane.
WHOLE_TOKEN = 7


def column_widths(width: int, numbers: dict[int, int] | None = None,
                  titles: tuple[int, ...] | None = None, tokens: dict[int, int] | None = None) -> list[int]:
    """Widths in cells of the six columns for a pane ``width`` cells wide (one space between
    columns; 0: the column is not shown). ``numbers`` widens a number column whose values need
    more than its default (a count of 1234567 and its tie mark): numbers are never cut, the
    token columns give way. ``tokens``: the cells the token columns' values need (the widest
    drawn); the columns share by need, and when a value of up to :data:`WHOLE_TOKEN` cells or a
    title (``titles``: the cells each takes) would be cut, whole columns drop (:data:`DROP_ORDER`).

    Example: ``column_widths(46) -> [4, 8, 8, 9, 5, 6]``; ``column_widths(25) -> [5, 5, 5, 0, 7, 0]``
    """
    titles = titles or tuple(len(t) for t in TITLES)
    needs = {i: max(titles[i], (tokens or {}).get(i, MIN_TOKEN)) for i in (1, 2, 3)}
    needed = {i: max(titles[i], (numbers or {}).get(i, 0)) for i in NUMBER_WIDTHS}
    roomy = {i: max(w, needed[i]) for i, w in NUMBER_WIDTHS.items()}
    shown = list(range(len(TITLES)))
    for drop in (None, *DROP_ORDER):
        if drop is not None:
            shown.remove(drop)
        columns = [i for i in shown if i not in NUMBER_WIDTHS]
        whole = sum(min(needs[i], max(WHOLE_TOKEN, titles[i])) for i in columns)
        for fixed in (roomy, needed):  # the default widths while there is room, else the values'
            widths = [fixed[i] if i in fixed and i in shown else 0 for i in range(len(TITLES))]
            # a space after each column; a pane that dropped columns uses its last cell too
            room = width - sum(widths) - len(shown) + (drop is not None)
            # A wide pane keeps all six columns while each gets MIN_TOKEN cells and the values on
            # screen fit whole (in even shares, so the columns stay put as the log scrolls, or by
            # need where one is wider: [e4 b8] in a bytes log of Chinese); a narrow one (beside a
            # lesson) takes the most columns whose values on screen fit whole.
            steady = drop is None and width >= STEADY_WIDTH
            # (a share of WHOLE_TOKEN cells where the number columns' spare cells make one: [80 82]
            # in a Chinese log stays whole, on every page alike)
            least = WHOLE_TOKEN if fixed is roomy else MIN_TOKEN
            fits = room // len(columns) >= least and room >= whole if steady else room >= whole
            if fits or (drop, fixed) == (DROP_ORDER[-1], needed):
                by_need = {i: needs[i] for i in columns}  # even shares while every value fits one
                for i, w in share(room, by_need, {i: titles[i] for i in columns}).items():
                    widths[i] = w
                return widths
    raise AssertionError("unreachable")  # the last drop always returns


def share(room: int, needs: dict[int, int], floors: dict[int, int] | None = None) -> dict[int, int]:
    """``room`` cells for the token columns: equal shares while every value fits its share, else
    each column what it needs, as far as the room goes, then the rest to the last column; never
    less than a column's floor (its title) while the room holds the floors.

    Example: ``share(12, {1: 4, 2: 7}) -> {1: 4, 2: 8}``; ``share(12, {1: 9, 2: 9}) -> {1: 6, 2: 6}``
    """
    columns = list(needs)
    floors = floors or dict.fromkeys(columns, 1)
    even = max(room // len(columns), 1)
    widths = dict.fromkeys(columns, even)
    if any(need > even for need in needs.values()):
        widths = {i: max(min(need, even), floors[i]) for i, need in needs.items()}  # the short keep theirs...
        spare = room - sum(widths.values())
        for i in sorted(columns, key=lambda i: needs[i]):  # ...and the rest goes where it is missing
            more = min(max(needs[i] - widths[i], 0), max(spare, 0))
            widths[i] += more
            spare -= more
        while spare < 0 and any(widths[i] > 1 for i in columns):  # a pane too narrow for the titles
            widest = max(columns, key=lambda i: widths[i] - floors[i])
            widths[widest] -= 1
            spare += 1
    widths[columns[-1]] += max(room - sum(widths.values()), 0)
    return widths


class MergeLog(ScrollView, can_focus=True):
    """One row per applied merge. Moving the cursor inspects that row's token; Enter jumps there."""

    BINDINGS = [
        Binding("up", "cursor(-1)", N_("Up"), show=False),
        Binding("down", "cursor(1)", N_("Down"), show=False),
        Binding("pageup", "page(-1)", N_("Page up"), show=False),
        Binding("pagedown", "page(1)", N_("Page down"), show=False),
        Binding("home", "edge(0)", N_("First"), show=False),
        Binding("end", "edge(1)", N_("Last"), show=False),
        Binding("enter", "jump", N_("Jump here"), show=False),
    ]

    DEFAULT_CSS = """
    MergeLog { height: 1fr; }
    """

    cursor_row: reactive[int] = reactive(0)
    """The row under the cursor (0-based: row k shows step k + 1)."""

    @dataclass
    class Inspect(Message):
        """The cursor is on a merge: show the token it made."""

        token_id: int

    @dataclass
    class Jump(Message):
        """Enter on a row: go to that step."""

        step: int

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.workbench: Workbench | None = None
        self._rows = 0
        self._events: dict[int, Merge] = {}  # row -> event, for the rows last drawn
        self._texts: dict[int, tuple[str, ...]] = {}  # row -> its cells, as shown
        self._first: Merge | None = None  # step 1: the largest count and corpus length shown
        self._needs: tuple[tuple, dict[int, int]] = ((), {})  # the shown rows' token widths, and for which rows

    @property
    def row_count(self) -> int:
        return self._rows

    def sync(self, workbench: Workbench | None) -> None:
        """Follow the trainer: as many rows as applied merges; the cursor follows the last row
        when it was there."""
        if workbench is not self.workbench:
            self.workbench = workbench
            self._rows = 0
        if workbench is None:
            self._rows = 0
            self.virtual_size = Size(0, 1)
            self._forget()
            return
        steps = workbench.steps
        # The cursor follows the current step whenever training moved (a step, an undo, a jump,
        # a batch of a run), and stays where the user put it while nothing moves.
        follow = steps != self._rows or self.cursor_row >= self._rows - 1
        if steps != self._rows:
            self._forget(from_row=min(steps, self._rows))
        self._rows = steps
        # Grow the scroll extent in blocks: a new size means a layout pass of the whole screen,
        # which would otherwise be paid on every step. Rows past the last merge are blank.
        visible = self.size.height
        rows = visible if steps + 1 <= visible else -(-(steps + 1) // ROW_BLOCK) * ROW_BLOCK
        if self.virtual_size.height != rows:
            self.virtual_size = Size(0, rows)
        if follow and steps:
            self.move_cursor(row=steps - 1, history=True)
        elif self.cursor_row >= steps:
            self.move_cursor(row=max(steps - 1, 0))
        self.refresh()

    def _forget(self, from_row: int = 0) -> None:
        if from_row == 0:
            self._first = None
        for cache in (self._events, self._texts):
            for row in [r for r in cache if r >= from_row]:
                del cache[row]

    def move_cursor(self, *, row: int, animate: bool = False, inspect: bool = True, history: bool = False) -> None:
        """Put the cursor on a row and keep it in view (``inspect=False``: without posting
        :class:`Inspect`, when the caller already shows the row's token; ``history``: on the
        pane's last line, with as many earlier steps above it as fit, as after a move of training,
        so a step back never leaves the row alone at the top of an empty-looking log).

        Scrolls at once and by force: the scroll extent may have grown in this same call
        (:meth:`sync`), before a layout pass shows the scroll bar that would otherwise permit
        scrolling, and a deferred scroll would read a stale position when called twice.
        """
        row = max(0, min(row, self._rows - 1))
        if inspect:
            self.cursor_row = row
        else:
            self.set_reactive(MergeLog.cursor_row, row)
            self.refresh()
        height = max(self.size.height - 1, 1)  # the header takes one line
        top = int(self.scroll_y)
        if history and top != max(row - height + 1, 0):
            self.scroll_to(y=max(row - height + 1, 0), animate=animate, force=True, immediate=True)
        elif row < top:
            self.scroll_to(y=row, animate=animate, force=True, immediate=True)
        elif row >= top + height:
            self.scroll_to(y=row - height + 1, animate=animate, force=True, immediate=True)

    @property
    def cursor_in_view(self) -> bool:
        """Whether the cursor's row is drawn (below the header, within the pane)."""
        top = int(self.scroll_y)
        return top <= self.cursor_row < top + max(self.size.height - 1, 1)

    def watch_cursor_row(self, old: int, new: int) -> None:
        token = self.token_at(new)
        if token is not None:
            self.post_message(self.Inspect(token))
        self.refresh()

    def token_at(self, row: int) -> int | None:
        """The new token of a row, if there is one (tokens are made in order: base + row)."""
        if self.workbench is None or not 0 <= row < self._rows:
            return None
        return self.workbench.trainer.base_size + row

    # -- keys -------------------------------------------------------------------------------

    def action_cursor(self, delta: int) -> None:
        self.move_cursor(row=self.cursor_row + delta)

    def action_page(self, direction: int) -> None:
        self.move_cursor(row=self.cursor_row + direction * max(self.size.height - 2, 1))

    def action_edge(self, end: int) -> None:
        self.move_cursor(row=self._rows - 1 if end else 0)

    def action_jump(self) -> None:
        if self._rows:
            self.post_message(self.Jump(self.cursor_row + 1))

    def on_click(self, event: Click) -> None:
        if event.y >= 1:
            self.move_cursor(row=int(self.scroll_y) + event.y - 1)

    # -- drawing ----------------------------------------------------------------------------

    def render_lines(self, crop: Region) -> list[Strip]:
        self._prefetch()
        return super().render_lines(crop)

    def _prefetch(self) -> None:
        workbench = self.workbench
        if workbench is None or not self._rows:
            return
        first = int(self.scroll_y)
        last = min(first + self.size.height, self._rows)
        missing = [row for row in range(first, last) if row not in self._texts]
        if not missing:
            return
        try:
            with workbench.reading():
                trainer = workbench.trainer
                if self._first is None:
                    self._first = trainer.events(0, 1)[0]
                events = trainer.events(missing[0], missing[-1] + 1)
                show = lambda i: token_display(trainer.token_bytes(i), space="·")  # noqa: E731
                tie_marks = not trainer.is_replay  # a replay makes the file's merge: no tie decides it
                for event in events:
                    row = event.step - 1
                    a, b = event.pair
                    self._events[row] = event
                    self._texts[row] = (
                        str(event.step), show(a), show(b), token_display(event.token, space="·"),
                        f"{event.count}" + ("✋" if event.manual else "*" if event.tied and tie_marks else ""),
                        str(event.tokens_after),
                    )
        except Busy:
            pass  # training holds the trainer: draw what we have; the next refresh fills in
        if len(self._texts) > 4096:  # keep the cache to a few screens
            keep = range(first - 500, last + 500)
            for cache in (self._events, self._texts):
                for row in [r for r in cache if r not in keep]:
                    del cache[row]

    def token_needs(self) -> dict[int, int]:
        """The cells the widest value of each token column takes in the rows on screen: the
        token columns share by them (a narrow pane keeps [e4 b8] whole where it can)."""
        first = int(self.scroll_y)
        rows = range(first, min(first + self.size.height, self._rows))
        key = (first, rows.stop, self.workbench, sum(row in self._texts for row in rows))
        if self._needs[0] != key:
            texts = [self._texts[row] for row in rows if row in self._texts]
            self._needs = (key, {i: max((cell_len(t[i]) for t in texts), default=0) for i in (1, 2, 3)})
        return self._needs[1]

    def _number_widths(self) -> dict[int, int]:
        """Cells the number columns need: the last step, and step 1's count (with a tie mark)
        and corpus length, the largest a log holds."""
        first = self._first
        if first is None:
            return {0: len(str(self._rows))}
        mark = 2 if self.workbench is not None and self.workbench.manual_seen else 1  # ✋ takes two cells
        return {0: len(str(self._rows)), 4: len(str(first.count)) + mark, 5: len(str(first.tokens_before))}

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        # The columns fit beside the vertical scroll bar (it is drawn over the line's end).
        titles = tuple(cell_len(_(title)) for title in TITLES)
        widths = column_widths(self.scrollable_content_region.width, self._number_widths(), titles, self.token_needs())
        HEADER, CURSOR, ODD, TIE = current().log_styles  # noqa: N806  the theme's, read per line
        MANUAL = Style(color=current().segment, bold=True)  # noqa: N806  a manual merge's mark
        if y == 0:
            cells = [Segment(fit(_(title), w) + " ", HEADER) for title, w in zip(TITLES, widths) if w]
            return Strip(cells).crop(0, width).extend_cell_length(width, HEADER)
        row = int(self.scroll_y) + y - 1
        if row >= self._rows:
            return Strip.blank(width, self.rich_style)
        texts = self._texts.get(row)
        if texts is None:
            return Strip.blank(width, self.rich_style)
        base = CURSOR if row == self.cursor_row else (ODD if row % 2 else self.rich_style)
        segments = []
        for index, (w, text) in enumerate(zip(widths, texts)):
            if not w:
                continue  # a column dropped in a narrow pane
            style = base
            if index == 3:  # the new token
                style = base + Style(bold=True)
            elif index == 4 and text.endswith("*") and row != self.cursor_row:
                style = base + TIE
            elif index == 4 and text.endswith("✋") and row != self.cursor_row:
                style = base + MANUAL
            if index in (1, 2, 3):  # a token: a cut drawn as one (tui.app.cut_mark)
                segments.extend(fit_segments(text, w, style))
                segments.append(Segment(" ", style))
            else:
                segments.append(Segment(fit(text, w) + " ", style))
        return Strip(segments).crop(0, width).extend_cell_length(width, base)
