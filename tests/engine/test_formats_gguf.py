"""GGUF files (engine.formats.gguf): llama.cpp's own tokenizer tests, run by bpe-lab.

llama-cpp-python's sdist vendors llama.cpp's ``models/ggml-vocab-*.gguf`` with ``.gguf.inp`` (test
texts) and ``.gguf.out`` (the ids transformers gives them); llama.cpp's test-tokenizer-0 tokenizes
each text with no special tokens added and compares. Here bpe-lab reads each GGUF file and must
give those ids for every text (on whichever path the run selects: CI runs both); a vocabulary
bpe-lab does not read is refused in one line, and the test says which these are, so that a
change in either list shows. The metadata reader is checked against ggml's own ``gguf`` package,
and against hostile headers. Files come from tests/fetch_tokenizers.py (skipped when missing).
"""

from __future__ import annotations

import functools
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from fetch_tokenizers import GGML_TESTED, GGML_UNTESTED, load_cached, needed

from engine.errors import TokenizerFileError
from engine.formats import load_any
from engine.formats.gguf import MAX_KEYS, read_metadata

from bad_input_files import gguf, gguf_string

#: How llama.cpp's test files separate their texts (tests/test-tokenizer-0.cpp).
SEPARATOR = "\n__ggml_vocab_test__\n"

#: The vocabularies bpe-lab reads (each case must give llama.cpp's ids) ...
READ = ("command-r", "deepseek-coder", "deepseek-llm", "falcon", "gemma-4", "gpt-2", "llama-bpe", "llama-spm", "mpt",
        "phi-3", "qwen2", "qwen35", "refact", "starcoder")
#: ... and those it refuses in one line, with a word the line must hold.
REFUSED = {"bert-bge": "WordPiece"}
#: Slow to read the first time (merges recovered from 128,000 ranks): in the slow pass.
SLOW = {"llama-bpe", "gemma-4"}


def cases(name: str) -> list[tuple[str, list[int]]]:
    """llama.cpp's test texts for a vocabulary with their ids, read as test-tokenizer-0 reads them."""
    raw = needed(f"ggml-vocab-{name}.gguf.inp").read_text(encoding="utf-8")
    texts, at = [], 0
    while at < len(raw):
        end = raw.find(SEPARATOR, at)
        if end < 0:
            texts.append(raw[at:])
            break
        texts.append(raw[at:end])
        at = end + len(SEPARATOR)
    lines = needed(f"ggml-vocab-{name}.gguf.out").read_text(encoding="utf-8").split("\n")[: len(texts)]
    assert len(lines) == len(texts) > 30
    return [(text, [int(i) for i in line.split()]) for text, line in zip(texts, lines, strict=True)]


@functools.cache
def imported(name: str):
    return load_cached(needed(f"ggml-vocab-{name}.gguf"))


def test_every_tested_vocabulary_is_read_or_refused():
    assert set(READ) | set(REFUSED) == set(GGML_TESTED)


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in READ])
def test_llama_cpp_tokenizer_tests_give_their_ids(name):
    """Every case of llama.cpp's test: spaces, tabs, newlines, emoji, Cyrillic, Chinese, digits,
    code. And the ids decode to the text again (the file's ids, through its own numbering)."""
    tok = imported(name)
    wrong = [(text, want, tok.encode(text)) for text, want in cases(name) if tok.encode(text) != want]
    assert not wrong, f"{len(wrong)} cases differ, first: {wrong[0]!r}"
    for text, want in cases(name):
        if want and name not in ("llama-spm", "phi-3", "gemma-4"):  # SentencePiece-style: below
            assert tok.decode(want) == text


def test_sentencepiece_gguf_decodes_as_sentencepiece():
    tok = imported("llama-spm")
    assert tok.decode(tok.encode("Hello world")) == "Hello world"
    assert tok.format == "gguf"


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_other_vocabularies_are_refused_in_one_line(name):
    path = needed(f"ggml-vocab-{name}.gguf")
    with pytest.raises(TokenizerFileError) as caught:
        load_any(path)
    line = str(caught.value)
    assert "\n" not in line and line.startswith(str(path)) and REFUSED[name] in line


@pytest.mark.parametrize("name", ["gpt-neox", "aquila"])
def test_vocabularies_without_a_pre_tokenizer_name_split_as_llama_cpps_default(name):
    """aquila and gpt-neox name no pre-tokenizer: llama.cpp splits them by its default list of
    four patterns, and so does bpe-lab; what they encode decodes to the text again."""
    tok = load_any(needed(f"ggml-vocab-{name}.gguf"))
    assert tok.tokenizer.pretokenizer.chain
    for text in ("Hello world, 1234567 times!", "  tabs\tand\nnewlines  ", "naïve café"):
        assert tok.decode(tok.encode(text)) == text


@pytest.mark.parametrize("name", ["bert-bge", *(pytest.param(n, marks=pytest.mark.slow) for n in
                                                 ("phi-3", "gpt-2", "llama-spm", "qwen2", *GGML_UNTESTED))])
def test_the_metadata_is_what_ggmls_reader_reads(name):
    """Every key and value, as ggml's own reader (the ``gguf`` package, slow: numpy for each
    string) reads them."""
    gguf = pytest.importorskip("gguf")
    path = needed(f"ggml-vocab-{name}.gguf")
    ours = read_metadata(path)
    reader = gguf.GGUFReader(path)
    theirs = {}
    for field in reader.fields.values():
        if field.name.startswith("GGUF."):
            continue
        value = field.contents()
        theirs[field.name] = value
    assert set(ours) == set(theirs)
    for key, value in theirs.items():
        if isinstance(value, float) or (isinstance(value, list) and value and isinstance(value[0], float)):
            assert ours[key] == pytest.approx(value), key
        else:
            assert ours[key] == value, key


# -- hostile headers -------------------------------------------------------------------------


def test_a_cut_header_is_refused_at_every_length(tmp_path):
    whole = (needed("ggml-vocab-gpt-2.gguf").read_bytes())[:200_000]
    path = tmp_path / "cut.gguf"
    for end in (4, 5, 11, 23, 24, 40, 1000, 100_000, 199_999):
        path.write_bytes(whole[:end])
        with pytest.raises(TokenizerFileError, match="truncated|ends early") as caught:
            read_metadata(path)
        assert "\n" not in str(caught.value)


@pytest.mark.parametrize("header, words", [
    (gguf([], version=1), "version 1"),
    (gguf([], keys=MAX_KEYS + 1), "metadata keys"),
    (gguf([("a", 9, struct.pack("<IQ", 8, 1 << 60))]), "truncated"),       # 2^60 strings
    (gguf([("a", 9, struct.pack("<IQ", 10, 1 << 61))]), "truncated"),      # 2^61 u64s
    (gguf([("a", 8, struct.pack("<Q", 1 << 62))]), "truncated"),           # a 4 EB string
    (gguf([("a", 9, struct.pack("<IQ", 9, 1) + bytes(16))]), "array of arrays"),
    (gguf([("a", 13, b"")]), "unknown type 13"),
    (gguf([("a", 8, struct.pack("<Q", 2) + b"\xff\xfe")]), "not UTF-8"),
    (gguf([("general.name", 8, gguf_string("x"))]), "without a tokenizer"),
    (gguf([("tokenizer.ggml.model", 8, gguf_string("gpt2"))]), "tokenizer.ggml.tokens is missing"),
    (gguf([("tokenizer.ggml.model", 8, gguf_string("rwkv"))]), "RWKV"),
])
def test_hostile_headers_get_one_line(tmp_path, header, words):
    path = tmp_path / "bad.gguf"
    path.write_bytes(header)
    with pytest.raises(TokenizerFileError, match=words) as caught:
        load_any(path)
    assert "\n" not in str(caught.value) and str(caught.value).startswith(str(path))


def test_a_model_of_gigabytes_costs_its_header(tmp_path):
    """A real vocabulary's metadata, then 8 GB of (sparse) tensor data: read in the time and
    memory of the metadata alone, the file's size checked against nothing but the metadata."""
    path = tmp_path / "model.gguf"
    path.write_bytes(needed("ggml-vocab-gpt-2.gguf").read_bytes())
    with open(path, "r+b") as handle:
        handle.truncate(8 << 30)
    tok = load_any(path)
    assert tok.encode("Hello world") == [15496, 995]


def test_the_cli_encodes_with_a_gguf_file():
    path = needed("ggml-vocab-qwen2.gguf")
    done = subprocess.run([sys.executable, "-m", "tui.main", "encode", "-t", str(path), "Hello world 你好"],
                          capture_output=True, text=True, timeout=60, cwd=Path(__file__).parents[2])
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [str(i) for i in imported("qwen2").encode("Hello world 你好")]


def full_tokenizer_json(data: dict) -> dict:
    """``hf_data``'s JSON with every field tokenizers asks for."""
    return {"version": "1.0", "truncation": None, "padding": None,
            "added_tokens": [dict(a, single_word=False, lstrip=False, rstrip=False, normalized=False)
                             for a in data["added_tokens"]],
            "normalizer": None, "pre_tokenizer": data["pre_tokenizer"], "post_processor": None,
            "decoder": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False},
            "model": dict(data["model"], dropout=None, unk_token=None, continuing_subword_prefix=None,
                          end_of_word_suffix=None, fuse_unk=False, byte_fallback=False)}


def as_tokenizer_json(name: str, folder):
    """A vocabulary of llama.cpp's tests written as the tokenizer.json it came from: (its JSON data,
    ``tokenizers`` reading the file, bpe-lab reading it)."""
    import json

    from engine.formats.gguf import hf_data

    tokenizers = pytest.importorskip("tokenizers")
    path = needed(f"ggml-vocab-{name}.gguf")
    data, _ = hf_data(path, read_metadata(path))
    target = folder / "tokenizer.json"
    target.write_text(json.dumps(full_tokenizer_json(data)), encoding="utf-8")
    return data, tokenizers.Tokenizer.from_file(str(target)), load_cached(target)


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW or n == "command-r" else n
                                  for n in READ if n not in ("llama-spm", "phi-3", "gemma-4")])
def test_the_same_vocabulary_as_tokenizer_json_gives_tokenizers_ids(tmp_path, name):
    """Each byte-level vocabulary written as the tokenizer.json it came from (Llama 3's with its
    280,147 merges, some using tokens only later merges make; DeepSeek's and StarCoder's chains of
    Splits): bpe-lab reading it gives what ``tokenizers`` gives, on llama.cpp's texts and ours."""
    from texts import TEXTS

    data, theirs, ours = as_tokenizer_json(name, tmp_path)
    texts = [text for text, _ in cases(name)] + TEXTS
    wrong = [text for text in texts if ours.encode(text) != theirs.encode(text, add_special_tokens=False).ids]
    assert not wrong, f"{len(wrong)} texts differ, first: {wrong[0]!r}"


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in READ if n not in ("llama-spm", "phi-3", "gemma-4")])
def test_every_token_alone_and_back_as_tokenizers_gives_it(tmp_path, name):
    """Each vocabulary token that is text on its own (its bytes UTF-8), encoded alone: the ids
    ``tokenizers`` gives the same vocabulary as tokenizer.json, decoded as it decodes them (an added
    token spelled in byte-level characters, DeepSeek's 'ú', decodes to U+FFFD in both)."""
    from engine.formats.hf import unicode_to_token_or_none as as_bytes

    data, theirs, ours = as_tokenizer_json(name, tmp_path)
    texts = []
    for token in data["model"]["vocab"]:
        raw = as_bytes(token)
        try:
            texts.append(raw.decode("utf-8"))
        except (AttributeError, UnicodeDecodeError):
            continue  # part of a character: no text is it alone
    want = [e.ids for e in theirs.encode_batch(texts, add_special_tokens=False)]
    back = theirs.decode_batch(want, skip_special_tokens=False)
    wrong = [text for text, ids, again in zip(texts, want, back) if ours.encode(text) != ids or ours.decode(ids) != again]
    assert len(texts) > 30_000 and not wrong, f"{len(wrong)} of {len(texts)} differ, first: {wrong[:3]!r}"
