"""The session lock: one app at a time writes a session file (``fcntl.flock`` on ``PATH.lock``).
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import stat
import time
from pathlib import Path

from engine.errors import one_line
from tui.i18n import _

#: A lock file is read up to this many bytes (its owner is a line of JSON; anything else is garbage).
MAX_LOCK_BYTES = 4096


def lock_path(session_file: Path) -> Path:
    """The lock beside a session file: ``session.json.lock``."""
    return session_file.with_name(session_file.name + ".lock")


class SessionLock:
    """Who writes a session file: one app at a time.

    The lock is ``fcntl.flock`` on ``PATH.lock``: a kernel lock, so it ends with its process
    however that ends (a crash, SIGKILL) and a stale lock can never block anyone. The file
    holds the owner's pid, host and start time, only to say who it is; what it holds decides
    nothing (garbage there is harmless). Example::

        lock = SessionLock.acquire(path)      # None: another process holds it
        if lock is None:
            print(SessionLock.owner(path))    # 'bpe-lab (pid 4242 on host, since 21:30:05)'
        ...
        lock.release()
    """

    def __init__(self, session_file: Path, fd: int) -> None:
        self.session_file = session_file
        self.path = lock_path(session_file)
        self._fd: int | None = fd

    @classmethod
    def acquire(cls, session_file: Path) -> SessionLock | None:
        """Take the lock without waiting; None when another process (or another open lock in
        this one) holds it. OSError when the lock file cannot be made (a read-only folder) or
        locked (a file system without locks)."""
        path = lock_path(session_file)
        for _attempt in range(10):  # a holder may remove the file between our open and our lock
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:  # held by another
                os.close(fd)
                return None
            except OSError:  # a file system without locks: as if no lock file could be made
                os.close(fd)
                raise
            try:
                same = os.fstat(fd).st_ino == os.stat(path).st_ino
            except OSError:
                same = False
            if not same:  # locked a file its holder removed on release: lock the new one
                os.close(fd)
                continue
            owner = json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "started": time.time()})
            try:
                os.ftruncate(fd, 0)
                os.pwrite(fd, owner.encode("utf-8") + b"\n", 0)
            except OSError:
                pass  # the lock holds without its note (a full disk)
            return cls(session_file, fd)
        return None

    @staticmethod
    def owner(session_file: Path) -> str:
        """Who holds the lock, for a message: ``bpe-lab (pid 4242 on host, since 21:30:05)``,
        or ``another bpe-lab`` when the lock file says nothing readable."""
        try:
            fd = os.open(lock_path(session_file), os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
            with os.fdopen(fd, "rb") as handle:  # never waits: a FIFO there is not read
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    raise ValueError
                data = json.loads(handle.read(MAX_LOCK_BYTES).decode("utf-8"))
            pid, host, started = data["pid"], data["host"], data["started"]
            if type(pid) is not int or not isinstance(host, str) or not isinstance(started, (int, float)):
                raise ValueError
            since = time.strftime("%H:%M:%S", time.localtime(started))
            return one_line(_("bpe-lab (pid {pid} on {host}, since {time})").format(pid=pid, host=host[:64], time=since))
        except (OSError, ValueError, KeyError, TypeError, OverflowError, RecursionError):
            return _("another bpe-lab")

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        """Remove the lock file and let go (removing first, while still holding it, so nobody
        locks a file that is about to vanish; see :meth:`acquire`). Safe to call twice."""
        if self._fd is None:
            return
        try:
            os.unlink(self.path)
        except OSError:
            pass
        os.close(self._fd)  # closing the last descriptor ends the flock
        self._fd = None

    def __del__(self) -> None:
        if getattr(self, "_fd", None) is not None:
            os.close(self._fd)


def claim_session_file(session_file: Path) -> tuple[SessionLock | None, Path, str | None]:
    """The lock and the file an app should write its session to, and a note for the user.

    Normally ``session_file`` itself. When another app holds it, a sibling of this process's
    own (``session-PID.json``), so that neither overwrites the other; the note says which."""
    try:
        lock = SessionLock.acquire(session_file)
    except OSError:  # no lock file can be made there: nor can the session be saved (which says so)
        return None, session_file, None
    if lock is not None:
        return lock, session_file, None
    sibling = session_file.with_name(f"{session_file.stem}-{os.getpid()}{session_file.suffix}")
    try:
        own = SessionLock.acquire(sibling)
    except OSError:
        own = None
    note = _("{path} is in use by {owner}: this session is saved to {sibling} (--resume --session {sibling})").format(
        path=session_file, owner=SessionLock.owner(session_file), sibling=sibling)
    return own, sibling, note


