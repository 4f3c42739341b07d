"""The app under stress and bad input, and launching it: work stays off the UI thread, nothing
crashes, every problem is a message (Pilot)."""

from __future__ import annotations

import asyncio
import random
import threading

import pytest
from helpers import CORPORA, app_on, run_from_palette, settled
from textual.widgets import Input

from engine import TrainConfig
from engine.corpus.reading import decode_corpus
from tui.app.widgets.merge_log import MergeLog
from tui.model.workbench import LoadedCorpus, Workbench

from test_app import SIZE, make_app, workbench


def record_step_threads(wb: Workbench) -> set[int]:
    """The threads that call the trainer's step from now on (the UI thread must never)."""
    threads: set[int] = set()
    original = wb.trainer.step

    def recording_step():
        threads.add(threading.get_ident())
        return original()

    wb.trainer.step = recording_step
    return threads


@pytest.mark.parametrize("text", [
    pytest.param(lambda: random_text(20_000), id="medium"),  # 0.14 MB: as one sequence, ~140,000 merges to make
    pytest.param(lambda: big_text(), id="large", marks=pytest.mark.slow),
])
@pytest.mark.slow
async def test_run_and_pause_on_a_large_corpus_stays_off_the_ui_thread(text):
    """Space runs training in a worker; space again stops it within one batch."""
    corpus = LoadedCorpus.from_corpus(decode_corpus(text(), name="big.txt"), "bytes", None)
    # The text as one sequence, min_frequency 1 and no reachable target: tens of thousands of
    # merges a second are not enough to finish before it is paused (word chunks of the random
    # fallback text ran out of pairs in under a second once training got faster).
    wb = Workbench(corpus, TrainConfig(vocab_size=500_000, min_frequency=1, pretokenizer="none"))
    threads = record_step_threads(wb)
    batches: list[bool] = []  # per batch: was a pause already requested?
    original_batch = wb.run_batch
    app = make_app(wb=wb)
    pause_requested = threading.Event()

    past_twenty = threading.Event()  # set by the worker: enough steps made to pause

    def counting_batch(budget: float = 0.02):
        if past_twenty.is_set():  # the run cannot end before the key is handled, however fast it is
            assert pause_requested.wait(120)  # a hang guard, not a clock to wait on
        batches.append(pause_requested.is_set())
        result = original_batch(budget)
        if wb.steps > 20:
            past_twenty.set()
        return result

    wb.run_batch = counting_batch
    toggle = app.action_toggle_run

    def toggled() -> None:  # the pause is requested when the app handles the key
        if app.running:
            pause_requested.set()
        toggle()

    app.action_toggle_run = toggled
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("space")
        assert await asyncio.to_thread(past_twenty.wait, 120)  # a hang guard, not a clock to wait on
        assert app.running
        await pilot.press("space")
        await app.workers.wait_for_complete()
        await settled(pilot)
        assert not app.running
        steps = wb.steps
        assert steps > 20
        assert pause_requested.is_set()
        assert batches.count(True) <= 1  # stopped within one batch of the request
        ran = len(batches)
        await settled(pilot, workers=False)
        assert not any(w.is_running for w in app.workers)  # really stopped: no worker left to train
        assert len(batches) == ran and wb.steps == steps
        assert threading.main_thread().ident not in threads  # the UI thread never trained
        assert app.query_one(MergeLog).row_count == steps
        await pilot.press("u")  # and the keys work again afterwards
        assert wb.steps == steps - 1


def big_text() -> bytes:
    """A few megabytes that take many seconds to train: the Tang poems, or random syllables."""
    path = CORPORA / "tang_all.txt"
    if path.exists():
        return path.read_bytes()
    return random_text(400_000)


def random_text(count: int) -> bytes:
    """``count`` words of random syllables (about 7 bytes a word)."""
    rng = random.Random(7)
    syllables = [a + b for a in "bcdfghjklmnprstvwz" for b in ("a", "e", "i", "o", "u", "ei", "ou", "ä", "ö")]
    words = ["".join(rng.choice(syllables) for _ in range(rng.randint(1, 4))) for _ in range(60_000)]
    return " ".join(rng.choice(words) for _ in range(count)).encode("utf-8")


def test_launch_errors_are_one_line(capsys):
    from tui.app.launch import launch

    assert launch(["/no/such/corpus.txt"]) == 2
    assert capsys.readouterr().err == "bpe-lab: error: /no/such/corpus.txt: no such file\n"
    assert launch(["--pattern", "(", "--merges", "3"]) == 2
    assert "invalid pattern" in capsys.readouterr().err


@pytest.mark.slow
async def test_an_imported_tokenizer_replays_on_the_corpus(tmp_path):
    """Issue 4: --tokenizer (any format) is inspected and replayed on your corpus."""
    from engine import Trainer
    from engine.formats import export_tokenizer, load_any

    source = Trainer("the cat sat on the mat with the hat " * 30, TrainConfig(max_merges=12))
    source.train()
    export_tokenizer(source.tokenizer(), "hf", tmp_path / "tokenizer.json")
    tok = load_any(tmp_path / "tokenizer.json").tokenizer
    corpus = LoadedCorpus.open("sample:workshop.txt", tok.base)
    app = app_on(corpus, script=tok)
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await settled(pilot)
        assert app.workbench.script is tok
        await pilot.press("right_curly_bracket")  # runs out at the imported merges
        assert app.workbench.steps == 12
        assert [e.pair for e in app.workbench.trainer.history] == tok.merges
        assert app.query_one(MergeLog).row_count == 12
        ids = app.workbench.tokenizer().encode("the cat")
        assert ids == tok.encode("the cat")


def test_launch_reads_any_tokenizer_format_or_says_why(tmp_path, capsys):
    from tui.app.launch import launch

    bad = tmp_path / "tokenizer.json"
    bad.write_text('{"model": {"type": "WordPiece", "vocab": {}}}', encoding="utf-8")
    assert launch(["--tokenizer", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bpe-lab: error:") and err.count("\n") == 1


@pytest.mark.slow
async def test_command_palette_runs_actions():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        titles = [c.title for c in app.get_system_commands(app.screen)]
        for key in ("Step (n)", "Undo (u)", "Go to step (g)", "Find token (/)", "Save tokenizer (s)", "Help (?)"):
            assert key in titles
        await run_from_palette(pilot, "Step (n)")
        assert app.workbench.steps == 1


@pytest.mark.slow
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
    app = app_on(LoadedCorpus.open("sample:workshop.txt", "bytes"), script=imported.tokenizer)
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("right_curly_bracket")
        merges = len(imported.tokenizer.merges)
        assert 0 < merges < 100 and app.workbench.steps == merges  # replay ends at its last merge
        text = "the cat sat on a hat"
        assert app.workbench.tokenizer().encode(text) == imported.tokenizer.encode(text)
        assert imported.encode(text) == hf.encode(text).ids  # and those are the library's ids


@pytest.mark.slow
async def test_long_jumps_run_in_the_worker():
    wb = workbench(vocab_size=900)
    threads = record_step_threads(wb)
    app = make_app(wb=wb)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("g", *"300", "enter")
        await app.workers.wait_for_complete()
        await settled(pilot)
        assert wb.steps == 300 and app.query_one(MergeLog).row_count == 300
        assert threading.main_thread().ident not in threads
        threads.clear()
        await pilot.press("g", "0", "enter")  # back to step 0: its copy is restored, at once
        assert wb.steps == 0 and app.query_one(MergeLog).row_count == 0 and not app.running
        await pilot.press("g", *"300", "enter")  # and to the copy kept of the step it left
        assert wb.steps == 300 and app.query_one(MergeLog).row_count == 300
        assert not threads  # no merge was redone to get there, on any thread
        await pilot.press("g", *"150", "enter")  # between copies: walked from the nearest
        await app.workers.wait_for_complete()
        await settled(pilot)
        assert wb.steps == 150 and app.query_one(MergeLog).row_count == 150
        wb.trainer._state.verify()


@pytest.mark.slow
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
            await settled(pilot)
            assert (app.workbench, app.workbench.steps) == before
        messages = app.toasts.texts()
        assert any("no such file" in m for m in messages)
        assert any("is a directory" in m for m in messages)
        assert any("empty" in m for m in messages)
        app._restart(TrainConfig(vocab_size=100))  # below the 256 bytes: refused by the trainer
        await app.workers.wait_for_complete()
        await settled(pilot)
        assert (app.workbench, app.workbench.steps) == before
        assert any("below the base" in said for said in app.toasts.texts())
        app._open(str(binary))  # binary is trained on, with a note about the bytes
        await app.workers.wait_for_complete()
        await settled(pilot)
        assert app.workbench.corpus.name == "binary.bin"
        assert any("not valid UTF-8" in said for said in app.toasts.texts())


def test_launch_usage_errors_are_one_line(capsys):
    from tui.app.launch import launch

    assert launch(["--vocab-size", "abc"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bpe-lab: error:") and err.count("\n") == 1 and "--vocab-size" in err


@pytest.mark.slow
async def test_a_pattern_too_slow_for_the_typed_text_is_a_message(monkeypatch):
    from engine.errors import PatternTimeoutError
    from tui.app.widgets.tokenize_pane import TokenizePane

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n")
        tok = app.workbench.tokenizer()

        def too_slow(text, **kwargs):
            raise PatternTimeoutError("the pattern took too long on this text")

        monkeypatch.setattr(tok, "encode", too_slow)
        app.query_one("#tokenize-input", Input).value = "aaaa"
        await settled(pilot)
        assert "took too long" in str(app.query_one("#tokenize-output").render())
        assert app.query_one(TokenizePane).text == "aaaa"  # the app goes on


async def test_a_stale_inspect_message_after_an_undo_is_ignored():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("right_square_bracket")
        gone = app.workbench.trainer.last.new_id
        await pilot.press("left_square_bracket")
        app.post_message(MergeLog.Inspect(gone))  # as a cursor move queued before the undo would
        await settled(pilot)
        assert app.is_running and app.selected is None
