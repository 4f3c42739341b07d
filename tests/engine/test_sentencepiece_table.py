"""sentencepiece's normalization table (a ``precompiled_charsmap``: ``nmt_nfkc``, its training
default, or ``nfkc``), applied as the library a file is for applies it (engine/text/charsmap.py):

- a BPE ``.model`` trained by sentencepiece itself with its defaults: bpe-lab's ids are
  sentencepiece's on text the table changes (full-width forms, ligatures, circled digits,
  Chinese punctuation, a full-width letter with a combining accent), and on random text;
- the real table of sentencepiece's own test model (the sentencepiece package's
  ``test/test_model.model``, a Unigram model whose ``nfkc`` table is read alone): bpe-lab's
  normalization is ``sentencepiece``'s, and tokenizers' ``Precompiled`` normalizer's under
  tokenizers' grapheme rule;
- an hf export carries the table, and both bpe-lab and ``tokenizers`` read it by tokenizers' rule;
  a native save keeps the rule it was read with;
- a table that does not hold together is refused in one line, never a traceback."""

from __future__ import annotations

import base64
import json
import unicodedata

import pytest
from fetch_tokenizers import real_file
from hypothesis import given
from hypothesis import strategies as st

from engine import Tokenizer
from engine.errors import ConfigError, TokenizerFileError
from engine.formats import export_tokenizer, load_any
from engine.formats.sentencepiece import normalizer_spec, parse_model
from engine.text.charsmap import Charsmap
from engine.text.normalize import Normalizer

PLAIN = "the cat sat on the mat, the hat is on the cat"
CHANGED = "Ｆｕｌｌ－ｗｉｄｔｈ ﬁne ① the  cat\non\tthe mat"  # the table maps these (NFKC, newline and tab to space)
CHINESE = "秦川雄帝宅，函谷壮皇居。绮殿千寻起，离宫百雉余！"  # full-width punctuation becomes ASCII
#: One key of the table, a full-width A and a combining acute (sentencepiece: Á); tokenizers
#: takes the shortest key of the grapheme, the A alone, and drops the accent.
ACCENTED = "Ａ\u0301"

#: Characters the table changes (NFKC does), and ones around them: letters, spaces, combining
#: marks, Chinese, emoji with a skin tone and a joiner, control characters.
CHANGING = [chr(c) for c in range(0x20, 0x3400) if unicodedata.normalize("NFKC", chr(c)) != chr(c)][::7]
CHANGING += [chr(c) for c in range(0xF900, 0x10000) if unicodedata.normalize("NFKC", chr(c)) != chr(c)][::5]
ALPHABET = CHANGING + list("ab cé\u0301\u0308\u3000\u00a0\t\n秦川，。ｶﾞ") + ["👍", "🏽", "\u200d", "\x00", "\x07"]
texts = st.text(st.sampled_from(ALPHABET), max_size=24)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A BPE model trained by sentencepiece with its defaults (nmt_nfkc, byte fallback)."""
    spm = pytest.importorskip("sentencepiece")
    folder = tmp_path_factory.mktemp("spm")
    corpus = folder / "corpus.txt"
    lines = [PLAIN, "a fine full width line, the hat and the cat 123", CHANGED.replace("\n", " "), CHINESE, "Á la carte ①②③"]
    corpus.write_text("\n".join(lines * 40) + "\n", encoding="utf-8")
    spm.SentencePieceTrainer.train(input=str(corpus), model_prefix=str(folder / "m"), vocab_size=400,
                                   model_type="bpe", byte_fallback=True, minloglevel=2)
    return folder / "m.model", spm.SentencePieceProcessor(model_file=str(folder / "m.model"))


@pytest.fixture(scope="module")
def package_table():
    """The nfkc table of the sentencepiece package's own test model, and that model."""
    spm = pytest.importorskip("sentencepiece")
    path = real_file("spm-unigram.model")
    if path is None:
        pytest.skip("the sentencepiece package's test model could not be had")
    model = parse_model(path.read_bytes())
    assert model.normalizer_name == "nfkc" and model.charsmap
    return model, spm.SentencePieceProcessor(model_file=str(path))


def test_a_model_with_the_table_encodes_as_sentencepiece_and_says_nothing(trained):
    path, sp = trained
    imported = load_any(path)
    assert imported.tokenizer.normalizer.spec["normalizers"][0]["type"] == "Precompiled"
    assert imported.tokenizer.normalizer.precompiled == "sentencepiece"
    assert not any("normaliz" in w for w in imported.warnings), imported.warnings
    for text in (PLAIN, CHANGED, CHINESE, ACCENTED, "ＡＢＣ\u0301 ①", ""):
        assert imported.tokenizer.normalize(text) == sp.normalize(text), text
        assert imported.encode(text) == sp.encode(text), text
    assert sp.normalize(ACCENTED) == "▁Á"  # one key: the accent is kept


@given(text=texts)
def test_random_text_encodes_as_sentencepiece(trained, text):
    path, sp = trained
    imported = load_any(path)
    assert imported.tokenizer.normalize(text) == sp.normalize(text)
    assert imported.encode(text) == sp.encode(text)


@given(text=texts)
def test_the_packages_table_normalizes_as_sentencepiece_and_tokenizers(package_table, text):
    tokenizers = pytest.importorskip("tokenizers")
    model, sp = package_table
    assert Normalizer(normalizer_spec(model), precompiled="sentencepiece")(text) == sp.normalize(text)
    table = Charsmap(model.charsmap)
    assert table.tokenizers(text) == tokenizers.normalizers.Precompiled(model.charsmap).normalize_str(text)


def test_the_two_rules_differ_where_the_libraries_do(package_table):
    tokenizers = pytest.importorskip("tokenizers")
    model, sp = package_table
    table = Charsmap(model.charsmap)
    theirs = tokenizers.normalizers.Precompiled(model.charsmap).normalize_str
    assert (table.sentencepiece(ACCENTED), table.tokenizers(ACCENTED)) == ("Á", "A") == (sp.normalize(ACCENTED)[1:], theirs(ACCENTED))
    # ｶﾞ is one key, and one grapheme of 6 bytes, which tokenizers does character by character
    assert (table.sentencepiece("ｶﾞ"), table.tokenizers("ｶﾞ")) == ("\u30ac", "\u30ab\u3099") == (sp.normalize("ｶﾞ")[1:], theirs("ｶﾞ"))
    long_text = CHINESE * 500 + "㍿ｶﾞ①"
    assert table.sentencepiece(long_text) == sp.normalize(long_text)[1:]
    assert table.tokenizers(long_text) == theirs(long_text)
    assert table.sentencepiece("plain ascii 秦川") == "plain ascii 秦川"  # no character a key starts with


def test_an_hf_export_carries_the_table_and_is_read_by_tokenizers_rule(trained, tmp_path):
    tokenizers = pytest.importorskip("tokenizers")
    path, sp = trained
    imported = load_any(path)
    export_tokenizer(imported.tokenizer, "hf", tmp_path / "tokenizer.json", ids=imported.file_ids)
    theirs = tokenizers.Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    again = load_any(tmp_path / "tokenizer.json")
    assert again.tokenizer.normalizer.precompiled == "tokenizers"
    assert not any("normaliz" in w for w in again.warnings), again.warnings
    for text in (PLAIN, CHANGED, CHINESE, ACCENTED):
        ids = theirs.encode(text, add_special_tokens=False).ids
        assert again.encode(text) == ids, text
        if text != ACCENTED:
            assert ids == sp.encode(text), text
    assert again.encode(ACCENTED) != imported.encode(ACCENTED)  # tokenizers drops the accent


def test_a_native_save_keeps_the_rule(trained, tmp_path):
    path, sp = trained
    imported = load_any(path)
    imported.tokenizer.save(tmp_path / "native.json")
    data = json.loads((tmp_path / "native.json").read_text(encoding="utf-8"))
    assert data["precompiled_rule"] == "sentencepiece"
    back = Tokenizer.load(tmp_path / "native.json")
    assert back.normalizer == imported.tokenizer.normalizer
    assert back.encode(ACCENTED) == imported.tokenizer.encode(ACCENTED)
    data["precompiled_rule"] = "icu"
    (tmp_path / "bad.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(TokenizerFileError, match="precompiled_rule"):
        Tokenizer.load(tmp_path / "bad.json")


def _model_with_table(raw: bytes, table: bytes) -> bytes:
    """``raw`` (a .model) written again field by field, its normalizer spec's table (field 3's
    field 2) replaced by ``table``."""
    from fetch_tokenizers import proto_varint

    from engine.formats.sentencepiece import _fields

    def write(fields) -> bytes:
        out = b""
        for number, wire, value in fields:
            out += proto_varint(number << 3 | wire)
            out += proto_varint(value) if wire == 0 else (proto_varint(len(value)) + value if wire == 2 else value)
        return out

    def spec(value: bytes) -> bytes:
        return write((n, w, table if n == 2 else v) for n, w, v in _fields(value))

    rebuilt = write((n, w, spec(v) if n == 3 else v) for n, w, v in _fields(raw))
    assert parse_model(rebuilt).charsmap == table
    return rebuilt


@pytest.mark.parametrize("table", [b"\x01\x00", b"\xff\xff\x00\x00" + b"\0" * 8, b"\x08\x00\x00\x00" + b"\xff" * 8 + b"x\0"])
def test_a_table_that_does_not_hold_together_is_refused_or_read_safely(trained, tmp_path, table):
    path, _ = trained
    bad = tmp_path / "bad.model"
    bad.write_bytes(_model_with_table(path.read_bytes(), table))
    try:
        imported = load_any(bad)
    except TokenizerFileError as exc:  # the header does not fit: one line naming the file
        assert str(exc).startswith(f"{bad}: the model's nmt_nfkc table is malformed (")
        assert "\n" not in str(exc)
        return
    # a header that fits over a trie that points anywhere: walks stop where it ends
    for text in (PLAIN, CHANGED, CHINESE):
        imported.encode(text)


def test_a_tokenizer_json_with_a_bad_table_is_refused_in_one_line(trained, tmp_path):
    path, _ = trained
    imported = load_any(path)
    export_tokenizer(imported.tokenizer, "hf", tmp_path / "tokenizer.json", ids=imported.file_ids)
    data = json.loads((tmp_path / "tokenizer.json").read_text(encoding="utf-8"))
    step = data["normalizer"]["normalizers"][0]
    assert step["type"] == "Precompiled"
    step["precompiled_charsmap"] = base64.b64encode(b"\x01\x00").decode()
    (tmp_path / "bad.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(TokenizerFileError) as caught:  # a byte-fallback file's normalizer makes its ▁s
        load_any(tmp_path / "bad.json")
    assert str(caught.value) == (f"{tmp_path / 'bad.json'}: the file's normalizer is not supported (a Precompiled "
                                 "normalizer's table is malformed: 2 bytes, shorter than its 4-byte header)")
    with pytest.raises(ConfigError, match="not base64"):
        Normalizer({"type": "Precompiled", "precompiled_charsmap": "*"})


def test_a_table_that_loops_is_refused_when_read():
    """A hostile trie whose node for ``a`` leads back to itself, with a key at every step. Its
    walks were once bounded (the 32nd key, 256 bytes), which still cost 256 steps a character
    in pure Python (14.7 s for 100 kB of ``a``); a trie cannot loop, so the table is refused
    when it is read, in one pass over its units."""
    import struct
    from array import array

    from engine.text.charsmap import CharsmapError

    units = array("I", [0]) * 0x200
    units[0] = 0x100 << 10  # the root's children at 0x100 ^ byte
    units[0x100 ^ 0x61] = (0x61 << 10) | (1 << 8) | 0x61  # label a, a key ends here, back to 0x100
    units[0x100] = 0  # the key's value: the string at offset 0
    blob = struct.pack("<I", 4 * len(units)) + units.tobytes() + b"b\0"
    with pytest.raises(CharsmapError, match="loops back on itself"):
        Charsmap(blob)


def _chain(length: int) -> bytes:
    """A charsmap whose one key is ``a`` repeated ``length`` times (each node's child by ``a`` at
    its offset ^ 0x61), mapped to the empty string."""
    import struct

    units = [0] * (256 * (length + 2))
    node = 256
    units[0] = node << 10
    for depth in range(length):
        pos = node ^ 0x61
        child = node + 256
        units[pos] = ((pos ^ child) << 10) | 0x61 | ((1 << 8) if depth == length - 1 else 0)
        node = child
    units[node] = 1 << 31  # the last node's value: offset 0 of the strings
    return struct.pack("<I", 4 * len(units)) + struct.pack(f"<{len(units)}I", *units) + b"\0"


def test_a_walk_goes_no_further_than_the_longest_key():
    from engine.text.charsmap import MAX_KEY_BYTES, Charsmap, CharsmapError

    table = Charsmap(_chain(5))
    assert table.longest_key == 5
    assert table.sentencepiece("aaaaaaaaaaab") == "ab"  # two keys of five a's, then what no key starts
    assert Charsmap(_chain(MAX_KEY_BYTES)).longest_key == MAX_KEY_BYTES
    with pytest.raises(CharsmapError, match=f"longer than {MAX_KEY_BYTES} bytes"):
        Charsmap(_chain(MAX_KEY_BYTES + 1))


def test_a_trie_that_loops_is_refused_when_read():
    from engine.text.charsmap import Charsmap, CharsmapError

    from bad_input_files import looping_charsmap

    with pytest.raises(CharsmapError, match="loops back on itself"):
        Charsmap(looping_charsmap())
