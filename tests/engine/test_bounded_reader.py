"""engine.corpus.files.open_bounded, the one reader every input file goes through: it never waits on a
named pipe without a writer, refuses directories and devices in one line, stops at its bound, and
lets a caller peek at the first bytes of a pipe without losing them."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import CountsError, FileTooLargeError, TokenizerFileError
from engine.corpus import open_bounded, read_bounded
from engine.corpus.files import read_file


@contextmanager
def pipe_holding(data: bytes) -> Iterator[str]:
    """An anonymous pipe (as ``<(cmd)`` gives) already written and closed: its /dev/fd path."""
    read_end, write_end = os.pipe()
    os.write(write_end, data)
    os.close(write_end)
    try:
        yield f"/dev/fd/{read_end}"
    finally:
        os.close(read_end)


def fifo_written_late(path, data: bytes, delay: float = 0.2) -> threading.Thread:
    """A writer thread that opens the FIFO for writing a little after the reader has opened it
    (``cmd > fifo &`` racing the reader)."""
    os.mkfifo(path)

    def write() -> None:
        time.sleep(delay)
        try:
            with open(path, "wb") as handle:
                handle.write(data)
        except BrokenPipeError:  # the reader stopped at its bound
            pass

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


@given(st.binary(max_size=5000), st.integers(0, 6000))
def test_peeking_a_pipe_keeps_every_byte(data, peek):
    with pipe_holding(data) as path, open_bounded(path, kind="a table") as opened:
        assert opened.peek(peek) == data[:peek]
        assert opened.read_all() == data


@given(st.binary(min_size=1, max_size=3000), st.integers(1, 100), st.integers(1, 700))
def test_peek_then_reads_in_pieces_give_the_bytes_in_order(data, peek, piece):
    with pipe_holding(data) as path, open_bounded(path, kind="a table") as opened:
        opened.peek(peek)
        got = b""
        while block := opened.read(piece):
            assert len(block) <= piece
            got += block
    assert got == data


def test_a_regular_file_peeks_and_reads_whole(tmp_path):
    (tmp_path / "t").write_bytes(b"PAR1 and more")
    with open_bounded(tmp_path / "t", kind="a table") as opened:
        assert opened.regular and opened.size == 13
        assert opened.peek(4) == b"PAR1"
        assert opened.read_all() == b"PAR1 and more"
        with opened.seekable_file() as handle:
            assert handle.read() == b"PAR1 and more"


def test_a_fifo_without_a_writer_is_refused_instead_of_waiting(tmp_path):
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(CountsError) as caught:
        read_bounded(tmp_path / "fifo", kind="a chunk-count table", error=CountsError, grace=0.2)
    assert str(caught.value) == (f"{tmp_path / 'fifo'}: a named pipe with no writer (nothing to read); "
                                 "start what writes it first, or save it to a file")


def test_a_fifo_whose_writer_comes_late_is_read_whole(tmp_path):
    data = b"the cat\n" * 20000  # more than a pipe's buffer
    fifo_written_late(tmp_path / "fifo", data)
    assert read_bounded(tmp_path / "fifo", kind="a table") == data


def test_a_pipe_past_its_bound_is_refused_naming_the_flag(tmp_path):
    fifo_written_late(tmp_path / "fifo", b"x" * 5000, delay=0)
    with pytest.raises(CountsError) as caught:
        read_bounded(tmp_path / "fifo", kind="a table", error=CountsError, limit=1000, flag="--max-table-bytes")
    assert str(caught.value) == (f"{tmp_path / 'fifo'}: more than 1000 bytes, too large for a table "
                                 "(raise the limit with --max-table-bytes N)")


def test_a_regular_file_above_its_bound_is_refused_before_reading(tmp_path):
    path = tmp_path / "big"
    with open(path, "wb") as handle:
        handle.truncate(3 << 30)  # sparse: reading it would take 3 GB
    with pytest.raises(FileTooLargeError) as caught:
        read_file(path)
    assert str(caught.value) == f"{path}: 3 GB is too large for a tokenizer file (the limit is 128 MB)"


@pytest.mark.parametrize(("path", "line"), [
    ("/dev/zero", "/dev/zero: is a device, not a tokenizer file"),
    ("/dev/null", "/dev/null: is a device, not a tokenizer file"),
    (".", ".: is a directory, not a tokenizer file"),
    ("missing.json", "missing.json: no such file"),
])
def test_what_is_not_a_file_is_refused_in_one_line(path, line):
    with pytest.raises(TokenizerFileError) as caught:
        read_file(path)
    assert str(caught.value) == line


def test_a_pipe_is_refused_where_only_a_file_will_do():
    with pipe_holding(b"{}") as path, pytest.raises(TokenizerFileError) as caught:
        read_bounded(path, kind="a config file", pipes=False)
    assert str(caught.value).endswith(": is a pipe, not a config file (save it to a file)")


# -- outputs of one command against one another (engine.corpus.files.refuse_collisions) -----------------


def test_outputs_that_are_one_file_under_two_names_are_refused(tmp_path):
    from engine import WriteError
    from engine.corpus import refuse_collisions

    (tmp_path / "a.json").write_text("{}")
    os.link(tmp_path / "a.json", tmp_path / "hard.json")
    os.symlink(tmp_path / "a.json", tmp_path / "soft.json")
    for other in ("hard.json", "soft.json", "./a.json", "sub/../a.json"):
        (tmp_path / "sub").mkdir(exist_ok=True)
        with pytest.raises(WriteError) as caught:
            refuse_collisions([(tmp_path / "a.json", "the tokenizer (-o)"), (tmp_path / other, "the curve (--curve-out)")])
        assert str(caught.value) == f"{tmp_path / other}: cannot write (it is also the tokenizer (-o)); nothing was written"
    refuse_collisions([(tmp_path / "a.json", "-o"), (tmp_path / "b.json", "--curve-out")], [(tmp_path / "ex", "--export")])


def test_an_export_into_a_file_is_one_write_error(tmp_path):
    """make_folder gave WriteError the wrong arguments: a TypeError, and the app's x said nothing."""
    from engine import WriteError
    from engine.analysis import Table, write_tables

    (tmp_path / "v.txt").write_text("a file")
    table = Table("curve", ("merges", "tokens", "bytes_per_token"), [(0, 10, 1.0)])
    for folder, reason in ((tmp_path / "v.txt", "it is a file, not a folder"),
                           (tmp_path / "v.txt" / "out", "a part of the path is a file, not a folder")):
        with pytest.raises(WriteError) as caught:
            write_tables(folder, [table])
        assert str(caught.value) == f"{folder}: cannot write ({reason}); nothing was written"
