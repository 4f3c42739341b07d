"""bpe-lab serve answers only its own page (issue 40, item 2): the check of a request's Host and
Origin headers, case by case, and the options that allow more (no server: tui/cli/serve_origin.py
is pure; tests/app/test_serve_foreign.py tries a real one)."""

from __future__ import annotations

import argparse

import pytest

from tui.cli.serve_origin import (
    Gate,
    address_name,
    host_option,
    origin_option,
    parse_host,
    parse_origin,
    public_url_option,
    shown,
)

#: A server as ``bpe-lab serve`` runs it by default: 127.0.0.1, port 8000.
LOOPBACK = Gate.for_server("127.0.0.1", 8000)
#: A server on every network of a laptop named teacher-laptop.
EVERYWHERE = Gate.for_server("0.0.0.0", 8000, hostnames=["teacher-laptop", "teacher-laptop.local"])
#: Behind a reverse proxy that serves https://class.example.org/bpe and forwards Host as it came.
PROXIED = Gate.for_server("127.0.0.1", 8000, public_url="https://class.example.org/bpe")
#: The same, with the options instead of --public-url, and a tunnel's port.
ALLOWED = Gate.for_server("127.0.0.1", 8000, allow_origins=["https://class.example.org", "http://localhost:9000"],
                          allow_hosts=["class.example.org", "localhost"])


def ws(gate: Gate, host: str | None, origin: str | None, local: str = "127.0.0.1", **options) -> str | None:
    """The gate's refusal of a websocket with this Host and Origin (None: none given)."""
    return gate.refusal([host] if host is not None else [], [origin] if origin is not None else [], websocket=True,
                        local=local, **options)


#: (gate, Host, Origin, accepted?): each a way a page could try to reach the app.
CASES = [
    # the page's own origin, by each name of a loopback server
    pytest.param(LOOPBACK, "127.0.0.1:8000", "http://127.0.0.1:8000", True, id="same-origin"),
    pytest.param(LOOPBACK, "localhost:8000", "http://localhost:8000", True, id="same-origin-localhost"),
    pytest.param(LOOPBACK, "[::1]:8000", "http://[::1]:8000", True, id="ipv6-loopback"),
    pytest.param(LOOPBACK, "[0:0:0:0:0:0:0:1]:8000", "http://[0::1]:8000", True, id="ipv6-spelled-out"),
    pytest.param(LOOPBACK, "LocalHost:8000", "http://LOCALHOST:8000", True, id="case-of-host-names"),
    pytest.param(LOOPBACK, "localhost:8000", "HTTP://localhost:8000", True, id="case-of-scheme"),
    pytest.param(LOOPBACK, "localhost.:8000", "http://localhost.:8000", True, id="trailing-dot"),
    # no origin, or none that is a page's
    pytest.param(LOOPBACK, "127.0.0.1:8000", None, False, id="no-origin"),
    pytest.param(LOOPBACK, "127.0.0.1:8000", "null", False, id="null-origin"),
    pytest.param(LOOPBACK, "127.0.0.1:8000", "", False, id="empty-origin"),
    pytest.param(LOOPBACK, "127.0.0.1:8000", "file://", False, id="file-origin"),
    pytest.param(LOOPBACK, "127.0.0.1:8000", "chrome-extension://abcdef", False, id="extension-origin"),
    pytest.param(LOOPBACK, "127.0.0.1:8000", "ws://127.0.0.1:8000", False, id="ws-scheme-origin"),
    # another page
    pytest.param(LOOPBACK, "127.0.0.1:8000", "http://evil.com", False, id="other-host"),
    pytest.param(LOOPBACK, "127.0.0.1:8000", "http://127.0.0.1:8001", False, id="other-port"),
    pytest.param(LOOPBACK, "127.0.0.1:8000", "http://127.0.0.1", False, id="no-port-is-80"),
    pytest.param(LOOPBACK, "127.0.0.1:8000", "https://127.0.0.1:8000", False, id="other-scheme"),
    pytest.param(LOOPBACK, "127.0.0.1:8000", "http://localhost:8000", False, id="other-loopback-name"),
    pytest.param(LOOPBACK, "127.0.0.1:8000", "http://127.0.0.1.evil.com:8000", False, id="suffix"),
    pytest.param(LOOPBACK, "127.0.0.1:8000", "http://127.0.0.1.evil.com", False, id="suffix-no-port"),
    pytest.param(LOOPBACK, "127.0.0.1:8000", "http://evil.com/127.0.0.1", False, id="path"),
    pytest.param(LOOPBACK, "127.0.0.1:8000", "http://evil.com/127.0.0.1:8000", False, id="path-with-port"),
    pytest.param(LOOPBACK, "127.0.0.1:8000", "http://127.0.0.1@evil.com", False, id="userinfo"),
    pytest.param(LOOPBACK, "127.0.0.1:8000", "http://127.0.0.1:8000@evil.com", False, id="userinfo-port"),
    pytest.param(LOOPBACK, "127.0.0.1:8000", "http://evil.com#@127.0.0.1:8000", False, id="fragment"),
    pytest.param(LOOPBACK, "127.0.0.1:8000", "http://127.0.0.1:8000 http://evil.com", False, id="two-in-one"),
    pytest.param(LOOPBACK, "127.0.0.1:8000", "http://xn--vil-jdd.com", False, id="punycode"),
    pytest.param(LOOPBACK, "127.0.0.1:8000", "http://еvil.com", False, id="cyrillic"),
    pytest.param(LOOPBACK, "127.0.0.1:8000", "http://127.0.0.1:8000\r\nX: y", False, id="header-injection"),
    # the Host: DNS rebinding and its relatives
    pytest.param(LOOPBACK, "evil.com:8000", "http://evil.com:8000", False, id="rebinding"),
    pytest.param(LOOPBACK, "localhost.evil.com:8000", "http://localhost.evil.com:8000", False, id="rebinding-suffix"),
    pytest.param(LOOPBACK, "evil.localhost:8000", "http://evil.localhost:8000", False, id="localhost-subdomain"),
    pytest.param(LOOPBACK, "127.0.0.1@evil.com:8000", "http://127.0.0.1:8000", False, id="host-userinfo"),
    pytest.param(LOOPBACK, "127.0.0.1:8001", "http://127.0.0.1:8001", False, id="host-other-port"),
    pytest.param(LOOPBACK, "127.0.0.1", "http://127.0.0.1", False, id="host-no-port"),
    pytest.param(LOOPBACK, "127.0.0.1:99999", "http://127.0.0.1:99999", False, id="host-port-out-of-range"),
    pytest.param(LOOPBACK, "2130706433:8000", "http://2130706433:8000", False, id="host-decimal-ip"),
    pytest.param(LOOPBACK, "127.1:8000", "http://127.1:8000", False, id="host-short-ip"),
    pytest.param(LOOPBACK, "vm:8000", "http://vm:8000", False, id="machine-name-on-loopback"),
    pytest.param(LOOPBACK, "", "http://127.0.0.1:8000", False, id="host-empty"),
    pytest.param(LOOPBACK, None, "http://127.0.0.1:8000", False, id="host-missing"),
    # every network: the machine's names, and the address a browser connected to
    pytest.param(EVERYWHERE, "teacher-laptop:8000", "http://teacher-laptop:8000", True, id="hostname"),
    pytest.param(EVERYWHERE, "Teacher-Laptop.local:8000", "http://teacher-laptop.local:8000", True, id="mdns-name"),
    pytest.param(EVERYWHERE, "192.168.1.20:8000", "http://192.168.1.20:8000", True, id="lan-ip"),
    pytest.param(EVERYWHERE, "localhost:8000", "http://localhost:8000", True, id="wildcard-localhost"),
    pytest.param(EVERYWHERE, "teacher-laptop.evil.com:8000", "http://teacher-laptop.evil.com:8000", False,
                 id="hostname-suffix"),
    pytest.param(EVERYWHERE, "10.0.0.9:8000", "http://10.0.0.9:8000", False, id="ip-not-dialed"),
    pytest.param(EVERYWHERE, "teacher-laptop:8000", "http://192.168.1.20:8000", False, id="name-and-ip-mixed"),
    # a reverse proxy: --public-url, or the options
    pytest.param(PROXIED, "127.0.0.1:8000", "https://class.example.org", True, id="proxy-public-url"),
    pytest.param(PROXIED, "class.example.org", "https://class.example.org", True, id="proxy-forwards-host"),
    pytest.param(PROXIED, "class.example.org", "http://class.example.org", True, id="proxy-host-same-origin"),
    pytest.param(PROXIED, "127.0.0.1:8000", "https://class.example.org:8443", False, id="proxy-other-port"),
    pytest.param(PROXIED, "127.0.0.1:8000", "https://evil.example.org", False, id="proxy-sibling"),
    pytest.param(PROXIED, "class.example.org.evil.com", "https://class.example.org", False, id="proxy-host-suffix"),
    pytest.param(ALLOWED, "127.0.0.1:8000", "https://class.example.org", True, id="allow-origin"),
    pytest.param(ALLOWED, "class.example.org:8443", "https://class.example.org", True, id="allow-host-any-port"),
    pytest.param(ALLOWED, "localhost:9000", "http://localhost:9000", True, id="allow-host-tunnel"),
    pytest.param(ALLOWED, "127.0.0.1:8000", "http://class.example.org", False, id="allow-origin-scheme-kept"),
    pytest.param(ALLOWED, "127.0.0.1:9000", "http://127.0.0.1:9000", False, id="allow-host-name-only"),
]


@pytest.mark.parametrize(("gate", "host", "origin", "accepted"), CASES)
def test_a_websocket_is_accepted_only_from_the_page_itself(gate, host, origin, accepted):
    local = "192.168.1.20" if gate is EVERYWHERE and host and host.startswith(("1", "t")) else "127.0.0.1"
    reason = ws(gate, host, origin, local=local)
    assert (reason is None) == accepted, reason


def test_a_page_load_needs_no_origin_but_a_websocket_does():
    """Browsers send no Origin when they load a page, a script or a download; they always send
    one with a websocket, which a page cannot leave out."""
    assert LOOPBACK.refusal(["127.0.0.1:8000"], [], websocket=False) is None
    assert ws(LOOPBACK, "127.0.0.1:8000", None) == ("a websocket without an Origin header: the app opens only in "
                                                    "its own page")
    assert LOOPBACK.refusal(["127.0.0.1:8000"], ["http://evil.com"], websocket=False) is not None  # a fetch()
    assert LOOPBACK.refusal(["evil.com:8000"], [], websocket=False) is not None  # the page, by a rebinding name


def test_two_headers_are_refused():
    assert LOOPBACK.refusal(["127.0.0.1:8000"], ["http://127.0.0.1:8000"] * 2, websocket=True) == (
        "a request with more than one Origin header")
    assert LOOPBACK.refusal(["127.0.0.1:8000", "evil.com"], ["http://127.0.0.1:8000"], websocket=True) == (
        "a request with more than one Host header")


def test_the_refusals_say_why_and_repeat_no_control_character():
    assert ws(LOOPBACK, "evil.com:8000", "http://evil.com:8000") == (
        "a request for another host (Host 'evil.com:8000'): the server answers only to its own addresses "
        "(bpe-lab serve --allow-host NAME adds one)")
    assert ws(LOOPBACK, "127.0.0.1:8000", "http://evil.com") == (
        "a request from another page (Origin 'http://evil.com'): the app opens only in its own page "
        "(bpe-lab serve --allow-origin URL adds one)")
    said = ws(LOOPBACK, "127.0.0.1:8000", "http://\x1b]52;c;aGk=\x07" + "a" * 500)
    assert "\x1b" not in said and "\\x1b" in said and len(said) < 250


def test_the_connection_s_own_address_is_one_the_server_listens_on():
    """On every network, a browser that typed the laptop's IP address reaches it by that
    address, whichever the network gave (it may change during the class)."""
    for local in ("192.168.1.20", "::ffff:192.168.1.20"):
        assert ws(EVERYWHERE, "192.168.1.20:8000", "http://192.168.1.20:8000", local=local) is None
    assert ws(EVERYWHERE, "[fe80::1]:8000", "http://[fe80::1]:8000", local="fe80::1%eth0") is None
    assert ws(EVERYWHERE, "192.168.1.20:8000", "http://192.168.1.20:8000", local="10.0.0.1") is not None
    assert address_name("::1") == "[::1]" and address_name("not an address") is None


def test_a_bound_address_answers_to_itself_and_not_to_loopback_names():
    lan = Gate.for_server("192.168.1.20", 8000)
    assert ws(lan, "192.168.1.20:8000", "http://192.168.1.20:8000", local="192.168.1.20") is None
    assert ws(lan, "localhost:8000", "http://localhost:8000", local="192.168.1.20") is not None
    six = Gate.for_server("::1", 8000)
    assert ws(six, "[::1]:8000", "http://[::1]:8000", local="::1") is None
    assert ws(six, "localhost:8000", "http://localhost:8000", local="::1") is None
    named = Gate.for_server("LocalHost", 80)
    assert ws(named, "localhost", "http://localhost", local="127.0.0.1") is None  # port 80: none written


def test_parsing_is_strict():
    assert parse_host("LocalHost:8000") == ("localhost", 8000)
    assert parse_host("[::1]") == ("[::1]", None)
    for text in ("127.0.0.1@evil.com", "evil.com/x", "a b", "[::1", "[nope]:80", "x:", ":80", "x:0", "x..y", "-"):
        assert parse_host(text) is None, text
    assert parse_origin("HTTPS://Class.Example.org") == ("https", "class.example.org", 443)
    assert parse_origin("http://localhost:80") == parse_origin("http://localhost") == ("http", "localhost", 80)
    for text in ("null", "http://", "http://a/b", "http://u@a", "http://a?x", "//a", "a", "http://a:99999"):
        assert parse_origin(text) is None, text
    assert shown("x" * 100).endswith("'…") and len(shown("x" * 100)) == 63


# -- the options ----------------------------------------------------------------------------------


def test_allow_origin_takes_an_origin_as_a_browser_writes_it():
    assert origin_option("HTTPS://Class.Example.org:443/") == "https://class.example.org"
    assert origin_option("http://[0::1]:8000") == "http://[::1]:8000"
    assert origin_option("http://10.0.0.5:8080") == "http://10.0.0.5:8080"
    for text in ("class.example.org", "https://x.org/app", "https://u@x.org", "*", "null", "ftp://x.org",
                 "https://x.org:99999", "https://x.org:0", ""):
        with pytest.raises(argparse.ArgumentTypeError, match="is not an origin: give scheme://host"):
            origin_option(text)


def test_allow_host_takes_a_name_alone():
    assert host_option("Class.Example.org") == "class.example.org"
    assert host_option("::1") == host_option("[::1]") == "[::1]"
    assert host_option("192.168.1.20") == "192.168.1.20"
    for text in ("x.org:8000", "http://x.org", "*", "", "a b", "x.org/"):
        with pytest.raises(argparse.ArgumentTypeError, match="is not a host name: give the name"):
            host_option(text)


def test_public_url_is_a_web_address():
    assert public_url_option("https://class.example.org/bpe/") == "https://class.example.org/bpe"
    assert public_url_option("HTTPS://10.0.0.5:443/Bpe") == "https://10.0.0.5/Bpe"  # textual-serve reads "https"
    for text in ("class.example.org", "ftp://x.org", "https://u@x.org/", "https://x.org?a", "https://"):
        with pytest.raises(argparse.ArgumentTypeError, match="is not a web address"):
            public_url_option(text)


def test_a_tunnel_needs_the_name_alone():
    """docs/classroom.md: ``ssh -L 9000:127.0.0.1:8000``, the page at http://localhost:9000, needs
    ``--allow-host localhost`` and no origin: the page's own is then http://localhost:9000."""
    tunnel = Gate.for_server("127.0.0.1", 8000, allow_hosts=["localhost"])
    assert ws(tunnel, "localhost:9000", "http://localhost:9000") is None
    assert ws(tunnel, "localhost:9000", "http://localhost:8000") is not None
    assert ws(LOOPBACK, "localhost:9000", "http://localhost:9000") is not None  # not without it
