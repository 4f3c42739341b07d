"""Every table lines up on wide characters: widths are terminal cells, not ``len()``
(issue 13, defect 4).

On tang_2000 the merge log's tokens column lost its last digit (``21597`` for 215979) and rows
with 天, 长 + 安 or emoji shifted into the scroll bar. Here each table is drawn at a fixed width
on CJK, emoji, a ZWJ family (👩‍👩‍👧) and combining marks (e + U+0301), and every row must
take the same cells, its columns must line up, and no number may be cut.
"""

from __future__ import annotations

import pytest
from helpers import app_on
from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from engine import TrainConfig
from engine.analysis import BpeSegmenter, parse_parallel, tie_rule_diff
from engine.text import token_display
from engine.train.trainer import Trainer
from tui.app import BpeApp
from tui.app.widgets.candidates import Candidates
from tui.app.widgets.compare_views import parallel_view, through_each
from tui.app.widgets.merge_log import MergeLog, column_widths, fit
from tui.app.widgets.tiediff_pane import render_diff
from tui.model.samples import sample
from tui.model.workbench import LoadedCorpus, Workbench

ZWJ_FAMILY = "👩\u200d👩\u200d👧"
ACCENT = "e\u0301"
#: A text of our own: Chinese lines, emoji, a ZWJ family, combining accents, repeated so the
#: first merges make tokens of them.
WIDE = "".join(
    f"天长安{ACCENT}{ACCENT} 长安天 {ZWJ_FAMILY}{ZWJ_FAMILY} 👍🏽👍🏽 床前明月光。\n" for _ in range(40)
) + "".join(f"line {k} caf{ACCENT} 天\n" for k in range(30))
SAMPLES = ["天", "长 + 安", ZWJ_FAMILY, "👩\u200d", "👩\u200d👩\u200d", ACCENT, "👍🏽", "ab", "[e4 b8]", "", "·", "床前明月光疑是地上霜"]


@pytest.mark.parametrize("width", range(1, 14))
@pytest.mark.parametrize("text", SAMPLES)
def test_fit_gives_exactly_the_cells_asked(text, width):
    out = fit(text, width)
    assert cell_len(out) == width
    assert cell_len(out + " ") == width + 1  # the next column starts where it should
    if cell_len(text) <= width:
        assert out.startswith(text)
    else:
        assert out.rstrip(" ").endswith("…")  # padded after it when the cut falls before a byte group


def test_column_widths_fill_the_pane_and_never_cut_numbers():
    for width in (46, 57, 80):  # the log pane at 80x24 is 46 cells wide
        widths = column_widths(width)
        assert sum(widths) + len(widths) == width
        wide = column_widths(width, {0: 6, 4: 8, 5: 9})  # step 100000, count 1234567*, 215979000
        assert wide[0] == 6 and wide[4] == 8 and wide[5] == 9
        assert sum(wide) + len(wide) == width  # the token columns gave way
        assert min(wide[1:4]) >= 5


def wide_app(tmp_path, base: str, **config) -> BpeApp:
    path = tmp_path / "wide.txt"
    path.write_text(WIDE, encoding="utf-8")
    cfg = TrainConfig(base=base, vocab_size=2000 if base == "bytes" else 1000, pretokenizer="none", **config)
    return app_on(Workbench(LoadedCorpus.open(path, base), cfg), autosave=False)


async def settle(pilot) -> None:
    await pilot.pause()
    await pilot.pause()


@pytest.mark.slow
@pytest.mark.parametrize("base", ["bytes", "chars"])
@pytest.mark.parametrize("size", [(80, 24), (100, 30)])
async def test_merge_log_rows_line_up_on_wide_tokens(tmp_path, base, size):
    app = wide_app(tmp_path, base)
    async with app.run_test(size=size) as pilot:
        await pilot.press("right_square_bracket", "right_square_bracket", "right_square_bracket")
        await settle(pilot)
        log = app.query_one(MergeLog)
        inner = log.scrollable_content_region.width
        page = log.size.height - 1  # the header takes a line
        events = app.workbench.trainer.events(0, log.row_count)
        assert len(events) == 30
        wide = 0
        ends = set()
        for top in range(0, len(events), page):
            log.scroll_to(y=top, animate=False)
            await settle(pilot)
            log._prefetch()
            for y in range(1, page + 1):
                row = top + y - 1
                if row >= len(events):
                    break
                strip, event = log.render_line(y), events[row]
                assert strip.cell_length == log.size.width
                text = strip.text
                tokens = str(event.tokens_after)
                # the number is whole, left of the scroll bar, and starts the same cell on every row
                start = text.rfind(tokens)
                assert start >= 0, (text, tokens)
                assert cell_len(text[: start + len(tokens)]) <= inner, (text, inner)
                ends.add(cell_len(text[:start]))
                assert f" {event.count}" in text and text.startswith(f"{event.step} ")
                wide += cell_len(text) != len(text)
        assert len(ends) == 1, ends
        assert wide, "no row had a wide character: the corpus did not test what it should"


def test_a_count_or_a_corpus_length_too_big_for_its_column_is_never_cut():
    log = MergeLog()
    log._rows = 123456
    from engine import Merge

    log._first = Merge(1, (1, 2), 300, b"ab", 9876543, (), 1, 21597900, 12)
    widths = column_widths(60, log._number_widths())
    assert widths[0] >= len("123456") and widths[4] >= len("9876543*") and widths[5] >= len("21597912")


def candidate_lines(text: Text, width: int) -> list[str]:
    console = Console(width=width, legacy_windows=False, color_system=None)
    return ["".join(seg.text for seg in line) for line in console.render_lines(text, pad=False)]


@pytest.mark.parametrize("width", [28, 36, 44])
def test_candidate_rows_line_up_on_wide_pairs(width):
    rows = [("天", "长", 215979), ("长", "安", 99), (ZWJ_FAMILY, "·", 99), (ACCENT, "x", 7), ("👍🏽", "👍🏽", 5),
            ("ab", "c", 4), ("床前明月光", "疑是地上霜", 3), ("·", "·", 2)]
    text = Candidates().render_rows(rows, 1, "lowest-ids", 2, None, width=width)
    lines = candidate_lines(text, width)
    assert len(lines) == text.plain.count("\n") + 1  # no row wrapped
    body = lines[1:1 + len(rows)]
    ends = set()
    for line, (_, _, count) in zip(body, rows):
        assert cell_len(line) <= width
        number = f"{count:>6} "  # right-aligned to the widest count, then a space
        at = line.find(number)
        assert at >= 0, (line, count)  # whole, never cut
        ends.add(cell_len(line[: at + len(number)]))
    assert len(ends) == 1, (ends, body)


@pytest.mark.slow
@pytest.mark.parametrize("size", [(80, 24), (100, 30)])
async def test_candidates_in_the_app_line_up(tmp_path, size):
    app = wide_app(tmp_path, "chars")
    async with app.run_test(size=size) as pilot:
        await pilot.press("right_square_bracket", "right_square_bracket")
        await settle(pilot)
        pane = app.query_one(Candidates)
        width = pane.content_region.width
        with app.workbench.reading():
            trainer = app.workbench.trainer
            show = lambda i: token_display(trainer.token_bytes(i), space="·")  # noqa: E731
            rows = [(show(c.pair[0]), show(c.pair[1]), c.count) for c in trainer.candidates(8)]
        assert any(cell_len(a + b) != len(a + b) for a, b, _ in rows)  # wide pairs are on show
        text = pane.render_rows(rows, 1, "lowest-ids", 2, None, width=width)
        lines = candidate_lines(text, width)
        assert len(lines) == text.plain.count("\n") + 1  # no row wrapped
        digits = len(str(rows[0][2]))
        ends = {cell_len(line[: line.index(f"{count:>{digits}} ") + digits + 1])
                for line, (_, _, count) in zip(lines[1:], rows)}
        assert len(ends) == 1, lines


def table_rows(renderable, width: int) -> list[str]:
    console = Console(width=width, legacy_windows=False, color_system=None)
    return ["".join(seg.text for seg in line) for line in console.render_lines(renderable, pad=True)]


def test_tie_rule_table_rows_have_one_width():
    config = TrainConfig(base="chars", pretokenizer="none", max_merges=40)
    diff = tie_rule_diff(WIDE, config, ("lowest-ids", "first-seen"))
    lines = table_rows(render_diff(diff, "wide.txt"), 100)
    assert lines and all(cell_len(line) == 100 for line in lines)
    steps = [line for line in lines if line.strip()[:1].isdigit() or line.strip().startswith("▶")]
    assert steps and all(any(ch in line for ch in "天长安👩👍é") or "→" in line for line in steps)


def test_compare_rows_have_one_width():
    trainer = Trainer(WIDE, TrainConfig(base="bytes", pretokenizer="none", max_merges=60))
    trainer.train()
    bpe = BpeSegmenter(trainer.tokenizer())
    groups = parse_parallel(sample("parallel.txt").read_bytes().decode("utf-8"))
    for view in (parallel_view([bpe], groups, 2), through_each(WIDE[:200], [bpe])):
        lines = table_rows(view, 90)
        assert lines and all(cell_len(line) == 90 for line in lines)


_TOKEN_BYTES = [b"\xf0\x9f\x91", b"\xe4\xb8", b" ", b"a", "天".encode(), b"\x80", "👩\u200d".encode(), b"M" + b"\xc3"]


@pytest.mark.parametrize("width", range(1, 14))
def test_a_cut_never_splits_a_byte_group(width):
    """Issue 22, point 3: `·[f0 9f 9…` is never drawn; a value too wide for its column is cut
    between groups (the inspector shows it whole)."""
    import itertools
    import re

    for parts in itertools.product(_TOKEN_BYTES, repeat=3):
        shown = token_display(b"".join(parts), space="·")
        cut = fit(shown, width)
        assert cell_len(cut) == width
        kept = cut.rstrip(" ").removesuffix("…")
        groups = re.findall(r"\[[^\]]*\]?", kept)
        assert all(g.endswith("]") for g in groups), (shown, width, cut)
        assert shown.startswith(kept.replace("\u200b", "").rstrip()) or kept.strip() == "", (shown, cut)


@pytest.mark.parametrize("width", [28, 30, 36])  # 30: the next-merge pane at 80 columns
def test_a_replays_cut_pair_never_touches_its_count(width):
    """A pair too long for its column is cut with "…" and still has a cell before its count
    (at 80 columns, "▶ ▁constructor + ▁initialization" ran into "123"); wide characters too."""
    rows = [("▁constructor", "▁initialization", 123, True), ("床前明月光", "疑是地上霜", 99, False),
            ("天", "长安天长安天长安", 12, False), ("a", "b", 7, False), (ACCENT, "天", 3, False)]
    text = Candidates().render_replay(("▁constructor", "▁initialization", 123, 1, 5), rows, 900, width=width)
    lines = candidate_lines(text, width)
    assert len(lines) == text.plain.count("\n") + 1  # no row wrapped
    at = next(i for i, line in enumerate(lines) if line.startswith("by count here"))
    body = lines[at + 1:at + 1 + len(rows)]
    cut = 0
    for line, (a, b, count, _) in zip(body, rows):
        assert cell_len(line) <= width
        number = f"{count:>3} "
        at = line.find(number)
        assert at > 0, (line, count)
        label = line[2:at]
        assert label.endswith(" ") and label.strip(), (line, label)  # a cell between pair and count
        cut += "…" in label
        assert label.rstrip().rstrip("…") in f"{a} + {b}" or "…" in label
    assert cut >= 2, body  # the test cut pairs, wide ones among them
