"""Setup for the app's tests (Textual, Pilot, snapshots)."""

from __future__ import annotations

import pytest
from helpers import screen_settled, settle_until


@pytest.fixture(autouse=True)
def steady_text_cursor(monkeypatch):
    """A focused input's cursor stays shown instead of blinking on its 0.5 s timer: a snapshot took
    it on or off depending on how fast the machine reached the screenshot (seen on one core)."""
    from textual.widgets import Input

    mount = Input._on_mount

    def on_mount(self, event):
        self.cursor_blink = False  # before the blink timer is made: it starts paused, and stays so
        mount(self, event)

    monkeypatch.setattr(Input, "_on_mount", on_mount)


@pytest.fixture
def snap_compare(snap_compare):
    """pytest-textual-snapshot's ``snap_compare``, but the screenshot waits until the screen has
    settled (see :func:`screen_settled`) after ``run_before`` and ``press``, instead of after a
    fixed number of pauses: on a loaded machine the footer was sometimes not laid out yet."""
    import inspect

    def compare(app, press=(), run_before=None, **kwargs):
        async def settled(pilot) -> None:
            if run_before is not None:
                result = run_before(pilot)
                if inspect.isawaitable(result):
                    await result
            await pilot.pause()
            await pilot.press(*press)
            await pilot.wait_for_scheduled_animations()
            await settle_until(pilot, lambda: screen_settled(pilot.app), "the screen settled")

        return snap_compare(app, run_before=settled, **kwargs)

    return compare


@pytest.fixture(name="app_on")
def app_on_fixture():
    """:func:`helpers.app_on` as a fixture: ``def test_x(app_on): app = app_on("workshop.txt", vocab_size=300)``."""
    from helpers import app_on

    return app_on
