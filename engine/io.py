"""Native tokenizer files (versioned JSON) and atomic writes.

Format (``"format": "bpe-lab"``, ``"version": 1``)::

    {"format": "bpe-lab", "version": 1, "base": "bytes" | "chars",
     "alphabet": [...],                 # chars base only, in id order (id 0 = "\\ufffd")
     "merges": [[left, right], ...],    # merge k makes id base_size + k
     "specials": [{"token": "<eos>", "id": 270}, ...],   # ids follow the last merge
     "pretokenizer": {"name": ..., "pattern": ..., "split_digits": ..., "split_newlines": ...},
     "config": {...}}                   # the training options, when known
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from .config import TrainConfig
from .pretokenize import PreTokenizer
from .tokenizer import Tokenizer

FORMAT = "bpe-lab"
VERSION = 1


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to a temp file beside ``path``, then rename it into place.

    A failed write leaves any old file untouched and raises ``OSError``.
    """
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        # mkstemp makes the file private (0600); give it the mode a plain open() would.
        os.chmod(tmp, _file_mode(path))
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _file_mode(path: Path) -> int:
    """Keep an existing file's mode; a new file gets 0666 less the umask."""
    try:
        return path.stat().st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def atomic_write_text(path: str | Path, text: str) -> None:
    """UTF-8 text version of :func:`atomic_write_bytes`."""
    atomic_write_bytes(path, text.encode("utf-8"))


def tokenizer_to_dict(tok: Tokenizer) -> dict[str, Any]:
    """The native JSON structure of a tokenizer."""
    data: dict[str, Any] = {"format": FORMAT, "version": VERSION, "base": tok.base}
    if tok.alphabet is not None:
        data["alphabet"] = tok.alphabet
    data["merges"] = [list(pair) for pair in tok.merges]
    data["specials"] = [{"token": t, "id": i} for t, i in tok.specials.items()]
    data["pretokenizer"] = tok.pretokenizer.to_dict()
    if tok.config is not None:
        data["config"] = tok.config.to_dict()
    return data


def save_tokenizer(tok: Tokenizer, path: str | Path) -> None:
    """Write ``tok`` in the native format, atomically."""
    text = json.dumps(tokenizer_to_dict(tok), ensure_ascii=False, indent=None)
    atomic_write_text(path, text + "\n")


def _need(cond: bool, message: str) -> None:
    if not cond:
        raise ValueError(message)


def tokenizer_from_dict(data: Any) -> Tokenizer:
    """Build a tokenizer from the native structure; anything malformed raises ``ValueError``."""
    _need(isinstance(data, dict), "not a bpe-lab tokenizer (expected a JSON object)")
    _need(data.get("format") == FORMAT, "not a bpe-lab tokenizer (no \"format\": \"bpe-lab\")")
    _need(data.get("version") == VERSION, f"unsupported bpe-lab file version {data.get('version')!r}")
    base = data.get("base")
    _need(base in ("bytes", "chars"), f"unknown base {base!r}")
    alphabet = data.get("alphabet")
    if base == "chars":
        _need(
            isinstance(alphabet, list) and bool(alphabet) and all(isinstance(c, str) and len(c) == 1 for c in alphabet),
            "the chars base needs \"alphabet\": a list of single characters",
        )
        _need(len(set(alphabet)) == len(alphabet), "the alphabet repeats a character")
    merges = data.get("merges")
    _need(isinstance(merges, list), "\"merges\" must be a list of [left, right] pairs")
    for i, pair in enumerate(merges):
        _need(
            isinstance(pair, list) and len(pair) == 2 and all(type(x) is int for x in pair),
            f"merge {i + 1} is not a [left, right] pair of integers",
        )
    specials = data.get("specials", [])
    _need(isinstance(specials, list), "\"specials\" must be a list")
    tokens = []
    first_special = (len(alphabet) if base == "chars" else 256) + len(merges)
    for i, entry in enumerate(specials):
        _need(isinstance(entry, dict) and isinstance(entry.get("token"), str), f"special {i + 1} is malformed")
        _need(entry.get("id") == first_special + i, f"special {entry['token']!r} must have id {first_special + i}")
        tokens.append(entry["token"])
    pre = data.get("pretokenizer", {"name": "none"})
    _need(isinstance(pre, dict), "\"pretokenizer\" must be an object")
    config = data.get("config")
    try:
        pretokenizer = PreTokenizer.from_dict(pre)
        train_config = TrainConfig.from_dict(config) if isinstance(config, dict) else None
    except TypeError as exc:
        raise ValueError(f"malformed tokenizer settings: {exc}") from None
    return Tokenizer(
        merges, base=base, alphabet=alphabet, specials=tokens, pretokenizer=pretokenizer, config=train_config
    )


def load_tokenizer(path: str | Path) -> Tokenizer:
    """Read a native tokenizer file; unreadable or malformed files raise ``ValueError``."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ValueError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ValueError(f"{path}: is a directory, not a tokenizer file") from None
    except PermissionError:
        raise ValueError(f"{path}: permission denied") from None
    except OSError as exc:
        raise ValueError(f"{path}: cannot read ({exc.strerror or exc})") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a text file (invalid UTF-8)") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: invalid JSON at line {exc.lineno}, column {exc.colno}") from None
    try:
        return tokenizer_from_dict(data)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
