"""A served tab's memory budget in the app: the workbench gets it, the analysis screen bounds its
caches by it and lets go of them when it closes (tui/model/budget.py)."""

from __future__ import annotations

import io

import pytest
from helpers import app_on, settle_until
from rich.console import Console
from textual.widgets import Input

import tui.model.evaluation as evaluation_module
from tui.app.launch import served_memory
from tui.model.budget import TAB_BUDGET
from tui.model.workbench import LoadedCorpus

SIZE = (100, 30)


def test_serve_mode_gives_each_tab_the_budget():
    assert served_memory(None) is None
    assert served_memory(object()) == TAB_BUDGET


@pytest.mark.slow
async def test_a_budgeted_tab_bounds_the_baselines_and_lets_go_when_the_screen_closes(monkeypatch):
    monkeypatch.setattr(evaluation_module, "BUDGET_BASELINE_CHARS", 500)  # the workshop's text is larger
    app = app_on(LoadedCorpus.open("sample:workshop.txt", "bytes"), memory=TAB_BUDGET, vocab_size=300, still=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle_until(pilot, lambda: app.workbench is not None, "loaded")
        assert app.workbench.memory == TAB_BUDGET
        assert app.workbench.trainer.timeline.checkpoints.memory == TAB_BUDGET
        await pilot.press("a", "4")
        screen = app.screen
        await settle_until(pilot, lambda: screen.baselines is not None and screen.evaluated is not None,
                           "the baselines trained")
        evaluation = screen.evaluation
        assert evaluation.baseline_part == 500
        console = Console(width=200, record=True, file=io.StringIO(), color_system=None)
        console.print(screen.query_one("#baselines-pane").content)
        shown = console.export_text()
        assert "WordPiece and Unigram trained on the first 500 characters" in shown
        assert evaluation._baselines is not None
        if isinstance(app.focused, Input):
            await pilot.press("escape")
        await pilot.press("escape")
        await settle_until(pilot, lambda: app.screen is app.main_screen, "back on the main screen")
        assert evaluation._side is None and evaluation._baselines is None
