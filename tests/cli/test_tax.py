"""``bpe-lab tax``: the token tax with a real tokenizer, its counts as the tokenizer's own library
gives them (GPT-2's r50k as npm's tiktoken ships it, against tiktoken), exported as CSV."""

from __future__ import annotations

import csv
import json

import pytest
from fetch_tokenizers import needed, npm_encoding
from helpers import ROOT
from local_index import run

from engine.analysis import parse_parallel


def test_the_tax_counts_as_tiktoken_does_and_exports(tmp_path):
    enc = npm_encoding("r50k_base")
    path = needed("tiktoken-npm/r50k_base.json")
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
