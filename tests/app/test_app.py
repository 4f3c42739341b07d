"""The app, driven by Pilot: every key, asserting app and engine state."""

from __future__ import annotations

import pytest
from helpers import app_on, settle_until, settled
from textual.widgets import Input, Label, OptionList

from engine import Tokenizer, TrainConfig
from tui.app import BpeApp
from tui.app.screens.dialogs import ConfirmScreen, PromptScreen
from tui.app.screens.help import HelpScreen
from tui.app.screens.open_corpus import OpenScreen
from tui.app.screens.settings import SettingsScreen
from tui.app.widgets.corpus_view import CorpusView
from tui.app.widgets.merge_log import MergeLog
from tui.model.workbench import LoadedCorpus, Workbench

SIZE = (100, 30)


def workbench(sample: str = "workshop.txt", **config) -> Workbench:
    config.setdefault("vocab_size", 600)
    cfg = TrainConfig(**config)
    return Workbench(LoadedCorpus.open(f"sample:{sample}", cfg.base), cfg)


def make_app(**kwargs) -> BpeApp:
    return app_on(kwargs.pop("wb", None) or workbench(), **kwargs)


def state(app: BpeApp):
    trainer = app.workbench.trainer
    return trainer.steps, trainer.corpus_tokens, app.query_one(MergeLog).row_count


@pytest.mark.slow
async def test_step_then_undo_returns_to_where_it_was():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        start = state(app)
        await pilot.press("n")
        assert state(app)[0] == 1 and state(app)[2] == 1
        assert state(app)[1] < start[1]
        await pilot.press("u")
        assert state(app) == start
        await pilot.press("right", "right")
        assert state(app)[0] == 2
        await pilot.press("left")
        assert state(app)[0] == 1
        await pilot.press("r")  # redo the undone merge
        assert state(app)[0] == 2
        await pilot.press("u", "shift+right")
        assert state(app)[0] == 2 and app.workbench.trainer.future == []


@pytest.mark.slow
async def test_jumps_by_ten_and_a_hundred():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("right_square_bracket")
        assert app.workbench.steps == 10
        await pilot.press("right_curly_bracket")
        assert app.workbench.steps == 110
        await pilot.press("left_square_bracket")
        assert app.workbench.steps == 100
        await pilot.press("left_curly_bracket")
        assert app.workbench.steps == 0
        assert app.query_one(MergeLog).row_count == 0


@pytest.mark.slow
async def test_goto_prompt():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("g")
        assert isinstance(app.screen, PromptScreen)
        await pilot.press("4", "2", "enter")
        assert app.workbench.steps == 42
        assert app.query_one(MergeLog).row_count == 42
        assert not isinstance(app.screen, PromptScreen)
        await pilot.press("g", "x", "enter")  # not a number: said in the dialog, nothing moves
        assert isinstance(app.screen, PromptScreen)
        assert "not a step number" in str(app.screen.query_one("#prompt-error", Label).render())
        assert app.workbench.steps == 42
        await pilot.press("backspace", "7", "enter")  # corrected: it jumps and closes
        assert app.workbench.steps == 7 and not isinstance(app.screen, PromptScreen)
        await pilot.press("g", "escape")
        assert app.workbench.steps == 7


async def test_enter_on_a_log_row_jumps_to_that_step():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("right_square_bracket")
        log = app.query_one(MergeLog)
        log.focus()
        log.move_cursor(row=3)
        await pilot.pause()
        inspected = log.token_at(3)
        assert app.selected == inspected  # the cursor's row shows its token in the inspector
        await pilot.press("enter")
        assert app.workbench.steps == 4
        assert log.row_count == 4


@pytest.mark.slow
async def test_find_by_text_bytes_and_id():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("right_curly_bracket")
        vocab = app.workbench.trainer.vocab
        target = next(i for i in range(256, len(vocab)) if len(vocab[i]) >= 3 and vocab[i].isalpha())
        await pilot.press("slash", *vocab[target].decode(), "enter")
        assert app.selected == target  # an exact match
        assert app.query_one(CorpusView).highlight == app.selected
        part = vocab[target][1:3].decode()
        await pilot.press("slash", *part, "enter")
        assert part.encode() in vocab[app.selected]  # else the shortest token containing it
        selected = app.selected
        await pilot.press("slash", *"qqqzzz", "enter")
        assert app.selected == selected  # no match: a message, the selection stays
        await pilot.press("slash", *"[e4 b8]", "enter")
        assert b"\xe4\xb8" in vocab[app.selected]
        await pilot.press("slash", *"#97", "enter")
        assert app.selected == 97


@pytest.mark.slow
async def test_copy_with_a_system_clipboard():
    copied: list[str] = []
    app = make_app(clipboard=copied.append)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "c")
        token = app.workbench.trainer.last.new_id
        assert copied == [f"{token}\t{app.workbench.trainer.token_bytes(token).hex(' ')}"]
        app.query_one("#tokenize-input", Input).focus()
        await pilot.press(*"hello")
        await pilot.press("c")  # the letter goes to the input, not the copy action
        assert len(copied) == 1


async def test_copy_falls_back_to_the_terminal_clipboard():
    def no_clipboard(text: str) -> None:
        raise RuntimeError("no clipboard on this machine")

    app = make_app(clipboard=no_clipboard)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "c")
        token = app.workbench.trainer.last.new_id
        assert app.clipboard.startswith(f"{token}\t")  # OSC 52 path: Textual keeps the text


async def test_copy_tokenized_output_ids():
    copied: list[str] = []
    app = make_app(clipboard=copied.append)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("right_curly_bracket")
        app.query_one("#tokenize-input", Input).value = "the tokenizer"
        app.query_one("#tokenize-input", Input).focus()
        await pilot.pause()
        app.main_screen.action_copy()
        ids = app.workbench.tokenizer().encode("the tokenizer")
        assert copied == [" ".join(map(str, ids))]


@pytest.mark.slow
async def test_save_writes_a_loadable_tokenizer(tmp_path):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("right_square_bracket", "s")
        assert isinstance(app.screen, PromptScreen)
        prompt = app.screen.query_one(Input)
        prompt.value = str(tmp_path / "tok.json")
        await pilot.press("enter")
        tok = Tokenizer.load(tmp_path / "tok.json")
        assert len(tok.merges) == 10
        assert app.workbench.unsaved is False
        await pilot.press("s")
        app.screen.query_one(Input).value = str(tmp_path / "missing" / "dir" / "tok.json")
        await pilot.press("enter")  # a failed save is a message; the app keeps going
        assert app.workbench.steps == 10


@pytest.mark.slow
async def test_open_a_sample_and_a_bad_path():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("o")
        assert isinstance(app.screen, OpenScreen)
        await pilot.press(*"/no/such/file.txt", "enter")
        await settled(pilot)
        assert app.workbench.corpus.name == "workshop.txt"  # still the old corpus
        await pilot.press("o")
        options = app.screen.query_one(OptionList)
        options.focus()
        options.highlighted = [o.id for o in options._options].index("mueller.txt")
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await settled(pilot)
        assert app.workbench.corpus.name == "mueller.txt"
        assert app.workbench.steps == 0


@pytest.mark.slow
async def test_quit_asks_when_there_is_unsaved_work():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "q")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        assert not isinstance(app.screen, ConfirmScreen) and app.is_running
        await pilot.press("q", "y")
        await settle_until(pilot, lambda: not app.is_running, "the app quit")
        assert not app.is_running


async def test_quit_without_work_does_not_ask():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("q")
        await settle_until(pilot, lambda: not app.is_running, "the app quit")
        assert not app.is_running


@pytest.mark.slow
async def test_help_screen():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


@pytest.mark.slow
async def test_settings_restart_training_after_confirmation():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "comma")
        assert isinstance(app.screen, SettingsScreen)
        from textual.widgets import Select

        app.screen.query_one("#tie_rule", Select).value = "first-seen"
        app.screen.query_one("#base", Select).value = "chars"
        await pilot.press("ctrl+s")
        assert isinstance(app.screen, ConfirmScreen)  # one merge would be lost
        await pilot.press("y")
        await app.workers.wait_for_complete()
        await settled(pilot)
        assert app.workbench.config.tie_rule == "first-seen" and app.workbench.config.base == "chars"
        assert app.workbench.steps == 0 and app.workbench.trainer.alphabet is not None


@pytest.mark.slow
async def test_settings_reject_bad_values():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("comma")
        app.screen.query_one("#vocab_size", Input).value = "lots"
        await pilot.press("ctrl+s")
        assert isinstance(app.screen, SettingsScreen)
        from textual.widgets import Label

        assert "whole number" in str(app.screen.query_one("#settings-error", Label).render())


async def test_ids_toggle_and_trace_toggle():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("right_square_bracket", "i")
        assert app.query_one(CorpusView).show_ids is True
        await pilot.press("t")
        from tui.app.widgets.tokenize_pane import TokenizePane

        pane = app.query_one(TokenizePane)
        assert pane.trace is True
        app.query_one("#tokenize-input", Input).value = "the hat"
        await pilot.pause()
        output = str(app.query_one("#tokenize-output").render())
        assert "start:" in output and "rule" in output


async def test_bindings_are_disabled_not_ignored_while_running():
    app = make_app(wb=workbench(vocab_size=4000))
    async with app.run_test(size=SIZE):
        app.lab.running = True  # as if a run were live
        assert app.check_action("step", ()) is None
        assert app.check_action("undo", ()) is None
        assert app.check_action("toggle_run", ()) is True
        app.lab.running = False
        assert app.check_action("step", ()) is True
