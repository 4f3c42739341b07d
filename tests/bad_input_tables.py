"""The setups and checks of docs/bad-input.md's "Tables" and "Outputs, folders and ids" rows
(issue 21): tables that lie about their columns or metadata, bombs in a table or a compressed
input, pipes and FIFOs as tables and inputs, outputs that collide. tests/app/test_bad_input.py runs
the rows; the same bombs under a memory and CPU limit are in tests/cli/test_limits_tables.py.
"""

from __future__ import annotations

import functools
import gzip
import json
import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from bad_input_files import CORPUS, corpus

WORDS = "the 7\ncat 2\nin 1\nhat 1\nsat 1\non 1\nmat 1\nate 1\nrat 1\n"


def meta(**changes) -> dict:
    """The metadata of a table bpe-lab counted (gpt2, bytes base), with ``changes``."""
    from engine.corpus.chunk_table import FORMAT, TABLE_VERSION
    from engine.version import VERSION

    data = {"format": FORMAT, "version": TABLE_VERSION, "bpe_lab": VERSION, "base": "bytes",
            "pretokenizer": {"name": "gpt2", "pattern": None, "split_digits": False, "split_newlines": False,
                             "per_line": False},
            "inputs": [], "invalid_bytes": 0, "nul_bytes": 0, "source": "bpe-lab"}
    data.update(changes)
    return data


def parquet(tmp: Path, name: str = "c.parquet", chunks=(b"the", b" cat"), counts=(3, 2), count_type: str = "int64",
            metadata: dict | str | None = None, compression: str = "zstd") -> Path:
    """A Parquet table as a hostile writer makes one: any count type, any metadata text."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    text = metadata if isinstance(metadata, str) else json.dumps(meta() if metadata is None else metadata)
    kind = {"int64": pa.int64(), "double": pa.float64(), "bool": pa.bool_()}[count_type]
    schema = pa.schema([("chunk", pa.binary()), ("count", kind), ("order", pa.int64())], metadata={b"bpe-lab": text.encode()})
    table = pa.table([pa.array(list(chunks), pa.binary()), pa.array(list(counts), kind), pa.array(range(len(chunks)), pa.int64())],
                     schema=schema)
    pq.write_table(table, tmp / name, compression=compression)
    return tmp / name


def huge_chunk(tmp: Path) -> Path:
    """A 12 kB Parquet file holding one chunk of 300 MB (zstd squeezes a run of ``a`` to nothing).
    Made once per test run (compressing 300 MB takes seconds), copied for each test."""
    path = tmp / "bomb.parquet"
    path.write_bytes(_huge_chunk_bytes())
    return path


@functools.cache
def _huge_chunk_bytes() -> bytes:
    import tempfile

    with tempfile.TemporaryDirectory() as name:
        return _make_huge_chunk(Path(name)).read_bytes()


def _make_huge_chunk(tmp: Path) -> Path:
    import struct

    import pyarrow as pa
    import pyarrow.parquet as pq

    size = 300 << 20
    schema = pa.schema([("chunk", pa.binary()), ("count", pa.int64()), ("order", pa.int64())],
                       metadata={b"bpe-lab": json.dumps(meta()).encode()})
    chunk = pa.Array.from_buffers(pa.binary(), 1, [None, pa.py_buffer(struct.pack("<ii", 0, size)), pa.py_buffer(b"a" * size)])
    pq.write_table(pa.table([chunk, pa.array([1]), pa.array([0])], schema=schema), tmp / "bomb.parquet", compression="zstd",
                   compression_level=1, use_dictionary=False, write_statistics=False)
    return tmp / "bomb.parquet"


def fifo(tmp: Path, name: str, data: bytes | None) -> None:
    """A named pipe; ``data``: a writer thread fills it once a reader opens it (a daemon: if the
    command never opens it, the thread waits there harmlessly). None: no writer at all."""
    os.mkfifo(tmp / name)
    if data is None:
        return

    def write() -> None:
        try:
            with open(tmp / name, "wb") as handle:
                handle.write(data)
        except BrokenPipeError:
            pass

    threading.Thread(target=write, daemon=True).start()


def repeated_chunk(tmp: Path, name: str = "bomb.parquet") -> Path:
    """A 90 kB table whose one 900 kB chunk is stored once, as Parquet's dictionary encoding,
    and repeated in 30 row groups of 1000 rows: 27 GB once decoded. Written from a dictionary
    array without Arrow's own schema, so a reader sees a plain bytes column, as when pyarrow
    dictionary-encodes a bytes column by itself."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    chunk = pa.array([b"a" * (900 << 10)], pa.binary())
    schema = pa.schema([("chunk", pa.dictionary(pa.int32(), pa.binary())), ("count", pa.int64()), ("order", pa.int64())])
    with pq.ParquetWriter(tmp / name, schema, compression="zstd", store_schema=False) as writer:
        for group in range(30):
            rows = range(group * 1000, (group + 1) * 1000)
            indices = pa.array([0] * len(rows), pa.int32())
            writer.write_table(pa.table([pa.DictionaryArray.from_arrays(indices, chunk), pa.array([1] * len(rows), pa.int64()),
                                         pa.array(rows, pa.int64())], schema=schema))
        writer.add_key_value_metadata({"bpe-lab": json.dumps(meta())})
    return tmp / name


def delta_chunks(tmp: Path, name: str = "delta.parquet") -> Path:
    """A table whose one 100 kB chunk, repeated in 50 rows, is stored DELTA_BYTE_ARRAY-encoded:
    each row as its change from the last, so the row group says 100 kB for 5 MB decoded (at
    30,000 rows of 900 kB: a 3 kB file, 27 GB decoded)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    chunk = pa.array([b"a" * (100 << 10)], pa.binary())
    table = pa.table({"chunk": pa.concat_arrays([chunk] * 50), "count": pa.array([2] * 50, pa.int64()),
                      "order": pa.array(range(50), pa.int64())})
    pq.write_table(table.replace_schema_metadata({"bpe-lab": json.dumps(meta())}), tmp / name, use_dictionary=False,
                   column_encoding={"chunk": "DELTA_BYTE_ARRAY"}, compression="zstd")
    return tmp / name


def list_chunks(tmp: Path, name: str = "list.parquet") -> Path:
    """A table whose chunk column holds lists of numbers, not bytes."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table({"chunk": pa.array([[97, 98]]), "count": pa.array([2]), "order": pa.array([0])})
    pq.write_table(table.replace_schema_metadata({"bpe-lab": json.dumps(meta())}), tmp / name)
    return tmp / name


def gz(tmp: Path, name: str, piece: bytes, times: int) -> Path:
    with gzip.open(tmp / name, "wb", compresslevel=9) as handle:
        for _ in range(times):
            handle.write(piece)
    return tmp / name


def shrink_decompressed_floor(monkeypatch) -> None:
    """The 256 MB floor of the decompressed bound lowered to 1 MB: the row's 6 MB of text stands
    for a bomb of gigabytes (the bound is 100 times the file's size either way)."""
    monkeypatch.setattr("engine.corpus.count_blocks.MIN_DECOMPRESSED", 1 << 20)


Setup = Callable[[Path, pytest.MonkeyPatch], None]


SETUP_TABLES: dict[str, Setup] = {
    "table-app-float-counts": lambda tmp, mp: parquet(tmp, counts=(9.5, 0.25), count_type="double"),
    "table-app-fifo": lambda tmp, mp: (fifo(tmp, "t.fifo", None), mp.setattr("engine.corpus.files.WRITER_GRACE", 0.3)),
    "corpus-fifo-no-writer": lambda tmp, mp: (fifo(tmp, "t.fifo", None), mp.setattr("engine.corpus.files.WRITER_GRACE", 0.3)),
    "table-from-fifo": lambda tmp, mp: fifo(tmp, "words.fifo", WORDS.encode()),
    "table-fifo-no-writer": lambda tmp, mp: (fifo(tmp, "t.fifo", None), mp.setattr("engine.corpus.files.WRITER_GRACE", 0.3)),
    "table-device": lambda tmp, mp: None,
    "table-float-counts": lambda tmp, mp: parquet(tmp, counts=(9.5, 0.25), count_type="double"),
    "table-nan-counts": lambda tmp, mp: parquet(tmp, counts=(float("nan"), 2.0), count_type="double"),
    "table-bool-counts": lambda tmp, mp: parquet(tmp, counts=(True, True), count_type="bool"),
    "table-merge-float-counts": lambda tmp, mp: (parquet(tmp, "a.parquet"), parquet(tmp, "b.parquet", counts=(9.5, 0.25),
                                                                                   count_type="double")),
    "table-metadata-pretokenizer-list": lambda tmp, mp: parquet(tmp, metadata=meta(pretokenizer=[1, 2])),
    "table-metadata-inputs-string": lambda tmp, mp: parquet(tmp, metadata=meta(inputs="c.txt")),
    "table-metadata-long-number": lambda tmp, mp: parquet(tmp, metadata=json.dumps(meta()).replace(
        '"nul_bytes": 0', '"nul_bytes": ' + "9" * 5000)),
    "table-metadata-deep": lambda tmp, mp: parquet(tmp, metadata=json.dumps(meta()).replace(
        '"inputs": []', '"inputs": ' + "[" * 100_000 + "]" * 100_000)),
    "table-chars-invalid-utf8": lambda tmp, mp: parquet(tmp, chunks=(b"the", b"\xfe\xff"), metadata=meta(base="chars")),
    "table-empty": lambda tmp, mp: parquet(tmp, chunks=(), counts=()),
    "table-huge-chunk": lambda tmp, mp: huge_chunk(tmp),
    "table-repeated-chunk": lambda tmp, mp: repeated_chunk(tmp),
    "table-delta-chunks": lambda tmp, mp: delta_chunks(tmp),
    "table-list-chunks": lambda tmp, mp: list_chunks(tmp),
    "table-long-chunk": lambda tmp, mp: parquet(tmp, chunks=(b"x" * 5000, b"y"), counts=(1, 1)),
    "table-too-large": lambda tmp, mp: corpus(tmp, "dict.txt", "".join(f"w{k} 1\n" for k in range(30))),
    "table-words-superscript": lambda tmp, mp: corpus(tmp, "dict.txt", "hello 3\nworld ²\n"),
    "table-words-long-count": lambda tmp, mp: corpus(tmp, "dict.txt", "hello " + "9" * 5000 + "\n"),
    "table-words-empty": lambda tmp, mp: corpus(tmp, "dict.txt", "\n\n"),
    "count-from-fifo": lambda tmp, mp: fifo(tmp, "c.fifo", CORPUS.encode()),
    "count-fifo-no-writer": lambda tmp, mp: (fifo(tmp, "c.fifo", None), mp.setattr("engine.corpus.files.WRITER_GRACE", 0.3)),
    "count-device": lambda tmp, mp: None,
    "count-gz-no-cut": lambda tmp, mp: gz(tmp, "a.gz", b"a" * (1 << 20), 65),
    "count-sparse-terabyte": lambda tmp, mp: (open(tmp / "sparse.txt", "wb").close(), os.truncate(tmp / "sparse.txt", 1 << 40)),
    "count-gz-bomb": lambda tmp, mp: (gz(tmp, "lines.gz", b"a a\n" * (1 << 18), 6), shrink_decompressed_floor(mp)),
    "count-gz-bound-given": lambda tmp, mp: gz(tmp, "lines.gz", b"a a\n" * (1 << 18), 2),
    "count-long-chunk": lambda tmp, mp: corpus(tmp, "long.txt", "b" * (2 << 20) + "\n"),
    "out-curve-is-tokenizer": lambda tmp, mp: corpus(tmp),
    "out-tokenizer-in-export": lambda tmp, mp: corpus(tmp),
    "out-curve-in-export": lambda tmp, mp: corpus(tmp),
    "out-tokenizer-is-export": lambda tmp, mp: corpus(tmp),
    "out-export-is-file": lambda tmp, mp: (corpus(tmp), corpus(tmp, "v.txt")),
    "out-export-under-file": lambda tmp, mp: (corpus(tmp), corpus(tmp, "v.txt")),
    "out-export-disk-full": lambda tmp, mp: (corpus(tmp), _full_after_tokenizer(mp)),
    "force-merge-ids": lambda tmp, mp: corpus(tmp),
    "force-merge-id-absent": lambda tmp, mp: corpus(tmp),
}


def _full_after_tokenizer(monkeypatch) -> None:
    """The disk fills once the tokenizer is written: the export's first file's sync on."""
    real_fsync = os.fsync
    calls = {"n": 0}

    def fsync(fd):
        calls["n"] += 1
        if calls["n"] > 1:
            raise OSError(28, "No space left on device")
        return real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)


def _nothing_written(*names: str) -> Callable[[Path], None]:
    def check(tmp: Path) -> None:
        for name in names:
            assert not (tmp / name).exists(), f"{name} was written"
        assert not [p.name for p in tmp.iterdir() if p.name.startswith(".")], "a temporary file is left"

    return check


def _same_as_the_file(output: str, source: str) -> Callable[[Path], None]:
    """What was read from the FIFO is all of it: the output equals the same command on a file."""

    def check(tmp: Path) -> None:
        import io

        import tui.cli.commands as cli
        from engine.corpus import read_counts
        from engine.encode.tokenizer import load_tokenizer

        (tmp / "copy.txt").write_text(source, encoding="utf-8")
        if output.endswith(".parquet"):
            assert cli.main(["count", str(tmp / "copy.txt"), "-o", str(tmp / "ref.parquet")], err=io.StringIO()) == 0
            assert list(read_counts(tmp / output).chunks.items()) == list(read_counts(tmp / "ref.parquet").chunks.items())
        else:
            argv = ["train", "--counts", str(tmp / "copy.txt"), "-o", str(tmp / "ref.json"), "--merges", "5"]
            assert cli.main(argv, err=io.StringIO()) == 0
            assert load_tokenizer(tmp / output).merges == load_tokenizer(tmp / "ref.json").merges

    return check


def _export_left_nothing(tmp: Path) -> None:
    assert (tmp / "tok.json").exists(), "the tokenizer was lost"
    assert not (tmp / "out").exists() or not list((tmp / "out").iterdir()), "part of the export was left"


VERIFY_TABLES: dict[str, Callable[[Path], None]] = {
    **{key: _nothing_written("tok.json", "all.parquet", "z.parquet") for key in SETUP_TABLES
       if key.startswith(("table-", "count-", "corpus-")) and key not in ("table-from-fifo", "count-from-fifo")},
    **{key: _nothing_written("tok.json", "same.json", "ex", "curve.csv") for key in SETUP_TABLES if key.startswith("out-")
       and key != "out-export-disk-full"},
    "table-from-fifo": _same_as_the_file("tok.json", WORDS),
    "count-from-fifo": _same_as_the_file("z.parquet", CORPUS),
    "out-export-disk-full": _export_left_nothing,
}
