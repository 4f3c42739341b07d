"""bpe-lab serve for real: a server on a free loopback port, its page, its websocket, app processes,
downloads, --max-clients, a session file per tab, and the page in headless Chromium.

Every server binds only to 127.0.0.1, runs in a process group of its own, and is stopped (with
every app process it started) by the test that started it, pass or fail.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from extras import skip_without

from engine import load_tokenizer

skip_without("serve")
aiohttp = pytest.importorskip("aiohttp")

pytestmark = pytest.mark.slow

#: ANSI control sequences, so the frames' text can be searched.
ANSI = re.compile(rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[()][A-Z0-9]|\x1b[=>78]")
#: A bound on how long anything may take before the test fails instead of hanging (never a pause).
PATIENCE = 90


def own_page(port: int) -> str:
    """The Origin a browser sends with the websocket of the server's own page (served on
    127.0.0.1): a websocket without it is refused (tui/cli/serve_origin.py)."""
    return f"http://127.0.0.1:{port}"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def running_server(tmp_path: Path, *args: str) -> Iterator[tuple[int, Path, Path]]:
    """``bpe-lab serve`` on 127.0.0.1 and a free port, serving tmp_path/root (holding c.txt);
    yields the port, the root and the serve state folder; stops everything it started. What the
    server and its app processes print (the instructor's terminal) goes to tmp_path/serve.log."""
    root = tmp_path / "root"
    root.mkdir(exist_ok=True)
    (root / "c.txt").write_text("the cat in the hat sat on the mat\nthe cat ate the rat\n" * 3, encoding="utf-8")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "BPE_LAB_SESSION"}  # as a user runs it
    env["XDG_STATE_HOME"] = str(tmp_path / "state")
    command = [sys.executable, "-P", "-m", "tui.main", "serve", "--host", "127.0.0.1", "--port", str(port),
               "--root", str(root), *args]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, cwd=root,
                              start_new_session=True)
    ready, lines = threading.Event(), []

    def drain() -> None:  # the log must be read, or a full pipe stops the server
        with (tmp_path / "serve.log").open("w", encoding="utf-8") as log:
            for line in server.stdout:
                lines.append(line.decode("utf-8", "replace"))
                log.write(lines[-1])
                log.flush()
                if "serving" in lines[-1]:
                    ready.set()
        ready.set()

    threading.Thread(target=drain, daemon=True).start()
    try:
        assert ready.wait(PATIENCE) and server.poll() is None, "".join(lines)
        assert f"serving {root.resolve()} on http://localhost:{port}" in "".join(lines)
        yield port, root, tmp_path / "state" / "bpe-lab" / "serve"
    finally:
        stop(server.pid, signal.SIGTERM)
        try:
            server.wait(PATIENCE)
        finally:
            stop(server.pid, signal.SIGKILL)  # any app process still there
            server.wait()


def stop(group: int, sig: int) -> None:
    """Signal the server's process group (itself and the app processes it started)."""
    try:
        os.killpg(group, sig)
    except ProcessLookupError:
        pass


class Tab:
    """One browser tab's websocket: what its app drew (text), and keys to send."""

    def __init__(self, ws) -> None:
        self.ws = ws
        self.screen = b""
        self.texts: list = []

    async def until(self, found: Callable[[str], bool]) -> str:
        """Read frames until ``found(text drawn since the last call)``; the text."""
        async def read() -> str:
            while True:
                message = await self.ws.receive()
                if message.type == aiohttp.WSMsgType.BINARY:
                    self.screen += message.data
                    text = ANSI.sub(b"", self.screen).decode("utf-8", "replace")
                    if found(text):
                        self.screen = b""
                        return text
                elif message.type == aiohttp.WSMsgType.TEXT:
                    self.texts.append(json.loads(message.data))
                    if found(""):
                        return ""
                else:
                    raise AssertionError(f"the websocket ended: {message}")

        return await asyncio.wait_for(read(), PATIENCE)

    async def keys(self, *keys: str) -> None:
        for key in keys:
            await self.ws.send_json(["stdin", key])


async def test_page_websocket_first_frame_and_a_download(tmp_path):
    with running_server(tmp_path, "c.txt", "--allow-host", "classroom-laptop") as (port, root, _state):
        async with aiohttp.ClientSession() as http:
            for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"classroom-laptop:{port}"):
                async with http.get(f"http://127.0.0.1:{port}/", headers={"Host": host}) as page:
                    assert page.status == 200
                    html = await page.text()
                assert 'id="terminal"' in html and ">bpe-lab<" in html  # textual-serve's page, our app
                assert f'data-session-websocket-url="ws://{host}/ws"' in html  # the address the browser used
                assert f'src="http://{host}/static/js/textual.js"' in html
            async with http.ws_connect(f"ws://127.0.0.1:{port}/ws?width=100&height=30", origin=own_page(port)) as ws:
                tab = Tab(ws)
                first = await tab.until(lambda text: "step 0" in text)  # the app's first frame
                assert "the cat in the hat" in first and "c.txt" in first
                await tab.keys("n")
                await tab.until(lambda text: "step 1" in text)
                await tab.keys("s")
                await tab.until(lambda text: "Save tokenizer" in text)
                await tab.keys("\r")
                await tab.until(lambda text: any(t[0] == "deliver_file_start" for t in tab.texts))
                key = next(t[1] for t in tab.texts if t[0] == "deliver_file_start")
                async with http.get(f"http://127.0.0.1:{port}/download/{key}") as download:
                    assert download.status == 200
                    named = re.search(r"attachment; filename=(c-257-tab\d+\.json)", download.headers["Content-Disposition"])
                    assert named, download.headers["Content-Disposition"]  # the default name is this tab's own
                    delivered = await download.read()
                tab.texts.clear()
                await tab.keys("\x10")  # ctrl+p: the palette's Screenshot (the X key's) delivers the SVG too
                await tab.until(lambda text: "Search for commands" in text)
                await tab.keys(*"Screenshot")
                await tab.until(lambda text: "save the screen as an SVG" in text)
                await tab.keys("\r")
                await tab.until(lambda text: any(t[0] == "deliver_file_start" for t in tab.texts))
                key = next(t[1] for t in tab.texts if t[0] == "deliver_file_start")
                async with http.get(f"http://127.0.0.1:{port}/download/{key}") as download:
                    assert download.status == 200 and download.headers["Content-Type"].startswith("image/svg+xml")
                    picture = await download.read()
        saved = root / named.group(1)  # written under --root too
        assert saved.read_bytes() == delivered and len(load_tokenizer(saved).merges) == 1
        (shot,) = root.glob("*.svg")
        assert shot.read_bytes() == picture and b"<svg" in picture


async def test_max_clients_and_a_session_file_for_each_tab(tmp_path):
    with running_server(tmp_path, "c.txt", "--max-clients", "2") as (port, _root, state):
        async with aiohttp.ClientSession() as http:
            async with http.ws_connect(f"ws://127.0.0.1:{port}/ws", origin=own_page(port)) as one, http.ws_connect(f"ws://127.0.0.1:{port}/ws", origin=own_page(port)) as two:
                tabs = [Tab(one), Tab(two)]
                for tab in tabs:
                    await tab.until(lambda text: "step 0" in text)
                async with http.get(f"http://127.0.0.1:{port}/") as page:  # a third tab: a clear page
                    assert page.status == 503
                    assert "the class is full" in await page.text()
                with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                    await http.ws_connect(f"ws://127.0.0.1:{port}/ws", origin=own_page(port))
                assert refused.value.status == 503
                for steps, tab in zip((1, 2), tabs):
                    await tab.keys(*"n" * steps)
                    await tab.until(lambda text, steps=steps: f"step {steps}" in text)
                    await tab.keys("q")
                    await tab.until(lambda text: "Quit bpe-lab?" in text)
                    await tab.keys("y")
                    with pytest.raises(AssertionError, match="websocket ended"):
                        await tab.until(lambda text: False)  # the app quit, its websocket closed
            async with http.get(f"http://127.0.0.1:{port}/") as page:  # the places are free again
                assert page.status == 200
        sessions = sorted(state.glob("session-*.json"))
        assert len(sessions) == 2, sessions  # no tab wrote over another's
        assert sorted(len(json.loads(p.read_text())["merges"]) for p in sessions) == [1, 2]


def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        pytest.skip("chromium is not installed (apt-get install chromium)")
    return path


#: Non-background pixels on xterm's canvas, and a fingerprint of what is drawn (in the page).
CANVAS = """() => {
  const canvas = document.querySelector('#terminal canvas');
  if (!canvas) return null;
  const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  let inked = 0, hash = 0;
  for (let i = 0; i < data.length; i += 4) {
    if (data[i + 3] > 0 && (data[i] + data[i + 1] + data[i + 2]) > 60) inked++;
    hash = (hash * 31 + data[i] + 7 * data[i + 1] + 13 * data[i + 2]) | 0;
  }
  return {inked, hash, width: canvas.width, height: canvas.height};
}"""


def test_the_app_in_headless_chromium(tmp_path):
    executable = chromium()
    sync_api = pytest.importorskip("playwright.sync_api")
    with running_server(tmp_path, "c.txt") as (port, root, _state), sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1000, "height": 700}, accept_downloads=True)
            page.goto(f"http://localhost:{port}/", timeout=PATIENCE * 1000)
            page.wait_for_selector("body.-first-byte", timeout=PATIENCE * 1000)  # the app's first frame arrived
            drawn = page.wait_for_function(f"(() => {{ const c = ({CANVAS})(); return c && c.inked > 2000 && c; }})",
                                           timeout=PATIENCE * 1000).json_value()
            page.screenshot(path=str(tmp_path / "browser.png"))
            assert drawn["inked"] > 0.01 * drawn["width"] * drawn["height"]  # text and borders, not a blank page
            page.locator("#terminal").click()
            page.keyboard.press("n")  # keys reach the app: it redraws
            page.wait_for_function(f"(() => ({CANVAS})().hash !== {drawn['hash']})", timeout=PATIENCE * 1000)
            with page.expect_download(timeout=PATIENCE * 1000) as download:
                page.keyboard.press("s")
                page.keyboard.press("Enter")
            delivered = Path(download.value.path()).read_bytes()
            assert download.value.suggested_filename.startswith("c-") and download.value.suggested_filename.endswith(".json")
            assert json.loads(delivered)["format"] == "bpe-lab"
            assert (root / download.value.suggested_filename).read_bytes() == delivered
        finally:
            browser.close()
