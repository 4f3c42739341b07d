"""The Textual app: the shell around the lab, whatever screen shows.

:class:`BpeApp` composes the screens, the palette, the theme, the toasts and quitting. The
training state (the workbench, the workers, the sessions, a lesson) is its
:class:`tui.app.lab.Lab`'s, which tells the screens when the trainer moved; the keys' actions are
:class:`tui.app.actions.Actions`'. Keys come from :mod:`tui.app.keys`.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual import on
from textual.app import App, SystemCommand
from textual.screen import Screen
from textual.theme import Theme
from textual.widgets import Input
from textual.worker import Worker

from engine import TrainConfig
from tui.app import collector, wide_cuts
from tui.app.actions import Actions
from tui.app.commands import system_commands, translated_system
from tui.app.keys import app_bindings, typed_actions
from tui.app.lab import Lab
from tui.app.messages import Loaded, LoadFailed, Trained
from tui.app.options import LaunchOptions
from tui.app.screens.dialogs import ConfirmScreen
from tui.app.screens.main import MainScreen
from tui.app.screens.quiz import QuizScreen
from tui.app.theme import activate as activate_theme
from tui.app.toasts import Toasts
from tui.app.widgets.corpus_view import CorpusView
from tui.i18n import _, engine_message
from tui.model.confine import Confinement
from tui.model.session import explicit_session_path
from tui.model.session_keeper import SessionKeeper
from tui.model.workbench import LoadedCorpus, Workbench

#: Actions that change the training state: disabled (greyed) while a run is live or loading.
STEPPING = {"step", "undo", "redo", "jump", "goto", "run_to", "settings", "open", "save", "resume_found"}
#: Actions that move through an open lesson (hidden from the footer while none is).
LESSON_KEYS = {"lesson_next", "lesson_back", "lesson_restart", "lesson_end", "lesson_scroll"}
#: Actions whose keys type into a focused input (step, undo and redo also have arrows, which
#: move its cursor then).
TYPED = typed_actions() | {"step", "undo", "redo"}
#: Actions that would move training behind the quiz's back while it shows (escape leaves it first).
QUIZ_MOVES = STEPPING | {"toggle_run", "analysis", "quiz"}


class BpeApp(Actions, App):
    """bpe-lab: train BPE one merge at a time and see everything that happens."""

    CSS_PATH = "app.tcss"
    TITLE = "bpe-lab"
    BINDINGS = app_bindings()

    confinement: Confinement | None = None
    """Serve mode (``bpe-lab serve``): the one folder files may be opened from and written to;
    None in a terminal. Set by the launcher."""

    def __init__(self, corpus: LoadedCorpus | None = None, config: TrainConfig | None = None, *,
                 workbench: Workbench | None = None, options: LaunchOptions | None = None, lesson=None,
                 lesson_note: str | None = None) -> None:
        """``corpus`` and ``config``: what to build and show (in a worker), or ``workbench``: one
        built; ``options``: how it was launched; ``lesson``: a parsed lesson
        (tui.lessons.format.Lesson) to start with, ``lesson_note`` said as it opens."""
        super().__init__()
        wide_cuts.install()  # Textual #6357: a wide character under a cut stays whole (a guarded patch)
        options = options or LaunchOptions()
        if options.theme is not None:
            self.theme = options.theme
        #: The theme last remembered (or given): a change to another one is saved to prefs_file.
        self._remembered_theme = self.theme
        self._prefs_file = options.prefs_file
        self._start_notes = list(options.notes)
        activate_theme(self.current_theme)
        #: The language `l` lists the lessons in (``bpe-lab lesson --lang``; None: the locale's).
        self.lesson_lang: str | None = None
        self._start_lesson = (lesson, lesson_note) if lesson is not None else None
        keeper = SessionKeeper(options.session_file or explicit_session_path(), autosave=options.autosave,
                               resumed_from=options.resumed_from, resuming=options.resume is not None)
        self.lab = Lab(self, workbench=workbench, corpus=corpus, config=config, script=options.script,
                       file_ids=options.file_ids, keeper=keeper, resume=options.resume, run=options.run,
                       speed=options.speed, clipboard=options.clipboard, base_chosen=options.base_chosen,
                       open_note=options.open_note, memory=options.memory)
        self.main_screen = MainScreen(self.lab)
        self.toasts = Toasts(self)
        self._asking_quit = False

    # -- what tests and the launcher read of the lab ------------------------------------------

    workbench = property(lambda self: self.lab.workbench, doc="The workbench shown (the lab's).")
    running = property(lambda self: self.lab.running, doc="A run or a long jump is live.")
    loading = property(lambda self: self.lab.loading, doc="A corpus is being read or built.")
    training = property(lambda self: self.lab.training, doc="The lab's training workers.")
    lesson = property(lambda self: self.lab.lesson, doc="The lesson being played, or None.")
    config = property(lambda self: self.lab.config, doc="The settings training uses.")

    @property
    def selected(self) -> int | None:
        """The token the inspector shows (saved with the session)."""
        return self.main_screen.selected

    # -- theme and toasts -------------------------------------------------------------------

    def _theme_changed(self, theme: Theme) -> None:
        """Recolour every pane from the new theme, and remember a theme picked in the palette."""
        activate_theme(theme)
        for screen in self.screen_stack:
            if hasattr(screen, "recolour"):
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

    def notify(self, message: str, *, title: str = "", severity="information", timeout: float | None = None,
               markup: bool = True) -> None:
        """Every toast of the app (and Textual's own): a message said again while its toast
        still shows counts up instead of stacking (tui.app.toasts)."""
        self.toasts.notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    # -- start and the lab's messages ---------------------------------------------------------

    def get_default_screen(self) -> Screen:
        return self.main_screen

    def on_mount(self) -> None:
        self.theme_changed_signal.subscribe(self, self._theme_changed)
        for note in self._start_notes:
            self.say(note, severity="warning", timeout=8)

    @on(MainScreen.Ready)
    def _panes_ready(self) -> None:
        """The main screen is mounted (after the app): the lab shows or loads; a lesson starts."""
        self.lab.started()
        if self._start_lesson is not None:
            lesson, note = self._start_lesson
            self._start_lesson = None
            self.start_lesson(lesson, note)

    @on(Loaded)
    def _loaded(self, message: Loaded) -> None:
        self.lab.loaded(message)

    @on(LoadFailed)
    def _load_failed(self, message: LoadFailed) -> None:
        self.lab.load_failed(message)

    @on(Worker.StateChanged)
    def _track_worker(self, event: Worker.StateChanged) -> None:
        self.lab.worker_changed(event)

    @on(Trained)
    def _trained(self, message: Trained) -> None:
        self.lab.trained(message)

    def autosave(self, now: bool = False) -> None:
        self.lab.autosave(now)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        focused, lab = self.focused, self.lab
        if parameters == ("arrow",) and isinstance(focused, CorpusView) and not focused.wrap:
            return False  # the corpus pane, not wrapping, scrolls sideways with its arrows
        if action in LESSON_KEYS:
            if lab.lesson is None:
                return False  # no lesson open: hidden (and `>` types into an input)
            return True  # `>` and `<` move the lesson even while an input has focus
        if action == "resume_found" and lab.keeper.found is None:
            return False  # shown (footer, palette) only while an earlier session is offered
        if action in TYPED and isinstance(focused, Input):
            if action == "quit" and not getattr(focused, "handles_quit", False):
                return True  # ctrl+q (a priority key) quits from a dialog's input too
            return False  # arrows and letters belong to the input line: not shown, not run
        if action in STEPPING and (lab.running or lab.loading or lab.workbench is None):
            return None  # shown greyed: it cannot act now
        if action in QUIZ_MOVES and isinstance(self.screen, QuizScreen):
            return False  # the quiz makes each round's merge itself
        if (action in STEPPING or action == "toggle_run") and lab.lesson is not None and lab.lesson.busy:
            return None  # a lesson's step is moving the trainer: greyed until it is done
        return True

    # -- the palette ------------------------------------------------------------------------

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

    # -- quitting ---------------------------------------------------------------------------

    async def action_quit(self) -> None:
        """Quit (`q`, ctrl+q, the palette): ask first when there are unsaved merges; the
        session is saved last."""
        if self._asking_quit:
            return  # ctrl+q again while the question is open
        if self.lab.running:
            self.lab.training.stop()
        if not self.lab.unsaved:
            self._quit()
            return
        self._asking_quit = True

        def answered(yes: bool | None) -> None:
            self._asking_quit = False
            if yes:
                self._quit()

        self.push_screen(ConfirmScreen(_("Quit bpe-lab?") + "\n" + self.lab.merges_fate()), answered)

    def _quit(self) -> None:
        self.lab.autosave(now=True)
        self.exit()

    def on_unmount(self) -> None:
        """Let go of the session files (a crash lets go too: the locks are the kernel's) and
        give the collector back what the app froze or held."""
        collector.release()
        collector.thaw()
        if self.confinement is not None:  # a closed browser tab ends the app without `q`: save now
            self.lab.autosave(now=True)
        self.lab.close()
