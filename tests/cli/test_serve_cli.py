"""bpe-lab serve's command line, without serving: the command each tab runs, the warning for
an open host, the app's options passed through. (tests/app/test_serve.py serves for real.)"""

from __future__ import annotations

import io
import shlex
import sys

import pytest

pytest.importorskip("textual_serve")

from tui.cli import serve  # noqa: E402


@pytest.fixture
def started(monkeypatch, tmp_path):
    """serve.main with the server built but not run (and no port probed: a test binds nothing
    but 127.0.0.1, and here nothing at all); returns the servers it would have run."""
    servers = []
    monkeypatch.setattr(serve, "run_server", servers.append)
    monkeypatch.setattr(serve, "check_port", lambda host, port: None)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.chdir(tmp_path)
    return servers


def test_loopback_by_default_and_the_command_each_tab_runs(started, tmp_path):
    (tmp_path / "c.txt").write_text("the cat in the hat\n", encoding="utf-8")
    err = io.StringIO()
    assert serve.main(["c.txt", "--pattern", r"\w+ ", "--max-clients", "3"], err=err) == 0
    assert err.getvalue() == ""
    (server,) = started
    assert (server.host, server.port, server.max_clients) == ("127.0.0.1", 8000, 3)
    command = shlex.split(server.command)
    assert command[:5] == ["exec", sys.executable, "-P", "-m", "tui.main"]
    assert command[5:9] == ["--serve-root", str(tmp_path.resolve()), "--serve-sessions", str(tmp_path / "state" / "bpe-lab" / "serve")]
    assert command[9:] == ["c.txt", "--pattern", r"\w+ "]  # the app's options, quoted for the shell


def test_serve_says_what_a_tab_costs_on_the_served_corpus(started, tmp_path):
    """One line at start, before the address: an instructor sizes --max-clients by it."""
    (tmp_path / "c.txt").write_text("the cat in the hat\n" * 50, encoding="utf-8")
    (tmp_path / "zh.txt").write_text("床前明月光，疑是地上霜。\n" * 50, encoding="utf-8")
    for argv, name in ((["c.txt", "--max-clients", "30"], "c.txt"), ([], "workshop.txt"), (["zh.txt"], "zh.txt")):
        out = io.StringIO()
        assert serve.main(argv, out=out, err=io.StringIO()) == 0
        line = out.getvalue()
        assert line.startswith(f"bpe-lab: a tab on {name} takes about ") and " MB loaded, up to about " in line
        assert " MB trained to the end; " + ("30 tabs up to " if name == "c.txt" else "40 tabs up to ") in line
        assert line.rstrip().endswith("see docs/classroom.md)") and line.count("\n") == 1


def test_an_open_host_is_explicit_and_warned_about(started):
    err = io.StringIO()
    assert serve.main(["--host", "0.0.0.0", "--port", "8123"], err=err) == 0
    assert started[0].host == "0.0.0.0"
    assert err.getvalue() == (
        "bpe-lab: warning: serving on 0.0.0.0: anyone who can reach this machine on port 8123 can use the app, "
        "with no password; use it only on a trusted network (see docs/classroom.md)\n")


def test_the_full_page_says_why_and_escapes_nothing_unsafe():
    page = serve.full_page(7)
    assert "the class is full" in page and "--max-clients 7" in page and "<script" not in page


def test_the_full_page_counts_one_tab_in_the_singular():
    assert "1 browser tab is already connected" in serve.full_page(1)
    assert "40 browser tabs are already connected" in serve.full_page(40)


def test_a_class_of_30_fits_by_default_and_the_help_says_how_to_size_it(started, capsys):
    assert serve.main([], err=io.StringIO()) == 0
    assert started[0].max_clients == 40
    with pytest.raises(SystemExit) as exit_:
        serve.build_parser().parse_args(["--help"])
    assert exit_.value.code == 0
    shown = " ".join(capsys.readouterr().out.split())
    assert "(default 40): allow one and a half per participant" in shown
    assert "each is an app process of its own (see docs/classroom.md)" in shown


async def test_the_page_follows_the_address_the_browser_used_or_public_url(tmp_path):
    """textual-serve writes absolute script and websocket URLs into its page: from the request's
    Host by default (localhost, an IP or a host name alike), from --public-url behind a proxy."""
    from aiohttp.test_utils import TestClient, TestServer

    for public_url, host, expected in ((None, "192.168.1.20:8000", "ws://192.168.1.20:8000/ws"),
                                       (None, "teacher-laptop:8000", "ws://teacher-laptop:8000/ws"),
                                       ("https://class.example.org", "127.0.0.1:8000", "wss://class.example.org/ws")):
        # on every network, as a class is served: the laptop's name and an address it has
        server = serve.classroom_server("true", host="0.0.0.0", port=8000, max_clients=2, public_url=public_url,
                                        root=tmp_path, out=io.StringIO(), allow_hosts=["192.168.1.20"],
                                        hostnames=["teacher-laptop"])
        async with TestClient(TestServer(await server._make_app(), host="127.0.0.1")) as client:
            page = await client.get("/", headers={"Host": host})
            assert page.status == 200
            assert f'data-session-websocket-url="{expected}"' in await page.text()


def test_the_allow_options_reach_the_gate(started):
    assert serve.main(["--allow-origin", "HTTPS://Class.Example.org/", "--allow-origin", "http://10.0.0.5:8080",
                       "--allow-host", "Class.Example.org", "--public-url", "https://proxy.example.org/bpe/"],
                      err=io.StringIO()) == 0
    (server,) = started
    assert server.gate.origins == {("https", "class.example.org", 443), ("http", "10.0.0.5", 8080),
                                   ("https", "proxy.example.org", 443)}
    assert server.gate.hosts == {"class.example.org", "proxy.example.org"}
    assert server.public_url == "https://proxy.example.org/bpe"  # no "//ws" in the page


async def test_a_refused_request_gets_403_and_no_place(tmp_path):
    """The gate stands before every handler: the page by a rebinding name, a websocket from
    another page or from no page get a short plain 403, and --max-clients counts none of them.
    (tests/app/test_serve_foreign.py tries the same against a real server with its apps.)"""
    from aiohttp.test_utils import TestClient, TestServer

    err = io.StringIO()
    server = serve.classroom_server("true", host="127.0.0.1", port=8000, max_clients=1, public_url=None,
                                    root=tmp_path, out=io.StringIO(), err=err)
    upgrade = {"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13",
               "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}
    async with TestClient(TestServer(await server._make_app(), host="127.0.0.1")) as client:
        for path, headers in (("/", {"Host": "evil.com:8000"}),
                              ("/static/js/textual.js", {"Host": "evil.com:8000"}),
                              ("/ws", {"Host": "127.0.0.1:8000", **upgrade}),
                              ("/ws", {"Host": "127.0.0.1:8000", "Origin": "http://evil.com", **upgrade}),
                              ("/ws", {"Host": "evil.com:8000", "Origin": "http://evil.com:8000", **upgrade})):
            for _ in range(3):
                answer = await client.get(path, headers=headers)
                assert answer.status == 403, (path, headers)
                assert answer.content_type == "text/plain"
                assert (await answer.text()).startswith("bpe-lab serve: refused: ")
                assert server.clients == 0
        page = await client.get("/", headers={"Host": "127.0.0.1:8000"})
        assert page.status == 200  # the place is still free
    said = err.getvalue().splitlines()
    assert len(said) == 3 == len(set(said))  # each reason once (the rebinding Host thrice) in the serving terminal
    assert said[0] == ("bpe-lab: refused a request for another host (Host 'evil.com:8000'): the server answers only "
                       "to its own addresses (bpe-lab serve --allow-host NAME adds one)")


def test_the_serving_terminal_names_a_bounded_number_of_refusals(tmp_path):
    err = io.StringIO()
    server = serve.classroom_server("true", host="127.0.0.1", port=8000, max_clients=1, public_url=None,
                                    root=tmp_path, out=io.StringIO(), err=err)
    for k in range(serve.MAX_REFUSALS_SHOWN + 50):
        server.tell_refused(f"reason {k}")
    said = err.getvalue().splitlines()
    assert len(said) == serve.MAX_REFUSALS_SHOWN + 1 and said[-1] == "bpe-lab: further refusals are not shown"
