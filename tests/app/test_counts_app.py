"""The app on a chunk-count table (``bpe-lab --counts TABLE``): the corpus pane lists the most
frequent chunks, segmented, after their counts; stepping, undo, jumps, the inspector, tokenize
and save work as on a corpus, and make the merges of training on the text."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from extras import skip_without
from helpers import app_on, sample_text, settled
from textual.widgets import Input

import tui.cli.commands as cli
from engine import TrainConfig, Trainer, load_tokenizer
from tui.app.launch import build_parser, table_corpus
from tui.model.workbench import LoadedCorpus, Workbench

SIZE = (100, 30)


@pytest.fixture
def table(tmp_path) -> Path:
    skip_without("scale")  # count writes a Parquet table
    (tmp_path / "w.txt").write_text(sample_text("workshop.txt"), encoding="utf-8")
    assert cli.main(["count", str(tmp_path / "w.txt"), "-o", str(tmp_path / "w.parquet")], out=io.StringIO(), err=io.StringIO()) == 0
    return tmp_path / "w.parquet"


def test_the_listing_is_the_chunks_by_count_each_segmented_after_its_count(table):
    corpus = LoadedCorpus.open(table, "bytes")
    wb = Workbench(corpus, TrainConfig(max_merges=40))
    lines = wb.corpus.text.split("\n")
    counts = [int(line[:12].replace(",", "")) for line in lines if line.strip()]
    assert counts == sorted(counts, reverse=True) and counts[0] == max(corpus.table.chunks.values())
    wb.trainer.train()
    first = lines[0]
    units = first.encode("utf-8", "surrogateescape")
    spans = wb.trainer.spans(0, len(units))
    assert spans and spans[0][1] == 13  # the chunk starts after the count column
    assert b"".join(wb.trainer.token_bytes(t) for t, _, _ in spans) == units[13:]


def test_launch_options_that_contradict_the_table_are_refused(table):
    args = build_parser().parse_args(["--counts", str(table), "--pretokenizer", "gpt4"])
    with pytest.raises(ValueError, match="cannot train with --pretokenizer gpt4"):
        table_corpus(args, TrainConfig(pretokenizer="gpt4"))


@pytest.mark.slow
async def test_the_app_on_a_table_steps_jumps_tokenizes_and_saves(table, tmp_path):
    args = build_parser().parse_args(["--counts", str(table), "--vocab-size", "400"])
    corpus, config = table_corpus(args, TrainConfig(vocab_size=400))
    app = app_on(corpus, config)
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("n", "n", "u")
        assert app.workbench.trainer.steps == 1
        await pilot.press("right_curly_bracket")  # 100 forward
        await app.workers.wait_for_complete()
        await settled(pilot)
        assert app.workbench.trainer.steps == 101
        raw = Trainer(sample_text("workshop.txt"), TrainConfig(vocab_size=400))
        raw.goto(101)
        assert app.workbench.trainer.tokenizer().merges == raw.tokenizer().merges
        await pilot.press("e")
        await pilot.press(*"the cat")
        await settled(pilot)
        assert app.focused is app.screen.query_one(Input)
        await pilot.press("escape", "s")
        await pilot.pause()
        prompt = app.screen.query_one(Input)
        prompt.value = str(tmp_path / "t.json")
        await pilot.press("enter")
        await settled(pilot)
        assert load_tokenizer(tmp_path / "t.json").merges == raw.tokenizer().merges
        assert json.loads((tmp_path / "t.json").read_text())["pretokenizer"]["name"] == "gpt2"


def test_a_word_count_file_comes_back_as_a_table_on_resume(tmp_path):
    """A word-count file is plain text: only the session's word says to read it as counts again."""
    from tui.app.launch import resumed

    words = tmp_path / "vocab.txt"
    words.write_text("lower 40\nlowest 12\nnewer 30\nwider 9\nlow 50\n", encoding="utf-8")
    args = build_parser().parse_args(["--counts", str(words), "--vocab-size", "264"])
    corpus, config = table_corpus(args, TrainConfig(vocab_size=264))
    wb = Workbench(corpus, config)
    for _ in range(6):
        wb.step()
    wb.undo()
    saved = wb.session().save(tmp_path / "session.json")
    assert json.loads(saved.read_text(encoding="utf-8"))["corpus"]["counts"] is True
    session, again = resumed(None, saved)
    assert again.table is not None and again.table.chunks == corpus.table.chunks
    wb2 = Workbench(again, session.config)
    assert wb2.restore(session) is None
    merges = [e.pair for e in wb.trainer.events()]
    assert [e.pair for e in wb2.trainer.events()] == merges and len(merges) == 5
    assert [e.pair for e in wb2.trainer.future] == [e.pair for e in wb.trainer.future]
    words.write_text("lower 41\nlowest 12\nnewer 30\nwider 9\nlow 50\n", encoding="utf-8")
    with pytest.raises(ValueError, match="changed since the session was saved"):
        resumed(None, saved)
