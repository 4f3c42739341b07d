"""How each path splits text with a named pattern: the pure path, the readable reference, runs
the pattern over the text and nothing else (no ASCII twin of the pattern, no regions); the
compiled path's scanners take the ASCII stretches (engine.native.scan_regions) and leave only
the rest to the pattern. Both give the pattern's chunks."""

from __future__ import annotations

import sysconfig
from collections import Counter
from pathlib import Path

import pytest
import regex
from hypothesis import given
from hypothesis import strategies as st

import engine.text.pretokenize as pretokenize
from engine.native import scan_regions
from engine.native.door import COMPILED, PURE, WHY_PURE, using
from engine.text.pretokenize import SCAN_MODES, SCAN_PATTERNS, PreTokenizer

#: Every class the patterns tell apart, and the traps: contractions in both cases, \x1c-\x1f
#: (space to ``re``'s \s, not to ``regex``'s), \r\n runs, digit runs longer than three.
#: o200k's: capitals before small letters (``HTTPServer``), punctuation running on over newlines
#: and slashes.
PIECES = ["'s", "'S", "'ll", "'LL", "'Ve", "'re", "'", "'d", "'M", "'t", "a", "Z", "q", "0", "7", "123",
          " ", "  ", "\t", "\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f", "\x00",
          "\x7f", "!", "(", "_", ".", "#", "-", "~", "/", "HTTP", "Server", "bC", "/\n/"]
NAMES = tuple(SCAN_MODES)  # gpt2, gpt4, o200k (a custom pattern that scans as the named ones)
PATHS = [PURE, COMPILED] if COMPILED is not None else [PURE]


def pre_of(name: str) -> PreTokenizer:
    return PreTokenizer(name) if name != "o200k" else PreTokenizer("custom", SCAN_PATTERNS[name])


class Spy:
    """A compiled pattern that records the spans it is asked to scan."""

    groups = 0

    def __init__(self, compiled) -> None:
        self.compiled = compiled
        self.spans: list[tuple[int, int]] = []

    def findall(self, text: str, start: int = 0, stop: int | None = None) -> list[str]:
        stop = len(text) if stop is None else stop
        self.spans.append((start, stop))
        return self.compiled.findall(text, start, stop)


def spied(name: str) -> tuple[PreTokenizer, Spy]:
    pre = pre_of(name)
    spy = Spy(pre._regex())
    object.__setattr__(pre, "_compiled", spy)
    return pre, spy


def code_and_chinese() -> str:
    root = Path(sysconfig.get_paths()["stdlib"])
    code = "".join(p.read_text(encoding="utf-8", errors="replace") for p in sorted(root.glob("[a-b]*.py")))
    return code[:20_000] + "\n# 秦川雄帝宅，函谷壮皇居。\n" + code[20_000:40_000]


def test_the_pure_path_has_no_ascii_twin_and_no_regions():
    assert not hasattr(pretokenize, "ASCII_PATTERNS") and not hasattr(pretokenize, "_ascii_compiled")
    assert not hasattr(pretokenize, "_regions") and not hasattr(pretokenize, "_REGIONS_MIN")
    source = Path(pretokenize.__file__).read_text(encoding="utf-8")
    assert "scan_regions" not in source.split('"""', 2)[2]  # (named in the module doc only)


@pytest.mark.parametrize("name", NAMES)
def test_the_pure_path_runs_the_pattern_over_the_whole_text(name):
    text = code_and_chinese()
    with using(PURE):
        pre, spy = spied(name)
        assert pre.split(text) == regex.findall(SCAN_PATTERNS[name], text)
        assert spy.spans == [(0, len(text))]
        spy.spans.clear()
        assert pre.count(text) == Counter(regex.findall(SCAN_PATTERNS[name], text))
        assert spy.spans == [(0, len(text))]  # one piece: the text is shorter than two


@pytest.mark.skipif(COMPILED is None, reason=f"no compiled core here: {WHY_PURE}")
@pytest.mark.parametrize("name", NAMES)
def test_the_compiled_path_leaves_only_what_is_not_ascii_to_the_pattern(name):
    text = code_and_chinese()
    with using(COMPILED):
        pre, spy = spied(name)
        ascii_only = text.encode("ascii", "ignore").decode("ascii")
        assert pre.split(ascii_only) == regex.findall(SCAN_PATTERNS[name], ascii_only)
        assert spy.spans == []  # all of it by the scanners
        assert pre.split(text) == regex.findall(SCAN_PATTERNS[name], text)
        assert spy.spans and sum(stop - start for start, stop in spy.spans) < len(text) // 4  # one region
        assert all(not text[start:stop].isascii() for start, stop in spy.spans)


@pytest.mark.parametrize("name", NAMES)
@given(st.lists(st.sampled_from(PIECES), max_size=400))
def test_random_ascii_text_on_both_paths(name, pieces):
    text = "".join(pieces)
    expected = regex.findall(SCAN_PATTERNS[name], text)
    for native in PATHS:
        with using(native):
            pre = pre_of(name)
            assert pre.split(text) == expected
            assert pre.count(text) == Counter(expected)
            assert [c for batch in pre.batches(text) for c in batch] == expected


@pytest.mark.skipif(COMPILED is None, reason=f"no compiled core here: {WHY_PURE}")
@pytest.mark.parametrize("name", NAMES)
@given(st.lists(st.sampled_from([*PIECES, "\nx", "\n)", "\n/", "é", "中文", "\u00a0"]), max_size=200))
def test_the_compiled_batches_cut_long_ascii_regions_at_safe_cuts(name, pieces):
    """The compiled path's batches (positioned() reads them: the app's corpus layout) scan an
    ASCII region a piece at a time, cut where the pattern surely ends a chunk: here pieces of a
    few characters, and regions however short the text."""
    text = "".join(pieces)
    with pytest.MonkeyPatch.context() as patch, using(COMPILED):
        patch.setattr(scan_regions, "PIECE", 8)
        patch.setattr(scan_regions, "REGIONS_MIN", 1)
        pre = pre_of(name)
        assert [c for batch in pre.batches(text) for c in batch] == regex.findall(SCAN_PATTERNS[name], text)
        assert list(pre.positioned(text)) == [(m.start(), m.group()) for m in regex.finditer(SCAN_PATTERNS[name], text)]


@pytest.mark.parametrize("name", NAMES)
def test_python_sources_on_both_paths(name):
    root = Path(sysconfig.get_paths()["stdlib"])
    text = "".join(p.read_text(encoding="utf-8", errors="replace") for p in sorted(root.glob("[a-f]*.py")))
    text = text.encode("ascii", "ignore").decode("ascii")
    assert len(text) > 100_000
    expected = regex.findall(SCAN_PATTERNS[name], text)
    for native in PATHS:
        with using(native):
            assert pre_of(name).split(text) == expected


#: Beyond ASCII, a character of each class the gpt2 pattern tells apart and its traps: letters
#: (CJK, a titlecase Lt, a modifier Lm), digits (fullwidth, superscript No, Roman Nl, a CJK
#: numeral that str.isnumeric() takes for a digit), spaces (ideographic, no-break, NEL, line
#: separator), the rest (CJK punctuation, a combining mark, an emoji past the BMP, a lone
#: surrogate as surrogateescape makes one).
WIDE = ["中", "文", "，", "。", "\u01c5", "\u02b0", "\uff11", "\u00b2", "\u216b", "\u4e00", "\u3000", "\u00a0",
        "\u0085", "\u2028", "\u0301", "\U0001f600", "\udc80", "é"]


@pytest.mark.skipif(COMPILED is None, reason=f"no compiled core here: {WHY_PURE}")
@given(st.lists(st.sampled_from([*PIECES, *WIDE]), max_size=300))
def test_the_compiled_gpt2_count_of_any_text_is_the_patterns(pieces):
    """Under gpt2 the compiled path counts a text that is not all ASCII wholly in C, each
    character classed by the regex module: the pattern's chunks and counts, in the order of
    first appearance, added after what the counts held."""
    text = "".join(pieces)
    expected = Counter({"earlier": 2})
    expected.update(regex.findall(SCAN_PATTERNS["gpt2"], text))
    with using(COMPILED):
        counted = PreTokenizer("gpt2").count_raw(text, Counter({"earlier": 2}))
    assert list(counted.items()) == list(expected.items())


@pytest.mark.skipif(COMPILED is None, reason=f"no compiled core here: {WHY_PURE}")
def test_the_compiled_gpt2_count_never_asks_the_pattern():
    text = code_and_chinese()
    with using(COMPILED):
        pre, spy = spied("gpt2")
        assert list(pre.count(text).items()) == list(Counter(regex.findall(SCAN_PATTERNS["gpt2"], text)).items())
        assert spy.spans == []
