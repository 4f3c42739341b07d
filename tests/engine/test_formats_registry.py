"""The format registry: one record a format (engine.formats.REGISTRY), whose hooks are all that
load_any, export_tokenizer, detect_format, read_paths and written_paths dispatch on."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

import engine.formats as formats
from engine import Tokenizer
from engine.errors import ExportError, TokenizerFileError
from engine.formats import BY_NAME, FORMATS, REGISTRY, Format, detect_format, export_tokenizer, load_any, read_paths, written_paths
from engine.text.pretokenize import PreTokenizer

HOOKS = ("sniff", "load", "save", "reads", "writes")


def small() -> Tokenizer:
    return Tokenizer([(104, 105), (256, 33)], specials=["<eos>"], pretokenizer=PreTokenizer("gpt2"))


def test_every_record_has_its_hooks_and_a_unique_name():
    assert len({f.name for f in REGISTRY}) == len(REGISTRY)
    assert FORMATS == tuple(f.name for f in REGISTRY if f.writable)
    for record in REGISTRY:
        for hook in HOOKS:
            assert callable(getattr(record.hooks, hook)), (record.name, hook)
        assert record.label and record.summary


@pytest.mark.parametrize("fmt", ["hf", "gpt2", "tiktoken", "native"])
def test_each_written_file_is_sniffed_as_its_format(tmp_path, fmt):
    path = tmp_path / ("out" if BY_NAME[fmt].writes_folder else f"out.{fmt}")
    export_tokenizer(small(), fmt, path)
    written = written_paths(fmt, path)
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == sorted(p.name for p in written)
    for p in written:
        assert detect_format(p) == fmt
        assert set(read_paths(fmt, p)) >= {p}
    imported = load_any(path, pretokenizer=PreTokenizer("gpt2") if fmt == "gpt2" else None)  # the pair holds no pattern
    assert imported.format == fmt
    assert imported.encode("hi! hi<eos>") == small().encode("hi! hi<eos>")


def test_unknown_format_names_the_registry():
    with pytest.raises(ExportError, match="choose hf, gpt2, tiktoken, seed001, native"):
        export_tokenizer(small(), "sentencepiece", "x")


def test_a_pattern_is_refused_where_the_record_says_the_file_has_its_own(tmp_path):
    export_tokenizer(small(), "hf", tmp_path / "t.json")
    with pytest.raises(TokenizerFileError, match="vocab.json \\+ merges.txt, .tiktoken, subword-nmt codes and .gguf files; this is hf"):
        load_any(tmp_path / "t.json", pretokenizer=PreTokenizer("gpt2"))


def test_a_new_record_is_all_a_new_format_needs(tmp_path, monkeypatch):
    """A toy format ("ids: " and the merges as numbers) added to the registry is sniffed,
    loaded, written and listed with no other change."""
    hooks = types.ModuleType("toy_format_hooks")

    def sniff(probe):
        return 40 if probe.kind == "text" and probe.lines[0].startswith("ids:") else 0

    def load(path, content, pretokenizer, need_pattern):
        from engine.formats.common import Imported

        numbers = [int(x) for x in content.split()[1:]]
        return Imported(Tokenizer(list(zip(numbers[0::2], numbers[1::2]))), "toy", str(path))

    def save(tok, path, ids, source):
        Path(path).write_text("ids: " + " ".join(f"{a} {b}" for a, b in tok.merges) + "\n", encoding="utf-8")
        return []

    hooks.sniff, hooks.load, hooks.save = sniff, load, save
    hooks.reads = hooks.writes = lambda path: [path]
    monkeypatch.setitem(sys.modules, "toy_format_hooks", hooks)
    toy = Format("toy", "toy_format_hooks", "a toy", "toy")
    monkeypatch.setattr(formats, "REGISTRY", (*REGISTRY, toy))
    monkeypatch.setitem(BY_NAME, "toy", toy)
    export_tokenizer(small(), "toy", tmp_path / "t.toy")
    assert detect_format(tmp_path / "t.toy") == "toy"
    assert load_any(tmp_path / "t.toy").tokenizer.merges == small().merges


def test_a_read_only_format_is_refused_on_export(tmp_path):
    assert "tekken" in BY_NAME and "tekken" not in FORMATS
    with pytest.raises(ExportError, match="reads tekken files but does not write them"):
        export_tokenizer(small(), "tekken", tmp_path / "t.json")
    assert not (tmp_path / "t.json").exists()


def test_a_small_tekken_file_reads_with_offset_ids(tmp_path):
    import base64
    import json

    vocab = [{"rank": i, "token_bytes": base64.b64encode(bytes([i])).decode(), "token_str": None} for i in range(256)]
    vocab += [{"rank": 256, "token_bytes": base64.b64encode(b"hi").decode(), "token_str": "hi"}]
    config = {"pattern": r"\S+|\s+", "default_vocab_size": 257 + 3, "default_num_special_tokens": 3, "version": "v3"}
    (tmp_path / "tekken.json").write_text(json.dumps({"config": config, "vocab": vocab}), encoding="utf-8")
    imported = load_any(tmp_path / "tekken.json")
    assert imported.format == "tekken" and detect_format(tmp_path / "tekken.json") == "tekken"
    assert imported.encode("hi hx") == [259, 35, 107, 123]  # ranks + 3
    assert imported.warnings == ["its 3 special tokens (ids 0-2) are not read: mistral-common never finds them in text; "
                                 "the other ids are mistral-common's (the ranks + 3)"]


def test_a_binary_file_that_is_no_sentencepiece_model_is_not_text(tmp_path):
    from engine.formats.sentencepiece import model_type

    (tmp_path / "m.bin").write_bytes(bytes(range(256)))
    with pytest.raises(TokenizerFileError, match="not a text file"):
        load_any(tmp_path / "m.bin")
    # a ModelProto: one piece (field 1) and a trainer spec (field 2) with model_type (field 3) = 2
    piece = b"\x0a\x01a"
    spec = b"\x18\x02"
    model = b"\x0a" + bytes([len(piece)]) + piece + b"\x12" + bytes([len(spec)]) + spec
    assert model_type(model) == "BPE" and model_type(model[:-1]) is None
    (tmp_path / "m.model").write_bytes(model + b"\xff")  # not UTF-8... and no longer protobuf
    with pytest.raises(TokenizerFileError, match="not a text file"):
        load_any(tmp_path / "m.model")
