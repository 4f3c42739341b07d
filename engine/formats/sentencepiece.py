"""SentencePiece ``.model`` files (a protobuf ``ModelProto``), read without the ``sentencepiece``
package: the three messages bpe-lab needs (the pieces, the trainer spec, the normalizer spec) are
read from the protobuf wire format here, so no protobuf or sentencepiece install is needed (the
tests use ``sentencepiece`` itself to check every id).

A BPE model (Mistral 7B's and its instruct models', Llama 2's) becomes a chars-base tokenizer
that encodes as sentencepiece does:

- the text is normalized as the model's normalizer spec says: its normalization table
  (``nmt_nfkc``, sentencepiece's default; none in an ``identity`` model), applied by
  sentencepiece's longest-match rule (:mod:`engine.text.charsmap`), then a ``▁`` before the text and
  ``▁`` for each space (``remove_extra_whitespaces`` too); a byte that is not UTF-8 becomes
  U+FFFD, as in sentencepiece;
- the alphabet is the unknown piece (id 0), the 256 byte pieces ``<0x00>``-``<0xFF>`` (for
  ``byte_fallback``: a character outside the alphabet becomes its bytes' pieces) and every piece
  of one character;
- every longer piece is a merge, in the order of the pieces' scores (highest first). Chunks are
  merged by the rank of the joined text, equal scores tying to the leftmost pair
  (``Tokenizer.text_ranks``), which is sentencepiece's own rule. Each merge's two parts are
  recovered as the ``tokenizers`` converter would find them, by running that rule on the piece's
  own text with only the pieces before it (minbpe's ``recover_merges``), else the converter's
  first split of the piece into two earlier pieces; tied runs of one character (Llama 2's
  ``▁▁``-``▁``x16) are ordered and split by a plan that agrees with the leftmost rule
  (:func:`engine.formats.spm_merges._run_plan`), so that a replay, merging pair after pair,
  segments runs as it does;
- control pieces (``<s>``, ``</s>``, ``[INST]``) and user-defined ones (``[REF]``) are special
  tokens. A user-defined piece is found as sentencepiece finds it: in the normalized text, whole,
  never merged with what is beside it, so ``"see [REF] here"`` is ``▁see``, ``▁``, ``[REF]``,
  ``▁here``; a control piece is found in the text before it is normalized, as ``tokenizers``
  finds the added tokens of a converted model (sentencepiece never finds one in text).

Unigram, word and char models are refused in one line naming the type.
"""

from __future__ import annotations

import base64
import math
import struct
from bisect import insort
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.encode.tokenizer import Tokenizer
from engine.encode.vocabulary import BYTE_CHARS
from engine.errors import ExportError
from engine.formats import sniff as sniffed
from engine.formats.common import Imported, check_special, fail, read_raw, show
from engine.formats.spm_merges import MAX_PARTED_CHARS, _parts, _plan_ties
from engine.text.charsmap import CharsmapError, charsmap
from engine.text.normalize import Normalizer
from engine.text.pretokenize import PreTokenizer

if TYPE_CHECKING:
    from engine.formats.sniff import Probe

#: trainer_spec.model_type's values (sentencepiece_model.proto).
MODEL_TYPES = {1: "Unigram", 2: "BPE", 3: "word", 4: "char"}
#: SentencePiece.type's values.
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
#: sentencepiece's whitespace symbol.
SPACE = "\u2581"


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


def _fields(data: bytes) -> Iterator[tuple[int, int, Any]]:
    """(field number, wire type, value) of a protobuf message; ValueError when it is not one.

    The value is an int for wire type 0 (a varint) and bytes for 1, 2 and 5; it is typed Any
    because the wire type, which a static type cannot follow, says which (the readers check it).
    """
    at = 0
    while at < len(data):
        key, at = _varint(data, at)
        number, wire = key >> 3, key & 7
        value: int | bytes
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


@dataclass
class Model:
    """What bpe-lab reads of a ``ModelProto``: each piece's (text, score, type), and the specs'
    fields it uses, with the proto's defaults."""

    pieces: list[tuple[str, float, int]] = field(default_factory=list)
    model_type: int = 1
    byte_fallback: bool = False
    whitespace_as_suffix: bool = False
    unk_surface: str = " \u2047 "
    normalizer_name: str = ""
    #: the normalizer spec's precompiled_charsmap (sentencepiece's normalization table), or b""
    charsmap: bytes = b""
    add_dummy_prefix: bool = True
    remove_extra_whitespaces: bool = True
    escape_whitespaces: bool = True


class BadScore(ValueError):
    """A piece whose score is not a finite number (NaN or infinite)."""


def parse_model(raw: bytes) -> Model:
    """The fields of a ``.model`` file's protobuf; ValueError when it is malformed."""
    model = Model()
    for number, wire, value in _fields(raw):
        if number == 1 and wire == 2:
            text, score, kind = None, 0.0, NORMAL
            for n, w, v in _fields(value):
                if n == 1 and w == 2:
                    text = v.decode("utf-8")
                elif n == 2 and w == 5:
                    score = struct.unpack("<f", v)[0]
                elif n == 3 and w == 0:
                    kind = v
            if text is None:
                raise ValueError(f"piece {len(model.pieces)} has no text")
            if not math.isfinite(score):  # NaN would order the merges by chance, run to run
                raise BadScore(f"piece {len(model.pieces)} scores {score}: a SentencePiece model's scores must be "
                               "finite numbers")
            model.pieces.append((text, score, kind))
        elif number == 2 and wire == 2:
            for n, w, v in _fields(value):
                if n == 3 and w == 0:
                    model.model_type = v
                elif n == 35 and w == 0:
                    model.byte_fallback = bool(v)
                elif n == 24 and w == 0:
                    model.whitespace_as_suffix = bool(v)
                elif n == 44 and w == 2:
                    model.unk_surface = v.decode("utf-8")
        elif number == 3 and wire == 2:
            for n, w, v in _fields(value):
                if n == 1 and w == 2:
                    model.normalizer_name = v.decode("utf-8")
                elif n == 2 and w == 2:
                    model.charsmap = bytes(v)
                elif n == 3 and w == 0:
                    model.add_dummy_prefix = bool(v)
                elif n == 4 and w == 0:
                    model.remove_extra_whitespaces = bool(v)
                elif n == 5 and w == 0:
                    model.escape_whitespaces = bool(v)
    return model


def normalizer_spec(model: Model) -> dict[str, Any]:
    """The model's normalization as HuggingFace normalizer JSON (what :mod:`engine.text.normalize`
    applies and an hf export keeps): the normalization table, invalid bytes to U+FFFD, extra
    spaces removed, the dummy prefix, spaces escaped as ``▁``."""
    steps: list[dict[str, Any]] = [{"type": "Replace", "pattern": {"Regex": r"[\udc80-\udcff]"}, "content": "\ufffd"}]
    if model.charsmap:  # read with Normalizer(..., precompiled="sentencepiece"): its own rule
        steps.insert(0, {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(model.charsmap).decode("ascii")})
    if model.remove_extra_whitespaces:  # spaces at the start go, runs of them become one ...
        steps += [{"type": "Replace", "pattern": {"Regex": r"\A +"}, "content": ""},
                  {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}]
    space = SPACE if model.escape_whitespaces else " "
    if model.add_dummy_prefix:
        steps.append({"type": "Prepend", "prepend": space})
    if model.escape_whitespaces:
        steps.append({"type": "Replace", "pattern": {"String": " "}, "content": SPACE})
    if model.remove_extra_whitespaces:  # ... and at the end, with the prefix when nothing else is left
        steps.append({"type": "Replace", "pattern": {"Regex": f"{space}+(?![\\s\\S])"}, "content": ""})
    return {"type": "Sequence", "normalizers": steps}


def _byte_of(piece: str) -> int | None:
    """The byte a byte piece (``<0xE4>``) stands for."""
    if len(piece) == 6 and piece.startswith("<0x") and piece.endswith(">"):
        try:
            return int(piece[3:5], 16)
        except ValueError:
            return None
    return None


def read_model(path: Path, raw: bytes) -> Imported:
    """A SentencePiece BPE ``.model``'s tokenizer, with the file's ids; anything else is refused."""
    try:
        model = parse_model(raw)
    except BadScore as exc:
        raise fail(path, str(exc)) from None
    except (ValueError, UnicodeDecodeError):
        raise fail(path, "not a SentencePiece model (its protobuf is malformed)") from None
    return from_model(path, model)


def from_model(path: Path, model: Model) -> Imported:
    """The tokenizer of a model's pieces and specs (read from a ``.model`` file, or from a GGUF
    file's metadata: :mod:`engine.formats.gguf`), with the file's ids; anything but BPE is refused."""
    model_kind = MODEL_TYPES.get(model.model_type, f"type {model.model_type}")
    if model_kind != "BPE":
        raise fail(path, f"a SentencePiece {model_kind} model (.model): bpe-lab trains and replays BPE models only "
                         "(bpe-lab compare CORPUS trains Unigram and WordPiece beside BPE)")
    if model.whitespace_as_suffix:
        raise fail(path, "a SentencePiece model with treat_whitespace_as_suffix: bpe-lab reads ▁ as a prefix only")
    warnings: list[str] = []
    if model.charsmap:
        try:
            charsmap(model.charsmap)
        except CharsmapError as exc:
            raise fail(path, f"the model's {model.normalizer_name or 'normalization'} table is malformed ({exc})") from None
    # its table (nmt_nfkc, say) is applied as sentencepiece applies it
    normalizer = Normalizer(normalizer_spec(model), precompiled="sentencepiece")
    pieces = model.pieces
    unk = [i for i, (_, _, kind) in enumerate(pieces) if kind == UNKNOWN]
    if len(unk) != 1:
        raise fail(path, f"a SentencePiece model has one unknown piece; this one has {len(unk)}")
    unused = sum(1 for _, _, kind in pieces if kind == UNUSED)
    if unused:
        raise fail(path, f"{unused} UNUSED piece(s) (sentencepiece splits them again), which bpe-lab does not read")
    seen: dict[str, int] = {}
    for i, (text, _, kind) in enumerate(pieces):
        if not text:
            raise fail(path, f"piece {i} is empty")
        if text in seen and kind not in (BYTE,):
            raise fail(path, f"piece {show(text)} is given twice (ids {seen[text]} and {i})")
        seen.setdefault(text, i)
    bytes_at = {}
    for i, (text, _, kind) in enumerate(pieces):
        if kind == BYTE:
            byte = _byte_of(text)
            if byte is None or byte in bytes_at:
                raise fail(path, f"byte piece {show(text)} (id {i}) is not one of <0x00>-<0xFF>, each once")
            bytes_at[byte] = i
    fallback = model.byte_fallback and len(bytes_at) == 256
    if model.byte_fallback and not fallback:
        raise fail(path, f"byte_fallback needs the 256 byte pieces <0x00>-<0xFF>; this model has {len(bytes_at)}")
    chars = [(text, i) for i, (text, _, kind) in enumerate(pieces) if kind == NORMAL and len(text) == 1]
    alphabet = ["\ufffd"] + (list(BYTE_CHARS) if fallback else []) + [c for c, _ in chars]
    file_ids: list[int | None] = [unk[0], *([bytes_at[b] for b in range(256)] if fallback else []), *(i for _, i in chars)]
    # Longer pieces, highest score first (ties by id, as the converter's stable sort); equal
    # scores share a rank (sentencepiece takes the leftmost of them).
    longer = sorted(((text, score, i) for i, (text, score, kind) in enumerate(pieces) if kind == NORMAL and len(text) > 1),
                    key=lambda p: (-p[1], p[2]))
    distinct = {score: r for r, score in enumerate(sorted({score for _, score, _ in longer}, reverse=True))}
    order = {text: distinct[score] for text, score, _ in longer}
    made = {c: k for k, c in enumerate(alphabet)}
    made.update((c, len(alphabet) - len(chars) + k) for k, (c, _) in enumerate(chars))  # a byte's character: its piece
    merges: list[tuple[int, int]] = []
    ranks: list[int] = []
    dropped = []
    planned = _plan_ties(longer)
    parted = sum(len(text) for text, _, _ in longer if text not in planned)
    if parted > MAX_PARTED_CHARS:  # the work of splitting them, known before it starts
        raise fail(path, f"its {len(longer):,} longer pieces hold {parted:,} characters to split into merges, more "
                         f"than {MAX_PARTED_CHARS:,}, the bound for a SentencePiece model (Llama 2's holds about 160,000)")
    made_lengths = sorted({len(text) for text in made})  # the lengths a piece's left part can have
    for text, score, i in longer:
        split = list(planned[text]) if text in planned else _parts(text, order, distinct[score])
        if not (len(split) == 2 and split[0] in made and split[1] in made):  # any two made pieces, shortest left first
            split = next(([text[:k], text[k:]] for k in made_lengths if k < len(text) and text[:k] in made
                          and text[k:] in made), [])
        if not split:
            dropped.append(text)
            continue
        made[text] = len(alphabet) + len(merges)
        if len(text) not in made_lengths:
            insort(made_lengths, len(text))
        merges.append((made[split[0]], made[split[1]]))
        ranks.append(distinct[score])
        file_ids.append(i)
    if dropped:
        warnings.append(f"{len(dropped)} piece(s) are made of no two earlier pieces and are left out (first: {show(dropped[0])})")
    specials = [(text, i) for i, (text, _, kind) in enumerate(pieces) if kind in (CONTROL, USER_DEFINED)]
    for text, _ in specials:
        check_special(path, text)
    file_ids.extend(i for _, i in specials)
    try:
        tok = Tokenizer.from_sentencepiece(merges, alphabet=alphabet, specials=[t for t, _ in specials],
                                           pretokenizer=PreTokenizer("none"), normalizer=normalizer,
                                           byte_fallback=fallback, text_ranks=ranks,
                                           user_defined=[t for t, i in specials if pieces[i][2] == USER_DEFINED])
    except ValueError as exc:
        raise fail(path, str(exc)) from None
    controls = [t for t, i in specials if pieces[i][2] == CONTROL]
    if controls:
        warnings.append(f"{len(controls)} control piece(s) ({', '.join(controls[:3])}, ...) are special tokens, found in "
                        "text as tokenizers finds them (sentencepiece finds none in text)")
    return SentencePieceImport(tok, "sentencepiece", str(path), file_ids, warnings,
                               unk_surface=model.unk_surface, dummy_prefix=model.add_dummy_prefix,
                               squeeze=model.remove_extra_whitespaces,
                               controls=frozenset(tok.specials[t] for t, i in specials if pieces[i][2] == CONTROL))


@dataclass
class SentencePieceImport(Imported):
    """An import whose :meth:`decode` is sentencepiece's: ``▁`` is a space, the dummy prefix's
    space at the start goes, control pieces decode to nothing and the unknown piece to
    ``unk_surface``; a user-defined piece is its text, as a normal piece; bytes that are not
    UTF-8 become U+FFFD, one a byte. (With ``remove_extra_whitespaces``, every ``▁`` before the
    first text goes.)"""

    unk_surface: str = " \u2047 "
    dummy_prefix: bool = True
    controls: frozenset[int] = frozenset()  # our ids of the control pieces
    squeeze: bool = False  # remove_extra_whitespaces
    #: ``bpe-lab decode`` prints :meth:`decode` (not the tokens' bytes joined).
    decodes_text = True

    def decode(self, ids: Any) -> str:
        tok = self.tokenizer
        ours = self.from_file_ids(ids)
        out: list[str] = []
        pending = bytearray()
        controls = self.controls
        token_bytes = tok.token_bytes

        def flush() -> None:
            while pending:
                try:
                    out.append(pending.decode("utf-8"))
                    pending.clear()
                except UnicodeDecodeError as exc:
                    out.append(pending[: exc.start].decode("utf-8"))
                    out.append("\ufffd" * max(1, exc.end - exc.start))
                    del pending[: max(exc.end, exc.start + 1)]

        bos = True  # at the start: the dummy prefix's ▁ is still to be taken off
        for i in ours:
            if i == 0:
                flush()
                out.append(self.unk_surface)
            elif i in controls:
                flush()
            elif tok.byte_fallback and i <= 256:
                pending.extend(tok.pieces[i])
            else:
                flush()
                text = token_bytes(i).decode("utf-8", "surrogateescape")  # a user-defined piece: a special's text
                consumed, bos = False, bos and not any(out)
                if bos and (self.dummy_prefix or self.squeeze) and text.startswith(SPACE):
                    text, consumed = text[1:], not self.squeeze  # squeezed: every leading ▁ goes
                bos = bos and not (text or consumed)
                out.append(text.replace(SPACE, " "))
        flush()
        return "".join(out)


# -- the format's hooks (engine.formats.REGISTRY) --------------------------------------------


def sniff(probe: Probe) -> int:
    return sniffed.HF if probe.kind == "binary" and model_type(probe.raw or b"") is not None else 0


def load(path: Path, content: Any, pretokenizer: PreTokenizer | None, need_pattern: bool) -> Imported:
    raw = content if isinstance(content, bytes) else read_raw(path)
    if model_type(raw) is None:
        raise fail(path, "not a SentencePiece model")
    return read_model(path, raw)


def save(tok: Tokenizer, path: Path, ids: Sequence[int | None] | None, source: str) -> list[str]:
    raise ExportError("bpe-lab does not write SentencePiece models")


def reads(path: Path) -> list[Path]:
    return [path]


writes = reads
