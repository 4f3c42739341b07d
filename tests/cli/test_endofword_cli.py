"""``bpe-lab train --end-of-word '</w>'`` from the command line: on a subword-nmt word-count
file it learns the merges ``subword-nmt learn-bpe --dict-input`` writes, and the tokenizer it
writes encodes, decodes and exports (hf) with the suffix."""

from __future__ import annotations

import io
import json
import random

import pytest

from engine import Tokenizer
from tui.main import main


def _dict_file(tmp_path, seed: int):
    rng = random.Random(seed)
    words = {"".join(rng.choice("abcdeéßt") for _ in range(rng.randint(1, 8))): rng.randint(1, 30) for _ in range(200)}
    path = tmp_path / "dict.txt"
    path.write_text("".join(f"{w} {n}\n" for w, n in words.items()), encoding="utf-8")
    return path, words


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_train_on_word_counts_writes_learn_bpes_merges(tmp_path, seed, monkeypatch, capsys):
    learn = pytest.importorskip("subword_nmt.learn_bpe", reason="subword-nmt (pip install -e '.[compare]')")
    path, words = _dict_file(tmp_path, seed)
    out = tmp_path / "tok.json"
    assert main(["train", "--counts", str(path), "--base", "chars", "--end-of-word", "</w>", "--tie-break", "subword-nmt",
                 "--merges", "150", "-o", str(out)]) == 0
    tok = Tokenizer.load(out)
    ours = [f"{tok.token_bytes(a).decode()} {tok.token_bytes(b).decode()}" for a, b in tok.merges]
    codes = io.StringIO()
    monkeypatch.setattr("sys.stderr", io.StringIO())  # learn_bpe's progress and notes
    learn.learn_bpe(io.StringIO(path.read_text(encoding="utf-8")), codes, 150, is_dict=True)
    assert ours == codes.getvalue().splitlines()[1:]
    assert tok.end_of_word == "</w>" and json.loads(out.read_text())["end_of_word"] == "</w>"


def test_encode_decode_and_export_keep_the_suffix(tmp_path, capsys):
    corpus = tmp_path / "c.txt"
    corpus.write_text("the lowest and the newest and the widest, the lower\n" * 20, encoding="utf-8")
    tok_path = tmp_path / "tok.json"
    assert main(["train", str(corpus), "--end-of-word", "</w>", "--merges", "30", "-o", str(tok_path)]) == 0
    capsys.readouterr()
    assert main(["encode", "-t", str(tok_path), "the lowest"]) == 0
    ids = capsys.readouterr().out.split()
    tok = Tokenizer.load(tok_path)
    assert [int(i) for i in ids] == tok.encode("the lowest")
    assert tok.token_bytes(int(ids[0])) == b"the</w>"
    assert main(["decode", "-t", str(tok_path), *ids]) == 0
    assert capsys.readouterr().out.rstrip("\n") == "the lowest"
    hf = tmp_path / "tokenizer.json"
    assert main(["export", "-t", str(tok_path), "--format", "hf", "-o", str(hf)]) == 0
    assert json.loads(hf.read_text())["model"]["end_of_word_suffix"] == "</w>"
    capsys.readouterr()
    assert main(["encode", "-t", str(hf), "the lowest"]) == 0
    assert capsys.readouterr().out.split() == ids
