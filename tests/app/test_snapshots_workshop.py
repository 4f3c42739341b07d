"""Issue 13's acceptance snapshots: the main screen, the settings dialog and the analysis screen
at 80×24 and at 100×30, on the workshop sample, a Chinese sample and an emoji/combining-mark
sample, each opened with its own settings (tui/model/samples.py).

What to look for when one changes: nothing cut at the right edge (footer, placeholders, table
rows), wide characters (CJK, emoji, flags, ZWJ families) keeping every column aligned, the
inspector at least 8 rows high. Update after a deliberate change:
``pytest tests/app/test_snapshots_workshop.py --snapshot-update`` (and read the SVGs).
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from helpers import app_on
from textual.widgets import Input

from tui.app import BpeApp
from tui.model.samples import sample

SIZES = {"80x24": (80, 24), "100x30": (100, 30)}

#: Each sample, and a text typed into the tokenize pane: wide characters in the output too.
SAMPLES = {
    "workshop": ("workshop.txt", "The tokenizer 🚀 zerlegt Wörter"),
    "chinese": ("chinese.txt", "分词器只认识字节。"),
    "emoji": ("emoji.txt", "👩‍👩‍👧 🇩🇪 café नमस्ते"),
}

#: The analysis tab shown for each sample: the curve for the workshop, the vocabulary's
#: composition (partial characters, wide tokens) for the others.
ANALYSIS_TAB = {"workshop": "1", "chinese": "2", "emoji": "2"}


def app_for(name: str) -> BpeApp:
    """A sample opened with its example's settings (the Chinese one at bytes), no session writes, no animation."""
    chosen = sample(SAMPLES[name][0])
    config = chosen.config()
    if name == "chinese":  # at the bytes base, as seed 002: the half characters these snapshots show
        config = replace(config, base="bytes")
    app = app_on(chosen.name, config, autosave=False)
    app.animation_level = "none"
    return app


async def settle(pilot) -> None:
    """Wait for workers (jumps, the analysis screen's) and the repaints they cause."""
    for _ in range(3):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
    await pilot.wait_for_scheduled_animations()
    for _ in range(3):  # a pane that redrew may need one more layout pass
        await pilot.pause()


async def trained_with_text(pilot, name: str) -> None:
    """30 merges in, a text in the tokenize pane (typed without moving focus from the log)."""
    await pilot.press("right_square_bracket", "right_square_bracket", "right_square_bracket")
    pilot.app.screen.query_one("#tokenize-input", Input).value = SAMPLES[name][1]
    await settle(pilot)


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("name", SAMPLES)
def test_main_screen(snap_compare, name, size):
    async def run_before(pilot) -> None:
        await trained_with_text(pilot, name)

    assert snap_compare(app_for(name), run_before=run_before, terminal_size=SIZES[size])


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("name", SAMPLES)
def test_settings_dialog(snap_compare, name, size):
    async def run_before(pilot) -> None:
        await pilot.press("comma")
        await settle(pilot)

    assert snap_compare(app_for(name), run_before=run_before, terminal_size=SIZES[size])


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("name", SAMPLES)
def test_analysis_screen(snap_compare, name, size):
    async def run_before(pilot) -> None:
        await trained_with_text(pilot, name)
        await pilot.press("a", ANALYSIS_TAB[name])
        await settle(pilot)

    assert snap_compare(app_for(name), run_before=run_before, terminal_size=SIZES[size])
