"""Snapshots at 80×24 of the manual-merge picker and the branches screen comparing two branches.

Update after a deliberate UI change: ``pytest tests/app/test_branches_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

from functools import partial

import pytest
from helpers import app_on

make_app = partial(app_on, "workshop.txt", pretokenizer="gpt2", vocab_size=400, autosave=False, still=True)


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
