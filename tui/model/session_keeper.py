"""The session keeper: everything one app decides about its session files (no textual here).

Below it, :mod:`tui.model.session` reads, writes and locks the files.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from tui.i18n import _, ngettext
from tui.model.session import (
    Session,
    SessionLock,
    claim_session_file,
    corpus_session_path,
    holds_merges,
    keep_aside,
    peek,
    resume_command,
    session_path,
)


class SessionKeeper:
    """Everything one app decides about its session files, in one place (no textual here).

    It knows the explicit file (``--session``, ``$BPE_LAB_SESSION``) or that each corpus has its
    own; the one file the app made or resumed (:attr:`owned`, the only one it may write over); the
    locks it holds (:meth:`claim`); a session found on the corpus just loaded (:attr:`found`,
    ``R`` resumes it); where an earlier session was kept aside (said once); whether the last
    write failed; and whether anything is saved at all (:attr:`saving`).

    **Lesson mode** (:meth:`begin_lesson` .. :meth:`end_lesson`): a lesson owns its training
    state, which it can always rebuild. Nothing is saved, no found session is offered, nothing is
    kept aside and no file is made in the session folder, whatever ``$BPE_LAB_SESSION`` says;
    its merges are never someone else's. Leaving the lesson restores the ordinary behaviour: the
    corpus then shown is treated as freshly loaded.

    Example (an app's life)::

        keeper = SessionKeeper(explicit_session_path())
        note = keeper.notice(session_on_disk_for_this_corpus)   # "... R resumes it" or None
        if keeper.changed(session):                             # the autosave tick
            path, lock_note = keeper.claim(keeper.path_for(session))
            problem = keeper.write(session, path)
        keeper.release()
    """

    def __init__(self, explicit: Path | None = None, *, autosave: bool = True, resumed_from: Path | None = None,
                 resuming: bool = False) -> None:
        #: One session file whatever the corpus, or None: each corpus has its own.
        self.explicit = explicit
        self.autosave = autosave
        #: The file this app made or resumed: the one file it may write over.
        self.owned: Path | None = (resumed_from or explicit) if resuming else None
        #: A session with merges on the corpus just loaded that this app did not resume.
        self.found: tuple[Path, Session] | None = None
        self.write_failed = False
        self.lesson = False
        self._claims: dict[Path, tuple[SessionLock | None, Path]] = {}
        self._saved_key: tuple | None = None
        self._kept_note: str | None = None

    @property
    def saving(self) -> bool:
        """Whether sessions are written: autosave on, and no lesson owns the training state."""
        return self.autosave and not self.lesson

    def path_for(self, source: str | None, sha256: str | None) -> Path:
        """The file a session on ``source`` goes to: the explicit one, else the corpus's own
        (no corpus: the default file)."""
        if self.explicit is not None:
            return self.explicit
        if source is None or sha256 is None:
            return session_path()
        return corpus_session_path(source, sha256)

    # -- lessons ------------------------------------------------------------------------------

    def begin_lesson(self) -> None:
        self.lesson = True
        self.found = None
        self._kept_note = None

    def end_lesson(self) -> None:
        """Back to ordinary sessions: the lesson's state is a fresh load's (its first save with
        merges keeps someone's earlier session aside, as for any corpus just opened)."""
        self.lesson = False
        self.owned = None
        self._saved_key = None

    # -- a corpus loaded ------------------------------------------------------------------------

    def notice(self, source: str, sha256: str) -> str | None:
        """After a fresh load of ``source``: what to say when its session file already holds
        merges (``R`` resumes them; a merge made first keeps them aside). None: nothing to say."""
        self.found = None
        if self.lesson or not self.autosave:
            return None
        path = self.path_for(source, sha256)
        if path == self.owned or not path.exists():
            return None
        session = peek(path)
        if session is None or not session.merges:
            return None
        if session.source == source and session.sha256 == sha256:
            self.found = (path, session)
            return _("a session on this corpus at step {step} exists: R resumes it").format(step=session.step)
        name = session.source.split(":", 1)[-1] if session.source.startswith("sample:") else Path(session.source).name
        return _("{path} holds a session on {name} at step {step}: it is kept aside "
                 "(not written over) once you make a merge here").format(path=path, name=name, step=session.step)

    def take_found(self) -> tuple[Path, Session] | str:
        """``R``: the session found to resume (now owned), or what to say instead."""
        if self.found is None:
            return _("no earlier session on this corpus to resume")
        path, session = self.found
        self.found = None
        if peek(path) is None:
            return _("the session in {path} is gone").format(path=path)
        self.owned = path
        return path, session

    def opening_another(self) -> None:
        """Another corpus is being opened: with one file for every corpus, the current
        corpus's session is kept aside by the new corpus's first save."""
        if self.explicit is not None and not self.lesson:
            self.owned = None

    # -- saving ---------------------------------------------------------------------------------

    def changed(self, session: Session) -> bool:
        """Whether ``session`` differs from the one last saved (remembered as saved)."""
        key = (session.source, tuple(session.merges[-1:]), len(session.merges), session.step, session.selected,
               session.config, repr(session.branches))
        if key == self._saved_key:
            return False
        self._saved_key = key
        return True

    def claim(self, path: Path) -> tuple[Path, str | None]:
        """The file to write ``path``'s session to: ``path``, locked at the first save to it; or,
        while another live bpe-lab holds it, a sibling of this process's own, with a note (once)."""
        if path in self._claims:
            return self._claims[path][1], None
        lock, actual, note = claim_session_file(path)
        self._claims[path] = (lock, actual)
        return actual, note

    def write(self, session: Session, path: Path) -> str | None:
        """Save ``session`` to ``path``; the reason when it failed (the old file is left as it
        was). A file this app did not make or resume is never written over when it holds merges:
        it is kept aside first (:meth:`take_kept_note` says where); an empty session is not
        written over it. Nothing at all in lesson mode."""
        if self.lesson:
            return None
        try:
            if path != self.owned and holds_merges(path):
                if not session.merges:
                    self._saved_key = None
                    return None  # nothing worth saving over someone's merges
                kept = keep_aside(path)
                self.found = None
                self._kept_note = _("the earlier session in {name} is kept as {kept}: `{command}` resumes it").format(
                    name=path.name, kept=kept, command=resume_command(kept))
            session.save(path)
            self.owned = path
            self.write_failed = False
            return None
        except OSError as exc:
            self._saved_key = None
            self.write_failed = True
            return _("session not saved: {path}: {reason}").format(path=path, reason=exc.strerror or exc)

    def take_kept_note(self) -> str | None:
        """Where an earlier session was kept aside, once (None: nothing to say)."""
        note, self._kept_note = self._kept_note, None
        return note

    def release(self) -> None:
        """Let go of every lock (a crash lets go too: the locks are the kernel's)."""
        for lock, _file in self._claims.values():
            if lock is not None:
                lock.release()
        self._claims.clear()

    # -- what becomes of the merges ---------------------------------------------------------------

    def fate(self, steps: int, source: str | None, sha256: str | None, leaving: bool = False) -> str:
        """What happens to ``steps`` merges on ``source`` when the app quits (or, ``leaving``,
        opens another corpus), truthfully: kept in a session file (and how to resume it), or lost."""
        if not self.saving or self.write_failed:
            return ngettext("Your {n} merge will be lost:\nno session is saved (s saves the tokenizer).",
                            "Your {n} merges will be lost:\nno session is saved (s saves the tokenizer).", steps).format(n=steps)
        path = self.path_for(source, sha256)
        if not leaving:
            return ngettext("Your {n} merge is kept in the session:\n`{command}` brings it back.",
                            "Your {n} merges are kept in the session:\n`{command}` brings them back.",
                            steps).format(n=steps, command=resume_command(path))
        if self.explicit is not None:
            return ngettext("Your {n} merge is kept in the session:\nit is set aside beside {path} when the new corpus first saves.",
                            "Your {n} merges are kept in the session:\nit is set aside beside {path} when the new corpus first saves.",
                            steps).format(n=steps, path=path)
        return ngettext("Your {n} merge is kept in this corpus's session:\n`{command}` brings it back.",
                        "Your {n} merges are kept in this corpus's session:\n`{command}` brings them back.",
                        steps).format(n=steps, command=f"bpe-lab --resume {shlex.quote(source or '')}")
