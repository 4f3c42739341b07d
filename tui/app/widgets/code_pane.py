"""The code beside the merge: the reference trainer's code, the line that decides the step marked
▶ (the stop line that ends training ■), and the step's values below.

The code is :func:`engine.train.reference_excerpt`, reference.py's own lines, so it never drifts
from what the tests run; its comments are said in the UI's language and wrap at the pane's width
under their own indentation, code lines that do not fit end in a reverse-video "…". The values
come from :func:`tui.model.code_step.code_step` and wrap, so a number is never cut.
"""

from __future__ import annotations

from functools import lru_cache

from pygments.lexers.python import PythonLexer
from pygments.token import Comment, Keyword, Name, Number, String, Token
from rich.cells import cell_len
from rich.console import Console, Group
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.geometry import Size
from textual.widgets import Static

from engine.train import reference_excerpt
from tui.app.cut_mark import fit_text
from tui.app.theme import Palette, current
from tui.i18n import N_, _, language
from tui.model.code_step import CodeStep, code_step, comment
from tui.model.workbench import Busy, Workbench

#: The gutter: a mark, the line number in three cells, a space.
GUTTER = 5
#: The parts of the excerpt, as the rule above each says it.
PARTS = {"count_pairs": "count_pairs", "best_pair": "best_pair", "train": N_("train(): apply and the loop")}


def marked_lines(role: str | None) -> list[int]:
    """The reference.py line numbers a role marks (empty for None)."""
    return [line.number for line in reference_excerpt() if role in line.roles and line.number is not None]


class CodeListing(Static):
    """The excerpt, drawn for the pane's width: its height is the number of rows it draws."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.marked: str | None = None
        self.stop: str | None = None

    def mark(self, marked: str | None, stop: str | None) -> None:
        if (marked, stop) != (self.marked, self.stop):
            self.marked, self.stop = marked, stop
            self.refresh(layout=True)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.rows(width))

    def render(self) -> Text:
        return Text("\n").join(self.rows(self.content_region.width or 76))

    def rows(self, width: int) -> list[Text]:
        """Every row drawn at ``width`` cells."""
        return _rows(width, self.marked, self.stop, current(), language())

    def row_of(self, role: str | None, width: int) -> int | None:
        """The first row that shows a line of ``role``."""
        numbers = set(marked_lines(role))
        for index, row in enumerate(_numbers(width, language())):
            if row in numbers:
                return index
        return None


@lru_cache(maxsize=8)
def _numbers(width: int, language: str) -> tuple[int | None, ...]:
    """The reference.py line each row shows (None: a part's rule, a comment's continuation),
    in ``language`` (its comments wrap to other lengths)."""
    numbers: list[int | None] = []
    for line in reference_excerpt():
        numbers.append(line.number)
        if line.comment is not None:
            numbers.extend([None] * (len(_comment_rows(line.text, line.comment, width)) - 1))
    return tuple(numbers)


def _comment_rows(text: str, at: int, width: int) -> list[str]:
    """An own-line comment (``text``, its ``#`` at ``at``) in the UI's language, wrapped under
    its ``#`` to ``width`` cells."""
    indent = text[:at]
    said = comment(text[at:])
    room = max(width - GUTTER - cell_len(indent) - 2, 12)
    wrapped = Text(said[2:]).wrap(_CONSOLE, room)
    return [indent + ("# " if i == 0 else "  ") + row.plain.rstrip() for i, row in enumerate(wrapped)]


_CONSOLE = Console(width=200, legacy_windows=False)


@lru_cache(maxsize=16)
def _rows(width: int, marked: str | None, stop: str | None, palette: Palette, language: str) -> list[Text]:
    """The listing's rows (``language`` keys the cache: another language wraps its comments anew)."""
    marks = set(marked_lines(marked))
    stops = set(marked_lines(stop)) - marks
    rows: list[Text] = []
    for line in reference_excerpt():
        if line.number is None:
            rows.append(_rule(_(PARTS[line.part]), width, palette))
            continue
        style = palette.highlight if line.number in marks else Style(color=palette.accent, bold=True) if line.number in stops else None
        mark = "▶" if line.number in marks else "■" if line.number in stops else " "
        texts = _comment_rows(line.text, line.comment, width) if line.comment is not None else [line.text]
        for i, code in enumerate(texts):
            row = Text()  # no base style: it would colour the whole row
            row.append(mark if i == 0 else " ", style=Style(color=palette.accent, bold=True))
            row.append(f"{line.number:>3} " if i == 0 else "    ", style=Style(color=palette.muted))
            body = _highlighted(code, palette)
            if cell_len(code) > width - GUTTER:
                body = fit_text(code, width - GUTTER)
            if style is not None:
                body.pad_right(max(width - GUTTER - body.cell_len, 0))
                body.stylize(style)
            row.append_text(body)
            rows.append(row)
    return rows


def _rule(title: str, width: int, palette: Palette) -> Text:
    text = Text("─" * 3 + " ", style=palette.muted)
    text.append(title, style=Style(color=palette.muted, italic=True))
    text.append(" " + "─" * max(width - cell_len(title) - 5, 0), style=palette.muted)
    return text


def _kind_style(kind, palette: Palette) -> Style | None:
    """How a kind of Python token is drawn (None: in the pane's text colour)."""
    if kind in Comment:
        return Style(color=palette.muted, italic=True)
    if kind in Keyword or kind in Name.Builtin:
        return Style(color=palette.accent, bold=True)
    if kind in String:
        return Style(color=palette.ok)
    if kind in Number:
        return Style(color=palette.lead)
    if kind in Name.Function:
        return Style(bold=True)
    return None


_LEXER = PythonLexer(stripnl=False, ensurenl=False)


def _highlighted(code: str, palette: Palette) -> Text:
    """One line of Python, coloured from the theme's palette (readable in light themes too)."""
    if code.lstrip().startswith("#"):  # a comment's row, translated and wrapped
        return Text(code, style=Style(color=palette.muted, italic=True))
    text = Text()
    for kind, value in _LEXER.get_tokens(code):
        if kind is Token.Text and value == "\n":
            continue
        text.append(value, style=_kind_style(kind, palette) or "")
    return text


class CodeValues(Static):
    """The step's values under the code: the merge, each function's part in it, the next pass."""

    def show(self, step: CodeStep) -> None:
        self.update(values_table(step))


def values_table(step: CodeStep) -> Group:
    """The merge in a line, then a two-column grid: the code's name, what it did there (wrapped,
    so a number is never cut)."""
    palette = current()
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True, style=Style(color=palette.accent, bold=True))
    grid.add_column(ratio=1)
    if step.pair is not None:
        grid.add_row("count_pairs", _pairs(step.top, palette, chosen=True))
        grid.add_row("best_pair", Text(step.why))
        grid.add_row("apply", Text(_applied(step)))
    if step.then:
        grid.add_row(_("next"), _pairs(step.then, palette, chosen=False))
    if step.stop_text is not None:
        stop = marked_lines(step.stop)
        said = (_("training stops: {reason} (line {n})").format(reason=step.stop_text, n=stop[0]) if stop
                else _("training stops: {reason}").format(reason=step.stop_text))
        grid.add_row("break", Text(said))
    return Group(_headline(step, palette), grid)


def _headline(step: CodeStep, palette: Palette) -> Text:
    line = marked_lines(step.marked or step.stop)
    where = _("line {n}").format(n=line[0]) if line else ""
    if step.pair is None:
        text = _("step {step}: nothing to merge").format(step=step.step)
    elif step.made:
        text = _("merge {step}: {pair} → {id} {token}").format(step=step.step, pair=step.shown_pair, id=step.new_id,
                                                               token=step.token)
    else:
        text = _("next merge, step {step}: {pair} → {id} {token}").format(step=step.step, pair=step.shown_pair,
                                                                          id=step.new_id, token=step.token)
    out = Text("▶ " if step.marked else "■ ", style=Style(color=palette.accent, bold=True))
    out.append(text, style="bold")
    if where:
        decides = _("{line} decides") if step.marked else _("{line} stops training")
        out.append("   " + decides.format(line=where), style=Style(color=palette.accent))
    return out


def _pairs(pairs: tuple[tuple[str, int], ...], palette: Palette, chosen: bool) -> Text:
    text = Text()
    for i, (pair, count) in enumerate(pairs):
        if i:
            text.append("   ")
        style = Style(color=palette.accent, bold=True) if chosen and i == 0 else Style()
        text.append(pair, style=style)
        text.append(f" {count:,}×", style=style + Style(bold=True))
    return text


def _applied(step: CodeStep) -> str:
    if step.after is None:
        return _("new id {id} = {token}; the corpus has {before} tokens now").format(
            id=step.new_id, token=step.token, before=f"{step.before:,}")
    return _("new id {id} = {token}; the corpus: {before} → {after} tokens").format(
        id=step.new_id, token=step.token, before=f"{step.before:,}", after=f"{step.after:,}")


class CodePane(Vertical):
    """The code view: the listing (scrolled to its marked line) and the values under it."""

    #: The step shown (None before the first).
    step: CodeStep | None = None

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="code-scroll"):
            yield CodeListing(id="code-listing")
        yield CodeValues(id="code-values")

    def on_mount(self) -> None:
        self.border_title = _("the code beside the merge")
        self.border_subtitle = _("v: back to the panes")

    @property
    def listing(self) -> CodeListing:
        return self.query_one(CodeListing)

    def show(self, workbench: Workbench | None) -> None:
        """Read the step from the trainer and draw it (keeps what it shows while a batch runs)."""
        if workbench is None:
            return
        try:
            step = code_step(workbench)
        except Busy:
            return
        moved = self.step is None or (step.step, step.made, step.marked, step.stop) != (
            self.step.step, self.step.made, self.step.marked, self.step.stop)
        self.step = step
        self.listing.mark(step.marked, step.stop)
        self.query_one(CodeValues).show(step)
        if moved:  # a refresh at the same step (a run's batch, the autosave) leaves your scrolling alone
            self.call_after_refresh(self.scroll_to_mark)

    def scroll_to_mark(self) -> None:
        """Bring the marked line to the middle of the listing; when training is done, the line
        that stops it (what a step does now)."""
        if self.step is None:
            return
        scroll = self.query_one("#code-scroll", VerticalScroll)
        row = self.listing.row_of(self.step.stop or self.step.marked, self.listing.content_region.width or 76)
        if row is not None:
            scroll.scroll_to(y=max(row - scroll.scrollable_content_region.height // 2, 0), animate=False)
