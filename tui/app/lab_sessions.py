"""The lab's sessions: the autosave (every few seconds, and now on quit or before another corpus),
written by a worker unless it must be now, retried soon when it finds the trainer mid-batch;
what a quit does to the merges, and letting the session file go. A mixin of
:class:`tui.app.lab.Lab`."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from tui.model.session import Session
from tui.model.workbench import Busy

if TYPE_CHECKING:
    from textual.app import App

    from tui.app.training import Training
    from tui.model.session_keeper import SessionKeeper
    from tui.model.workbench import Workbench

#: A save that found the trainer mid-batch tries again this soon.
AUTOSAVE_RETRY = 0.1
#: A save that must happen now (quitting, a closed tab, another corpus) waits this long at
#: most for a batch to end (serve's QUIT_SECONDS leave the time), rather than skip.
SAVE_NOW_SECONDS = 2.0


class LabSessions:
    """Saving the lab's session (the :class:`~tui.app.lab.Lab` sets these)."""

    app: App
    workbench: Workbench | None
    keeper: SessionKeeper
    training: Training
    loading: bool
    _save_retry: bool

    def autosave(self, now: bool = False) -> None:
        """Write the session when it changed (every few seconds, and on quit): at most the last
        few seconds are lost to a crash. The file is written by a worker, atomically. Nothing
        while a lesson owns the training state."""
        keeper = self.keeper
        if not keeper.saving or self.workbench is None or self.loading:
            return
        if self.training.jumping and not now:
            return  # a long jump's steps are saved when it ends (writing a 128k-merge replay's takes a second)
        try:
            session = self._session(SAVE_NOW_SECONDS if now else 0.0)
        except Busy:
            # Mid-batch: try again after the next batch or two rather than wait a whole tick
            # (a run of slow merges could otherwise miss tick after tick).
            if not self._save_retry:
                self._save_retry = True
                self.app.set_timer(AUTOSAVE_RETRY, self._retry_autosave)
            return
        if not keeper.changed(session):
            return
        path, note = keeper.claim(keeper.path_for(session.source, session.sha256))
        if note:  # another app writes it: this one writes a sibling instead
            self.say(note, severity="warning", timeout=12)
        if now:
            problem = keeper.write(session, path)
            self._say_kept()
            if problem:
                self.say(problem, severity="warning")
        else:
            self.app.run_worker(lambda: self._write_later(session, path), thread=True, exclusive=True,
                                group="session", exit_on_error=False)

    def _session(self, wait: float) -> Session:
        """The workbench's session; mid-batch, try again for ``wait`` seconds, then Busy (a
        quit must not skip its save because the run it just paused is ending a batch)."""
        deadline = time.monotonic() + wait
        while True:
            try:
                return self.workbench.session(self.app.selected)
            except Busy:
                if time.monotonic() >= deadline:
                    raise

    def _retry_autosave(self) -> None:
        self._save_retry = False
        self.autosave()

    def _write_later(self, session: Session, path: Path) -> None:
        problem = self.keeper.write(session, path)
        self.app.call_from_thread(self._say_kept)
        if problem:
            self.app.call_from_thread(self.say, problem, severity="warning")

    def _say_kept(self) -> None:
        note = self.keeper.take_kept_note()
        if note:
            self.say(note, timeout=10)
            self.app.refresh_bindings()  # the offered session was kept aside: R leaves the footer

    def merges_fate(self, leaving: bool = False) -> str:
        """What happens to the current merges when the app quits (or, ``leaving``, opens
        another corpus)."""
        workbench = self.workbench
        corpus = workbench.corpus if workbench is not None else None
        return self.keeper.fate(workbench.steps if workbench else 0, corpus.source if corpus else None,
                                corpus.sha256 if corpus else None, leaving)

    def close(self) -> None:
        """The app ends: save (in serve mode a closed tab ends it without `q`) and let go."""
        self.keeper.release()
