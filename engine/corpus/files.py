"""Files: atomic writes, and reading a bounded file with one-line errors.

The native tokenizer format itself is in :mod:`engine.encode.tokenizer` (``Tokenizer.save`` and
``load_tokenizer``), which uses these; this module imports no tokenizer.
"""

from __future__ import annotations

import errno
import json
import os
import select
import stat
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from engine.errors import (
    MAX_FILE_BYTES,
    BpeLabError,
    FileTooLargeError,
    TokenizerFileError,
    WriteError,
    reading_file,
    size_text,
)

#: A named pipe opened with no writer yet is given this long for one to connect (``cmd > fifo &``
#: is still opening it when the reader starts); then the reader refuses it instead of waiting.
WRITER_GRACE = 2.0
#: How much a read asks for at a time.
READ_BLOCK = 1 << 20


class BoundedInput:
    """A file opened by :func:`open_bounded`: read at most its bound, peek without losing bytes.

    ``peek(n)`` returns the first ``n`` bytes (fewer at the end) and keeps them for the reads
    that follow, so a format can be told by its first bytes on a pipe too (the one stream is
    then read). ``read(n)`` / ``read_all()`` raise the opener's error, naming the path and
    the bound, once more than ``limit`` bytes come. ``regular``: a regular file (``size`` is its
    size when opened; it is seekable, see :meth:`seekable_file`), else a pipe.
    """

    def __init__(self, fd: int, shown: str, kind: str, error: type[BpeLabError], limit: int, flag: str | None,
                 regular: bool, size: int | None, large: type[BpeLabError] | None = None) -> None:
        self.fd, self.path, self.kind, self.error, self.large = fd, shown, kind, error, large or error
        self.limit, self.flag, self.regular, self.size = limit, flag, regular, size
        self._buffer = b""
        self._read = 0  # bytes taken from the descriptor
        self._eof = False

    # -- reading --------------------------------------------------------------------------

    def _raw(self, n: int) -> bytes:
        """Up to ``n`` bytes from the descriptor (b"" at its end), refusing past the bound."""
        if self._eof or n <= 0:
            return b""
        want = min(n, self.limit + 1 - self._read)
        while True:
            try:
                block = os.read(self.fd, max(want, 1))
                break
            except BlockingIOError:  # a pipe whose writer has written nothing yet
                select.select([self.fd], [], [])
            except InterruptedError:
                continue
            except OSError as exc:
                raise self.error(f"{self.path}: cannot read ({exc.strerror or exc})") from None
        self._read += len(block)
        if not block:
            self._eof = True
        if self._read > self.limit:
            raise self._over(None)
        return block

    def _over(self, size: int | None) -> BpeLabError:
        hint = f"; raise it with {self.flag} N" if self.flag else ""
        if size is not None:
            return self.large(f"{self.path}: {size_text(size)} is too large for {self.kind} "
                              f"(the limit is {size_text(self.limit)}{hint})")
        return self.large(f"{self.path}: more than {size_text(self.limit)}, too large for {self.kind}"
                          + (f" (raise the limit with {self.flag} N)" if self.flag else ""))

    def peek(self, n: int) -> bytes:
        """The next ``n`` bytes (fewer only at the end), left to be read again."""
        while len(self._buffer) < n and not self._eof:
            self._buffer += self._raw(max(n - len(self._buffer), READ_BLOCK if not self.regular else 1 << 16))
        return self._buffer[:n]

    def read(self, n: int = -1) -> bytes:
        """``n`` bytes (fewer only at the end; all that is left for ``n < 0``), within the bound."""
        if n < 0:
            return self.read_all()
        parts = []
        if self._buffer:
            parts.append(self._buffer[:n])
            self._buffer = self._buffer[n:]
            n -= len(parts[0])
        while n > 0 and (block := self._raw(min(n, READ_BLOCK * 8))):
            parts.append(block)
            n -= len(block)
        return b"".join(parts)

    def fileno(self) -> int:
        return self.fd

    def read_all(self) -> bytes:
        """Everything left, within the bound (a regular file: its size, read at once)."""
        parts = [self._buffer] if self._buffer else []
        self._buffer = b""
        step = READ_BLOCK if self.size is None else max(self.size - self._read + 1, 1)
        while block := self._raw(step):
            parts.append(block)
            step = READ_BLOCK
        return parts[0] if len(parts) == 1 else b"".join(parts)  # a regular file: one read, no copy

    def seekable_file(self):
        """A seekable binary file of the whole input (for readers that seek, such as Parquet's):
        a regular file's own descriptor, a pipe's bytes read into memory (within the bound)."""
        import io

        if self.regular:
            os.lseek(self.fd, 0, os.SEEK_SET)
            self._buffer, self._read, self._eof = b"", 0, False
            return os.fdopen(os.dup(self.fd), "rb")
        return io.BytesIO(self.read_all())

    # -- a context manager ---------------------------------------------------------------

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> BoundedInput:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_bounded(path: str | os.PathLike[str], *, kind: str, error: type[BpeLabError] = TokenizerFileError,
                 limit: int = MAX_FILE_BYTES, flag: str | None = None, pipes: bool = True,
                 grace: float | None = None, large: type[BpeLabError] | None = None,
                 devices: bool = False) -> BoundedInput:
    """Open ``path`` for a bounded read without ever waiting on it; every refusal is one
    ``error`` line naming the path (``kind`` says what it should be: ``"a lesson file"``).

    Opened with ``O_NONBLOCK``, so a named pipe with no writer cannot hang the caller: it is
    given :data:`WRITER_GRACE` seconds (``grace``) for one, then refused. Refused too: a
    missing or unreadable path, a directory, a device (``/dev/zero``), a socket (said as such); a pipe when
    ``pipes`` is false (a file bpe-lab writes, such as its config), a device unless
    ``devices`` (a corpus, read to its bound); a regular file above
    ``limit`` bytes before anything is read, a pipe once it goes past ``limit`` (as ``large``
    when given, a subclass of ``error``). ``flag`` names the option that raises the bound, for
    the message.

    Example::

        with open_bounded("t.parquet", kind="a chunk-count table", error=CountsError) as f:
            parquet = f.peek(4) == b"PAR1"
            data = f.read_all()  # the 4 bytes peeked are still there
    """
    shown = os.fspath(path)
    with reading_file(shown, error, kind):
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as exc:  # a Unix socket cannot be opened (ENXIO): say what it is
            if exc.errno == errno.ENXIO and stat.S_ISSOCK(os.stat(path).st_mode):
                raise error(f"{shown}: is a socket, not {kind}") from None
            raise
        try:
            found = os.fstat(fd)
            mode = found.st_mode
            if stat.S_ISDIR(mode):
                raise error(f"{shown}: is a directory, not {kind}")
            if stat.S_ISREG(mode):
                opened = BoundedInput(fd, shown, kind, error, limit, flag, True, found.st_size, large)
                if found.st_size > limit:
                    raise opened._over(found.st_size)
                os.set_blocking(fd, True)
                return opened
            device = stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            if device and devices:  # a corpus: /dev/zero is read to its bound and refused there
                os.set_blocking(fd, True)
                return BoundedInput(fd, shown, kind, error, limit, flag, False, None, large)
            if not stat.S_ISFIFO(mode):
                what = "a device" if device else "not a regular file"
                raise error(f"{shown}: {'is ' if what == 'a device' else ''}{what}, not {kind}")
            if not pipes:
                raise error(f"{shown}: is a pipe, not {kind} (save it to a file)")
            opened = BoundedInput(fd, shown, kind, error, limit, flag, False, None, large)
            _await_writer(opened, WRITER_GRACE if grace is None else grace)
            return opened
        except BaseException:
            os.close(fd)
            raise


def _await_writer(opened: BoundedInput, grace: float) -> None:
    """Wait (at most ``grace`` seconds) until the pipe has a writer; its first bytes are kept."""
    deadline = time.monotonic() + grace
    while True:
        try:
            first = os.read(opened.fd, READ_BLOCK)
        except BlockingIOError:  # a writer is there and has written nothing yet: it will
            os.set_blocking(opened.fd, True)
            return
        if first:
            opened._buffer, opened._read = first, len(first)
            os.set_blocking(opened.fd, True)
            return
        # no writer (yet): wait for one to connect and write (POLLIN) or close (POLLHUP)
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([opened.fd], [], [], left)[0]:
            raise opened.error(f"{opened.path}: a named pipe with no writer (nothing to read); "
                               "start what writes it first, or save it to a file")
        try:
            first = os.read(opened.fd, READ_BLOCK)
        except BlockingIOError:
            continue
        opened._buffer, opened._read = first, len(first)
        opened._eof = not first  # a writer came and went without writing: it is empty
        os.set_blocking(opened.fd, True)
        return


def read_bounded(path: str | os.PathLike[str], **options: Any) -> bytes:
    """The whole of ``path`` through :func:`open_bounded` (same options and refusals)."""
    with open_bounded(path, **options) as opened:
        return opened.read_all()


#: The places every tokenizer file read now must be in (see :func:`reading_within`): pairs of
#: (folders, how a refusal says it), each of which a file must satisfy.
_WITHIN: ContextVar[tuple[tuple[tuple[Path, ...], Callable[[str], str]], ...]] = ContextVar("bpe_lab_reading_within",
                                                                                          default=())


@contextmanager
def reading_within(folders: Sequence[str | os.PathLike[str]], refusal: str | Callable[[str], str]) -> Iterator[None]:
    """Inside this block, every tokenizer file :func:`read_file` opens (the named one and each
    file that comes with it: ``merges.txt`` beside a ``vocab.json``, ``added_tokens.json``, a rank
    file's ``.json`` sidecar ...) must be, with every link followed, in one of ``folders``; else a
    ``TokenizerFileError``: ``PATH: REFUSAL`` (or ``refusal(PATH)`` when it is a function), which
    names the file and never quotes it. Blocks nest:
    a file must satisfy each. ``load_any`` keeps a file's companions beside it this way; a lesson
    keeps them in its folder, ``serve`` in the folder it shares.

    Example::

        with reading_within(["lessons/"], "is outside the lesson's folder"):
            load_any("lessons/pair/vocab.json")  # merges.txt -> /etc/passwd: refused, unread
    """
    kept = tuple(Path(folder).resolve() for folder in folders)
    said = refusal if callable(refusal) else (lambda shown: f"{shown}: {refusal}")
    token = _WITHIN.set((*_WITHIN.get(), (kept, said)))
    try:
        yield
    finally:
        _WITHIN.reset(token)


def check_within(path: str | os.PathLike[str]) -> None:
    """Refuse ``path`` (``TokenizerFileError``, one line) when it is outside a place
    :func:`reading_within` keeps reads in now; nothing is read."""
    places = _WITHIN.get()
    if not places:
        return
    try:
        resolved = Path(path).resolve()
    except (OSError, RuntimeError, ValueError):  # a link loop, a NUL byte: open says what it is
        return
    for folders, refusal in places:
        if not any(resolved == folder or resolved.is_relative_to(folder) for folder in folders):
            raise TokenizerFileError(refusal(os.fspath(path)))


def read_file(path: str | os.PathLike[str], *, limit: int = MAX_FILE_BYTES) -> bytes:
    """A tokenizer file's bytes; refuses (``TokenizerFileError``, one line naming the path) a file
    outside the places :func:`reading_within` keeps reads in, a missing, unreadable or directory
    path, a device, a pipe with no writer, and a file above ``limit`` bytes before reading it (a
    pipe that goes on past the limit too: :func:`open_bounded`)."""
    check_within(path)
    return read_bounded(path, kind="a tokenizer file", error=TokenizerFileError, limit=limit, large=FileTooLargeError)


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


def refuse_collisions(files: Sequence[tuple[str | os.PathLike[str], str]],
                      folders: Sequence[tuple[str | os.PathLike[str], str]] = ()) -> None:
    """Refuse (:class:`WriteError`, nothing written) the outputs of one command that would
    overwrite one another: two ``files`` (``(path, what it is)``) that are the same file under
    any name (a symlink, a hard link, ``./x`` and ``x``), or a file that lies in one of the
    ``folders`` another option writes into, or is that folder. Call it before any work, with
    :func:`refuse_inputs` for the inputs.

    Example: ``refuse_collisions([("same.json", "the tokenizer (-o)"), ("same.json", "--curve-out")])``
    raises ``same.json: cannot write (it is also the tokenizer (-o)); nothing was written``
    """
    seen: list[tuple[Path, tuple[int, int] | None, str]] = []
    for path, what in files:
        real, key = _identity(path)
        for other, other_key, other_what in seen:
            if real == other or (key is not None and key == other_key):
                raise WriteError(path, f"it is also {other_what}", after="nothing was written")
        seen.append((real, key, what))
    for folder, what in folders:
        inside, _ = _identity(folder)
        for real, _, _ in seen:
            if real == inside:
                raise WriteError(folder, f"it is {_what_of(seen, real)} and {what} at once", after="nothing was written")
            if real.is_relative_to(inside):
                shown = next(p for p, _ in files if _identity(p)[0] == real)
                raise WriteError(shown, f"it lies in {what}, which that option writes into", after="nothing was written")
    for folder, _ in folders:
        check_folder(folder)


def _what_of(seen: list[tuple[Path, tuple[int, int] | None, str]], real: Path) -> str:
    return next(what for other, _, what in seen if other == real)


def _identity(path: str | os.PathLike[str]) -> tuple[Path, tuple[int, int] | None]:
    """Where ``path`` leads (symlinks followed) and, when it exists, its device and inode."""
    real = Path(os.path.realpath(os.fspath(path)))
    try:
        found = os.stat(real)
    except (OSError, ValueError):
        return real, None
    return real, (found.st_dev, found.st_ino)


def check_folder(folder: str | os.PathLike[str]) -> None:
    """Refuse (:class:`WriteError`) a folder to write into that cannot be one: an existing file,
    or a path with a file where a folder should be. A missing folder is fine (it is made)."""
    path = Path(folder)
    for part in (path, *path.parents):
        try:
            mode = os.stat(part).st_mode
        except OSError:
            continue
        if not stat.S_ISDIR(mode):
            reason = "it is a file, not a folder" if part == path else f"{part} is a file, not a folder"
            raise WriteError(folder, reason, after="nothing was written")
        return


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
