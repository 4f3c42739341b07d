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

import os
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path

from tui.i18n import _


class OutsideRootError(ValueError):
    """A path outside the served folder; the message is one line for the participant."""


class NotThisTabsError(ValueError):
    """A file in the served folder that this tab did not write: a save never replaces it."""


def lesson_text_folder() -> Path:
    """Where a lesson's ``open text="..."`` corpus is kept (``$XDG_STATE_HOME/bpe-lab/lessons``):
    files bpe-lab writes itself, so a served app may read them although they are outside the root."""
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "bpe-lab" / "lessons"


def kept_folders() -> tuple[Path, ...]:
    """Folders outside the root that hold only what bpe-lab wrote itself, readable in serve mode:
    a lesson's texts, and the tokenizers ``bpe-lab fetch`` keeps (so ``o200k`` works in a tab)."""
    from engine.formats import tokenizer_cache

    return (lesson_text_folder().resolve(), tokenizer_cache().resolve())


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
    kept: tuple[Path, ...] = field(default_factory=kept_folders)
    """Readable too: the lesson texts bpe-lab keeps (:func:`lesson_text_folder`)."""
    label: str = ""
    """How messages name the root (default: as given, before it is resolved)."""
    tab: str = field(default_factory=lambda: f"tab{os.getpid()}")
    """This tab's mark in default file names (each tab is one app process)."""
    written: set[Path] = field(default_factory=set, compare=False)
    """What this tab wrote (resolved; and their folders): the only files a save may replace."""
    marks: dict[Path, tuple[int, int, int, str]] = field(default_factory=dict, compare=False)
    """Each file this tab wrote as it left it (device, inode, size, sha256 of the bytes): a file
    put in its place by someone else since (deleted, then saved by another tab) is not this
    tab's any more, even on a reused inode."""
    claimed: set[Path] = field(default_factory=set, compare=False)
    """Names this tab has made (empty, with O_EXCL) for a save that has not yet written them."""

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
        if any(resolved.is_relative_to(folder) for folder in (self.root, *self.bundled, *self.kept)):
            return resolved
        raise OutsideRootError(self._refusal(typed, resolved))

    def reading(self) -> AbstractContextManager[None]:
        """Every tokenizer file read inside this block (the one a participant named and each file
        that comes with it: merges beside a vocab, added tokens, a sidecar) is kept where
        :meth:`readable` keeps the named one: a companion that links out is refused, unread."""
        from engine.corpus import reading_within

        return reading_within((self.root, *self.bundled, *self.kept),
                              lambda named: self._refusal(self.shown(named), self.resolve(named)))

    def shown(self, path: str | Path) -> str:
        """``path`` as a message shows it: under the root's label when it is in the root as written."""
        plain = Path(*_normal(Path(path).expanduser()))
        if plain.is_absolute() and plain.is_relative_to(self.root):
            return str(Path(self.label) / plain.relative_to(self.root))
        return str(path)

    def writable(self, typed: str | Path) -> Path:
        """The resolved path to write, if inside the root; else OutsideRootError."""
        resolved = self.resolve(typed)
        if resolved.is_relative_to(self.root):
            return resolved
        raise OutsideRootError(self._refusal(typed, resolved))

    def replaceable(self, typed: str | Path) -> Path:
        """The resolved path to write, if inside the root and either new or written by this tab
        before (:meth:`wrote`); else OutsideRootError or NotThisTabsError: one participant must
        not replace the class corpus, the lesson, or another participant's copy."""
        resolved = self.writable(typed)
        if (resolved.exists() or resolved.is_symlink()) and not self._own(resolved):
            raise self._not_ours(typed)
        return resolved

    def claim(self, typed: str | Path, *, folder: bool = False) -> Path:
        """:meth:`replaceable`, made atomic: a name that is not this tab's yet is created now,
        empty, with ``O_CREAT | O_EXCL`` (``folder``: by ``mkdir``), so that of two tabs saving
        one new name at the same instant one gets it and the other is refused as if the file
        had been there (the write then replaces the empty file atomically). A save that fails
        after the claim lets the name go with :meth:`abandon`. OSError when it cannot be made."""
        if not folder and str(typed).endswith(("/", os.sep)):
            from engine import WriteError

            raise WriteError(typed, "a name ending in / is a folder, not a file", after="nothing was written")
        resolved = self.replaceable(typed)
        if resolved in self.written and resolved.exists():
            return resolved
        if folder:
            resolved.parent.mkdir(parents=True, exist_ok=True)  # OSError (a file on the way): said as such
        try:
            if folder:
                os.mkdir(resolved)
            else:
                os.close(os.open(resolved, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666))
        except FileExistsError:
            raise self._not_ours(typed) from None
        self.wrote(resolved)
        self.claimed.add(resolved)
        return resolved

    def abandon(self, typed: str | Path) -> None:
        """Let go of a name :meth:`claim` made for a save that then failed: the empty file (or
        folder) is removed, and the name is no longer this tab's."""
        try:
            resolved = self.resolve(typed)
        except (OSError, ValueError):  # a name that could never be claimed (a NUL in it)
            return
        if resolved not in self.claimed:
            return
        self.claimed.discard(resolved)
        self.written.discard(resolved)
        self.marks.pop(resolved, None)
        try:
            if resolved.is_dir():
                resolved.rmdir()  # only while empty
            elif resolved.stat().st_size == 0:
                resolved.unlink()
        except OSError:
            pass

    def wrote(self, path: str | Path) -> None:
        """Record a file this tab has just written (and its folders up to the root) as its own."""
        resolved = self.resolve(path)
        if resolved.is_file():
            mark = _mark(resolved)
            if mark is not None:
                self.marks[resolved] = mark
            self.claimed.discard(resolved)  # written: no longer an empty claim
        while resolved.is_relative_to(self.root) and resolved != self.root:
            self.written.add(resolved)
            resolved = resolved.parent

    def _own(self, resolved: Path) -> bool:
        """Whether the file at ``resolved`` is the one this tab wrote there."""
        if resolved not in self.written:
            return False
        mark = self.marks.get(resolved)
        if mark is None:
            return resolved.is_dir()  # a folder it made, or one above a file it wrote
        return _mark(resolved) == mark

    def _not_ours(self, typed: str | Path) -> NotThisTabsError:
        return NotThisTabsError(_("{path} is in the shared folder and was not saved from this tab: choose another "
                                  "name (a tab replaces only its own files)").format(path=typed))

    def own_name(self, stem: str, suffix: str = "") -> str:
        """A default name for a file this tab writes in the root: ``STEM-TAB[-N]SUFFIX``, the first
        that is free or this tab's own (so two tabs on one corpus and step never share one)."""
        for number in range(1, 10_000):
            name = f"{stem}-{self.tab}{'' if number == 1 else f'-{number}'}{suffix}"
            target = self.resolve(name)
            if not (target.exists() or target.is_symlink()) or target in self.written:
                return name
        return f"{stem}-{self.tab}-{os.urandom(4).hex()}{suffix}"

    def _refusal(self, typed: str | Path, resolved: Path) -> str:
        plain = Path(typed).expanduser()
        plain = plain if plain.is_absolute() else self.root / plain
        if Path(*_normal(plain)) != resolved:  # a link (or ..) led somewhere else
            return _("{path} leads to {target}, outside the folder this server shares ({root}): "
                     "choose a file inside it").format(path=typed, target=resolved, root=self.label)
        return _("{path} is outside the folder this server shares ({root}): choose a file inside it").format(
            path=typed, root=self.label)


def _mark(path: Path) -> tuple[int, int, int, str] | None:
    """A file's identity: device, inode, size and the sha256 of its bytes (read a block at a
    time through the bounded reader); None when it cannot be read."""
    import hashlib

    from engine import BpeLabError
    from engine.corpus import open_bounded

    digest = hashlib.sha256()
    try:
        with open_bounded(path, kind="a file this tab wrote", limit=1 << 40, pipes=False) as opened:
            found = os.fstat(opened.fileno())
            while block := opened.read(1 << 20):
                digest.update(block)
    except (OSError, BpeLabError):
        return None
    return found.st_dev, found.st_ino, found.st_size, digest.hexdigest()


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
    """In serve mode, record a file just written under the root as this tab's, and send it to
    the participant's browser as a download: the bytes as written now, whatever the file holds
    when textual-serve streams it. In a terminal nothing more happens. True if sent."""
    import io

    rules = confinement_of(app)
    if rules is None:
        return False
    rules.wrote(path)
    if not getattr(app, "is_web", False):
        return False
    app.deliver_binary(io.BytesIO(Path(path).read_bytes()), save_filename=Path(path).name)
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


def output_path(app, typed: str | Path, *, folder: bool = False) -> Path:
    """Where to write a file the user named: in serve mode inside the root (else
    OutsideRootError) and new or this tab's own (else NotThisTabsError), claimed at once (a
    ``folder`` by mkdir: :meth:`Confinement.claim`); as typed otherwise. Saving and exporting
    use it, then :func:`deliver` (or :func:`abandon` when the write failed)."""
    rules = confinement_of(app)
    return rules.claim(typed, folder=folder) if rules is not None else Path(typed).expanduser()


def abandon(app, typed: str | Path) -> None:
    """A save to ``typed`` (named through :func:`output_path`) failed: in serve mode the name it
    claimed is let go (no empty file is left behind). Nothing outside serve mode."""
    rules = confinement_of(app)
    if rules is not None:
        rules.abandon(typed)


def default_name(app, stem: str, suffix: str = "") -> str:
    """A default file name: ``STEM SUFFIX``; in serve mode one of this tab's own
    (:meth:`Confinement.own_name`), so tabs on one corpus at one step do not share it."""
    rules = confinement_of(app)
    return rules.own_name(stem, suffix) if rules is not None else f"{stem}{suffix}"
