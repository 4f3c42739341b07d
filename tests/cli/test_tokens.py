"""``bpe-lab tokens -t TOKENIZER FILE ...``: tokens per file and in all, as the tokenizer's own
library counts them (GPT-2's r50k as npm's tiktoken ships it, against tiktoken), and the share of
a context window."""

from __future__ import annotations

import json

import pytest
from fetch_tokenizers import needed, npm_encoding
from local_index import run

TEXTS = ["Hello world, this is GPT-2.", "Tokenisierung: Wie Maschinen lesen.  Zwei  Leerzeichen.",
         "def f(x):\n\treturn x * 2  # 你好 🦙"]


def test_tokens_per_file_as_tiktoken_counts_them(tmp_path):
    enc = npm_encoding("r50k_base")
    path = needed("tiktoken-npm/r50k_base.json")
    files = []
    for k, text in enumerate(TEXTS[:3]):
        files.append(tmp_path / f"f{k}.md")
        files[-1].write_text(text, encoding="utf-8")
    code, out, err = run("tokens", "-t", str(path), *map(str, files), "--window", "1000", "--json")
    assert code == 0, err
    got = json.loads(out)
    want = [len(enc.encode(text)) for text in TEXTS[:3]]
    assert [f["tokens"] for f in got["files"]] == want and got["tokens"] == sum(want)
    assert got["share"] == pytest.approx(sum(want) / 1000)
    code, out, _ = run("tokens", "-t", str(path), *map(str, files), "--window", "1000")
    lines = out.splitlines()
    assert lines[0].split() == ["file", "tokens", "chars", "tokens/char", "share"] and lines[-2].startswith("all ")
    assert lines[-1] == f"a window of 1,000 tokens: {1000 - sum(want):,} tokens left"


def test_a_bad_window_is_one_line(tmp_path):
    (tmp_path / "a.txt").write_text("hi", encoding="utf-8")
    code, _, err = run("tokens", "-t", "gpt2", str(tmp_path / "a.txt"), "--window", "0")
    assert code == 2 and err.strip() == "bpe-lab: error: --window must be a whole number of tokens from 1 to 10^12"
