"""The corpus pane wraps at its width in cells, keeps tokens whole, reaches every line, and can
follow the last merged token (issue 13, defect 1).

Rows are read the way Textual draws them: ``render_line`` for every line of the pane after a
pause, so what is asserted is what a user sees.
"""

from __future__ import annotations

import pytest
from helpers import app_on, settle_until
from rich.cells import cell_len
from rich.segment import Segment
from textual.strip import Strip

from engine import TrainConfig
from engine.text.display import visible_text
from tui.app import BpeApp
from tui.app.theme import current
from tui.app.widgets.corpus_view import CorpusView, wrap_groups
from tui.model.workbench import LoadedCorpus, Workbench

SIZES = [(80, 24), (100, 30)]
LAST_LINE = "Emoji are several bytes each"
#: A Chinese text of our own (not from ../shared): long lines of two-cell characters, with
#: ASCII, emoji, a ZWJ family and a combining accent mixed in.
CHINESE = (
    "床前明月光，疑是地上霜。举头望明月，低头思故乡。" * 3 + "\n"
    "春眠不觉晓，处处闻啼鸟。夜来风雨声，花落知多少。 abc 123 👩‍👩‍👧 café\n"
    "白日依山尽，黄河入海流。欲穷千里目，更上一层楼。" * 4 + "\n"
    "最后一行：长安。\n"
)


def make_app(corpus: LoadedCorpus | None = None, **config) -> BpeApp:
    config.setdefault("vocab_size", 600)
    cfg = TrainConfig(**config)
    corpus = corpus or LoadedCorpus.open("sample:workshop.txt", cfg.base)
    return app_on(Workbench(corpus, cfg), autosave=False)


def chinese(tmp_path, base: str = "bytes") -> LoadedCorpus:
    path = tmp_path / "zh.txt"
    path.write_text(CHINESE, encoding="utf-8")
    return LoadedCorpus.open(path, base)


def screen_rows(view: CorpusView) -> list[Strip]:
    """The rows the pane shows (those a horizontal scroll bar does not cover)."""
    view._prefetch()
    return [view.render_line(y) for y in range(view.scrollable_content_region.height)]


def texts(view: CorpusView) -> list[str]:
    return [row.text for row in screen_rows(view)]


async def settle(pilot) -> None:
    await pilot.pause()
    await pilot.pause()


# -- wrapping tokens into rows ----------------------------------------------------------------


def groups_of(tokens: list[str]) -> list[tuple[list[Segment], int]]:
    return [([Segment(t)], cell_len(t)) for t in tokens]


@pytest.mark.parametrize("width", [2, 3, 4, 7, 12])
def test_rows_break_between_tokens_and_never_exceed_the_width(width):
    tokens = ["天", "长", "安", "ab", "👩‍👩‍👧", "e\u0301", "hello", "世界和平", "[e4 b8]", "·", "12345678901234"]
    rows = wrap_groups(groups_of(tokens), width)
    assert "".join(row.text for row in rows).replace(" ", "") == "".join(tokens).replace(" ", "")
    assert all(row.cell_length <= width for row in rows)
    # a token no wider than a row sits on one row
    for token in tokens:
        if cell_len(token) <= width:
            assert any(token in row.text for row in rows), (token, [r.text for r in rows])


def test_no_wrap_is_one_row():
    rows = wrap_groups(groups_of(["abc", "天天", "d"]), 0)
    assert [row.text for row in rows] == ["abc天天d"] and rows[0].cell_length == 8


# -- the pane ---------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
async def test_the_corpus_wraps_at_the_pane_width(size):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        app.query_one(CorpusView).follow = False  # the prose at the top, not the first "··" below
        await pilot.press("n", "n", "n")
        await settle(pilot)
        view = app.query_one(CorpusView)
        assert view.wrap and view.virtual_size.width == 0  # no horizontal scroll bar
        width = view._width
        assert 40 < width <= view.size.width
        rows = screen_rows(view)
        assert all(row.cell_length == view.size.width for row in rows)
        assert all(cell_len(row.text.rstrip()) <= width for row in rows)
        # the pieces on screen are whole lines: their rows put together are the line again
        corpus = app.workbench.corpus
        pieces: dict[int, str] = {}
        for piece, row in view._view:
            pieces[piece] = pieces.get(piece, "") + row.text
        second = next(p for p in pieces if p > min(pieces))  # the first may start mid-line
        for piece in [p for p in pieces if p >= second][:-1]:  # ... and the last end early
            lo, hi = view.piece_range(piece)
            assert pieces[piece] == visible_text(corpus.units[lo:hi].decode()), piece
        assert "The tokenizer never reads words." in "".join(texts(view))


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("wrap", [True, False])
async def test_scrolling_to_the_end_shows_the_last_line(size, wrap):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        view = app.query_one(CorpusView)
        view.wrap = wrap
        await pilot.press("right_curly_bracket")  # 100 merges: rows now differ from the estimate
        await settle(pilot)
        view.focus()
        await pilot.press("end")  # the key scrolls with an animation: wait for it to finish
        await pilot.wait_for_scheduled_animations()
        await settle(pilot)
        assert view.scroll_y == view.max_scroll_y > 0
        shown = texts(view)
        if wrap:
            assert "gluedwithzero-widthjoiners.↵" in "".join(shown).replace(" ", "")
            assert shown[-1].strip() or shown[-2].strip()  # the screen ends with the corpus
        else:
            assert view.virtual_size.width > view.size.width  # the horizontal scroll bar shows
            assert view.scrollable_content_region.height < view.size.height
            assert any(text.startswith(LAST_LINE) for text in shown), shown
        await pilot.press("home")
        await pilot.wait_for_scheduled_animations()
        await settle(pilot)
        assert texts(view)[0].startswith("# A workshop corpus for bpe-lab")


@pytest.mark.slow
async def test_the_end_is_reached_without_a_horizontal_scroll_bar(tmp_path):
    path = tmp_path / "short.txt"
    path.write_text("".join(f"line {k}\n" for k in range(200)), encoding="utf-8")
    app = make_app(LoadedCorpus.open(path, "bytes"), vocab_size=300)
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(CorpusView)
        for wrap in (True, False):
            view.wrap = wrap
            await settle(pilot)
            view.scroll_end(animate=False)
            await settle(pilot)
            assert view.scrollable_content_region.height == view.size.height  # no bar below
            shown = [t.strip() for t in texts(view) if t.strip()]
            assert shown[-1] == "line 199↵"


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("wrap", [True, False])
async def test_every_row_can_be_reached_row_by_row(size, wrap):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await pilot.press("right_curly_bracket")
        await settle(pilot)
        view = app.query_one(CorpusView)
        view.wrap = wrap
        await settle(pilot)
        seen: set[tuple[int, str]] = set()
        for y in range(int(view.max_scroll_y) + 1):
            view.scroll_to(y=y, animate=False)
            await pilot.pause()
            view._prefetch()
            seen.update((piece, row.text) for piece, row in view._view)
        pieces = len(view._lo) - 1
        with app.workbench.reading():
            every = {(piece, row.text) for piece in range(pieces) for row in view._rows(piece)}
        assert every <= seen, sorted(every - seen)[:5]


@pytest.mark.slow
@pytest.mark.parametrize("base", ["bytes", "chars"])
@pytest.mark.parametrize("size", SIZES)
async def test_wide_characters_wrap_by_cells(tmp_path, base, size):
    app = make_app(chinese(tmp_path, base), base=base, vocab_size=400 if base == "bytes" else 300)
    async with app.run_test(size=size) as pilot:
        await pilot.press("right_square_bracket")
        await settle(pilot)
        view = app.query_one(CorpusView)
        width = view._width
        rows = screen_rows(view)
        assert all(row.cell_length == view.size.width for row in rows)
        with app.workbench.reading():
            for piece in range(len(view._lo) - 1):
                lo, hi = view.piece_range(piece)
                groups = view._groups(lo, hi, app.workbench.trainer.spans(lo, hi))
                wrapped = view._rows(piece)
                # nothing lost, nothing over the width, and a token fits on one row
                assert "".join(r.text for r in wrapped) == "".join(s.text for g, _ in groups for s in g)
                assert all(r.cell_length <= width for r in wrapped)
                assert len(wrapped) > 1 or sum(w for _, w in groups) <= width
                starts = {0}
                at = 0
                for row in wrapped:
                    at += row.cell_length
                    starts.add(at)
                at = 0
                for _, w in groups:  # every token starts a row or is inside one, never across
                    if w <= width:
                        assert any(s <= at and at + w <= e for s, e in zip(sorted(starts), sorted(starts)[1:]))
                    at += w
        view.scroll_end(animate=False)
        await settle(pilot)
        assert "最后一行：长安。↵" in "".join(texts(view)).replace(" ", "") or base == "bytes"


@pytest.mark.slow
async def test_w_toggles_wrapping_and_keeps_the_place():
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("right_curly_bracket")
        await settle(pilot)
        view = app.query_one(CorpusView)
        view.scroll_to(y=view.max_scroll_y // 2, animate=False)
        await settle(pilot)
        view._prefetch()
        top = view.top_unit()
        view.action_toggle_wrap()
        await settle(pilot)
        assert not view.wrap and view.virtual_size.width > view.size.width
        view._prefetch()
        shown = view.visible_units()
        assert shown[0] <= top < shown[1]
        view.action_toggle_wrap()
        await settle(pilot)
        assert view.wrap and view.virtual_size.width == 0
        view._prefetch()
        shown = view.visible_units()
        assert shown[0] <= top < shown[1]


def highlighted(view: CorpusView) -> bool:
    return any(seg.style == current().highlight and seg.text for row in screen_rows(view) for seg in row)


@pytest.mark.slow
async def test_follow_brings_the_last_merged_token_into_view():
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(CorpusView)
        # find a merge whose token does not occur on the first screen
        for _ in range(300):
            await pilot.press("n")
            view.scroll_home(animate=False)
            await settle(pilot)
            if not highlighted(view):
                break
        else:
            pytest.fail("every merge so far shows on the first screen")
        view.follow = False
        view.show_last_merge()  # follow is off: nothing moves
        await settle(pilot)
        assert view.scroll_y == 0 and not highlighted(view)
        view.follow = True
        view.show_last_merge()
        await settle(pilot)
        assert view.scroll_y > 0 and highlighted(view)
        place = view.scroll_y
        view.show_last_merge()  # already in view: it stays
        await settle(pilot)
        assert view.scroll_y == place


@pytest.mark.slow
async def test_a_step_rewraps_only_the_rows_on_screen(tmp_path):
    path = tmp_path / "many.txt"
    path.write_text("".join(f"the quick brown fox {k} jumps over the lazy dog\n" for k in range(3000)), encoding="utf-8")
    app = make_app(LoadedCorpus.open(path, "bytes"), vocab_size=300)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n", "n")
        await settle(pilot)
        view = app.query_one(CorpusView)
        assert len(view._lo) - 1 == 3000
        assert 0 < len(view._wrapped) <= view.size.height


# -- snapshots: the wrapped corpus pane at 80x24 and 100x30 -----------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES, ids=["80x24", "100x30"])
def test_snapshot_workshop_wrapped(snap_compare, size):
    async def stay(pilot) -> None:
        await settle_until(pilot, lambda: pilot.app.screen.query(CorpusView), "the corpus pane mounted")
        pilot.app.screen.query_one(CorpusView).follow = False  # the prose at the top, not the first "··" below

    assert snap_compare(make_app(), run_before=stay, press=["n", "n", "n"], terminal_size=size)


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES, ids=["80x24", "100x30"])
def test_snapshot_chinese_wrapped(snap_compare, tmp_path, size):
    app = make_app(chinese(tmp_path, "chars"), base="chars", vocab_size=300)
    assert snap_compare(app, press=["right_square_bracket"], terminal_size=size)


@pytest.mark.slow
@pytest.mark.parametrize("wrap", [True, False])
async def test_a_line_longer_than_a_piece_wraps_and_reaches_its_end(tmp_path, wrap):
    path = tmp_path / "long.txt"
    long_line = "".join(f"word{k} 天长安 " for k in range(900))  # ~10 000 bytes on one line
    path.write_text("first line\n" + long_line + "\nthe last line\n", encoding="utf-8")
    app = make_app(LoadedCorpus.open(path, "bytes"), vocab_size=300)
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(CorpusView)
        view.wrap = wrap
        await settle(pilot)
        assert len(view._lo) - 1 > 3  # the long line is several pieces
        rows = screen_rows(view)
        assert all(row.cell_length == view.size.width for row in rows)
        assert texts(view)[0].startswith("first line↵")
        view.scroll_end(animate=False)
        await settle(pilot)
        shown = [t.strip() for t in texts(view) if t.strip()]
        assert shown[-1] == "the last line↵"


@pytest.mark.slow
async def test_follow_scrolls_sideways_when_not_wrapping(tmp_path):
    path = tmp_path / "wide.txt"
    path.write_text("short\n" * 40 + "x " * 200 + "zq zq zq\n", encoding="utf-8")
    app = make_app(LoadedCorpus.open(path, "bytes"), vocab_size=300)
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(CorpusView)
        view.wrap = False
        view.follow = True
        await settle(pilot)
        view.highlight = ord("q")  # the byte q occurs only at the end of the long last line
        await settle(pilot)
        assert not highlighted(view)
        view.show_last_merge()
        await settle(pilot)
        assert view.scroll_x > 0 and view.scroll_y > 0
        assert highlighted(view)
