"""Other spellings of a named pattern (engine.text.pretokenize.SAME_AS): Llama 3's pattern matches
exactly what cl100k's (gpt4) matches, so a custom pre-tokenizer with it is split by gpt4's fast
paths and still reads, writes and shows as custom; and Llama 3's real rank file encodes long
text through them as tiktoken does."""

from __future__ import annotations

from collections import Counter
from contextlib import contextmanager

import pytest
import regex
from fetch_tokenizers import LLAMA3_PATTERN as META_LLAMA3
from helpers import shared_corpus
from hypothesis import example, find, given, settings
from hypothesis import strategies as st
from texts import TEXTS

import engine.text.pretokenize as pre
from engine.native import scan_regions
from engine.native.door import COMPILED, PURE, WHY_PURE, using
from engine.text.pretokenize import (
    GPT2_PATTERN,
    GPT2_SPELLED_OUT,
    GPT4_PATTERN,
    LLAMA3_PATTERN,
    O200K_PATTERN,
    SAME_AS,
    SCAN_MODES,
    PreTokenizer,
)

# What the two patterns could disagree on: contractions in any case (and the long s, which
# folds to s), letters and digits of other scripts, every kind of space and newline, runs of
# punctuation before newlines.
TRAPS = "'’sStTdDmMlLvVreEſKİı中文éß٣²1234567890 \t\n\r\x0b\x0c\u00a0\u2028\u3000!?.,;:-_/()[]{}\"#😀"

GPT4 = regex.compile(GPT4_PATTERN)
LLAMA3 = regex.compile(LLAMA3_PATTERN)
GPT2 = regex.compile(GPT2_PATTERN)
GPT2_OUT = regex.compile(GPT2_SPELLED_OUT)


def test_the_engine_knows_the_pattern_meta_ships():
    assert LLAMA3_PATTERN == META_LLAMA3
    assert SAME_AS[LLAMA3_PATTERN] == "gpt4"


@given(st.text(alphabet=TRAPS, max_size=60))
def test_llama3_matches_what_cl100k_matches(text):
    assert LLAMA3.findall(text) == GPT4.findall(text)


@given(st.text(alphabet=TRAPS, max_size=60))
def test_gpt2_spelled_out_matches_what_gpt2_matches(text):
    assert GPT2_OUT.findall(text) == GPT2.findall(text)
    assert PreTokenizer("custom", GPT2_SPELLED_OUT).scan == "gpt2"


@pytest.mark.parametrize("other", [
    # tiktoken's newer cl100k spelling: a whitespace run at the end of the text is one chunk
    r"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s",
    LLAMA3_PATTERN.replace("(?i:'s|'t|'re|'ve|'m|'ll|'d)", "'s|'t|'re|'ve|'m|'ll|'d"),  # case-sensitive
    LLAMA3_PATTERN.replace(r"\p{N}{1,3}", r"\p{N}"),  # Qwen 2's digits
])
def test_the_texts_tell_a_pattern_that_differs(other):
    """The strategy above finds where a near spelling splits otherwise (so its test can fail)."""
    other = regex.compile(other)
    found = find(st.text(alphabet=TRAPS, max_size=60), lambda text: other.findall(text) != GPT4.findall(text),
                 settings=settings(max_examples=5000, database=None, derandomize=True))
    assert other.findall(found) != GPT4.findall(found)


@pytest.mark.parametrize("name", ["tang_all.txt", "the-verdict.txt"])
def test_llama3_matches_what_cl100k_matches_on_real_text(name):
    path = shared_corpus(name)
    if path is None:
        pytest.skip("../shared/corpora is absent")
    text = path.read_text(encoding="utf-8")[:300_000]
    assert LLAMA3.findall(text) == GPT4.findall(text)
    assert GPT2_OUT.findall(text) == GPT2.findall(text)


def mixed_text():
    # long enough for the compiled scanners' regions and whole-text encoder, not all ASCII
    return "\n".join(TEXTS * 40) + " It'S  \r\n\n  done ٣٤٥ 2024\n"


def test_a_custom_llama3_splits_as_its_own_pattern_and_stays_custom():
    pre = PreTokenizer("custom", LLAMA3_PATTERN)
    assert pre.scan == "gpt4" and pre.name == "custom" and pre.covers_everything
    text = mixed_text()
    expected = LLAMA3.findall(text)
    assert pre.split(text) == expected
    assert pre.count(text) == Counter(expected)
    assert [c for batch in pre.batches(text) for c in batch] == expected
    assert pre.to_dict()["name"] == "custom" and pre.to_dict()["pattern"] == LLAMA3_PATTERN
    assert PreTokenizer.from_dict(pre.to_dict()) == pre


def test_a_pattern_that_differs_keeps_its_own_scan():
    qwen = LLAMA3_PATTERN.replace(r"\p{N}{1,3}", r"\p{N}")  # Qwen 2: one digit a chunk
    pre = PreTokenizer("custom", qwen)
    assert pre.scan == "custom" and not pre.covers_everything
    assert pre.split("year 2024, it's") == regex.findall(qwen, "year 2024, it's")


@contextmanager
def rank_file(name: str, pattern: str, compiled: bool):
    """The cached rank file ``name`` read with ``pattern``, on the compiled core or the pure
    path, and tiktoken with the same ranks and pattern."""
    tiktoken = pytest.importorskip("tiktoken")
    from fetch_tokenizers import load_cached, needed
    from tiktoken.load import load_tiktoken_bpe

    if compiled and COMPILED is None:
        pytest.skip(f"no compiled core here: {WHY_PURE}")
    path = needed(name)
    enc = tiktoken.Encoding(name=name, pat_str=pattern, mergeable_ranks=load_tiktoken_bpe(str(path)), special_tokens={})
    with using(COMPILED if compiled and COMPILED is not None else PURE):
        yield load_cached(path, pretokenizer=PreTokenizer("custom", pattern)), enc


@pytest.mark.parametrize("compiled", [False, True])
def test_llama3_encodes_long_text_as_tiktoken_does(compiled):
    with rank_file("llama3.tiktoken", META_LLAMA3, compiled) as (imported, enc):
        tok = imported.tokenizer
        text = mixed_text()
        assert imported.encode(text) == enc.encode_ordinary(text)
        assert (tok._text_coder() is not None) == compiled  # gpt4's whole-text encoder
        tang = shared_corpus("tang_2000.txt")
        if tang is not None:
            poems = tang.read_text(encoding="utf-8")
            assert imported.encode(poems) == enc.encode_ordinary(poems)


# -- o200k (GPT-4o, Llama 4): the compiled scanners on regions cut where o200k ends a chunk ------

#: o200k's classes: capitals (Lu, and Lt, Lm, Lo, M on both sides), small letters, digits of
#: other scripts, punctuation that runs on over newlines and slashes; and ASCII to make regions.
O200K_TRAPS = ["a", "Z", "HTTP", "Server", "'s", "'S", "'ll", "É", "é", "ǅ", "ʰ", "中", "\u0301", "٣", "12345",
               " ", "  ", "\t", "\n", "\r\n", "\n/", "/", "//", ";", "(", "\u00a0", "😀", "x = 1", "def f():"]


def test_the_engine_knows_tiktokens_o200k():
    import inspect

    openai = pytest.importorskip("tiktoken_ext.openai_public")
    source = inspect.getsource(openai.o200k_base)
    pieces = [piece for piece in source.split('r"""')[1:]]  # the pieces tiktoken joins with "|"
    assert "|".join(piece.split('"""')[0] for piece in pieces) == O200K_PATTERN
    assert SAME_AS[O200K_PATTERN] == "o200k"
    assert PreTokenizer("custom", O200K_PATTERN).scan == "o200k"


@given(st.lists(st.lists(st.sampled_from(O200K_TRAPS), max_size=12).map("".join), max_size=30))
@example(lines=["aaServerdef f():", "", "", "", "\r\nʰHTTPServer"])  # ʰ alone when cut before the S
def test_a_custom_o200k_splits_as_its_own_pattern_on_mixed_text(lines):
    text = "\n".join(lines)
    expected = regex.findall(O200K_PATTERN, text)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(scan_regions, "REGIONS_MIN", 1)  # the compiled scanners' regions however short the text
        patch.setattr(pre, "_PIECE", 16)  # and pieces
        patch.setattr(pre, "_MARGIN", 4)
        for native in [PURE, COMPILED] if COMPILED is not None else [PURE]:
            with using(native):
                tokenizer = PreTokenizer("custom", O200K_PATTERN)
                assert tokenizer.split(text) == expected
                assert [c for batch in tokenizer.batches(text) for c in batch] == expected
                assert tokenizer.count(text) == Counter(expected)
                assert list(tokenizer.positioned(text)) == [(m.start(), m.group())
                                                            for m in regex.finditer(O200K_PATTERN, text)]


def test_a_newline_before_a_slash_is_no_cut_for_o200k():
    """The test above can fail: with cl100k's cuts, the compiled scanners' regions would cut
    o200k's ``;\\n/`` in two (no chunk ends at such a cut: the split stops there rather than
    give other chunks). The pure path has no regions: the pattern runs over the text."""
    if COMPILED is None:
        pytest.skip(f"no compiled core here: {WHY_PURE}")
    text = "é;\n/x\nb"
    assert regex.findall(O200K_PATTERN, text)[1] == ";\n/"
    with pytest.MonkeyPatch.context() as patch, using(COMPILED):
        patch.setattr(scan_regions, "REGIONS_MIN", 1)
        assert PreTokenizer("custom", O200K_PATTERN).split(text) == regex.findall(O200K_PATTERN, text)
        patch.setitem(scan_regions.CUTS, SCAN_MODES["o200k"], scan_regions.CUTS[SCAN_MODES["gpt4"]])
        with pytest.raises(AssertionError, match="no chunk ends at the safe cut 3"):
            PreTokenizer("custom", O200K_PATTERN).split(text)


@pytest.mark.parametrize("compiled", [False, True])
def test_llama4_encodes_long_text_as_tiktoken_does(compiled):
    with rank_file("llama4.tiktoken", O200K_PATTERN, compiled) as (imported, enc):
        assert imported.tokenizer.pretokenizer.scan == "o200k"
        text = mixed_text() + "\n".join(O200K_TRAPS) * 30
        assert imported.encode(text) == enc.encode_ordinary(text)
