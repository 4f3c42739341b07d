"""``bpe-lab train --force-merge`` and ``--merges-prefix`` (issue 14, part 3), in process."""

from __future__ import annotations

import io
import json

import pytest

import tui.cli.commands as cli
from engine import Tokenizer, TrainConfig, Trainer
from tui.model.finder import parse_tokens

CORPUS = "the cat in the hat sat on the mat\nthe cat ate the rat\n"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_parse_tokens_reads_the_panes_notation():
    assert parse_tokens("·t he") == [b" t", b"he"]
    assert parse_tokens("[e4 b8] [ad]") == [b"\xe4\xb8", b"\xad"]
    assert parse_tokens("，[e5]  x↵") == ["，".encode() + b"\xe5", b"x\n"]
    assert parse_tokens("[zz] a") == [b"[zz]", b"a"]


def test_forced_merges_come_first_and_are_marked_in_the_log(tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_text(CORPUS, encoding="utf-8")
    out = tmp_path / "tok.json"
    code, log, err = run("train", str(corpus), "-o", str(out), "--merges", "5", "--log",
                         "--force-merge", "a t", "--force-merge", "· c", "--force-merge", "·c at")
    assert code == 0, err
    lines = log.splitlines()
    assert [line.endswith("[manual]") for line in lines] == [True, True, True, False, False]
    assert "·c + at" in lines[2] and "5 merges" in err
    merges = Tokenizer.load(out).merges
    assert merges[:3] == [(97, 116), (32, 99), (257, 256)]
    # The rest is the rule's choice after those three, as a trainer forced the same way makes.
    trainer = Trainer(CORPUS, TrainConfig(pretokenizer="gpt2", max_merges=5))
    for pair in merges[:3]:
        trainer.force(pair)
    assert [e.pair for e in trainer.history + trainer.train()] == merges


@pytest.mark.parametrize("fmt", ["hf", "gpt2", "native"])
def test_a_merges_prefix_replays_another_tokenizers_merges(tmp_path, fmt):
    corpus = tmp_path / "c.txt"
    corpus.write_text(CORPUS, encoding="utf-8")
    first = tmp_path / "first.json"
    assert run("train", str(corpus), "-o", str(first), "--merges", "3", "--force-merge", "a t")[0] == 0
    target = tmp_path / ("prefix" if fmt == "gpt2" else f"prefix-{fmt}.json")
    if fmt == "native":
        target = first
    else:
        assert run("export", "-t", str(first), "--format", fmt, "-o", str(target))[0] == 0
        if fmt == "gpt2":
            target = target / "merges.txt"
    out = tmp_path / "tok.json"
    code, log, err = run("train", str(corpus), "-o", str(out), "--merges", "5", "--log", "--merges-prefix", str(target))
    assert code == 0, err
    assert Tokenizer.load(out).merges[:3] == Tokenizer.load(first).merges
    assert [line.endswith("[manual]") for line in log.splitlines()] == [True, True, True, False, False]


def test_an_export_with_manual_merges_loads_in_tokenizers(tmp_path):
    tokenizers = pytest.importorskip("tokenizers")
    corpus = tmp_path / "c.txt"
    corpus.write_text(CORPUS, encoding="utf-8")
    ours = tmp_path / "tok.json"
    assert run("train", str(corpus), "-o", str(ours), "--merges", "6", "--force-merge", "a t", "--force-merge", "· c",
               "--force-merge", "·c at")[0] == 0
    hf = tmp_path / "tokenizer.json"
    assert run("export", "-t", str(ours), "--format", "hf", "-o", str(hf))[0] == 0
    theirs = tokenizers.Tokenizer.from_file(str(hf))
    mine = Tokenizer.load(ours)
    for text in (CORPUS, "the cat sat on a mat", "catcat  at"):
        assert theirs.encode(text).ids == mine.encode(text)
    assert "Ġcat" in theirs.encode("the cat").tokens
    assert json.loads(hf.read_text(encoding="utf-8"))["model"]["type"] == "BPE"
