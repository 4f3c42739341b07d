"""A gzip-compressed tokenizer file (CLIP's merges ship as bpe_simple_vocab_16e6.txt.gz) gets one
line saying so, not "invalid UTF-8"."""

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


def test_clips_real_merges_file_is_named_gzip():
    path = needed("clip-bpe.txt.gz")
    with pytest.raises(TokenizerFileError, match="is gzip-compressed") as info:
        load_any(path)
    assert "\n" not in str(info.value)
