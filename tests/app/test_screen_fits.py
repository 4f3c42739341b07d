"""Issue 13, points 10 and 11: nothing is cut off at 80×24 or 100×30 (the footer, placeholders and
hints), and the inspector keeps its room and scrolls to the last line of a deep merge tree."""

from __future__ import annotations

from functools import partial

import pytest
from helpers import app_on, settle_until, settled
from rich.cells import cell_len
from textual.widgets import Input
from textual.widgets._footer import FooterKey

from engine import TrainConfig
from engine.corpus.reading import decode_corpus
from tui.app import BpeApp
from tui.app.keys import FOOTER_PRIORITY, KEYS
from tui.app.widgets.footer import FittingFooter
from tui.app.widgets.inspector import Inspector
from tui.app.widgets.tokenize_pane import TokenizePane
from tui.model.workbench import LoadedCorpus, Workbench

SIZES = [(80, 24), (100, 30)]


make_app = partial(app_on, autosave=False, still=True)


def footer_keys(app: BpeApp) -> tuple[list[FooterKey], FooterKey]:
    keys = list(app.screen.query(FooterKey))
    palette = [key for key in keys if key.has_class("-command-palette")]
    assert len(palette) == 1
    return [key for key in keys if key not in palette], palette[0]


def footer_shown(app: BpeApp) -> bool:
    """The screen's footer is composed for the terminal's width and laid out: every key it shows
    has its place (the footer recomposes after the screen's bindings are known, a few refreshes
    after the screen appears)."""
    keys = list(app.screen.query(FooterKey))
    return any(key.has_class("-command-palette") for key in keys) and all(key.region.width for key in keys)


async def settle_footer(pilot) -> None:
    await settle_until(pilot, lambda: footer_shown(pilot.app), "the footer laid out")


def assert_footer_fits(app: BpeApp, width: int) -> list[str]:
    """Every shown key lies wholly inside the screen, left of ``^p palette``; their labels."""
    keys, palette = footer_keys(app)
    assert keys
    assert palette.region.right <= width
    assert cell_len(palette.render().plain.strip()) <= palette.region.width
    for key in keys:
        label = key.render().plain
        assert key.region.width >= cell_len(label), label  # the label is whole
        assert key.region.right <= palette.region.x, label  # and ends before the palette's border
    return [key.description for key in keys]


def test_every_shown_key_has_a_footer_priority():
    shown = {key.action for key in KEYS if key.show}
    assert shown == set(FOOTER_PRIORITY)


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
async def test_the_footer_fits_the_screen(size):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle_footer(pilot)
        shown = assert_footer_fits(app, size[0])
        assert {"Run/Pause", "Step", "Undo", "Help", "Quit"} <= set(shown)
        # the most important keys are kept: what shows is a prefix of the priority list
        actions = {key.action for key in footer_keys(app)[0]}
        available = [a for a in FOOTER_PRIORITY if app.check_action(a.removeprefix("app."), ()) is not False]
        assert actions == set(available[: len(actions)])  # (the lesson's keys show only with a lesson open)
        await pilot.press("a")  # the analysis screen's footer too (its Back key first)
        await settle_footer(pilot)
        assert "Back" in assert_footer_fits(app, size[0])


@pytest.mark.slow
async def test_the_footer_refits_when_the_terminal_narrows():
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await settle_footer(pilot)
        wide = assert_footer_fits(app, 120)
        footer = app.screen.query_one(FittingFooter)
        await pilot.resize_terminal(80, 24)
        await settle_until(pilot, lambda: footer._fitted_for == 80 and footer_shown(app), "the footer refitted")
        narrow = assert_footer_fits(app, 80)
        assert len(narrow) < len(wide)


def assert_placeholders_fit(screen) -> int:
    """Every visible input's placeholder fits its content width; how many were checked."""
    checked = 0
    for box in screen.query(Input):
        if not box.placeholder or not box.region.width:
            continue
        assert cell_len(box.placeholder) <= box.content_size.width, (box.id, box.placeholder, box.content_size)
        checked += 1
    return checked


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
async def test_placeholders_and_hints_fit_their_panes(size):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        inspector = app.screen.query_one(Inspector)
        assert inspector.plain == Inspector.HINT  # step 0: nothing to inspect yet
        for line in Inspector.HINT.splitlines():
            assert cell_len(line) <= inspector.scrollable_content_region.width, line
        assert assert_placeholders_fit(app.screen) == 1  # the tokenize input
        for key in ("g", "slash", "o", "comma"):  # go to, find, open, settings
            await pilot.press(key)
            await settled(pilot)
            assert assert_placeholders_fit(app.screen) >= 1, key
            await pilot.press("escape")
            await pilot.pause()
        await pilot.press("a", "3")
        await settled(pilot)
        assert assert_placeholders_fit(app.screen) >= 1  # the held-out setting
        await pilot.press("5")
        await settled(pilot)
        assert assert_placeholders_fit(app.screen) >= 2  # the compare text and tokenizer


@pytest.mark.slow
async def test_a_long_tokenize_text_leaves_the_inspector_its_room():
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("right_curly_bracket")
        await pilot.pause()
        app.screen.query_one("#tokenize-input", Input).value = "The tokenizer never reads words. 天长地久 🚀 " * 40
        await pilot.pause()
        await pilot.pause()
        inspector = app.screen.query_one(Inspector)
        assert inspector.region.height >= 8
        pane = app.screen.query_one(TokenizePane)
        status = app.screen.query_one("#status")
        assert pane.region.bottom <= status.region.y  # the pane ends above the status line
        scroll = app.screen.query_one("#tokenize-scroll")
        assert scroll.max_scroll_y > 0  # the output scrolls instead of growing
        app.screen.query_one("#tokenize-input", Input).focus()
        await pilot.press("tab")  # from the input, Tab reaches the output, and End scrolls it
        assert app.focused is scroll
        await pilot.press("end")
        await settled(pilot)
        assert scroll.scroll_y == scroll.max_scroll_y
        assert app.screen.query_one("#candidates").region.height >= 6


def visible_lines(view: Inspector) -> list[str]:
    return ["".join(segment.text for segment in view.render_line(y)).rstrip() for y in range(view.size.height)]


@pytest.mark.slow
async def test_a_deep_merge_tree_can_be_read_to_its_last_line():
    # Each merge extends the line by one letter: the last token's tree is 17 levels deep.
    corpus = LoadedCorpus.from_corpus(decode_corpus(b"abcdefghijklmnop\n" * 5, name="alphabet.txt"), "chars", None)
    config = TrainConfig(base="chars", pretokenizer="none", tie_rule="first-seen")
    app = app_on(Workbench(corpus, config), autosave=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("right_curly_bracket")  # train to the end
        await pilot.pause()
        inspector = app.screen.query_one(Inspector)
        lines = [line.rstrip() for line in inspector.plain.splitlines() if line.strip()]
        assert "merge tree:" in lines
        last = lines[-1]
        assert len(lines) > inspector.size.height
        assert last not in visible_lines(inspector)
        while app.focused is not inspector:  # Tab reaches the inspector
            await pilot.press("tab")
            await pilot.pause()
        await pilot.press("end")
        await settled(pilot)
        assert last in visible_lines(inspector)
        await pilot.press("home", "pagedown")
        await settled(pilot)
        assert inspector.scroll_y > 0
        # Lines wider than the pane (the deepest nodes, the 34 bytes in hex) are folded, not cut.
        width = inspector.scrollable_content_region.width
        assert max(cell_len(line) for line in lines) > width
        assert all(cell_len(row) <= width for row in inspector.rows)
        assert "".join(inspector.rows).replace(" ", "") == "".join(lines).replace(" ", "")


def test_folding_keeps_a_tree_node_under_its_parent():
    from rich.text import Text

    from tui.app.widgets.text_view import fold

    rows = [row.plain for row in fold(Text("  12 abcdefghijkl"), 8)]
    assert rows == ["  12 abc", "    defg", "    hijk", "    l"]
    assert [row.plain for row in fold(Text("天长地久"), 5)] == ["天长", "  地", "  久"]  # by cells, not characters
    assert [row.plain for row in fold(Text("fits"), 4)] == ["fits"]
    hex_rows = [row.plain for row in fold(Text("34 bytes: 61 62 63 64 65 66 67 68 69 6a"), 20)]
    assert hex_rows == ["34 bytes: 61 62 63 ", "  64 65 66 67 68 69 ", "  6a"]  # bytes stay whole


@pytest.mark.slow
async def test_the_inspector_shows_no_scroll_bar_while_its_text_fits():
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        inspector = app.screen.query_one(Inspector)
        assert inspector.plain == Inspector.HINT  # two lines in a pane of ten
        assert not inspector.show_vertical_scrollbar  # a scroll bar only when there is more to see
        assert inspector.scrollable_content_region.width == inspector.size.width
        await pilot.press("right_curly_bracket")  # a longer token: more lines than rows
        await settled(pilot)
        assert len(inspector.plain.splitlines()) > inspector.size.height
        assert inspector.show_vertical_scrollbar
