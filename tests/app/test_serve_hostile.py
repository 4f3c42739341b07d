"""bpe-lab serve against hostile clients (issue 21): the terminal size is clamped, a dropped
client's app process ends, and --max-clients counts live processes.

Real servers on 127.0.0.1 (tests/app/test_serve.py's ``running_server``), real websockets; every
wait is a bounded loop on state (the processes in /proc, what the page answers), never a pause.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import signal
import socket
import struct
import time

import pytest
from extras import skip_without

from tui.cli.serve import MAX_HEIGHT, MAX_WIDTH, QUIT_SECONDS, TERM_SECONDS, clamp_size, end_process

skip_without("serve")
aiohttp = pytest.importorskip("aiohttp")
psutil = pytest.importorskip("psutil")

from test_serve import ANSI, PATIENCE, Tab, own_page, running_server  # noqa: E402

#: The cursor moves of a frame: row, column.
MOVE = re.compile(rb"\x1b\[(\d+);(\d+)H")


def test_clamp_size():
    assert (MAX_WIDTH, MAX_HEIGHT) == (500, 200)  # as docs/bad-input.md says
    assert clamp_size("30000", "30000") == (500, 200)
    assert clamp_size(30000, 5000) == (500, 200)
    assert clamp_size("120", 40) == (120, 40)
    assert clamp_size("0", -5) == (1, 1)
    assert clamp_size("x", None) == (80, 24)
    assert clamp_size("9" * 5000, 1.5e300) == (80, 24)  # no int() of 5000 digits, no float
    assert clamp_size(True, [1]) == (80, 24)


async def test_end_process_escalates_to_sigkill(tmp_path):
    """A process that ignores SIGTERM (as the blocked app did) is killed."""
    process = await asyncio.create_subprocess_exec(
        "python3", "-c", "import signal, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
        "print('ready', flush=True); time.sleep(600)", stdout=asyncio.subprocess.PIPE)
    assert await process.stdout.readline() == b"ready\n"
    await asyncio.wait_for(end_process(process, 0.1, 0.1), PATIENCE)
    assert process.returncode == -signal.SIGKILL


# -- real servers ---------------------------------------------------------------------------------



def app_processes(server_pid: int) -> list[psutil.Process]:
    """The server's live app processes (one per tab; zombies are not live)."""
    found = []
    for child in psutil.Process(server_pid).children(recursive=True):
        try:
            if "--serve-root" in child.cmdline() and child.status() != psutil.STATUS_ZOMBIE:
                found.append(child)
        except psutil.NoSuchProcess:
            pass
    return found


def server_pid(port: int) -> int:
    for conn in psutil.net_connections("tcp"):
        if conn.laddr and conn.laddr.port == port and conn.status == psutil.CONN_LISTEN and conn.pid:
            return conn.pid
    raise AssertionError(f"nothing listens on {port}")


async def until(condition, what: str):
    """Poll ``condition()`` until true (bounded: PATIENCE seconds), and return its value."""
    deadline = time.monotonic() + PATIENCE
    while not (value := condition()):
        assert time.monotonic() < deadline, f"never: {what}"
        await asyncio.sleep(0.05)
    return value


class RawTab:
    """A websocket from a plain socket, to drop the way a closed laptop does (a reset, no close
    handshake) while frames are in flight."""

    def __init__(self, port: int, query: str) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=PATIENCE)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET /ws?{query} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: http://127.0.0.1:{port}\r\n"
                           f"Upgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += self.sock.recv(1)
        assert head.startswith(b"HTTP/1.1 101"), head
        self.received = b""

    def read(self, least: int) -> None:
        while len(self.received) < least:
            self.received += self.sock.recv(65536)

    def text(self) -> str:
        """What the app drew so far: the payloads of the whole binary frames received (the
        server's frames are not masked), without the ANSI sequences."""
        data, at, drawn = self.received, 0, b""
        while len(data) - at >= 2:
            opcode, size, at2 = data[at] & 0x0F, data[at + 1] & 0x7F, at + 2
            if size >= 126:
                width = 2 if size == 126 else 8
                if len(data) - at2 < width:
                    break
                size, at2 = int.from_bytes(data[at2:at2 + width], "big"), at2 + width
            if len(data) - at2 < size:
                break
            if opcode in (0x0, 0x2):
                drawn += data[at2:at2 + size]
            at = at2 + size
        return ANSI.sub(b"", drawn).decode("utf-8", "replace")

    def read_until(self, needle: str) -> None:
        """Read until the app drew ``needle`` (bounded: the socket's timeout is PATIENCE)."""
        deadline = time.monotonic() + PATIENCE
        while needle not in self.text():
            assert time.monotonic() < deadline, f"never drawn: {needle}"
            self.received += self.sock.recv(65536)

    def send_json(self, data) -> None:
        payload = json.dumps(data).encode()
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        assert len(payload) < 126
        self.sock.sendall(bytes([0x81, 0x80 | len(payload)]) + mask + masked)

    def reset(self) -> None:
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.sock.close()


@pytest.mark.slow
async def test_the_terminal_size_is_clamped_in_the_query_and_in_resizes(tmp_path):
    with running_server(tmp_path, "c.txt") as (port, _root, _state):
        async with aiohttp.ClientSession() as http:
            async with http.ws_connect(f"ws://127.0.0.1:{port}/ws?width=30000&height=30000", origin=own_page(port)) as ws:
                tab = Tab(ws)
                await tab.until(lambda text: "step 0" in text)
                (app,) = app_processes(server_pid(port))
                assert (app.environ()["COLUMNS"], app.environ()["ROWS"]) == ("500", "200")
                for size in ({"width": 30000, "height": 30000}, {"width": "40000", "height": 1e9}, {"width": -1}):
                    await ws.send_json(["resize", size])
                await ws.send_json(["resize", {"width": 30000, "height": 30000}])
                frame = b""

                async def drawn() -> bytes:  # a whole screen: the bottom row drawn after the top one
                    nonlocal frame
                    while True:
                        message = await ws.receive()
                        assert message.type in (aiohttp.WSMsgType.BINARY, aiohttp.WSMsgType.TEXT), message
                        if message.type == aiohttp.WSMsgType.BINARY:
                            frame += message.data
                            rows = [int(r) for r, _c in MOVE.findall(frame)]
                            if rows and rows[0] == 1 and max(rows) == MAX_HEIGHT:
                                return frame

                frame = await asyncio.wait_for(drawn(), PATIENCE)
                rows = [int(r) for r, _c in MOVE.findall(frame)]
                assert max(rows) == MAX_HEIGHT
                top = frame.split(b"\x1b[1;1H", 1)[1].split(b"\x1b[2;1H", 1)[0]
                from rich.cells import cell_len

                assert cell_len(ANSI.sub(b"", top).decode("utf-8")) == MAX_WIDTH  # the top border: 500 cells
                assert app.is_running() and app.memory_info().rss < 600 << 20


@pytest.mark.slow
async def test_a_client_dropped_mid_frame_has_its_process_ended(tmp_path):
    with running_server(tmp_path, "c.txt") as (port, _root, state):
        pid = server_pid(port)
        tab = RawTab(port, "width=2000&height=600")  # 500 × 200 (clamped)
        (app,) = await until(lambda: app_processes(pid), "an app process")
        tab.read_until("step 0")  # the corpus has loaded (a tab dropped while loading has nothing to save)
        tab.send_json(["stdin", "n"])  # a merge: the participant's work
        tab.read_until("step 1")
        for k in range(40):  # each a whole new 500×200 screen (about 170 kB) that this client never reads:
            tab.send_json(["resize", {"width": 2000 - k % 2, "height": 600}])  # the socket's buffers fill,
        tab.reset()  # and the app is writing a frame when the client goes
        started = time.monotonic()
        await until(lambda: not app.is_running() or app.status() == psutil.STATUS_ZOMBIE, "the app process ended")
        assert time.monotonic() - started < PATIENCE
        assert app_processes(pid) == []
        # it was asked to quit and had the time to: its session, with the merge, was saved
        (session,) = state.glob("session-*.json")
        assert len(json.loads(session.read_text(encoding="utf-8"))["merges"]) == 1


@pytest.mark.slow
async def test_max_clients_counts_live_processes_not_websockets(tmp_path):
    """A tab whose client is gone but whose process lives (here: stopped, as a blocked one is)
    holds its place until the process is ended: SIGTERM, then SIGKILL."""
    with running_server(tmp_path, "c.txt", "--max-clients", "1") as (port, _root, _state):
        pid = server_pid(port)
        tab = RawTab(port, "width=100&height=30")
        tab.read(5000)
        (app,) = await until(lambda: app_processes(pid), "an app process")
        app.suspend()  # SIGSTOP: it can neither quit nor act on SIGTERM
        tab.reset()
        async with aiohttp.ClientSession() as http:
            async with http.get(f"http://127.0.0.1:{port}/") as page:
                assert app.is_running() and app.status() != psutil.STATUS_ZOMBIE
                assert page.status == 503  # the client is gone, its process is not
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await http.ws_connect(f"ws://127.0.0.1:{port}/ws", origin=own_page(port))
            assert refused.value.status == 503
            started = time.monotonic()
            await until(lambda: not app.is_running() or app.status() == psutil.STATUS_ZOMBIE, "the stopped app killed")
            assert time.monotonic() - started < QUIT_SECONDS + TERM_SECONDS + PATIENCE

            async def free() -> bool:
                async with http.get(f"http://127.0.0.1:{port}/") as page:
                    return page.status == 200

            deadline = time.monotonic() + PATIENCE
            while not await free():
                assert time.monotonic() < deadline, "the place never came free"
                await asyncio.sleep(0.05)
            async with http.ws_connect(f"ws://127.0.0.1:{port}/ws", origin=own_page(port)) as ws:  # a new tab gets the place
                await Tab(ws).until(lambda text: "step 0" in text)


# -- a tab's files: saves never replace what the tab did not write; lessons stay in the root -------

from textual.widgets import Input, Label  # noqa: E402

from tui.model.confine import Confinement, NotThisTabsError, OutsideRootError, deliver  # noqa: E402

from test_serve_confine import SIZE, rooms, said, save_as, served_app  # noqa: E402, F401


def test_a_save_replaces_only_the_tabs_own_files(tmp_path):
    (tmp_path / "c.txt").write_text("the class corpus\n", encoding="utf-8")
    one, two = Confinement(tmp_path, tab="tab1"), Confinement(tmp_path, tab="tab2")
    with pytest.raises(NotThisTabsError, match=r"^c.txt is in the shared folder and was not saved from this tab: "
                       r"choose another name \(a tab replaces only its own files\)$"):
        one.replaceable("c.txt")
    assert one.own_name("c-300", ".json") == "c-300-tab1.json" != two.own_name("c-300", ".json")
    mine = one.replaceable("c-300-tab1.json")
    mine.write_text("one's copy", encoding="utf-8")
    one.wrote(mine)
    assert one.replaceable("c-300-tab1.json") == mine  # its own: saved again
    with pytest.raises(NotThisTabsError):
        two.replaceable("c-300-tab1.json")  # another tab's copy
    (tmp_path / "c-300-tab2.json").write_text("a stranger's", encoding="utf-8")
    assert two.own_name("c-300", ".json") == "c-300-tab2-2.json"  # the default steps around a taken name
    with pytest.raises(OutsideRootError):
        one.replaceable("../elsewhere.json")


def test_the_download_is_the_bytes_just_written(tmp_path):
    """What the browser gets is the copy as this tab wrote it, read at once: not whatever the
    file holds when textual-serve gets round to streaming it."""
    sent = []

    class Web:
        is_web = True
        confinement = Confinement(tmp_path)

        def deliver_binary(self, what, **options):
            sent.append((what, options))

    path = tmp_path / "tok.json"
    path.write_bytes(b"mine")
    assert deliver(Web(), path)
    path.write_bytes(b"replaced later")
    ((what, options),) = sent
    assert what.read() == b"mine" and options == {"save_filename": "tok.json"}
    assert path.resolve() in Web.confinement.written


def test_a_lessons_inline_text_is_readable_in_serve_mode(tmp_path, monkeypatch):
    from tui.lessons.directives import text_file

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    (tmp_path / "root").mkdir()
    rules = Confinement(tmp_path / "root")
    kept = text_file("a text a lesson holds")
    assert rules.readable(kept) == kept.resolve()
    with pytest.raises(OutsideRootError):
        rules.readable(tmp_path / "state" / "bpe-lab" / "serve" / "session-x.json")
    with pytest.raises(OutsideRootError):
        rules.writable(kept)


@pytest.mark.slow
async def test_in_a_tab_saving_over_the_class_corpus_is_refused(rooms, monkeypatch):  # noqa: F811
    root, _outside = rooms
    monkeypatch.chdir(root)
    app = served_app(root)
    before = (root / "c.txt").read_bytes()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n")
        await pilot.press("s")
        default = app.screen.query_one(Input).value
        assert default == f"c-257-tab{os.getpid()}.json"
        await pilot.press("escape")
        await save_as(app, pilot, "c.txt")
        assert said(app) == ("not saved: c.txt: c.txt is in the shared folder and was not saved from this tab: "
                             "choose another name (a tab replaces only its own files)")
        assert (root / "c.txt").read_bytes() == before
        await save_as(app, pilot, default)
        await save_as(app, pilot, default)  # its own copy: replaced
        assert said(app).startswith(f"saved {default}")


@pytest.mark.slow
async def test_a_served_lesson_says_nothing_of_files_outside_the_root(rooms, monkeypatch):  # noqa: F811
    root, outside = rooms
    monkeypatch.chdir(root)
    (root / "lessons").mkdir()
    app = served_app(root)
    async with app.run_test(size=SIZE) as pilot:
        shown = []
        for named in (str(outside / "secret.txt"), str(outside / "missing.json"), "../../outside", "../out.txt"):
            lesson = root / "lessons" / "l.md"
            lesson.write_text(f'+++\ntitle = "t"\n+++\n## one\n```bpe\nopen sample=qa.txt\nreplay {named}\n```\n',
                              encoding="utf-8")
            await pilot.press("l")
            typed = app.screen.query_one("#lesson-path", Input)
            typed.value = "lessons/l.md"
            typed.focus()
            await pilot.press("enter")
            await pilot.pause()
            assert not app.lesson, (named, said(app) if app.toasts.texts() else "")
            shown.append(str(app.screen.query_one("#lesson-error", Label).render()))
            await pilot.press("escape")
        # the same line whether the file exists, is missing or a folder, or a link inside leads out
        assert shown == [f"{lesson}:7: {named} is outside the folder this server shares: a lesson opens only files in it"
                         for named in (str(outside / "secret.txt"), str(outside / "missing.json"), "../../outside",
                                       "../out.txt")]
