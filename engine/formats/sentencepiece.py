"""SentencePiece ``.model`` files (a protobuf ``ModelProto``): recognised, and refused with a line
that names the model type. bpe-lab does not read them yet; the type is read from the protobuf
itself (``trainer_spec.model_type``), so no ``sentencepiece`` package is needed to say so.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ExportError
from ..pretokenize import PreTokenizer
from ..tokenizer import Tokenizer
from . import sniff as sniffed
from .common import Imported, fail

if TYPE_CHECKING:
    from .sniff import Probe

#: trainer_spec.model_type's values (sentencepiece_model.proto).
MODEL_TYPES = {1: "Unigram", 2: "BPE", 3: "word", 4: "char"}


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if at >= len(data) or shift > 63:
            raise ValueError("truncated varint")
        byte = data[at]
        value |= (byte & 0x7F) << shift
        at += 1
        if not byte & 0x80:
            return value, at
        shift += 7


def _fields(data: bytes):
    """(field number, wire type, value) of a protobuf message; ValueError when it is not one."""
    at = 0
    while at < len(data):
        key, at = _varint(data, at)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, at = _varint(data, at)
        elif wire == 2:
            size, at = _varint(data, at)
            if at + size > len(data):
                raise ValueError("truncated field")
            value, at = data[at : at + size], at + size
        elif wire == 1:
            value, at = data[at : at + 8], at + 8
        elif wire == 5:
            value, at = data[at : at + 4], at + 4
        else:
            raise ValueError("not protobuf")
        if number == 0 or at > len(data):
            raise ValueError("not protobuf")
        yield number, wire, value


def model_type(raw: bytes) -> str | None:
    """The model type of a SentencePiece model (``"Unigram"`` when the spec leaves it out, as the
    library does), or None when ``raw`` is not one (pieces, field 1, and a trainer spec, field 2)."""
    try:
        pieces = spec = None
        for number, wire, value in _fields(raw):
            if number == 1 and wire == 2:
                pieces = True
            elif number == 2 and wire == 2:
                spec = value
        if not pieces or spec is None:
            return None
        kind = 1
        for number, wire, value in _fields(spec):
            if number == 3 and wire == 0:
                kind = value
        return MODEL_TYPES.get(kind, f"type {kind}")
    except ValueError:
        return None


def sniff(probe: Probe) -> int:
    return sniffed.HF if probe.kind == "binary" and model_type(probe.raw or b"") is not None else 0


def load(path: Path, content: Any, pretokenizer: PreTokenizer | None, need_pattern: bool) -> Imported:
    kind = model_type(content) if isinstance(content, bytes) else None
    if kind == "BPE":
        raise fail(path, "a SentencePiece BPE model (.model, as Mistral's and Llama 2's): bpe-lab does not read these yet "
                         "(a tokenizer.json converted from it has byte_fallback, which bpe-lab does not read either)")
    if kind is not None:
        raise fail(path, f"a SentencePiece {kind} model (.model): bpe-lab trains and replays BPE models only "
                         "(bpe-lab compare CORPUS trains Unigram and WordPiece beside BPE)")
    raise fail(path, "not a SentencePiece model")


def save(tok: Tokenizer, path: Path, ids: Sequence[int | None] | None, source: str) -> list[str]:
    raise ExportError("bpe-lab does not write SentencePiece models")


def reads(path: Path) -> list[Path]:
    return [path]


writes = reads
