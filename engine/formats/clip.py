"""CLIP's own merges file, ``bpe_simple_vocab_16e6.txt.gz`` (OpenAI's CLIP and ``open_clip_torch``
ship it): gzip-compressed text, a header line, then merges, of which CLIP keeps the first
48,894 (``merges[1:49152-256-2+1]`` in its SimpleTokenizer).

Read as transformers' ``CLIPConverter`` makes it into a tokenizer.json, which
:mod:`engine.formats.hf` reads: the 256 byte-level characters in ``bytes_to_unicode`` order, the
same ending a word (``</w>``), one token a merge, then ``<|startoftext|>`` and ``<|endoftext|>``
(also the unknown token); NFC, whitespace runs to one space, lowercase; CLIP's pattern, then
byte-level. (CLIP's own SimpleTokenizer also runs ftfy and unescapes HTML first, which bpe-lab
does not.)

The file is decompressed within a bound: a small file that would grow past it is refused before
it does (:data:`MAX_TEXT`).
"""

from __future__ import annotations

import zlib
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.formats import sniff as sniffed
from engine.formats.common import Imported, fail, read_raw
from engine.formats.hfpre import CLIP_PATTERN
from engine.text.bytelevel import byte_level_names

if TYPE_CHECKING:
    from engine.encode.tokenizer import Tokenizer
    from engine.formats.sniff import Probe
    from engine.text.pretokenize import PreTokenizer

#: What the file's first line starts with.
HEADER = '"bpe_simple_vocab_16e6.txt#version'
#: How many merges CLIP keeps.
MERGES = 49152 - 256 - 2
#: CLIP's two special tokens, after the merges.
SPECIALS = ("<|startoftext|>", "<|endoftext|>")
#: The text may decompress to at most this many bytes (CLIP's is 1.4 MB).
MAX_TEXT = 16 << 20


def decompressed(raw: bytes, path: Path, limit: int = MAX_TEXT) -> bytes:
    """The gzip-compressed ``raw``, decompressed within ``limit`` bytes (a one-line refusal past it,
    before more is made)."""
    inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = inflate.decompress(raw, limit)
    except zlib.error as exc:
        raise fail(path, f"is not valid gzip ({exc})") from None
    if inflate.unconsumed_tail or (not inflate.eof and len(out) >= limit):
        raise fail(path, f"decompresses to more than {limit >> 20} MB, more than a merges file holds")
    return out


def _head(probe: Probe) -> bytes:
    raw = probe.raw or b""
    if not raw.startswith(sniffed.GZIP_MAGIC):
        return b""
    try:
        return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(raw, 64)
    except zlib.error:
        return b""


def sniff(probe: Probe) -> int:
    if probe.kind != "binary":
        return 0
    return sniffed.CLIP if _head(probe).startswith(HEADER.encode()) else 0  # other gzip: "decompress it first"


def tokenizer_json(merges: list[list[str]]) -> dict[str, Any]:
    """The tokenizer.json data of CLIP's merges, as transformers' CLIPConverter writes it."""
    names = byte_level_names()
    printable = [b for b in range(256) if names[b] == chr(b)]
    order = [names[b] for b in printable] + [names[b] for b in range(256) if b not in printable]
    tokens = order + [n + "</w>" for n in order] + ["".join(m) for m in merges] + list(SPECIALS)
    return {
        "added_tokens": [{"id": len(tokens) - 2 + k, "content": t, "special": True} for k, t in enumerate(SPECIALS)],
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "NFC"}, {"type": "Replace", "pattern": {"Regex": r"\s+"}, "content": " "}, {"type": "Lowercase"}]},
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": CLIP_PATTERN}, "behavior": "Removed", "invert": True},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}]},
        "decoder": {"type": "ByteLevel"},
        "model": {"type": "BPE", "vocab": {t: i for i, t in enumerate(tokens)}, "merges": merges,
                  "end_of_word_suffix": "</w>", "unk_token": "<|endoftext|>"},
    }


def load(path: Path, content: Any, pretokenizer: PreTokenizer | None, need_pattern: bool) -> Imported:
    from engine.formats.hf import load_hf

    raw = content if isinstance(content, bytes) else read_raw(path)
    try:
        lines = decompressed(raw, path).decode("utf-8").split("\n")
    except UnicodeDecodeError:
        raise fail(path, "decompresses to text that is not UTF-8") from None
    if not lines[0].startswith(HEADER):
        raise fail(path, "not CLIP's merges (its first line is not CLIP's header)")
    merges = []
    for number, line in enumerate(lines[1:MERGES + 1], 2):
        parts = line.split()
        if len(parts) != 2:
            raise fail(path, f"line {number} is not two tokens separated by a space")
        merges.append(parts)
    imported = load_hf(path, tokenizer_json(merges))
    note = ("CLIP's merges, read as transformers' CLIPTokenizer reads them (NFC, spaces, lowercase; CLIP's own "
            "tokenizer also runs ftfy first)")
    return replace(imported, format="clip", warnings=[note, *imported.warnings])


def save(tok: Tokenizer, path: Path, ids: Any, source: str) -> list[str]:
    from engine.errors import ExportError

    raise ExportError("bpe-lab does not write CLIP's merges file (export as hf: CLIP's tokenizer.json)")


def reads(path: Path) -> list[Path]:
    return [path]


writes = reads
