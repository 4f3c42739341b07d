"""The Textual app: panes driven by the engine, training in a worker thread, keys for everything."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable, Iterable

from textual import on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Footer, Input
from textual.worker import Worker, WorkerState

from engine import Tokenizer, TrainConfig, token_info

from .app_files import FilesMixin
from .app_run import RunMixin
from .clipboard import copy_text
from .commands import system_commands
from .finder import find_token
from .messages import LoadFailed, Loaded, Trained
from .screens.analysis import AnalysisScreen
from .screens.dialogs import PromptScreen
from .screens.help import HelpScreen
from .session import Session, session_path
from .widgets.candidates import Candidates
from .widgets.corpus_view import CorpusView
from .widgets.inspector import Inspector
from .widgets.merge_log import MergeLog
from .widgets.status_line import StatusLine
from .widgets.tokenize_pane import TokenizePane
from .workbench import Busy, LoadedCorpus, Workbench

#: Seconds between session saves while something changes.
AUTOSAVE_SECONDS = 3.0
#: Seconds between pane refreshes while training runs (the worker posts after every batch).
REFRESH_WHILE_RUNNING = 0.1
#: Actions that change the training state: disabled (greyed) while a run is live or loading.
STEPPING = {"step", "undo", "redo", "jump", "goto", "settings", "open", "save"}


class BpeApp(RunMixin, FilesMixin, App):
    """bpe-lab: train BPE one merge at a time and see everything that happens."""

    CSS_PATH = "app.tcss"
    TITLE = "bpe-lab"
    BINDINGS = [
        Binding("space", "toggle_run", "Run/Pause"),
        Binding("n", "step", "Step"),
        Binding("right", "step", "Step", show=False, priority=True),
        Binding("u", "undo", "Undo"),
        Binding("left", "undo", "Undo", show=False, priority=True),
        Binding("r", "redo", "Redo"),
        Binding("shift+right", "redo", "Redo", show=False, priority=True),
        Binding("right_square_bracket", "jump(10)", "+10", show=False),
        Binding("left_square_bracket", "jump(-10)", "-10", show=False),
        Binding("right_curly_bracket", "jump(100)", "+100", show=False),
        Binding("left_curly_bracket", "jump(-100)", "-100", show=False),
        Binding("g", "goto", "Go to"),
        Binding("slash", "find", "Find"),
        Binding("c", "copy", "Copy", show=False),
        Binding("s", "save", "Save"),
        Binding("o", "open", "Open"),
        Binding("a", "analysis", "Analysis", show=False),
        Binding("comma", "settings", "Settings", show=False),
        Binding("i", "toggle_ids", "Ids", show=False),
        Binding("t", "toggle_trace", "Trace", show=False),
        Binding("escape", "focus_log", "Log", show=False),
        Binding("question_mark", "help", "Help"),
        Binding("q", "quit_app", "Quit"),
    ]

    running: reactive[bool] = reactive(False, bindings=True)
    """A training run is live (the worker owns the trainer)."""
    loading: reactive[bool] = reactive(False, bindings=True)
    """A corpus is being read or its trainer built."""

    def __init__(
        self,
        corpus: LoadedCorpus | None = None,
        config: TrainConfig | None = None,
        *,
        workbench: Workbench | None = None,
        clipboard: Callable[[str], None] | None = None,
        replay: Tokenizer | None = None,
        resume: Session | None = None,
        session_file: Path | None = None,
        autosave: bool = True,
        run: bool = False,
    ) -> None:
        super().__init__()
        self._resume = resume
        self.session_file = session_file or session_path()
        self._autosave_on = autosave
        self._saved_key: tuple | None = None
        self._run_on_load = run
        self.replay = workbench.replay if workbench is not None else replay  # an imported tokenizer
        self.config = config or (workbench.config if workbench else TrainConfig())
        self.workbench: Workbench | None = workbench
        self._pending = corpus if workbench is None else None
        self._copy_fn = clipboard
        self.selected: int | None = None  # the token the inspector shows
        self._last_output = 0.0
        self._last_refresh = 0.0

    def say(self, message: str, **kwargs) -> None:
        """A notification; never markup, since messages quote user input like "[e4 b8]"."""
        self.notify(message, markup=False, **kwargs)

    # -- layout -----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield CorpusView(id="corpus")
                yield MergeLog(id="log")
            with Vertical(id="right"):
                yield Candidates(id="candidates")
                yield Inspector(id="inspector")
                yield TokenizePane(id="tokenize")
        yield StatusLine(id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#corpus").border_title = "corpus"
        self.query_one("#log").border_title = "merge log"
        self.query_one("#candidates").border_title = "next merge"
        self.query_one("#inspector").border_title = "inspector"
        self.query_one("#tokenize").border_title = "tokenize"
        if self.workbench is not None:
            self.attach(self.workbench)
        elif self._pending is not None:
            self.load(self._pending, self.config, self.replay)
        self.log_view.focus()
        if self._autosave_on:
            self.set_interval(AUTOSAVE_SECONDS, self.autosave)

    @property
    def corpus_view(self) -> CorpusView:
        return self.query_one(CorpusView)

    @property
    def log_view(self) -> MergeLog:
        return self.query_one(MergeLog)

    # -- loading ----------------------------------------------------------------------------

    def load(self, corpus: LoadedCorpus, config: TrainConfig, replay: Tokenizer | None = None) -> None:
        """Build a trainer for ``corpus`` in a worker (replaying ``replay`` if given); the panes
        follow when it is ready. If it fails, a message says why and the current one stays."""
        self.loading = True
        self.query_one(StatusLine).show(None, f"loading {corpus.name} …")
        self._build(corpus, config, replay)

    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def _build(self, corpus: LoadedCorpus, config: TrainConfig, replay: Tokenizer | None) -> None:
        try:
            workbench = Workbench(corpus, config, replay=replay)
            note = workbench.restore(self._resume) if self._resume is not None else None
        except ValueError as exc:
            self.post_message(LoadFailed(str(exc)))
            return
        self.post_message(Loaded(workbench, note))

    @on(Loaded)
    def _loaded(self, message: Loaded) -> None:
        self.loading = False
        self.attach(message.workbench)
        if self._resume is not None:
            selected = self._resume.selected
            self._resume = None
            trainer = message.workbench.trainer
            if isinstance(selected, int) and 0 <= selected < trainer.vocab_size - len(self.config.specials):
                self.selected = selected
                if selected >= trainer.base_size:  # the log's cursor goes to the merge that made it
                    self.log_view.move_cursor(row=selected - trainer.base_size)
                self._show_selected()
            self.say(message.note or f"session resumed at step {message.workbench.steps}", timeout=6)
        if self._run_on_load:
            self._run_on_load = False
            self.action_toggle_run()

    @on(LoadFailed)
    def _load_failed(self, message: LoadFailed) -> None:
        self.loading = False
        self.say(message.reason, title="cannot train on this corpus", severity="error", timeout=8)
        self.refresh_views()

    def attach(self, workbench: Workbench) -> None:
        """Show a workbench in every pane."""
        self.workbench = workbench
        self.config = workbench.config
        self.replay = workbench.replay
        self.selected = None
        self.log_view.sync(None)
        self.corpus_view.attach(workbench)
        if workbench.corpus.note:
            self.say(workbench.corpus.note, timeout=8)
        self.refresh_views()

    # -- keeping the panes in step with the trainer -----------------------------------------

    def refresh_views(self) -> None:
        """Bring every pane up to the trainer's current step.

        Cheap: each pane reads only what it shows. While training runs, a pane whose read would
        wait for the worker keeps its content (the next batch refreshes it).
        """
        self._last_refresh = time.monotonic()
        workbench = self.workbench
        self.log_view.sync(workbench)
        if workbench is None:
            self.query_one(Candidates).show(None)
            self.corpus_view.refresh_tokens()
            self._show_selected()
            self._show_status()
            return
        try:
            with workbench.reading():
                last = workbench.trainer.last
                made = workbench.trainer.vocab_size - len(workbench.config.specials)
            self.corpus_view.highlight = last.new_id if last else None
            self.corpus_view.refresh_tokens()
            if self.selected is not None and self.selected >= made:
                self.selected = None
            self.query_one(Candidates).show(workbench)
            self._show_selected()
            self._show_output()
            self._show_status()
        except Busy:
            pass

    def _show_status(self) -> None:
        state = "loading" if self.loading else "running" if self.running else "paused"
        try:
            if not self.running and self.workbench is not None and self.workbench.done:
                state = "done"
        except Busy:
            pass
        self.query_one(StatusLine).show(self.workbench, state)

    def _show_selected(self) -> None:
        workbench = self.workbench
        if workbench is None:
            self.query_one(Inspector).show(None)
            return
        with workbench.reading():
            trainer = workbench.trainer
            made = trainer.vocab_size - len(trainer.config.specials)
            if self.selected is not None and not 0 <= self.selected < made:
                self.selected = None  # a message about a token an undo or jump has since unmade
            token = self.selected
            if token is None and trainer.last is not None:
                token = trainer.last.new_id
            info = token_info(trainer, token) if token is not None else None
        self.query_one(Inspector).show(info)

    def _show_output(self, force: bool = False) -> None:
        pane = self.query_one(TokenizePane)
        if self.workbench is None or not pane.text:
            pane.show(None)
            return
        now = time.monotonic()
        if self.running and not force and now - self._last_output < 0.25:
            return  # while training runs, re-encode a few times a second, not per batch
        self._last_output = now
        try:
            pane.show(self.workbench.tokenizer())
        except Busy:
            raise
        except ValueError as exc:  # e.g. a custom pattern that takes too long on this text
            pane.show_problem(str(exc))

    def watch_running(self) -> None:
        self._show_status()

    @on(Worker.StateChanged)
    def _track_worker(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "training":
            self.running = event.state in (WorkerState.PENDING, WorkerState.RUNNING)
            if not self.running:
                self.refresh_views()

    @on(Trained)
    def _trained(self, message: Trained) -> None:
        if not (message.done or message.final) and time.monotonic() - self._last_refresh < REFRESH_WHILE_RUNNING:
            return  # a few refreshes a second are plenty; the run's end refreshes anyway
        self.refresh_views()
        if message.done:
            self.say("training is done: a stop rule holds", timeout=4)

    # -- stepping ---------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("step", "undo", "redo") and isinstance(self.focused, Input):
            return False  # arrows and letters belong to the input line
        if action in STEPPING and (self.running or self.loading or self.workbench is None):
            return None  # shown greyed: it cannot act now
        return True

    def _moved(self, what: str, event) -> None:
        if event is None:
            self.say(f"nothing to {what}", timeout=2)
        self.selected = None
        self.refresh_views()

    def action_step(self) -> None:
        self._moved("step: a stop rule holds", self.workbench.step())

    def action_undo(self) -> None:
        self._moved("undo", self.workbench.undo())

    def action_redo(self) -> None:
        self._moved("redo", self.workbench.redo())

    @on(MergeLog.Inspect)
    def _inspect(self, message: MergeLog.Inspect) -> None:
        self.selected = message.token_id
        try:
            self._show_selected()
        except Busy:
            pass  # shown at the next refresh

    @on(MergeLog.Jump)
    def _jump(self, message: MergeLog.Jump) -> None:
        if self.check_action("goto", ()):
            self.go(message.step)

    # -- finding, copying, output -----------------------------------------------------------

    def action_find(self) -> None:
        if self.workbench is None:
            return

        def done(answer: str | None) -> None:
            if not answer:
                return
            with self.workbench.reading():
                found = find_token(self.workbench.trainer, answer)
            if found is None:
                self.say(f"no token matches {answer!r}", severity="warning")
                return
            self.selected = found
            self.corpus_view.highlight = found
            self._show_selected()

        self.push_screen(PromptScreen("Find a token", placeholder="text, [e4 b8] bytes, or #id"), done)

    def action_copy(self) -> None:
        pane = self.query_one(TokenizePane)
        if pane.has_focus_within and pane.text and self.workbench is not None:
            ids = self.workbench.tokenizer().encode(pane.text)
            payload, what = " ".join(map(str, ids)), f"{len(ids)} token ids"
        elif self.workbench is not None and (self.selected is not None or self.workbench.trainer.last):
            token = self.selected if self.selected is not None else self.workbench.trainer.last.new_id
            data = self.workbench.trainer.token_bytes(token)
            payload = f"{token}\t{data.hex(' ')}"
            what = f"token {token}"
        else:
            self.say("nothing to copy yet", timeout=2)
            return
        how = copy_text(payload, self._copy_fn, self.copy_to_clipboard)
        self.say(f"copied {what} ({how})", timeout=3)

    @on(TokenizePane.Changed)
    def _typed(self, message: TokenizePane.Changed) -> None:
        self._show_output(force=True)

    def action_toggle_ids(self) -> None:
        self.corpus_view.show_ids = not self.corpus_view.show_ids

    def action_toggle_trace(self) -> None:
        pane = self.query_one(TokenizePane)
        pane.trace = not pane.trace
        self._show_output(force=True)

    def action_focus_log(self) -> None:
        self.log_view.focus()

    def action_analysis(self, tab: str = "curve") -> None:
        """Open the analysis screen (curve, vocabulary, held-out, baselines, compare, tie rules)."""
        if self.workbench is None or self.loading:
            self.say("no corpus loaded yet", timeout=2)
        elif isinstance(self.screen, AnalysisScreen):
            self.screen.show_tab(tab)
        else:
            self.push_screen(AnalysisScreen(self.workbench, tab))

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield from system_commands(self)
