"""The analysis screen: curve, vocabulary, held-out, baselines, compare text, tie rules.

It follows training by the lab's signals (:class:`tui.app.lab.Lab`: a new workbench, the trainer
moved, a batch trained), at most a few redraws a second while a run goes, and redraws only the
visible tab. While a lesson is open, its pane stays beside the tabs. Reads of the trainer from the UI thread take
the workbench lock briefly or not at all; anything slow (a trainer on the training part, the
baselines, the tie-rule runs, loading a tokenizer file) runs in a thread worker that posts back.

The app imports this module at start-up, but the screen opens only on a key: its panes, tabs and
engine.analysis (with the formats the compare pane reads) are imported when it is first built,
which keeps them out of the time to the app's first frame (tests/bench/bench_start.py).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Input

from engine import Tokenizer
from tui.app.theme import current
from tui.app.widgets.footer import FittingFooter
from tui.i18n import N_, _
from tui.model.confine import abandon, confined_setting, default_name, deliver, output_path
from tui.model.tabs import TABS as TAB_LIST
from tui.model.workbench import Workbench

if TYPE_CHECKING:
    from textual.widgets import TabbedContent

    from engine.analysis import BpeSegmenter, Row, Segmenter, Table
    from tui.app.lab import Change, Lab
    from tui.app.widgets.heldout_pane import HeldOutPane
    from tui.model.driver import LessonView
    from tui.model.evaluation import Evaluated, Evaluation

#: Tab ids and titles (their one list: tui.model.tabs); keys 1-6 switch to them.
TABS = tuple((tab.id, tab.title) for tab in TAB_LIST)
POLL = 0.25  # while training runs, seconds between redraws of the visible tab


class AnalysisScreen(Screen[None]):
    """Seeing why: the numbers and comparisons the seeds teach with, on this corpus, live."""

    BINDINGS = [
        Binding("escape", "close", N_("Back")),
        Binding("a", "close", N_("Back"), show=False),
        *(Binding(str(i + 1), f"tab('{tab}')", title, show=False) for i, (tab, title) in enumerate(TABS)),
        Binding("l", "log_scale", N_("Log scale"), show=False),
        Binding("b", "retrain_baselines", N_("Retrain baselines"), show=False),
        Binding("p", "next_sentence", N_("Next sentence"), show=False),
        Binding("d", "diff", N_("Diff two tokenizers"), show=False),
        Binding("x", "export", N_("Export"), show=False),
    ]

    @dataclass
    class EvaluationDone(Message):
        evaluation: Evaluation
        requested: int
        result: Evaluated | None
        error: str | None = None

    @dataclass
    class BaselinesDone(Message):
        evaluation: Evaluation
        vocab_size: int
        rows: list[Row]
        segmenters: list[Segmenter]
        error: str | None = None

    def __init__(self, lab: Lab, tab: str = "curve", text: str | None = None, add: tuple[str, ...] = ()) -> None:
        """``text``: put in the compare tab's input (a lesson's); ``add``: tokenizers (names or
        files) the compare tab adds."""
        super().__init__()
        self.lab = lab
        self.workbench: Workbench = lab.workbench
        self.initial = tab if tab in dict(TABS) else "curve"
        from tui.app.screens.analysis_tabs import make_tabs

        #: The tabs, one object each (tui/app/screens/analysis_tabs.py), in the tab list's order.
        self.tabs = make_tabs(self)
        self._text = text
        self._add = add
        self._last_poll = 0.0
        self._poll_timer = None
        self._reset()

    def _reset(self) -> None:
        self.evaluation: Evaluation | None = None
        self.evaluation_error: str | None = None
        self.evaluated: Evaluated | None = None
        self._evaluating = False
        self.baselines: tuple[Evaluation, int, list[Row], list[Segmenter]] | None = None
        self._baselines_pending: Evaluation | None = None
        self._bpe: tuple[tuple, Tokenizer] | None = None
        self._key: tuple | None = None

    # -- layout -----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        from tui.app.widgets.lesson_pane import LessonPane

        if self.lab.lesson is None:
            yield from self._tabs()
        else:  # the lesson's text and claims stay in view beside the tabs
            with Horizontal(id="analysis-body"):
                yield from self._tabs()
                yield LessonPane(id="analysis-lesson")
        yield FittingFooter()

    def _tabs(self) -> ComposeResult:
        from textual.lazy import Lazy
        from textual.widgets import TabbedContent, TabPane

        with TabbedContent(initial=self.initial, id="analysis-tabs"):
            for number, tab in enumerate(self.tabs, 1):
                with TabPane(f"{number} {_(tab.title)}", id=tab.id):
                    if tab.id == self.initial:
                        yield from tab.compose()
                    else:  # hidden at first: mounted just after the first frame (docs/benchmarks.md)
                        for widget in tab.compose():
                            yield Lazy(widget)

    def on_mount(self) -> None:
        lab = self.lab
        lab.attached.subscribe(self, self._attached, immediate=True)
        lab.changed.subscribe(self, self._changed, immediate=True)
        lab.analysis.subscribe(self, self._asked, immediate=True)
        lab.lesson_shown.subscribe(self, self.show_lesson, immediate=True)
        self.show_lesson()
        if self._text is not None:
            self.set_compare_text(self._text)
        if self._add:
            self.add_compare_tokenizers(self._add)
        self.poll(force=True)

    def on_unmount(self) -> None:
        """Closed: let go of the held-out trainer, the baselines and the tokenizers now (the
        screen is made anew on each `a`), so the app's memory goes back to what the main screen
        holds instead of waiting for the collector (frozen after a load: tui/app/collector.py)."""
        for evaluation in (self.evaluation, self._baselines_pending):
            if evaluation is not None:
                evaluation.release()
        self._reset()
        if self.workbench.memory is not None:  # a served tab: the memory goes back to the machine
            from tui.model.budget import give_back

            give_back()

    # -- what the lab says --------------------------------------------------------------------

    def _attached(self, workbench: Workbench) -> None:
        self.poll(force=True)

    def _changed(self, change: Change) -> None:
        """The trainer moved: redraw now, or while a run goes at most every POLL seconds (and
        always at its end)."""
        if change.kind == "status":
            return
        if change.kind == "follow" and not (change.done or change.final):
            wait = POLL - (time.monotonic() - self._last_poll)
            if wait > 0:
                if self._poll_timer is None:
                    self._poll_timer = self.set_timer(wait, self._timed_poll)
                return
        self.poll()

    def _timed_poll(self) -> None:
        self._poll_timer = None
        self.poll()

    def _asked(self, asked: tuple[str, str | None, tuple[str, ...]]) -> None:
        """The lab (a lesson) asks for a tab, with text for its input and tokenizers to add."""
        tab, text, add = asked
        self.show_tab(tab)
        if text is not None:
            self.set_compare_text(text)
        if add:
            self.add_compare_tokenizers(add)

    def add_compare_tokenizers(self, names: tuple[str, ...], tries: int = 50) -> None:
        """Add tokenizers (names or files) to the compare tab, as if typed into its second input,
        each once; like :meth:`set_compare_text` this waits for the tab's panes."""
        from tui.app.widgets.compare_pane import ComparePane

        pane = next(self.query(ComparePane).results(), None)
        if pane is None:
            if tries > 0:
                self.call_after_refresh(self.add_compare_tokenizers, names, tries - 1)
            return
        for name in names:
            pane.add(name)

    def set_compare_text(self, text: str, tries: int = 50) -> None:
        """Put ``text`` in the compare tab's input, as if typed (the input takes no focus); the
        tab's panes are made after the screen mounts, so this waits a refresh or a few for them."""
        found = self.query("#compare-text").results(Input)
        field = next(found, None)
        if field is None:
            if tries > 0:
                self.call_after_refresh(self.set_compare_text, text, tries - 1)
            return
        field.value = text

    def show_lesson(self, view: LessonView | None = None) -> None:
        """The lesson's pane beside the tabs while a lesson is open (`l` hides it)."""
        from tui.app.widgets.lesson_pane import LessonPane

        lab = self.lab
        panes = self.query("#analysis-lesson").results(LessonPane)
        pane = next(panes, None)
        if pane is None:
            return
        visible = lab.lesson_view is not None and lab.lesson_pane_shown
        if pane.has_class("shown") != visible:
            pane.set_class(visible, "shown")
            self.set_class(visible, "with-lesson")
        if visible:
            pane.show(lab.lesson_view)

    def pane(self, selector: str):
        """The widget ``selector`` names, or None: the tabs not shown first are mounted just
        after the screen's first frame (textual.lazy.Lazy), and are not there until then."""
        return next(iter(self.query(selector)), None)

    def tab(self, tab_id: str):
        """The tab object of ``tab_id``."""
        return next(tab for tab in self.tabs if tab.id == tab_id)

    @property
    def active_tab(self) -> str:
        return self.query_one("#analysis-tabs").active

    def show_tab(self, tab: str) -> None:
        """Switch to a tab by id."""
        if tab in dict(TABS):
            self.query_one("#analysis-tabs").active = tab

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        # Not forced: the tab is part of what poll compares, and the first tab's activation,
        # just after on_mount drew it, drew it again (on tang_all trained to the end: the curve
        # computed and plotted twice before the screen settled, ~30 ms).
        self.poll()
        if event.pane.id == "compare" and self.lab.lesson is None:  # typing goes to the text to compare
            field = self.pane("#compare-text")
            if field is not None:
                field.focus()

    # -- following the trainer --------------------------------------------------------------

    def poll(self, force: bool = False) -> None:
        """Redraw the visible tab when the step moved (or when forced)."""
        self._last_poll = time.monotonic()
        current = self.lab.workbench
        if current is not None and current is not self.workbench:
            self.workbench = current  # another corpus or settings: start over on it
            self._reset()
            force = True
        trainer = self.workbench.trainer
        key = (self.active_tab, trainer.steps, trainer.last.pair if trainer.last else None)
        if key == self._key and not force:
            return
        if self.tab(self.active_tab).refresh():
            self._key = key
        elif self._poll_timer is None:  # the trainer was busy: try again soon
            self._poll_timer = self.set_timer(POLL, self._timed_poll)

    # -- held-out evaluation ----------------------------------------------------------------

    def ensure_evaluation(self) -> Evaluation | None:
        if self.evaluation is None and self.evaluation_error is None:
            from tui.model.evaluation import DEFAULT_SETTING

            field = self.pane("#heldout-setting")  # None for a moment: the tab is mounted lazily
            self.set_heldout((field.value if field is not None else "") or DEFAULT_SETTING)
        return self.evaluation

    def set_heldout(self, setting: str) -> None:
        """Use another held-out text (a file, or a share of the corpus)."""
        from tui.model.evaluation import Evaluation

        try:
            setting = confined_setting(self.app, setting)
            self.evaluation, self.evaluation_error = Evaluation(self.workbench, setting), None
            self.lab.heldout_setting = setting  # the what-if branches compare on it too
        except ValueError as exc:
            self.evaluation, self.evaluation_error = None, str(exc)
        self.evaluated, self.baselines = None, None

    def request_evaluation(self) -> None:
        evaluation = self.ensure_evaluation()
        if evaluation is None or self._evaluating:
            return  # when the running one reports, a newer step is asked for again
        self._evaluating = True
        self._evaluate(evaluation, self.workbench.trainer.steps)

    @work(thread=True, group="analysis-evaluate", exit_on_error=False)
    def _evaluate(self, evaluation: Evaluation, step: int) -> None:
        try:
            result = evaluation.evaluate(step)
        except Exception as exc:  # a bad held-out file shows in the tab, never crashes the app
            self.post_message(self.EvaluationDone(evaluation, step, None, str(exc)))
            return
        self.post_message(self.EvaluationDone(evaluation, step, result))

    @on(EvaluationDone)
    def _evaluation_done(self, message: EvaluationDone) -> None:
        self._evaluating = False
        if message.evaluation is not self.evaluation:
            self.request_evaluation()
            return
        self.evaluation_error = message.error
        if message.result is not None:
            self.evaluated = message.result
        if message.requested != self.workbench.trainer.steps and self.active_tab in ("heldout", "baselines"):
            self.request_evaluation()
        self.render_heldout()
        self.render_baselines()

    def render_heldout(self) -> None:
        from tui.app.widgets.heldout_pane import render_report

        pane = self.pane("#heldout-pane")
        if pane is None:  # not mounted yet (lazily): drawn when its tab shows
            return
        if self.evaluation_error is not None:
            pane.show(Text(self.evaluation_error, style=current().error))
        elif self.evaluated is None or self.evaluation is None:
            pane.show(Text(_("measuring …"), style="italic dim"))
        else:
            pane.show(render_report(self.evaluated, self.evaluation.label, self.workbench.trainer.steps))

    def on_held_out_pane_changed(self, message: HeldOutPane.Changed) -> None:
        self.set_heldout(message.setting)
        self.poll(force=True)

    # -- baselines --------------------------------------------------------------------------

    def target_vocab(self) -> int:
        """The vocabulary the baselines aim at: the training target, else the current size."""
        trainer = self.workbench.trainer
        target = trainer.target_merges
        if target is None:
            return trainer.vocab_size
        return trainer.base_size + target + len(trainer.config.specials)

    def ensure_baselines(self, vocab_size: int | None = None) -> None:
        evaluation = self.ensure_evaluation()
        if evaluation is None or self._baselines_pending is evaluation:
            return
        have = self.baselines
        if have is not None and have[0] is evaluation and vocab_size in (None, have[1]):
            return
        self._baselines_pending = evaluation
        self._train_baselines(evaluation, vocab_size or self.target_vocab())

    @work(thread=True, group="analysis-baselines", exit_on_error=False)
    def _train_baselines(self, evaluation: Evaluation, vocab_size: int) -> None:
        from engine.analysis import baseline_rows

        try:
            built = evaluation.baselines(vocab_size)
            split = evaluation.split
            rows = baseline_rows(built, split.train, split.heldout)
        except (Exception, MemoryError) as exc:  # never "training the baselines …" for ever
            self.post_message(self.BaselinesDone(evaluation, vocab_size, [], [], f"{type(exc).__name__}: {exc}"))
            return
        segmenters = [b.segmenter for b in built if b.segmenter is not None]
        self.post_message(self.BaselinesDone(evaluation, vocab_size, rows, segmenters))

    @on(BaselinesDone)
    def _baselines_done(self, message: BaselinesDone) -> None:
        if self._baselines_pending is message.evaluation:
            self._baselines_pending = None
        if message.error is not None:
            self.app.notify(_("no baselines: {reason}").format(reason=message.error), severity="error", markup=False)
        if message.evaluation is self.evaluation:
            self.baselines = (message.evaluation, message.vocab_size, message.rows, message.segmenters)
        self.render_baselines()
        if self.active_tab == "compare":
            self.render_compare()

    def render_baselines(self) -> None:
        pane = self.pane("#baselines-pane")
        if pane is None:
            return
        if self.evaluation is None:
            pane.show([], self.evaluation_error or _("none"), None)
            return
        rows: list[Row] = []
        if self.evaluated is not None:
            bpe = self.evaluated.row
            rows.append(replace(bpe, name=_("bpe (step {step})").format(step=self.evaluated.step)))
        have = self.baselines
        pending = None
        if have is not None and have[0] is self.evaluation:
            rows += have[2]
        if self._baselines_pending is not None:
            pending = _("training the baselines (WordPiece and Unigram use the tokenizers library's trainers) …")
        pane.show(rows, self.evaluation.label, have[1] if have else None, pending, self.evaluation.baseline_part)

    def action_retrain_baselines(self) -> None:
        self.ensure_baselines(self.workbench.trainer.vocab_size)
        self.render_baselines()

    # -- compare text -----------------------------------------------------------------------

    def bpe_segmenter(self) -> BpeSegmenter | None:
        """The current step's tokenizer (cached per step); None when the trainer is busy."""
        from engine.analysis import BpeSegmenter
        from tui.model.evaluation import reading

        trainer = self.workbench.trainer
        key = (id(self.workbench), trainer.steps, trainer.last.pair if trainer.last else None)
        if self._bpe is None or self._bpe[0] != key:
            with reading(self.workbench) as ok:
                if not ok:
                    return None
                self._bpe = (key, self.workbench.tokenizer())  # the app's, cached for the step
        return BpeSegmenter(self._bpe[1], _("bpe (step {step})").format(step=key[1]))

    def render_compare(self) -> bool:
        bpe = self.bpe_segmenter()
        if bpe is None:
            return False
        if self.baselines is None:
            segmenters = []
            note = (_("no baselines: {reason}").format(reason=self.evaluation_error) if self.evaluation_error
                    else _("training the baselines …"))
        else:
            segmenters = self.baselines[3]
            note = "\n".join(f"{row.name}: {row.note}" for row in self.baselines[2] if row.note)
        pane = self.pane("#compare-pane")
        if pane is None:
            return False
        pane.show(bpe, segmenters, note, self.workbench.corpus.text)
        return True

    def recolour(self) -> None:
        """The theme changed: draw the visible tab again in its colours (the others are drawn
        when they are shown)."""
        self.poll(force=True)
        curve = self.pane("#curve-pane")
        if curve is not None:
            curve.refresh()
        self.show_lesson()  # its inline code's colours

    # -- export -----------------------------------------------------------------------------

    def export_tables(self) -> list[Table] | None:
        """What the tabs show, as tables: the curve, the composition, the merge log and (once
        measured) the held-out numbers; None while the training worker holds the trainer."""
        from tui.model.evaluation import reading

        with reading(self.workbench) as ok:
            if not ok:
                return None
            return [table for tab in self.tabs for table in tab.export(self.workbench.trainer)]

    def action_export(self) -> None:
        """``x``: the tables as CSV and JSON, and the curve and composition as SVG figures, into
        ``$BPE_LAB_EXPORTS`` or ``./bpe-lab-exports/<corpus>-step<N>/``; a message names the folder."""
        tables = self.export_tables()
        if tables is None:
            self.app.say(_("training holds the trainer: press x again when it pauses"), timeout=4)
            return
        stem = Path(self.workbench.corpus.name).stem or "corpus"
        root = Path(os.environ.get("BPE_LAB_EXPORTS") or "bpe-lab-exports")
        try:  # in a browser (bpe-lab serve): only inside the served folder
            named = default_name(self.app, str(root / f"{stem}-step{self.workbench.trainer.steps}"))
            folder = output_path(self.app, named, folder=True).resolve()
        except (ValueError, OSError) as exc:
            reason = exc if isinstance(exc, ValueError) else f"{named}: {exc.strerror or exc}"
            self.app.say(_("not exported: {reason}").format(reason=reason), title=_("Export"), severity="error", timeout=8)
            return
        self._write_export(tables, folder)

    @work(thread=True, group="analysis-export", exit_on_error=False)
    def _write_export(self, tables: list[Table], folder: Path) -> None:
        """All or nothing, as ``train --export``: the figures are drawn first, then the tables
        and figures are written as one set (engine.corpus.files.atomic_write_files); a failure leaves none
        of them, and no folder this export made."""
        from engine.analysis import PlotsUnavailable, figure_bytes, write_tables

        figures_note = _("and the curve and composition as SVG")
        rules = getattr(self.app, "confinement", None)
        made = not folder.exists() or (rules is not None and folder in rules.claimed)  # this export's
        try:
            try:
                figures = [(f"{table.name}.svg", figure_bytes(table, folder / f"{table.name}.svg"))
                           for table in tables[:2]]
            except PlotsUnavailable as exc:
                figures, figures_note = [], _("no figures: {hint}").format(hint=exc)
            written = write_tables(folder, tables, figures)
        except (ValueError, OSError) as exc:  # WriteError: one line naming the file
            if made:
                _remove_empty(folder)
                self.app.call_from_thread(abandon, self.app, folder)
            reason = exc if isinstance(exc, ValueError) else (exc.strerror or exc)
            self.app.say(_("not exported: {reason}").format(reason=reason), title=_("Export"), severity="error", timeout=8)
            return
        self.app.say(_("exported {count} files to {folder} ({figures})").format(count=len(written), folder=folder,
                                                                                   figures=figures_note),
                     title=_("Export"), timeout=8)
        for path in written:  # in a browser, each file also arrives as a download
            self.app.call_from_thread(deliver, self.app, Path(path))

    def action_diff(self) -> None:
        """``d``: the compare tab's diff of two tokenizers (the next pair, then the text again)."""
        self.show_tab("compare")
        pane = self.pane("#compare-pane")
        if pane is not None:
            pane.next_diff()

    def action_next_sentence(self) -> None:
        pane = self.pane("#compare-pane")
        if pane is not None:
            pane.next_sentence()

    # -- keys -------------------------------------------------------------------------------

    def action_tab(self, tab: str) -> None:
        self.show_tab(tab)

    def action_log_scale(self) -> None:
        pane = self.pane("#curve-pane")
        if pane is not None:
            pane.log_x = not pane.log_x

    def action_close(self) -> None:
        """Escape (or `a`): leave an input line first (its keys are the screen's again), else
        go back to the main screen."""
        if isinstance(self.focused, Input):
            self.set_focus(None)
            return
        self.dismiss(None)


def _remove_empty(folder: Path) -> None:
    """Remove ``folder`` (made by an export that then failed) if it is empty."""
    try:
        folder.rmdir()
    except OSError:
        pass
