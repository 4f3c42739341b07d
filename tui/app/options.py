"""How the app was started, beyond its corpus: :class:`LaunchOptions` (no textual here)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from engine import Tokenizer
from tui.model.session import Session


@dataclass
class LaunchOptions:
    """How the app was started, beyond the corpus: what the launcher and tests set.

    ``speed``: the run speed, merges a second (None: full speed; see tui.model.pacing);
    ``theme``: a Textual theme's name (None: textual-dark); ``prefs_file``: where a theme picked
    in the palette is remembered (None: nowhere, as in tests); ``notes``: messages to show once
    the app runs (a config file that was ignored)."""

    script: Tokenizer | None = None
    file_ids: list[int | None] | None = None
    resume: Session | None = None
    session_file: Path | None = None
    resumed_from: Path | None = None
    autosave: bool = True
    run: bool = False
    speed: float | None = None
    theme: str | None = None
    prefs_file: Path | None = None
    notes: Sequence[str] = field(default_factory=tuple)
    clipboard: Callable[[str], None] | None = None
    #: The user chose the base (``--base``): a mostly-CJK corpus opened later keeps it. Without
    #: a choice such a corpus opens at the character level (tui.model.cjk).
    base_chosen: bool = False
    #: A line to say once the corpus has loaded (which base it opened with, and why).
    open_note: str | None = None
    #: Bytes the copies of the training state and the caches may hold together (serve mode:
    #: tui.model.budget.TAB_BUDGET); None: a terminal's defaults.
    memory: int | None = None
