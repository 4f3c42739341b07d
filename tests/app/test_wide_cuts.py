"""Issue 22 point 15: a toast over a pane border shows every double-width character (Textual's
open issue #6357, patched by tui/app/wide_cuts.py).

The screen is read as a terminal shows it: every update the app sends (the first full one, then
the partial ones that bring the toasts) is fed to a small terminal model (:class:`Terminal`), both
as the escape sequences the app writes (``render_segments``) and as the segments a Rich console
renders (``__rich_console__``); a full update rendered afresh, and the SVG export, must agree."""

from __future__ import annotations

import html
import re

import pytest
import textual
from helpers import app_on
from rich.cells import cell_len, split_graphemes
from rich.console import Console
from textual._compositor import ChopsUpdate, CompositorUpdate
from textual.widgets._toast import Toast

from engine import TrainConfig
from tui.app import BpeApp, wide_cuts
from tui.i18n import set_language

SIZES = [(80, 24), (100, 30)]
#: Wide characters, none the same, for the toasts the test writes.
HANZI = "训练已结束没有出现次的词对语料下一合并检查器分元步完整生于现在中字节首后续输入要文本运行暂停单撤销转到查找帮助退命令"
_CSI = re.compile(r"\x1b\[([0-9;?]*)([@-~])")
_OSC = re.compile(r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
WIDE_TAIL = ""  # the cell a double-width character covers on its right


class Terminal:
    """The little of a terminal that Textual's output needs: cursor moves (CSI H), text, new
    lines; other sequences (colours, modes) are skipped. As in a real terminal, a double-width
    character takes two cells, and writing over either cell of one erases it whole."""

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.cells = [[" "] * width for _ in range(height)]
        self.x = self.y = 0

    def feed(self, data: str) -> None:
        at = 0
        while at < len(data):
            if data.startswith("\x1b]", at):
                osc = _OSC.match(data, at)
                assert osc, f"unterminated OSC at {data[at:at + 20]!r}"
                at = osc.end()
            elif data[at] == "\x1b":
                csi = _CSI.match(data, at)
                assert csi, f"unknown escape {data[at:at + 10]!r}"
                if csi.group(2) == "H":
                    row, _, column = csi.group(1).partition(";")
                    self.y, self.x = int(row or 1) - 1, int(column or 1) - 1
                at = csi.end()
            elif data[at] == "\n":
                self.y += 1
                at += 1
            elif data[at] == "\r":
                self.x = 0
                at += 1
            else:
                end = at
                while end < len(data) and data[end] not in "\x1b\n\r":
                    end += 1
                self.write(data[at:end])
                at = end

    def write(self, text: str) -> None:
        spans, _ = split_graphemes(text)
        for start, end, width in spans:
            grapheme = text[start:end]
            if not width:
                continue
            if not (0 <= self.y < self.height) or self.x + width > self.width:
                self.x += width
                continue
            row = self.cells[self.y]
            for x in range(self.x, self.x + width):
                self.erase(row, x)
            row[self.x] = grapheme
            if width == 2:
                row[self.x + 1] = WIDE_TAIL
            self.x += width

    def erase(self, row: list[str], x: int) -> None:
        """Clear whatever character covers cell ``x``."""
        if row[x] == WIDE_TAIL:
            row[x - 1] = row[x] = " "
        elif cell_len(row[x]) == 2:
            row[x] = row[x + 1] = " "

    def line(self, y: int, start: int = 0, end: int | None = None) -> str:
        return "".join(cell for cell in self.cells[y][start:end] if cell != WIDE_TAIL)

    def wide_at(self, y: int, x: int) -> bool:
        """A double-width character covers cells x and x+1."""
        return self.cells[y][x + 1] == WIDE_TAIL and cell_len(self.cells[y][x]) == 2


class Screens:
    """What a terminal shows of every update the app sends, and what a Rich console renders."""

    def __init__(self, app: BpeApp, width: int, height: int) -> None:
        self.written = Terminal(width, height)  # render_segments: what the driver writes
        self.rendered = Terminal(width, height)  # __rich_console__
        self.partial = 0
        self.console = Console(width=width, height=height, force_terminal=True, color_system="truecolor", legacy_windows=False)
        display = app._display

        def record(screen, renderable) -> None:
            if isinstance(renderable, CompositorUpdate):
                self.feed(renderable)
            display(screen, renderable)

        app._display = record

    def feed(self, update: CompositorUpdate) -> None:
        self.partial += isinstance(update, ChopsUpdate)
        self.written.feed(update.render_segments(self.console))
        options = self.console.options
        self.rendered.feed("".join(segment.text for segment in self.console.render(update, options)))


def keeping_dirt(app: BpeApp, render):
    """``render()``, and the compositor's regions waiting for a partial update still wait (a full
    render forgets them, and the app's next partial update would leave them out)."""
    compositor = app.screen._compositor
    waiting = set(compositor._dirty_regions)
    try:
        return render()
    finally:
        compositor._dirty_regions.update(waiting)


def fresh_full_update(app: BpeApp, width: int, height: int) -> Terminal:
    terminal = Terminal(width, height)
    update = keeping_dirt(app, lambda: app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    terminal.feed(update.render_segments(app.console))
    return terminal


def svg_text(app: BpeApp) -> str:
    svg = keeping_dirt(app, app.export_screenshot)
    return html.unescape(re.sub(r"<[^>]+>", "", svg)).replace("\xa0", " ")


def chinese_app() -> BpeApp:
    set_language("zh")
    cfg = TrainConfig()
    return app_on("chinese.txt", cfg, autosave=False)


def toast_rows(app: BpeApp, toast: Toast) -> list[tuple[int, int, int]]:
    """(y, x0, x1) of each line of a toast's text on the screen."""
    content = toast.content_region
    return [(y, content.x, content.right) for y in range(content.y, content.bottom)]


def toast_text(terminal: Terminal, app: BpeApp, toast: Toast) -> str:
    return "".join(terminal.line(y, x0, x1).strip() for y, x0, x1 in toast_rows(app, toast))


def inner_cuts(app: BpeApp, toast: Toast) -> set[tuple[int, int]]:
    """(y, x) of each cut the compositor makes inside a toast's text: a widget edge beneath."""
    cuts = app.screen._compositor.cuts
    return {(y, x) for y, x0, x1 in toast_rows(app, toast) for x in cuts[y] if x0 < x < x1}


async def show_toasts(app: BpeApp, pilot, prefix: str) -> list[tuple[Toast, str]]:
    """As many toasts as the screen holds, each one line of wide characters after ``prefix``
    (one narrow character moves every wide one by a cell), and the toasts with their texts."""
    from helpers import settle_until

    app.clear_notifications()
    app.notify("?", timeout=600)
    # shown and laid out: a toast found before its first layout has no width yet (seen in CI)
    await settle_until(pilot, lambda: len(app.screen.query(Toast)) == 1
                       and app.screen.query_one(Toast).content_region.width > 4, "a toast shown")
    probe = app.screen.query_one(Toast)
    per_line = (probe.content_region.width - cell_len(prefix)) // 2
    count = (app.size.height - 2) // (probe.outer_size.height + 1)
    app.clear_notifications()
    texts = [prefix + (HANZI * 4)[n * per_line:][:per_line] for n in range(count)]
    assert len(set(texts)) == count
    assert all(cell_len(text) == cell_len(prefix) + 2 * per_line for text in texts)
    for text in texts:
        app.notify(text, timeout=600, markup=False)
    await settle_until(pilot, lambda: len(app.screen.query(Toast)) == count, f"{count} toasts shown")
    await pilot.pause()
    shown = {str(toast._notification.message): toast for toast in app.screen.query(Toast)}
    return [(shown[text], text) for text in texts]


@pytest.fixture
def patched():
    assert wide_cuts.install() is None
    yield
    wide_cuts.install()


@pytest.mark.parametrize("size", SIZES, ids=lambda size: "{}x{}".format(*size))
async def test_toasts_over_every_border_show_every_wide_character(size, patched):
    width, height = size
    app = chinese_app()
    screens = Screens(app, width, height)
    async with app.run_test(size=size, notifications=True) as pilot:
        straddled: dict[tuple[int, int], bool] = {}
        for prefix in ("", "x"):
            partial_before = screens.partial
            toasts = await show_toasts(app, pilot, prefix)
            assert screens.partial > partial_before, "the toasts came in partial updates"
            full = fresh_full_update(app, width, height)
            svg = svg_text(app)
            for toast, text in toasts:
                for name, terminal in (("written", screens.written), ("rendered", screens.rendered), ("full", full)):
                    assert toast_text(terminal, app, toast) == text, name
                for y, x0, x1 in toast_rows(app, toast):
                    if line := full.line(y, x0, x1).strip():
                        assert line in svg
                for y, x in inner_cuts(app, toast):
                    straddled[y, x] = straddled.get((y, x), False) or full.wide_at(y, x - 1)
            for y in range(height):  # the partial updates drew what a full one draws, everywhere
                assert screens.written.line(y) == full.line(y), f"line {y}"
                assert screens.rendered.line(y) == full.line(y), f"line {y}"
        borders = {x for _, x in straddled}
        assert borders, "no widget edge under the toasts"
        assert all(straddled.values()), f"a cut no wide character straddled: {straddled}"


async def test_without_the_patch_textual_drops_the_character_at_a_border():
    """What the test above catches: Textual 8 alone turns a wide character on a border into
    spaces. When this fails, Textual keeps the character itself: the patch can go."""
    wide_cuts.uninstall()
    try:
        app = chinese_app()
        wide_cuts.uninstall()  # the app installs it
        width, height = SIZES[0]
        async with app.run_test(size=SIZES[0], notifications=True) as pilot:
            lost = []
            for prefix in ("", "x"):
                for toast, text in await show_toasts(app, pilot, prefix):
                    shown = toast_text(fresh_full_update(app, width, height), app, toast)
                    if shown != text:
                        lost.append(shown)
            assert lost, "every toast whole without the patch"
            assert all("  " in shown for shown in lost)  # a character became two spaces
    finally:
        wide_cuts.install()


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES, ids=lambda size: "{}x{}".format(*size))
async def test_the_end_of_training_toast_in_chinese_is_whole(size, patched):
    """The issue's case: ``--lang zh`` on the Chinese sample, run to the end."""
    width, height = size
    app = chinese_app()
    screens = Screens(app, width, height)
    async with app.run_test(size=size, notifications=True) as pilot:
        await pilot.press("space")
        await app.workers.wait_for_complete()
        from helpers import settle_until

        await settle_until(pilot, lambda: len(app.screen.query(Toast)) == 1, "the toast shown")
        await pilot.pause()
        toast = app.screen.query_one(Toast)
        message = str(toast._notification.message)
        assert message.startswith("训练已结束")
        assert inner_cuts(app, toast), "the toast crosses no border"
        for terminal in (screens.written, screens.rendered, fresh_full_update(app, width, height)):
            assert toast_text(terminal, app, toast).replace(" ", "") == message.replace(" ", "")


def test_canary_the_patched_textual_functions_are_the_ones_the_patch_was_written_for():
    """Fails when a Textual upgrade changes a function the patch copies or relies on; the patch
    then stays off (install() says why) until tui/app/wide_cuts.py is checked against it."""
    assert textual.__version__.split(".")[0] == str(wide_cuts.TESTED_MAJOR), (
        f"textual {textual.__version__}: the patch is for {wide_cuts.TESTED_MAJOR}.x and stays off"
    )
    changed = wide_cuts.changed()
    assert not changed, f"textual {textual.__version__} changed {', '.join(changed)}: re-check tui/app/wide_cuts.py"


def test_install_does_nothing_for_another_textual_or_a_changed_function(monkeypatch):
    from textual._compositor import Compositor

    wide_cuts.uninstall()
    try:
        original = Compositor._render_chops
        monkeypatch.setattr(textual, "__version__", "9.0.0")
        assert "for textual 8.x" in wide_cuts.install()
        assert Compositor._render_chops is original and not wide_cuts.installed()
        monkeypatch.setattr(textual, "__version__", "8.99.0")
        monkeypatch.setitem(wide_cuts.FINGERPRINTS, "ChopsUpdate.render_segments", "0" * 64)
        assert "ChopsUpdate.render_segments changed" in wide_cuts.install()
        assert Compositor._render_chops is original
        monkeypatch.undo()
        assert wide_cuts.install() is None and Compositor._render_chops is not original
    finally:
        wide_cuts.install()
