"""Qwen's rank file (``qwen.tiktoken``, as dashscope ships it): it holds neither its pattern nor
that Qwen's library normalizes text to NFC first, nor its specials; bpe-lab recognizes the file
by its content and takes all three, as dashscope's QwenTokenizer does. The reference is that
tokenizer's own recipe run with tiktoken: NFC, then Qwen's pattern and specials."""

from __future__ import annotations

import base64
import unicodedata

import pytest
from fetch_tokenizers import load_cached, needed
from texts import TEXTS

from engine.text.pretokenize import QWEN_PATTERN

SPECIALS = ("<|endoftext|>", "<|im_start|>", "<|im_end|>", *(f"<|extra_{i}|>" for i in range(205)))
#: Texts NFC changes (a combining accent, a Hangul jamo run, a compatibility form NFC keeps).
NFD = ["Cafe\u0301 e\u0301te\u0301", "\u1100\u1161\u11a8 \u1112\u1161\u11ab", "ﬁne ①", "<|im_start|>user 12345<|im_end|>"]


@pytest.mark.slow  # (recovering 151,643 ranks' merges on the pure path the first time: seconds)
def test_qwens_rank_file_is_read_as_its_library_reads_it():
    tiktoken = pytest.importorskip("tiktoken")
    path = needed("qwen.tiktoken")
    ranks = {base64.b64decode(token): int(rank)
             for token, rank in (line.split() for line in path.read_bytes().splitlines() if line)}
    theirs = tiktoken.Encoding("Qwen", pat_str=QWEN_PATTERN, mergeable_ranks=ranks,
                               special_tokens={t: 151643 + k for k, t in enumerate(SPECIALS)})
    ours = load_cached(path)
    assert any("NFC" in note for note in ours.warnings)
    for text in [*TEXTS, *NFD]:
        want = theirs.encode(unicodedata.normalize("NFC", text), allowed_special="all")
        assert ours.encode(text) == want, text
        assert ours.decode(want) == unicodedata.normalize("NFC", text)
