"""A browser tab's session is saved however its app ends (issue 21, item 9's "never lost work"):
a closed tab while a batch holds the trainer, and a SIGTERM (the server stopped, or it ended a
tab whose client is gone) both write the merges made.

The app-level test runs the app in the test (Pilot); the other a real server on 127.0.0.1 and a
real websocket, with bounded loops on state (tests/test_serve.py's helpers).
"""

from __future__ import annotations

import json
import signal
import threading

import pytest
from extras import skip_without

from engine import TrainConfig
from tui.app import BpeApp
from tui.app.options import LaunchOptions
from tui.model.confine import Confinement
from tui.model.workbench import READ_WAIT, LoadedCorpus

CONFIG = TrainConfig(vocab_size=300)


@pytest.mark.slow
async def test_a_closed_tab_saves_though_a_batch_holds_the_trainer(tmp_path, monkeypatch):
    """The close comes while the worker holds the trainer for longer than a read waits (a slow
    merge on a large corpus): the save waits for the batch instead of skipping it."""
    monkeypatch.setattr("tui.app.lab.AUTOSAVE_SECONDS", 3600)  # only the close saves
    session_file = tmp_path / "tab-session.json"
    app = BpeApp(LoadedCorpus.open("sample:workshop.txt", CONFIG.base), CONFIG,
                 options=LaunchOptions(session_file=session_file))
    app.confinement = Confinement(tmp_path)  # a browser tab's app: its close saves (shell.on_unmount)
    held = threading.Event()

    def batch() -> None:  # what the training worker does during one long batch
        workbench = app.workbench
        with workbench.lock:
            workbench.training = True
            held.set()
            threading.Event().wait(10 * READ_WAIT)  # a batch far longer than a read waits for
            workbench.training = False

    async with app.run_test(size=(80, 24)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("n", "n")
        await pilot.pause()
        assert app.workbench.steps == 2
        assert not session_file.exists()
        holder = threading.Thread(target=batch)
        holder.start()
        assert held.wait(10)  # the tab closes during the batch
    holder.join(10)
    data = json.loads(session_file.read_text(encoding="utf-8"))
    assert len(data["merges"]) == 2 and data["step"] == 2


@pytest.mark.slow
async def test_a_tab_ended_by_sigterm_saves_its_session(tmp_path):
    skip_without("serve")
    aiohttp = pytest.importorskip("aiohttp")
    psutil = pytest.importorskip("psutil")
    from test_serve import Tab, own_page, running_server
    from test_serve_hostile import app_processes, server_pid, until

    with running_server(tmp_path, "c.txt") as (port, _root, state):
        async with aiohttp.ClientSession() as http:
            async with http.ws_connect(f"ws://127.0.0.1:{port}/ws", origin=own_page(port)) as ws:
                tab = Tab(ws)
                await tab.until(lambda text: "step 0" in text)
                await tab.keys("n", "n", "n")
                await tab.until(lambda text: "step 3" in text)
                (app,) = app_processes(server_pid(port))
                app.send_signal(signal.SIGTERM)  # as `kill` of the server's process group does
                await until(lambda: not app.is_running() or app.status() == psutil.STATUS_ZOMBIE, "the app ended")
        (session,) = state.glob("session-*.json")
        assert len(json.loads(session.read_text(encoding="utf-8"))["merges"]) == 3
