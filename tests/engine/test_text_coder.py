"""The compiled whole-text encoder (engine.native.compiled.TextCoder, behind Tokenizer.encode_ordinary for
the gpt2 and gpt4 pre-tokenizers) gives the pure path's ids: its split is the pattern's
(``regex.findall``) on texts mixing ASCII and other characters, with windows small enough that
every way of handing over between the ASCII scan and the pattern shows; its table of chunks
gives what the chunk encoder gives, also when it fills and starts again; and a tokenizer gives
the same ids on both paths and as tiktoken."""

from __future__ import annotations

import json

import pytest
import regex
from helpers import sample_text
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from engine import PreTokenizer, Tokenizer, TrainConfig, Trainer
from engine.native.door import COMPILED, PURE, WHY_PURE, using
from engine.native.scan_regions import WIDE_LETTER, WIDE_OTHER, WIDE_UNKNOWN, wide_classes
from engine.text.pretokenize import NAMED_PATTERNS, SCAN_MODES, SCAN_PATTERNS

from test_count_fast import ASCII_PIECES, OTHER_PIECES, pieces, pre_of

compiled = COMPILED.core if COMPILED is not None else None
pytestmark = pytest.mark.skipif(compiled is None, reason=f"no compiled core here: {WHY_PURE}")
NAMES = tuple(SCAN_MODES)  # gpt2, gpt4, o200k (a custom pattern with fast paths)
#: Long runs too: whitespace with newlines in it (gpt4's \s*[\r\n] looks to the run's end), letters.
LONG_PIECES = ["      ", "\n    \n  ", " \u00a0 \n", "abcdefgh", "\u00e9\u00e9\u00e9\u00e9", "12345678",
               "we're", "WE'Ré", "x'\u0301", "we'\u017f"]  # o200k's contractions after letters (ſ folds to s), a mark


def texts():
    return st.lists(st.sampled_from(ASCII_PIECES + OTHER_PIECES + LONG_PIECES), max_size=80).map("".join)


def chunk_coder(name: str, **kw):
    """A TextCoder whose chunk encoder gives each distinct chunk an id of its own (its index in
    ``seen``): its ids, read back, are its split."""
    seen: list[str] = []
    index: dict[str, int] = {}

    def missing(chunk: str) -> list[int]:
        if chunk not in index:
            index[chunk] = len(seen)
            seen.append(chunk)
        return [index[chunk]]

    pattern = regex.compile(SCAN_PATTERNS[name])
    return compiled.TextCoder(pattern.findall, SCAN_MODES[name], missing=missing, **kw), seen


@pytest.mark.parametrize("name", NAMES)
@given(text=texts(), run=st.integers(1, 6), widest=st.integers(1, 40))
def test_the_split_is_the_patterns(name, text, run, widest):
    coder, seen = chunk_coder(name, ascii_run=run, widest=widest)
    expected = regex.findall(SCAN_PATTERNS[name], text)
    assert [seen[i] for i in coder.encode(text)] == expected
    assert [seen[i] for i in coder.encode(text)] == expected  # again, from the table


#: Where the hand-over can go wrong: space outside ASCII continuing an ASCII run (with a newline
#: after it, for gpt4), letters and digits outside ASCII after ASCII ones, an apostrophe before one.
TRAPS = ["\n", " ", "  ", "\r\n", "\u00a0", "\u3000", "\u2028", "\x85", "a", "\u00e9", "1", "\u00b2", "'", "'l", "!",
         "\u2192", "x"]


@pytest.mark.parametrize("name", NAMES)
def test_the_split_is_the_patterns_at_every_trap(name):
    pattern = regex.compile(SCAN_PATTERNS[name])
    coders = [chunk_coder(name, ascii_run=run, widest=widest) for run, widest in ((1, 1), (2, 3), (24, 1 << 20))]
    for a in TRAPS:
        for b in TRAPS:
            for c in TRAPS:
                text = "ab" + a + b + c + b + "\n"
                expected = pattern.findall(text)
                for coder, seen in coders:
                    assert [seen[i] for i in coder.encode(text)] == expected, repr(text)


@pytest.mark.parametrize("name", NAMES)
@given(text=pieces(), limit=st.integers(1, 5))
def test_a_full_table_starts_again(name, text, limit):
    coder, seen = chunk_coder(name, limit=limit, ascii_run=2, widest=8)
    expected = regex.findall(SCAN_PATTERNS[name], text)
    assert [seen[i] for i in coder.encode(text)] == expected
    assert coder.kept_chunks <= limit


@pytest.mark.parametrize("name", NAMES)
def test_the_split_of_real_text(name):
    text = sample_text("workshop.txt") + sample_text("chinese.txt") + "x = 'caf\u00e9'  # \u2192 \u00a0\n\tdone\n"
    for run, widest in ((24, 1 << 20), (1, 1), (3, 7)):
        coder, seen = chunk_coder(name, ascii_run=run, widest=widest)
        assert [seen[i] for i in coder.encode(text)] == regex.findall(SCAN_PATTERNS[name], text)


def test_long_chunks_are_encoded_each_time_not_kept():
    coder, seen = chunk_coder("gpt2")
    text = "a" * 5000 + " " + "b" * 3
    assert [seen[i] for i in coder.encode(text)] == ["a" * 5000, " bbb"]
    assert coder.kept_chunks == 1
    assert [seen[i] for i in coder.encode(text)] == ["a" * 5000, " bbb"]


def test_a_chunk_encoder_giving_no_ids_is_refused():
    pattern = regex.compile(NAMED_PATTERNS["gpt2"])
    with pytest.raises(ValueError, match="not a token id"):
        compiled.TextCoder(pattern.findall, False, missing=lambda chunk: [-1]).encode("ab")
    with pytest.raises(ValueError, match="needs a merger"):
        compiled.TextCoder(pattern.findall, False)


#: Chinese and its like, and what sits beside it (the wide scan's kinds and its borders): Han
#: letters, punctuation, a modifier letter (ー), a letter number (〇), marks, the ideographic space,
#: a character past U+FFFF, and ASCII that ends runs differently from pattern to pattern.
WIDE_TRAPS = ["\u4e2d", "\u56fd\u4eba", "\uff0c", "\u3002", "\u3001\u300c", "\u30fc", "\u3005", "\u3007", "\u0301",
              "\u3099", "\u3000", "\U00020000", "\u00d7", "\u00ab", "\n", "\n\n", "\r", " ", "'", "'s", "/", "a", "A",
              "1", "!", "\u017f", "\u00e9"]


def test_the_wide_classes_are_the_patterns_own():
    table = wide_classes()
    assert len(table) == 1 << 16
    assert (table[ord("\u4e2d")], table[ord("\u30fc")], table[ord("\uff0c")], table[ord("\u00d7")]) == (WIDE_LETTER,) * 2 + (WIDE_OTHER,) * 2
    for char in "a1 \n'\u3000\u3007\u0301\u00e9\uff21\ud800":  # ASCII, spaces, numbers, marks, cased letters
        assert table[ord(char)] == WIDE_UNKNOWN, repr(char)


@pytest.mark.parametrize("name", NAMES)
@example(text="国人HTTPHTTP中", run=1, widest=1)  # o200k: Chinese, capitals, Chinese is one chunk; a window
@example(text="国人HTTP, 中", run=1, widest=1)  # ending in the capitals must not settle "国人" (found in CI)
@example(text="中文API接口", run=2, widest=3)
@given(text=st.lists(st.sampled_from(WIDE_TRAPS + ASCII_PIECES + OTHER_PIECES), max_size=60).map("".join),
       run=st.integers(1, 6), widest=st.integers(1, 40))
def test_the_wide_scan_is_the_patterns(name, text, run, widest):
    coder, seen = chunk_coder(name, ascii_run=run, widest=widest, classes=wide_classes)
    expected = regex.findall(SCAN_PATTERNS[name], text)
    assert [seen[i] for i in coder.encode(text)] == expected
    assert [seen[i] for i in coder.encode(text)] == expected


@pytest.mark.parametrize("name", NAMES)
def test_the_wide_scan_is_the_patterns_at_every_trap(name):
    pattern = regex.compile(SCAN_PATTERNS[name])
    coder, seen = chunk_coder(name, classes=wide_classes())
    for a in WIDE_TRAPS:
        for b in WIDE_TRAPS:
            for c in WIDE_TRAPS:
                text = "\u4e2d\u6587" + a + b + "\u3002" + c + b
                assert [seen[i] for i in coder.encode(text)] == pattern.findall(text), repr(text)


def test_the_wide_classes_come_once_at_first_need():
    asked = []

    def classes():
        asked.append(1)
        return wide_classes()

    coder, seen = chunk_coder("gpt4", classes=classes)
    assert [seen[i] for i in coder.encode("ascii only")] == ["ascii", " only"] and not asked
    assert [seen[i] for i in coder.encode("\u4e2d\u6587\uff0c\u4e2d\u6587\u3002\n")] == ["\u4e2d\u6587", "\uff0c\u4e2d\u6587", "\u3002\n"]
    coder.encode("\u4e2d")
    assert asked == [1]
    with pytest.raises(ValueError, match="65,536"):
        chunk_coder("gpt4", classes=b"short")[0].encode("\u4e2d")


@pytest.fixture(scope="module")
def trained():
    trainer = Trainer(sample_text("workshop.txt") + sample_text("chinese.txt"), TrainConfig(vocab_size=900))
    trainer.train()
    return trainer.tokenizer().merges


def pure_ids(merges, name: str, text: str, **kw) -> list[int]:
    with using(PURE):
        return Tokenizer(merges, pretokenizer=pre_of(name), **kw).encode_ordinary(text)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=texts())
def test_a_tokenizer_gives_the_pure_paths_ids(trained, name, text):
    text = text * 3  # past encode_ordinary's threshold for the whole-text encoder
    tok = Tokenizer(trained, pretokenizer=pre_of(name))
    expected = pure_ids(trained, name, text)
    assert tok.encode_ordinary(text) == expected
    assert tok.encode_ordinary(text) == expected  # warm
    assert isinstance(tok._coder, compiled.TextCoder) or len(text) < 64


@pytest.mark.parametrize("name", NAMES)
def test_chars_base_tokenizers_go_through_their_own_chunk_encoder(name):
    text = sample_text("workshop.txt") + sample_text("chinese.txt")
    trainer = Trainer(text, TrainConfig(vocab_size=400, base="chars", pretokenizer=pre_of(name).name,
                                        pattern=None if name in NAMED_PATTERNS else SCAN_PATTERNS[name]))
    trainer.train()
    tok = trainer.tokenizer()
    with using(PURE):
        pure = Tokenizer(tok.merges, base="chars", alphabet=tok.alphabet, pretokenizer=pre_of(name))
        expected = pure.encode_ordinary(text)
    fresh = Tokenizer(tok.merges, base="chars", alphabet=tok.alphabet, pretokenizer=pre_of(name))
    assert fresh.encode_ordinary(text) == expected
    assert isinstance(fresh._coder, compiled.TextCoder)


def test_other_pre_tokenizers_keep_the_split_and_the_cache(trained):
    text = "a 123 \u00e9\n" * 20
    for pre in (PreTokenizer("gpt2", split_digits=True), PreTokenizer("gpt4", per_line=True), PreTokenizer("simple")):
        tok = Tokenizer(trained, pretokenizer=pre)
        assert tok.encode_ordinary(text) == [i for c in pre.split(text) for i in tok.encode_chunk(c)]
        assert tok._coder is False


@pytest.mark.parametrize("name", NAMES)
def test_the_ids_are_tiktokens(tmp_path, trained, name):
    tiktoken = pytest.importorskip("tiktoken")
    from tiktoken.load import load_tiktoken_bpe

    from engine.formats import export_tokenizer, load_any

    tok = Tokenizer(trained, pretokenizer=pre_of(name))
    export_tokenizer(tok, "tiktoken", tmp_path / "t.tiktoken")
    side = json.loads((tmp_path / "t.tiktoken.json").read_text(encoding="utf-8"))
    enc = tiktoken.Encoding(name="t", pat_str=side["pat_str"], mergeable_ranks=load_tiktoken_bpe(str(tmp_path / "t.tiktoken")),
                            special_tokens={})
    text = sample_text("workshop.txt") + sample_text("chinese.txt") + "x = 'caf\u00e9'  # \u2192 \u00a0\n\tdone\n'LL 'll 12345\r\n\r\n"
    assert tok.encode_ordinary(text) == enc.encode_ordinary(text)
    imported = load_any(tmp_path / "t.tiktoken", pretokenizer=pre_of(name))  # merged by rank, whole pieces first
    assert imported.tokenizer.whole_first
    assert imported.to_file_ids(imported.tokenizer.encode_ordinary(text)) == enc.encode_ordinary(text)
    assert isinstance(imported.tokenizer._coder, compiled.TextCoder)
