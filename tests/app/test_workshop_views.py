"""Issue 22, the lessons and the screen as a workshop sees them: what a step talks about is on
screen at 80x24 (the curve's table, the inspector's byte roles), a lesson's table keeps its
header words, inline code shows its spaces on a background that stands out in every theme."""

from __future__ import annotations

import re

import pytest
from helpers import ROOT, app_on, settle_until, settled
from rich.cells import cell_len
from textual.geometry import Region

from tui.app import BpeApp
from tui.app.screens.analysis import AnalysisScreen
from tui.app.widgets.curve_pane import CurvePane
from tui.lessons.format import parse

LESSONS = ROOT / "assets" / "lessons"


def shown_lines(widget) -> list[str]:
    """The rows a widget draws now, as text (what the terminal shows of it)."""
    strips = widget.render_lines(Region(0, 0, widget.size.width, widget.size.height))
    return [strip.text for strip in strips]


async def lesson_at(pilot, app: BpeApp, step: int) -> None:
    """Press `>` until the lesson is at ``step`` (nothing else: no escape out of a tab)."""
    await settle_until(pilot, lambda: app.lesson is not None and not app.lesson.busy, "the lesson started")
    while app.lesson.index < step:
        await pilot.press("greater_than_sign")
        await settle_until(pilot, lambda: not app.lesson.busy and not app.lab.busy, "the step ran")
    await settled(pilot)


def assert_milestones_shown(lines: list[str], rows: dict[int, int]) -> None:
    text = "\n".join(lines)
    for word in ("merges", "tokens", "B/token"):
        assert word in text, text
    for merges, tokens in rows.items():  # a table row: merges, then tokens
        row = re.compile(rf"(^|[\s▶]){merges} +{tokens:,} ")
        assert any(row.search(line) for line in lines), (merges, text)


# -- 1: the curve tab's table at 80x24 ----------------------------------------------------------

SEED_001 = {0: 3225, 6: 2747, 12: 2506, 24: 2188, 48: 1816}


@pytest.mark.slow
@pytest.mark.parametrize("size", [(80, 24), (100, 30)])
async def test_the_curve_tab_shows_seed_001s_table_beside_the_lesson(size, tmp_path, monkeypatch):
    """Lesson 001 step 8 says the curve tab shows seed 001's table at every row: at 80x24 beside
    the lesson pane it was absent (the table showed only from 88 cells on)."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    app = app_on(None, still=True, autosave=False, lesson=parse(LESSONS / "001-low-lower-lowest.en.md"))
    async with app.run_test(size=size) as pilot:
        await lesson_at(pilot, app, 8)
        assert isinstance(app.screen, AnalysisScreen)
        pane = app.screen.query_one(CurvePane)
        await settle_until(pilot, lambda: pane.curve is not None and pane.curve.current == 48, "the curve at 48")
        assert_milestones_shown(shown_lines(pane), SEED_001)


@pytest.mark.parametrize("size", [(80, 24), (60, 20), (100, 30), (120, 40)])
async def test_the_curve_table_is_whole_at_any_size(size):
    """Without a lesson too: the table beside the plots when there is room, else above them."""
    from tui.model.samples import sample

    app = app_on("qa.txt", sample("qa.txt").config(), still=True, autosave=False)
    async with app.run_test(size=size) as pilot:
        app.lab.go(48)
        await settled(pilot)
        await pilot.press("a")
        await settled(pilot)
        pane = app.screen.query_one(CurvePane)
        await settle_until(pilot, lambda: pane.curve is not None, "the curve drawn")
        lines = shown_lines(pane)
        assert_milestones_shown(lines, SEED_001)
        assert any("corpus tokens" in line for line in lines)  # a plot still shows


# -- 2: a lesson's table keeps its header words ---------------------------------------------------

def test_a_narrow_table_becomes_a_list_that_keeps_every_word():
    from textual.content import Content

    from tui.app.widgets.lesson_pane import table_as_list, table_width

    headers = [Content(h) for h in ("merges", "vocabulary", "tokens")]
    rows = [[Content(str(v)) for v in row] for row in ((0, 32, 3225), (48, 80, 1816))]
    assert table_width(headers, rows) == 8 + 12 + 8 + 4  # as Textual's grid draws it: ┌─merges─┬…
    for width in (16, 24, 30, 60):
        listed = table_as_list(headers, rows, width).plain
        for line in listed.split("\n"):
            assert cell_len(line) <= width, (width, line)
        assert listed.count("▪ ") == len(rows)
        for row in rows:  # each pair whole: "vocabulary: 32", never "vocab…"
            for header, cell in zip(headers, row):
                assert f"{header.plain}: {cell.plain}" in listed, (width, listed)


@pytest.mark.slow
@pytest.mark.parametrize(("size", "as_list"), [((80, 24), True), ((100, 30), True), ((160, 40), False)])
async def test_the_lesson_table_at_each_size(size, as_list, tmp_path, monkeypatch):
    """Lesson 001 step 8's table (merges, vocabulary, tokens) in the pane beside the curve tab:
    a list where the columns do not fit, else Textual's table with every header cell whole."""
    from tui.app.widgets.lesson_pane import LessonTable

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    app = app_on(None, still=True, autosave=False, lesson=parse(LESSONS / "001-low-lower-lowest.en.md"))
    async with app.run_test(size=size) as pilot:
        await lesson_at(pilot, app, 8)
        table = app.screen.query_one(LessonTable)
        await settle_until(pilot, lambda: table.content_region.width > 0, "the table laid out")
        await settled(pilot)
        assert table.has_class("as-list") == as_list
        if as_list:
            text = table.shown_text
            for merges, vocab, tokens in ((0, 32, 3225), (6, 38, 2747), (48, 80, 1816)):
                for pair in (f"merges: {merges}", f"vocabulary: {vocab}", f"tokens: {tokens}"):
                    assert pair in text, text
        else:
            from textual.widgets._markdown import MarkdownTableCellContents

            for cell in table.query(MarkdownTableCellContents):
                assert cell.content_region.width >= cell_len(str(cell.visual)), str(cell.visual)


# -- 4: a step that selects a token shows its bytes' roles ------------------------------------------

def visible_rows(view) -> list[str]:
    top, height = int(view.scroll_y), view.scrollable_content_region.height
    return view.rows[top: top + height]


@pytest.mark.slow
@pytest.mark.parametrize("size", [(80, 24), (100, 30)])
async def test_a_lesson_select_brings_the_byte_roles_into_view(size, tmp_path, monkeypatch):
    """Lesson 002 step 3 says "The inspector shows each byte's role": at 80x24 the role lines
    of [e4 b8] were below the inspector's fold."""
    from tui.app.widgets.inspector import Inspector

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    app = app_on(None, still=True, autosave=False, lesson=parse(LESSONS / "002-tang-poems.en.md"))
    async with app.run_test(size=size) as pilot:
        await lesson_at(pilot, app, 3)
        inspector = app.main_screen.query_one(Inspector)
        assert "[e4 b8]" in inspector.rows[0]
        shown = " ".join(" ".join(visible_rows(inspector)).split())  # a folded role reads on
        assert "lead of 3" in shown and "continuation" in shown, shown
        assert inspector.scrollable_content_region.height < len(inspector.rows) or int(inspector.scroll_y) == 0
        await pilot.press("greater_than_sign")  # the next step selects nothing: the inspector as ever, from the top
        await settle_until(pilot, lambda: not app.lesson.busy and not app.lab.busy, "the step ran")
        await settled(pilot)
        assert int(inspector.scroll_y) == 0


# -- 8: inline code: its edge spaces shown, on a background that stands out ---------------------------

def test_every_theme_gives_inline_code_a_background_that_stands_out():
    """Textual's inline code background (warning at 10 %) was colour 233 on the pane's 16 in a
    256-colour terminal: the palette's code background differs from the pane's by a contrast of
    CODE_CONTRAST in every theme, and its text reads on it (WCAG AA)."""
    from textual.color import Color
    from textual.theme import BUILTIN_THEMES

    from tui.app.theme import CODE_CONTRAST, TEXT_CONTRAST, contrast, palette_for

    for name, theme in BUILTIN_THEMES.items():
        palette = palette_for(theme)
        background, code_bg = Color.parse(palette.background), Color.parse(palette.code_bg)
        assert contrast(code_bg, background) >= CODE_CONTRAST, name
        assert contrast(Color.parse(palette.code_text), code_bg) >= TEXT_CONTRAST, name


def test_code_spans_show_their_edge_spaces_and_the_palettes_colours():
    from textual.content import Content, Span

    from tui.app.theme import current
    from tui.app.widgets.lesson_pane import code_shown

    text = "pairs  k , a b and x"
    content = Content(text, [Span(6, 8, ".code_inline"), Span(11, 14, ".code_inline"), Span(19, 20, ".code_inline")])
    shown = code_shown(content)
    assert shown.plain == "pairs ·k , a b and x"  # " k" leads with a space; "a b" keeps its inner one
    code = [span for span in shown.spans if not isinstance(span.style, str)]
    assert len(code) == 3 and all(span.style.background.hex.lower() == current().code_bg.lower() for span in code)


@pytest.mark.slow
async def test_lesson_000s_space_k_reads_with_a_dot(tmp_path, monkeypatch):
    """Lesson 000 step 1 names the pair `` ` k` ``: the pane shows "·k" on the code background."""
    from tui.app.theme import current
    from tui.app.widgets.lesson_pane import LessonParagraph

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    app = app_on(None, still=True, autosave=False, lesson=parse(LESSONS / "000-die-katze.en.md"))
    async with app.run_test(size=(80, 24)) as pilot:
        await lesson_at(pilot, app, 2)
        texts = [p._content for p in app.main_screen.query(LessonParagraph)]
        spans = [(c.plain[s.start:s.end], s.style) for c in texts for s in c.spans if not isinstance(s.style, str)]
        assert "·k" in [t for t, _style in spans] and not any(t.startswith(" ") or t.endswith(" ") for t, _style in spans), spans
        assert all(style.background.hex.lower() == current().code_bg.lower() for _t, style in spans)
