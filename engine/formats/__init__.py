"""Tokenizer files from and for the ecosystem: HuggingFace ``tokenizer.json``, GPT-2's
``vocab.json`` + ``merges.txt``, tiktoken's ``.tiktoken`` ranks, seed 001's JSON, and the native
format (:mod:`engine.tokenizer`).

Pure Python: never imports ``tokenizers`` or ``tiktoken`` (they only check these files in the
tests). Example::

    from engine.formats import export_tokenizer, load_any
    export_tokenizer(tok, "hf", "tokenizer.json")        # -> warnings (list of str)
    imported = load_any("tokenizer.json")                 # format detected from the file
    imported.tokenizer.encode("hi")                       # bpe-lab's ids
    imported.encode("hi")                                 # the file's ids (identical for files we write)
"""

from __future__ import annotations

import gc
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import ExportError, WriteError
from ..io import parse_json
from ..pretokenize import PreTokenizer
from ..tokenizer import Tokenizer, load_tokenizer, save_tokenizer, tokenizer_from_dict
from .common import Imported, fail, read_text, show
from .gpt2 import MERGES, VOCAB, load_gpt2, pair_paths, save_gpt2
from .hf import load_hf, save_hf
from .seed001 import load_seed001, save_seed001
from .tiktoken_bpe import load_tiktoken, recover_merges, save_tiktoken, sidecar_path

FORMATS = ("hf", "gpt2", "tiktoken", "seed001", "native")

__all__ = ["FORMATS", "Imported", "detect_format", "export_tokenizer", "load_any", "read_paths", "recover_merges", "sidecar_path",
           "written_paths"]


def export_tokenizer(tok: Tokenizer, fmt: str, path: str | Path, *, ids: Sequence[int | None] | None = None,
                     source: str = "the file") -> list[str]:
    """Write ``tok`` in ``fmt`` at ``path`` (every file atomically); returns one-line warnings.

    ``gpt2`` writes ``path/vocab.json`` and ``path/merges.txt``; ``tiktoken`` writes ``path`` and
    ``path.json`` (pattern and specials). ``ids`` (our id -> id to write, e.g. an import's
    ``file_ids``) keeps another numbering where the format allows any (hf, gpt2, tiktoken);
    ``native`` cannot (its ids are structural), so a warning says when they differ from ``ids``
    (``source`` names where those came from). Raises ValueError when the format cannot hold the
    tokenizer.
    """
    if fmt != "gpt2" and str(path).endswith(("/", os.sep)):
        raise WriteError(path, f"a name ending in / is a folder, and {fmt} writes a file", after="nothing was written")
    try:
        if fmt == "hf":
            return save_hf(tok, path, ids)
        if fmt == "gpt2":
            made = _missing_folders(Path(path))
            try:
                return save_gpt2(tok, path, ids)
            except BaseException:
                _remove_folders(made)  # a failed export leaves no empty folder behind
                raise
        if fmt == "tiktoken":
            return save_tiktoken(tok, path, ids)
        if fmt == "seed001":
            return save_seed001(tok, path)
        if fmt == "native":
            save_tokenizer(tok, path)
            return renumbered_note(tok, ids, source)
    except WriteError:
        raise
    except OSError as exc:  # pragma: no cover - every write goes through atomic_write_*, which raise WriteError
        raise WriteError(path, exc.strerror or str(exc), errno=exc.errno) from None
    raise ExportError(f"unknown format {fmt!r} (choose {', '.join(FORMATS)})")


def renumbered_note(tok: Tokenizer, ids: Sequence[int | None] | None, source: str = "the file") -> list[str]:
    """A warning when ``ids`` (an import's ``file_ids``) differ from the native ids of ``tok``
    (bases, then merges, then specials), with the first token that moves; else none."""
    if ids is None:
        return []
    moved = [(ours, theirs) for ours, theirs in enumerate(ids) if theirs != ours]
    if not moved:
        return []
    ours, theirs = moved[0]
    where = "has no id there" if theirs is None else f"is {theirs} there"
    return [f"native ids differ from {source}'s for {len(moved)} of {tok.vocab_size} tokens (first: "
            f"{show(tok.token_bytes(ours))} {where}, {ours} here); ids are renumbered: bases, then merges, then specials"]


def _missing_folders(folder: Path) -> list[Path]:
    """``folder`` and those of its parents that do not exist yet, deepest first."""
    missing = []
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    return missing


def _remove_folders(folders: list[Path]) -> None:
    """Remove folders an export created (deepest first), if they are still empty."""
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:
            return


def read_paths(fmt: str, path: str | Path) -> list[Path]:
    """The files :func:`load_any` reads for ``fmt`` at ``path`` (that exist or not): what an
    export must not overwrite. Example: ``read_paths("tiktoken", "t.tiktoken") -> [t.tiktoken, t.tiktoken.json]``"""
    path = Path(path)
    if fmt == "gpt2":
        try:
            return list(pair_paths(path))
        except ValueError:
            return [path]
    if fmt == "tiktoken":
        ranks = path.with_name(path.name[: -len(".json")]) if path.name.endswith(".json") else path
        return [ranks, sidecar_path(ranks)]
    return [path]


def written_paths(fmt: str, path: str | Path) -> list[Path]:
    """The files :func:`export_tokenizer` writes for ``fmt`` at ``path``."""
    path = Path(path)
    if fmt == "gpt2":
        return [path / VOCAB, path / MERGES]
    if fmt == "tiktoken":
        return [path, sidecar_path(path)]
    return [path]


def detect_format(path: str | Path) -> str:
    """Which format a path holds (one of :data:`FORMATS`), from its content (the name only
    chooses between formats the content allows)."""
    return _sniff(Path(path))[0]


#: Lines a .tiktoken rank file is made of: base64 token bytes (``=`` alone: an empty token, which
#: tiktoken's loader accepts), one space, the rank.
_RANK_LINE = re.compile(r"^(?:(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{4}|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{2}==)|={1,2}) \d+$")
#: How many lines decide whether a text file is a rank file or a merges.txt.
_SNIFF_LINES = 5


def _sniff(path: Path) -> tuple[str, Any]:
    """(format, what was read) for ``path``: the parsed JSON, the text, or None for a directory.

    The content decides: a JSON object with ``"format"`` is native, with ``"model"`` HuggingFace,
    with a ``"vocab"`` list and ``"merges"`` seed 001, with ``"pat_str"`` a tiktoken sidecar, and
    one of token -> integer is the ``vocab.json`` half of a GPT-2 pair; text with ``#version``
    first (or lines of two tokens) is the ``merges.txt`` half, lines of ``base64 rank`` a
    ``.tiktoken`` file. The name only chooses where the content allows two (lines that are both
    ranks and merges). The file is read once (bounded by ``MAX_FILE_BYTES``).
    """
    if path.is_dir():
        if (path / VOCAB).exists() or (path / MERGES).exists():
            return "gpt2", None
        raise fail(path, f"is a directory without {VOCAB} + {MERGES}")
    text = read_text(path)
    if not text.strip():
        raise fail(path, "the file is empty" if not text else "holds only whitespace, no tokenizer")
    if text.lstrip().startswith(("{", "[")):
        data = parse_json(text, path)
        return _json_format(path, data), data
    lines = []
    for line in text.splitlines():
        if line.strip():
            lines.append(line)
            if len(lines) == _SNIFF_LINES:
                break
    if lines and lines[0].startswith("#version"):
        return "gpt2", text
    if lines:
        ranks = all(_RANK_LINE.match(line) for line in lines)
        pairs = all(len(parts) == 2 and all(parts) for parts in (line.rstrip("\r").split(" ") for line in lines))
        if pairs and path.name.endswith(MERGES):
            return "gpt2", text
        if ranks:
            return "tiktoken", text
        if pairs and (path.parent / VOCAB).exists():
            return "gpt2", text
    # Text in no format: a name that says which lets that format's reader say what is wrong.
    if path.name.endswith(".tiktoken"):
        return "tiktoken", text
    if path.name.endswith(MERGES):
        return "gpt2", text
    try:
        parse_json(text, path)
    except ValueError as exc:
        where = str(exc)[len(f"{path}: "):]
        raise fail(path, f"not a tokenizer file bpe-lab knows ({where}; nor a merges.txt or .tiktoken file)") from None
    raise fail(path, _UNKNOWN)  # JSON, but not an object: a number, a string


_UNKNOWN = "not a tokenizer file bpe-lab knows (native, HF tokenizer.json, seed 001, vocab.json + merges.txt, .tiktoken)"


def _json_format(path: Path, data: Any) -> str:
    """The format a JSON value is, from its keys (see :func:`_sniff`)."""
    if isinstance(data, dict):
        if data and all(type(v) is int for v in data.values()):
            return "gpt2"  # vocab.json (GPT-2's has tokens such as "format" and "model": test it first)
        if data.get("format") == "bpe-lab":
            return "native"
        if "model" in data:
            return "hf"
        if isinstance(data.get("vocab"), list) and "merges" in data:
            return "seed001"
        if "pat_str" in data:
            return "tiktoken"
        if "format" in data:
            return "native"  # another "format": the native reader says it is not bpe-lab's
        # An object in no format: a name that says which lets that format's reader say what is wrong.
        if path.name.endswith(VOCAB):
            return "gpt2"
        if path.name.endswith(".tiktoken.json"):
            return "tiktoken"
    raise fail(path, _UNKNOWN)


def load_any(path: str | Path, *, pretokenizer: PreTokenizer | None = None, fmt: str | None = None,
             need_pattern: bool = True) -> Imported:
    """Read a tokenizer in any supported format (detected from the content unless ``fmt`` is given).

    ``pretokenizer`` is for the formats that hold no pattern (``.tiktoken`` without its sidecar,
    ``vocab.json`` + ``merges.txt``); elsewhere the file's own is used and giving one is an error.
    ``need_pattern=False`` (decoding) accepts a ``.tiktoken`` file with neither. Each file is read once.
    """
    # A big file makes a few hundred thousand objects and no reference cycles: the cyclic
    # collector would only walk them again and again (a tenth of a GPT-2 load), so it waits.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _load_any(path, pretokenizer, fmt, need_pattern)
    finally:
        if collecting:
            gc.enable()


def _load_any(path: str | Path, pretokenizer: PreTokenizer | None, fmt: str | None, need_pattern: bool) -> Imported:
    path = Path(path)
    content = None
    if fmt is None:
        fmt, content = _sniff(path)
    if pretokenizer is not None and fmt not in ("tiktoken", "gpt2"):
        raise fail(path, f"a pattern name is for .tiktoken and vocab.json + merges.txt files; this is {fmt}, which has its own")
    if fmt == "native":
        if content is None:
            return Imported(load_tokenizer(path), "native", str(path))
        try:
            return Imported(tokenizer_from_dict(content), "native", str(path))
        except ValueError as exc:  # as load_tokenizer says it
            raise fail(path, str(exc)) from None
    if fmt == "hf":
        return load_hf(path, content)
    if fmt == "seed001":
        return load_seed001(path, content)
    if fmt == "gpt2":
        return load_gpt2(path, pretokenizer, content)
    if fmt == "tiktoken":
        return load_tiktoken(path, pretokenizer, content, need_pattern=need_pattern)
    raise ExportError(f"unknown format {fmt!r} (choose {', '.join(FORMATS)})")
