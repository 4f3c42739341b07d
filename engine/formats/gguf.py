"""llama.cpp's GGUF model files, read for their tokenizer only (``tokenizer.ggml.*``).

A GGUF file starts with its metadata, key-value pairs, and then describes and holds the tensors
(gigabytes). Only the metadata is read here, from the start of the file and never past it, so a
10 GB model costs what its header costs: a few megabytes. The reader is this module's own
(about a hundred lines) rather than the ``gguf`` package's: that one maps the whole file and
needs numpy, and every count and length here is checked against the bytes left before it is
trusted (tests/engine/test_formats_gguf.py compares the two on llama.cpp's own files).

Two of llama.cpp's tokenizer models are BPE, and both are read:

- ``gpt2``: byte-level BPE. ``tokens`` are the vocabulary spelled in GPT-2's byte-level
  characters, ``merges`` the merges (``"Ġ t"``), ``token_type`` says which tokens are control
  (3) and user-defined (4) ones: special tokens here. ``tokenizer.ggml.pre`` names the
  pre-tokenizer; :data:`PRE_PATTERNS` gives the pattern llama.cpp splits by for each name it
  shares with one pattern (and whether it looks a chunk up whole first, as Llama 3 does).
  A name whose text llama.cpp splits by several patterns in turn is refused in one line.
- ``llama``: SentencePiece BPE (Llama 2, Mistral 7B, Phi-3): pieces with their scores and
  types, read as :mod:`engine.formats.sentencepiece` reads a ``.model`` file, the space prefix
  as ``tokenizer.ggml.add_space_prefix`` says.

Other models (``bert``: WordPiece, ``t5``: Unigram, ``rwkv`` …) are refused in one line naming
the model.
"""

from __future__ import annotations

import struct
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.corpus import check_within, open_bounded
from engine.errors import MAX_FILE_BYTES, TokenizerFileError
from engine.formats import sniff as sniffed
from engine.formats.common import Imported, fail
from engine.formats.hf import unicode_to_token_or_none
from engine.formats.hfpre import isolating
from engine.text.pretokenize import PreTokenizer

if TYPE_CHECKING:
    from engine.encode.tokenizer import Tokenizer
    from engine.formats.sniff import Probe

MAGIC = sniffed.GGUF_MAGIC
#: The metadata read at most (Gemma 4's vocabulary, the largest known, is 15 MB of it).
MAX_METADATA = MAX_FILE_BYTES
#: At most this many key-value pairs (real files hold a few dozen).
MAX_KEYS = 1 << 16

#: A string's length, before its bytes.
_LENGTH = struct.Struct("<Q")
#: GGUF's value types: their numbers, struct formats and sizes (8 string, 9 array).
_SCALARS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}
_STRING, _ARRAY = 8, 9

# llama.cpp's patterns (src/llama-vocab.cpp), as Python's regex module reads them
_GPT2 = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)"
_CONTRACTIONS = r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])"
_LLAMA3 = _CONTRACTIONS + r"|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
_QWEN2 = _CONTRACTIONS + r"|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
_QWEN35 = (_CONTRACTIONS + r"|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+"
           r"|\s+(?!\S)|\s+")
_CASED = r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?"
_GPT4O = (r"[^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))*((?=[\p{L}])([^A-Z]))+" + _CASED
          + r"|[^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))+((?=[\p{L}])([^A-Z]))*" + _CASED
          + r"|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+")
_TEKKEN = (r"[^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))*((?=[\p{L}])([^A-Z]))+|[^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))+"
           r"((?=[\p{L}])([^A-Z]))*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+")

#: ``tokenizer.ggml.pre`` -> (the one pattern llama.cpp splits by, whether a chunk that is a
#: token is taken whole before any merge: llama.cpp's ``ignore_merges``).
PRE_PATTERNS: dict[str, tuple[str, bool]] = {
    **dict.fromkeys(("gpt-2", "phi-2", "jina-es", "jina-de", "gigachat", "jina-v2-es", "jina-v2-de", "a.x-4.0", "mellum",
                     "modern-bert", "jina-v1-en", "jina-v2-code", "roberta-bpe", "mpt", "olmo", "jais"), (_GPT2, False)),
    **dict.fromkeys(("llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2"),
                    (_LLAMA3, True)),
    **dict.fromkeys(("dbrx", "smaug-bpe"), (_LLAMA3, False)),
    **dict.fromkeys(("qwen2", "deepseek-r1-qwen", "stablelm2"), (_QWEN2, False)),
    "qwen35": (_QWEN35, False),
    "chatglm-bpe": (_LLAMA3, False),
    "glm4": (_LLAMA3, True),
    "gpt-4o": (_GPT4O, False),
    "tekken": (_TEKKEN, True),
}

# llama.cpp's lists of patterns, each splitting the pieces the one before it left (its matches
# and the text between them kept): copied from src/llama-vocab.cpp
_DEFAULT = ('[\\p{P}\\$\\+<=>\\^~\\|]+', "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)", '\\p{N}+', '[0-9][0-9][0-9]')  # noqa: E501
_DEEPSEEK_LLM = ('[\r\n]', '\\s?[A-Za-zµÀ-ÖØ-öø-ƺƼ-ƿǄ-ʓʕ-ʯͰ-ͳͶͷͻ-ͽͿΆΈ-ΊΌΎ-ΡΣ-ϵϷ-ҁҊ-ԯԱ-ՖႠ-ჅᎠ-Ᏽᏸ-ᏽᲐ-ᲺᲽ-Ჿᴀ-ᴫᵫ-ᵷᵹ-ᶚḀ-ἕἘ-Ἕἠ-ὅὈ-Ὅὐ-ὗὙὛὝὟ-ώᾀ-ᾴᾶ-ᾼιῂ-ῄῆ-ῌῐ-ΐῖ-Ίῠ-Ῥῲ-ῴῶ-ῼℂℇℊ-ℓℕℙ-ℝℤΩℨK-ℭℯ-ℴℹℼ-ℿⅅ-ⅉⅎↃↄⰀ-ⱻⱾ-ⳤⳫ-ⳮⳲⳳꙀ-ꙭꚀ-ꚛꜢ-ꝯꝱ-ꞇꞋ-ꞎꭰ-ꮿﬀ-ﬆﬓ-ﬗＡ-Ｚａ-ｚ𐐀-𐑏𐒰-𐓓𐓘-𐓻𐲀-𐲲𐳀-𐳲𑢠-𑣟𞤀-𞥃]+', '\\s?[!-/:-~！-／：-～‘-‟\u3000-。]+', '\\s+$', '[一-龥ࠀ-一가-\ud7ff]+', '\\p{N}+')  # noqa: E501
_DEEPSEEK_CODER = ('[\r\n]', '\\s?\\p{L}+', '\\s?\\p{P}+', '[一-龥ࠀ-一가-\ud7ff]+', '\\p{N}')
_FALCON = ('[\\p{P}\\$\\+<=>\\^~\\|`]+', "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)", '[0-9][0-9][0-9]')
_STARCODER = ('\\p{N}', "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)")

#: ``tokenizer.ggml.pre`` -> the patterns llama.cpp splits its text by, in turn (no name: ``default``).
PRE_CHAINS: dict[str, tuple[str, ...]] = {
    "default": _DEFAULT, "deepseek-llm": _DEEPSEEK_LLM, "deepseek-coder": _DEEPSEEK_CODER, "falcon": _FALCON,
    **dict.fromkeys(("starcoder", "refact", "command-r", "smollm", "codeshell", "exaone", "minerva-7b"), _STARCODER),
}
#: Pre-tokenizer names whose chains of patterns bpe-lab does not hold (yet): refused.
CHAINED = ("deepseek-v3", "viking", "chameleon", "bloom", "poro-chat", "gpt3-finnish")


def chain_pretokenizer(patterns: tuple[str, ...]) -> PreTokenizer:
    """The pre-tokenizer that splits as a list of patterns does, each in turn, keeping the text
    between matches: the last one too (as an Isolated ``Split`` does: its pattern or a run of
    text where it does not match)."""
    return PreTokenizer("custom", isolating(patterns[-1]), chain=patterns[:-1])

#: llama.cpp's token types (the SentencePiece ones, numbered alike).
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6


class _Header:
    """The metadata at the start of an opened GGUF file, read in blocks, each count and length
    checked against what may be left before it is trusted."""

    def __init__(self, opened: Any, path: Path, size: int | None) -> None:
        self.opened, self.path = opened, path
        self.left = min(MAX_METADATA, size if size is not None else MAX_METADATA)
        self.buf, self.at = b"", 0

    def need(self, n: int) -> None:
        if self.at + n <= len(self.buf):
            return
        if n > self.left + len(self.buf) - self.at:
            raise self.truncated()
        want = max(n - (len(self.buf) - self.at), 1 << 20)
        more = self.opened.read(min(want, self.left))
        self.left -= len(more)
        self.buf = self.buf[self.at:] + more
        self.at = 0
        if n > len(self.buf):
            raise self.truncated()

    def truncated(self) -> TokenizerFileError:
        if self.left <= 0 and MAX_METADATA <= (self.opened.size or 0):
            return fail(self.path, f"its metadata runs past {MAX_METADATA >> 20} MB, more than a tokenizer holds")
        return fail(self.path, "the GGUF metadata ends early: is the file truncated?")

    def scalar(self, fmt: str) -> Any:
        size = struct.calcsize("<" + fmt)
        self.need(size)
        (value,) = struct.unpack_from("<" + fmt, self.buf, self.at)
        self.at += size
        return value

    def string(self) -> str:
        n = self.scalar("Q")
        self.need(n)
        raw = self.buf[self.at:self.at + n]
        self.at += n
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise fail(self.path, "a GGUF string is not UTF-8") from None

    def strings(self, n: int) -> list[str]:
        """``n`` strings in a row (a vocabulary: hundreds of thousands), read in one loop."""
        raw: list[bytes] = []
        append = raw.append
        length = _LENGTH.unpack_from
        buf, at, end = self.buf, self.at, len(self.buf)
        for _ in range(n):
            if at + 8 > end:
                self.at = at
                self.need(8)
                buf, at, end = self.buf, self.at, len(self.buf)
            (k,) = length(buf, at)
            if at + 8 + k > end:
                self.at = at
                self.need(8 + k)
                buf, at, end = self.buf, self.at, len(self.buf)
            at += 8
            append(buf[at:at + k])
            at += k
        self.at = at
        try:
            return [b.decode("utf-8") for b in raw]
        except UnicodeDecodeError:
            raise fail(self.path, "a GGUF string is not UTF-8") from None

    def value(self, kind: int, depth: int = 0) -> Any:
        if kind in _SCALARS:
            return self.scalar(_SCALARS[kind])
        if kind == _STRING:
            return self.string()
        if kind != _ARRAY or depth:
            raise fail(self.path, f"a GGUF value of unknown type {kind}" if kind != _ARRAY else "a GGUF array of arrays")
        inner, n = self.scalar("I"), self.scalar("Q")
        least = 8 if inner == _STRING else struct.calcsize("<" + _SCALARS[inner]) if inner in _SCALARS else 1
        if n * least > self.left + len(self.buf) - self.at:
            raise self.truncated()
        if inner == _STRING:
            return self.strings(n)
        if inner in _SCALARS:
            fmt = _SCALARS[inner]
            size = struct.calcsize("<" + fmt) * n
            self.need(size)
            values = list(struct.unpack_from(f"<{n}{fmt}", self.buf, self.at))
            self.at += size
            return values
        return [self.value(inner, depth + 1) for _ in range(n)]


def read_metadata(path: Path) -> dict[str, Any]:
    """The key-value metadata of the GGUF file at ``path`` (versions 2 and 3); one-line
    ``TokenizerFileError`` for anything else. Reads the metadata only, never the tensors."""
    check_within(path)
    with open_bounded(path, kind="a GGUF file", limit=sys.maxsize - 1) as opened:
        header = _Header(opened, path, opened.size)
        header.need(4)
        if header.buf[:4] != MAGIC:
            raise fail(path, "not a GGUF file (it does not start with GGUF)")
        header.at = 4
        version = header.scalar("I")
        if version not in (2, 3):
            raise fail(path, f"GGUF version {version}: bpe-lab reads versions 2 and 3 (convert it again with llama.cpp)")
        header.scalar("Q")  # the tensors, which are not read
        keys = header.scalar("Q")
        if keys > MAX_KEYS:
            raise fail(path, f"{keys:,} metadata keys, more than the {MAX_KEYS:,} a GGUF file holds")
        meta: dict[str, Any] = {}
        for _ in range(keys):
            key = header.string()
            meta[key] = header.value(header.scalar("I"))
    return meta


def _strings(meta: dict[str, Any], key: str, path: Path, n: int | None = None) -> list[str]:
    value = meta.get(key)
    if not isinstance(value, list) or not set(map(type, value)) <= {str}:
        raise fail(path, f"{key} is missing or not a list of strings")
    if n is not None and len(value) != n:
        raise fail(path, f"{key} has {len(value):,} entries for {n:,} tokens")
    return value


def _types(meta: dict[str, Any], path: Path, n: int) -> list[int]:
    value = meta.get("tokenizer.ggml.token_type")
    if value is None:
        return [NORMAL] * n
    if not isinstance(value, list) or len(value) != n or not all(isinstance(v, int) for v in value):
        raise fail(path, f"tokenizer.ggml.token_type is not a number for each of its {n:,} tokens")
    return value


def hf_data(path: Path, meta: dict[str, Any],
            pretokenizer: PreTokenizer | None = None) -> tuple[dict[str, Any], list[str]]:
    """The HuggingFace tokenizer.json (as JSON data) a ``gpt2`` model's metadata stands for, and
    the notes on what it leaves out."""
    from engine.formats.hfpre import pretokenizer_json

    tokens = _strings(meta, "tokenizer.ggml.tokens", path)
    types = _types(meta, path, len(tokens))
    merges = _strings(meta, "tokenizer.ggml.merges", path)
    pre_name = meta.get("tokenizer.ggml.pre", "default")
    whole = False
    if pretokenizer is not None:
        pre = pretokenizer
    elif pre_name in PRE_CHAINS:
        pre = chain_pretokenizer(PRE_CHAINS[pre_name])
    elif pre_name in PRE_PATTERNS:
        pattern, whole = PRE_PATTERNS[pre_name]
        # llama.cpp keeps the text between matches (GPT-2's list lacks tiktoken's last "|\s+"):
        # a pattern that ends so matches everything already, and keeps its fast scanners
        pre = PreTokenizer("custom", pattern if pattern.endswith(r"|\s+") else isolating(pattern))
    elif pre_name in CHAINED:
        raise fail(path, f"its pre-tokenizer {pre_name!r} splits text by several patterns in turn, which bpe-lab "
                         "does not read yet (give one with --pattern to read it anyway)")
    else:
        raise fail(path, f"its pre-tokenizer {pre_name!r} is not one bpe-lab knows (give its pattern with --pattern)")
    added = [{"id": i, "content": t, "special": kind == CONTROL}
             for i, (t, kind) in enumerate(zip(tokens, types)) if kind in (CONTROL, USER_DEFINED)]
    specials = {t for t, kind in zip(tokens, types) if kind in (CONTROL, USER_DEFINED)}
    vocab = {t: i for i, t in enumerate(tokens)}
    odd = [t for t in vocab if t not in specials and unicode_to_token_or_none(t) is None]
    for t in odd:  # Command-R's "\u200d": no merge makes it, and no text is read as it
        del vocab[t]
    data = {
        "model": {"type": "BPE", "vocab": vocab, "merges": merges, "ignore_merges": whole},
        "added_tokens": added,
        "pre_tokenizer": pretokenizer_json(pre, byte_level=True),
        "decoder": {"type": "ByteLevel"},
    }
    note = ([f"{len(odd)} token(s) (first: {odd[0]!r}) are not byte-level text: no text encodes to them"]
            if odd else [])
    return data, note


def _byte_level(path: Path, meta: dict[str, Any], pretokenizer: PreTokenizer | None) -> Imported:
    """A ``gpt2`` model: read as the HuggingFace tokenizer.json it was converted from."""
    from engine.formats.hf import load_hf

    data, note = hf_data(path, meta, pretokenizer)
    imported = load_hf(path, data)
    return replace(imported, format="gguf", path=str(path), warnings=note + imported.warnings)


def _gemma4(path: Path, meta: dict[str, Any]) -> Imported:
    """A ``gemma4`` model: SentencePiece-style BPE over the text as it is (spaces as ``▁``, bytes
    that no token holds as byte tokens), read as the tokenizer.json it came from: its merges
    split at their first space after the first character, as llama.cpp splits them (a token may
    start with a space)."""
    from engine.formats.hf import load_hf
    from engine.formats.sentencepiece import SPACE

    tokens = _strings(meta, "tokenizer.ggml.tokens", path)
    types = _types(meta, path, len(tokens))
    merges = []
    for k, merge in enumerate(_strings(meta, "tokenizer.ggml.merges", path)):
        cut = merge.find(" ", 1)
        if cut < 0:
            raise fail(path, f"merge {k + 1} {merge!r} is not two tokens separated by a space")
        merges.append([merge[:cut], merge[cut + 1:]])
    unk = meta.get("tokenizer.ggml.unknown_token_id")
    if not isinstance(unk, int) or not 0 <= unk < len(tokens):
        raise fail(path, "tokenizer.ggml.unknown_token_id is missing or not a token")
    data = {
        "model": {"type": "BPE", "vocab": {t: i for i, t in enumerate(tokens)}, "merges": merges, "byte_fallback": True,
                  "unk_token": tokens[unk]},
        "added_tokens": [{"id": i, "content": t, "special": kind == CONTROL}
                         for i, (t, kind) in enumerate(zip(tokens, types)) if kind in (CONTROL, USER_DEFINED)],
        "normalizer": {"type": "Replace", "pattern": {"String": " "}, "content": SPACE},
        "pre_tokenizer": None,
    }
    imported = load_hf(path, data)
    return replace(imported, format="gguf", path=str(path))


def _sentencepiece(path: Path, meta: dict[str, Any]) -> Imported:
    """A ``llama`` model: SentencePiece BPE, as its ``.model`` file would be read."""
    from engine.formats.sentencepiece import Model, from_model

    tokens = _strings(meta, "tokenizer.ggml.tokens", path)
    scores = meta.get("tokenizer.ggml.scores")
    if not isinstance(scores, list) or len(scores) != len(tokens):
        raise fail(path, "tokenizer.ggml.scores is missing or not a score for each token")
    types = _types(meta, path, len(tokens))
    unk = meta.get("tokenizer.ggml.unknown_token_id", 0)
    # llama.cpp's converters mark padding and spare tokens UNKNOWN or UNUSED: beside the one
    # unknown token, they are special tokens here (no text is ever split into them)
    kinds = [UNKNOWN if i == unk else CONTROL if kind in (UNKNOWN, UNUSED) else kind for i, kind in enumerate(types)]
    model = Model(pieces=list(zip(tokens, map(float, scores), kinds)), model_type=2,
                  byte_fallback=BYTE in kinds, normalizer_name="identity",
                  add_dummy_prefix=bool(meta.get("tokenizer.ggml.add_space_prefix", True)),
                  remove_extra_whitespaces=bool(meta.get("tokenizer.ggml.remove_extra_whitespaces", False)))
    imported = from_model(path, model)
    return replace(imported, format="gguf")


#: What llama.cpp's other tokenizer models are, for the one line that refuses them.
OTHER_MODELS = {"bert": "WordPiece", "t5": "Unigram", "rwkv": "RWKV's trie", "ugm": "Unigram", "plamo2": "PLaMo 2's",
                "no_vocab": "no", "none": "no"}


def load(path: Path, content: Any, pretokenizer: PreTokenizer | None, need_pattern: bool) -> Imported:
    meta = read_metadata(path)
    model = meta.get("tokenizer.ggml.model")
    if model is None:
        raise fail(path, "a GGUF file without a tokenizer (no tokenizer.ggml.model)")
    if model == "gpt2":
        return _byte_level(path, meta, pretokenizer)
    if model == "llama":
        return _sentencepiece(path, meta)
    if model == "gemma4":
        return _gemma4(path, meta)
    what = OTHER_MODELS.get(str(model))
    said = f"{what} tokenizer" if what else "tokenizer"
    raise fail(path, f"a GGUF {model!r} {said}: bpe-lab reads GGUF's BPE tokenizers only (gpt2, llama, gemma4)")


def sniff(probe: Probe) -> int:
    if probe.kind == "gguf":
        return sniffed.GGUF
    return sniffed.NAMED if probe.path.suffix == ".gguf" else 0


def save(tok: Tokenizer, path: Path, ids: Any, source: str) -> list[str]:
    from engine.errors import ExportError

    raise ExportError("bpe-lab does not write GGUF files")


def reads(path: Path) -> list[Path]:
    return [path]


writes = reads
