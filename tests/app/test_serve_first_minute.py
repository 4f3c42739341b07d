"""A class's first minute in the browser (issue 39): the footer's keys are on the first frame,
before anyone clicks the page, and a tab closed as soon as it opened prints nothing in the
instructor's terminal. Real servers on 127.0.0.1 (test_serve.running_server); the quit during the
main screen's set-up is also made exactly, with Pilot."""

from __future__ import annotations

import asyncio

import pytest
from helpers import app_on

from tui.app.screens import main as main_screen

aiohttp = pytest.importorskip("aiohttp")
pytest.importorskip("textual_serve")
psutil = pytest.importorskip("psutil")

from test_serve import Tab, own_page, running_server  # noqa: E402
from test_serve_hostile import app_processes, server_pid, until  # noqa: E402


async def test_a_quit_while_the_main_screen_is_set_up_ends_cleanly(monkeypatch):
    """The browser tab closed at once: textual-serve asks the app to quit while its main screen is
    being composed, and the screen's mount found no panes (NoMatches, a traceback)."""
    compose = main_screen.MainScreen.compose

    def compose_then_quit(self):
        yield from compose(self)
        self.app.exit()

    monkeypatch.setattr(main_screen.MainScreen, "compose", compose_then_quit)
    app = app_on("mueller.txt", autosave=False)
    async with app.run_test() as pilot:
        await pilot.pause()
    assert app._exception is None  # run_test re-raises an app's error; this says which was none
    assert app.return_code == 0


@pytest.mark.slow
async def test_the_footer_is_on_the_first_frame_before_any_click(tmp_path):
    """textual-serve starts each app blurred (the page has not been clicked): Textual's footer
    drew no keys until a focus came. No focus is sent here, as none is before a click."""
    with running_server(tmp_path, "c.txt") as (port, _root, _state):
        async with aiohttp.ClientSession() as http, http.ws_connect(f"ws://127.0.0.1:{port}/ws?width=100&height=30", origin=own_page(port)) as ws:
            tab = Tab(ws)
            shown = await tab.until(lambda text: "step 0" in text and "Run/Pause" in text)
            assert "Step" in shown and "Help" in shown and "palette" in shown


@pytest.mark.slow
async def test_tabs_closed_as_they_open_print_nothing(tmp_path):
    """Tabs closed at once, at the first frame and just after it: every app process ends and the
    server's terminal shows no traceback (it showed NoMatches: '#corpus' for 3 closes in 5)."""
    with running_server(tmp_path, "c.txt") as (port, _root, _state):
        pid = server_pid(port)
        async with aiohttp.ClientSession() as http:
            for frames in (0, 1, 2, 0, 1, 2):  # close after this many frames of the app
                async with http.ws_connect(f"ws://127.0.0.1:{port}/ws?width=100&height=30", origin=own_page(port)) as ws:
                    seen = 0
                    while seen < frames:
                        message = await asyncio.wait_for(ws.receive(), 90)
                        seen += message.type == aiohttp.WSMsgType.BINARY
        await until(lambda: not app_processes(pid), "every tab's app process ended")
        log = (tmp_path / "serve.log").read_text(encoding="utf-8")
        assert "Traceback" not in log and "Error" not in log, log
