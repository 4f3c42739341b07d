"""The app, driven by Pilot: every key, asserting app and engine state."""

from __future__ import annotations

import random
import threading

import pytest
from textual.widgets import Input, OptionList

from engine import TrainConfig, Tokenizer
from engine.corpus import decode_corpus
from tui.app import BpeApp
from tui.screens.dialogs import ConfirmScreen, PromptScreen
from tui.screens.help import HelpScreen
from tui.screens.open_corpus import OpenScreen
from tui.screens.settings import SettingsScreen
from tui.widgets.corpus_view import CorpusView
from tui.widgets.merge_log import MergeLog
from tui.workbench import LoadedCorpus, Workbench

from conftest import CORPORA

SIZE = (100, 30)


def workbench(sample: str = "workshop.txt", **config) -> Workbench:
    config.setdefault("vocab_size", 600)
    cfg = TrainConfig(**config)
    return Workbench(LoadedCorpus.open(f"sample:{sample}", cfg.base), cfg)


def make_app(**kwargs) -> BpeApp:
    return BpeApp(workbench=kwargs.pop("wb", None) or workbench(), **kwargs)


def state(app: BpeApp):
    trainer = app.workbench.trainer
    return trainer.steps, trainer.corpus_tokens, app.query_one(MergeLog).row_count


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


async def test_goto_prompt():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("g")
        assert isinstance(app.screen, PromptScreen)
        await pilot.press("4", "2", "enter")
        assert app.workbench.steps == 42
        assert app.query_one(MergeLog).row_count == 42
        await pilot.press("g", "x", "enter")  # not a number: a message, nothing moves
        assert app.workbench.steps == 42


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
        app.action_copy()
        ids = app.workbench.tokenizer().encode("the tokenizer")
        assert copied == [" ".join(map(str, ids))]


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


async def test_open_a_sample_and_a_bad_path():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("o")
        assert isinstance(app.screen, OpenScreen)
        await pilot.press(*"/no/such/file.txt", "enter")
        await pilot.pause()
        assert app.workbench.corpus.name == "workshop.txt"  # still the old corpus
        await pilot.press("o")
        options = app.screen.query_one(OptionList)
        options.focus()
        options.highlighted = [o.id for o in options._options].index("mueller.txt")
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.workbench.corpus.name == "mueller.txt"
        assert app.workbench.steps == 0


async def test_quit_asks_when_there_is_unsaved_work():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "q")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        assert not isinstance(app.screen, ConfirmScreen) and app.is_running
        await pilot.press("q", "y")
        await pilot.pause()
        assert not app.is_running


async def test_quit_without_work_does_not_ask():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running


async def test_help_screen():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


async def test_settings_restart_training_after_confirmation():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "comma")
        assert isinstance(app.screen, SettingsScreen)
        from textual.widgets import Select

        app.screen.query_one("#tie_break", Select).value = "first-seen"
        app.screen.query_one("#base", Select).value = "chars"
        await pilot.press("ctrl+s")
        assert isinstance(app.screen, ConfirmScreen)  # one merge would be lost
        await pilot.press("y")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.workbench.config.tie_break == "first-seen" and app.workbench.config.base == "chars"
        assert app.workbench.steps == 0 and app.workbench.trainer.alphabet is not None


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
        from tui.widgets.tokenize_pane import TokenizePane

        pane = app.query_one(TokenizePane)
        assert pane.trace is True
        app.query_one("#tokenize-input", Input).value = "the hat"
        await pilot.pause()
        output = str(app.query_one("#tokenize-output").render())
        assert "start:" in output and "rule" in output


async def test_bindings_are_disabled_not_ignored_while_running():
    app = make_app(wb=workbench(vocab_size=4000))
    async with app.run_test(size=SIZE) as pilot:
        app.running = True  # as if a run were live
        assert app.check_action("step", ()) is None
        assert app.check_action("undo", ()) is None
        assert app.check_action("toggle_run", ()) is True
        app.running = False
        assert app.check_action("step", ()) is True


async def test_run_and_pause_on_a_large_corpus_stays_off_the_ui_thread():
    """Space runs training in a worker; space again stops it within one batch."""
    corpus = LoadedCorpus.from_corpus(decode_corpus(big_text(), name="big.txt"), "bytes", None)
    # min_frequency 1 and no reachable target: the run cannot finish before it is paused
    wb = Workbench(corpus, TrainConfig(vocab_size=500_000, min_frequency=1))
    threads: set[int] = set()
    original = wb.trainer.step

    def recording_step():
        threads.add(threading.get_ident())
        return original()

    wb.trainer.step = recording_step
    batches: list[bool] = []  # per batch: was a pause already requested?
    original_batch = wb.run_batch
    app = make_app(wb=wb)
    pause_requested = threading.Event()

    def counting_batch(budget: float = 0.02):
        batches.append(pause_requested.is_set())
        return original_batch(budget)

    wb.run_batch = counting_batch
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("space")
        for _ in range(200):
            await pilot.pause(0.01)
            if wb.steps > 20:
                break
        assert app.running
        pause_requested.set()
        await pilot.press("space")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not app.running
        steps = wb.steps
        assert steps > 20
        assert batches.count(True) <= 1  # stopped within one batch of the request
        await pilot.pause(0.1)
        assert wb.steps == steps  # really stopped
        assert threading.main_thread().ident not in threads  # the UI thread never trained
        assert app.query_one(MergeLog).row_count == steps
        await pilot.press("u")  # and the keys work again afterwards
        assert wb.steps == steps - 1


def big_text() -> bytes:
    """A few megabytes that take many seconds to train: the Tang poems, or random syllables."""
    path = CORPORA / "tang_all.txt"
    if path.exists():
        return path.read_bytes()
    rng = random.Random(7)
    syllables = [a + b for a in "bcdfghjklmnprstvwz" for b in ("a", "e", "i", "o", "u", "ei", "ou", "ä", "ö")]
    words = ["".join(rng.choice(syllables) for _ in range(rng.randint(1, 4))) for _ in range(60_000)]
    return " ".join(rng.choice(words) for _ in range(400_000)).encode("utf-8")


def test_launch_errors_are_one_line(capsys):
    from tui.launch import launch

    assert launch(["/no/such/corpus.txt"]) == 2
    assert capsys.readouterr().err == "bpe-lab: error: /no/such/corpus.txt: no such file\n"
    assert launch(["--pattern", "(", "--merges", "3"]) == 2
    assert "invalid pattern" in capsys.readouterr().err


async def test_an_imported_tokenizer_replays_on_the_corpus(tmp_path):
    """Issue 4: --tokenizer (any format) is inspected and replayed on your corpus."""
    from engine import Trainer
    from engine.formats import export_tokenizer, load_any

    source = Trainer("the cat sat on the mat with the hat " * 30, TrainConfig(merges=12))
    source.train()
    export_tokenizer(source.tokenizer(), "hf", tmp_path / "tokenizer.json")
    tok = load_any(tmp_path / "tokenizer.json").tokenizer
    corpus = LoadedCorpus.open("sample:workshop.txt", tok.base)
    app = BpeApp(corpus, replay=tok)
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.workbench.replay is tok
        await pilot.press("right_curly_bracket")  # runs out at the imported merges
        assert app.workbench.steps == 12
        assert [e.pair for e in app.workbench.trainer.merges] == tok.merges
        assert app.query_one(MergeLog).row_count == 12
        ids = app.workbench.tokenizer().encode("the cat")
        assert ids == tok.encode("the cat")


def test_launch_reads_any_tokenizer_format_or_says_why(tmp_path, capsys):
    from tui.launch import launch

    bad = tmp_path / "tokenizer.json"
    bad.write_text('{"model": {"type": "WordPiece", "vocab": {}}}', encoding="utf-8")
    assert launch(["--tokenizer", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bpe-lab: error:") and err.count("\n") == 1


async def test_command_palette_runs_actions():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        titles = [c.title for c in app.get_system_commands(app.screen)]
        for key in ("Step (n)", "Undo (u)", "Go to step (g)", "Find token (/)", "Save tokenizer (s)", "Help (?)"):
            assert key in titles
        await pilot.press("ctrl+p")
        await pilot.press(*"Step (n)")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause(0.3)
        assert app.workbench.steps == 1


async def test_a_gpt2_pair_written_by_tokenizers_replays_in_the_app(tmp_path):
    """Issue 4 acceptance 4: files the library wrote itself work in the app."""
    tokenizers = pytest.importorskip("tokenizers")
    from engine.formats import load_any

    corpus_file = tmp_path / "c.txt"
    corpus_file.write_text("the cat sat on the mat with the hat\n" * 50, encoding="utf-8")
    hf = tokenizers.ByteLevelBPETokenizer()
    hf.train([str(corpus_file)], vocab_size=300, min_frequency=2, show_progress=False)
    hf.save_model(str(tmp_path))
    imported = load_any(tmp_path / "vocab.json")
    app = BpeApp(LoadedCorpus.open("sample:workshop.txt", "bytes"), replay=imported.tokenizer)
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("right_curly_bracket")
        merges = len(imported.tokenizer.merges)
        assert 0 < merges < 100 and app.workbench.steps == merges  # replay ends at its last merge
        text = "the cat sat on a hat"
        assert app.workbench.tokenizer().encode(text) == imported.tokenizer.encode(text)
        assert imported.encode(text) == hf.encode(text).ids  # and those are the library's ids


async def test_long_jumps_run_in_the_worker():
    wb = workbench(vocab_size=900)
    threads: set[int] = set()
    original = wb.trainer.step

    def recording_step():
        threads.add(threading.get_ident())
        return original()

    wb.trainer.step = recording_step
    app = make_app(wb=wb)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("g", *"300", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert wb.steps == 300 and app.query_one(MergeLog).row_count == 300
        assert threading.main_thread().ident not in threads
        await pilot.press("g", "0", "enter")  # and back, by undo, in the worker too
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert wb.steps == 0 and app.query_one(MergeLog).row_count == 0
        await pilot.press("n")  # short moves stay on the UI thread
        assert wb.steps == 1


async def test_bad_input_in_the_app_is_a_message_and_nothing_is_lost(tmp_path):
    """Issue 7: each bad input is a notification; the app keeps its previous state."""
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    binary = tmp_path / "binary.bin"
    binary.write_bytes(b"\x00\x01\xff\xfe" * 200 + b"abc abc abc")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("right_square_bracket")
        before = (app.workbench, app.workbench.steps)
        for bad in (tmp_path / "missing.txt", tmp_path, empty):
            app._open(str(bad))
            await pilot.pause()
            assert (app.workbench, app.workbench.steps) == before
        messages = [str(n.message) for n in app._notifications]
        assert any("no such file" in m for m in messages)
        assert any("is a directory" in m for m in messages)
        assert any("empty" in m for m in messages)
        app._restart(TrainConfig(vocab_size=100))  # below the 256 bytes: refused by the trainer
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert (app.workbench, app.workbench.steps) == before
        assert any("below the base" in str(n.message) for n in app._notifications)
        app._open(str(binary))  # binary is trained on, with a note about the bytes
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.workbench.corpus.name == "binary.bin"
        assert any("not valid UTF-8" in str(n.message) for n in app._notifications)


def test_launch_usage_errors_are_one_line(capsys):
    from tui.launch import launch

    assert launch(["--vocab-size", "abc"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bpe-lab: error:") and err.count("\n") == 1 and "--vocab-size" in err


async def test_a_pattern_too_slow_for_the_typed_text_is_a_message(monkeypatch):
    from engine.errors import PatternTimeoutError
    from tui.widgets.tokenize_pane import TokenizePane

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n")
        tok = app.workbench.tokenizer()

        def too_slow(text, **kwargs):
            raise PatternTimeoutError("the pattern took too long on this text")

        monkeypatch.setattr(tok, "encode", too_slow)
        app.query_one("#tokenize-input", Input).value = "aaaa"
        await pilot.pause()
        assert "took too long" in str(app.query_one("#tokenize-output").render())
        assert app.query_one(TokenizePane).text == "aaaa"  # the app goes on


async def test_a_stale_inspect_message_after_an_undo_is_ignored():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("right_square_bracket")
        gone = app.workbench.trainer.last.new_id
        await pilot.press("left_square_bracket")
        app.post_message(MergeLog.Inspect(gone))  # as a cursor move queued before the undo would
        await pilot.pause()
        assert app.is_running and app.selected is None
