"""Predict the next merge: a panel over the main screen's right column.

Each round asks for the pair the learner expects to merge next (from the shuffled candidates,
counts hidden; or typed), then makes the merge with the app's ordinary step (so undo works),
reveals the merge, its count and the runner-up's, and when the pick tied, why the tie rule
chose the merge. The corpus and the merge log stay in view on the left; the next-merge pane,
which would give the answer away, is covered.

When a round ends the app gets :class:`QuizAnswered` (a lesson step can wait for it) and
``lab.quiz_score`` holds the session's score. The rules live in :mod:`tui.model.quiz`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from tui.app.cut_mark import fit_text
from tui.i18n import N_, _
from tui.model.quiz import CHOICES, MODE_NAMES, MODES, Outcome, PickError, read_pick, reveal_lines, tie_reason
from tui.model.quiz import show_pair as show_pair_of
from tui.model.workbench import Busy

if TYPE_CHECKING:
    from tui.app.lab import Lab


@dataclass
class QuizAnswered(Message):
    """A quiz round ended: ``verdict`` is ``right``, ``tied`` or ``wrong`` (posted to the app)."""

    verdict: str
    outcome: Outcome


#: The panel's least width (app.tcss's #quiz-panel min-width).
QUIZ_MIN_WIDTH = 36


class ErrorLine(Static):
    """The panel's error: scrolled into view whole when it grows (a German sentence under the
    input takes three lines at 80×24, below the body's fold)."""

    shown = False
    """Whether a sentence is shown (a blank line need not be scrolled to)."""

    def say(self, text: str) -> None:
        self.update(Text(text, style="bold red"))
        self.shown = bool(text)
        if text:
            self.call_after_refresh(self.scroll_visible, animate=False)

    def on_resize(self) -> None:
        if self.shown:
            self.scroll_visible(animate=False)


class QuizScreen(ModalScreen[None]):
    """The quiz panel: a question, the pick, the reveal, the score."""

    BINDINGS = [
        Binding("escape", "leave", N_("Leave")),
        Binding("p", "toggle", N_("Leave"), show=False),
        Binding("ctrl+t", "next_mode", N_("Mode")),
        Binding("enter", "next_round", N_("Next"), show=False),
        *(Binding(str(n), f"choose({n})", str(n), show=False) for n in range(1, CHOICES + 1)),
    ]

    def __init__(self, lab: Lab, mode: str = "shuffled", seed: int | None = None, *, for_lesson: bool = False) -> None:
        """``for_lesson``: a lesson's step opened it, so its merges are the lesson's (not the
        learner exploring away from the lesson)."""
        super().__init__()
        self.lab = lab
        self.for_lesson = for_lesson
        self.mode = mode if mode in MODES else "shuffled"
        self.random = random.Random(seed)
        #: The pairs offered this round, in the order shown.
        self.choices: list[tuple[int, int]] = []
        #: The last round's outcome while its reveal shows (None: a question is open).
        self.outcome: Outcome | None = None

    @property
    def main_screen(self) -> Screen:
        """The screen beneath (the app's first): the quiz covers part of it."""
        return self.app.screen_stack[0]

    def compose(self) -> ComposeResult:
        with Vertical(id="quiz-panel"):
            with VerticalScroll(id="quiz-body"):
                yield Static("", id="quiz-mode")
                yield Static("", id="quiz-score")
                yield Static("", id="quiz-question")
                yield OptionList(id="quiz-choices")
                yield Input(id="quiz-input", placeholder=_("e.g. l o, · t, [e4 b8] [e4 b8], lo"))
                yield ErrorLine("", id="quiz-error")
                # How to type what the panes draw: a space most of all (half the early gpt2 merges)
                yield Static(Text(_("A space is · or typed first (\" t\" is · + t); bytes [e4 b8]; "
                                    "ids #32 #116."), style="dim"), id="quiz-spelling")
                yield Static("", id="quiz-reveal")
            yield Static("", id="quiz-hint")

    def on_mount(self) -> None:
        self.query_one("#quiz-panel").border_title = _("predict the next merge")
        # The next-merge pane holds the answer: hidden while the quiz is open, wherever the
        # layout puts it (a lesson pane moves it out from under this panel).
        self.main_screen.add_class("quizzing")
        self._fit_panel()
        self.new_round()

    def on_resize(self) -> None:
        self._fit_panel()

    def _fit_panel(self) -> None:
        """Beside a lesson pane the panel covers the corpus, the log and the right column whole,
        up to the lesson pane, whose text (what the quiz step asks) stays in view; a fixed share
        of the screen would leave a strip of a pane in view."""
        main = self.main_screen
        lesson = main.query_one("#lesson").region
        panel = self.query_one("#quiz-panel")
        if main.has_class("with-lesson") and lesson.width:
            self.styles.align_horizontal = "left"
            panel.styles.width = max(lesson.x, QUIZ_MIN_WIDTH)
            panel.styles.max_width = None
        else:
            self.styles.clear_rule("align_horizontal")
            panel.styles.clear_rule("width")
            panel.styles.clear_rule("max_width")

    def on_unmount(self) -> None:
        self.main_screen.remove_class("quizzing")

    # -- rounds --------------------------------------------------------------------------

    def new_round(self) -> None:
        """Ask about the next merge (or say why there is none)."""
        self.outcome = None
        self._show_score()
        self.query_one("#quiz-mode", Static).update(Text(_(MODE_NAMES[self.mode]), style="italic dim"))
        self.query_one("#quiz-reveal", Static).update("")
        self._error("")
        workbench = self.lab.workbench
        try:
            reason = workbench.stop_reason()
            with workbench.reading():
                trainer = workbench.trainer
                pool = [c.pair for c in trainer.candidates(CHOICES)]
                step = trainer.steps + 1
                labels = [show_pair_of(trainer, pair) for pair in pool]
        except Busy:
            reason, pool, labels, step = _("training is running"), [], [], 0
        if reason is not None:
            self.choices = []
            self._ask(_("Training is done ({reason}): no merge to predict. Escape leaves the quiz.").format(reason=reason))
            self._layout(choices=False, typing=False)
            return
        order = list(range(len(pool)))
        self.random.shuffle(order)
        self.choices = [pool[i] for i in order]
        options = self.query_one("#quiz-choices", OptionList)
        options.clear_options()
        options.add_options([Option(Text(f"{n}  {labels[i]}")) for n, i in enumerate(order, 1)])
        question = {
            "shuffled": _("Step {step}: which pair merges next? (1–{n}, or ↑↓ and enter)"),
            "hidden": _("Step {step}: which pair merges next? Type it."),
            "typed": _("Step {step}: which pair merges next? Type it; these are the candidates."),
        }[self.mode]
        self._ask(question.format(step=step, n=len(pool)))
        self._layout(choices=self.mode != "hidden", typing=self.mode != "shuffled")
        if self.mode == "shuffled":
            options.highlighted = 0
            options.focus()
        else:
            self.query_one("#quiz-input", Input).value = ""
            self.query_one("#quiz-input", Input).focus()

    def _layout(self, choices: bool, typing: bool) -> None:
        self.query_one("#quiz-choices").display = choices
        self.query_one("#quiz-input").display = typing
        self.query_one("#quiz-spelling").display = typing
        hint = _("enter pick · ctrl+t mode · esc leave") if choices or typing else _("esc leave")
        self.query_one("#quiz-hint", Static).update(Text(hint, style="dim"))

    def _ask(self, text: str) -> None:
        self.query_one("#quiz-question", Static).update(Text(text, style="bold"))

    def _error(self, text: str) -> None:
        self.query_one("#quiz-error", ErrorLine).say(text)

    def _show_score(self) -> None:
        self.query_one("#quiz-score", Static).update(Text(self.lab.quiz_score.text()))

    # -- picking -------------------------------------------------------------------------

    @on(OptionList.OptionSelected, "#quiz-choices")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if self.outcome is None and 0 <= event.option_index < len(self.choices):
            self.play(self.choices[event.option_index])

    @on(Input.Submitted, "#quiz-input")
    def _typed(self, event: Input.Submitted) -> None:
        event.stop()
        if self.outcome is not None:
            self.action_next_round()
            return
        self.pick_text(event.value)

    def pick_text(self, text: str) -> bool:
        """Play a typed pick; a pick that names no pair now is said in the panel (no round used)."""
        workbench = self.lab.workbench
        try:
            with workbench.reading():
                pair = read_pick(workbench.trainer, text)
        except PickError as exc:
            self._error(str(exc))
            return False
        except Busy:
            return False
        self.play(pair)
        return True

    def action_choose(self, n: int) -> None:
        if self.outcome is None and self.mode != "hidden" and 1 <= n <= len(self.choices):
            self.play(self.choices[n - 1])

    def play(self, pick: tuple[int, int]) -> None:
        """Judge ``pick`` against the next merge: make the merge (the app's step), reveal it."""
        app = self.lab
        workbench = app.workbench
        try:
            with workbench.reading():
                before = self._before(pick)
        except Busy:
            self._error(_("Training is running: pause it first (escape, then space)."))
            return
        steps, pick_count, top, tie_text, ranked, labels = before
        app.step(adopt=self.for_lesson)
        with workbench.reading():
            trainer = workbench.trainer
            event = trainer.last if trainer.steps == steps + 1 else None
            if event is not None:
                labels.setdefault(event.pair, show_pair_of(trainer, event.pair))
        if event is None:
            self._error(_("No merge was made: {reason}").format(reason=workbench.stop_reason() or "?"))
            return
        by_rule = bool(top) and top[0].pair == event.pair
        runner = next(((c.pair, c.count) for c in top if c.pair != event.pair), None)
        outcome = Outcome(pick, pick_count, event.pair, event.count, runner, event.tie_total, by_rule)
        self.outcome = outcome
        app.quiz_score.add(outcome.verdict)
        self._reveal(outcome, labels, ranked, tie_text if by_rule else None)
        self.app.post_message(QuizAnswered(outcome.verdict, outcome))

    def _before(self, pick: tuple[int, int]):
        """What the reveal needs from before the merge (the caller holds the trainer): the step,
        the pick's count, the top candidates, why a tie went the other way, and the ranking."""
        trainer = self.lab.workbench.trainer
        pick_count = trainer.pair_count(pick)
        top = trainer.candidates(CHOICES)
        tie_text = self._why_tied(pick, pick_count, top)
        ranked = [(c.pair, c.count) for c in top]
        if pick not in {pair for pair, _ in ranked}:
            ranked.append((pick, pick_count))
        labels = {pair: show_pair_of(trainer, pair) for pair, _ in ranked}
        return trainer.steps, pick_count, top, tie_text, ranked, labels

    def _why_tied(self, pick: tuple[int, int], pick_count: int, top) -> str | None:
        """Before the merge: why the tie rule prefers the top pair to a pick with its count."""
        if not top or top[0].pair == pick or top[0].count != pick_count:
            return None
        return tie_reason(self.lab.workbench.trainer, top[0].pair, pick)

    def _reveal(self, outcome: Outcome, labels: dict, ranked: list, tie_text: str | None) -> None:
        lines = reveal_lines(outcome, lambda pair: labels[pair], tie_text)
        style = {"right": "bold green", "tied": "bold #e9c46a", "wrong": "bold red"}[outcome.verdict]
        text = Text()
        text.append(lines[0] + "\n", style=style)
        for line in lines[1:]:
            text.append(line + "\n")
        text.append("\n")
        text.append_text(self.ranking(outcome, labels, ranked))
        self.query_one("#quiz-reveal", Static).update(text)
        self._show_score()
        self._layout(choices=False, typing=False)
        self.query_one("#quiz-hint", Static).update(Text(_("enter next round · esc leave"), style="dim"))
        self._ask(_("Step {step} is made.").format(step=self.lab.workbench.steps))
        self._error("")
        self.set_focus(None)

    def ranking(self, outcome: Outcome, labels: dict, ranked: list) -> Text:
        """The candidates with their counts, best first: the merge marked ▶, the pick ◀ (labels
        padded in terminal cells, so 天 + 长 lines up with l + o)."""
        width = max(self.query_one("#quiz-reveal").content_region.width, 24)
        digits = max(len(str(count)) for _, count in ranked)
        label = min(max(cell_len(labels[pair]) for pair, _ in ranked), width - digits - 6)
        text = Text()
        for pair, count in ranked:
            merged, picked = pair == outcome.merged, pair == outcome.pick
            style = "bold #e9c46a" if merged else ""
            text.append("▶ " if merged else "  ", style=style)
            text.append_text(fit_text(labels[pair], label, style))
            text.append(" ", style=style)
            text.append(f"{count:>{digits}}", style=style)
            text.append(" ◀" if picked else "", style="bold")
            text.append("\n")
        return text

    # -- keys ----------------------------------------------------------------------------

    def action_next_round(self) -> None:
        if self.outcome is not None:
            self.new_round()

    def action_next_mode(self) -> None:
        self.set_mode(MODES[(MODES.index(self.mode) + 1) % len(MODES)])

    def set_mode(self, mode: str) -> None:
        """Ask this round again in ``mode`` (after a reveal: the next round)."""
        self.mode = mode if mode in MODES else self.mode
        self.new_round()

    def action_leave(self) -> None:
        self.dismiss(None)

    def action_toggle(self) -> None:
        """``p`` again: leave (while the input has focus, ``p`` types)."""
        self.dismiss(None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("toggle", "choose") and isinstance(self.focused, Input):
            return False  # the key types into the input
        return True
