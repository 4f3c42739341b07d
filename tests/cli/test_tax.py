"""``bpe-lab tax``: the token tax with a real tokenizer, its counts as the tokenizer's own library
gives them (GPT-2's r50k as npm's tiktoken ships it, against tiktoken), exported as CSV."""

from __future__ import annotations

import base64
import csv
import io
import json

import pytest
from fetch_tokenizers import needed
from helpers import ROOT

from engine.analysis import parse_parallel
from tui.cli.commands import main


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), out=out, err=err), out.getvalue(), err.getvalue()


def test_the_tax_counts_as_tiktoken_does_and_exports(tmp_path):
    tiktoken = pytest.importorskip("tiktoken")
    path = needed("tiktoken-npm/r50k_base.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    ranks = {}
    for line in filter(None, data["bpe_ranks"].split("\n")):
        _, first, *tokens = line.split(" ")
        ranks.update((base64.b64decode(t), int(first) + i) for i, t in enumerate(tokens))
    enc = tiktoken.Encoding("r50k", pat_str=data["pat_str"], mergeable_ranks=ranks, special_tokens={})
    groups = parse_parallel((ROOT / "assets" / "samples" / "parallel.txt").read_text(encoding="utf-8"))
    want = {lang: sum(len(enc.encode(g[lang])) for g in groups) for lang in ("en", "de", "zh", "ru", "hi", "ar", "ja")}
    out_csv = tmp_path / "tax.csv"
    code, out, err = run("tax", "-t", str(path), "--json", "--csv", str(out_csv))
    assert code == 0, err
    got = json.loads(out)[str(path)]
    assert {lang: v["tokens"] for lang, v in got.items()} == want
    assert got["hi"]["ratio"] == pytest.approx(want["hi"] / want["en"]) and got["en"]["ratio"] == 1.0
    rows = list(csv.DictReader(out_csv.open(encoding="utf-8")))
    assert [(r["language"], int(r["tokens"])) for r in rows] == list(want.items())


def test_a_parallel_file_without_english_is_one_line(tmp_path):
    (tmp_path / "p.txt").write_text("de: Hallo.\nfr: Bonjour.\n", encoding="utf-8")
    code, _, err = run("tax", "-t", "gpt2", "--parallel", str(tmp_path / "p.txt"))
    assert code == 2 and err.count("\n") == 1 and "no English sentences" in err
