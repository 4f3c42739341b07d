"""Files: atomic writes, and reading a bounded file with one-line errors.

The native tokenizer format itself is in :mod:`engine.tokenizer` (``Tokenizer.save`` and
``load_tokenizer``), which uses these; this module imports no tokenizer.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .errors import (
    MAX_FILE_BYTES,
    BpeLabError,
    FileTooLargeError,
    TokenizerFileError,
    WriteError,
    reading_file,
    size_text,
)


def read_file(path: str | os.PathLike[str], *, limit: int = MAX_FILE_BYTES) -> bytes:
    """A tokenizer file's bytes; refuses (``TokenizerFileError``, one line naming the path) a missing,
    unreadable or directory path, and a file above ``limit`` bytes before reading it (a device or
    pipe that goes on past the limit too)."""
    path = Path(path)
    with reading_file(path, TokenizerFileError, "a tokenizer file"):
        with path.open("rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > limit:
                raise FileTooLargeError(f"{path}: {size_text(size)} is too large for a tokenizer file (the limit is {size_text(limit)})")
            data = handle.read(limit + 1)
    if len(data) > limit:
        raise FileTooLargeError(f"{path}: more than {size_text(limit)}, too large for a tokenizer file")
    return data


def parse_json(text: str, path: str | os.PathLike[str], error: type[BpeLabError] = TokenizerFileError,
               **options: Any) -> Any:
    """``json.loads(text, **options)`` with every failure as one ``error`` line naming the path and
    place (a ``TokenizerFileError`` unless told otherwise)."""
    try:
        return json.loads(text, **options)
    except json.JSONDecodeError as exc:
        cut = " (the file ends there: is it truncated?)" if text.strip() and exc.pos >= len(text.rstrip()) else ""
        raise error(f"{path}: invalid JSON at line {exc.lineno}, column {exc.colno}{cut}") from None
    except RecursionError:
        raise error(f"{path}: invalid JSON (nested too deeply)") from None
    except ValueError:  # an integer longer than Python converts (sys.get_int_max_str_digits())
        raise error(f"{path}: invalid JSON (a number has too many digits)") from None


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to a temp file beside ``path``, then rename it into place.

    A failed write leaves any old file untouched, removes the temp file and raises
    :class:`~engine.errors.WriteError` (an ``OSError`` and a ``ValueError``) with one line
    saying so. A symlink is followed (the file it points to is replaced); a target that exists
    but is not a regular file (a directory, a device such as ``/dev/full``) is refused.
    """
    atomic_write_files([(path, data)])


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """UTF-8 text version of :func:`atomic_write_bytes`."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_files(files: Sequence[tuple[str | os.PathLike[str], bytes]]) -> None:
    """Write several files as one: every temp file is written (and synced) before any is renamed
    into place, so a full disk or a refused folder leaves every old file as it was. Should a
    rename itself fail part way, the files already replaced are put back (from hard links made
    beforehand, where the file system allows them). Raises :class:`~engine.errors.WriteError`.
    """
    import tempfile  # here: only writing needs it, and it imports shutil and random

    plan = []  # (shown path, real path, data, whether it exists)
    for shown, data in files:
        real, existed = check_target(shown)
        plan.append((shown, real, data, existed))
    many = len(plan) > 1
    temps: list[str] = []
    backups: list[tuple[str, Path]] = []
    done: list[Path] = []
    current = plan[0]
    try:
        for current in plan:
            _, real, data, existed = current
            fd, tmp = tempfile.mkstemp(prefix=f".{real.name}.", suffix=".tmp", dir=real.parent)
            temps.append(tmp)
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            # mkstemp makes the file private (0600); give it the mode a plain open() would.
            os.chmod(tmp, _file_mode(real))
        if many:
            for _, real, _, existed in plan:
                if existed:
                    backup = f"{real.parent}/.{real.name}.{os.getpid()}.bak"
                    try:
                        os.link(real, backup)
                        backups.append((backup, real))
                    except OSError:
                        pass
        for current, tmp in zip(plan, temps):
            os.replace(tmp, current[1])
            done.append(current[1])
        _sync_folders({real.parent for _, real, _, _ in plan})
    except BaseException as exc:
        for tmp in temps[len(done):]:
            _remove(tmp)
        restored = _restore(backups, done, {real: existed for _, real, _, existed in plan})
        for backup, _real in backups:
            _remove(backup)
        if not isinstance(exc, OSError):
            raise
        shown, _, _, existed = current
        if many and not restored:
            after = "some of the files may be replaced already"
        elif many:
            after = "the old files are unchanged" if any(e for *_, e in plan) else "nothing was written"
        else:
            after = "the old file is unchanged" if existed else "nothing was written"
        raise WriteError(shown, exc.strerror or str(exc), after=after, errno=exc.errno) from None
    for backup, _ in backups:
        _remove(backup)


def check_target(path: str | os.PathLike[str]) -> tuple[Path, bool]:
    """Where a write to ``path`` lands (symlinks followed) and whether a file is there; refuses
    (:class:`WriteError`, nothing written) what must not be replaced: a directory, a device, a
    read-only file (as ``cp`` does; checked by its mode bits too, as root may write anything),
    and a name ending in ``/``, which means a folder. Callers check before long work too."""
    text = os.fspath(path)
    if text.endswith(("/", os.sep)):
        raise WriteError(path, "a name ending in / is a folder, not a file", after="nothing was written")
    real = Path(os.path.realpath(text))
    try:
        mode = os.stat(real).st_mode
    except OSError:
        return real, False
    if not stat.S_ISREG(mode):
        what = "it is a directory" if stat.S_ISDIR(mode) else "it is not a regular file"
        raise WriteError(path, what, after="nothing was written")
    if not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) or not os.access(real, os.W_OK):
        raise WriteError(path, "it is read-only", errno=errno.EACCES)
    return real, True


def refuse_inputs(outputs: Sequence[str | os.PathLike[str]], inputs: Sequence[tuple[str | os.PathLike[str], str]]) -> None:
    """Refuse (:class:`WriteError`, nothing written) an output that is the same file as an input
    (``(path, what it is)``) under any name: a hard link or a symlink to it is the same file.

    Example: ``refuse_inputs(["c.txt"], [("c.txt", "the corpus c.txt")])`` raises
    ``c.txt: cannot write (it is the same file as the corpus c.txt); nothing was written``
    """
    known = []
    for path, what in inputs:
        try:
            found = os.stat(path)
        except (OSError, ValueError):
            continue  # nothing there yet
        known.append(((found.st_dev, found.st_ino), what))
    for out in outputs:
        try:
            found = os.stat(out)
        except (OSError, ValueError):
            continue  # not there yet: it cannot be an input
        for key, what in known:
            if key == (found.st_dev, found.st_ino):
                raise WriteError(out, f"it is the same file as {what}", after="nothing was written")


def _restore(backups: list[tuple[str, Path]], done: list[Path], existed: dict[Path, bool]) -> bool:
    """Put back the files already replaced when a later rename failed; whether all are back."""
    saved = {real: backup for backup, real in backups}
    ok = True
    for real in done:
        try:
            if real in saved:
                os.replace(saved.pop(real), real)
            elif not existed[real]:
                os.unlink(real)  # it was not there before
            else:
                ok = False  # the old file could not be linked aside
        except OSError:
            ok = False
    return ok


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _sync_folders(folders: set[Path]) -> None:
    """Make the renames durable (best effort: not every system can sync a directory)."""
    for folder in folders:
        try:
            fd = os.open(folder, os.O_RDONLY)
        except OSError:
            continue
        try:
            os.fsync(fd)
        except OSError:
            pass
        finally:
            os.close(fd)


def _file_mode(path: Path) -> int:
    """Keep an existing file's mode; a new file gets 0666 less the umask."""
    try:
        return path.stat().st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
