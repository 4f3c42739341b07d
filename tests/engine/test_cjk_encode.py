"""Chinese encoded with OpenAI's real ranks gives tiktoken's ids (issue 43): GPT-2's (r50k),
cl100k's and o200k's, as npm's tiktoken ships them (the test cache: tests/fetch_tokenizers.py),
on slices of tang_all.txt (../shared/corpora) and on text mixing Chinese with what borders it
(Japanese, Korean, full-width forms, marks, apostrophes, \\r\\n, characters past U+FFFF, ASCII).
The compiled path scans such text itself (``TextCoder``'s wide scan) and merges its characters
first; the pure path, the reference, runs the pattern and merges bytes: both must be tiktoken's."""

from __future__ import annotations

import pytest
from fetch_tokenizers import load_cached, needed, npm_encoding
from helpers import sample_text, shared_corpus

from engine.native.door import backend

#: Chinese with its neighbours: each line a trap for the split or the merge.
MIXED = "\n".join([
    "床前明月光，疑是地上霜。举头望明月，低头思故乡。",
    "日本語のテキスト、カタカナ「ラーメン」とひらがな。々〇〻",
    "한국어 텍스트입니다. 中文English混合abc中文123中文",
    "ＡＢＣ１２３（全角）　表意空白　中文\u3000\u3000中",
    "中文's 中文'S 中文'll 中'文 /中/文/ 中/\n/中",
    "中\r\n文\r\r\n\n\n中。\n\n。\r\n",
    "𠀀𠀁中𪚥文 😀中 é中 ×中« » 中\u0301文\u3099",
    "  中文  \t中\n  \n中。 。 ，，中",
    "def f(x):  # 函数\n    return '中文'  # → 返回\n",
])


def tang_slices() -> str:
    """About 150,000 characters of tang_all.txt: its start, middle and end."""
    text = shared_corpus("tang_all.txt").read_text(encoding="utf-8")
    k = 50_000
    middle = len(text) // 2
    return text[:k] + text[middle:middle + k] + text[-k:]


@pytest.fixture(scope="module")
def chinese() -> str:
    return tang_slices()


@pytest.mark.parametrize("name", ["r50k_base", "cl100k_base",
                                  pytest.param("o200k_base", marks=pytest.mark.slow)])
def test_chinese_gets_tiktokens_ids(name, chinese):
    theirs = npm_encoding(name)
    ours = load_cached(needed(f"tiktoken-npm/{name}.json"))
    tok = ours.tokenizer
    mixed = MIXED + sample_text("chinese.txt")
    latin1 = "×\n«»\n¡Hola!\n¿Qué?\n× × ×\n\n«x»\n÷±\n" * 8  # one byte a character: other characters that are not CJK
    for text in (chinese, mixed, mixed * 3, MIXED.replace("\n", ""), latin1):
        assert ours.to_file_ids(tok.encode_ordinary(text)) == theirs.encode_ordinary(text)
    if backend().compiled:
        assert tok._coder  # the whole-text encoder took them
    for line in MIXED.split("\n"):  # each alone: short texts go through the split and the cache
        assert ours.to_file_ids(tok.encode_ordinary(line)) == theirs.encode_ordinary(line), line
