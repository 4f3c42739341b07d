"""Variants of issue 21's attack classes on the one bounded reader (engine.corpus.files.open_bounded)."""

from __future__ import annotations

import socket

import pytest

from engine import CorpusError, TokenizerFileError
from engine.corpus.files import open_bounded, read_file


def test_a_unix_socket_is_named_as_one(tmp_path):
    path = tmp_path / "sock"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        with pytest.raises(TokenizerFileError) as caught:
            read_file(path)
        assert str(caught.value) == f"{path}: is a socket, not a tokenizer file"
        with pytest.raises(CorpusError, match=r": is a socket, not a text file$"):
            open_bounded(path, kind="a text file", error=CorpusError)


def test_a_name_too_long_is_one_line(tmp_path):
    path = tmp_path / ("a" * 5000)
    with pytest.raises(TokenizerFileError) as caught:
        read_file(path)
    assert str(caught.value) == f"{path}: cannot read (File name too long)"
