"""CLIP's tokenizer files, made at test time from the real merges OpenAI ships
(``bpe_simple_vocab_16e6.txt.gz``, in the ``open_clip_torch`` wheel: tests/fetch_tokenizers.py).

- :func:`clip_pair` writes ``vocab.json`` + ``merges.txt`` as OpenAI's ``SimpleTokenizer`` and
  transformers' ``CLIPTokenizer`` build them: the 256 byte-level characters (in
  ``bytes_to_unicode`` order), the same with ``</w>``, one token a merge, then the two specials.
- :func:`clip_json` writes the ``tokenizer.json`` that ``tokenizers`` itself saves for them with
  transformers' ``CLIPConverter`` settings (NFC, whitespace runs to one space, lowercase; CLIP's
  pattern; ByteLevel; ``end_of_word_suffix: "</w>"``; ``<|endoftext|>`` as the unknown token).

Nothing here is committed: the files go into a test's temporary folder.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from fetch_tokenizers import real_file, why_missing

from engine.text.bytelevel import byte_level_names

#: CLIP's pattern (OpenAI's SimpleTokenizer, transformers' CLIPConverter), without the specials.
CLIP_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d|[\p{L}]+|[\p{N}]|[^\s\p{L}\p{N}]+"""
SPECIALS = ("<|startoftext|>", "<|endoftext|>")
#: CLIP keeps this many merges of the file (SimpleTokenizer: ``merges[1:49152-256-2+1]``).
MERGES = 49152 - 256 - 2


def clip_merges() -> list[tuple[str, str]] | None:
    """CLIP's merges, or None when the file cannot be had (:func:`why` says why)."""
    path = real_file("clip-bpe.txt.gz")
    if path is None:
        return None
    lines = gzip.decompress(path.read_bytes()).decode("utf-8").split("\n")[1 : MERGES + 1]
    return [tuple(line.split()) for line in lines]  # type: ignore[misc]


def why() -> str:
    return why_missing("clip-bpe.txt.gz")


def clip_vocab(merges: list[tuple[str, str]]) -> dict[str, int]:
    names = _unicode_order()
    vocab = names + [n + "</w>" for n in names] + ["".join(m) for m in merges] + list(SPECIALS)
    return dict(zip(vocab, range(len(vocab))))


def _unicode_order() -> list[str]:
    """``bytes_to_unicode().values()`` in its own order: the printable bytes first, then the rest."""
    names = byte_level_names()
    printable = [b for b in range(256) if names[b] == chr(b)]
    return [names[b] for b in printable] + [names[b] for b in range(256) if b not in printable]


def clip_pair(folder: Path, merges: list[tuple[str, str]]) -> Path:
    """``folder/vocab.json`` + ``folder/merges.txt``, CLIP's pair; returns the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "vocab.json").write_text(json.dumps(clip_vocab(merges), ensure_ascii=False), encoding="utf-8")
    lines = ["#version: 0.2"] + [f"{a} {b}" for a, b in merges]
    (folder / "merges.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def clip_tokenizer(merges: list[tuple[str, str]]):  # -> tokenizers.Tokenizer
    """``tokenizers``' CLIP tokenizer, as transformers' CLIPConverter makes it (no post-processor:
    bpe-lab adds no tokens, and the ids compared are the text's own)."""
    from tokenizers import Regex, Tokenizer, decoders, normalizers, pre_tokenizers
    from tokenizers.models import BPE

    tok = Tokenizer(BPE(vocab=clip_vocab(merges), merges=merges, dropout=None, continuing_subword_prefix="",
                        end_of_word_suffix="</w>", fuse_unk=False, unk_token="<|endoftext|>"))
    tok.normalizer = normalizers.Sequence([normalizers.NFC(), normalizers.Replace(Regex(r"\s+"), " "), normalizers.Lowercase()])
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(CLIP_PATTERN), behavior="removed", invert=True),
        pre_tokenizers.ByteLevel(add_prefix_space=False),
    ])
    tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens(list(SPECIALS))
    return tok


def clip_json(path: Path, merges: list[tuple[str, str]]) -> Path:
    """CLIP's ``tokenizer.json`` as ``tokenizers`` saves it; returns ``path``."""
    clip_tokenizer(merges).save(str(path))
    return path
