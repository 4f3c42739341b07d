"""A gzip-compressed tokenizer file gets one line saying so, not "invalid UTF-8"; CLIP's own merges
(bpe_simple_vocab_16e6.txt.gz) are read, decompressed within a bound."""

from __future__ import annotations

import gzip

import pytest
from fetch_tokenizers import needed

from engine.errors import TokenizerFileError
from engine.formats import load_any


def test_a_gzipped_pair_half_is_named_gzip(tmp_path):
    (tmp_path / "vocab.json").write_text("{}", encoding="utf-8")
    path = tmp_path / "merges.txt.gz"
    path.write_bytes(gzip.compress(b"#version: 0.2\na b\n"))
    with pytest.raises(TokenizerFileError) as info:
        load_any(path)
    assert str(info.value) == f"{path}: is gzip-compressed: decompress it first (gunzip -k FILE)"


def test_other_binary_files_stay_invalid_utf8(tmp_path):
    path = tmp_path / "model.bin"
    path.write_bytes(b"\x1f\xff\x00\x8b")
    with pytest.raises(TokenizerFileError, match=r"not a text file \(invalid UTF-8\)$"):
        load_any(path)


def test_clips_real_merges_file_reads_with_tokenizers_ids():
    """bpe_simple_vocab_16e6.txt.gz itself, read as transformers' CLIPTokenizer reads it (the
    reference: tokenizers built with CLIPConverter's settings, tests/clip_files.py)."""
    pytest.importorskip("tokenizers")
    from clip_files import clip_merges, clip_tokenizer
    from texts import TEXTS

    ours = load_any(needed("clip-bpe.txt.gz"))
    theirs = clip_tokenizer(clip_merges())
    for text in [*TEXTS, "A photo of a CAT!!", "naïve   café\n\tdogs 123"]:
        assert ours.encode(text) == theirs.encode(text).ids, text
    assert ours.format == "clip"


def test_a_gzip_bomb_named_as_clips_merges_is_refused_before_it_grows(tmp_path):
    path = tmp_path / "bpe_simple_vocab_16e6.txt.gz"
    path.write_bytes(gzip.compress(b'"bpe_simple_vocab_16e6.txt#version: 0.2\n' + b"a b\n" * (5 << 20)))
    assert path.stat().st_size < 100_000
    with pytest.raises(TokenizerFileError, match="decompresses to more than 16 MB") as info:
        load_any(path)
    assert "\n" not in str(info.value)
