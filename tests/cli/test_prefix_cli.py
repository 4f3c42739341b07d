"""``bpe-lab train --subword-prefix '##'`` from the command line: the tokenizer it writes keeps
the prefix, encodes, decodes and exports (hf) so that tokenizers gives the same ids, and the
formats without a prefix refuse it in one line."""

from __future__ import annotations

import json

import pytest
from helpers import SAMPLES

from engine import Tokenizer
from engine.formats.hfpre import WHITESPACE
from tui.main import main

tokenizers = pytest.importorskip("tokenizers")


def test_train_encode_decode_and_export_keep_the_prefix(tmp_path, capsys):
    corpus = SAMPLES / "workshop.txt"
    tok_path = tmp_path / "tok.json"
    assert main(["train", str(corpus), "--base", "chars", "--pattern", WHITESPACE, "--subword-prefix", "##",
                 "--merges", "200", "-o", str(tok_path)]) == 0
    tok = Tokenizer.load(tok_path)
    assert tok.subword_prefix == "##" and len(tok.merges) == 200
    assert json.loads(tok_path.read_text(encoding="utf-8"))["subword_prefix"] == "##"
    capsys.readouterr()
    assert main(["encode", "-t", str(tok_path), "the baker opens the bakery"]) == 0
    ids = [int(i) for i in capsys.readouterr().out.split()]
    assert ids == tok.encode("the baker opens the bakery")
    assert any(tok.token_bytes(i).startswith(b"##") for i in ids)
    assert main(["decode", "-t", str(tok_path), *map(str, ids)]) == 0
    assert capsys.readouterr().out.rstrip("\n") == "the baker opens the bakery"
    hf = tmp_path / "tokenizer.json"
    assert main(["export", "-t", str(tok_path), "--format", "hf", "-o", str(hf)]) == 0
    theirs = tokenizers.Tokenizer.from_file(str(hf))
    text = corpus.read_text(encoding="utf-8")
    assert theirs.encode(text).ids == tok.encode(text)
    assert theirs.decode(ids) == "the baker opens the bakery"
    capsys.readouterr()
    assert main(["encode", "-t", str(hf), "the baker opens the bakery"]) == 0
    assert [int(i) for i in capsys.readouterr().out.split()] == ids


@pytest.mark.parametrize("fmt", ["tiktoken", "gpt2"])
def test_export_without_a_prefix_is_one_line_and_exit_2(tmp_path, capsys, fmt):
    corpus = tmp_path / "c.txt"
    corpus.write_text("the lowest and the newest and the widest, the lower\n" * 20, encoding="utf-8")
    tok_path = tmp_path / "tok.json"
    assert main(["train", str(corpus), "--subword-prefix", "##", "--merges", "30", "-o", str(tok_path)]) == 0
    capsys.readouterr()
    assert main(["export", "-t", str(tok_path), "--format", fmt, "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'##'" in err and "export to hf or native" in err
    assert not (tmp_path / "out").exists()


def test_a_bad_prefix_is_one_line_and_exit_2(tmp_path, capsys):
    corpus = tmp_path / "c.txt"
    corpus.write_text("a b c\n", encoding="utf-8")
    assert main(["train", str(corpus), "--subword-prefix", "# #", "-o", str(tmp_path / "t.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "subword prefix '# #' holds a space" in err
