"""HuggingFace's common normalizers (engine/text/normalize.py) against tokenizers' own, and a
tokenizer with one: encoding, the native and hf files, and the exports that refuse it."""

from __future__ import annotations

import json
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import Tokenizer
from engine.encode.tokenizer import tokenizer_from_dict, tokenizer_to_dict
from engine.errors import ConfigError, ExportError
from engine.formats import export_tokenizer, load_any
from engine.text.normalize import Normalizer
from engine.text.pretokenize import PreTokenizer

tokenizers = pytest.importorskip("tokenizers")

SPECS = [
    {"type": "NFC"}, {"type": "NFD"}, {"type": "NFKC"}, {"type": "NFKD"}, {"type": "Lowercase"},
    {"type": "Strip", "strip_left": True, "strip_right": True},
    {"type": "Strip", "strip_left": False, "strip_right": True},
    {"type": "Prepend", "prepend": "▁"},
    {"type": "Replace", "pattern": {"String": " "}, "content": "▁"},
    {"type": "Replace", "pattern": {"Regex": r"\s+"}, "content": " "},
    # (no \p{...} class here: Python's regex knows newer Unicode than Oniguruma, so characters
    # assigned since differ, as for pre-tokenizer patterns; docs/formats.md says so)
    {"type": "Replace", "pattern": {"Regex": r"[0-9]+|ﬁ"}, "content": "#"},
    {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"},
                                         {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]},
    {"type": "Sequence", "normalizers": [{"type": "NFKC"}, {"type": "Lowercase"},
                                         {"type": "Strip", "strip_left": True, "strip_right": True}]},
]
#: Characters the normalizers change: full-width, ligatures, math digits, no-break and other
#: spaces, the ellipsis, combining marks, case pairs that grow (ß, İ), U+001C (not whitespace in Rust).
TRICKY = "，…\xa0\u2009\u3000ﬁﬂ𝟙①ÅÅéé ßİΣσς\x1c\t\n Ａｂ 12 "


def theirs(spec: dict) -> object:
    data = {"version": "1.0", "normalizer": spec, "model": {"type": "BPE", "vocab": {}, "merges": []}}
    return tokenizers.Tokenizer.from_str(json.dumps(data)).normalizer


#: Characters both libraries' Unicode tables know: assigned by Unicode 3.2 (a decomposition never
#: changes once assigned). Newer ones can differ by version: U+10781 (Unicode 14) decomposes to
#: U+02D0 in Python 3.11's tables and not in tokenizers' (found by CI's default pass).
KNOWN_TO_BOTH = st.characters(codec="utf-8").filter(lambda c: unicodedata.ucd_3_2_0.category(c) != "Cn")


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: Normalizer(s).summary)
@given(text=st.text(st.sampled_from(TRICKY) | KNOWN_TO_BOTH, max_size=30))
def test_each_normalizer_is_tokenizers_own(spec, text):
    assert Normalizer(spec)(text) == theirs(spec).normalize_str(text)


@pytest.mark.parametrize("spec,message", [
    ({"type": "BertNormalizer"}, "BertNormalizer normalizer is not supported"),
    ({"type": "Replace", "pattern": {"Glob": "x"}, "content": ""}, "String"),
    ({"type": "Sequence", "normalizers": "NFC"}, "a list"),
    ("NFC", "an object"),
])
def test_other_normalizers_are_refused_by_name(spec, message):
    with pytest.raises(ConfigError, match=message):
        Normalizer(spec)


def nfkc_tokenizer() -> Tokenizer:
    return Tokenizer([(102, 105)], specials=["<ｅｏｓ>"], pretokenizer=PreTokenizer("gpt2"),
                     normalizer=Normalizer({"type": "NFKC"}))


def test_a_tokenizer_normalizes_between_its_specials():
    tok = nfkc_tokenizer()
    assert tok.encode("ﬁ") == [256] == tok.encode("fi")
    assert tok.encode("<ｅｏｓ>ﬁ") == [257, 256]  # the special as written, not normalized
    assert tok.normalize("ＡＢ") == "AB"
    start, steps = tok.encode_trace("ﬁ")
    assert start == (102, 105) and steps[-1].tokens == (256,)


def test_the_normalizer_survives_native_and_hf_files(tmp_path):
    tok = nfkc_tokenizer()
    back = tokenizer_from_dict(tokenizer_to_dict(tok))
    assert back.normalizer == tok.normalizer and back.encode("ﬁ") == [256]
    export_tokenizer(tok, "hf", tmp_path / "t.json")
    imported = load_any(tmp_path / "t.json")
    assert imported.tokenizer.normalizer == tok.normalizer and imported.warnings == []
    hf = tokenizers.Tokenizer.from_file(str(tmp_path / "t.json"))
    for text in ["ﬁ ﬁ", "，… ﬁx 𝟙", "a\xa0b"]:
        assert hf.encode(text).ids == tok.encode(text), text


@pytest.mark.parametrize("fmt", ["tiktoken", "gpt2"])
def test_formats_without_a_normalizer_refuse_it_unless_dropped(tmp_path, fmt):
    tok = nfkc_tokenizer()
    with pytest.raises(ExportError, match="hold no normalizer.*NFKC.*--drop-normalizer"):
        export_tokenizer(tok, fmt, tmp_path / "out")
    assert not (tmp_path / "out").exists()
    warnings = export_tokenizer(tok, fmt, tmp_path / "out", drop_normalizer=True)
    assert any("normalizer (NFKC) is left out" in w for w in warnings)


def test_the_cli_refuses_and_drops_the_normalizer(tmp_path):
    from test_cli import bpe_lab

    export_tokenizer(nfkc_tokenizer(), "hf", tmp_path / "t.json")
    run = bpe_lab("export", "-t", str(tmp_path / "t.json"), "--format", "tiktoken", "-o", str(tmp_path / "r.tiktoken"))
    assert run.returncode == 2 and b"hold no normalizer" in run.stderr and b"Traceback" not in run.stderr
    run = bpe_lab("export", "-t", str(tmp_path / "t.json"), "--format", "tiktoken", "-o", str(tmp_path / "r.tiktoken"),
                  "--drop-normalizer")
    assert run.returncode == 0 and b"left out" in run.stderr
