"""The Textual app: what belongs to the whole app, whatever screen shows.

:class:`BpeApp` owns the workbench (a corpus and its trainer), the running and loading state,
the training and jump workers (:class:`tui.app.training.Training`), the session autosave, and the
screens. The panes live on :class:`tui.app.screens.main.MainScreen`, which the app tells when the
trainer moved. Keys come from :mod:`tui.app.keys`.
"""

from __future__ import annotations

import shlex
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from textual import on, work
from textual.app import App, SystemCommand
from textual.notifications import Notification, SeverityLevel
from textual.reactive import reactive
from textual.screen import Screen
from textual.theme import Theme
from textual.widgets import Input
from textual.worker import Worker, WorkerState

from engine import Tokenizer, TrainConfig
from tui.app import collector
from tui.app.commands import system_commands, translated_system
from tui.app.keys import app_bindings, typed_actions
from tui.app.messages import Loaded, LoadFailed, Trained
from tui.app.screens.analysis import AnalysisScreen
from tui.app.screens.dialogs import ConfirmScreen, PromptScreen
from tui.app.screens.help import HelpScreen
from tui.app.screens.main import MainScreen
from tui.app.screens.open_corpus import OpenScreen
from tui.app.screens.quiz import QuizScreen
from tui.app.screens.settings import SettingsScreen
from tui.app.theme import activate as activate_theme
from tui.app.training import GROUP, Training
from tui.app.widgets.corpus_view import CorpusView
from tui.i18n import _, engine_message, ngettext
from tui.model.confine import Confinement, deliver, output_path
from tui.model.pacing import Pacer, faster, slower
from tui.model.quiz import Score
from tui.model.samples import sample_settings
from tui.model.session import (
    Session,
    SessionLock,
    claim_session_file,
    corpus_session_path,
    explicit_session_path,
    holds_merges,
    keep_aside,
    peek,
    resume_command,
)
from tui.model.workbench import Busy, LoadedCorpus, Workbench

#: Seconds between session saves while something changes.
AUTOSAVE_SECONDS = 3.0
#: A save that found the trainer mid-batch tries again this soon.
AUTOSAVE_RETRY = 0.1
#: Actions that change the training state: disabled (greyed) while a run is live or loading.
STEPPING = {"step", "undo", "redo", "jump", "goto", "run_to", "settings", "open", "save", "resume_found"}
#: Actions that move through an open lesson (hidden from the footer while none is).
LESSON_KEYS = {"lesson_next", "lesson_back", "lesson_restart"}
#: Actions whose keys type into a focused input (step, undo and redo also have arrows, which
#: move its cursor then).
TYPED = typed_actions() | {"step", "undo", "redo"}
#: Actions that would move training behind the quiz's back while it shows (escape leaves it first).
QUIZ_MOVES = STEPPING | {"toggle_run", "analysis", "quiz"}


class BpeApp(App):
    """bpe-lab: train BPE one merge at a time and see everything that happens."""

    CSS_PATH = "app.tcss"
    TITLE = "bpe-lab"
    BINDINGS = app_bindings()

    confinement: Confinement | None = None
    """Serve mode (``bpe-lab serve``): the one folder files may be opened from and written to;
    None in a terminal. Set by the launcher."""

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
        file_ids: list[int | None] | None = None,
        resume: Session | None = None,
        session_file: Path | None = None,
        resumed_from: Path | None = None,
        autosave: bool = True,
        run: bool = False,
        speed: int | None = None,
        theme: str | None = None,
        prefs_file: Path | None = None,
        notes: Sequence[str] = (),
        lesson=None,
        lesson_note: str | None = None,
    ) -> None:
        """``speed``: the run speed, merges a second (None: full speed; see tui.model.pacing).
        ``theme``: a Textual theme's name (None: textual-dark); ``prefs_file``: where a theme
        picked in the palette is remembered (None: nowhere, as in tests); ``notes``: messages to
        show once the app runs (a config file that was ignored); ``lesson``: a parsed lesson
        (tui.lessons.format.Lesson) to start with."""
        super().__init__()
        __import__("tui.app.wide_cuts", fromlist=["install"]).install()  # Textual #6357: wide characters at pane borders
        if theme is not None:
            self.theme = theme
        #: The theme last remembered (or given): a change to another one is saved to prefs_file.
        self._remembered_theme = self.theme
        self._prefs_file = prefs_file
        self._start_notes = list(notes)
        activate_theme(self.current_theme)
        #: The lesson being played (tui.lessons.player.LessonPlayer), or None.
        self.lesson = None
        #: The language `l` lists the lessons in (``bpe-lab lesson --lang``; None: the locale's).
        self.lesson_lang: str | None = None
        self._start_lesson = (lesson, lesson_note) if lesson is not None else None
        self._resume = resume
        #: One session file whatever the corpus (--session, $BPE_LAB_SESSION, tests), or None:
        #: each corpus has its own (tui.model.session.corpus_session_path).
        self.explicit_session = session_file or explicit_session_path()
        #: The session file this app made or resumed: the one file it may write over.
        self._owned: Path | None = (resumed_from or self.explicit_session) if resume is not None else None
        #: A session on the corpus just loaded that this app did not resume: ``R`` resumes it.
        self.found: tuple[Path, Session] | None = None
        self._write_failed = False
        self._kept_note: str | None = None
        self._autosave_on = autosave
        self._save_retry = False  # a save found the trainer busy and tries again soon
        self._saved_key: tuple | None = None
        #: The locks on the session files this app writes, taken at the first save to each (the
        #: lock is None when the file system has none), and the file it writes instead (itself, or
        #: ``<stem>-PID.json`` while another live app holds it).
        self._claims: dict[Path, tuple[SessionLock | None, Path]] = {}
        self._run_on_load = run
        #: An imported tokenizer whose merges steps replay on the corpus (None: training).
        self.script = workbench.script if workbench is not None else script
        #: How the replayed tokenizer's file numbers its tokens (``Imported.file_ids``; None: ours).
        self.file_ids = workbench.file_ids if workbench is not None else file_ids
        self.config = config or (workbench.config if workbench else TrainConfig())
        self.workbench: Workbench | None = workbench
        self._pending = corpus if workbench is None else None
        self.clipboard_fn = clipboard  # copies text (tests); None: the system's, else OSC 52
        self.training = Training(self, Pacer(speed))
        self.main_screen = MainScreen()
        self._asking_quit = False
        self._open_note: str | None = None  # said once the corpus being opened is shown
        #: The toast shown for each (title, message, severity), and how many times it was said.
        self._toasts: dict[tuple[str, str, str], tuple[Notification, int]] = {}
        #: The quiz's score for this session (right, tied, wrong), and its shuffle's seed (None: random).
        self.quiz_score = Score()
        self.quiz_seed: int | None = None

    # -- theme ------------------------------------------------------------------------------

    def _theme_changed(self, theme: Theme) -> None:
        """Recolour every pane from the new theme, and remember a theme picked in the palette."""
        activate_theme(theme)
        self.main_screen.recolour()
        for screen in self.screen_stack:
            if screen is not self.main_screen and hasattr(screen, "recolour"):
                screen.recolour()
        if self._prefs_file is not None and theme.name != self._remembered_theme:
            from tui.model.prefs import load_prefs, save_prefs

            prefs, _problem = load_prefs(self._prefs_file)  # a bad file is replaced by a good one
            problem = save_prefs(self._prefs_file, {**prefs, "theme": theme.name})
            if problem:
                self.say(problem, severity="warning", timeout=8)
            else:
                self._remembered_theme = theme.name

    def say(self, message: str, **kwargs) -> None:
        """A notification; never markup, since messages quote user input like "[e4 b8]". The
        engine's commonest messages (a file not found, not readable) are said in the UI's language."""
        self.notify(engine_message(message), markup=False, **kwargs)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every toast of the app (and Textual's own) comes here: a message said again while its
        toast still shows replaces that toast by one with a count ("nothing to step … (×6)"),
        instead of stacking copies over the panes."""
        if threading.get_ident() != self._thread_id:  # thread-safe, as Textual's is
            self.call_from_thread(self.notify, message, title=title, severity=severity, timeout=timeout, markup=markup)
            return
        key = (title, message, severity)
        count = 1
        shown = self._toasts.get(key)
        if shown is not None and shown[0] in self._notifications and not shown[0].has_expired:
            self._unnotify(shown[0], refresh=False)
            count = shown[1] + 1
        text = message if count == 1 else f"{message} (×{count})"
        toast = Notification(text, title, severity, self.NOTIFICATION_TIMEOUT if timeout is None else timeout, markup=markup)
        self._toasts = {k: v for k, v in self._toasts.items() if v[0] in self._notifications}  # forget gone toasts
        self._toasts[key] = (toast, count)
        self._notifications.add(toast)  # at once, not by a message: the next repeat finds it
        self._refresh_notifications()

    @property
    def selected(self) -> int | None:
        """The token the inspector shows (saved with the session)."""
        return self.main_screen.selected

    def get_default_screen(self) -> Screen:
        return self.main_screen

    def on_mount(self) -> None:
        self.theme_changed_signal.subscribe(self, self._theme_changed)
        for note in self._start_notes:
            self.say(note, severity="warning", timeout=8)
        if self._autosave_on:
            self.set_interval(AUTOSAVE_SECONDS, self.autosave)

    def panes_ready(self) -> None:
        """The main screen is mounted (after the app): show the workbench, or load the corpus."""
        if self.workbench is not None:
            self.attach(self.workbench)
        elif self._pending is not None:
            self.load(self._pending, self.config, self.script, self.file_ids)
        if self._start_lesson is not None:
            lesson, note = self._start_lesson
            self._start_lesson = None
            self.start_lesson(lesson, note)

    # -- loading ----------------------------------------------------------------------------

    def load(
        self,
        corpus: LoadedCorpus,
        config: TrainConfig,
        script: Tokenizer | None = None,
        file_ids: list[int | None] | None = None,
    ) -> None:
        """Build a trainer for ``corpus`` in a worker (replaying ``script``, numbered as its file
        does by ``file_ids``, if given); the panes follow when it is ready. If it fails, a
        message says why and the current one stays."""
        self.loading = True
        self.main_screen.show_status(_("loading {name} …").format(name=corpus.name))
        self._build(corpus, config, script, file_ids)

    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def _build(
        self, corpus: LoadedCorpus, config: TrainConfig, script: Tokenizer | None, file_ids: list[int | None] | None
    ) -> None:
        try:
            workbench = Workbench(corpus, config, script=script, file_ids=file_ids)
            note = workbench.restore(self._resume) if self._resume is not None else None
        except ValueError as exc:
            self.post_message(LoadFailed(str(exc)))
            return
        self.post_message(Loaded(workbench, note))

    @on(Loaded)
    def _loaded(self, message: Loaded) -> None:
        self.loading = False
        self.attach(message.workbench)
        if self._open_note:  # which settings an opened sample trains with
            self.say(self._open_note, timeout=8)
            self._open_note = None
        if self._resume is None:
            self._notice_found()
        if self._resume is not None:
            selected = self._resume.selected
            self._resume = None
            trainer = message.workbench.trainer
            if isinstance(selected, int) and 0 <= selected < trainer.vocab_size - len(self.config.specials):
                self.main_screen.select(selected)
            self.say(message.note or _("session resumed at step {step}").format(step=message.workbench.steps), timeout=6)
        if self._run_on_load:
            self._run_on_load = False
            self.action_toggle_run()

    @on(LoadFailed)
    def _load_failed(self, message: LoadFailed) -> None:
        self.loading = False
        self._open_note = None
        self.say(message.reason, title=_("cannot train on this corpus"), severity="error", timeout=8)
        self.main_screen.refresh_views()

    @property
    def session_file(self) -> Path:
        """Where this app's session goes: the explicit file, else the current corpus's own."""
        if self.explicit_session is not None:
            return self.explicit_session
        corpus = self.workbench.corpus if self.workbench is not None else self._pending
        if corpus is None:
            from tui.model.session import session_path

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
            self.say(_("a session on this corpus at step {step} exists: R resumes it").format(step=session.step), timeout=10)
        else:
            name = session.source.split(":", 1)[-1] if session.source.startswith("sample:") else Path(session.source).name
            self.say(_("{path} holds a session on {name} at step {step}: it is kept aside "
                       "(not written over) once you make a merge here").format(path=path, name=name, step=session.step),
                     timeout=10)

    def action_resume_found(self) -> None:
        """``R``: resume the session found on this corpus at launch or open."""
        if self.found is None or self.workbench is None:
            self.say(_("no earlier session on this corpus to resume"), timeout=3)
            return
        path, session = self.found
        if peek(path) is None:
            self.found = None
            self.say(_("the session in {path} is gone").format(path=path), timeout=4)
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
        self.file_ids = workbench.file_ids
        self.main_screen.attach(workbench)
        self.call_after_refresh(collector.freeze_loaded)  # its objects: out of the collector's walks

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
        self.main_screen.follow(message.done, message.final, message.each)
        if message.done:
            self.say(_("training is done: {reason}").format(reason=self._stop_reason()), timeout=4)

    def _stop_reason(self) -> str:
        """Why no step can be made now (the status line says it too)."""
        try:
            return self.workbench.stop_reason() or _("a stop rule holds")
        except Busy:
            return _("a stop rule holds")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        focused = self.focused
        if parameters == ("arrow",) and isinstance(focused, CorpusView) and not focused.wrap:
            return False  # the corpus pane, not wrapping, scrolls sideways with its arrows
        if action in TYPED and isinstance(focused, Input):
            if action == "quit" and not getattr(focused, "handles_quit", False):
                return True  # ctrl+q (a priority key) quits from a dialog's input too
            return False  # arrows and letters belong to the input line: not shown, not run
        if action in STEPPING and (self.running or self.loading or self.workbench is None):
            return None  # shown greyed: it cannot act now
        if action in QUIZ_MOVES and isinstance(self.screen, QuizScreen):
            return False  # the quiz makes each round's merge itself
        if action in LESSON_KEYS and self.lesson is None:
            return False  # no lesson open: hidden
        if (action in STEPPING or action == "toggle_run") and self.lesson is not None and self.lesson.busy:
            return None  # a lesson's step is moving the trainer: greyed until it is done
        return True

    def action_toggle_run(self) -> None:
        if self.running:
            self.training.stop()
        elif self.workbench is not None and not self.loading:
            if self.workbench.done:
                self.say(_("training is done: {reason}").format(reason=self._stop_reason()))
                return
            self.running = True
            self.training.start(self.workbench)

    def action_faster(self) -> None:
        """A faster run speed (also while a run is live)."""
        self.set_speed(faster(self.training.speed))

    def action_slower(self) -> None:
        """A slower run speed, so a class can watch each merge (also while a run is live)."""
        self.set_speed(slower(self.training.speed))

    def run_to(self, step: int) -> None:
        """Train to ``step`` at the run speed and stop there (or where a stop rule holds first);
        a step already made (or undone and redoable) is jumped to, as `g` does."""
        if step <= self.workbench.steps:
            self.go(step)
            return
        if self.workbench.done:
            self.say(_("training is done: {reason}").format(reason=self._stop_reason()))
            return
        self.main_screen.selected = None
        self.running = True
        self.training.start(self.workbench, until=step)

    def action_run_to(self) -> None:
        target = self.workbench.trainer.target_merges
        hint = _("up to {target}").format(target=target) if target is not None else _("a step ahead")
        self._ask_step(_("Run to step (at the run speed; +/- change it)"), hint, self.run_to)

    def _ask_step(self, title: str, hint: str, then: Callable[[int], None]) -> None:
        """Ask for a step number; ``then(step)`` runs before the dialog closes (the screen beneath
        then repaints once), and a bad number is said inside the dialog, which stays open."""

        def accept(answer: str) -> str | None:
            if not answer.strip():
                return None
            try:
                step = int(answer.strip())
            except ValueError:
                return _("not a step number: {answer!r}").format(answer=answer.strip())
            if step < 0:
                return _("a step is 0 or more")
            then(step)
            return None

        self.push_screen(PromptScreen(title, placeholder=hint, accept=accept))

    def _moved(self, nothing: str, event) -> None:
        """``nothing``: what to say when ``event`` is None (nothing moved)."""
        if event is None:
            self.say(nothing, timeout=2)
        self.main_screen.moved()

    # ``via`` is "arrow" for the arrow keys: check_action lets a non-wrapping corpus pane keep them.
    def action_step(self, via: str = "") -> None:
        event = self.workbench.step()
        self._moved(_("nothing to step: {reason}").format(reason=self._stop_reason()) if event is None else "", event)

    def action_undo(self, via: str = "") -> None:
        self._moved(_("nothing to undo"), self.workbench.undo())

    def action_redo(self, via: str = "") -> None:
        self._moved(_("nothing to redo"), self.workbench.redo())

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
                self.say(_("stopped at step {step}: a stop rule holds").format(step=reached), timeout=3)
            self.main_screen.moved()
            self.call_after_refresh(self.workbench.settle)  # the rest of a restore, once shown
            return
        self.main_screen.selected = None
        self.running = True
        self.training.jump(self.workbench, step)

    def action_goto(self) -> None:
        target = self.workbench.trainer.target_merges
        self._ask_step(_("Go to step"), f"0 … {target}" if target is not None else _("0 or more"), self.go)

    # -- screens ----------------------------------------------------------------------------

    def action_analysis(self, tab: str = "curve") -> None:
        """Open the analysis screen (curve, vocabulary, held-out, baselines, compare, tie rules)."""
        if self.workbench is None or self.loading:
            self.say(_("no corpus loaded yet"), timeout=2)
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
            if self.confinement is not None:  # serve mode: only inside the served folder
                folder = str(self.confinement.writable(folder))
            saved = Path(self.save_screenshot(filename, folder, time_format)).resolve()
        except (OSError, ValueError) as exc:
            self.say(_("screenshot not saved: {folder}: {reason}").format(folder=folder, reason=getattr(exc, "strerror", None) or exc),
                     title=_("Screenshot"), severity="error", timeout=8)
            return None
        self.say(_("saved {path}").format(path=saved), title=_("Screenshot"), timeout=6)
        deliver(self, saved)
        return None

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    # -- the quiz: predict the next merge (issue 14) -------------------------------------------

    def start_quiz(self, mode: str = "shuffled") -> bool:
        """Open the quiz in ``mode`` (``shuffled``, ``hidden`` or ``typed``; see tui.model.quiz), or
        switch an open quiz to it. Each round ends with :class:`tui.app.screens.quiz.QuizAnswered`
        posted to the app; ``quiz_score`` keeps the session's score. False (and a message) when
        it cannot start now."""
        if isinstance(self.screen, QuizScreen):
            self.screen.set_mode(mode)
            return True
        reason = QuizScreen.cannot_start(self)
        if reason is not None:
            self.say(reason, timeout=4)
            return False
        self.push_screen(QuizScreen(mode, self.quiz_seed))
        return True

    def action_quiz(self, mode: str = "shuffled") -> None:
        """``p``: predict the next merge (a quiz; ``p`` or escape leaves it)."""
        self.start_quiz(mode)
    # -- lessons (issue 14) -------------------------------------------------------------------

    def start_lesson(self, lesson, note: str | None = None) -> None:
        """Play ``lesson`` (a tui.lessons.format.Lesson) from its introduction, in a pane beside the others."""
        from tui.lessons.player import LessonPlayer

        self.lesson = LessonPlayer(self, lesson, note)
        self.main_screen.show_lesson(visible=True)
        self.lesson.start()

    def show_lesson(self) -> None:
        """Redraw the lesson pane (the player calls this as its steps run)."""
        if self.main_screen.is_mounted:
            self.main_screen.show_lesson()

    def action_lessons(self) -> None:
        """`l`: the list of lessons; with a lesson open, hide or show its pane."""
        if self.lesson is not None:
            if not isinstance(self.screen, MainScreen):
                self.pop_screen()
            shown = self.main_screen.query_one("#lesson").has_class("shown")
            self.main_screen.show_lesson(visible=not shown)
            return
        from tui.app.screens.lessons import LessonListScreen

        def chosen(picked) -> None:
            if picked is not None:
                lesson, note = picked
                self.start_lesson(lesson, note)

        self.push_screen(LessonListScreen(self.lesson_lang), chosen)

    def action_lesson_next(self) -> None:
        if self.lesson is not None:
            self.main_screen.show_lesson(visible=True)
            self.lesson.next()

    def action_lesson_back(self) -> None:
        if self.lesson is not None:
            self.main_screen.show_lesson(visible=True)
            self.lesson.back()

    def action_lesson_restart(self) -> None:
        if self.lesson is not None:
            self.main_screen.show_lesson(visible=True)
            self.lesson.restart()

    def action_command_palette(self) -> None:
        """Textual's palette, its search line in the app's language."""
        from textual.command import CommandPalette

        if self.use_command_palette and not CommandPalette.is_open(self):
            self.push_screen(CommandPalette(placeholder=_("Search for commands…"), id="--command-palette"))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """Textual's commands but its Quit (ours asks first) and Screenshot (ours has its key,
        X), then one per action of ours."""
        for command in super().get_system_commands(screen):
            if command.title not in ("Quit", "Screenshot"):
                yield translated_system(command)
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
                target = output_path(self, answer)
                workbench.save(target)
            except (OSError, ValueError) as exc:
                reason = getattr(exc, "strerror", None) or str(exc)
                self.say(_("not saved: {path}: {reason}").format(path=answer, reason=reason), severity="error", timeout=8)
                return
            self.say(_("saved {path} (vocabulary {size})").format(path=answer, size=workbench.trainer.vocab_size), timeout=4)
            deliver(self, target)

        self.push_screen(PromptScreen(_("Save tokenizer (native JSON)"), value=default), done)

    def action_open(self) -> None:
        dialog = OpenScreen()

        def chosen(source: str | None) -> None:
            if source:
                keep = dialog.keep_settings
                question = (_("Open the bundled sample {name}?").format(name=source[7:]) if source.startswith("sample:")
                            else _("Open {path}?").format(path=source))
                self._confirm_then(question, lambda: self._open(source, keep), self._merges_fate(leaving=True))

        self.push_screen(dialog, chosen)

    def _open(self, source: str, keep_settings: bool = False) -> None:
        """Open a corpus file (with the current settings) or ``sample:NAME`` (with its example's
        settings, unless ``keep_settings``); a replay keeps replaying its tokenizer."""
        config, note = self.config, None
        if source.startswith("sample:") and self.script is None:
            config, note = sample_settings(source, self.config, keep_settings)
        if self.open_with(source, config, self.script, self.file_ids):
            self._open_note = note

    def open_with(self, source: str, config: TrainConfig, script: Tokenizer | None = None,
                  file_ids: list[int | None] | None = None) -> bool:
        """Open ``source`` (a path or ``sample:NAME``) with ``config`` (replaying ``script``):
        the open dialog's path, and a lesson's. False (and a message) when it cannot be read."""
        try:
            if self.confinement is not None and not source.startswith("sample:"):
                source = str(self.confinement.readable(source))
            corpus = LoadedCorpus.open(source, script.base if script else config.base)
        except ValueError as exc:
            self.say(str(exc), title=_("cannot open"), severity="error", timeout=8)
            return False
        self.autosave(now=True)  # this corpus's merges stay in its session
        if self.explicit_session is not None:
            self._owned = None  # one file for every corpus: keep this corpus's session aside
        self.load(corpus, config, script, file_ids)
        return True

    def action_settings(self) -> None:
        def chosen(config: TrainConfig | None) -> None:
            if config is None or config == self.config:
                return
            self._confirm_then(_("Restart training with the new settings?"), lambda: self._restart(config))

        self.push_screen(SettingsScreen(self.config, self.training.speed, self.set_speed), chosen)

    def set_speed(self, speed: int | None) -> None:
        """The run speed (merges a second; None: full speed), also while a run is live."""
        self.training.set_speed(speed)
        self.main_screen.show_status()

    def _restart(self, config: TrainConfig) -> None:
        corpus = self.workbench.corpus
        if config.base != self.config.base:
            try:  # units and line offsets depend on the base
                corpus = LoadedCorpus.open(corpus.source, config.base)
            except ValueError as exc:
                self.say(str(exc), severity="error")
                return
        if self.script is not None:
            self.say(_("training with your settings now, no longer replaying the imported tokenizer"), timeout=6)
        self.load(corpus, config)  # the config and mode change only if the new trainer builds

    def _confirm_then(self, question: str, then: Callable[[], None], fate: str | None = None) -> None:
        """Run ``then`` at once, or after a yes when there is unsaved work; ``fate`` says what
        becomes of the merges (default: lost)."""
        if self.workbench is None or not self.workbench.unsaved:
            then()
            return
        self.push_screen(
            ConfirmScreen(question + "\n" + (fate or _("The merges since your last save will be lost."))),
            lambda yes: then() if yes else None,
        )

    def _merges_fate(self, leaving: bool = False) -> str:
        """What happens to the current merges when the app quits (or, ``leaving``, opens
        another corpus), truthfully: kept in a session file (and how to resume it), or lost."""
        steps = self.workbench.steps if self.workbench is not None else 0
        if not self._autosave_on or self._write_failed:
            return ngettext("Your {n} merge will be lost:\nno session is saved (s saves the tokenizer).",
                            "Your {n} merges will be lost:\nno session is saved (s saves the tokenizer).", steps).format(n=steps)
        path = self.session_file
        if not leaving:
            return ngettext("Your {n} merge is kept in the session:\n`{command}` brings it back.",
                            "Your {n} merges are kept in the session:\n`{command}` brings them back.",
                            steps).format(n=steps, command=resume_command(path))
        if self.explicit_session is not None:
            return ngettext("Your {n} merge is kept in the session:\nit is set aside beside {path} when the new corpus first saves.",
                            "Your {n} merges are kept in the session:\nit is set aside beside {path} when the new corpus first saves.",
                            steps).format(n=steps, path=path)
        source = self.workbench.corpus.source
        return ngettext("Your {n} merge is kept in this corpus's session:\n`{command}` brings it back.",
                        "Your {n} merges are kept in this corpus's session:\n`{command}` brings them back.",
                        steps).format(n=steps, command=f"bpe-lab --resume {shlex.quote(source)}")

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

        self.push_screen(ConfirmScreen(_("Quit bpe-lab?") + "\n" + self._merges_fate()), answered)

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
            # Mid-batch: try again after the next batch or two rather than wait a whole tick
            # (a run of slow merges could otherwise miss tick after tick).
            if not self._save_retry:
                self._save_retry = True
                self.set_timer(AUTOSAVE_RETRY, self._retry_autosave)
            return
        key = (session.source, tuple(session.merges[-1:]), len(session.merges), session.step, session.selected, session.config,
               repr(session.branches))
        if key == self._saved_key:
            return
        self._saved_key = key
        path = self._claimed(self._path_for(session))
        if now:
            problem = self._write_session(session, path)
            self._say_kept()
            if problem:
                self.say(problem, severity="warning")
        else:
            self._write_session_later(session, path)

    def _retry_autosave(self) -> None:
        self._save_retry = False
        self.autosave()

    def _claimed(self, path: Path) -> Path:
        """The file to write ``path``'s session to: ``path``, locked at the first save to it; or,
        while another live bpe-lab holds it, a sibling of this process's own (said once)."""
        if path not in self._claims:
            lock, actual, note = claim_session_file(path)
            self._claims[path] = (lock, actual)
            if note:  # another app writes it: this one writes a sibling instead
                self.say(note, severity="warning", timeout=12)
        return self._claims[path][1]

    def on_unmount(self) -> None:
        """Let go of the session files (a crash lets go too: the locks are the kernel's) and
        give the collector back what the app froze or held."""
        collector.release()
        collector.thaw()
        if self.confinement is not None:  # a closed browser tab ends the app without `q`: save now
            self.autosave(now=True)
        for lock, _file in self._claims.values():
            if lock is not None:
                lock.release()

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

    def _write_session(self, session: Session, path: Path | None = None) -> str | None:
        """Save to ``path`` (default: the session's own file); the reason when it failed (the old
        session file is then left as it was).

        A file this app did not make or resume is never written over when it holds merges: it
        is kept aside first (and the app says where); an empty session is not written over it."""
        path = path or self._path_for(session)
        try:
            if path != self._owned and holds_merges(path):
                if not session.merges:
                    self._saved_key = None
                    return None  # nothing worth saving over someone's merges
                kept = keep_aside(path)
                self.found = None
                self._kept_note = _("the earlier session in {name} is kept as {kept}: `{command}` resumes it").format(
                    name=path.name, kept=kept, command=resume_command(kept))
            session.save(path)
            self._owned = path
            self._write_failed = False
            return None
        except OSError as exc:
            self._saved_key = None
            self._write_failed = True
            return _("session not saved: {path}: {reason}").format(path=path, reason=exc.strerror or exc)

    @work(thread=True, exclusive=True, group="session", exit_on_error=False)
    def _write_session_later(self, session: Session, path: Path) -> None:
        problem = self._write_session(session, path)
        self.call_from_thread(self._say_kept)
        if problem:
            self.call_from_thread(self.say, problem, severity="warning")
