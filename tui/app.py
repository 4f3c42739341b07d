"""The Textual app: what belongs to the whole app, whatever screen shows.

:class:`BpeApp` owns the workbench (a corpus and its trainer), the running and loading state,
the training and jump workers (:class:`tui.training.Training`), the session autosave, and the
screens. The panes live on :class:`tui.screens.main.MainScreen`, which the app tells when the
trainer moved. Keys come from :mod:`tui.keys`.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Callable, Iterable

from textual import on, work
from textual.app import App, SystemCommand
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Input
from textual.worker import Worker, WorkerState

from engine import Tokenizer, TrainConfig

from .commands import system_commands
from .keys import app_bindings
from .messages import LoadFailed, Loaded, Trained
from .screens.analysis import AnalysisScreen
from .screens.dialogs import ConfirmScreen, PromptScreen
from .screens.help import HelpScreen
from .screens.main import MainScreen
from .screens.open_corpus import OpenScreen
from .screens.settings import SettingsScreen
from .session import Session, corpus_session_path, explicit_session_path, holds_merges, keep_aside, peek, resume_command
from .training import GROUP, Training
from .workbench import Busy, LoadedCorpus, Workbench

#: Seconds between session saves while something changes.
AUTOSAVE_SECONDS = 3.0
#: Actions that change the training state: disabled (greyed) while a run is live or loading.
STEPPING = {"step", "undo", "redo", "jump", "goto", "settings", "open", "save", "resume_found"}


class BpeApp(App):
    """bpe-lab: train BPE one merge at a time and see everything that happens."""

    CSS_PATH = "app.tcss"
    TITLE = "bpe-lab"
    BINDINGS = app_bindings()

    running: reactive[bool] = reactive(False, bindings=True)
    """A training run or a long jump is live (the worker owns the trainer)."""
    loading: reactive[bool] = reactive(False, bindings=True)
    """A corpus is being read or its trainer built."""

    def __init__(
        self,
        corpus: LoadedCorpus | None = None,
        config: TrainConfig | None = None,
        *,
        workbench: Workbench | None = None,
        clipboard: Callable[[str], None] | None = None,
        script: Tokenizer | None = None,
        resume: Session | None = None,
        session_file: Path | None = None,
        resumed_from: Path | None = None,
        autosave: bool = True,
        run: bool = False,
    ) -> None:
        super().__init__()
        self._resume = resume
        #: One session file whatever the corpus (--session, $BPE_LAB_SESSION, tests), or None:
        #: each corpus has its own (tui.session.corpus_session_path).
        self.explicit_session = session_file or explicit_session_path()
        #: The session file this app made or resumed: the one file it may write over.
        self._owned: Path | None = (resumed_from or self.explicit_session) if resume is not None else None
        #: A session on the corpus just loaded that this app did not resume: ``R`` resumes it.
        self.found: tuple[Path, Session] | None = None
        self._write_failed = False
        self._kept_note: str | None = None
        self._autosave_on = autosave
        self._saved_key: tuple | None = None
        self._run_on_load = run
        #: An imported tokenizer whose merges steps replay on the corpus (None: training).
        self.script = workbench.script if workbench is not None else script
        self.config = config or (workbench.config if workbench else TrainConfig())
        self.workbench: Workbench | None = workbench
        self._pending = corpus if workbench is None else None
        self.clipboard_fn = clipboard  # copies text (tests); None: the system's, else OSC 52
        self.training = Training(self)
        self.main_screen = MainScreen()
        self._asking_quit = False

    def say(self, message: str, **kwargs) -> None:
        """A notification; never markup, since messages quote user input like "[e4 b8]"."""
        self.notify(message, markup=False, **kwargs)

    @property
    def selected(self) -> int | None:
        """The token the inspector shows (saved with the session)."""
        return self.main_screen.selected

    def get_default_screen(self) -> Screen:
        return self.main_screen

    def on_mount(self) -> None:
        if self._autosave_on:
            self.set_interval(AUTOSAVE_SECONDS, self.autosave)

    def panes_ready(self) -> None:
        """The main screen is mounted (after the app): show the workbench, or load the corpus."""
        if self.workbench is not None:
            self.attach(self.workbench)
        elif self._pending is not None:
            self.load(self._pending, self.config, self.script)

    # -- loading ----------------------------------------------------------------------------

    def load(self, corpus: LoadedCorpus, config: TrainConfig, script: Tokenizer | None = None) -> None:
        """Build a trainer for ``corpus`` in a worker (replaying ``script`` if given); the panes
        follow when it is ready. If it fails, a message says why and the current one stays."""
        self.loading = True
        self.main_screen.show_status(f"loading {corpus.name} …")
        self._build(corpus, config, script)

    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def _build(self, corpus: LoadedCorpus, config: TrainConfig, script: Tokenizer | None) -> None:
        try:
            workbench = Workbench(corpus, config, script=script)
            note = workbench.restore(self._resume) if self._resume is not None else None
        except ValueError as exc:
            self.post_message(LoadFailed(str(exc)))
            return
        self.post_message(Loaded(workbench, note))

    @on(Loaded)
    def _loaded(self, message: Loaded) -> None:
        self.loading = False
        self.attach(message.workbench)
        if self._resume is None:
            self._notice_found()
        if self._resume is not None:
            selected = self._resume.selected
            self._resume = None
            trainer = message.workbench.trainer
            if isinstance(selected, int) and 0 <= selected < trainer.vocab_size - len(self.config.specials):
                self.main_screen.select(selected)
            self.say(message.note or f"session resumed at step {message.workbench.steps}", timeout=6)
        if self._run_on_load:
            self._run_on_load = False
            self.action_toggle_run()

    @on(LoadFailed)
    def _load_failed(self, message: LoadFailed) -> None:
        self.loading = False
        self.say(message.reason, title="cannot train on this corpus", severity="error", timeout=8)
        self.main_screen.refresh_views()

    @property
    def session_file(self) -> Path:
        """Where this app's session goes: the explicit file, else the current corpus's own."""
        if self.explicit_session is not None:
            return self.explicit_session
        corpus = self.workbench.corpus if self.workbench is not None else self._pending
        if corpus is None:
            from .session import session_path

            return session_path()
        return corpus_session_path(corpus.source, corpus.sha256)

    def _notice_found(self) -> None:
        """After a fresh load: say so when the session file already holds merges on this corpus
        (``R`` resumes them; a merge made first keeps them aside, never writes over them)."""
        self.found = None
        path = self.session_file
        if path == self._owned or not path.exists():
            return
        session = peek(path)
        workbench = self.workbench
        if session is None or not session.merges:
            return
        if session.source == workbench.corpus.source and session.sha256 == workbench.corpus.sha256:
            self.found = (path, session)
            self.say(f"a session on this corpus at step {session.step} exists: R resumes it", timeout=10)
        else:
            name = session.source.split(":", 1)[-1] if session.source.startswith("sample:") else Path(session.source).name
            self.say(f"{path} holds a session on {name} at step {session.step}: it is kept aside "
                     "(not written over) once you make a merge here", timeout=10)

    def action_resume_found(self) -> None:
        """``R``: resume the session found on this corpus at launch or open."""
        if self.found is None or self.workbench is None:
            self.say("no earlier session on this corpus to resume", timeout=3)
            return
        path, session = self.found
        if peek(path) is None:
            self.found = None
            self.say(f"the session in {path} is gone", timeout=4)
            return
        self.found = None
        self.clear_notifications()  # the offer, answered
        self._owned = path
        self._resume = session
        self.load(self.workbench.corpus, session.config, session.replay)

    def attach(self, workbench: Workbench) -> None:
        """Make ``workbench`` the app's, and show it."""
        self.workbench = workbench
        self.config = workbench.config
        self.script = workbench.script
        self.main_screen.attach(workbench)

    # -- training and stepping --------------------------------------------------------------

    def watch_running(self) -> None:
        if self.main_screen.is_mounted:  # not yet at start-up: the screen shows it when it is
            self.main_screen.show_status()

    @on(Worker.StateChanged)
    def _track_worker(self, event: Worker.StateChanged) -> None:
        if event.worker.group == GROUP:
            self.running = event.state in (WorkerState.PENDING, WorkerState.RUNNING)
            if not self.running:
                self.main_screen.refresh_views()

    @on(Trained)
    def _trained(self, message: Trained) -> None:
        self.main_screen.follow(message.done, message.final)
        if message.done:
            self.say("training is done: a stop rule holds", timeout=4)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("step", "undo", "redo") and isinstance(self.focused, Input):
            return False  # arrows and letters belong to the input line
        if action in STEPPING and (self.running or self.loading or self.workbench is None):
            return None  # shown greyed: it cannot act now
        return True

    def action_toggle_run(self) -> None:
        if self.running:
            self.training.stop()
        elif self.workbench is not None and not self.loading:
            if self.workbench.done:
                self.say("training is done: a stop rule holds")
                return
            self.running = True
            self.training.start(self.workbench)

    def _moved(self, what: str, event) -> None:
        if event is None:
            self.say(f"nothing to {what}", timeout=2)
        self.main_screen.moved()

    def action_step(self) -> None:
        self._moved("step: a stop rule holds", self.workbench.step())

    def action_undo(self) -> None:
        self._moved("undo", self.workbench.undo())

    def action_redo(self) -> None:
        self._moved("redo", self.workbench.redo())

    def action_jump(self, delta: int) -> None:
        self.go(self.workbench.steps + delta)

    def go(self, step: int) -> None:
        """Jump to a step (undo/redo under the hood, new merges if needed).

        Short jumps happen at once; long ones run in the worker, a batch at a time, like a
        training run (space stops them), so the screen never freezes.
        """
        step = max(step, 0)
        if self.training.at_once(self.workbench, step):
            reached = self.workbench.goto(step)
            if reached < step:
                self.say(f"stopped at step {reached}: a stop rule holds", timeout=3)
            self.main_screen.moved()
            return
        self.main_screen.selected = None
        self.running = True
        self.training.jump(self.workbench, step)

    def action_goto(self) -> None:
        def accept(answer: str) -> str | None:
            """Jump before the dialog closes: the screen beneath then repaints once."""
            if not answer.strip():
                return None
            try:
                step = int(answer.strip())
            except ValueError:
                return f"not a step number: {answer.strip()!r}"
            if step < 0:
                return "a step is 0 or more"
            self.go(step)
            return None

        target = self.workbench.trainer.target_merges
        hint = f"0 … {target}" if target is not None else "0 or more"
        self.push_screen(PromptScreen("Go to step", placeholder=hint, accept=accept))

    # -- screens ----------------------------------------------------------------------------

    def action_analysis(self, tab: str = "curve") -> None:
        """Open the analysis screen (curve, vocabulary, held-out, baselines, compare, tie rules)."""
        if self.workbench is None or self.loading:
            self.say("no corpus loaded yet", timeout=2)
        elif isinstance(self.screen, AnalysisScreen):
            self.screen.show_tab(tab)
        else:
            self.push_screen(AnalysisScreen(self.workbench, tab))

    def deliver_screenshot(self, filename: str | None = None, path: str | None = None,
                           time_format: str | None = None) -> str | None:
        """The palette's Screenshot: an SVG in ``$BPE_LAB_SCREENSHOTS`` or the working folder
        (Textual's default, ~/Downloads, often does not exist), and the message names the file."""
        import os

        folder = path or os.environ.get("BPE_LAB_SCREENSHOTS") or "."
        try:
            saved = Path(self.save_screenshot(filename, folder, time_format)).resolve()
        except OSError as exc:
            self.say(f"screenshot not saved: {folder}: {exc.strerror or exc}", title="Screenshot",
                     severity="error", timeout=8)
            return None
        self.say(f"saved {saved}", title="Screenshot", timeout=6)
        return None

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """Textual's commands but its Quit (ours asks first), then one per action of ours."""
        for command in super().get_system_commands(screen):
            if command.title != "Quit":
                yield command
        yield from system_commands(self, screen)

    # -- files ------------------------------------------------------------------------------

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
                shown = f"the bundled sample {source[7:]}" if source.startswith("sample:") else source
                self._confirm_then(f"Open {shown}?", lambda: self._open(source), self._merges_fate(leaving=True))

        self.push_screen(OpenScreen(), chosen)

    def _open(self, source: str) -> None:
        try:
            corpus = LoadedCorpus.open(source, self.script.base if self.script else self.config.base)
        except ValueError as exc:
            self.say(str(exc), title="cannot open", severity="error", timeout=8)
            return
        self.autosave(now=True)  # this corpus's merges stay in its session
        if self.explicit_session is not None:
            self._owned = None  # one file for every corpus: keep this corpus's session aside
        self.load(corpus, self.config, self.script)

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
        if self.script is not None:
            self.say("training with your settings now, no longer replaying the imported tokenizer", timeout=6)
        self.load(corpus, config)  # the config and mode change only if the new trainer builds

    def _confirm_then(self, question: str, then: Callable[[], None], fate: str | None = None) -> None:
        """Run ``then`` at once, or after a yes when there is unsaved work; ``fate`` says what
        becomes of the merges (default: lost)."""
        if self.workbench is None or not self.workbench.unsaved:
            then()
            return
        self.push_screen(
            ConfirmScreen(f"{question}\n{fate or 'The merges since your last save will be lost.'}"),
            lambda yes: then() if yes else None,
        )

    def _merges_fate(self, leaving: bool = False) -> str:
        """What happens to the current merges when the app quits (or, ``leaving``, opens
        another corpus), truthfully: kept in a session file (and how to resume it), or lost."""
        steps = self.workbench.steps if self.workbench is not None else 0
        plural = steps != 1
        if not self._autosave_on or self._write_failed:
            return f"Your {steps} merge{'s' if plural else ''} will be lost:\nno session is saved (s saves the tokenizer)."
        merges = f"{steps} merges are" if plural else f"{steps} merge is"
        path = self.session_file
        if not leaving:
            return f"Your {merges} kept in the session:\n`{resume_command(path)}` brings them back."
        if self.explicit_session is not None:
            return (f"Your {merges} kept in the session:\nit is set aside beside {path} "
                    "when the new corpus first saves.")
        source = self.workbench.corpus.source
        return f"Your {merges} kept in this corpus's session:\n`bpe-lab --resume {shlex.quote(source)}` brings them back."

    async def action_quit(self) -> None:
        """Quit (`q`, ctrl+q, the palette): ask first when there are unsaved merges; the
        session is saved last."""
        if self._asking_quit:
            return  # ctrl+q again while the question is open
        if self.running:
            self.training.stop()
        if self.workbench is None or not self.workbench.unsaved:
            self._quit()
            return
        self._asking_quit = True

        def answered(yes: bool | None) -> None:
            self._asking_quit = False
            if yes:
                self._quit()

        self.push_screen(ConfirmScreen(f"Quit bpe-lab?\n{self._merges_fate()}"), answered)

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
        if now:
            problem = self._write_session(session)
            self._say_kept()
            if problem:
                self.say(problem, severity="warning")
        else:
            self._write_session_later(session)

    def _path_for(self, session: Session) -> Path:
        """The file ``session`` goes to: the explicit one, else its corpus's own."""
        if self.explicit_session is not None:
            return self.explicit_session
        return corpus_session_path(session.source, session.sha256)

    def _say_kept(self) -> None:
        """Say where an earlier session was kept aside, once."""
        note, self._kept_note = self._kept_note, None
        if note:
            self.say(note, timeout=10)

    def _write_session(self, session: Session) -> str | None:
        """Save; the reason when it failed (the old session file is then left as it was).

        A file this app did not make or resume is never written over when it holds merges: it
        is kept aside first (and the app says where); an empty session is not written over it."""
        path = self._path_for(session)
        try:
            if path != self._owned and holds_merges(path):
                if not session.merges:
                    self._saved_key = None
                    return None  # nothing worth saving over someone's merges
                kept = keep_aside(path)
                self.found = None
                self._kept_note = (f"the earlier session in {path.name} is kept as {kept}: "
                                   f"`{resume_command(kept)}` resumes it")
            session.save(path)
            self._owned = path
            self._write_failed = False
            return None
        except OSError as exc:
            self._saved_key = None
            self._write_failed = True
            return f"session not saved: {path}: {exc.strerror or exc}"

    @work(thread=True, exclusive=True, group="session", exit_on_error=False)
    def _write_session_later(self, session: Session) -> None:
        problem = self._write_session(session)
        self.call_from_thread(self._say_kept)
        if problem:
            self.call_from_thread(self.say, problem, severity="warning")
