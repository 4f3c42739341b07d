"""Issue 5 in the app: the analysis screen's keys and tabs, driven by Pilot."""

from __future__ import annotations

import asyncio
import io
import sys
import threading
from functools import partial

import pytest
from helpers import app_on, settled
from rich.console import Console
from textual.widgets import Input, Select, TabbedContent

from engine.analysis import INSTALL_HINT, composition, evaluate_heldout, hold_back, tie_rule_diff
from tui.app.keys import ANALYSIS_COMMANDS, key_rows
from tui.app.screens.analysis import TABS, AnalysisScreen
from tui.app.widgets.baselines_pane import BaselinesPane
from tui.app.widgets.compare_pane import ComparePane
from tui.app.widgets.composition_pane import CompositionPane
from tui.app.widgets.curve_pane import CurvePane
from tui.app.widgets.merge_log import MergeLog
from tui.app.widgets.tiediff_pane import TieDiffPane

SIZE = (100, 30)


#: The app on a sample (the workshop by default), 600 tokens unless told, no animation.
make_app = partial(app_on, vocab_size=600, still=True)


async def settle(pilot) -> None:
    """Poll now (rather than wait for the timer) and let workers finish; again, since a finished
    worker can ask for another."""
    for _ in range(3):
        await pilot.pause()
        if isinstance(pilot.app.screen, AnalysisScreen):
            pilot.app.screen.poll()
        await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def text_of(widget) -> str:
    """What a Static shows, as plain text (tables and groups included)."""
    console = Console(width=160, record=True, file=io.StringIO(), color_system=None)
    console.print(widget.content)
    return console.export_text()


@pytest.mark.slow
async def test_a_opens_the_screen_and_number_keys_switch_tabs():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("a")
        assert isinstance(app.screen, AnalysisScreen)
        tabs = app.screen.query_one(TabbedContent)
        assert tabs.active == "curve"
        for index, (tab, _) in enumerate(TABS):
            await pilot.press(str(index + 1))
            assert tabs.active == tab
            if tab == "compare":  # typing goes to its input; escape gives the keys back
                await pilot.press("escape")
        await pilot.press("1", "escape")
        assert not isinstance(app.screen, AnalysisScreen)
        await pilot.press("a", "a")  # a again goes back too
        assert not isinstance(app.screen, AnalysisScreen)
        await settle(pilot)


@pytest.mark.slow
async def test_the_curve_follows_steps_undo_and_the_log_scale_key():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("a", "n", "n", "n")  # the app's step keys work on this screen
        await settle(pilot)
        curve = app.screen.query_one(CurvePane).curve
        trainer = app.workbench.trainer
        assert curve.current == trainer.steps == 3
        assert curve.tokens == (trainer.initial_tokens, *[e.tokens_after for e in trainer.history])
        await pilot.press("u")
        await settle(pilot)
        curve = app.screen.query_one(CurvePane).curve
        assert (curve.current, curve.last) == (2, 3)  # the undone merge stays, dimmed
        await pilot.press("l")
        assert app.screen.query_one(CurvePane).log_x
        await pilot.press("escape")
        assert app.query_one(MergeLog).row_count == 2  # the main screen kept up


@pytest.mark.slow
async def test_the_curve_follows_a_live_run_trained_off_the_ui_thread():
    app = make_app(vocab_size=2000)
    threads: set[int] = set()
    original = app.workbench.trainer.step

    past_fifty = threading.Event()  # set by the worker once enough steps are made to pause

    def recording_step():
        threads.add(threading.get_ident())
        merge = original()
        if app.workbench.trainer.steps > 50:
            past_fifty.set()
        return merge

    app.workbench.trainer.step = recording_step
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("a", "space")
        assert await asyncio.to_thread(past_fifty.wait, 120)  # a hang guard, not a clock to wait on
        await pilot.press("space")
        await settle(pilot)
        assert not app.running and app.workbench.steps > 50
        assert app.screen.query_one(CurvePane).curve.current == app.workbench.steps
        assert threading.main_thread().ident not in threads


@pytest.mark.slow
async def test_vocabulary_tab_counts_the_learned_tokens():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("right_curly_bracket", "a", "2")
        await settle(pilot)
        trainer = app.workbench.trainer
        comp = composition(trainer.vocab, trainer.base_size)
        shown = text_of(app.screen.query_one(CompositionPane))
        assert f"{comp.learned} learned tokens" in shown
        for count in comp.counts.values():
            assert f"{count:>7} " in shown
        assert "earliest partial UTF-8 tokens" in shown and "longest tokens" in shown


@pytest.mark.slow
async def test_heldout_tab_holds_back_a_share_or_reads_a_file(tmp_path):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("right_square_bracket", "a", "3")
        await settle(pilot)
        screen = app.screen
        result = screen.evaluated
        train, held = hold_back(app.workbench.corpus.text, 0.1)
        assert result.step == 10 and result.report.characters == len(held)
        assert result.row.corpus_chars == len(train)  # its own trainer, on the first 90%
        report = text_of(screen.query_one("#heldout-report"))
        assert "held-out: last 10% of workshop.txt" in report and "characters per token" in report
        held_file = tmp_path / "held.txt"
        held_file.write_text("Hallo Welt, hello world.\n", encoding="utf-8")
        box = screen.query_one("#heldout-setting", Input)
        box.value = str(held_file)
        box.focus()
        await pilot.press("enter")
        await settle(pilot)
        tok = app.workbench.trainer.tokenizer()
        expected = evaluate_heldout(tok, "Hallo Welt, hello world.\n", app.workbench.corpus.text)
        assert screen.evaluated.report == expected  # the app's own trainer, at the current step
        box.value = "/no/such/file.txt"
        await pilot.press("enter")
        await settle(pilot)
        assert "no such file" in text_of(screen.query_one("#heldout-report"))


@pytest.mark.slow
async def test_baselines_tab_trains_in_a_worker_and_the_b_key_retrains():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("right_curly_bracket", "a", "4")
        await settle(pilot)
        screen = app.screen
        evaluation, vocab, rows, _ = screen.baselines
        assert vocab == 600  # the training target
        assert [r.name for r in rows] == ["char", "word", "wordpiece", "unigram"]
        shown = text_of(screen.query_one(BaselinesPane))
        assert "bpe (step 100)" in shown and "word" in shown
        await pilot.press("b")
        await settle(pilot)
        assert screen.baselines[1] == app.workbench.trainer.vocab_size == 356


@pytest.mark.slow
async def test_baselines_without_the_library_say_how_to_get_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "tokenizers", None)
    app = make_app("qa.txt", vocab_size=300)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("a", "4")
        await settle(pilot)
        shown = text_of(app.screen.query_one(BaselinesPane))
        assert shown.count("pip install 'bpe-lab[compare]'") == 2
        await pilot.press("5")
        await settle(pilot)
        assert INSTALL_HINT in text_of(app.screen.query_one("#compare-output"))


@pytest.mark.slow
async def test_compare_tab_types_text_cycles_sentences_and_adds_a_tokenizer(tmp_path):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("right_curly_bracket", "s")
        app.screen.query_one(Input).value = str(tmp_path / "tok.json")
        await pilot.press("enter")
        await pilot.press("a", "5")
        await settle(pilot)
        screen = app.screen
        output = lambda: text_of(screen.query_one("#compare-output"))  # noqa: E731
        assert "token tax" in output() and "sentence 1 of 8" in output()
        await pilot.press("escape", "p")  # escape leaves the text input, where p would type
        assert "sentence 2 of 8" in output()
        box = screen.query_one("#compare-tokenizer", Input)
        box.value = str(tmp_path / "tok.json")
        box.focus()
        await pilot.press("enter")
        await settle(pilot)
        assert [s.name for s in screen.query_one(ComparePane).extra] == ["tok.json"]
        text = screen.query_one("#compare-text", Input)
        text.value = "Hello Welt"
        await pilot.pause()
        shown = output()
        for name in ("bpe (step 100)", "tok.json", "char", "word", "wordpiece", "unigram"):
            assert name in shown
        assert screen.query_one(ComparePane).text == "Hello Welt"


async def test_the_tie_rules_train_only_when_their_tab_shows(monkeypatch):
    """Opening the screen on another tab trains nothing under two rules: the pane once shadowed
    Textual's own ``_running`` and so trained both rules (two trainers on the corpus) at every
    opening, whatever the tab. (That it trains once shown: the test below.)"""
    import tui.app.widgets.tiediff_pane as pane

    calls = []
    monkeypatch.setattr(pane, "tie_rule_diff", lambda *args, **kwargs: calls.append(args) or tie_rule_diff(*args, **kwargs))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("a")
        await settle(pilot)
        assert app.screen.active_tab == "curve" and calls == []
        assert app.screen.query_one(TieDiffPane).is_running  # Textual's flag, not the pane's


@pytest.mark.slow
async def test_tie_rules_tab_finds_where_the_logs_part():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("a", "6")
        await settle(pilot)
        screen = app.screen
        expected = tie_rule_diff(app.workbench.corpus.text, app.workbench.config, ("lowest-ids", "first-seen"))
        diff = screen.query_one(TieDiffPane).diff
        assert diff.first_step == expected.first_step and diff.common == expected.common
        shown = text_of(screen.query_one("#tiediff-output"))
        assert f"the merge logs part at step {expected.first_step}" in shown
        screen.query_one("#tie-b", Select).value = "hf"
        await settle(pilot)
        assert screen.query_one(TieDiffPane).diff.rules == ("lowest-ids", "hf")


@pytest.mark.slow
async def test_help_and_palette_list_the_analysis_screen():
    assert any(key == "`a`" and "analysis" in what for key, what in key_rows())
    titles = [title for _, action, title, _ in ANALYSIS_COMMANDS if action.startswith("app.analysis")]
    assert len(titles) == len(TABS)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        commands = {c.title: c for c in app.get_system_commands(app.screen)}
        assert "Analysis: compression curve (a)" in commands
        await app.run_action("analysis('tierules')")
        await settled(pilot)
        assert isinstance(app.screen, AnalysisScreen) and app.screen.active_tab == "tierules"
        await app.run_action("analysis('compare')")  # from the screen itself: switches the tab
        await settled(pilot)
        assert app.screen.active_tab == "compare"
        await settle(pilot)


@pytest.mark.slow
async def test_the_screen_follows_a_corpus_opened_from_it():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("a", "o")
        await pilot.press(*"sample:mueller.txt", "enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AnalysisScreen) and app.workbench.corpus.name == "mueller.txt"
        assert screen.workbench is app.workbench
        assert screen.query_one(CurvePane).curve.tokens == (app.workbench.trainer.initial_tokens,)
