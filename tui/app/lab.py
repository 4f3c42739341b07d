"""The lab: the workbench and everything that moves it, apart from any screen.

:class:`Lab` belongs to the app (:class:`tui.app.shell.BpeApp` makes one) and holds the workbench
(a corpus and its trainer), :class:`tui.app.training.Training` (the run and jump workers), the
load worker, the :class:`tui.model.session.SessionKeeper` and the held-out setting. It never
calls into a screen: it tells the screens with Textual signals (:attr:`Lab.attached`,
:attr:`Lab.changed`, :attr:`Lab.selected`, :attr:`Lab.tokenized`, :attr:`Lab.analysis`,
:attr:`Lab.lesson_shown`), to which the screens subscribe. Screens call the lab back.

The lab is also the :class:`tui.model.driver.LabDriver` that lessons and the quiz use: every
move goes through ``Training`` (awaitable, cancellable), every open through the open dialog's path.
That side of it is the mixin of :mod:`tui.app.lab_driving`; saving the session is
:mod:`tui.app.lab_sessions`'s; what :attr:`Lab.changed` carries is :class:`tui.app.messages.Change`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from textual.signal import Signal
from textual.worker import Worker, WorkerState, get_current_worker

from engine import Tokenizer, TrainConfig
from engine.text import inert
from tui.app import collector
from tui.app.lab_driving import LabDriving
from tui.app.lab_sessions import AUTOSAVE_RETRY, SAVE_NOW_SECONDS, LabSessions  # noqa: F401 (kept importable here)
from tui.app.messages import Change, Loaded, LoadFailed, Trained
from tui.app.training import GROUP, Training
from tui.i18n import _
from tui.model.budget import give_back
from tui.model.cjk import character_level
from tui.model.driver import LessonView
from tui.model.pacing import Pacer
from tui.model.quiz import Score
from tui.model.session import Session
from tui.model.session_keeper import SessionKeeper
from tui.model.workbench import Busy, LoadedCorpus, Workbench

if TYPE_CHECKING:
    from textual.app import App

#: Seconds between session saves while something changes.
AUTOSAVE_SECONDS = 3.0
#: The load worker's group.
LOAD = "load"


class Lab(LabSessions, LabDriving):
    """One app's training state, and the driver lessons and the quiz use."""

    def __init__(self, app: App, *, workbench: Workbench | None = None, corpus: LoadedCorpus | None = None,
                 config: TrainConfig | None = None, script: Tokenizer | None = None,
                 file_ids: list[int | None] | None = None, keeper: SessionKeeper | None = None,
                 resume: Session | None = None, run: bool = False, speed: float | None = None,
                 clipboard: Callable[[str], None] | None = None, base_chosen: bool = False,
                 open_note: str | None = None, memory: int | None = None) -> None:
        self.app = app
        #: The corpus and trainer shown (None until the first corpus has loaded).
        self.workbench: Workbench | None = workbench
        #: An imported tokenizer whose merges steps replay on the corpus (None: training).
        self.script = workbench.script if workbench is not None else script
        #: How the replayed tokenizer's file numbers its tokens (``Imported.file_ids``; None: ours).
        self.file_ids = workbench.file_ids if workbench is not None else file_ids
        self.config = config or (workbench.config if workbench else TrainConfig())
        self.pending = corpus if workbench is None else None
        self.keeper = keeper or SessionKeeper(autosave=False)
        self.training = Training(app, Pacer(speed))
        self.clipboard_fn = clipboard  # copies text (tests); None: the system's, else OSC 52
        #: The held-out text the analysis screen measures on (a file, or a share of the corpus);
        #: the what-if branches compare on it too. None: the default.
        self.heldout_setting: str | None = None
        #: The quiz's score for this session (right, tied, wrong), and its shuffle's seed (None: random).
        self.quiz_score = Score()
        self.quiz_seed: int | None = None
        #: The lesson being played (tui.lessons.player.LessonPlayer), or None.
        self.lesson = None
        #: The lesson pane's view (a LessonView, or what the player hands it), or None.
        self.lesson_view: LessonView | None = None
        #: texts marked as surprising (! on the main screen), for a lesson's hand-in
        self.surprises: list[str] = []
        #: Whether the lesson's pane shows (`l` hides it while a lesson is open).
        self.lesson_pane_shown = True
        self._resume = resume
        self._run_on_load = run
        self._running = False
        self._loading = False
        self._open_note: str | None = open_note  # said once the corpus being opened is shown
        #: Bytes every workbench's copies and caches may hold (serve mode); None: the defaults.
        self.memory = memory
        #: The user chose the base (``--base``, the settings dialog): a mostly-CJK corpus opened
        #: with the current settings keeps it; else it opens at the character level.
        self.base_chosen = base_chosen
        self._save_retry = False  # a save found the trainer busy and tries again soon
        self._idle = asyncio.Event()
        self._idle.set()
        self._load_error: str | None = None
        # What the screens follow (each subscribes on mount).
        self.attached: Signal[Workbench] = Signal(app, "attached")
        self.changed: Signal[Change] = Signal(app, "changed")
        self.selected: Signal[int] = Signal(app, "selected")
        self.tokenized: Signal[tuple[str | None, bool | None]] = Signal(app, "tokenized")
        self.analysis: Signal[tuple[str, str | None]] = Signal(app, "analysis")
        self.lesson_shown: Signal[LessonView | None] = Signal(app, "lesson-shown")

    # -- state ------------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        """A training run or a long jump is live (the worker owns the trainer)."""
        return self._running

    @running.setter
    def running(self, value: bool) -> None:
        if value != self._running:
            self._running = value
            self._state_changed()

    @property
    def loading(self) -> bool:
        """A corpus is being read or its trainer built."""
        return self._loading

    @loading.setter
    def loading(self, value: bool) -> None:
        if value != self._loading:
            self._loading = value
            self._state_changed()

    def _state_changed(self) -> None:
        if self._running or self._loading:
            self._idle.clear()
        else:
            self._idle.set()
        self.app.refresh_bindings()
        self.changed.publish(Change("status"))

    def _tell(self, change: Change) -> None:
        """Tell the screens the trainer moved; a lesson's pane is redrawn too when the move was
        not the lesson's (it then says the learner explored)."""
        self.changed.publish(change)
        lesson = self.lesson
        if lesson is not None and not lesson.busy:
            lesson.refresh()

    @property
    def busy(self) -> bool:
        """A load, a run or a jump holds the trainer."""
        return self._running or self._loading

    @property
    def unsaved(self) -> bool:
        """Merges that quitting or opening another corpus would lose track of (never a lesson's:
        a lesson can always make them again)."""
        return self.workbench is not None and self.workbench.unsaved and not self.keeper.lesson

    def say(self, message: str, **kwargs) -> None:
        """A toast: plain text, so a `command` in the message loses its backticks."""
        from tui.app.screens.dialogs import unticked

        self.app.say(unticked(message), **kwargs)

    def started(self) -> None:
        """The main screen is mounted: show the workbench, or load the corpus; autosave."""
        if self.keeper.autosave:
            self.app.set_interval(AUTOSAVE_SECONDS, self.autosave)
        if self.workbench is not None:
            self.attach(self.workbench)
        elif self.pending is not None:
            self.load(self.pending, self.config, self.script, self.file_ids)

    # -- loading ----------------------------------------------------------------------------

    def load(self, corpus: LoadedCorpus, config: TrainConfig, script: Tokenizer | None = None,
             file_ids: list[int | None] | None = None) -> None:
        """Build a trainer for ``corpus`` in a worker (replaying ``script``, numbered as its file
        does by ``file_ids``, if given); the panes follow when it is ready. If it fails, a
        message says why and the current one stays."""
        self.loading = True
        self._load_error = None
        self.changed.publish(Change("status", text=_("loading {name} …").format(name=inert(corpus.name))))  # a file name: never raw
        self.app.run_worker(lambda: self._build(corpus, config, script, file_ids), thread=True, exclusive=True,
                            group=LOAD, exit_on_error=False)

    def _build(self, corpus: LoadedCorpus, config: TrainConfig, script: Tokenizer | None,
               file_ids: list[int | None] | None) -> None:
        """The load worker: whatever goes wrong becomes :class:`LoadFailed`, never a worker
        left failing with the app saying "loading …" for ever."""
        try:
            workbench = Workbench(corpus, config, script=script, file_ids=file_ids, memory=self.memory)
            worker = get_current_worker()  # closing the app while it restores stops the restore
            note = workbench.restore(self._resume, lambda: worker.is_cancelled) if self._resume is not None else None
            give_back()  # building the state's temporaries (tang_all: ~20 MB), back to the system
        except ValueError as exc:
            self.app.post_message(LoadFailed(str(exc)))
            return
        except (Exception, MemoryError) as exc:  # a bug or no memory: said, and the app goes on
            self.app.post_message(LoadFailed(f"{type(exc).__name__}: {exc}"))
            return
        self.app.post_message(Loaded(workbench, note))

    def loaded(self, message: Loaded) -> None:
        self.attach(message.workbench)
        self.loading = False
        if self._open_note:  # which settings an opened sample trains with
            self.say(self._open_note, timeout=8)
            self._open_note = None
        if self._resume is None:
            note = self.keeper.notice(message.workbench.corpus.source, message.workbench.corpus.sha256)
            if note:
                self.say(note, timeout=10)
            self.app.refresh_bindings()  # R shows in the footer while an earlier session is offered
        else:
            selected = self._resume.selected
            self._resume = None
            trainer = message.workbench.trainer
            if isinstance(selected, int) and 0 <= selected < trainer.vocab_size - len(self.config.specials):
                self.selected.publish(selected)
            self.say(message.note or _("session resumed at step {step}").format(step=message.workbench.steps), timeout=6)
        if self._run_on_load:
            self._run_on_load = False
            self.toggle_run()

    def load_failed(self, message: LoadFailed) -> None:
        self._open_note = None
        self._load_error = message.reason
        self.loading = False
        self.say(message.reason, title=_("cannot train on this corpus"), severity="error", timeout=8)
        self._tell(Change("refresh"))

    def load_worker_changed(self, event: Worker.StateChanged) -> None:
        """A load worker that ended without its message (an error the worker did not catch, or
        cancelled): the app is not left loading."""
        if event.state in (WorkerState.ERROR, WorkerState.CANCELLED) and self.loading and not self._active(LOAD):
            error = event.worker.error
            reason = f"{type(error).__name__}: {error}" if error is not None else _("cannot train on this corpus")
            self.load_failed(LoadFailed(reason))

    @property
    def session_file(self) -> Path:
        """Where this app's session goes: the explicit file, else the current corpus's own."""
        corpus = self.workbench.corpus if self.workbench is not None else self.pending
        return self.keeper.path_for(corpus.source if corpus else None, corpus.sha256 if corpus else None)

    def resume_found(self) -> None:
        """``R``: resume the session found on this corpus at launch or open."""
        if self.workbench is None:
            self.say(_("no earlier session on this corpus to resume"), timeout=3)
            return
        found = self.keeper.take_found()
        self.app.refresh_bindings()  # the offer is answered (or gone): R leaves the footer
        if isinstance(found, str):
            self.say(found, timeout=4)
            return
        _path, session = found
        self.app.clear_notifications()  # the offer, answered
        self._resume = session
        self.load(self.workbench.corpus, session.config, session.replay)

    def attach(self, workbench: Workbench) -> None:
        """Make ``workbench`` the lab's, and show it."""
        self.workbench = workbench
        self.config = workbench.config
        self.script = workbench.script
        self.file_ids = workbench.file_ids
        self.attached.publish(workbench)
        self.app.call_after_refresh(collector.freeze_loaded)  # its objects: out of the collector's walks

    # -- files ------------------------------------------------------------------------------

    def open_with(self, source: str, config: TrainConfig, script: Tokenizer | None = None,
                  file_ids: list[int | None] | None = None, note: str | None = None, *, current: bool = False) -> bool:
        """Open ``source`` (a path or ``sample:NAME``) with ``config`` (replaying ``script``):
        the open dialog's path, and a lesson's. False (and a message) when it cannot be read.
        ``current``: ``config`` is the current settings, kept (the open dialog's file): a mostly
        CJK corpus then opens at the character level unless the user chose the base."""
        confinement = getattr(self.app, "confinement", None)
        try:
            if confinement is not None and not source.startswith("sample:"):
                source = str(confinement.readable(source))
            corpus = LoadedCorpus.open(source, script.base if script else config.base)
        except ValueError as exc:
            self._load_error = str(exc)
            self.say(str(exc), title=_("cannot open"), severity="error", timeout=8)
            return False
        if current and script is None and not self.base_chosen:
            corpus, config, chars = character_level(corpus, config)
            note = chars or note
        self.autosave(now=True)  # this corpus's merges stay in its session
        self.keeper.opening_another()
        self.load(corpus, config, script, file_ids)
        self._open_note = note
        return True

    # -- training and stepping --------------------------------------------------------------

    def _active(self, group: str) -> list[Worker]:
        return [w for w in self.app.workers if w.group == group and w.state in (WorkerState.PENDING, WorkerState.RUNNING)]

    def worker_changed(self, event: Worker.StateChanged) -> None:
        group = event.worker.group
        if group == GROUP:
            self.running = bool(self._active(GROUP))
            if not self.running:
                self._tell(Change("refresh"))
        elif group == LOAD:
            self.load_worker_changed(event)

    def trained(self, message: Trained) -> None:
        self.changed.publish(Change("follow", message.done, message.final, message.each))
        if message.final:  # its objects: out of the collector's walks, once its end is drawn
            self.app.call_after_refresh(collector.settle_run)
        if message.done and not (self.lesson is not None and self.lesson.busy):
            # (a lesson's own step says so in its pane and the status line: at 80×24 the toast
            # covered the tokenize pane and the status line at each such step)
            self.say(_("training is done: {reason}").format(reason=self.stop_reason()), timeout=4)

    def stop_reason(self) -> str:
        """Why no step can be made now (the status line says it too)."""
        try:
            return self.workbench.stop_reason() or _("a stop rule holds")
        except Busy:
            return _("a stop rule holds")

    def toggle_run(self) -> None:
        if self.running:
            self.training.stop()
        elif self.workbench is not None and not self.loading:
            if self.workbench.done:
                self.say(_("training is done: {reason}").format(reason=self.stop_reason()))
                return
            self.running = True
            self.training.start(self.workbench)

    def set_speed(self, speed: float | None) -> None:
        """The run speed (merges a second; None: full speed), also while a run is live."""
        self.training.set_speed(speed)
        self.changed.publish(Change("status"))

    def run_to(self, step: int) -> None:
        """Train to ``step`` at the run speed and stop there (or where a stop rule holds first);
        a step already made (or undone and redoable) is jumped to, as `g` does."""
        if step <= self.workbench.steps:
            self.go(step)
            return
        if self.workbench.done:
            self.say(_("training is done: {reason}").format(reason=self.stop_reason()))
            return
        self._tell(Change("moved"))
        self.running = True
        self.training.start(self.workbench, until=step)

    def moved(self, nothing: str = "", event: object = True) -> None:
        """The trainer moved on the UI thread; ``nothing``: what to say when ``event`` is None."""
        if event is None:
            self.say(nothing, timeout=2)
        self._tell(Change("moved"))

    def step(self, adopt: bool = False) -> None:
        """One merge; ``adopt``: the lesson's own (its quiz's), so the lesson does not count it as
        the learner exploring."""
        event = self.workbench.step()
        if adopt and event is not None and self.lesson is not None:
            self.lesson.adopt()
        self.moved(_("nothing to step: {reason}").format(reason=self.stop_reason()) if event is None else "", event)

    def undo(self) -> None:
        self.moved(_("nothing to undo"), self.workbench.undo())

    def redo(self) -> None:
        self.moved(_("nothing to redo"), self.workbench.redo())

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
            self._tell(Change("moved"))
            self.app.call_after_refresh(self.workbench.settle)  # the rest of a restore, once shown
            return
        self._tell(Change("moved"))
        self.running = True
        self.training.jump(self.workbench, step)
