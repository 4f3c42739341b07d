"""Which format a path holds: the path is read once into a :class:`Probe`, each format's
``sniff`` hook scores it, and the surest wins (a tie goes to the earlier format in the
registry). The content decides; a name only scores 1, which lets a file in no format reach the
reader its name suggests, so that this reader says what is wrong with it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

from engine.corpus.files import parse_json
from engine.formats.common import fail, read_raw


class Sniffer(Protocol):
    """What :func:`sniff` needs of a format (``engine.formats.Format`` is one): read-only
    attributes, as a frozen record's are."""

    @property
    def label(self) -> str: ...

    @property
    def writes_folder(self) -> bool: ...

    def sniff(self, probe: Probe) -> int: ...


#: The registry's record type: :func:`sniff` returns the record it was given.
AnySniffer = TypeVar("AnySniffer", bound=Sniffer)

#: How many lines decide whether a text file is a rank file or a merges.txt.
SNIFF_LINES = 5

#: Lines a .tiktoken rank file is made of: base64 token bytes (``=`` alone: an empty token, which
#: tiktoken's loader accepts), one space, the rank.
RANK_LINE = re.compile(r"^(?:(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{4}|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{2}==)|={1,2}) \d+$")

UNKNOWN = ("not a tokenizer file bpe-lab knows (native, HF tokenizer.json, seed 001, vocab.json + merges.txt, .tiktoken, "
           "tekken.json)")

#: The scores the hooks give, surest first (a JSON object may have the keys of several formats,
#: and text may be both rank lines and merge lines): the gpt2 hook's for an object of token ->
#: integer (GPT-2's vocab.json has tokens such as "format" and "model") and for a merges.txt by
#: its header or name; the native hook's for ``"format": "bpe-lab"``; tekken's for a
#: ``"config"`` with a pattern and a ``"vocab"`` list; hf's for ``"model"``; seed
#: 001's for a ``"vocab"`` list and ``"merges"``; tiktoken's for ``"pat_str"`` or rank lines;
#: gpt2's for merge lines beside a vocab.json; native's for another ``"format"`` (its reader says
#: it is not bpe-lab's); and any hook's for a name alone.
VOCAB_OBJECT, MERGES_NAMED, NATIVE, TEKKEN, HF, SEED001, TIKTOKEN, PAIR_BESIDE, OTHER_FORMAT, NAMED = (
    60, 55, 50, 45, 40, 35, 30, 20, 5, 1)
#: A GGUF file, by its first four bytes (only its metadata is then read: engine.formats.gguf).
GGUF = 70
#: CLIP's gzip-compressed merges, by their first line.
CLIP = 65


@dataclass
class Probe:
    """A path's content as the sniff hooks see it: ``kind`` is ``"dir"``, ``"json"`` (``data``
    the parsed value), ``"text"`` (``text``, and its first non-blank ``lines``), ``"binary"``
    (``raw``: not UTF-8) or ``"gguf"`` (nothing read but its first four bytes)."""

    path: Path
    kind: str
    data: Any = None
    text: str | None = None
    lines: list[str] = field(default_factory=list)
    raw: bytes | None = None

    @property
    def content(self) -> Any:
        """What was read, for the format's load hook (so no file is read twice)."""
        return self.data if self.kind == "json" else self.raw if self.kind == "binary" else self.text


#: The first two bytes of a gzip file.
GZIP_MAGIC = b"\x1f\x8b"


#: A GGUF file's first four bytes.
GGUF_MAGIC = b"GGUF"


def is_gguf(path: Path) -> bool:
    """Whether ``path`` is a regular file that starts as a GGUF file does (four bytes read)."""
    import os
    import stat

    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False
        with open(path, "rb") as handle:
            return handle.read(4) == GGUF_MAGIC
    except OSError:
        return False


def probe(path: Path) -> Probe:
    """Read ``path`` once (bounded by ``MAX_FILE_BYTES``); an empty file or bad JSON raises
    ``TokenizerFileError`` naming the path."""
    if path.is_dir():
        return Probe(path, "dir")
    if is_gguf(path):  # a model file of gigabytes: its reader reads the metadata at its start only
        return Probe(path, "gguf")
    raw = read_raw(path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return Probe(path, "binary", raw=raw)
    if not text.strip():
        raise fail(path, "the file is empty" if not text else "holds only whitespace, no tokenizer")
    if text.lstrip().startswith(("{", "[")):
        return Probe(path, "json", data=parse_json(text, path), text=text)
    return Probe(path, "text", text=text, lines=first_lines(text, SNIFF_LINES))


def first_lines(text: str, count: int) -> list[str]:
    """The first ``count`` lines of ``text`` that are not blank, as ``splitlines`` cuts them, from
    as little of it as holds them (a rank file is 200,000 lines).
    Example: ``first_lines("a\n\nb\nc", 2) -> ["a", "b"]``"""
    size = 1 << 16
    while True:
        whole = size >= len(text)
        found = text[:size].splitlines()
        if not whole:
            found.pop()  # it may be cut
        lines = [line for line in found if line.strip()][:count]
        if len(lines) == count or whole:
            return lines
        size *= 4


def sniff(path: Path, registry: Sequence[AnySniffer]) -> tuple[AnySniffer, Any]:
    """(the format, what was read of the path) for ``path``."""
    seen = probe(path)
    best, score = None, 0
    for record in registry:
        got = record.sniff(seen)
        if got > score:
            best, score = record, got
    if best is not None:
        return best, seen.content
    if seen.kind == "binary":
        if seen.raw is not None and seen.raw.startswith(GZIP_MAGIC):
            # (CLIP's own merges, bpe_simple_vocab_16e6.txt.gz, are read: engine.formats.clip)
            raise fail(path, "is gzip-compressed: decompress it first (gunzip -k FILE)")
        raise fail(path, "not a text file (invalid UTF-8)")
    if seen.kind == "dir":
        names = " + ".join(f.label for f in registry if f.writes_folder)
        raise fail(path, f"is a directory without {names}")
    if seen.kind == "text":
        try:
            parse_json(seen.text or "", path)
        except ValueError as exc:
            where = str(exc)[len(f"{path}: "):]
            raise fail(path, f"not a tokenizer file bpe-lab knows ({where}; nor a merges.txt or .tiktoken file)") from None
    raise fail(path, UNKNOWN)  # JSON in no format, or not an object: a number, a string
