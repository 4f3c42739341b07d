"""The app's file work: saving, opening, settings, quitting, and the session autosave."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from textual import work

from engine import TrainConfig

from .screens.dialogs import ConfirmScreen, PromptScreen
from .screens.open_corpus import OpenScreen
from .screens.settings import SettingsScreen
from .session import Session, claim_session_file
from .workbench import Busy, LoadedCorpus


class FilesMixin:
    """Save, open, settings, quit and sessions, for :class:`tui.app.BpeApp`."""

    def action_save(self) -> None:
        workbench = self.workbench
        stem = Path(workbench.corpus.name).stem or "tokenizer"
        default = f"{stem}-{workbench.trainer.vocab_size}.json"

        def done(answer: str | None) -> None:
            if not answer:
                return
            try:
                workbench.save(Path(answer).expanduser())
            except (OSError, ValueError) as exc:
                reason = getattr(exc, "strerror", None) or str(exc)
                self.say(f"not saved: {answer}: {reason}", severity="error", timeout=8)
                return
            self.say(f"saved {answer} (vocabulary {workbench.trainer.vocab_size})", timeout=4)

        self.push_screen(PromptScreen("Save tokenizer (native JSON)", value=default), done)

    def action_open(self) -> None:
        def chosen(source: str | None) -> None:
            if source:
                self._confirm_then(f"Open {source}?", lambda: self._open(source))

        self.push_screen(OpenScreen(), chosen)

    def _open(self, source: str) -> None:
        try:
            corpus = LoadedCorpus.open(source, self.replay.base if self.replay else self.config.base)
        except ValueError as exc:
            self.say(str(exc), title="cannot open", severity="error", timeout=8)
            return
        self.load(corpus, self.config, self.replay)

    def action_settings(self) -> None:
        def chosen(config: TrainConfig | None) -> None:
            if config is None or config == self.config:
                return
            self._confirm_then("Restart training with the new settings?", lambda: self._restart(config))

        self.push_screen(SettingsScreen(self.config), chosen)

    def _restart(self, config: TrainConfig) -> None:
        corpus = self.workbench.corpus
        if config.base != self.config.base:
            try:  # units and line offsets depend on the base
                corpus = LoadedCorpus.open(corpus.source, config.base)
            except ValueError as exc:
                self.say(str(exc), severity="error")
                return
        if self.replay is not None:
            self.say("training with your settings now, no longer replaying the imported tokenizer", timeout=6)
        self.load(corpus, config)  # the config and mode change only if the new trainer builds

    def _confirm_then(self, question: str, then: Callable[[], None]) -> None:
        """Run ``then`` at once, or after a yes when there is unsaved work."""
        if self.workbench is None or not self.workbench.unsaved:
            then()
            return
        self.push_screen(
            ConfirmScreen(f"{question}\nThe merges since your last save will be lost."),
            lambda yes: then() if yes else None,
        )

    def action_quit_app(self) -> None:
        if self.running:
            self.workers.cancel_group(self, "training")
        self._confirm_then("Quit bpe-lab?", self._quit)

    def _quit(self) -> None:
        self.autosave(now=True)
        self.exit()

    # -- sessions -----------------------------------------------------------------------------

    def autosave(self, now: bool = False) -> None:
        """Write the session when it changed (every few seconds, and on quit): at most the last
        few seconds are lost to a crash. The file is written by a worker, atomically."""
        if not self._autosave_on or self.workbench is None or self.loading:
            return
        try:
            session = self.workbench.session(self.selected)
        except Busy:
            return  # mid-batch: the next tick saves
        key = (session.source, tuple(session.merges[-1:]), len(session.merges), session.step, session.selected, session.config)
        if key == self._saved_key:
            return
        self._saved_key = key
        if not getattr(self, "_session_claimed", False):  # the first save locks the session file
            self._session_claimed = True
            self._session_lock, self.session_file, note = claim_session_file(self.session_file)
            if note:  # another app writes it: this one writes a sibling instead
                self.say(note, severity="warning", timeout=12)
        if now:
            problem = self._write_session(session)
            if problem:
                self.say(problem, severity="warning")
        else:
            self._write_session_later(session)

    def on_unmount(self) -> None:
        """Let go of the session file (a crash lets go too: the lock is the kernel's)."""
        lock = getattr(self, "_session_lock", None)
        if lock is not None:
            lock.release()

    def _write_session(self, session: Session) -> str | None:
        """Save; the reason when it failed (the old session file is then left as it was)."""
        try:
            session.save(self.session_file)
            return None
        except OSError as exc:
            self._saved_key = None
            return f"session not saved: {self.session_file}: {exc.strerror or exc}"

    @work(thread=True, exclusive=True, group="session", exit_on_error=False)
    def _write_session_later(self, session: Session) -> None:
        problem = self._write_session(session)
        if problem:
            self.call_from_thread(self.say, problem, severity="warning")

