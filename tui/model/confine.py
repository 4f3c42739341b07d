"""Serve mode's folder: every file the app opens, saves or exports stays inside one folder.

``bpe-lab serve --root DIR`` starts each browser tab's app with ``--serve-root DIR``; that app
holds a :class:`Confinement` (``BpeApp.confinement``; None outside serve mode) and asks it before
it touches a file a participant named. Paths are resolved first (``..``, symlinks, ``~``), so a
link inside the folder that points out of it is refused like the path it points to. Reading may
also use the bundled samples and lessons, which ship with bpe-lab.

Example::

    rules = Confinement(Path("/srv/class"))
    rules.writable("tok.json")        # -> Path('/srv/class/tok.json')
    rules.readable("/etc/passwd")     # ValueError: /etc/passwd is outside the folder this server shares ...
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tui.i18n import _


class OutsideRootError(ValueError):
    """A path outside the served folder; the message is one line for the participant."""


def bundled_folders() -> tuple[Path, ...]:
    """The read-only folders that ship with bpe-lab: the samples, and the lessons if present."""
    from tui.model.samples import sample_folder

    samples = Path(str(sample_folder())).resolve()
    lessons = samples.parent / "lessons"  # assets/lessons beside assets/samples (tui/lessons in the wheel)
    return (samples, lessons.resolve())


@dataclass(frozen=True)
class Confinement:
    """The served folder (``root``, resolved) and the bundled folders that may also be read."""

    root: Path
    bundled: tuple[Path, ...] = field(default_factory=bundled_folders)
    label: str = ""
    """How messages name the root (default: as given, before it is resolved)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "label", self.label or str(self.root))
        object.__setattr__(self, "root", Path(self.root).resolve())

    def resolve(self, typed: str | Path) -> Path:
        """``typed`` as an absolute path with every link followed; relative to the root."""
        path = Path(typed).expanduser()
        return (path if path.is_absolute() else self.root / path).resolve()

    def readable(self, typed: str | Path) -> Path:
        """The resolved path to read, if inside the root or a bundled folder; else OutsideRootError."""
        resolved = self.resolve(typed)
        if any(resolved.is_relative_to(folder) for folder in (self.root, *self.bundled)):
            return resolved
        raise OutsideRootError(self._refusal(typed, resolved))

    def writable(self, typed: str | Path) -> Path:
        """The resolved path to write, if inside the root; else OutsideRootError."""
        resolved = self.resolve(typed)
        if resolved.is_relative_to(self.root):
            return resolved
        raise OutsideRootError(self._refusal(typed, resolved))

    def _refusal(self, typed: str | Path, resolved: Path) -> str:
        plain = Path(typed).expanduser()
        plain = plain if plain.is_absolute() else self.root / plain
        if Path(*_normal(plain)) != resolved:  # a link (or ..) led somewhere else
            return _("{path} leads to {target}, outside the folder this server shares ({root}): "
                     "choose a file inside it").format(path=typed, target=resolved, root=self.label)
        return _("{path} is outside the folder this server shares ({root}): choose a file inside it").format(
            path=typed, root=self.label)


def _normal(path: Path) -> list[str]:
    """``path``'s parts with ``.`` and ``..`` applied, no link followed."""
    parts: list[str] = []
    for part in path.parts:
        if part == "..":
            if len(parts) > 1:
                parts.pop()
        elif part != ".":
            parts.append(part)
    return parts


def confinement_of(app: object) -> Confinement | None:
    """The app's confinement in serve mode, else None (any object: widgets pass ``self.app``)."""
    return getattr(app, "confinement", None)


def deliver(app, path: Path) -> bool:
    """In serve mode, also send a file just written under the root to the participant's browser,
    as a download (textual-serve streams it); in a terminal nothing more happens. True if sent."""
    if confinement_of(app) is None or not getattr(app, "is_web", False):
        return False
    app.deliver_binary(path)
    return True


def confined_setting(app, setting: str) -> str:
    """A held-out setting (a share like ``10%``, ``sample:NAME`` or a file) with its file checked
    in serve mode: the resolved path, or OutsideRootError. Unchanged outside serve mode."""
    from tui.model.evaluation import parse_setting

    rules = confinement_of(app)
    text = setting.strip()
    if rules is None or not text or text.startswith("sample:") or parse_setting(text) is not None:
        return setting
    return str(rules.readable(text))


def output_path(app, typed: str | Path) -> Path:
    """Where to write a file the user named: inside the root in serve mode (else
    OutsideRootError), as typed otherwise. Saving, exporting and screenshots use it, then
    :func:`deliver`."""
    rules = confinement_of(app)
    return rules.writable(typed) if rules is not None else Path(typed).expanduser()
