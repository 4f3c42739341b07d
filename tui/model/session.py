"""Sessions: where the user was (corpus, config, every merge, the step, the selection), on disk.

The app writes the session every few seconds while it changes and when it quits, atomically
(engine.corpus.files), so a crash or SIGKILL loses at most those seconds; ``bpe-lab --resume`` puts the
user back, and refuses when the corpus file is no longer the one the session was made on.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine import BpeLabError, Tokenizer, TrainConfig
from engine.config import MAX_VOCAB
from engine.corpus import atomic_write_text, parse_json
from engine.encode import tokenizer_from_dict, tokenizer_to_dict
from engine.errors import one_line, reading_file, size_text
from engine.train import check_branch_data
from tui.model.session_lock import SessionLock, claim_session_file, lock_path  # noqa: F401 (kept importable here)

FORMAT = "bpe-lab session"
VERSION = 1


class SessionError(BpeLabError):
    """A session that cannot be resumed; the message is one line for the user."""


def session_path() -> Path:
    """``$BPE_LAB_SESSION``, else ``$XDG_STATE_HOME/bpe-lab/session.json`` (~/.local/state)."""
    explicit = os.environ.get("BPE_LAB_SESSION")
    if explicit:
        return Path(explicit)
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "bpe-lab" / "session.json"


def fingerprint(data: bytes) -> str:
    """The corpus hash a session remembers (sha256 of the exact bytes)."""
    return hashlib.sha256(data).hexdigest()


@dataclass
class Session:
    """Everything needed to put the user back where they were."""

    source: str  # a corpus path, or sample:NAME
    sha256: str
    size: int
    config: TrainConfig
    merges: list[tuple[int, int]]  # applied ones first, then the undone-but-redoable ones
    step: int  # how many of them are applied
    selected: int | None = None
    replay: Tokenizer | None = None  # an imported tokenizer being replayed, if any
    extra: dict[str, Any] = field(default_factory=dict)
    replay_ids: list[int | None] | None = None  # how the replayed file numbers its tokens (Imported.file_ids)
    #: What-if branches and manual merges (Trainer.branch_data), when there are any: ``merges``
    #: and ``step`` are then the current branch's, for older readers.
    branches: dict[str, Any] | None = None
    #: The corpus is a chunk-count table (``--counts``): a word-count file, being plain text,
    #: is read as one again only because the session says so.
    counts: bool = False

    def to_json(self) -> str:
        data = {
            "format": FORMAT,
            "version": VERSION,
            "corpus": {"source": self.source, "sha256": self.sha256, "size": self.size},
            "config": self.config.to_dict(),
            "merges": [list(pair) for pair in self.merges],
            "step": self.step,
            "selected": self.selected,
            "replay": tokenizer_to_dict(self.replay) if self.replay is not None else None,
        }
        if self.replay is not None and self.replay_ids is not None:
            data["replay_ids"] = self.replay_ids
        if self.branches is not None:
            data["branches"] = self.branches
        if self.counts:
            data["corpus"]["counts"] = True
        return json.dumps(data, ensure_ascii=False)

    def save(self, path: Path | None = None) -> Path:
        """Write atomically (temp file + rename); the folder is created if needed."""
        path = path or session_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, self.to_json())
        return path

    @classmethod
    def load(cls, path: Path | None = None) -> Session:
        """Read a session; SessionError (one line naming the file and the field) for a missing,
        oversized or damaged file. Reading is bounded like a tokenizer file's: the size, the
        number of lists and values, the nesting and the digits of a number are checked before
        (or while) the JSON is parsed, and every field is checked for type and range."""
        path = path or session_path()
        data = _parse(_read(path), path)
        return cls.from_dict(data, str(path))

    @classmethod
    def from_dict(cls, data: Any, where: str = "session") -> Session:
        """Build from the JSON structure :meth:`to_json` writes; ``SessionError`` (one line,
        starting with ``where``) for any field of the wrong type or out of range."""
        check = _Fields(where)
        check.need(isinstance(data, dict), "not a bpe-lab session file (expected a JSON object)")
        check.need(data.get("format") == FORMAT, f"not a bpe-lab session file (no \"format\": \"{FORMAT}\")")
        check.need(data.get("version") == VERSION, f"unsupported session version {shown(data.get('version'))}")
        corpus = data.get("corpus")
        check.need(isinstance(corpus, dict), "\"corpus\" must be an object with \"source\", \"sha256\" and \"size\"")
        source = corpus.get("source")
        check.need(isinstance(source, str) and 0 < len(source) <= MAX_SOURCE and "\0" not in source,
                   f"\"corpus.source\" must be a file path or sample:NAME, not {shown(source)}")
        sha256 = corpus.get("sha256")
        check.need(isinstance(sha256, str) and len(sha256) == 64 and all(c in HEX for c in sha256),
                   f"\"corpus.sha256\" must be 64 hexadecimal digits, not {shown(sha256)}")
        size = check.number("corpus.size", corpus.get("size"), 0, MAX_CORPUS_SIZE)
        counts = corpus.get("counts", False)
        check.need(type(counts) is bool, f"\"corpus.counts\" must be true or false, not {shown(counts)}")
        config_data = data.get("config")
        check.need(isinstance(config_data, dict), f"\"config\" must be an object of training options, not {shown(config_data)}")
        try:
            config = TrainConfig.from_dict(config_data)
        except (ValueError, TypeError) as exc:
            raise SessionError(f"{where}: \"config\": {one_line(str(exc))}") from None
        replay = None
        if data.get("replay") is not None:
            try:
                replay = tokenizer_from_dict(data["replay"])
            except (ValueError, TypeError) as exc:
                raise SessionError(f"{where}: \"replay\": {one_line(str(exc))}") from None
        base_size = replay.base_size if replay is not None else (
            256 * (1 if config.end_of_word is None else 2) * (1 if config.subword_prefix is None else 2)
            if config.base == "bytes" else None)
        merges = check.merges(data.get("merges"), base_size)
        step = check.number("step", data.get("step"), 0, len(merges))
        selected = data.get("selected")
        if selected is not None:
            last = (base_size + len(merges) if base_size is not None else MAX_VOCAB) - 1
            check.number("selected", selected, 0, last)
        replay_ids = data.get("replay_ids") if replay is not None else None
        if replay_ids is not None:
            check.need(isinstance(replay_ids, list) and len(replay_ids) == replay.vocab_size
                       and all(i is None or (type(i) is int and 0 <= i < 1 << 32) for i in replay_ids),
                       f"\"replay_ids\" must list the replayed tokenizer's {replay.vocab_size} file ids")
        branches = data.get("branches")
        if branches is not None:
            try:
                check_branch_data(branches, "\"branches\"")
            except ValueError as exc:
                raise SessionError(f"{where}: {one_line(str(exc))}") from None
        return cls(source=source, sha256=sha256, size=size, config=config, merges=merges, step=step,
                   selected=selected, replay=replay, replay_ids=replay_ids, branches=branches, counts=counts)


#: Session files above this are refused before they are read. The largest real one (a million
#: merges, and a replayed tokenizer of a million more) is about 45 MB.
MAX_SESSION_BYTES = 64 << 20
#: ... and so are files with more lists and objects, or more commas (values), than such a
#: session holds (with room for brackets and commas inside patterns and special tokens): this
#: bounds the memory parsing takes to a few hundred MB, whatever the file holds.
MAX_SESSION_CONTAINERS = 3 * MAX_VOCAB
MAX_SESSION_COMMAS = 6 * MAX_VOCAB
#: The longest corpus path a session may name (Linux's PATH_MAX).
MAX_SOURCE = 4096
#: A corpus size a session may name (a file's size fits in 63 bits).
MAX_CORPUS_SIZE = 2**63 - 1
HEX = frozenset("0123456789abcdef")


def _read(path: Path) -> bytes:
    """The session file's bytes, refusing (one line) a missing, unreadable or oversized file
    before reading it, and anything but a regular file (a session is a file bpe-lab wrote; a
    FIFO is opened without waiting for a writer, so it cannot hang the launch)."""
    with reading_file(path, SessionError, "a session file"):
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        except FileNotFoundError:  # not a reading error: there is nothing to resume
            raise SessionError(f"no session to resume ({path} does not exist)") from None
        with os.fdopen(fd, "rb") as handle:
            mode = os.fstat(fd).st_mode
            if stat.S_ISDIR(mode):
                raise IsADirectoryError
            if not stat.S_ISREG(mode):
                raise SessionError(f"{path}: not a regular file (a session is a file bpe-lab writes)")
            size = os.fstat(fd).st_size
            if size > MAX_SESSION_BYTES:
                raise SessionError(f"{path}: {size_text(size)} is too large for a session file "
                                   f"(the limit is {size_text(MAX_SESSION_BYTES)})")
            data = handle.read(MAX_SESSION_BYTES + 1)
    if len(data) > MAX_SESSION_BYTES:  # it grew while read
        raise SessionError(f"{path}: more than {size_text(MAX_SESSION_BYTES)}, too large for a session file")
    return data


class _Written(str):
    """A JSON number that is not an integer (``1e400``, ``2.5``, ``NaN``), kept as written: no
    field of a session is one, and the message shows it as the user wrote it."""


def _parse(raw: bytes, path: Path) -> Any:
    """The JSON value of a session file; every failure is one ``SessionError`` line."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise SessionError(f"{path}: not a session file (invalid UTF-8)") from None
    containers = raw.count(b"[") + raw.count(b"{")
    commas = raw.count(b",")
    if containers > MAX_SESSION_CONTAINERS or commas > MAX_SESSION_COMMAS:
        raise SessionError(f"{path}: holds more values than a session can ({containers:,} lists and objects, "
                           f"{commas:,} commas; at most {MAX_SESSION_CONTAINERS:,} and {MAX_SESSION_COMMAS:,})")
    return parse_json(text, path, SessionError, parse_float=_Written, parse_constant=_Written)


def shown(value: Any) -> str:
    """A JSON value as a message shows it: numbers as written, text quoted and cut short,
    containers by their kind. Example: ``shown(_Written("1e400")) -> '1e400'``"""
    if isinstance(value, _Written):
        text = str(value)
    elif value is None or isinstance(value, bool):
        return json.dumps(value)
    elif isinstance(value, int):
        digits = len(str(abs(value))) if abs(value) < 10**40 else None
        return str(value) if digits is not None else "a number of more than 40 digits"
    elif isinstance(value, str):
        text = repr(value)
    elif isinstance(value, list):
        return "a list"
    elif isinstance(value, dict):
        return "an object"
    else:
        text = repr(value)
    return one_line(text if len(text) <= 40 else text[:37] + "...")


class _Fields:
    """The checks of :meth:`Session.from_dict`, each raising one ``SessionError`` line."""

    def __init__(self, where: str) -> None:
        self.where = where

    def need(self, condition: bool, message: str) -> None:
        if not condition:
            raise SessionError(f"{self.where}: {message}")

    def number(self, name: str, value: Any, low: int, high: int) -> int:
        """A whole number (not a bool, not 2.0) from ``low`` to ``high``."""
        ok = type(value) is int and low <= value <= high
        self.need(ok, f"\"{name}\" must be a whole number from {low} to {high}, not {shown(value)}")
        return value

    def merges(self, value: Any, base_size: int | None) -> list[tuple[int, int]]:
        """``[[left, right], ...]``: at most MAX_VOCAB pairs of ids, each made before the merge
        that uses it (``base_size`` ids are the base; None: the chars base, whose size the
        corpus decides, so ids are only held below MAX_VOCAB)."""
        self.need(isinstance(value, list), f"\"merges\" must be a list of [left, right] pairs, not {shown(value)}")
        self.need(len(value) <= MAX_VOCAB, f"\"merges\" holds {len(value):,} merges (at most {MAX_VOCAB:,})")
        merges = []
        for k, pair in enumerate(value):
            self.need(isinstance(pair, list) and len(pair) == 2,
                      f"merge {k + 1} in \"merges\" must be a [left, right] pair, not {shown(pair)}")
            made = (base_size + k if base_size is not None else MAX_VOCAB) - 1
            for part in pair:
                self.need(type(part) is int and 0 <= part <= made,
                          f"merge {k + 1} in \"merges\" refers to id {shown(part)}, which is not a whole number "
                          f"from 0 to {made} (the ids made before it)")
            merges.append((pair[0], pair[1]))
        return merges


# -- one session per corpus --------------------------------------------------------------------
#
# Without ``--session PATH`` or ``$BPE_LAB_SESSION`` (one explicit file), each corpus has its own
# session file, named after the corpus and a hash of its source and bytes, so opening or launching
# on one corpus never writes over another's merges. A file that holds merges this app did not
# make or resume is never written over either: it is first kept aside (:func:`keep_aside`).


def explicit_session_path() -> Path | None:
    """``$BPE_LAB_SESSION`` when set: one session file whatever the corpus; else None."""
    explicit = os.environ.get("BPE_LAB_SESSION")
    return Path(explicit) if explicit else None


def sessions_dir() -> Path:
    """``$XDG_STATE_HOME/bpe-lab/sessions`` (~/.local/state): the per-corpus session files."""
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "bpe-lab" / "sessions"


def corpus_session_path(source: str, sha256: str) -> Path:
    """The session file of one corpus: ``sessions/<name>-<hash12>.json``, the hash of its source
    (a path or sample:NAME) and of its bytes.

    Example: ``corpus_session_path("sample:workshop.txt", sha).name`` -> ``'workshop.txt-3f9c0a1b2c4d.json'``
    """
    name = source.split(":", 1)[1] if source.startswith("sample:") else Path(source).name
    name = "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in name)[:60] or "corpus"
    key = hashlib.sha256(f"{source}\0{sha256}".encode("utf-8", "surrogateescape")).hexdigest()[:12]
    return sessions_dir() / f"{name}-{key}.json"


def peek(path: Path) -> Session | None:
    """The session in ``path``, or None when there is none or it cannot be read."""
    try:
        return Session.load(path)
    except SessionError:
        return None


def holds_merges(path: Path) -> bool:
    """Whether ``path`` holds a session with merges (a damaged file counts: never lose it)."""
    if not path.exists():
        return False
    session = peek(path)
    return session is None or bool(session.merges)


def keep_aside(path: Path) -> Path:
    """Rename a session file to a sibling that nothing writes to (``<stem>.kept-<time>.json``),
    so a new session can take its place; returns the new path."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.stem}.kept-{stamp}{path.suffix}")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.stem}.kept-{stamp}-{n}{path.suffix}")
    os.replace(path, target)
    return target


def session_files() -> list[Path]:
    """The per-corpus session files, the most recently written first (kept-aside ones too)."""
    folder = sessions_dir()
    if not folder.is_dir():
        return []
    files = [p for p in folder.glob("*.json") if p.is_file()]
    return sorted(files, key=lambda p: p.stat().st_mtime, reverse=True)


def latest_session_path() -> Path:
    """The session ``bpe-lab --resume`` resumes: the most recent per-corpus one that is not
    kept aside; SessionError (one line) when there is none."""
    for path in session_files():
        if ".kept-" not in path.name:
            return path
    raise SessionError(f"no session to resume (none in {sessions_dir()})")


def corpus_sessions(source: str) -> list[tuple[Path, Session]]:
    """The sessions on one corpus source (a resolved path or sample:NAME), most recent first."""
    found = []
    for path in session_files():
        if ".kept-" in path.name:
            continue
        session = peek(path)
        if session is not None and session.source == source:
            found.append((path, session))
    return found


def resume_command(path: Path) -> str:
    """The command that resumes the session in ``path``, as the app's messages quote it."""
    if explicit_session_path() == path:
        return "bpe-lab --resume"
    if path.parent == sessions_dir() and ".kept-" not in path.name:
        return "bpe-lab --resume"  # the most recent: the one just written
    return f"bpe-lab --resume --session {shlex.quote(str(path))}"
