"""``bpe-lab serve``: the app in a browser, one app process for each tab (textual-serve).

textual-serve does the serving: its page, its websocket, one process per connection, file
downloads. This module only configures it: the command each tab runs (the app in serve mode,
confined to ``--root``, with a session file of its own), a bound on the number of processes
(textual-serve has none), and page URLs that follow the address a participant typed.
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
from tui.i18n import _

#: How to get the optional dependency serve needs.
INSTALL = "pip install 'bpe-lab[serve]'"
#: At most this many app processes (browser tabs) at once, unless --max-clients says otherwise.
DEFAULT_MAX_CLIENTS = 20


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
                        help=f"at most N browser tabs (app processes) at once (default {DEFAULT_MAX_CLIENTS})")
    parser.add_argument("--public-url", metavar="URL",
                        help="the address participants use, when a reverse proxy stands in front "
                             "(default: the address each browser asked for)")
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
        raise ServeError(f"serving in a browser needs textual-serve: {INSTALL}")
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
              "can use the app, with no password; use it only on a trusted network (see the README's Classroom)",
              file=err)
    server = classroom_server(command, host=args.host, port=args.port, max_clients=args.max_clients,
                              public_url=args.public_url, root=root.resolve(), out=out)
    run_server(server)
    return 0


def check_app_args(app_args: Sequence[str], root: Path) -> None:
    """The app's options, checked as a tab's app will check them, so that a mistake is one line
    now and not a failed app in every browser."""
    from engine import pretokenizer_for
    from tui.cli.app_options import build_parser as app_parser
    from tui.cli.app_options import confine_args
    from tui.cli.common import config_from_args

    args = app_parser().parse_args([*app_args, "--serve-root", str(root)])
    typed = args.corpus
    confine_args(args)
    if typed and not typed.startswith("sample:") and not os.path.isfile(args.corpus):
        raise ServeError(f"{typed}: no such file")
    if not args.tokenizer:
        pretokenizer_for(config_from_args(args))


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
    message = _("{count} browser tabs are already connected, the most this server takes (--max-clients {count}). "
                "Try again when someone closes their tab.").format(count=max_clients)
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title></head>"
            f"<body><h1>{html.escape(title)}</h1><p>{html.escape(message)}</p></body></html>")


def classroom_server(command: str, *, host: str, port: int, max_clients: int, public_url: str | None,
                     root: Path, out: TextIO):
    """A textual-serve ``Server`` that starts at most ``max_clients`` app processes and builds its
    page's URLs from the address the browser used (localhost, an IP or a host name alike)."""
    from aiohttp import web
    from textual_serve.server import Server

    from tui.cli.serve_page import offline_templates

    class ClassroomServer(Server):
        def __init__(self) -> None:
            # the page asks no host but this one for anything: an offline classroom waits on no font
            super().__init__(command, host=host, port=port, title=PROG, public_url=public_url,
                             templates_path=offline_templates())
            self.max_clients = max_clients
            self.clients = 0  # live app processes (websockets)

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
            if self.clients >= self.max_clients:
                return self.full()
            self.clients += 1  # no await since the check: no other connection came in between
            try:
                return await super().handle_websocket(request)
            finally:
                self.clients -= 1

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
            print(f"{PROG}: serving {root} on {shown}, at most {max_clients} browser tabs; Ctrl+C stops it",
                  file=out, flush=True)

    return ClassroomServer()
