"""Which requests ``bpe-lab serve`` answers: its own page's, and no other web page's.

Any web page may open a websocket to any address without asking: a page in another tab could
open ``ws://127.0.0.1:8000/ws``, get an app, read its screen and type into it, and hold a
``--max-clients`` place. And a page on a name whose DNS the page's author controls can make that
name point at 127.0.0.1 (DNS rebinding): to the browser the server is then that page's own
origin. Two headers tell these apart from the server's own page, and a page cannot set either:

- ``Host``, the address the browser asked for, must be one the server listens on: the address it
  is bound to, the loopback names (``localhost``, ``127.0.0.1``, ``[::1]``) for a loopback or an
  every-network bind, the machine's host names for an every-network bind (0.0.0.0), the IP
  address the connection came in on, each at the server's port; or a name allowed with
  ``--allow-host`` or ``--public-url`` (at any port: a reverse proxy or a tunnel forwards another
  one). A rebinding page's Host is its own name (``evil.com:8000``).
- ``Origin``, which a browser sends with every websocket, must be the page's own origin (the
  scheme, and the Host just checked), or one allowed with ``--allow-origin`` or ``--public-url``.
  A websocket without one is refused (it is no browser's page); another request may lack it
  (a browser sends none when it loads a page, a script or a download).

:meth:`Gate.refusal` is the check, pure, so that each case is tested alone
(tests/cli/test_serve_origin.py); tui/cli/serve.py calls it in an aiohttp middleware, before any
handler, so a refused request never starts an app nor takes a ``--max-clients`` place.
"""

from __future__ import annotations

import argparse
import ipaddress
import re
import socket
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

#: The port a URL without one means.
DEFAULT_PORTS = {"http": 80, "https": 443}
#: The loopback names: a loopback or an every-network bind answers to them.
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "[::1]"})
#: A host: a name or IPv4 address (labels of letters, digits, ``-`` and ``_``, one trailing dot
#: at most) or a bracketed IPv6 address; then a port, if any. No user name, path or anything else.
_LABEL = r"[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?"
_HOST = rf"(?P<name>\[[0-9a-f:.]+\]|{_LABEL}(?:\.{_LABEL})*\.?)(?::(?P<port>[0-9]{{1,5}}))?"
HOST = re.compile(rf"{_HOST}\Z", re.ASCII)
ORIGIN = re.compile(rf"(?P<scheme>https?)://{_HOST}/?\Z", re.ASCII)
#: A ``--public-url``: an origin and, behind a proxy that serves the app under a folder, a path.
PUBLIC_URL = re.compile(rf"(?P<scheme>https?)://{_HOST}(?P<path>/[^?#\s]*)?\Z", re.ASCII | re.IGNORECASE)
#: How much of a refused header a refusal repeats.
SHOWN = 60

Origin = tuple[str, str, int]  # scheme, host name (normalized), port


def _name(text: str) -> str | None:
    """A host name as compared: lower case, no trailing dot, an IPv6 address bracketed in its
    compressed form; None for a bracketed text that is no IPv6 address."""
    text = text.lower()
    if text.startswith("["):
        try:
            return f"[{ipaddress.IPv6Address(text[1:-1]).compressed}]"
        except ValueError:
            return None
    return text[:-1] if text.endswith(".") else text


def _port(text: str | None) -> int | None | bool:
    """A port's number, None for none given, False for one out of range."""
    if text is None:
        return None
    number = int(text)
    return number if 1 <= number <= 65535 else False


def parse_host(text: str) -> tuple[str, int | None] | None:
    """A ``Host`` header's name (normalized) and port (None if not given); None if it is not one.

    Example: ``parse_host("LocalHost:8000")`` -> ``("localhost", 8000)``;
    ``parse_host("127.0.0.1@evil.com")`` -> ``None``
    """
    found = HOST.match(text.lower())
    if not found:
        return None
    name, port = _name(found["name"]), _port(found["port"])
    return None if name is None or port is False else (name, port)


def parse_origin(text: str) -> Origin | None:
    """An origin's scheme, name and port (the scheme's default if none is given); None if
    ``text`` is no ``http(s)://host[:port]`` (``null``, a path, a user name, another scheme).

    Example: ``parse_origin("HTTP://[::1]:8000")`` -> ``("http", "[::1]", 8000)``;
    ``parse_origin("http://evil.com/127.0.0.1")`` -> ``None``
    """
    found = ORIGIN.match(text.lower())
    if not found:
        return None
    scheme, name, port = found["scheme"], _name(found["name"]), _port(found["port"])
    if name is None or port is False:
        return None
    return scheme, name, DEFAULT_PORTS[scheme] if port is None else port


def origin_text(origin: Origin) -> str:
    """``("https", "x.org", 443)`` -> ``"https://x.org"``; the port is written unless it is the default."""
    scheme, name, port = origin
    return f"{scheme}://{name}" if DEFAULT_PORTS[scheme] == port else f"{scheme}://{name}:{port}"


def shown(text: str) -> str:
    """A header's value as a refusal repeats it: quoted, ASCII (no control character reaches the
    serving terminal), at most :data:`SHOWN` characters of it."""
    return ascii(text[:SHOWN]) + ("…" if len(text) > SHOWN else "")


# -- the options (argparse types) -----------------------------------------------------------------


def origin_option(text: str) -> str:
    """``--allow-origin``: an origin, ``scheme://host[:port]``, written as a browser sends it.

    Example: ``origin_option("HTTPS://Class.Example.org:443/")`` -> ``"https://class.example.org"``
    """
    origin = parse_origin(text)
    if origin is None:
        raise argparse.ArgumentTypeError(
            f"{shown(text)} is not an origin: give scheme://host[:port], as https://class.example.org "
            "(http or https; no path, no user name)")
    return origin_text(origin)


def host_option(text: str) -> str:
    """``--allow-host``: a host name or an IP address, with no port (it is allowed at any port).

    Example: ``host_option("Class.Example.org")`` -> ``"class.example.org"``; ``host_option("::1")`` -> ``"[::1]"``
    """
    try:
        return f"[{ipaddress.IPv6Address(text).compressed}]"
    except ValueError:
        pass
    parsed = parse_host(text)
    if parsed is None or parsed[1] is not None:
        raise argparse.ArgumentTypeError(
            f"{shown(text)} is not a host name: give the name or IP address alone, as class.example.org "
            "(no scheme, no port: it is allowed at any port)")
    return parsed[0]


def public_origin(url: str) -> Origin | None:
    """The origin of a ``--public-url``, None if ``url`` is no ``http(s)://host[:port][/path]``.

    Example: ``public_origin("https://x.org/bpe")`` -> ``("https", "x.org", 443)``
    """
    found = PUBLIC_URL.match(url)
    if not found:
        return None
    return parse_origin(f"{found['scheme']}://{found['name']}" + (f":{found['port']}" if found["port"] else ""))


def public_url_option(text: str) -> str:
    """``--public-url``: ``http(s)://host[:port]`` and, behind a proxy that serves the app under a
    folder, its path (the page's addresses are built from it): the origin as a browser writes it,
    the path as given, without a trailing ``/``.

    Example: ``public_url_option("HTTPS://X.org:443/Bpe/")`` -> ``"https://x.org/Bpe"``
    """
    origin = public_origin(text)
    if origin is None:
        raise argparse.ArgumentTypeError(
            f"{shown(text)} is not a web address: give http(s)://host[:port][/path], as https://class.example.org")
    return origin_text(origin) + (PUBLIC_URL.match(text)["path"] or "").rstrip("/")


# -- the gate ---------------------------------------------------------------------------------


def machine_names() -> frozenset[str]:
    """This machine's host names: its name, its fully qualified one, and ``NAME.local`` (mDNS)."""
    names = set()
    for name in (socket.gethostname(), socket.getfqdn()):
        parsed = parse_host(name)
        if parsed and parsed[1] is None:
            names.add(parsed[0])
            names.add(parsed[0].split(".", 1)[0] + ".local")
    return frozenset(names)


def _is_ip(text: str, test) -> bool:
    try:
        return test(ipaddress.ip_address(text.strip("[]")))
    except ValueError:
        return False


def address_name(address: str) -> str | None:
    """An IP address as a Host header names it: ``"::1"`` -> ``"[::1]"``, an IPv4-mapped IPv6
    address as its IPv4 address; None for what is no IP address."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address):
        return str(ip.ipv4_mapped) if ip.ipv4_mapped else f"[{ip.compressed}]"
    return str(ip)


@dataclass(frozen=True)
class Gate:
    """Whom a server answers: the names it answers to at its port, the names allowed at any
    port, and the origins allowed besides a page's own."""

    port: int
    names: frozenset[str]
    hosts: frozenset[str] = frozenset()
    origins: frozenset[Origin] = frozenset()

    @classmethod
    def for_server(cls, bind: str, port: int, *, allow_hosts: Iterable[str] = (), allow_origins: Iterable[str] = (),
                   public_url: str | None = None, hostnames: Iterable[str] | None = None) -> Gate:
        """The gate of a server bound to ``bind`` (``--host``) at ``port``, with what the options
        allow; ``hostnames``: the machine's names (default: :func:`machine_names`), which an
        every-network bind answers to."""
        wildcard = bind in ("", "0.0.0.0", "::")
        names = set()
        own = address_name(bind) or (parse_host(bind) or ("", None))[0]
        if own and not wildcard:
            names.add(own)
        if wildcard or own == "localhost" or _is_ip(bind, lambda ip: ip.is_loopback):
            names |= LOOPBACK_NAMES
        if wildcard:
            names |= set(machine_names() if hostnames is None else hostnames)
        hosts = {host_option(name) for name in allow_hosts}
        origins = {parse_origin(origin) for origin in allow_origins}
        public = None if public_url is None else public_origin(public_url)
        if public is not None:
            origins.add(public)
            hosts.add(public[1])
        return cls(port, frozenset(names), frozenset(hosts), frozenset(o for o in origins if o))

    def refusal(self, hosts: Sequence[str], origins: Sequence[str], *, websocket: bool, scheme: str = "http",
                local: str | None = None) -> str | None:
        """Why a request is refused (one line, for the client and the serving terminal), or None
        if it is answered. ``hosts`` and ``origins``: the request's Host and Origin headers (every
        one given), ``websocket``: whether it asks for the app's websocket, ``scheme``: the
        server's (``http``), ``local``: the IP address the connection came in on.

        Example: ``Gate(8000, frozenset({"localhost"})).refusal(["localhost:8000"],
        ["http://evil.com"], websocket=True)`` -> ``"a request from another page (Origin 'http://evil.com') …"``
        """
        if len(hosts) != 1:
            return "a request without a Host header" if not hosts else "a request with more than one Host header"
        host = parse_host(hosts[0])
        if host is not None:
            name, port = host
            port = DEFAULT_PORTS.get(scheme, 80) if port is None else port
            if not (name in self.hosts or (port == self.port and (name in self.names or name == address_name(local or "")))):
                host = None
        if host is None:
            return (f"a request for another host (Host {shown(hosts[0])}): the server answers only to its own "
                    "addresses (bpe-lab serve --allow-host NAME adds one)")
        if not origins:
            return ("a websocket without an Origin header: the app opens only in its own page"
                    if websocket else None)
        if len(origins) > 1:
            return "a request with more than one Origin header"
        origin = parse_origin(origins[0])
        if origin is not None and (origin == (scheme, name, port) or origin in self.origins):
            return None
        return (f"a request from another page (Origin {shown(origins[0])}): the app opens only in its own "
                "page (bpe-lab serve --allow-origin URL adds one)")
