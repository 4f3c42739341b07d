"""Issue 24's fast counting paths count exactly what ``Counter(regex.findall(pattern, text))``
counts, in the same order of first appearance, on both paths (pure and compiled):

- the compiled core counts ASCII regions itself (engine.native.compiled.count_ascii): a text that
  is not all ASCII is cut in regions (engine.native.scan_regions.regions), the ASCII ones for
  its scanners, the rest for the pattern; the pure path runs the pattern over the text;
- corpus counting adds each piece's chunks straight into the corpus's counts;
- ``Imported.ids_text`` writes ``bpe-lab encode``'s ids as ``" ".join(map(str, to_file_ids))``.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest
import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import PreTokenizer
from engine.corpus.reading import count_corpus
from engine.native import scan_regions
from engine.native.door import COMPILED, PURE, WHY_PURE, using
from engine.text.pretokenize import NAMED_PATTERNS, SCAN_MODES, SCAN_PATTERNS

compiled = COMPILED.core if COMPILED is not None else None
needs_compiled = pytest.mark.skipif(compiled is None, reason=f"no compiled core here: {WHY_PURE}")
NAMES = tuple(SCAN_MODES)  # gpt2, gpt4, o200k (a custom pattern with fast paths)

#: The traps of the ASCII scanners (contractions in both cases, \x1c-\x1f: space to ``re``'s \s,
#: not to ``regex``'s, \r\n runs, digit runs longer than three, o200k's capitals before small
#: letters and punctuation running on over newlines and slashes) and of the regions: newlines
#: before printable ASCII (safe cuts), before space and before other characters; letters,
#: digits, spaces and punctuation outside ASCII; lone surrogates (undecodable bytes).
ASCII_PIECES = ["'s", "'S", "'ll", "'LL", "'Ve", "'re", "'", "'d", "'M", "'t", "a", "Z", "q", "0", "7", "1234",
                " ", "  ", "\t", "\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x1f", "\x00", "\x7f", "!", "(",
                "_", ".", "#", "-", "~", "\nx", "\n)", "\n ", "\n\n", "HTTP", "Server", "bC", "/", "\n/"]
OTHER_PIECES = ["é", "中文", "ſ", "K", "²", "١٢", "\u00a0", "\u2028", "\u3000", "\x85", "→", "😀", "\udcff", "ǅ"]


def pre_of(name: str) -> PreTokenizer:
    """The pre-tokenizer of a fast path: o200k's is custom (its pattern), the others named."""
    return PreTokenizer(name) if name in NAMED_PATTERNS else PreTokenizer("custom", SCAN_PATTERNS[name])


def pieces(other: bool = True):
    alphabet = ASCII_PIECES + OTHER_PIECES if other else ASCII_PIECES
    return st.lists(st.sampled_from(alphabet), max_size=120).map("".join)


def naive(name: str, text: str) -> Counter[str]:
    return Counter(regex.findall(SCAN_PATTERNS[name], text))


@pytest.fixture
def paths():
    """The backends the body runs on (with using()): the pure one, then the compiled one when it is here."""
    return [PURE, COMPILED] if COMPILED is not None else [PURE]


@pytest.fixture
def small_regions(monkeypatch):
    """The compiled scanners and their regions from a few characters on, so that every boundary case shows."""
    monkeypatch.setattr(scan_regions, "REGIONS_MIN", 1)


@needs_compiled
@pytest.mark.parametrize("name", NAMES)
@given(text=pieces(other=False), cut=st.integers(0, 130), drop=st.booleans())
def test_the_compiled_ascii_counter_counts_as_the_pattern(name, text, cut, drop):
    """count_ascii over text[start:stop] (as if the text ended there) equals the pattern's
    matches there, the last one left out when asked (-1 when that one is longer than a
    character, and then nothing is counted)."""
    stop = min(cut, len(text))
    counts: dict[str, int] = {"before": 1}
    found = regex.compile(SCAN_PATTERNS[name]).findall(text, 0, stop)
    got = compiled.count_ascii(counts, text, 0, stop, SCAN_MODES[name], drop)
    if drop and found and len(found[-1]) != 1:
        assert got == -1 and counts == {"before": 1}
        return
    if drop:
        found = found[:-1]
    expected = Counter({"before": 1})
    expected.update(found)
    assert got == len(found)
    assert counts == expected and list(counts) == list(expected)


@needs_compiled
@pytest.mark.parametrize("name", NAMES)
def test_the_compiled_ascii_counter_on_every_pair_of_ascii_characters(name):
    chars = [chr(i) for i in range(128)]
    pattern = regex.compile(SCAN_PATTERNS[name])
    for a in chars:
        for b in chars:
            text = a + b + " " + a + "\n" + b + "  " + a + "'" + b
            counts: dict[str, int] = {}
            compiled.count_ascii(counts, text, 0, len(text), SCAN_MODES[name], False)
            expected = Counter(pattern.findall(text))
            assert counts == expected and list(counts) == list(expected), repr(text)


@needs_compiled
@pytest.mark.parametrize("name", NAMES)
@given(text=pieces(other=False), cut=st.integers(0, 130), drop=st.booleans())
def test_the_compiled_ascii_splitter_splits_as_the_pattern(name, text, cut, drop):
    """split_ascii appends the pattern's matches (the last one left out when asked), one
    string object per distinct chunk; -1 and nothing appended where count_ascii gives -1."""
    stop = min(cut, len(text))
    found = regex.compile(SCAN_PATTERNS[name]).findall(text, 0, stop)
    out = ["before"]
    got = compiled.split_ascii(out, text, 0, stop, SCAN_MODES[name], drop)
    if drop and found and len(found[-1]) != 1:
        assert got == -1 and out == ["before"]
        return
    if drop:
        found = found[:-1]
    assert got == len(found) and out == ["before", *found]
    assert len({id(c) for c in out[1:]}) == len(set(found))


@needs_compiled
def test_the_compiled_ascii_counter_refuses_what_is_not_ascii():
    counts: dict[str, int] = {}
    assert compiled.count_ascii(counts, "ab é", 0, 4, False, False) == -1 and counts == {}
    assert compiled.count_ascii(counts, "ab é", 0, 3, False, False) == 2 and counts == {"ab": 1, " ": 1}
    assert compiled.count_ascii(counts, "ab", 0, 0, False, False) == 0


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])  # fixtures: per test
@given(text=pieces())
def test_counting_in_regions_equals_the_pattern(paths, small_regions, name, text):
    expected = naive(name, text)
    for native in paths:
        with using(native):
            tokenizer = pre_of(name)
            counts = tokenizer.count_raw(text)
            assert counts == expected and list(counts) == list(expected)
            assert tokenizer.split(text) == regex.findall(SCAN_PATTERNS[name], text)
            into: Counter[str] = Counter({"x": 2})
            tokenizer.count_raw(text, into)
            assert into == Counter({"x": 2}) + expected and list(into)[1:] == [c for c in expected if c != "x"]


@pytest.mark.parametrize("name", NAMES)
@given(text=pieces())
def test_the_regions_cover_the_text_and_cut_only_at_safe_cuts(name, text):
    regions = list(scan_regions.regions(text, scan_regions.CUTS[SCAN_MODES[name]]))
    assert [r[0] for r in regions] == [r[1] for r in [(0, 0, True), *regions[:-1]]][:len(regions)]
    assert [r[1] for r in regions[-1:]] == ([len(text)] if text else [])
    for start, end, ascii in regions:
        assert start < end
        if end < len(text):
            assert text[end - 1] == "\n" and "\x21" <= text[end] <= "\x7e"
            assert name != "o200k" or text[end] != "/"  # o200k carries punctuation on over "\n/"
        if ascii:
            assert text[start:end + 1].isascii()


@pytest.mark.parametrize("name", ["gpt2", "gpt4"])  # a custom pattern (o200k's) is counted whole
def test_corpus_counting_equals_the_pattern_on_code_with_a_few_other_characters(tmp_path, paths, name):
    """A corpus file counted block by block, in one process and in two, through every path."""
    import sysconfig
    from pathlib import Path

    root = Path(sysconfig.get_paths()["stdlib"])
    text = "".join(p.read_text(encoding="utf-8", errors="replace") for p in sorted(root.glob("[a-c]*.py")))
    text = text.replace("def ", "def é", 50).replace("return", "return 中文 →", 30) + "\n\nx = 'naïve'  \n"
    path = tmp_path / "code.txt"
    path.write_text(text, encoding="utf-8")
    expected = naive(name, text)
    for native in paths:
        for processes in (1, 2):
            with using(native):
                counts = count_corpus(path, pre_of(name), block=1 << 16, processes=processes).chunks
            assert counts == expected and list(counts) == list(expected)


# -- bpe-lab encode's output ------------------------------------------------------------------


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.integers(0, 40), max_size=200), st.sampled_from(["none", "table", "gaps"]))
def test_ids_text_writes_the_file_ids(paths, ids, kind):
    from engine.encode.tokenizer import Tokenizer
    from engine.errors import TokenIdError
    from engine.formats.common import Imported

    file_ids = {"none": None, "table": [i * 7919 + 3 for i in range(300)],
                "gaps": [None if i % 5 == 0 else i + 1000 for i in range(300)]}[kind]
    imported = Imported(Tokenizer([]), "tiktoken", "f.tiktoken", file_ids=file_ids)
    for native in paths:
        try:
            expected = " ".join(map(str, imported.to_file_ids(ids)))
        except TokenIdError as error:
            with using(native), pytest.raises(TokenIdError, match=re.escape(str(error))):
                imported.ids_text(ids)
            continue
        with using(native):
            assert imported.ids_text(ids) == expected


@needs_compiled
def test_ids_text_leaves_what_it_cannot_map_to_the_pure_path():
    assert compiled.ids_text([3, 1], [10, 20, 30, 40]) == "40 20"
    assert compiled.ids_text([0, 2**31, 7]) is None
    assert compiled.ids_text([1], [5]) is None  # out of the table
    assert compiled.ids_text([0], [None]) is None
    assert compiled.ids_text([True]) is None
    assert compiled.ids_text([2**70]) is None and compiled.ids_text([-1]) is None and compiled.ids_text([-(2**70)]) is None
    assert compiled.ids_text([0], [2**70]) is None and compiled.ids_text([1, 0], [-1, 2**31 - 1]) is None
