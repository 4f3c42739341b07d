"""The acceptance texts every real tokenizer file is checked on (issue 23): English, German,
Chinese, Turkish, Vietnamese and Czech (where Llama 3's whole-piece tokens live), code, emoji,
numbers and runs of spaces, and bytes that are not UTF-8. One list, used by every test of a real
file (tests/engine/test_formats_real*.py, test_formats_sentencepiece*.py, test_endofword_real.py).

Imported as ``from texts import ...`` (pytest puts ``tests/engine`` on the path).
"""

from __future__ import annotations

#: Text in the languages and shapes the issue names.
TEXTS = [
    "The baker opens the bakery at six. It's 7:45 already! Don't, won't, I'll, we've.",
    "Grüße aus München, Köln und Düsseldorf! Straßenbahnhaltestelle.",
    "分词器不认识汉字，它只认识字节。今天天气很好。",
    "Türkiye Büyükşehir Belediyesi Ayrıca açıklama yaptı. Erdoğan İstanbul'da konuştu.",
    "Việt Nam là một quốc gia nằm ở cực Đông của bán đảo Đông Dương. Người Việt nói tiếng Việt.",
    "Václav Havel byl český dramatik a první prezident České republiky. Příliš žluťoučký kůň úpěl ďábelské ódy.",
    "def merge(ids, pair):\n    out = []\n\tfor i in ids:\n        out.append(i)  \n\n    return out\r\n",
    "emoji 😀👍🏽 family 👨‍👩‍👧 flags 🇩🇪  ",
    "1234567890 12 3 0.5 ٣٤٥ 2024-11-30   \n\n\n  c \t\t d",
]

#: SentencePiece's own hard cases on top: a leading space, runs of spaces (the ▁▁ pieces),
#: control characters and tabs (byte pieces), a literal ▁, characters no piece holds.
SPM_TEXTS = [
    *TEXTS,
    " leading space", "  two", "▁literal ▁ marks", "a" * 40 + " " * 17 + "b", "\x00\x01\x7f", "ﬁ 𝟙 …",
    "ᚠᛇᚻ ꙮ 𓀀 \U0010fffd",
]

#: Bytes that are not UTF-8 (tiktoken splits and merges them as bytes; sentencepiece reads each
#: as U+FFFD).
INVALID = [b"\xff\xfe abc \xc3", b"caf\xe9 \x80\x81\x82 ok", b"\xe4\xb8 half"]
