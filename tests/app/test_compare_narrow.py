"""The compare tab in a narrow pane (beside a lesson at 80x24, issue 22's "nothing cut"): the
token tax is a list when its table does not fit, segmented text wraps between tokens only, and
each input shows the longest placeholder that fits."""

from __future__ import annotations

import re

import pytest
from helpers import ROOT, app_on, settle_until, settled
from rich.cells import cell_len
from rich.console import Console

from engine import TrainConfig, Trainer
from engine.analysis import BpeSegmenter, parse_parallel
from tui.app.widgets.compare_pane import ComparePane
from tui.app.widgets.compare_views import coloured, tax_view
from tui.lessons.format import parse
from tui.model.samples import sample

LESSON = ROOT / "assets" / "lessons" / "003-the-cat-in-the-hat.en.md"
#: A byte group left open at the end of a line: a token cut where the terminal wrapped.
OPEN_GROUP = re.compile(r"\[[0-9a-f ]*$")


def lines_of(renderable, width: int) -> list[str]:
    console = Console(width=width, color_system=None, legacy_windows=False)
    return ["".join(seg.text for seg in line).rstrip() for line in console.render_lines(renderable, pad=False)]


def trained(text: str, merges: int) -> BpeSegmenter:
    trainer = Trainer(text, TrainConfig(max_merges=merges))
    list(trainer.run())
    return BpeSegmenter(trainer.tokenizer(), f"bpe (step {merges})")


def test_the_tax_is_a_list_where_its_table_would_be_cut():
    groups = parse_parallel(sample("parallel.txt").read_bytes().decode("utf-8"))
    seg = trained(sample("workshop.txt").read_bytes().decode("utf-8"), 40)
    wide = lines_of(tax_view([seg], groups, 0), 200)
    assert not any("…" in line for line in wide) and "▪" not in "".join(wide)  # a table, whole
    for width in (24, 30, 40):
        shown = lines_of(tax_view([seg], groups, width), width)
        assert all(cell_len(line) <= width for line in shown), shown
        assert not any("…" in line for line in shown), shown
        text = " ".join(shown)
        assert shown[0].startswith("▪ bpe (step 40)")
        for lang in {lang for group in groups for lang in group}:
            assert re.search(rf"\b{lang} \d+", text), (lang, shown)


def test_segmented_text_wraps_between_tokens_only():
    seg = trained("a", 0)  # no merges: every byte of Chinese is its own [e5]-style token
    text = "人工智能正在改变我们工作和学习的方式。" * 2
    for width in (17, 23, 31):
        out = coloured(seg, text, width)
        for line in out.plain.split("\n"):
            assert cell_len(line) <= width and line.count("[") == line.count("]"), line
        assert "".join(out.plain.split("\n")) == coloured(seg, text).plain  # nothing lost


@pytest.mark.slow
async def test_the_compare_tab_beside_a_lesson_at_80x24_cuts_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    lesson = parse(LESSON)
    step = next(i for i, s in enumerate(lesson.steps) if s.title == "The token tax")
    app = app_on(None, still=True, autosave=False, lesson=lesson)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle_until(pilot, lambda: app.lesson is not None and not app.lesson.busy, "the lesson started")
        while app.lesson.index < step:
            await pilot.press("greater_than_sign")
            await settle_until(pilot, lambda: not app.lesson.busy and not app.lab.busy, "the step ran")
        await settle_until(pilot, lambda: bool(app.screen.query(ComparePane)), "the compare tab")
        await settled(pilot)
        pane = app.screen.query_one(ComparePane)
        output = pane.query_one("#compare-output")
        width = output.size.width
        assert 0 < width < 60  # narrow: beside the lesson
        shown = lines_of(output.content, width)
        assert not any("…" in line for line in shown), shown
        assert not any(OPEN_GROUP.search(line) for line in shown), shown
        for name in pane.PLACEHOLDERS:
            field = pane.query_one(f"#{name}")
            assert cell_len(field.placeholder) <= field.content_region.width, field.placeholder
