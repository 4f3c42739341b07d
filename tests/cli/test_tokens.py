"""``bpe-lab tokens -t TOKENIZER FILE ...``: tokens per file and in all, as the tokenizer's own
library counts them (GPT-2's r50k as npm's tiktoken ships it, against tiktoken), and the share of
a context window."""

from __future__ import annotations

import json

import pytest
from fetch_tokenizers import named_folder, needed, npm_encoding
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


def test_a_model_names_its_tokenizer_and_its_window(tmp_path, monkeypatch):
    from engine.formats import model_named

    enc = npm_encoding("o200k_base")
    monkeypatch.setenv("BPE_LAB_TOKENIZERS", str(named_folder(tmp_path / "cache", ["o200k"])))
    (tmp_path / "CLAUDE.md").write_text(TEXTS[1], encoding="utf-8")
    model = model_named("gpt-4o")
    assert model is not None and model.tokenizer == "o200k"
    code, out, err = run("tokens", "--model", "GPT-4o", str(tmp_path / "CLAUDE.md"))
    assert code == 0, err
    want = len(enc.encode(TEXTS[1]))
    row = out.splitlines()[1].split()
    assert row[0].endswith("CLAUDE.md") and row[1] == str(want) and row[-1] == f"{want / model.window:.2%}"
    assert out.splitlines()[-1] == f"GPT-4o's window of {model.window:,} tokens: {model.window - want:,} tokens left"
    code, out, _ = run("tokens", "-t", "o200k", str(tmp_path / "CLAUDE.md"))
    assert "gpt-4o (128,000)" in out.splitlines()[-1]  # which models use it, and how to ask for a share


def test_an_unknown_model_or_none_at_all_is_one_line(tmp_path):
    (tmp_path / "a.txt").write_text("hi", encoding="utf-8")
    code, _, err = run("tokens", "--model", "gpt-9", str(tmp_path / "a.txt"))
    assert code == 2 and err.count("\n") == 1 and "unknown model 'gpt-9'" in err
    code, _, err = run("tokens", str(tmp_path / "a.txt"))
    assert code == 2 and err.count("\n") == 1 and "name a tokenizer" in err
