"""Sessions: where the user was (corpus, config, every merge, the step, the selection), on disk.

The app writes the session every few seconds while it changes and when it quits, atomically
(engine.io), so a crash or SIGKILL loses at most those seconds; ``bpe-lab --resume`` puts the
user back, and refuses when the corpus file is no longer the one the session was made on.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine import Tokenizer, TrainConfig, atomic_write_text, tokenizer_from_dict, tokenizer_to_dict

FORMAT = "bpe-lab session"
VERSION = 1


class SessionError(ValueError):
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
        return json.dumps(data, ensure_ascii=False)

    def save(self, path: Path | None = None) -> Path:
        """Write atomically (temp file + rename); the folder is created if needed."""
        path = path or session_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, self.to_json())
        return path

    @classmethod
    def load(cls, path: Path | None = None) -> Session:
        """Read a session; SessionError (one line) for a missing or damaged file."""
        path = path or session_path()
        try:
            raw = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise SessionError(f"no session to resume ({path} does not exist)") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise SessionError(f"{path}: cannot read the session ({exc})") from None
        try:
            data = json.loads(raw)
            if data.get("format") != FORMAT or data.get("version") != VERSION:
                raise ValueError("not a bpe-lab session file")
            corpus = data["corpus"]
            merges = [(int(a), int(b)) for a, b in data["merges"]]
            step = int(data["step"])
            if not 0 <= step <= len(merges):
                raise ValueError(f"step {step} is outside its {len(merges)} merges")
            replay = tokenizer_from_dict(data["replay"]) if data.get("replay") else None
            return cls(
                source=str(corpus["source"]),
                sha256=str(corpus["sha256"]),
                size=int(corpus["size"]),
                config=TrainConfig.from_dict(data["config"]),
                merges=merges,
                step=step,
                selected=data.get("selected"),
                replay=replay,
            )
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise SessionError(f"{path}: a damaged session file ({exc})") from None


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
