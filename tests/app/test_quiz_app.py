"""The quiz in the app (issue 14, part 2), driven by Pilot: a tied, a wrong and a right pick, each
checked against counts a separate engine trainer computes here; bad typed input; undo after a
round; escape and `p` leave."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import app_on, sample_text, settle_until, settled
from textual import on
from textual.widgets import Input, OptionList, Static

import tui.app.shell
from engine import TrainConfig, Trainer
from tui.app import BpeApp
from tui.app.options import LaunchOptions
from tui.app.screens.quiz import QuizAnswered, QuizScreen
from tui.model.quiz import show_pair
from tui.model.workbench import LoadedCorpus, Workbench

SIZE = (80, 24)
#: Seed 001's trace: its first step is a tie (l + o and o + w, 3 each), decided by first-seen.
CONFIG = TrainConfig(base="chars", pretokenizer="none", tie_rule="first-seen", max_merges=4)


class Recording(BpeApp):
    """The app, with the verdicts a lesson step would wait for."""

    CSS_PATH = Path(tui.app.__file__).with_name("app.tcss")

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.verdicts: list[str] = []

    @on(QuizAnswered)
    def _answered(self, message: QuizAnswered) -> None:
        self.verdicts.append(message.verdict)


def make_app() -> Recording:
    corpus = LoadedCorpus.open("sample:low-lower-lowest.txt", CONFIG.base)
    app = Recording(workbench=Workbench(corpus, CONFIG), options=LaunchOptions(autosave=False))
    app.animation_level = "none"
    return app


def expected(step: int):
    """At ``step``, by a trainer of the test's own: the rule's next pair, the pairs tied with it
    and the pairs below it, each with its count."""
    trainer = Trainer(sample_text("low-lower-lowest.txt"), CONFIG)
    trainer.goto(step)
    top = trainer.candidates(10)
    best = top[0]
    tied = [c for c in top[1:] if c.count == best.count]
    lower = [c for c in top if c.count < best.count]
    return trainer, best, tied, lower


def panel_text(screen: QuizScreen, widget: str) -> str:
    return str(screen.query_one(widget, Static).render())


async def choose_shown(pilot, screen: QuizScreen, label: str) -> None:
    """Press the number the shuffled list shows beside ``label``."""
    options = screen.query_one("#quiz-choices", OptionList)
    shown = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
    number = next(i + 1 for i, text in enumerate(shown) if text.endswith(f"  {label}"))
    await pilot.press(str(number))
    await pilot.pause()


async def type_pick(pilot, screen: QuizScreen, text: str) -> None:
    screen.query_one("#quiz-input", Input).value = text
    await pilot.press("enter")
    await pilot.pause()


@pytest.mark.slow
async def test_a_quiz_round_tied_then_wrong_then_right():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("p")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, QuizScreen) and screen.mode == "shuffled"

        # Round 1: a pick tied with the winner's count; the tie rule explains its choice.
        trainer, best, tied, _ = expected(0)
        assert tied, "seed 001's first step is a tie"
        await choose_shown(pilot, screen, show_pair(trainer, tied[0].pair))
        assert app.verdicts == ["tied"]
        assert app.workbench.trainer.steps == 1
        assert app.workbench.trainer.last.pair == best.pair
        reveal = panel_text(screen, "#quiz-reveal")
        assert reveal.startswith(f"Tied: right count, and the tie rule (first-seen) chose {show_pair(trainer, best.pair)} "
                                 "because it occurs first in the corpus")
        assert f"The merge: {show_pair(trainer, best.pair)}, {best.count} times." in reveal
        assert f"Runner-up: {show_pair(trainer, tied[0].pair)}, {tied[0].count} times." in reveal

        # Round 2, typed with the candidates hidden: a bad pick first (said, no round used),
        # then a pair below the winner's count.
        await pilot.press("enter", "ctrl+t")
        await settled(pilot)
        assert screen.mode == "hidden" and not screen.query_one("#quiz-choices").display
        await type_pick(pilot, screen, "zz")
        assert "No two tokens side by side make zz now" in panel_text(screen, "#quiz-error")
        await type_pick(pilot, screen, "[zz] o")
        assert "Not a byte in hex: zz" in panel_text(screen, "#quiz-error")
        assert app.workbench.trainer.steps == 1 and app.verdicts == ["tied"]
        trainer, best, tied, lower = expected(1)
        pick = lower[-1]
        await type_pick(pilot, screen, show_pair(trainer, pick.pair))
        assert app.verdicts == ["tied", "wrong"]
        assert panel_text(screen, "#quiz-reveal").startswith(
            f"Wrong: {show_pair(trainer, pick.pair)} occurs {pick.count} times; "
            f"{show_pair(trainer, best.pair)} merges, {best.count} times.")

        # Round 3: the rule's own pair, typed as the text it makes.
        await pilot.press("enter")
        await pilot.pause()
        trainer, best, tied, _ = expected(2)
        merged = (trainer.token_bytes(best.pair[0]) + trainer.token_bytes(best.pair[1])).decode().replace(" ", "·")
        await type_pick(pilot, screen, merged)
        assert app.verdicts == ["tied", "wrong", "right"]
        assert panel_text(screen, "#quiz-reveal").startswith(
            f"Right: {show_pair(trainer, best.pair)} merges, {best.count} times.")
        assert panel_text(screen, "#quiz-score") == "right 1 · tied 1 · wrong 1"
        assert app.workbench.trainer.steps == 3

        # The quiz's merges are ordinary steps: while it shows, n does nothing behind its back;
        # after escape, u undoes the last round's merge.
        await pilot.press("n")
        await settled(pilot)
        assert app.workbench.trainer.steps == 3
        await pilot.press("escape")
        await settled(pilot)
        assert app.screen is app.main_screen
        await pilot.press("u")
        await settled(pilot)
        assert app.workbench.trainer.steps == 2

        # The score is the session's: p opens the quiz again with it, and p leaves.
        await pilot.press("p")
        await settled(pilot)
        assert panel_text(app.screen, "#quiz-score") == "right 1 · tied 1 · wrong 1"
        await pilot.press("p")
        await settled(pilot)
        assert app.screen is app.main_screen


@pytest.mark.slow
async def test_the_quiz_says_when_there_is_nothing_to_predict():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.go(4)  # the merge target
        await settled(pilot)
        assert app.start_quiz("typed")
        await settled(pilot)
        assert "Training is done (merge count reached)" in panel_text(app.screen, "#quiz-question")
        assert not app.screen.query_one("#quiz-input").display
        await pilot.press("escape")
        await settled(pilot)
        assert app.screen is app.main_screen


@pytest.mark.slow
def test_quiz_snapshot_chinese_80x24(snap_compare):
    """The reveal of a tied pick on the Chinese sample: the partial-UTF-8 pairs and the counts
    line up in cells, the tie rule's reason wraps inside the panel, the corpus stays in view."""
    corpus = LoadedCorpus.open("sample:chinese.txt", "bytes")
    config = TrainConfig(pretokenizer="none")
    app = app_on(Workbench(corpus, config), autosave=False)
    app.animation_level = "none"
    app.lab.quiz_seed = 0

    async def tie_round(pilot) -> None:
        await pilot.pause()
        app.go(119)  # six pairs tie at 3 here, some of them whole characters (出 + 现)
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        with app.workbench.reading():
            trainer = app.workbench.trainer
            top = trainer.candidates(6)
            tied = [show_pair(trainer, c.pair) for c in top[1:] if c.count == top[0].count]
            typed = next((t for t in tied if any("\u4e00" <= ch <= "\u9fff" for ch in t)), tied[0])
        assert app.start_quiz("typed")
        await pilot.pause()
        await type_pick(pilot, app.screen, typed)
        assert "Tied: right count" in panel_text(app.screen, "#quiz-reveal")

    assert snap_compare(app, terminal_size=SIZE, run_before=tie_round)


@pytest.mark.slow
async def test_no_quiz_in_a_replay_or_while_a_run_is_live():
    corpus = LoadedCorpus.open("sample:low-lower-lowest.txt", CONFIG.base)
    trained = Trainer(sample_text("low-lower-lowest.txt"), CONFIG)
    trained.train()
    replay = app_on(Workbench(corpus, CONFIG, script=trained.tokenizer()), autosave=False)
    async with replay.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("p")
        await settled(pilot)
        assert replay.screen is replay.main_screen
        assert any("a replay makes its file's merges" in said for said in replay.toasts.texts())

    app = app_on(Workbench(LoadedCorpus.open("sample:workshop.txt", "bytes"), TrainConfig()), autosave=False, speed=1)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("space")  # one merge a second: the run stays live
        await settle_until(pilot, lambda: app.running, "the run started", workers=False)
        assert app.running
        assert not app.start_quiz()
        assert app.screen is app.main_screen
        assert any("Pause training first" in said for said in app.toasts.texts())
        await pilot.press("space")
        await app.workers.wait_for_complete()
