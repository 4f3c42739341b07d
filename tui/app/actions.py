"""The app's key actions (``app.step``, ``app.open``, ...): thin, each asks the lab or opens a dialog.

:class:`Actions` is a part of :class:`tui.app.shell.BpeApp` (a mixin: Textual finds ``app.X``
keys' actions on the app); it reads ``self.lab`` (:class:`tui.app.lab.Lab`) and never a screen's
insides.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from engine import Tokenizer, TrainConfig
from tui.app.screens.dialogs import ConfirmScreen, PromptScreen
from tui.i18n import _
from tui.model.confine import abandon, default_name, deliver, output_path
from tui.model.pacing import faster, slower
from tui.model.samples import sample_settings
from tui.model.workbench import LoadedCorpus

if TYPE_CHECKING:
    from tui.app.lab import Lab


class Actions:
    """The actions of the app-wide keys; see tui.app.keys."""

    lab: Lab

    # -- training and stepping --------------------------------------------------------------

    def action_toggle_run(self) -> None:
        self.lab.toggle_run()

    def action_faster(self) -> None:
        """A faster run speed (also while a run is live)."""
        self.lab.set_speed(faster(self.lab.training.speed))

    def action_slower(self) -> None:
        """A slower run speed, so a class can watch each merge (also while a run is live)."""
        self.lab.set_speed(slower(self.lab.training.speed))

    # ``via`` is "arrow" for the arrow keys: check_action lets a non-wrapping corpus pane keep them.
    def action_step(self, via: str = "") -> None:
        self.lab.step()

    def action_undo(self, via: str = "") -> None:
        self.lab.undo()

    def action_redo(self, via: str = "") -> None:
        self.lab.redo()

    def action_jump(self, delta: int) -> None:
        self.lab.go(self.lab.workbench.steps + delta)

    def go(self, step: int) -> None:
        self.lab.go(step)

    def action_goto(self) -> None:
        self._ask_step(_("Go to step"), self.step_range(), self.lab.go)

    def step_range(self) -> str:
        """The steps one can go to, for the go-to dialog: 0 to the merge target, or without
        one, 0 to the last step made so far (undone ones included), and beyond by training."""
        trainer = self.lab.workbench.trainer
        target = trainer.target_merges
        if target is not None:
            return f"0 … {target}"
        made = trainer.steps + len(trainer.future)
        return _("0 … {last} (made so far; more trains on)").format(last=made)

    def action_run_to(self) -> None:
        target = self.lab.workbench.trainer.target_merges
        hint = _("up to {target}").format(target=target) if target is not None else _("a step ahead")
        self._ask_step(_("Run to step (at the run speed; +/- change it)"), hint, self.lab.run_to)

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

    def action_resume_found(self) -> None:
        """``R``: resume the session found on this corpus at launch or open."""
        self.lab.resume_found()

    # -- screens ----------------------------------------------------------------------------

    def action_analysis(self, tab: str = "curve") -> None:
        """Open the analysis screen (curve, vocabulary, held-out, baselines, compare, tie rules)."""
        self.show_tab(tab)

    def show_tab(self, tab: str | None, *, text: str | None = None, add: tuple[str, ...] = ()) -> None:
        """The analysis screen at ``tab`` (``text`` in its compare input); None: back to the main
        screen, closing the analysis screen and the quiz (the lab's show_tab comes here)."""
        from tui.app.screens.analysis import AnalysisScreen
        from tui.app.screens.quiz import QuizScreen

        lab = self.lab
        if tab is None:
            while isinstance(self.screen, (AnalysisScreen, QuizScreen)):
                self.pop_screen()
            return
        if lab.workbench is None or lab.loading:
            self.say(_("no corpus loaded yet"), timeout=2)
        elif isinstance(self.screen, AnalysisScreen):
            lab.analysis.publish((tab, text, add))
        else:
            while isinstance(self.screen, QuizScreen):
                self.pop_screen()
            self.push_screen(AnalysisScreen(lab, tab, text, add))

    def action_help(self) -> None:
        from tui.app.screens.help import HelpScreen

        self.push_screen(HelpScreen())

    def cannot_quiz(self) -> str | None:
        """Why the quiz cannot start now (one sentence), or None."""
        lab = self.lab
        if lab.workbench is None or lab.loading:
            return _("No corpus is loaded yet.")
        if lab.running:
            return _("Pause training first (space): the quiz makes one merge a round.")
        if lab.script is not None:
            return _("The quiz predicts the tie rule's merges; a replay makes its file's merges instead.")
        if self.screen is not self.screen_stack[0]:
            return _("The quiz runs on the main screen: go back there first.")
        return None

    def start_quiz(self, mode: str = "shuffled", *, for_lesson: bool = False) -> bool:
        """Open the quiz in ``mode`` (``shuffled``, ``hidden`` or ``typed``; see tui.model.quiz),
        or switch an open quiz to it. Each round ends with QuizAnswered posted to the app; the
        lab's ``quiz_score`` keeps the session's score. False (and a message) when it cannot start.
        ``for_lesson``: a lesson's step asks for it (its merges are the lesson's)."""
        from tui.app.screens.quiz import QuizScreen

        if isinstance(self.screen, QuizScreen):
            self.screen.for_lesson = self.screen.for_lesson or for_lesson
            self.screen.set_mode(mode)
            return True
        reason = self.cannot_quiz()
        if reason is not None:
            self.say(reason, timeout=4)
            return False
        self.push_screen(QuizScreen(self.lab, mode, self.lab.quiz_seed, for_lesson=for_lesson))
        return True

    def action_quiz(self, mode: str = "shuffled") -> None:
        """``p``: predict the next merge (a quiz; ``p`` or escape leaves it)."""
        self.start_quiz(mode)

    def deliver_screenshot(self, filename: str | None = None, path: str | None = None,
                           time_format: str | None = None) -> str | None:
        """The palette's Screenshot: an SVG in ``$BPE_LAB_SCREENSHOTS`` or the working folder
        (Textual's default, ~/Downloads, often does not exist), and the message names the file."""
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

    # -- lessons ------------------------------------------------------------------------------

    def start_lesson(self, lesson, note: str | None = None) -> None:
        """Play ``lesson`` (a tui.lessons.format.Lesson) from its introduction, in a pane beside the others."""
        self.lab.start_lesson(lesson, note)

    def action_lessons(self) -> None:
        """`l`: the list of lessons; with a lesson open, hide or show its pane."""
        if self.lab.lesson is not None:
            self.lab.toggle_lesson_pane()
            return
        from tui.app.screens.lessons import LessonListScreen

        def chosen(picked) -> None:
            if picked is not None:
                lesson, note = picked
                self.start_lesson(lesson, note)

        self.push_screen(LessonListScreen(self.lesson_lang), chosen)

    def action_lesson_next(self) -> None:
        if self.lab.lesson is not None:
            self.lab.toggle_lesson_pane(shown=True)
            self.lab.lesson.next()

    def action_lesson_back(self) -> None:
        if self.lab.lesson is not None:
            self.lab.toggle_lesson_pane(shown=True)
            self.lab.lesson.back()

    def action_lesson_restart(self) -> None:
        if self.lab.lesson is not None:
            self.lab.toggle_lesson_pane(shown=True)
            self.lab.lesson.restart()

    def action_lesson_scroll(self, pages: int) -> None:
        """`J` and `K`: the lesson's text a page down or up, on whichever screen shows it."""
        from textual.containers import VerticalScroll

        if self.lab.lesson is None:
            return
        self.lab.toggle_lesson_pane(shown=True)
        scroll = next(iter(self.screen.query("#lesson-scroll").results(VerticalScroll)), None)
        if scroll is None:
            return
        if pages > 0:
            scroll.scroll_page_down(animate=False)
        else:
            scroll.scroll_page_up(animate=False)

    def action_lesson_end(self) -> None:
        """`E`: leave the lesson; training stays where it left it, and sessions act as ever."""
        if self.lab.lesson is None:
            self.say(_("no lesson is open (l lists them)"), timeout=3)
            return
        title = self.lab.lesson.lesson.title
        self.lab.end_lesson()
        self.say(_("lesson ended: {title}").format(title=title), timeout=4)

    # -- files ------------------------------------------------------------------------------

    def action_save(self) -> None:
        workbench = self.lab.workbench
        stem = Path(workbench.corpus.name).stem or "tokenizer"
        default = default_name(self, f"{stem}-{workbench.trainer.vocab_size}", ".json")  # in a browser: this tab's own

        def done(answer: str | None) -> None:
            if not answer:
                return
            try:
                target = output_path(self, answer)
                workbench.save(target)
            except (OSError, ValueError) as exc:
                abandon(self, answer)  # in a browser: the name claimed for it is let go
                reason = getattr(exc, "strerror", None) or str(exc)
                self.say(_("not saved: {path}: {reason}").format(path=answer, reason=reason), severity="error", timeout=8)
                return
            self.say(_("saved {path} (vocabulary {size})").format(path=answer, size=workbench.trainer.vocab_size), timeout=4)
            deliver(self, target)

        self.push_screen(PromptScreen(_("Save tokenizer (native JSON)"), value=default), done)

    def action_open(self) -> None:
        from tui.app.screens.open_corpus import OpenScreen

        dialog = OpenScreen()

        def chosen(source: str | None) -> None:
            if source:
                keep = dialog.keep_settings
                question = (_("Open the bundled sample {name}?").format(name=source[7:]) if source.startswith("sample:")
                            else _("Open {path}?").format(path=source))
                self._confirm_then(question, lambda: self._open(source, keep), self.lab.merges_fate(leaving=True))

        self.push_screen(dialog, chosen)

    def _open(self, source: str, keep_settings: bool = False) -> None:
        """Open a corpus file (with the current settings) or ``sample:NAME`` (with its example's
        settings, unless ``keep_settings``); a replay keeps replaying its tokenizer."""
        lab = self.lab
        config, note = lab.config, None
        if source.startswith("sample:") and lab.script is None:
            config, note = sample_settings(source, lab.config, keep_settings)
        current = config is lab.config  # a file, or a sample keeping the current settings
        lab.open_with(source, config, lab.script, lab.file_ids, note, current=current)

    def open_with(self, source: str, config: TrainConfig, script: Tokenizer | None = None,
                  file_ids: list[int | None] | None = None) -> bool:
        return self.lab.open_with(source, config, script, file_ids)

    def action_settings(self) -> None:
        from tui.app.screens.settings import SettingsScreen

        def chosen(config: TrainConfig | None) -> None:
            if config is None or config == self.lab.config:
                return
            self._confirm_then(_("Restart training with the new settings?"), lambda: self._restart(config))

        self.push_screen(SettingsScreen(self.lab.config, self.lab.training.speed, self.lab.set_speed), chosen)

    def _restart(self, config: TrainConfig) -> None:
        lab = self.lab
        corpus = lab.workbench.corpus
        if config.base != lab.config.base:
            try:  # units and line offsets depend on the base
                corpus = LoadedCorpus.open(corpus.source, config.base)
            except ValueError as exc:
                self.say(str(exc), severity="error")
                return
        if lab.script is not None:
            self.say(_("training with your settings now, no longer replaying the imported tokenizer"), timeout=6)
        if config.base != lab.config.base:
            lab.base_chosen = True  # a base the user chose: a CJK corpus opened next keeps it
        lab.load(corpus, config)  # the config and mode change only if the new trainer builds

    def _confirm_then(self, question: str, then: Callable[[], None], fate: str | None = None) -> None:
        """Run ``then`` at once, or after a yes when there is unsaved work; ``fate`` says what
        becomes of the merges (default: lost)."""
        if not self.lab.unsaved:
            then()
            return
        self.push_screen(
            ConfirmScreen(question + "\n" + (fate or _("The merges since your last save will be lost."))),
            lambda yes: then() if yes else None,
        )
