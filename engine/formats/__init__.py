"""Tokenizer files from and for the ecosystem: HuggingFace ``tokenizer.json``, GPT-2's
``vocab.json`` + ``merges.txt``, tiktoken's ``.tiktoken`` ranks, seed 001's JSON, and the native
format (:mod:`engine.io`).

Pure Python: never imports ``tokenizers`` or ``tiktoken`` (they only check these files in the
tests). Example::

    from engine.formats import export_tokenizer, load_any
    export_tokenizer(tok, "hf", "tokenizer.json")        # -> warnings (list of str)
    imported = load_any("tokenizer.json")                 # format detected from the file
    imported.tokenizer.encode("hi")                       # bpe-lab's ids
    imported.encode("hi")                                 # the file's ids (identical for files we write)
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Sequence

from ..errors import ExportError, WriteError
from ..io import load_tokenizer, parse_json, save_tokenizer
from ..pretokenize import PreTokenizer
from ..tokenizer import Tokenizer
from .common import Imported, fail, read_text
from .gpt2 import MERGES, VOCAB, load_gpt2, save_gpt2
from .hf import load_hf, save_hf
from .seed001 import load_seed001, save_seed001
from .tiktoken_bpe import load_tiktoken, recover_merges, save_tiktoken, sidecar_path

FORMATS = ("hf", "gpt2", "tiktoken", "seed001", "native")
_RANK_LINE = re.compile(r"^[A-Za-z0-9+/]+={0,2} \d+$")

__all__ = ["FORMATS", "Imported", "detect_format", "export_tokenizer", "load_any", "recover_merges", "sidecar_path"]


def export_tokenizer(tok: Tokenizer, fmt: str, path: str | Path, *, ids: Sequence[int | None] | None = None) -> list[str]:
    """Write ``tok`` in ``fmt`` at ``path`` (every file atomically); returns one-line warnings.

    ``gpt2`` writes ``path/vocab.json`` and ``path/merges.txt``; ``tiktoken`` writes ``path`` and
    ``path.json`` (pattern and specials). ``ids`` (our id -> id to write, e.g. an import's
    ``file_ids``) keeps another numbering where the format allows any (hf, gpt2, tiktoken).
    Raises ValueError when the format cannot hold the tokenizer.
    """
    try:
        if fmt == "hf":
            return save_hf(tok, path, ids)
        if fmt == "gpt2":
            return save_gpt2(tok, path, ids)
        if fmt == "tiktoken":
            return save_tiktoken(tok, path, ids)
        if fmt == "seed001":
            return save_seed001(tok, path)
        if fmt == "native":
            save_tokenizer(tok, path)
            return []
    except WriteError:
        raise
    except OSError as exc:  # pragma: no cover - every write goes through atomic_write_*, which raise WriteError
        raise WriteError(path, exc.strerror or str(exc), errno=exc.errno) from None
    raise ExportError(f"unknown format {fmt!r} (choose {', '.join(FORMATS)})")


def written_paths(fmt: str, path: str | Path) -> list[Path]:
    """The files :func:`export_tokenizer` writes for ``fmt`` at ``path``."""
    path = Path(path)
    if fmt == "gpt2":
        return [path / VOCAB, path / MERGES]
    if fmt == "tiktoken":
        return [path, sidecar_path(path)]
    return [path]


def detect_format(path: str | Path) -> str:
    """Which format a path holds (one of :data:`FORMATS`), from its name and content."""
    path = Path(path)
    if path.is_dir():
        if (path / VOCAB).exists() or (path / MERGES).exists():
            return "gpt2"
        raise fail(path, f"is a directory without {VOCAB} + {MERGES}")
    name = path.name
    if name.endswith((VOCAB, MERGES)):
        return "gpt2"
    if name.endswith((".tiktoken", ".tiktoken.json")):
        return "tiktoken"
    text = read_text(path)
    if not text.lstrip().startswith("{"):
        lines = [line for line in text.splitlines() if line.strip()]
        if lines and lines[0].startswith("#version"):
            return "gpt2"
        if lines and all(_RANK_LINE.match(line) for line in lines[:5]):
            return "tiktoken"
    try:
        data = parse_json(text, path)
    except ValueError as exc:
        if text.lstrip().startswith(("{", "[")):
            raise
        where = str(exc)[len(f"{path}: "):]
        raise fail(path, f"not a tokenizer file bpe-lab knows ({where}; nor a merges.txt or .tiktoken file)") from None
    if isinstance(data, dict):
        if "format" in data:
            return "native"
        if "model" in data:
            return "hf"
        if isinstance(data.get("vocab"), list) and "merges" in data:
            return "seed001"
        if "pat_str" in data:
            return "tiktoken"
        if data and all(type(v) is int for v in data.values()):
            return "gpt2"
    raise fail(path, "not a tokenizer file bpe-lab knows (native, HF tokenizer.json, seed 001, vocab.json + merges.txt, .tiktoken)")


def load_any(path: str | Path, *, pretokenizer: PreTokenizer | None = None, fmt: str | None = None,
             need_pattern: bool = True) -> Imported:
    """Read a tokenizer in any supported format (detected unless ``fmt`` is given).

    ``pretokenizer`` is for the formats that hold no pattern (``.tiktoken`` without its sidecar,
    ``vocab.json`` + ``merges.txt``); elsewhere the file's own is used and giving one is an error.
    ``need_pattern=False`` (decoding) accepts a ``.tiktoken`` file with neither.
    """
    fmt = fmt or detect_format(path)
    if pretokenizer is not None and fmt not in ("tiktoken", "gpt2"):
        raise fail(path, f"a pattern name is for .tiktoken and vocab.json + merges.txt files; this is {fmt}, which has its own")
    if fmt == "native":
        return Imported(load_tokenizer(path), "native", str(path))
    if fmt == "hf":
        return load_hf(path)
    if fmt == "seed001":
        return load_seed001(path)
    if fmt == "gpt2":
        return load_gpt2(path, pretokenizer)
    if fmt == "tiktoken":
        return load_tiktoken(path, pretokenizer, need_pattern=need_pattern)
    raise ExportError(f"unknown format {fmt!r} (choose {', '.join(FORMATS)})")
