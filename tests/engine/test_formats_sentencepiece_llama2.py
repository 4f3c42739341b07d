"""Llama 2's SentencePiece model. No pip package ships Llama 2's ``tokenizer.model``
(docs/formats.md says what was looked through); llama-cpp-python's sdist ships llama.cpp's copy of
its vocabulary (``ggml-vocab-llama-spm.gguf``: every piece, score and type) with test texts and the
ids transformers gave them from the real file. tests/fetch_tokenizers.py makes the ``.model`` again
of it (``llama2-rebuilt.model``); here sentencepiece and bpe-lab reading it give those reference
ids, and it is the same kind of model as Mistral 7B v0.1's. test_formats_sentencepiece.py runs its
whole test set on it too. Each test skips, saying why, when a file cannot be had."""

from __future__ import annotations

import functools
from collections import Counter

import pytest
from fetch_tokenizers import gguf_metadata, needed

from engine.formats import load_any
from engine.formats.sentencepiece import parse_model

#: How llama.cpp's test files separate their texts (tests/test-tokenizer-0.py).
SEPARATOR = "\n__ggml_vocab_test__\n"


@functools.cache
def references() -> list[tuple[str, list[int]]]:
    """llama.cpp's test texts for Llama 2's vocabulary, each with the ids transformers gave it."""
    texts = needed("llama2-spm.gguf.inp").read_text(encoding="utf-8").split(SEPARATOR)
    lines = needed("llama2-spm.gguf.out").read_text(encoding="utf-8").split("\n")
    if texts[-1] == "" and lines[-1] == "":
        texts, lines = texts[:-1], lines[:-1]  # each file ends with its separator
    assert len(texts) == len(lines) > 30
    return [(text, [int(i) for i in line.split()]) for text, line in zip(texts, lines, strict=True)]


def test_the_rebuilt_model_gives_the_reference_ids():
    """sentencepiece reading the rebuilt file, and bpe-lab reading it, give for every test text
    the ids transformers gave from Llama 2's own file: spaces, newlines, tabs, emoji (byte
    pieces), Cyrillic, Chinese, digits and code."""
    spm = pytest.importorskip("sentencepiece")
    path = needed("llama2-rebuilt.model")
    sp = spm.SentencePieceProcessor(model_file=str(path))
    imported = load_any(path)
    for text, ids in references():
        assert sp.encode(text) == ids, text
        assert imported.encode(text) == ids, text
        assert imported.decode(ids) == sp.decode(ids), text
    assert any(len(ids) > 100 for _, ids in references())  # the long mixed text is there


def test_the_rebuilt_model_holds_the_vocabulary_as_it_stands():
    """Every piece, score and type of the GGUF copy, in order: 32,000 pieces, as Llama 2's."""
    model = parse_model(needed("llama2-rebuilt.model").read_bytes())
    meta = gguf_metadata(needed("llama2-spm.gguf").read_bytes())
    assert [p[0] for p in model.pieces] == meta["tokenizer.ggml.tokens"]
    assert [p[2] for p in model.pieces] == meta["tokenizer.ggml.token_type"]
    assert all(abs(p[1] - s) <= 1e-6 * max(1.0, abs(s)) for p, s in zip(model.pieces, meta["tokenizer.ggml.scores"]))
    assert len(model.pieces) == meta["llama.vocab_size"] == 32000
    assert meta["tokenizer.ggml.bos_token_id"] == 1 and meta["tokenizer.ggml.eos_token_id"] == 2


def test_mistral_v1_is_the_same_kind_of_model():
    """Mistral 7B v0.1's .model (a real file) has what the rebuilt Llama 2 model was given: a BPE
    model with byte fallback, the identity normalizer with the dummy prefix and extra spaces
    kept, and the same piece types in the same numbers (1 unknown, 2 control, 256 bytes)."""
    mistral = parse_model(needed("mistral-v1.model").read_bytes())
    llama = parse_model(needed("llama2-rebuilt.model").read_bytes())
    for model in (mistral, llama):
        assert (model.model_type, model.byte_fallback, model.normalizer_name, model.charsmap) == (2, True, "identity", b"")
        assert (model.add_dummy_prefix, model.remove_extra_whitespaces, model.escape_whitespaces) == (True, False, True)
    assert Counter(k for _, _, k in mistral.pieces) == Counter(k for _, _, k in llama.pieces) == {1: 31741, 6: 256, 3: 2, 2: 1}
    assert mistral.pieces[:259] == llama.pieces[:259]  # <unk>, <s>, </s>, then <0x00>...<0xFF>
    assert {p[0] for p in mistral.pieces} != {p[0] for p in llama.pieces}  # their merges differ


def test_a_different_normalizer_spec_misses_the_references(tmp_path):
    """The reference ids tell the normalizer spec apart: the same pieces with extra spaces
    removed (sentencepiece's default) give other ids on the texts with runs of spaces."""
    spm = pytest.importorskip("sentencepiece")
    raw = needed("llama2-rebuilt.model").read_bytes()
    squeezed = tmp_path / "squeezed.model"
    squeezed.write_bytes(raw + bytes([0x1A, 0x02, 0x20, 0x01]))  # normalizer_spec.remove_extra_whitespaces = true
    sp = spm.SentencePieceProcessor(model_file=str(squeezed))
    missed = [text for text, ids in references() if sp.encode(text) != ids]
    assert len(missed) >= 5 and "   " in missed
    ours = load_any(squeezed)
    assert [text for text, ids in references() if ours.encode(text) != ids] == missed
