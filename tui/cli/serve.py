"""``bpe-lab serve``: the app in a browser, one app process for each tab (textual-serve).

textual-serve does the serving: its page, its websocket, one process per connection, file
downloads. This module configures it: the command each tab runs (the app in serve mode,
confined to ``--root``, with a session file of its own), a bound on the number of processes
(textual-serve has none), and page URLs that follow the address a participant typed. And it
answers only its own page: a request whose ``Host`` is not an address of the server, or a
websocket whose ``Origin`` is not the page's, is refused (403) before any app starts
(tui/cli/serve_origin.py). And it clamps what a client sends: a terminal at most :data:`MAX_WIDTH` × :data:`MAX_HEIGHT` cells
(in the websocket's query and in resize messages); a client that vanished without closing is
found by the websocket's ping (:data:`HEARTBEAT_SECONDS`), and a tab's app process that outlives its
client is ended (asked to quit, then SIGTERM, then SIGKILL); a place is free only once its
process has exited.
"""

from __future__ import annotations

import argparse
import asyncio
import html
import importlib.util
import os
import shlex
import signal
import socket
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from tui.cli.common import PROG, Parser, guarded
from tui.cli.serve_origin import Gate, host_option, origin_option, public_url_option
from tui.i18n import _, ngettext

#: At most this many app processes (browser tabs) at once, unless --max-clients says otherwise: a
#: class of 30 with room for tabs opened twice (docs/classroom.md says how to size it).
DEFAULT_MAX_CLIENTS = 40
#: The largest terminal a browser tab gets, in cells (a client asking for more gets this): the
#: app's memory grows with the screen (5000 × 3000 held about 240 MB a tab).
MAX_WIDTH, MAX_HEIGHT = 500, 200
#: Once its client is gone, a tab's app has this long to quit (and save its session), then
#: SIGTERM; this long again, then SIGKILL.
QUIT_SECONDS, TERM_SECONDS = 3.0, 2.0
#: A write to an app's input that waits longer than this (the app reads nothing) is dropped.
SEND_SECONDS = 5.0
#: The websocket pings its client this often; a client that answers no ping within half of it
#: has vanished (a closed laptop, a cut network: no close ever comes) and its tab ends. Browsers
#: answer pings themselves, busy page or not; aiohttp's default in textual-serve is 15 s.
HEARTBEAT_SECONDS = 4.0
#: The largest message a client may send (aiohttp's default: 4 MB); the page sends keys, pastes
#: and sizes. A longer one closes its websocket (and so ends its tab) instead of handing the app
#: millions of keys.
MAX_MESSAGE_BYTES = 256 << 10
#: The serving terminal names at most this many refused requests (each reason once): a page that
#: knocks again and again does not fill it.
MAX_REFUSALS_SHOWN = 20


def clamp_size(width: object, height: object) -> tuple[int, int]:
    """A terminal size a client asked for (query text or JSON), within 1..MAX_WIDTH ×
    1..MAX_HEIGHT; anything that is not a whole number gives the default 80 × 24.

    Example: ``clamp_size("30000", 0)`` -> ``(500, 1)``; ``clamp_size("x", None)`` -> ``(80, 24)``
    """
    def one(value: object, default: int, most: int) -> int:
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            return default
        if isinstance(value, str) and not (value.isascii() and value.strip().isdigit() and len(value.strip()) <= 9):
            return default
        return max(1, min(int(value), most))

    return one(width, 80, MAX_WIDTH), one(height, 24, MAX_HEIGHT)


async def end_process(process: asyncio.subprocess.Process, quit_seconds: float = QUIT_SECONDS,
                      term_seconds: float = TERM_SECONDS) -> None:
    """Wait for ``process`` to exit: ``quit_seconds`` (it was asked to quit), then SIGTERM and
    ``term_seconds``, then SIGKILL until it is gone."""
    for sig, seconds in ((None, quit_seconds), (signal.SIGTERM, term_seconds), (signal.SIGKILL, None)):
        if sig is not None and process.returncode is None:
            try:
                process.send_signal(sig)
            except ProcessLookupError:
                pass
        try:
            await asyncio.wait_for(process.wait(), seconds)
            return
        except TimeoutError:
            continue


class ServeError(ValueError):
    """Serving cannot start; the message is one line for the user."""


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog=f"{PROG} serve",
        allow_abbrev=False,  # an app option must never be taken for an abbreviation of serve's (--r, --m ...)
        description="Serve the app to web browsers: each tab gets its own app process. Other options "
        "(CORPUS, training options, --run, --speed, --tokenizer ...) are the app's, for every tab.",
    )
    parser.add_argument("--host", default="127.0.0.1",
                        help="the address to listen on (default 127.0.0.1: this machine only; 0.0.0.0: every network)")
    parser.add_argument("--port", type=port_number, default=8000, help="the port to listen on (default 8000)")
    parser.add_argument("--root", default=".", metavar="DIR",
                        help="the one folder the app may open files from and save to (default: the current folder); "
                             "the bundled samples and lessons can be opened too")
    parser.add_argument("--max-clients", type=client_count, default=DEFAULT_MAX_CLIENTS, metavar="N",
                        help=f"at most N browser tabs (app processes) at once (default {DEFAULT_MAX_CLIENTS}): allow "
                             "one and a half per participant (a reloaded tab holds its place for a few seconds), "
                             "and check that N tabs fit in this machine's memory: each is an app process of "
                             "its own (see docs/classroom.md)")
    parser.add_argument("--public-url", metavar="URL", type=public_url_option,
                        help="the address participants use, when a reverse proxy stands in front "
                             "(default: the address each browser asked for); its origin and host are allowed")
    parser.add_argument("--allow-origin", metavar="URL", type=origin_option, action="append", default=[],
                        help="a page origin (scheme://host[:port]) whose websocket is accepted besides the "
                             "server's own page, as a reverse proxy's (repeatable)")
    parser.add_argument("--allow-host", metavar="NAME", type=host_option, action="append", default=[],
                        help="a host name (or IP address) the server answers to, at any port, besides its own "
                             "addresses: a name a reverse proxy or the class's network gives it (repeatable)")
    return parser


def port_number(text: str) -> int:
    """A TCP port, 1–65535 (argparse type)."""
    if not text.isdigit() or not 1 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port (1 to 65535)")
    return int(text)


def client_count(text: str) -> int:
    """A number of clients, 1 or more (argparse type)."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of clients (1 or more)")
    return int(text)


def main(argv: Sequence[str], *, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run ``bpe-lab serve``; every failure the user can cause is one line and exit code 2."""
    out, err = out or sys.stdout, err or sys.stderr
    return guarded(lambda: serve(argv, out, err), err, ("serve",))


def serve(argv: Sequence[str], out: TextIO, err: TextIO) -> int:
    args, app_args = build_parser().parse_known_args(list(argv))
    if importlib.util.find_spec("textual_serve") is None:
        from tui.extras import install_command

        raise ServeError(f"serving in a browser needs textual-serve: {install_command('serve')}")
    root = Path(args.root).expanduser()
    if not root.is_dir():
        raise ServeError(f"--root {args.root}: {'is a file, not a folder' if root.exists() else 'no such folder'}")
    check_app_args(app_args, root)
    check_port(args.host, args.port)
    sessions = serve_state_dir()
    command = "exec " + shlex.join([sys.executable, "-P", "-m", "tui.main", "--serve-root", str(root.resolve()),
                          "--serve-sessions", str(sessions), *app_args])
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"{PROG}: warning: serving on {args.host}: anyone who can reach this machine on port {args.port} "
              "can use the app, with no password; use it only on a trusted network (see docs/classroom.md)",
              file=err)
    from tui.cli.serve_cost import cost_line

    cost = cost_line(app_args, root, args.max_clients)  # what a tab costs: the instructor sizes --max-clients
    if cost is not None:
        print(cost, file=out, flush=True)
    server = classroom_server(command, host=args.host, port=args.port, max_clients=args.max_clients,
                              public_url=args.public_url, root=root.resolve(), out=out, err=err,
                              allow_origins=args.allow_origin, allow_hosts=args.allow_host)
    run_server(server)
    return 0


def check_app_args(app_args: Sequence[str], root: Path) -> None:
    """The app's options, checked as a tab's app will check them, so that a mistake is one line
    now and not a failed app in every browser."""
    from engine.text import pretokenizer_for
    from tui.cli.app_options import build_parser as app_parser
    from tui.cli.app_options import confine_args
    from tui.cli.common import config_from_args

    args = app_parser().parse_args([*app_args, "--serve-root", str(root)])
    typed, typed_counts = args.corpus, args.counts
    rules = confine_args(args)
    if typed and not typed.startswith("sample:") and not os.path.isfile(args.corpus):
        raise ServeError(f"{typed}: no such file")
    if not args.tokenizer:
        pretokenizer_for(config_from_args(args))
    else:  # read now, with every file that comes with it kept in the root: one line, not a failed tab each
        from engine.formats import load_any
        from engine.text import PreTokenizer, pretokenizer_named

        pattern = pretokenizer_named(args.pattern_name) if args.pattern_name else (
            PreTokenizer("custom", args.pattern) if args.pattern else None)
        with rules.reading():
            load_any(args.tokenizer, pretokenizer=pattern)
    if args.counts is not None:  # read now: a bad table would leave every tab at "loading" in the browser
        from tui.cli.app_options import table_corpus

        args.counts = typed_counts  # inside the root (checked), and named as typed
        table_corpus(args, config_from_args(args))


def check_port(host: str, port: int) -> None:
    """Refuse, in one line, a host that cannot be listened on or a port already in use."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except OSError as exc:
        raise ServeError(f"--host {host}: cannot listen there ({exc.strerror or exc})") from None
    family, kind, proto, _name, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as aiohttp does
        try:
            probe.bind(address)
        except OSError as exc:
            reason = "in use (another server?)" if exc.errno == 98 else (exc.strerror or str(exc))
            raise ServeError(f"{host}:{port}: {reason}: choose another --port") from None


def serve_state_dir() -> Path:
    """``$XDG_STATE_HOME/bpe-lab/serve``: each tab's session file (``session-<time>-<pid>.json``)."""
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    folder = Path(state) / "bpe-lab" / "serve"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ServeError(f"{folder}: cannot make the session folder ({exc.strerror or exc})") from None
    return folder


def run_server(server) -> None:
    """Serve until Ctrl+C or SIGTERM (separate, so tests of bad input can refuse to start one)."""
    server.serve()


def full_page(max_clients: int) -> str:
    """The page a browser gets when every place is taken."""
    title = _("bpe-lab: the class is full")
    message = ngettext("{count} browser tab is already connected, the most this server takes (--max-clients {count}). "
                       "Try again when it is closed.",
                       "{count} browser tabs are already connected, the most this server takes (--max-clients {count}). "
                       "Try again when someone closes their tab.", max_clients).format(count=max_clients)
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title></head>"
            f"<body><h1>{html.escape(title)}</h1><p>{html.escape(message)}</p></body></html>")


def classroom_server(command: str, *, host: str, port: int, max_clients: int, public_url: str | None,
                     root: Path, out: TextIO, err: TextIO | None = None, allow_origins: Sequence[str] = (),
                     allow_hosts: Sequence[str] = (), hostnames: Sequence[str] | None = None):
    """A textual-serve ``Server`` that starts at most ``max_clients`` app processes, builds its
    page's URLs from the address the browser used (localhost, an IP or a host name alike), and
    answers only its own page (:class:`tui.cli.serve_origin.Gate`; ``hostnames``: the machine's
    names, which an every-network bind answers to, found by default)."""
    from aiohttp import WSMsgType, web
    from textual_serve.app_service import AppService
    from textual_serve.server import Server, log

    class TabService(AppService):
        """One tab's app process: sizes clamped, never blocked on a gone client, always ended."""

        async def set_terminal_size(self, width: int, height: int) -> None:
            await super().set_terminal_size(*clamp_size(width, height))

        async def send_bytes(self, data: bytes) -> bool:
            try:
                return await asyncio.wait_for(super().send_bytes(data), SEND_SECONDS)
            except TimeoutError:
                return False

        async def send_meta(self, data: dict) -> bool:
            try:
                return await asyncio.wait_for(super().send_meta(data), SEND_SECONDS)
            except TimeoutError:
                return False

        async def on_data(self, payload: bytes) -> None:
            # A client gone mid-frame: textual-serve's reader died here (ConnectionError), the app
            # then blocked writing its next frame and never quit. Read on, drop what no one gets.
            try:
                await self.remote_write_bytes(payload)
            except Exception:
                pass

        async def on_meta(self, data: bytes) -> None:
            try:
                await super().on_meta(data)
            except Exception:  # a gone client (or a packet textual-serve cannot read): read on
                pass

        async def stop(self) -> None:
            """Ask the app to quit, then end its process (SIGTERM, SIGKILL) and wait for it."""
            task, self._task = self._task, None
            process = self._process
            try:
                await self._download_manager.cancel_app_downloads(app_service_id=self.app_service_id)
            finally:
                if process is not None:
                    if process.returncode is None:
                        await self.send_meta({"type": "quit"})
                    await end_process(process)
                if task is not None:
                    try:  # the reader ends at the output's end (a child of the app may hold it open)
                        await asyncio.wait_for(task, TERM_SECONDS)
                    except (TimeoutError, asyncio.CancelledError):
                        pass

    from tui.cli.serve_page import offline_templates

    class ClassroomServer(Server):
        def __init__(self) -> None:
            # the page asks no host but this one for anything: an offline classroom waits on no font
            super().__init__(command, host=host, port=port, title=PROG, public_url=public_url,
                             templates_path=offline_templates())
            self.max_clients = max_clients
            self.clients = 0  # tabs whose app process has not exited yet
            self.gate = Gate.for_server(host, port, allow_hosts=allow_hosts, allow_origins=allow_origins,
                                        public_url=public_url, hostnames=hostnames)
            self.refused: set[str] = set()  # the reasons the serving terminal was told of

        async def _make_app(self) -> web.Application:
            """textual-serve's application, behind the gate: every request (the page, the websocket,
            scripts, downloads) passes it before any handler, so a refused one starts no app and
            takes no place."""
            app = await super()._make_app()

            @web.middleware
            async def gate(request: web.Request, handler):
                websocket = (request.match_info.route.name == "websocket"
                             or "websocket" in request.headers.get("Upgrade", "").lower())
                sockname = request.transport.get_extra_info("sockname") if request.transport else None
                reason = self.gate.refusal(request.headers.getall("Host", []), request.headers.getall("Origin", []),
                                           websocket=websocket, scheme=request.scheme,
                                           local=sockname[0] if isinstance(sockname, tuple) and sockname else None)
                if reason is None:
                    return await handler(request)
                self.tell_refused(reason)
                return web.Response(status=403, text=f"bpe-lab serve: refused: {reason}\n",
                                    headers={"X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"})

            app.middlewares.append(gate)
            return app

        def tell_refused(self, reason: str) -> None:
            """Say in the serving terminal why a request was refused (a proxy's origin to allow, a
            page that knocked): each reason once, :data:`MAX_REFUSALS_SHOWN` at most."""
            if reason in self.refused or len(self.refused) > MAX_REFUSALS_SHOWN:
                return
            self.refused.add(reason)
            line = (f"{PROG}: refused {reason}" if len(self.refused) <= MAX_REFUSALS_SHOWN
                    else f"{PROG}: further refusals are not shown")
            print(line, file=err or sys.stderr, flush=True)

        def full(self) -> web.Response:
            return web.Response(status=503, text=full_page(self.max_clients), content_type="text/html")

        async def handle_index(self, request: web.Request):
            if self.clients >= self.max_clients:
                return self.full()
            if public_url is None:
                # textual-serve writes absolute URLs (scripts, the websocket) into the page from
                # public_url; a fixed one breaks for whoever reached the server by another name.
                # The page is built without a pause in between, so no other request sees this.
                self.public_url = f"{request.scheme}://{request.host}"
            return await super().handle_index(request)

        async def handle_websocket(self, request: web.Request):
            """textual-serve's, with the size clamped and the place held until the process exited."""
            if self.clients >= self.max_clients:
                return self.full()
            self.clients += 1  # no await since the check: no other connection came in between
            websocket = web.WebSocketResponse(heartbeat=HEARTBEAT_SECONDS, max_msg_size=MAX_MESSAGE_BYTES)
            width, height = clamp_size(request.query.get("width", "80"), request.query.get("height", "24"))
            service: TabService | None = None
            try:
                await websocket.prepare(request)
                service = TabService(self.command, write_bytes=websocket.send_bytes, write_str=websocket.send_str,
                                     close=websocket.close, download_manager=self.download_manager, debug=self.debug)
                await service.start(width, height)
                await self._process_messages(websocket, service)
            except asyncio.CancelledError:
                await websocket.close()
            except Exception as error:
                log.exception(error)
            finally:
                # shielded: a cancelled handler must not leave the process running or the place taken
                await asyncio.shield(asyncio.ensure_future(self._ended(service)))
            return websocket

        async def _ended(self, service: TabService | None) -> None:
            try:
                if service is not None:
                    await service.stop()
            finally:
                self.clients -= 1

        async def _process_messages(self, websocket: web.WebSocketResponse, app_service: TabService) -> None:
            """textual-serve's loop, but a message that is not what the page sends is ignored."""
            async for message in websocket:
                if message.type != WSMsgType.TEXT:
                    continue
                try:
                    envelope = message.json()
                    kind, data = (envelope[0], envelope[1] if len(envelope) > 1 else None) if isinstance(
                        envelope, list) and envelope else (None, None)
                except (ValueError, RecursionError):
                    continue
                if kind == "stdin" and isinstance(data, str):
                    await app_service.send_bytes(data.encode("utf-8", "replace"))
                elif kind == "resize" and isinstance(data, dict):
                    await app_service.set_terminal_size(data.get("width"), data.get("height"))
                elif kind == "ping":
                    await websocket.send_json(["pong", data])
                elif kind == "blur":
                    await app_service.blur()
                elif kind == "focus":
                    await app_service.focus()

        async def on_startup(self, app: web.Application) -> None:
            """Nothing: textual-serve prints its logo here, before the port is even open."""

        def serve(self, debug: bool = False) -> None:
            """textual-serve's serve, but say where it serves once the port is open (what aiohttp
            prints then), so that whoever waits for the line can connect at once."""
            self.debug = debug
            self.initialize_logging()
            loop = asyncio.new_event_loop()
            for signum in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(signum, self.request_exit)
            web.run_app(self._make_app(), host=host, port=port, handle_signals=False, loop=loop,
                        print=lambda *_args: self.started())

        def started(self) -> None:
            shown = public_url or f"http://{'localhost' if host in ('127.0.0.1', '::1') else host}:{port}"
            if host in ("0.0.0.0", "::"):
                shown = f"http://{socket.gethostname()}:{port} (or this machine's IP address)"
            tabs = "1 browser tab" if max_clients == 1 else f"{max_clients} browser tabs"
            print(f"{PROG}: serving {root} on {shown}, at most {tabs}; Ctrl+C stops it",
                  file=out, flush=True)

    return ClassroomServer()
