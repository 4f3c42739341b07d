"""The user's preferences across launches: today the theme picked in the palette.

One small JSON file, ``$XDG_CONFIG_HOME/bpe-lab/config.json`` (``~/.config/bpe-lab/config.json``),
written atomically. A file that cannot be read or is not what we wrote is ignored with a one-line
message, never a traceback: the app starts with its defaults and says why.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from engine.corpus import atomic_write_text
from tui.i18n import _

#: The file's name inside its folder.
CONFIG_NAME = "config.json"
#: Larger files are not a config we wrote: refused without reading them whole.
MAX_CONFIG_BYTES = 64 * 1024


def config_path() -> Path:
    """``$XDG_CONFIG_HOME/bpe-lab/config.json``, else ``~/.config/bpe-lab/config.json``."""
    root = os.environ.get("XDG_CONFIG_HOME") or ""
    base = Path(root) if root and os.path.isabs(root) else Path.home() / ".config"
    return base / "bpe-lab" / CONFIG_NAME


def load_prefs(path: Path) -> tuple[dict, str | None]:
    """The preferences in ``path`` and None, or ``{}`` and a one-line message saying why the file
    was ignored. A missing file is no problem: ``({}, None)``."""
    from engine import BpeLabError
    from engine.corpus import read_bounded

    class TooLarge(BpeLabError):
        pass

    if not os.path.lexists(path):
        return {}, None
    try:  # never waits: a FIFO or a device there is refused, not read (the app would never draw)
        data = read_bounded(path, kind="a bpe-lab config", error=BpeLabError, limit=MAX_CONFIG_BYTES, pipes=False,
                            large=TooLarge)
    except TooLarge:
        return {}, _("{path}: larger than a bpe-lab config; using the defaults").format(path=path)
    except BpeLabError as exc:
        if str(exc) == f"{path}: no such file":
            return {}, None
        reason = str(exc).removeprefix(f"{path}: ")
        return {}, _("{path}: cannot read it ({reason}); using the defaults").format(path=path, reason=reason)
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return {}, _("{path}: not valid JSON; using the defaults").format(path=path)
    if not isinstance(value, dict):
        return {}, _("{path}: not a JSON object; using the defaults").format(path=path)
    return value, None


def save_prefs(path: Path, prefs: dict) -> str | None:
    """Write ``prefs`` to ``path`` atomically (its folder made if missing); a one-line message when
    it cannot be written, else None."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps(prefs, indent=1, sort_keys=True) + "\n")
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        return _("the theme is not remembered: {path}: {reason}").format(path=path, reason=reason)
    return None


def theme_from_prefs(prefs: dict, path: Path, known: set[str]) -> tuple[str | None, str | None]:
    """The remembered theme (None: none or not known) and a message when it is ignored."""
    theme = prefs.get("theme")
    if theme is None:
        return None, None
    if not isinstance(theme, str) or theme not in known:
        return None, _("{path}: unknown theme {theme}; using the default").format(path=path, theme=json.dumps(theme)[:40])
    return theme, None
