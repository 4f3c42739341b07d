"""The lesson pane beside the others at 80x24, 100x30 and 120x40: every pane keeps a readable
width and no value is cut (measured in cells); Chinese prose fills its lines (it breaks between
characters, not only at spaces); the quiz beside a lesson covers whole panes.

:func:`assert_panes_whole` is also run on every step of every bundled lesson, in the test that
plays them to their end (tests/app/test_lessons_bundled.py)."""

from __future__ import annotations

import pytest
from helpers import ROOT, app_on, settled
from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len
from textual.content import Content
from textual.widgets import Input

from tui.app import BpeApp
from tui.app.widgets.candidates import Candidates
from tui.app.widgets.lesson_pane import LessonPane, LessonParagraph
from tui.app.widgets.line_break import BrokenLines, break_lines, break_offsets, opportunities
from tui.app.widgets.merge_log import STEADY_WIDTH, TITLES, WHOLE_TOKEN, MergeLog, column_widths
from tui.i18n import _, set_language
from tui.lessons.format import parse

LESSONS = ROOT / "assets" / "lessons"
#: The fewest cells each pane's text gets beside a lesson (inside its border and padding).
READABLE = {"#corpus": 24, "#log": 24, "#candidates": 18, "#inspector": 18, "#tokenize": 18, "#lesson": 24}


# -- line breaking ------------------------------------------------------------------------------

def pieces(text: str, offsets: list[int]) -> list[str]:
    ends = [0, *offsets, len(text)]
    return [text[a:b] for a, b in zip(ends, ends[1:])]


def first_piece(line: str) -> str:
    """What a line starts with that cannot be broken: a word, or a character with the
    punctuation that sticks to it."""
    stripped = line.lstrip()
    found = opportunities(stripped)
    return stripped[: found[0]] if found else stripped


def assert_filled(lines: list[str], width: int) -> None:
    """``lines`` (pieces of one text, each with the spaces a break took at its end): none is
    wider than ``width`` cells, and none ends early: the next line's first piece would not have
    fitted after it (the ragged lines of word-only wrapping)."""
    for line, after in zip(lines, lines[1:]):
        assert cell_len(line.rstrip()) <= width, line
        head = first_piece(after).rstrip()
        assert cell_len(line) + cell_len(head) > width, (line, after, width)
    assert cell_len(lines[-1].rstrip()) <= width


TANG = ("和种子一样：以字节为基础，不做预分词，整段文字是一个序列。一个汉字在 UTF-8 里是三个字节——"
        "种子的例子：`月` → e6 9c 88。")


@pytest.mark.parametrize("width", [20, 24, 26, 30, 40])
def test_chinese_breaks_between_characters_and_fills_its_lines(width):
    text = TANG.replace("`", "")
    lines = pieces(text, break_offsets(text, width))
    assert "".join(lines) == text
    assert_filled(lines, width)
    for line in lines[1:]:  # closing punctuation never starts a line
        assert line[0] not in "，。：、）—", lines
    assert "UTF-8" in "".join(lines) and not any(line.endswith("UTF-") for line in lines)


def test_the_seed_example_that_wrapped_badly():
    """The lesson's sentence at the pane's width (24 cells at 80x24): word wrapping left
    ``一个汉字在`` alone and pushed ``里是三个字节——种子的例子`` to the next line."""
    lines = break_lines(Content("一个序列。一个汉字在 UTF-8 里是三个字节——种子的例子：月 → e6 9c 88。"), 24).plain.split("\n")
    assert lines == ["一个序列。一个汉字在", "UTF-8 里是三个字节——种子", "的例子：月 → e6 9c 88。"]


def test_latin_words_stay_whole_and_german_compounds_break_at_their_hyphen():
    text = "Die Gleichstandsregel entscheidet über Fortsetzungs-Bytes"
    lines = pieces(text, break_offsets(text, 17))
    assert [line.rstrip() for line in lines] == ["Die", "Gleichstandsregel", "entscheidet über", "Fortsetzungs-", "Bytes"]
    assert_filled(lines, 17)


def test_a_hanging_indent_and_a_word_longer_than_the_line():
    assert break_lines(Content("✓ merges == [\"lo\", \"low\"]"), 14, hang=2).plain == '✓ merges ==\n  ["lo",\n  "low"]'
    assert break_lines(Content("abcdefghij"), 4).plain == "abcd\nefgh\nij"


@given(st.text(alphabet="ab 汉字，。（）-Z\n", max_size=60), st.integers(min_value=2, max_value=30))
def test_broken_lines_keep_every_character_and_fit(text, width):
    out = break_lines(Content(text), width).plain
    assert out.replace("\n", "").replace(" ", "") == text.replace("\n", "").replace(" ", "")
    for line in out.split("\n"):
        assert cell_len(line) <= width


# -- the merge log's columns ---------------------------------------------------------------------

@pytest.mark.parametrize("width", range(22, 61))
def test_log_columns_fill_the_pane_and_drop_rather_than_cut(width):
    titles = tuple(cell_len(t) for t in TITLES)
    for needs in ({}, {1: 4, 2: 7, 3: 7}, {1: 2, 2: 2, 3: 4}):
        widths = column_widths(width, {0: 2, 4: 3, 5: 4}, titles, needs)
        shown = [w for w in widths if w]
        assert sum(shown) + len(shown) - (len(shown) < len(widths)) == width  # (a narrow one: no space after the last)
        assert all(widths[i] for i in (0, 1, 2, 4))  # step, left, right and count always show
        assert all(w >= t for w, t in zip(widths, titles) if w), widths  # no title is cut
        if width >= 25:  # beside a lesson or not: values up to WHOLE_TOKEN cells are whole
            assert all(widths[i] >= min(needs.get(i, 0), WHOLE_TOKEN) for i in (1, 2, 3) if widths[i]), widths
        if width >= STEADY_WIDTH:  # without a lesson, 80 columns and up: six columns, the tokens' in even
            # shares, whatever the values on screen (the columns stay put as the log scrolls)
            assert all(widths) and widths[1] == widths[2] and 0 <= widths[3] - widths[1] < 3, widths
            assert widths == column_widths(width, {0: 2, 4: 3, 5: 4}, titles), widths
    assert column_widths(46) == [4, 8, 8, 9, 5, 6]  # a wide pane: every column, each token column 7 cells or more
    # A Chinese log at 80 columns: [80 82] (7 cells) whole, the number columns giving way.
    chinese = column_widths(46, {0: 1, 4: 5, 5: 6}, (2, 2, 2, 2, 4, 6), {1: 4, 2: 7, 3: 7})
    assert all(chinese) and min(chinese[1:4]) >= 7 and chinese[4] >= 5 and chinese[5] >= 6, chinese


# -- in the app ----------------------------------------------------------------------------------

def inner_width(widget) -> int:
    return widget.content_region.width


def assert_panes_whole(app: BpeApp) -> None:
    """Measured in cells on the main screen with its lesson pane: every pane at least
    :data:`READABLE` wide; the merge log shows step, left, right and count, every shown title
    whole and every number whole, token values up to :data:`WHOLE_TOKEN` cells whole, nothing
    under its scroll bar; no candidate row wraps; the tokenize placeholder fits; the lesson's
    lines fit its pane."""
    screen = app.main_screen
    lesson = screen.query_one(LessonPane)
    assert lesson.display and lesson.has_class("shown")
    for selector, least in READABLE.items():
        assert inner_width(screen.query_one(selector)) >= least, (selector, screen.size)
    log = screen.query_one(MergeLog)
    log._prefetch()
    inner = log.scrollable_content_region.width
    titles = tuple(cell_len(_(t)) for t in TITLES)
    widths = column_widths(inner, log._number_widths(), titles, log.token_needs())
    assert all(widths[i] for i in (0, 1, 2, 4)), widths
    header = log.render_line(0).text
    assert cell_len(header.rstrip()) <= inner, header
    for title, w in zip(TITLES, widths):
        assert (_(title) in header) == bool(w), (title, header)
    for y in range(1, log.size.height):
        row = int(log.scroll_y) + y - 1
        texts = log._texts.get(row)
        if texts is None:
            continue
        line = log.render_line(y).text
        assert cell_len(line.rstrip()) <= inner, line
        for index, (w, value) in enumerate(zip(widths, texts)):
            if w and (index in (0, 4, 5) or cell_len(value) <= WHOLE_TOKEN):
                assert value in line, (value, line)  # whole, never "…"
    candidates = screen.query_one(Candidates)
    for text_line in candidates.render().plain.split("\n"):  # a pair's row never wraps (a sentence may)
        if text_line[:2] in ("▶ ", "= ", "  "):
            assert cell_len(text_line) <= inner_width(candidates), text_line
    field = screen.query_one("#tokenize-input", Input)
    assert cell_len(field.placeholder) <= inner_width(field), field.placeholder
    claims = lesson.query_one("#lesson-claims").visual
    assert isinstance(claims, BrokenLines)
    width = inner_width(lesson.query_one("#lesson-claims"))
    assert all(cell_len(line) <= width for line in claims.lines(width).plain.split("\n"))
    for paragraph in lesson.query(LessonParagraph):
        visual, width = paragraph.visual, inner_width(paragraph)
        assert isinstance(visual, BrokenLines)  # wrapped by line_break, between Chinese characters too
        assert all(cell_len(line) <= width for line in visual.lines(width).plain.split("\n"))
        text = visual.content.plain
        assert_filled(pieces(text, break_offsets(text, width)), width)


async def settle(app: BpeApp, pilot) -> None:
    while app.lesson is None:
        await pilot.pause()
    await app.lesson.settled.wait()
    await pilot.pause()
    await pilot.pause()


async def play(app: BpeApp, pilot, steps: int) -> None:
    await settle(app, pilot)
    for _step in range(steps):
        while app.screen is not app.main_screen:  # an analysis tab the step opened
            await pilot.press("escape")
            await pilot.pause()
        await pilot.press("greater_than_sign")
        await settle(app, pilot)


@pytest.mark.slow
@pytest.mark.parametrize("size", [(80, 24), (100, 30), (120, 40)])
@pytest.mark.parametrize("lang", ["en", "de", "zh"])
async def test_tang_poems_lesson_keeps_every_value_whole(size, lang, tmp_path, monkeypatch):
    """Lesson 002 in each language (the UI too) at each size: its byte pairs ([80 82]) are the
    widest values a merge log holds in a lesson; the panes are measured at every step."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    set_language(lang)
    app = app_on(None, autosave=False, lesson=parse(LESSONS / f"002-tang-poems.{lang}.md"))
    app.animation_level = "none"
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        for _step in range(app.lesson.count):
            assert_panes_whole(app)
            if app.lesson.index == app.lesson.count - 1:
                break
            await play(app, pilot, 1)


@pytest.mark.slow
async def test_the_quiz_beside_a_lesson_covers_whole_panes(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    app = app_on(None, autosave=False, lesson=parse(LESSONS / "001-low-lower-lowest.en.md"))
    app.animation_level = "none"
    async with app.run_test(size=(80, 24)) as pilot:
        await play(app, pilot, 1)
        left = app.main_screen.query_one("#left").region
        await pilot.press("p")
        await pilot.pause()
        panel = app.screen.query_one("#quiz-panel").region
        lesson = app.main_screen.query_one("#lesson").region
        assert panel.x == left.x == 0 and panel.right == lesson.x  # every pane but the lesson, whole
        await pilot.press("1")
        await pilot.pause()
        await pilot.press("escape")
        await settled(pilot)
        assert app.screen is app.main_screen
        await settled(pilot)
        assert_panes_whole(app)  # the candidates drawn under the quiz were redrawn for their width


@pytest.mark.slow
def test_snapshot_chinese_lesson_80x24(snap_compare, tmp_path, monkeypatch):
    """Lesson 002 in Chinese, the UI too, at its step on lead and continuation bytes: the prose
    fills its lines, the merge log shows [e4 b8] whole, the claims wrap under their text."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    set_language("zh")
    app = app_on(None, autosave=False, lesson=parse(LESSONS / "002-tang-poems.zh.md"))
    app.animation_level = "none"

    async def run_before(pilot) -> None:
        await play(app, pilot, 3)

    assert snap_compare(app, run_before=run_before, terminal_size=(80, 24))


@pytest.mark.parametrize(("lang", "env", "expected"), [("zh", "C.UTF-8", "zh"), (None, "de_DE.UTF-8", "de"), ("en", "zh_CN.UTF-8", "en")])
def test_bpe_lab_lesson_speaks_the_lessons_language(lang, env, expected, monkeypatch):
    """`bpe-lab lesson 002 --lang zh` shows a Chinese UI around the Chinese lesson (it was
    English: the lesson command never set a language); without --lang, the locale's."""
    import io

    from tui.app.launch import start_lesson as start_app
    from tui.i18n import language

    monkeypatch.setenv("LC_ALL", env)
    started = []
    monkeypatch.setattr(BpeApp, "run", lambda self: started.append((self.lesson_lang, language())))
    assert start_app("002", lang, None, io.StringIO()) == 0
    assert started == [(lang, expected)]


def test_a_claims_quoted_edge_spaces_show_as_dots_so_it_wraps_between_strings():
    """Lesson 001, step 5 at 80×24: `merges == ["lo", "low", " low", " lowe"]` wrapped inside
    `" lowe"` and read `"` at a line's end, `lowe"]` on the next. Quoted strings' edge spaces
    show as `·`, as the merge log shows the tokens; spaces inside a typed text stay."""
    from rich.console import Console

    from tui.app.widgets.lesson_pane import claims_text, quoted_edges
    from tui.model.driver import ClaimLine, LessonView

    assert quoted_edges('merges == ["lo", "low", " low", " lowe"]') == 'merges == ["lo", "low", "·low", "·lowe"]'
    assert quoted_edges('pieces "low lower lowest" == ["low", " lowe"]') == 'pieces "low lower lowest" == ["low", "·lowe"]'
    assert quoted_edges('id " " == 32') == 'id "·" == 32'
    view = LessonView("t", 1, 2, "s", "", claims=(ClaimLine(True, 'merges == ["lo", "low", " low", " lowe"]'),))
    console = Console(width=24, color_system=None)
    lines = ["".join(s.text for s in line).rstrip() for line in console.render_lines(claims_text(view), pad=False)]
    assert not any(line.endswith('"') and line.count('"') % 2 for line in lines), lines
    assert "".join(lines).replace(" ", "") == '✓merges==["lo","low","·low","·lowe"]'
