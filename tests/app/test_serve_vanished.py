"""A client that vanishes without closing (a closed laptop, a cut network: no close frame, no
reset, the socket simply goes silent) is found by the websocket's ping, and its tab's app
process ends within a bounded time (issue 21). A real server on 127.0.0.1, a real websocket;
bounded loops on the processes in /proc."""

from __future__ import annotations

import json
import time

import pytest
from extras import skip_without

from tui.cli.serve import HEARTBEAT_SECONDS, QUIT_SECONDS, TERM_SECONDS

skip_without("serve")
psutil = pytest.importorskip("psutil")

from test_serve import running_server  # noqa: E402
from test_serve_hostile import RawTab, app_processes, server_pid, until  # noqa: E402

#: aiohttp's default heartbeat, which textual-serve used: a vanished tab lived at least this long.
OLD_HEARTBEAT = 15.0


def test_the_heartbeat_is_a_few_seconds():
    assert HEARTBEAT_SECONDS <= 5 < OLD_HEARTBEAT


@pytest.mark.slow
async def test_a_vanished_client_has_its_process_ended(tmp_path):
    with running_server(tmp_path, "c.txt") as (port, _root, state):
        pid = server_pid(port)
        tab = RawTab(port, "width=80&height=24")
        (app,) = await until(lambda: app_processes(pid), "an app process")
        tab.read_until("step 0")
        tab.send_json(["stdin", "n"])
        tab.read_until("step 1")
        # from now on the client is silent: it reads nothing, answers no ping, never closes
        vanished = time.monotonic()
        await until(lambda: not app.is_running() or app.status() == psutil.STATUS_ZOMBIE, "the app process ended")
        took = time.monotonic() - vanished
        # the ping finds it (one heartbeat, and half of one for the pong), then the app quits;
        # well inside the old heartbeat alone (a bound, not a timing: the whole path is 6 s)
        assert took < OLD_HEARTBEAT, took
        assert app_processes(pid) == []
        (session,) = state.glob("session-*.json")  # it quit, and saved the merge
        assert len(json.loads(session.read_text(encoding="utf-8"))["merges"]) == 1
        tab.sock.close()
    assert HEARTBEAT_SECONDS * 1.5 + QUIT_SECONDS + TERM_SECONDS < OLD_HEARTBEAT


@pytest.mark.slow
async def test_a_message_above_the_bound_ends_the_tab_not_the_app_fed_its_keys(tmp_path):
    """A client sending 300 kB of keys in one message (aiohttp would take 4 MB: four million
    merges asked of the app) has its websocket closed as too big, and its app ends."""
    import aiohttp

    from tui.cli.serve import MAX_MESSAGE_BYTES

    from test_serve import Tab, own_page

    with running_server(tmp_path, "c.txt") as (port, _root, _state):
        async with aiohttp.ClientSession() as http:
            async with http.ws_connect(f"ws://127.0.0.1:{port}/ws", origin=own_page(port)) as ws:
                await Tab(ws).until(lambda text: "step 0" in text)
                (app,) = app_processes(server_pid(port))
                await ws.send_json(["stdin", "n" * (MAX_MESSAGE_BYTES + 1)])
                while (await ws.receive()).type not in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
                    pass
                assert ws.close_code == aiohttp.WSCloseCode.MESSAGE_TOO_BIG
            await until(lambda: not app.is_running() or app.status() == psutil.STATUS_ZOMBIE, "the app process ended")
