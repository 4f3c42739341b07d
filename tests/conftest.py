"""Shared test setup: where the shared corpora are, and hypothesis profiles."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
CORPORA = SHARED / "corpora"
SAMPLES = ROOT / "assets" / "samples"

# Property tests run in both passes of the README's test command: 50 examples each in the fast
# default pass, 200 in the second (HYPOTHESIS_PROFILE=slow pytest -m 'slow or hypothesis'); and
# 2000 in a long local run (HYPOTHESIS_PROFILE=thorough). Tests that set max_examples themselves
# (the fuzzers, the stateful trainer machine) keep their own budgets.
for name, examples in (("default", 50), ("slow", 200), ("thorough", 2000)):
    settings.register_profile(
        name, max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow]
    )
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def shared_corpus(name: str) -> Path:
    """A file from ../shared/corpora, or skip the test when the folder is absent (a user's clone)."""
    path = CORPORA / name
    if not path.exists():
        pytest.skip(f"../shared/corpora/{name} is not available")
    return path


def sample_text(name: str) -> str:
    """A bundled sample corpus, exactly as stored."""
    return (SAMPLES / name).read_bytes().decode("utf-8")


@pytest.fixture(autouse=True)
def private_config(tmp_path, monkeypatch):
    """Apps launched by tests read and remember their theme in the test's folder, not ~/.config."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


@pytest.fixture(autouse=True)
def private_session_file(tmp_path, monkeypatch):
    """Apps made by tests save their sessions in the test's folder, not in ~/.local/state."""
    monkeypatch.setenv("BPE_LAB_SESSION", str(tmp_path / "session.json"))
    # ... and keep their merge caches there too, not in ~/.cache (engine/formats/merge_cache.py)
    monkeypatch.setenv("BPE_LAB_CACHE", str(tmp_path / "merge-cache"))


@pytest.fixture(autouse=True)
def english_ui():
    """Every test starts with the UI in English (the source strings), whatever the machine's locale
    and whatever an earlier test chose (``tui.i18n.set_language`` is process-wide)."""
    from tui.i18n import set_language

    set_language("en")
    yield
    set_language("en")


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


#: How long :func:`settle_until` lets the app work before giving up: a hang guard, tens of times
#: what a loaded one-core machine needs, never a clock the test waits on.
HANG_GUARD = 60.0


async def settle_until(pilot, ready, what: str, workers: bool = True) -> None:
    """Let the app work until ``ready()`` holds (its messages handled, and with ``workers`` its
    workers finished: leave it False while a training run goes on).

    ``pilot.pause()`` returns once the process looks idle, which on a loaded machine it does while
    work is still queued (a footer recomposing, a pane redrawn after a worker): one pause is not
    always enough, so this waits on the state the test needs, not on a number of pauses."""
    import time

    deadline = time.monotonic() + HANG_GUARD
    while True:
        await pilot.pause()
        if workers:
            await pilot.app.workers.wait_for_complete()
        if ready():
            return
        assert time.monotonic() < deadline, f"not {what} after {HANG_GUARD:.0f} s"


async def run_from_palette(pilot, title: str) -> None:
    """Open the command palette, type ``title``, wait until its search lists that one command,
    press Enter, and let the command run. The palette searches in a worker and, on Enter, closes
    and queues the command on the app a few messages later: each step waits on its state."""
    from textual.command import CommandList, CommandPalette

    app = pilot.app
    await pilot.press("ctrl+p")
    palette = app.screen
    assert isinstance(palette, CommandPalette)
    await pilot.press(*title)
    await settle_until(pilot, lambda: palette.query_one(CommandList).option_count == 1, f"{title!r} the one hit")
    await pilot.press("enter")
    await settle_until(pilot, lambda: not app.is_running or palette not in app.screen_stack, "the palette closed")
    await pilot.pause()  # the command was queued on the app as the palette closed: this lets it run


def screen_settled(app) -> bool:
    """Nothing left to do on the current screen: no message waiting in the app or any widget of
    the screen, nothing to lay out or repaint, and every footer composed and laid out (a footer
    recomposes after the screen's bindings are known, a few refreshes after the screen shows).
    Reads Textual's private state (pinned: textual < 9); a test helper, nothing the app relies on."""
    from textual.widgets import Footer
    from textual.widgets._footer import FooterKey

    screen = app.screen
    nodes = [app, *screen.walk_children(with_self=True)]
    if any(not node._message_queue.empty() or node._next_callbacks for node in nodes):
        return False
    if screen._layout_required or screen._repaint_required or screen._dirty_widgets or screen._callbacks:
        return False
    for footer in screen.query(Footer):
        keys = list(footer.query(FooterKey))
        if not any(key.has_class("-command-palette") for key in keys) or not all(key.region.width for key in keys):
            return False
    return True


async def settled(pilot, workers: bool = True) -> None:
    """Wait until the app has handled what the test set off: nothing waiting on the screen (see
    :func:`screen_settled`) and, with ``workers``, no worker left running (leave it False while a
    training run goes on). For a test that asserts what a key did, or that it did nothing."""
    app = pilot.app
    await settle_until(pilot, lambda: not app.is_running or screen_settled(app), "the screen settled", workers)


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
