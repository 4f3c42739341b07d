"""Issue 5: WordPiece and Unigram from `tokenizers`' own trainers (an optional extra), and the
``compare`` / ``train --curve`` commands."""

from __future__ import annotations

import io
import json
import sys

import pytest
from helpers import SAMPLES, sample_text, shared_corpus

from engine import TrainConfig, Trainer
from engine.analysis import (
    INSTALL_HINT,
    BpeSegmenter,
    baseline_rows,
    build_baselines,
    measure,
    subword_available,
    train_unigram,
    train_wordpiece,
    trainer_counts,
)
from tui.cli.commands import main


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def no_tokenizers(monkeypatch):
    """Simulate an install without the optional library: importing it fails."""
    monkeypatch.setitem(sys.modules, "tokenizers", None)


# -- acceptance 4: WordPiece and Unigram -----------------------------------------------------------


def test_wordpiece_and_unigram_come_from_the_library_trainers():
    tokenizers = pytest.importorskip("tokenizers")
    text = sample_text("workshop.txt")
    wordpiece, unigram = train_wordpiece(text, 500), train_unigram(text, 500)
    assert isinstance(wordpiece.tokenizer.model, tokenizers.models.WordPiece)
    assert isinstance(unigram.tokenizer.model, tokenizers.models.Unigram)
    assert wordpiece.vocab_size == 500 and 400 < unigram.vocab_size <= 500  # Unigram may find fewer pieces
    # The same trainer run by hand learns a vocabulary of the same size and alphabet (which merges
    # win ties varies from run to run inside the library, so the sets are not compared whole).
    by_hand = tokenizers.Tokenizer(tokenizers.models.WordPiece(unk_token="[UNK]"))
    by_hand.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    trainer = tokenizers.trainers.WordPieceTrainer(vocab_size=500, special_tokens=["[UNK]"], show_progress=False)
    by_hand.train_from_iterator(text.splitlines(keepends=True), trainer=trainer)
    singles = lambda vocab: {t for t in vocab if len(t.removeprefix("##")) == 1}  # noqa: E731
    assert by_hand.get_vocab_size() == 500 and singles(by_hand.get_vocab()) == singles(wordpiece.tokenizer.get_vocab())
    sentence = "Tokenizers learn merges from text."
    assert wordpiece.count(sentence)[0] == len(wordpiece.tokenizer.encode(sentence, add_special_tokens=False).ids)
    pieces = [p.data.decode() for p in wordpiece.segment("tokenization")]
    assert all(p.startswith("##") for p in pieces[1:])  # WordPiece marks continuations
    assert unigram.segment(" the")[0].data.decode().startswith("▁")  # Unigram marks spaces
    assert unigram.count("😀 ☃")[1] >= 1 and wordpiece.count("☃")[1] == 1  # never seen: unknown


def test_rows_for_wordpiece_and_unigram_on_the_verdict():
    pytest.importorskip("tokenizers")
    text = shared_corpus("the-verdict.txt").read_text(encoding="utf-8")
    rows = baseline_rows(build_baselines(text, 1000), text, "Hello, do you like tea?")
    by_name = {row.name: row for row in rows}
    assert list(by_name) == ["char", "word", "wordpiece", "unigram"]
    assert all(row.note is None for row in rows)
    assert by_name["word"].vocab_size == 1159 and by_name["word"].corpus_tokens == 4649
    assert by_name["word"].heldout_unknown == 1  # Hello
    assert by_name["wordpiece"].vocab_size == by_name["unigram"].vocab_size == 1000
    assert by_name["char"].corpus_tokens > by_name["unigram"].corpus_tokens > by_name["word"].corpus_tokens


def test_unigram_vocabulary_is_raised_to_the_alphabet():
    pytest.importorskip("tokenizers")
    text = "".join(chr(0x4E00 + i) for i in range(300)) * 3
    assert train_unigram(text, 100).vocab_size >= 300


def test_without_the_library_the_rows_say_how_to_get_it(no_tokenizers):
    assert not subword_available()
    rows = baseline_rows(build_baselines("the cat sat on the mat", 300), "the cat sat on the mat")
    notes = {row.name: row.note for row in rows}
    assert notes == {"char": None, "word": None, "wordpiece": INSTALL_HINT, "unigram": INSTALL_HINT}
    assert "pip install 'bpe-lab[compare]'" in INSTALL_HINT
    code, out, _ = run("compare", str(SAMPLES / "qa.txt"), "--merges", "20")
    assert code == 0
    assert f"wordpiece  {INSTALL_HINT}" in out and f"unigram    {INSTALL_HINT}" in out
    code, out, _ = run("compare", str(SAMPLES / "qa.txt"), "--merges", "20", "--json")
    rows = json.loads(out)
    assert [r["note"] for r in rows][-2:] == [INSTALL_HINT, INSTALL_HINT] and rows[-1]["corpus_tokens"] is None


def test_trainer_counts_equal_encoding_the_corpus():
    text = sample_text("workshop.txt")
    for config in (TrainConfig(vocab_size=500), TrainConfig(base="chars", pretokenizer="none", max_merges=80),
                   TrainConfig(pretokenizer="simple", split_digits=True, no_merge_newline=True, max_merges=60)):
        trainer = Trainer(text, config)
        trainer.train()
        segmenter = BpeSegmenter(trainer.tokenizer())
        assert measure(segmenter, text, corpus_counts=trainer_counts(trainer)) == measure(segmenter, text)
    hf = Trainer(text, TrainConfig(tie_rule="hf", max_merges=10))
    assert trainer_counts(hf) is None


# -- the compare command ------------------------------------------------------------------------------


def test_compare_the_verdict_json():
    path = shared_corpus("the-verdict.txt")
    code, out, err = run("compare", str(path), "--vocab-size", "1000", "--json")
    assert code == 0
    rows = {r["name"]: r for r in json.loads(out)}
    assert list(rows) == ["bpe", "char", "word", "wordpiece", "unigram"]
    assert rows["bpe"]["vocab_size"] == 1000 and rows["word"]["vocab_size"] == 1159
    assert rows["word"]["corpus_tokens"] == 4649 and rows["word"]["heldout_tokens"] is None
    assert rows["char"]["chars_per_token"] == 1.0
    assert "measured on the corpus" in err


def test_compare_with_a_heldout_file_and_a_fraction(tmp_path):
    corpus = SAMPLES / "qa.txt"
    held = tmp_path / "held.txt"
    held.write_text("Q: what is a zebra.\nA: a zebra is a horse with stripes.\n", encoding="utf-8")
    code, out, err = run("compare", str(corpus), "--heldout", str(held), "--merges", "30", "--pretokenizer", "simple")
    assert code == 0 and "measured on the held-out text" in err
    lines = out.splitlines()
    assert lines[0].split() == ["tokenizer", "vocab", "corpus", "held-out", "unknown", "chars/token"]
    word = lines[3].split()
    assert word[0] == "word" and int(word[4]) >= 2  # zebra, stripes: out of vocabulary
    code, out, _ = run("compare", str(corpus), "--heldout-fraction", "0.25", "--merges", "30", "--json")
    rows = json.loads(out)
    assert rows[0]["corpus_chars"] + rows[0]["heldout_chars"] == len(sample_text("qa.txt"))
    assert rows[0]["vocab_size"] == 256 + 30


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--heldout-fraction", "1.5"], "between 0 and 1"),
        (["--heldout", "/no/such/held.txt"], "/no/such/held.txt: no such file"),
        (["--vocab-size", "10"], "below the base vocabulary"),
    ],
)
def test_compare_errors_are_one_line(argv, message):
    code, out, err = run("compare", str(SAMPLES / "qa.txt"), *argv)
    assert code == 2 and out == ""
    assert err.startswith("bpe-lab: error:") and message in err and err.count("\n") == 1


def test_train_curve_prints_every_step(tmp_path):
    code, out, err = run("train", str(SAMPLES / "qa.txt"), "-o", str(tmp_path / "t.json"), "--base", "chars",
                         "--pretokenizer", "none", "--tie-break", "first-seen", "--no-merge-newline",
                         "--merges", "48", "--curve")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "merges\ttokens\tbytes_per_token" and len(lines) == 50
    tokens = {int(s): int(t) for s, t, _ in (line.split("\t") for line in lines[1:])}
    assert [tokens[k] for k in (0, 6, 12, 24, 48)] == [3225, 2747, 2506, 2188, 1816]  # seed 001's table
    assert lines[49].endswith(f"\t{3225 / 1816:.4f}")


def test_train_curve_bytes_per_token_with_a_pretokenizer(tmp_path):
    """Bytes per token come from the file's size, however the corpus was read."""
    code, out, _ = run("train", str(SAMPLES / "workshop.txt"), "-o", str(tmp_path / "t.json"), "--merges", "5", "--curve")
    size = (SAMPLES / "workshop.txt").stat().st_size
    assert code == 0 and out.splitlines()[1] == f"0\t{size}\t1.0000"  # bytes base: one token per byte
