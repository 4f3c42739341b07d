"""The lesson pane: beside the others, the current step's title, "step k/n", its narrative
(Textual's Markdown widget, scrolling), its claims (✓ or ✗ with expected and actual) and what
its actions said, and a line when the learner has explored away from the lesson's state.

It draws a :class:`tui.model.driver.LessonView` (plain data the player makes), never the player."""

from __future__ import annotations

import re

from rich.cells import cell_len
from rich.text import Text
from textual.color import Color
from textual.containers import Vertical, VerticalScroll
from textual.content import Content, Span
from textual.style import Style
from textual.visual import Visual
from textual.widgets import Markdown, Static

from engine.text import inert
from tui.app.theme import current
from tui.app.widgets.line_break import BrokenLines, break_lines
from tui.i18n import _, ngettext
from tui.model.driver import LessonView

#: A quoted string in a claim (``"·low"``, with backslash escapes).
QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')


def quoted_edges(claim: str) -> str:
    """A claim with the spaces at the edges of its quoted strings shown as ``·``, as the panes
    show tokens: ``merges == ["low", " low"]`` wrapped inside ``" low"`` and read ``"`` then
    ``low"`` on the next line; ``"·low"`` is one word, and reads like the merge log.

    Example: ``quoted_edges('merges == ["lo", " lowe"]') -> 'merges == ["lo", "·lowe"]'``
    """
    def edges(match: re.Match[str]) -> str:
        inner = match.group()[1:-1]
        core = inner.strip(" ")
        if not core:
            return '"' + "·" * len(inner) + '"'
        lead = len(inner) - len(inner.lstrip(" "))
        trail = len(inner) - len(inner.rstrip(" "))
        return '"' + "·" * lead + core + "·" * trail + '"'

    return QUOTED.sub(edges, claim)


def claims_text(view: LessonView) -> Text:
    """The step's verdicts, failed actions and notes, one per line (plain text, never markup:
    claims quote "[e4 b8]"; a quoted string's edge spaces as ``·``: :func:`quoted_edges`)."""
    text = Text()
    for claim in view.claims:
        if claim.ok:
            text.append("✓ ", style="bold green")
            text.append(inert(quoted_edges(claim.text)) + "\n")
        else:
            text.append("✗ ", style="bold red")
            text.append(inert(quoted_edges(claim.text)) + "\n", style="red")
            text.append("  " + inert(_("actual: {actual}").format(actual=claim.detail)) + "\n", style="red")
    for failure in view.failures:
        text.append(inert(failure) + "\n", style="bold red")
    for note in view.notes:
        text.append(inert(note) + "\n", style="yellow")
    return text


def banner_text(view: LessonView) -> Text | None:
    """The line above the step's text: running, explored, or the lesson's note (introduction)."""
    if view.busy:
        return Text(_("running the step…"), style="italic")
    if view.drifted:
        return Text(_("you explored: press > to return to the lesson"), style="bold yellow")
    if view.note and view.step_index == 0:
        return Text(inert(view.note), style="italic")
    return None


#: Textual's Markdown marks inline code with this span style (its component class).
CODE_SPAN = ".code_inline"


def code_shown(content: Content) -> Content:
    """``content`` with its inline code as the panes show tokens: a leading or trailing space
    as ``·`` (`` ` k` `` reads "·k", not " k"), on the theme's code background (a contrast the
    palette guarantees in every theme, tui/app/theme.py)."""
    code = [span for span in content.spans if span.style == CODE_SPAN]
    if not code:
        return content
    chars = list(content.plain)
    for span in code:
        start, end = span.start, span.end
        while start < end and chars[start] == " ":
            chars[start] = "·"
            start += 1
        while end > start and chars[end - 1] == " ":
            chars[end - 1] = "·"
            end -= 1
    palette = current()
    style = Style(background=Color.parse(palette.code_bg), foreground=Color.parse(palette.code_text))
    spans = [Span(span.start, span.end, style) if span.style == CODE_SPAN else span for span in content.spans]
    return Content("".join(chars), spans)


class _Breaking:
    """A Markdown block whose text wraps between Chinese characters too (:mod:`.line_break`),
    not only at spaces, and whose inline code shows its edge spaces (:func:`code_shown`)."""

    def set_content(self, content: Content) -> None:
        content = code_shown(content)
        self._content = content
        self.update(BrokenLines(content))


# Textual's own block classes, reached through the public table of them.
class LessonParagraph(_Breaking, Markdown.BLOCKS["paragraph_open"]):
    pass


class LessonH2(_Breaking, Markdown.BLOCKS["h2"]):
    pass


class LessonH3(_Breaking, Markdown.BLOCKS["h3"]):
    pass


def table_width(headers: list[Content], rows: list[list[Content]]) -> int:
    """Cells Textual's Markdown table needs to show every cell whole: each column its widest
    cell and a cell of padding each side, and a rule before, between and after the columns."""
    widths = [cell_len(header.plain) for header in headers]
    for row in rows:
        for index, cell in enumerate(row[: len(widths)]):
            widths[index] = max(widths[index], cell_len(cell.plain))
    return sum(width + 2 for width in widths) + len(widths) + 1


def table_as_list(headers: list[Content], rows: list[list[Content]], width: int) -> Content:
    """A table too wide for ``width`` cells as a list: one item a row, ``▪ header: value · …``,
    filled to the width with a hanging indent and broken only between a header and the next
    (a pair wider than a line breaks as prose does). Every header word stays."""
    lines: list[Content] = []
    for row in rows:
        pieces = [Content.assemble((header.plain, "bold"), ": ", cell) for header, cell in zip(headers, row)]
        line, used = Content("▪ "), 2
        for piece in pieces:
            cells = cell_len(piece.plain)
            if used > 2 and used + 3 + cells > width:
                lines.append(line)
                line, used = Content("  "), 2
            elif used > 2:
                line, used = line + Content(" · "), used + 3
            if used + cells > width:  # wider than a line by itself
                broken = break_lines(piece, max(width - 2, 1)).split("\n")
                for part in broken[:-1]:
                    lines.append(line + part)
                    line = Content("  ")
                piece, cells = broken[-1], cell_len(broken[-1].plain)
            line, used = line + piece, used + cells
        lines.append(line)
    return Content("\n").join(lines)


class LessonTable(Markdown.BLOCKS["table_open"]):
    """A lesson's table: as Textual draws it when every cell fits the pane, else as a list (at
    80x24 the pane is 24 cells wide: Textual's table cut its headers to ``me…``/``vocab…``)."""

    DEFAULT_CSS = """
    LessonTable > .lesson-table-list { height: auto; display: none; }
    LessonTable.as-list > .lesson-table-list { display: block; }
    LessonTable.as-list > MarkdownTableContent { display: none; }
    """

    def compose(self):
        yield from super().compose()
        yield Static("", classes="lesson-table-list")

    def on_mount(self) -> None:
        self._fit()

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        width = self.content_region.width
        if not width:
            return
        narrow = table_width(self._headers, self._rows) > width
        self.set_class(narrow, "as-list")
        if narrow and getattr(self, "_listed_at", None) != width:
            self._listed_at = width
            self.query_one(".lesson-table-list", Static).update(table_as_list(self._headers, self._rows, width))

    @property
    def shown_text(self) -> str:
        """The table as shown: the list's text, or the cells in order (for tests)."""
        if self.has_class("as-list"):
            return str(self.query_one(".lesson-table-list", Static).visual)
        return "\n".join(" | ".join(c.plain for c in row) for row in [self._headers, *self._rows])


class LessonMarkdown(Markdown):
    """The lesson's prose: Textual's Markdown, with Chinese lines filled to the pane's width and
    tables that never cut a word."""

    BLOCKS = {**Markdown.BLOCKS, "paragraph_open": LessonParagraph, "h2": LessonH2, "h3": LessonH3,
              "table_open": LessonTable}


def lesson_keys() -> list[str]:
    """The pane's key line, one item a key, named as the footer and the help name them."""
    return [_("> next step"), _("< previous step"), _("L again"), _("E end"), _("J K scroll")]


def fill_items(items: list[str], width: int, gap: int = 2) -> list[str]:
    """``items`` in lines of at most ``width`` cells, ``gap`` spaces apart, a line breaking only
    between two items (an item wider than a line has one to itself)."""
    lines: list[str] = []
    for item in items:
        if lines and cell_len(lines[-1]) + gap + cell_len(item) <= width:
            lines[-1] += " " * gap + item
        else:
            lines.append(item)
    return lines


class KeyItems(Visual):
    """The key line: wrapped between keys, never inside "< previous step"."""

    def __init__(self, items: list[str]) -> None:
        self.items = items

    def __str__(self) -> str:
        return "  ".join(self.items)

    def _content(self, width: int) -> Content:
        return Content("\n".join(fill_items(self.items, max(width, 1))))

    def render_strips(self, width, height, style, options):
        return self._content(width).render_strips(width, height, style, options)

    def get_optimal_width(self, rules, container_width: int) -> int:
        return cell_len(str(self))

    def get_minimal_width(self, rules) -> int:
        return max((cell_len(item) for item in self.items), default=0)

    def get_height(self, rules, width: int) -> int:
        return len(fill_items(self.items, max(width, 1)))


#: The border's cells around its title: "╭─ " and " ─╮".
TITLE_FRAME = 6


class LessonPane(Vertical):
    """Shown with a lesson open (``l`` hides and shows it)."""

    DEFAULT_CSS = """
    LessonPane { display: none; }
    LessonPane.shown { display: block; }
    """

    def compose(self):
        yield Static("", id="lesson-banner")
        with VerticalScroll(id="lesson-scroll"):
            yield LessonMarkdown("", id="lesson-text")
            yield Static("", id="lesson-claims")
        yield Static(KeyItems(lesson_keys()), id="lesson-keys")

    def on_resize(self) -> None:
        self._title()

    def _title(self) -> None:
        """The border's title: "step k/n", or on the introduction "lesson: TITLE" where it fits
        whole in the border, else "lesson · n steps" (the title is the heading just below it:
        never cut to "lesson: Tang poems: h…")."""
        view = getattr(self, "_view", None)
        if view is None:
            return
        if view.step_index == 0:
            title = inert(_("lesson: {title}").format(title=view.title))
            if cell_len(title) > max(self.outer_size.width - TITLE_FRAME, 0):
                title = ngettext("lesson · {n} step", "lesson · {n} steps", view.step_count).format(n=view.step_count)
        else:
            title = _("step {k}/{n}").format(k=view.step_index, n=view.step_count)
        # Text, not a str: a str border title is markup ("[/x]" raised MarkupError, "[@click=...]" acted)
        self.border_title = Text(title)

    def show(self, view: LessonView) -> None:
        """Draw ``view`` (plain data from the player)."""
        self._view = view
        self._title()
        banner = self.query_one("#lesson-banner", Static)
        line = banner_text(view)
        banner.update(line or "")
        banner.display = line is not None
        markdown = inert(f"## {view.step_title}\n\n{view.prose}")  # the prose's escapes shown, never sent to the terminal
        text = self.query_one("#lesson-text", Markdown)
        if getattr(self, "_markdown", None) != (markdown, current().name):  # a new theme: code recoloured
            self._markdown = (markdown, current().name)
            text.update(markdown)
            self.query_one("#lesson-scroll", VerticalScroll).scroll_home(animate=False)
        claims = Content.from_rich_text(claims_text(view))  # made inert in claims_text
        self.query_one("#lesson-claims", Static).update(BrokenLines(claims, hang=2))  # a claim's second line under its first's text
