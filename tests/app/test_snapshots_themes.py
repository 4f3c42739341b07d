"""Issue 15 §2's snapshots: the workshop at 80×24 in a light and a dark theme (for a projector),
and the analysis screen's composition of Chinese text (partial UTF-8 marked) in the light one.

What to look for: token backgrounds that alternate visibly on both, text that reads on every
background, the last merged token standing out, the merge log's cursor, bars and tie marks.
Update after a deliberate change: ``pytest tests/app/test_snapshots_themes.py -m slow --snapshot-update``.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from helpers import app_on

from tui.app import BpeApp
from tui.model.samples import sample

from test_snapshots_workshop import settle, trained_with_text

THEMES = ("textual-light", "textual-dark")


def app_for(name: str, theme: str) -> BpeApp:
    chosen = sample(name)
    config = replace(chosen.config(), base="bytes")  # the Chinese one too: its partial UTF-8 is on show
    app = app_on(chosen.name, config, autosave=False, theme=theme)
    app.animation_level = "none"
    return app


@pytest.mark.slow
@pytest.mark.parametrize("theme", THEMES)
def test_main_screen_in_theme(snap_compare, theme):
    async def run_before(pilot) -> None:
        await trained_with_text(pilot, "workshop")

    assert snap_compare(app_for("workshop.txt", theme), run_before=run_before, terminal_size=(80, 24))


@pytest.mark.slow
def test_composition_in_the_light_theme(snap_compare):
    async def run_before(pilot) -> None:
        await trained_with_text(pilot, "chinese")
        await pilot.press("a", "2")
        await settle(pilot)

    assert snap_compare(app_for("chinese.txt", "textual-light"), run_before=run_before, terminal_size=(80, 24))
