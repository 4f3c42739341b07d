"""The named patterns' ASCII twins (engine.text.pretokenize.ASCII_PATTERNS) split ASCII text exactly
as the patterns themselves do."""

from __future__ import annotations

import re
import sysconfig
from pathlib import Path

import pytest
import regex
from hypothesis import given
from hypothesis import strategies as st

from engine.text.pretokenize import ASCII_PATTERNS, SCAN_PATTERNS, PreTokenizer

#: Every class the patterns tell apart, and the traps: contractions in both cases, \x1c-\x1f
#: (space to ``re``'s \s, not to ``regex``'s), \r\n runs, digit runs longer than three.
#: o200k's: capitals before small letters (``HTTPServer``), punctuation running on over newlines
#: and slashes.
PIECES = ["'s", "'S", "'ll", "'LL", "'Ve", "'re", "'", "'d", "'M", "'t", "a", "Z", "q", "0", "7", "123",
          " ", "  ", "\t", "\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f", "\x00",
          "\x7f", "!", "(", "_", ".", "#", "-", "~", "/", "HTTP", "Server", "bC", "/\n/"]


def pair(name: str):
    return regex.compile(SCAN_PATTERNS[name]), re.compile(ASCII_PATTERNS[name])


@pytest.mark.parametrize("name", sorted(ASCII_PATTERNS))
def test_every_ascii_character_alone_and_in_pairs(name):
    slow, fast = pair(name)
    chars = [chr(i) for i in range(128)]
    for a in chars:
        for b in chars:
            text = a + b + " " + a + "\n" + b
            assert slow.findall(text) == fast.findall(text), repr(text)


@pytest.mark.parametrize("name", sorted(ASCII_PATTERNS))
@given(st.lists(st.sampled_from(PIECES), max_size=60), st.integers(0, 70), st.integers(0, 70))
def test_random_ascii_text(name, pieces, pos, end):
    slow, fast = pair(name)
    text = "".join(pieces)
    assert slow.findall(text) == fast.findall(text)
    assert slow.findall(text, pos, end) == fast.findall(text, pos, end)  # batches() scans pieces


@pytest.mark.parametrize("name", sorted(ASCII_PATTERNS))
def test_python_sources(name):
    slow, fast = pair(name)
    root = Path(sysconfig.get_paths()["stdlib"])
    text = "".join(p.read_text(encoding="utf-8", errors="replace") for p in sorted(root.glob("[a-f]*.py")))
    text = text.encode("ascii", "ignore").decode("ascii")
    assert len(text) > 100_000
    assert slow.findall(text) == fast.findall(text)


@pytest.mark.parametrize("name", sorted(ASCII_PATTERNS))
def test_the_pre_tokenizer_uses_the_twin_only_on_ascii(name):
    pre = PreTokenizer(name) if name != "o200k" else PreTokenizer("custom", SCAN_PATTERNS[name])
    assert pre._scanner("abc") is not pre._regex()
    assert pre._scanner("abcé") is pre._regex()
    assert pre.split("naïve café 'S") == pair(name)[0].findall("naïve café 'S")
