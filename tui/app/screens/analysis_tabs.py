"""The analysis screen's tabs: one class a tab, all from one base (id, title, panes, refresh,
export), in the order of the one tab list (:data:`tui.model.tabs.TABS`).

A tab composes its panes, redraws them for the trainer's step (``refresh``: False when the trainer
was busy, so the screen tries again soon) and gives the tables ``x`` exports. The screen
(:class:`tui.app.screens.analysis.AnalysisScreen`) holds what tabs share: the held-out evaluation,
the baselines, the cached tokenizer. Adding a tab: a row in tui/model/tabs.py and a class here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.containers import VerticalScroll

from tui.model.tabs import TABS

if TYPE_CHECKING:
    from textual.app import ComposeResult
    from textual.screen import Screen as AnalysisScreen  # the analysis screen (typed loosely: no cycle)

    from engine import Trainer
    from engine.analysis import Table


class AnalysisTab:
    """One tab of the analysis screen."""

    id: ClassVar[str]

    def __init__(self, screen: AnalysisScreen) -> None:
        self.screen = screen

    @property
    def title(self) -> str:
        """The tab's title, untranslated (the screen says it in the UI's language)."""
        return next(tab.title for tab in TABS if tab.id == self.id)

    def compose(self) -> ComposeResult:
        """The tab's panes."""
        raise NotImplementedError

    def refresh(self) -> bool:
        """Redraw for the trainer's current step; False when the trainer was busy."""
        raise NotImplementedError

    def export(self, trainer: Trainer) -> list[Table]:
        """What this tab shows, as tables (the caller holds the trainer)."""
        return []


class CurveTab(AnalysisTab):
    id = "curve"

    def compose(self) -> ComposeResult:
        from tui.app.widgets.curve_pane import CurvePane

        yield CurvePane(id="curve-pane")

    def refresh(self) -> bool:
        from engine.analysis import compression_curve
        from tui.model.evaluation import reading

        workbench = self.screen.workbench
        with reading(workbench) as ok:
            if not ok:
                return False
            curve = compression_curve(workbench.trainer, workbench.corpus.size)
        pane = self.screen.pane("#curve-pane")
        if pane is None:  # mounted lazily, a moment after the screen's first frame: try again
            return False
        pane.show(curve)
        return True

    def export(self, trainer: Trainer) -> list[Table]:
        from engine.analysis import compression_curve, curve_table

        return [curve_table(compression_curve(trainer, self.screen.workbench.corpus.size))]


class VocabularyTab(AnalysisTab):
    id = "vocabulary"

    def compose(self) -> ComposeResult:
        from tui.app.widgets.composition_pane import CompositionPane

        with VerticalScroll():
            yield CompositionPane(id="composition-pane")

    def refresh(self) -> bool:
        from engine.analysis import composition
        from tui.model.evaluation import reading

        workbench = self.screen.workbench
        with reading(workbench) as ok:
            if not ok:
                return False
            trainer = workbench.trainer
            vocab, base, step = trainer.vocab, trainer.base_size, trainer.steps
        pane = self.screen.pane("#composition-pane")
        if pane is None:
            return False
        pane.show(composition(vocab, base), vocab, step)
        return True

    def export(self, trainer: Trainer) -> list[Table]:
        """The composition, then the merges that made the vocabulary (the merge log)."""
        from engine.analysis import composition, composition_table, merge_log_table

        vocab = trainer.vocab
        return [composition_table(composition(vocab, trainer.base_size), vocab, trainer.steps), merge_log_table(trainer)]


class HeldOutTab(AnalysisTab):
    id = "heldout"

    def compose(self) -> ComposeResult:
        from tui.app.widgets.heldout_pane import HeldOutPane

        yield HeldOutPane(id="heldout-pane")

    def refresh(self) -> bool:
        self.screen.request_evaluation()
        self.screen.render_heldout()
        return True

    def export(self, trainer: Trainer) -> list[Table]:
        """The held-out numbers, once measured."""
        from engine.analysis import heldout_table

        screen = self.screen
        if screen.evaluated is None or screen.evaluation is None:
            return []
        return [heldout_table(screen.evaluated.report, label=screen.evaluation.label, step=screen.evaluated.step)]


class BaselinesTab(AnalysisTab):
    id = "baselines"

    def compose(self) -> ComposeResult:
        from tui.app.widgets.baselines_pane import BaselinesPane

        with VerticalScroll():
            yield BaselinesPane(id="baselines-pane")

    def refresh(self) -> bool:
        self.screen.request_evaluation()
        self.screen.ensure_baselines()
        self.screen.render_baselines()
        return True


class CompareTab(AnalysisTab):
    id = "compare"

    def compose(self) -> ComposeResult:
        from tui.app.widgets.compare_pane import ComparePane

        yield ComparePane(id="compare-pane")

    def refresh(self) -> bool:
        self.screen.ensure_baselines()
        return self.screen.render_compare()

    def export(self, trainer: Trainer) -> list[Table]:
        """The token tax of every tokenizer compared (the trained one, those added, the
        baselines), once the tab has been shown."""
        from tui.app.widgets.compare_pane import ComparePane

        pane = next(self.screen.query(ComparePane).results(), None)
        return [pane.tax_table()] if pane is not None and pane.segmenters else []


class TieRulesTab(AnalysisTab):
    id = "tierules"

    def compose(self) -> ComposeResult:
        from tui.app.widgets.tiediff_pane import TieDiffPane

        yield TieDiffPane(self.screen.workbench, id="tiediff-pane")

    def refresh(self) -> bool:
        pane = self.screen.pane("#tiediff-pane")
        if pane is None:
            return False
        pane.follow(self.screen.workbench)
        return True


#: One class per tab id of tui.model.tabs.TABS.
TAB_CLASSES: dict[str, type[AnalysisTab]] = {cls.id: cls for cls in AnalysisTab.__subclasses__()}


def make_tabs(screen: AnalysisScreen) -> list[AnalysisTab]:
    """The screen's tabs, in the tab list's order (a tab id without a class is a KeyError here,
    at the screen's first build, and in tests/app/test_lab.py)."""
    return [TAB_CLASSES[tab.id](screen) for tab in TABS]
