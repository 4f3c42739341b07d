"""A cache of the merges recovered from ``.tiktoken`` rank files.

A rank file holds no merge pairs: :func:`~engine.formats.tiktoken_bpe.recover_merges` rebuilds
them, which for GPT-2's 50,000 tokens takes over a second, on every load. What it finds depends
on the ranks alone, so it is kept, keyed by the SHA-256 of the file's text, in
``$BPE_LAB_CACHE`` (else ``$XDG_CACHE_HOME/bpe-lab/merges``, else ``~/.cache/bpe-lab/merges``;
``BPE_LAB_CACHE=off`` turns the cache off).

An entry is never trusted blindly. It carries a checksum of its own body, and the loader checks
every merge it lists against the ranks being loaded
(:func:`~engine.formats.tiktoken_bpe.load_tiktoken`): both parts are tokens made before it, the
token it makes is the one of that rank, and ranks only grow. What fails is rebuilt and written
again (atomically). The folder holds at most :data:`MAX_ENTRIES` entries; the least recently
used go first. Any trouble with the cache (unwritable folder, a damaged file) only costs the
recovery it would have saved: loading never fails because of it.

The entry's layout: a first line naming the format, a JSON header line (the source's hash, the
number of merges, the unreachable and ambiguous tokens by rank, the body's hash), then the body:
the merges' left parts, then their right parts, then their products, by rank, as unsigned 32-bit
little-endian integers.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from array import array
from pathlib import Path
from typing import NamedTuple

from engine.corpus.files import atomic_write_bytes, read_bounded
from engine.errors import BpeLabError

MAGIC = b"bpe-lab merge cache 1\n"
#: Entries kept at most; past that the least recently used are removed.
MAX_ENTRIES = 16
#: A header is at most this long (it lists tokens by rank; real files have a handful).
MAX_HEADER = 1 << 22


class Recovered(NamedTuple):
    """What recovery found for a rank file, by rank: the merges (``left[k]`` + ``right[k]`` makes
    ``product[k]``), the tokens no merge reaches, and the tokens the merges do not rebuild from
    their own bytes."""

    left: list[int]
    right: list[int]
    product: list[int]
    unreachable: list[int]
    odd: list[int]


def cache_dir() -> Path | None:
    """Where entries live; None when the cache is off."""
    chosen = os.environ.get("BPE_LAB_CACHE")
    if chosen is not None:
        return None if chosen.strip().lower() in ("", "off", "0", "no") else Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "bpe-lab" / "merges"


def key_of(text: str) -> str:
    """The entry name for a rank file's text."""
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


def load(key: str, ranks: dict[bytes, int]) -> Recovered | None:
    """The entry for ``key`` if there is one and it is intact; else None. (The caller checks that
    it holds for ``ranks`` as it builds the tokenizer, and calls :func:`store` again if not.)"""
    folder = cache_dir()
    if folder is None:
        return None
    path = folder / f"{key}.bin"
    try:  # the one bounded reader: a FIFO, a device, a folder or a file above the bound is no entry
        data = read_bounded(path, kind="a merge cache entry", limit=len(MAGIC) + MAX_HEADER + 12 * (len(ranks) + 1),
                            pipes=False)
    except (OSError, BpeLabError):
        return None
    entry = _parse(data, key)
    if entry is not None:
        try:
            os.utime(path)  # recently used: kept longest
        except OSError:
            pass
    return entry


def store(key: str, entry: Recovered) -> None:
    """Keep ``entry`` for ``key`` (best effort: a cache that cannot be written is skipped)."""
    folder = cache_dir()
    if folder is None:
        return
    body = array("I", entry.left + entry.right + entry.product)
    if sys.byteorder != "little":
        body.byteswap()
    blob = body.tobytes()
    header = {
        "source": key,
        "merges": len(entry.left),
        "unreachable": entry.unreachable,
        "odd": entry.odd,
        "body": hashlib.sha256(blob).hexdigest(),
    }
    try:
        folder.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(folder / f"{key}.bin", MAGIC + json.dumps(header).encode("ascii") + b"\n" + blob)
        _prune(folder)
    except Exception:  # noqa: BLE001 - the cache is an optimisation; loading goes on without it
        pass


def _prune(folder: Path) -> None:
    entries = sorted(folder.glob("*.bin"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in entries[MAX_ENTRIES:]:
        old.unlink(missing_ok=True)


def _parse(data: bytes, key: str) -> Recovered | None:
    if not data.startswith(MAGIC):
        return None
    end = data.find(b"\n", len(MAGIC))
    if end < 0:
        return None
    try:
        header = json.loads(data[len(MAGIC) : end])
    except (ValueError, RecursionError):  # garbled, or nested too deeply
        return None
    blob = data[end + 1 :]
    if not isinstance(header, dict) or header.get("source") != key:
        return None
    count, unreachable, odd = header.get("merges"), header.get("unreachable"), header.get("odd")
    if type(count) is not int or count < 0 or len(blob) != 12 * count:
        return None
    if not (isinstance(unreachable, list) and isinstance(odd, list)):
        return None
    if header.get("body") != hashlib.sha256(blob).hexdigest():
        return None
    body = array("I")
    body.frombytes(blob)
    if sys.byteorder != "little":
        body.byteswap()
    if not all(type(rank) is int for rank in unreachable + odd):
        return None
    ranks = body.tolist()
    return Recovered(ranks[:count], ranks[count : 2 * count], ranks[2 * count :], unreachable, odd)
