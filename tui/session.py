"""Sessions: where the user was (corpus, config, every merge, the step, the selection), on disk.

The app writes the session every few seconds while it changes and when it quits, atomically
(engine.io), so a crash or SIGKILL loses at most those seconds; ``bpe-lab --resume`` puts the
user back, and refuses when the corpus file is no longer the one the session was made on.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine import TrainConfig
from engine.io import atomic_write_text, tokenizer_from_dict, tokenizer_to_dict
from engine.tokenizer import Tokenizer

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
    replay_ids: list[int | None] | None = None  # how the replayed file numbers its tokens (Imported.file_ids)

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
            replay_ids = data.get("replay_ids") if replay is not None else None
            if replay_ids is not None and (
                not isinstance(replay_ids, list)
                or len(replay_ids) != replay.vocab_size
                or not all(i is None or (type(i) is int and i >= 0) for i in replay_ids)
            ):
                raise ValueError("its replayed tokenizer's ids do not fit the tokenizer")
            return cls(
                source=str(corpus["source"]),
                sha256=str(corpus["sha256"]),
                size=int(corpus["size"]),
                config=TrainConfig.from_dict(data["config"]),
                merges=merges,
                step=step,
                selected=data.get("selected"),
                replay=replay,
                replay_ids=replay_ids,
            )
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise SessionError(f"{path}: a damaged session file ({exc})") from None
