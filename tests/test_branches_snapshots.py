"""Snapshots at 80×24 of the manual-merge picker and the branches screen comparing two branches.

Update after a deliberate UI change: ``pytest tests/test_branches_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

import pytest

from engine import TrainConfig
from tui.app import BpeApp
from tui.model.workbench import LoadedCorpus, Workbench


def make_app() -> BpeApp:
    config = TrainConfig(pretokenizer="gpt2", vocab_size=400)
    app = BpeApp(workbench=Workbench(LoadedCorpus.open("sample:workshop.txt", "bytes"), config), autosave=False)
    app.animation_level = "none"
    return app


async def branched(pilot) -> None:
    await pilot.press("n", "n", "n", "n", "n", "u", "u", "m")
    await pilot.pause()
    await pilot.press("enter")
    await pilot.pause()
    await pilot.press("n", "n", "n")
    pilot.app.clear_notifications()
    await pilot.pause()


@pytest.mark.slow
def test_manual_merge_picker(snap_compare):
    async def run_before(pilot) -> None:
        await pilot.press("n", "n")
        await pilot.press("m")
        await pilot.pause()

    assert snap_compare(make_app(), run_before=run_before, terminal_size=(80, 24))


@pytest.mark.slow
def test_branches_screen_comparing(snap_compare):
    async def run_before(pilot) -> None:
        await branched(pilot)
        await pilot.press("b")
        await pilot.pause()
        await pilot.press("c")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    assert snap_compare(make_app(), run_before=run_before, terminal_size=(80, 24))
