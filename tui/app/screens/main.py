"""The main screen: the corpus, the merge log, the next merge, the inspector and the tokenize
pane, kept in step with the trainer.

The lab (:class:`tui.app.lab.Lab`) owns the workbench and tells this screen when it changed,
by its signals (a new workbench, the trainer moved, a batch trained, a token to select, text to
tokenize, the lesson's view); the screen reads what each pane shows and handles the panes'
messages and the keys that act on them (find, copy, ids, trace).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Input

from engine import token_info
from engine.text import token_display
from tui.app.collector import hold_until_drawn
from tui.app.keys import KEYS, typed_actions
from tui.app.screens.branches import BranchesScreen, ManualMergeScreen
from tui.app.screens.dialogs import PromptScreen
from tui.app.widgets.candidates import Candidates
from tui.app.widgets.code_pane import CodePane
from tui.app.widgets.corpus_view import CorpusView
from tui.app.widgets.footer import FittingFooter
from tui.app.widgets.inspector import Inspector
from tui.app.widgets.lesson_pane import LessonPane
from tui.app.widgets.merge_log import MergeLog
from tui.app.widgets.status_line import StatusLine
from tui.app.widgets.tokenize_pane import TokenizePane, id_line
from tui.i18n import _, engine_message, ngettext
from tui.model.clipboard import copy_text
from tui.model.finder import find_token
from tui.model.workbench import Busy, Workbench

if TYPE_CHECKING:
    from tui.app.lab import Change, Lab
    from tui.model.driver import LessonView

#: Seconds between pane refreshes while training runs (the worker posts after every batch): at
#: least this, and more when drawing the panes takes long (see :data:`UI_SHARE`).
REFRESH_WHILE_RUNNING = 0.1
#: While a run goes at full speed, the panes' refresh and repaint may take about this share of
#: the time (they hold the interpreter the worker needs); at most :data:`SLOWEST_REFRESH` apart.
UI_SHARE = 0.15
SLOWEST_REFRESH = 0.5
#: Seconds between re-encodings of the typed text while training runs.
OUTPUT_WHILE_RUNNING = 0.25
#: The screen's actions whose keys type into a focused input (find, copy, ids, trace, ...).
TYPED = typed_actions()
#: The keys that move an open lesson: the app decides (they move it even while an input has focus).
LESSON_MOVES = {"lesson_next", "lesson_back"}


class MainScreen(Screen[None]):
    """The panes of one workbench: what training does, step by step."""

    BINDINGS = KEYS

    class Ready(Message):
        """The main screen is mounted and follows the lab: the app may load and show."""

    def __init__(self, lab: Lab) -> None:
        super().__init__()
        self.lab = lab
        self.workbench: Workbench | None = None
        self.selected: int | None = None  # the token the inspector shows
        self._last_output = 0.0
        #: Seconds between re-encodings while training runs: more when one takes long (a 128k-merge
        #: replay's tokenizer is rebuilt for each), so they keep to about UI_SHARE of the time.
        self._output_every = OUTPUT_WHILE_RUNNING
        self._last_refresh = 0.0
        self._refresh_every = REFRESH_WHILE_RUNNING

    def say(self, message: str, **kwargs) -> None:
        """A notification; never markup, since messages quote user input like "[e4 b8]". The
        engine's commonest messages (a file not found, not readable) are said in the UI's language."""
        self.notify(engine_message(message), markup=False, **kwargs)

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
            yield CodePane(id="code")
            yield LessonPane(id="lesson")
        yield StatusLine(id="status")
        yield FittingFooter()

    def on_mount(self) -> None:
        if not self.query("#corpus"):
            return  # the app quit before this screen's first frame (a browser tab closed at once): its panes are gone
        self.query_one("#corpus").border_title = _("corpus")
        self.query_one("#log").border_title = _("merge log")
        self.query_one("#candidates").border_title = _("next merge")
        self.query_one("#inspector").border_title = _("inspector")
        self.query_one("#tokenize").border_title = _("tokenize")
        self.log_view.focus()
        lab = self.lab
        lab.attached.subscribe(self, self.attach, immediate=True)
        lab.changed.subscribe(self, self._changed, immediate=True)
        lab.selected.subscribe(self, self._select_token, immediate=True)
        lab.tokenized.subscribe(self, self._tokenize, immediate=True)
        lab.lesson_shown.subscribe(self, self.show_lesson, immediate=True)
        self.post_message(self.Ready())

    def _changed(self, change: Change) -> None:
        """The lab's trainer changed (see tui.app.lab.Change)."""
        if change.kind == "moved":
            self.moved()
        elif change.kind == "refresh":
            self.refresh_views()
        elif change.kind == "status":
            self.show_status(change.text)
        else:
            self.follow(change.done, change.final, change.each)

    def _select_token(self, token: int) -> None:
        """A token to select (a lesson's, a resumed session's): highlighted in the corpus too."""
        if self.workbench is None:
            return
        self.corpus_view.highlight = token
        # a lesson's step that selects a token is about its bytes: they come into view
        self.select(token, reveal=self.lab.lesson is not None)

    def _tokenize(self, what: tuple[str | None, bool | None]) -> None:
        text, trace = what
        if trace is not None:
            self.set_trace(trace)
        if text is not None:
            self.set_tokenize_text(text)

    @property
    def corpus_view(self) -> CorpusView:
        return self.query_one(CorpusView)

    @property
    def log_view(self) -> MergeLog:
        return self.query_one(MergeLog)

    # -- keeping the panes in step with the trainer -----------------------------------------

    def attach(self, workbench: Workbench) -> None:
        """Show a workbench in every pane."""
        self.workbench = workbench
        self.selected = None
        self.log_view.sync(None)
        self.corpus_view.attach(workbench)
        if workbench.corpus.note:
            self.say(workbench.corpus.note, timeout=8)
        self.refresh_views()

    def select(self, token: int, reveal: bool = False) -> None:
        """Inspect a token (a resumed session's); the log's cursor goes to the merge that made it.
        ``reveal``: the inspector scrolls to the token's bytes and their UTF-8 roles."""
        trainer = self.workbench.trainer
        self.selected = token
        if trainer.base_size <= token < trainer.base_size + trainer.steps:  # made by a merge
            self.log_view.move_cursor(row=token - trainer.base_size, inspect=False)
        self._show_selected(reveal)

    def moved(self) -> None:
        """The trainer moved (a step, an undo, a jump): inspect its last merge again. The
        collector waits until the panes are drawn (see tui.app.collector)."""
        hold_until_drawn(self.app)
        self.selected = None
        self.refresh_views()

    def follow(self, done: bool, final: bool, each: bool = False) -> None:
        """A training batch ended: refresh a few times a second, and always at the run's end
        (and after every merge of a paced run: ``each``)."""
        if not (done or final or each) and time.monotonic() - self._last_refresh < self._refresh_every:
            return
        started = time.monotonic()
        self.refresh_views()
        if not (done or final):
            self.app.call_after_refresh(self._pace_refreshes, started)

    def _pace_refreshes(self, started: float) -> None:
        """A refresh during a run was drawn: space the next ones so that refreshing and drawing
        take about :data:`UI_SHARE` of the time (a big corpus draws slowly, and every moment
        drawing is a moment the worker is not merging)."""
        cost = time.monotonic() - started
        self._refresh_every = min(SLOWEST_REFRESH, max(REFRESH_WHILE_RUNNING, cost / UI_SHARE))

    def recolour(self) -> None:
        """The theme changed: draw every pane again in its colours."""
        self.log_view.refresh()
        self.corpus_view.refresh_tokens()
        self.refresh_views()
        self.show_lesson()  # its inline code's colours

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
            self.show_status()
            return
        try:
            with workbench.reading():
                last = workbench.trainer.last
                made = workbench.trainer.vocab_size - len(workbench.config.specials)
            self.corpus_view.highlight = last.new_id if last else None
            self.corpus_view.refresh_tokens()
            self.corpus_view.show_last_merge()  # only with follow on
            if self.selected is not None and self.selected >= made:
                self.selected = None
            self.query_one(Candidates).show(workbench)
            self._show_code()
            self._show_selected()
            self._show_output()
            self.show_status()
        except Busy:
            pass

    @property
    def showing_code(self) -> bool:
        """Whether the code view stands in for the panes (`v`)."""
        return self.has_class("with-code")

    def _show_code(self) -> None:
        if self.showing_code:
            self.query_one(CodePane).show(self.workbench)

    def show_status(self, state: str | None = None) -> None:
        """The status line: loading, running, paused or done (or ``state`` when given)."""
        if state is not None:
            self.query_one(StatusLine).show(None, state)
            return
        lab = self.lab
        state = _("loading") if lab.loading else _("running") if lab.running else _("paused")
        try:
            reason = None if lab.running or self.workbench is None else self.workbench.stop_reason()
            if reason is not None:
                state = _("done: {reason}").format(reason=reason)  # why training stopped stays on screen, not in a toast
        except Busy:
            pass
        self.query_one(StatusLine).show(self.workbench, state, lab.training.speed)

    def _show_selected(self, reveal: bool = False) -> None:
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
            overlap = self._overlap(trainer, info) if info is not None else None
        self.query_one(Inspector).show(info, workbench.id_text if workbench.script is not None else None, reveal=reveal,
                                       overlap=overlap)

    @staticmethod
    def _overlap(trainer, info) -> tuple[int, str] | None:
        """(occurrences merged, the token's left half as shown) when a pair of one token twice
        merged fewer times than it was counted: overlapping pairs all count (··· holds · + ·
        twice), a merge takes them left to right without overlap."""
        if info.born_step is None or info.count_then is None:
            return None
        event = trainer.events(info.born_step - 1, info.born_step)[0]
        merged = event.tokens_before - event.tokens_after
        left, right = event.pair
        if left != right or merged >= event.count:
            return None
        return merged, token_display(trainer.token_bytes(left), space="·")

    def _show_output(self, force: bool = False) -> None:
        pane = self.query_one(TokenizePane)
        if self.workbench is None or not pane.text:
            pane.show(None)
            return
        now = time.monotonic()
        if self.lab.running and not force and now - self._last_output < self._output_every:
            return  # while training runs, re-encode a few times a second, not per batch
        self._last_output = now
        try:
            workbench = self.workbench
            tok = workbench.tokenizer()
            pane.show(tok, (lambda ids: workbench.shown_encoded(ids, tok)) if workbench.script is not None else None)
            self._output_every = max(OUTPUT_WHILE_RUNNING, (time.monotonic() - now) / UI_SHARE)
        except Busy:  # a run or a long jump holds the trainer: show the text once it lets go
            self.set_timer(OUTPUT_WHILE_RUNNING, lambda: self._show_output(force=True))
        except ValueError as exc:  # e.g. a custom pattern that takes too long on this text
            pane.show_problem(str(exc))

    # -- the panes' messages ----------------------------------------------------------------

    @on(MergeLog.Inspect)
    def _inspect(self, message: MergeLog.Inspect) -> None:
        log = self.log_view
        if message.token_id != log.token_at(log.cursor_row):
            return  # stale: the cursor has moved on since (a find, a resumed session's token)
        self.selected = message.token_id
        try:
            self._show_selected()
        except Busy:
            pass  # shown at the next refresh

    @on(MergeLog.Jump)
    def _jump(self, message: MergeLog.Jump) -> None:
        if self.app.check_action("goto", ()):
            self.lab.go(message.step)

    @on(TokenizePane.Changed)
    def _typed(self, message: TokenizePane.Changed) -> None:
        self._show_output(force=True)

    # -- finding, copying, output -----------------------------------------------------------

    def action_find(self) -> None:
        if self.workbench is None:
            return
        workbench = self.workbench

        def done(answer: str | None) -> None:
            if not answer:
                return
            with workbench.reading():
                found = find_token(workbench.trainer, answer, workbench.our_id)
            if found is None:
                self.say(_("no token matches {answer!r}").format(answer=answer), severity="warning")
                return
            self.corpus_view.highlight = found
            self.select(found)  # the log's cursor goes to the step that made it

        self.app.push_screen(PromptScreen(_("Find a token"), placeholder=_("text, [e4 b8] bytes, or #id")), done)

    # -- manual merges and what-if branches ---------------------------------------------------

    def _can_branch(self) -> bool:
        lab = self.lab
        if self.workbench is None or lab.loading:
            self.say(_("No corpus loaded yet."), timeout=2)
        elif lab.running:
            self.say(_("Pause training first (space)."), timeout=3)
        else:
            return True
        return False

    def action_manual_merge(self) -> None:
        """m: pick the next merge from the candidates instead of the rule's choice."""
        if not self._can_branch():
            return
        workbench = self.workbench
        if workbench.script is not None:
            self.say(_("A replay makes its tokenizer's merges: manual merges are for training."), timeout=4)
            return
        try:
            with workbench.reading():
                trainer = workbench.trainer
                show = lambda i: token_display(trainer.token_bytes(i), space="·")  # noqa: E731
                rows = [(c.pair, show(c.pair[0]), show(c.pair[1]), c.count) for c in trainer.candidates(8)]
        except Busy:
            return
        if not rows:
            self.say(_("No pair can be merged now."), timeout=3)
            return

        def chosen(pair: tuple[int, int] | None) -> None:
            if pair is None:
                return
            before = len(workbench.trainer.branches)
            try:
                event = workbench.force(pair)
            except ValueError as exc:
                self.say(str(exc), severity="error", timeout=6)
                return
            self.moved()
            branches = workbench.trainer.branches
            if len(branches) > before:
                self.say(_("Manual merge {step}: started branch {name}; the old future is kept as {old} (b lists branches).")
                         .format(step=event.step, name=branches[-1].name, old=branches[-1].parent), timeout=6)
            elif event.manual:
                self.say(_("Manual merge {step}.").format(step=event.step), timeout=3)
            else:
                self.say(_("Step {step} was already that merge: redone.").format(step=event.step), timeout=3)

        self.app.push_screen(ManualMergeScreen(rows), chosen)

    def action_branches(self) -> None:
        """b: the what-if branches: list, switch, compare."""
        if not self._can_branch():
            return
        heldout = None
        try:
            from tui.model.evaluation import DEFAULT_SETTING, make_split

            setting = self.lab.heldout_setting or DEFAULT_SETTING  # as set on the analysis screen
            split = make_split(self.workbench.corpus, setting)
            heldout = (split.heldout, split.label, split.fraction is not None)
        except ValueError:
            pass  # a corpus too short to hold part of it back: the corpus alone is compared
        self.app.push_screen(BranchesScreen(self.lab, heldout))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in LESSON_MOVES:
            return self.app.check_action(action, parameters)  # `>` and `<` move a lesson, even from an input
        if action in TYPED and isinstance(self.app.focused, Input):  # this screen's, or a dialog's over it
            return False  # its key types into the input: hidden from the footer, not run
        return True

    def action_focus_input(self) -> None:
        """Type in the tokenize input, the cursor after its text (escape leaves)."""
        self.query_one("#tokenize-input", Input).focus()

    def action_copy_ids(self) -> None:
        """ctrl+y in the tokenize input: copy the ids of its text."""
        self.action_copy(ids=True)

    def action_copy(self, ids: bool = False) -> None:
        pane = self.query_one(TokenizePane)
        if ids and not pane.text:
            self.say(_("type some text first: ctrl+y copies its ids"), timeout=2)
            return
        if (ids or pane.has_focus_within) and pane.text and self.workbench is not None:
            tok = self.workbench.tokenizer()
            ids = tok.encode(pane.text)
            payload = id_line(self.workbench.shown_encoded(ids, tok))
            what = ngettext("{n} token id", "{n} token ids", len(ids)).format(n=len(ids))
        elif self.workbench is not None and (self.selected is not None or self.workbench.trainer.last):
            token = self.selected if self.selected is not None else self.workbench.trainer.last.new_id
            data = self.workbench.trainer.token_bytes(token)
            shown = self.workbench.id_text(token)  # a replayed file's id
            payload = f"{shown}\t{data.hex(' ')}"
            what = _("token {id}").format(id=shown)
        else:
            self.say(_("nothing to copy yet"), timeout=2)
            return
        how = copy_text(payload, self.lab.clipboard_fn, self.app.copy_to_clipboard)
        self.say(_("copied {what} ({clipboard})").format(what=what, clipboard=how), timeout=3)

    def action_toggle_code(self) -> None:
        """v: the code beside the merge in place of the panes, or the panes again."""
        self.set_class(not self.showing_code, "with-code")
        if self.showing_code:
            self.query_one(CodePane).step = None  # drawn afresh: scrolled to its marked line
            self._show_code()
            self.query_one("#code-scroll").focus()
        else:
            self.log_view.focus()

    def action_toggle_ids(self) -> None:
        self.corpus_view.show_ids = not self.corpus_view.show_ids

    def action_toggle_wrap(self) -> None:
        self.corpus_view.action_toggle_wrap()
        self.lab.say(_("corpus: lines wrap at the pane's width") if self.corpus_view.wrap
                         else _("corpus: one row per line (scroll sideways)"), timeout=3)

    def action_toggle_follow(self) -> None:
        view = self.corpus_view
        view.follow = not view.follow
        view.show_last_merge()
        self.lab.say(_("corpus: follows the last merged token") if view.follow
                         else _("corpus: stays where you scroll it"), timeout=3)

    def action_mark_surprise(self) -> None:
        """!: keep the tokenize pane's text as a surprise; a lesson's hand-in lists each, through
        every tokenizer it used (tui.lessons.real)."""
        text = self.query_one(TokenizePane).text
        if not text.strip():
            self.say(_("type a text in the tokenize pane first (e), then press ! to mark it"), timeout=4)
            return
        marked = self.app.lab.surprises
        if text not in marked:
            marked.append(text)
        self.say(_("marked as a surprise ({n} so far): the lab lesson's last step writes them to hand in").format(
            n=len(marked)), timeout=4)

    def action_toggle_trace(self) -> None:
        pane = self.query_one(TokenizePane)
        pane.trace = not pane.trace
        self._show_output(force=True)

    def action_focus_log(self) -> None:
        self.log_view.focus()

    # -- the lesson pane ----------------------------------------------------------------------

    def show_lesson(self, view: LessonView | None = None) -> None:
        """Bring the lesson pane up to the lab's lesson view (shown while a lesson is open and
        the lab shows its pane: `l` hides it)."""
        pane = self.query_one(LessonPane)
        lab = self.lab
        view = lab.lesson_view
        visible = view is not None and lab.lesson_pane_shown
        if pane.has_class("shown") != visible:
            pane.set_class(visible, "shown")
            self.set_class(visible, "with-lesson")
        if visible:
            pane.show(view)

    def set_trace(self, on: bool) -> None:
        """The tokenize pane's rule-by-rule trace on or off (a lesson's ``trace``)."""
        pane = self.query_one(TokenizePane)
        pane.trace = on
        self._show_output(force=True)

    def set_tokenize_text(self, text: str) -> None:
        """Put ``text`` in the tokenize input, as if typed (a lesson's ``tokenize``)."""
        self.query_one("#tokenize-input", Input).value = text
        self._show_output(force=True)
