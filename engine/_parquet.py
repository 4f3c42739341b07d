"""Chunk-count tables as Parquet (pyarrow, the ``scale`` extra; imported only here, only when used).

Columns: ``chunk`` (binary: the chunk's bytes), ``count`` (int64, or uint64 when a count needs
it), ``order`` (int64: rank of first occurrence, 0 first; rows are written in that order too).
The schema's metadata key ``bpe-lab`` holds :meth:`engine.counts.ChunkTable.meta` as JSON.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from typing import Any

from ._chunktable import FORMAT, SCALE_HINT, TABLE_VERSION, ChunkTable
from .errors import BpeLabError, CountsError, one_line, reading_file
from .io import atomic_write_bytes
from .pretokenize import PreTokenizer

KEY = b"bpe-lab"
INT64_MAX = (1 << 63) - 1
UINT64_MAX = (1 << 64) - 1


def _pyarrow():
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError:
        raise CountsError(f"chunk-count tables (Parquet) need pyarrow: {SCALE_HINT}") from None
    return pyarrow, pyarrow.parquet


def write_table(table: ChunkTable, path: str | os.PathLike[str]) -> None:
    """Write ``table`` atomically (the whole file is built in memory, then renamed into place)."""
    pa, pq = _pyarrow()
    chunks = [c.encode("utf-8", "surrogateescape") for c in table.chunks]
    counts = list(table.chunks.values())
    top = max(counts, default=0)
    if top > UINT64_MAX:
        raise CountsError(f"a count of {top} does not fit in 64 bits")
    kind = pa.uint64() if top > INT64_MAX else pa.int64()
    schema = pa.schema([("chunk", pa.binary()), ("count", kind), ("order", pa.int64())],
                       metadata={KEY: json.dumps(table.meta(), ensure_ascii=False).encode("utf-8")})
    arrow = pa.table([pa.array(chunks, pa.binary()), pa.array(counts, kind), pa.array(range(len(chunks)), pa.int64())],
                     schema=schema)
    sink = pa.BufferOutputStream()
    pq.write_table(arrow, sink, compression="zstd")
    atomic_write_bytes(path, sink.getvalue().to_pybytes())


def read_table(path: str | os.PathLike[str]) -> ChunkTable:
    """Read a table that ``bpe-lab count`` wrote; one-line :class:`CountsError` for anything else."""
    pa, pq = _pyarrow()
    shown = os.fspath(path)
    try:
        with reading_file(shown, CountsError, "a chunk-count table"):
            handle = pq.ParquetFile(path)
            meta = _meta(shown, handle.schema_arrow.metadata or {})
            table = _rows(shown, handle)
    except BpeLabError:
        raise
    except Exception:  # noqa: BLE001 - pyarrow's errors for truncated or corrupt files vary
        # pyarrow's own words vary by version and say little ("Couldn't deserialize thrift")
        raise CountsError(f"{shown}: not a readable Parquet file (corrupt or truncated)") from None
    finally:
        pa.default_memory_pool().release_unused()  # the rows are Python objects now: give Arrow's buffers back
    return _table(shown, meta, table)


def _batches(shown: str, handle):
    """(chunk, count, order) rows, a batch of them at a time."""
    for batch in handle.iter_batches(batch_size=1 << 16, columns=["chunk", "count", "order"]):
        chunks, counts, order = (batch.column(i).to_pylist() for i in range(3))
        for row in zip(chunks, counts, order):
            if None in row or row[1] < 1:
                raise CountsError(f"{shown}: a row has no chunk, no order or a count below 1")
            yield row


def _rows(shown: str, handle) -> Counter[str]:
    """The chunks and counts in the ``order`` column's order, a batch at a time (a table as large
    as its corpus is never held twice): rows bpe-lab wrote are in that order already; rows
    another writer shuffled are read again, all at once, and sorted."""
    table: Counter[str] = Counter()
    last = -1
    for chunk, n, at in _batches(shown, handle):
        if at <= last:
            table = Counter()
            for chunk, n, _ in sorted(_batches(shown, handle), key=lambda row: row[2]):
                table[chunk.decode("utf-8", "surrogateescape")] += n
            return table
        last = at
        table[chunk.decode("utf-8", "surrogateescape")] += n
    return table


def _meta(shown: str, raw: dict[bytes, bytes]) -> dict[str, Any]:
    if KEY not in raw:
        raise CountsError(f"{shown}: a Parquet file without bpe-lab's chunk-count metadata (not written by bpe-lab count)")
    try:
        meta = json.loads(raw[KEY].decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise CountsError(f"{shown}: its bpe-lab metadata is not JSON") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise CountsError(f"{shown}: its bpe-lab metadata is not a chunk-count table's")
    if meta.get("version") != TABLE_VERSION:
        raise CountsError(f"{shown}: table format version {meta.get('version')!r}; this bpe-lab reads version {TABLE_VERSION}")
    return meta


def _table(shown: str, meta: dict[str, Any], chunks: Counter[str]) -> ChunkTable:
    try:
        pre = PreTokenizer.from_dict(meta["pretokenizer"])
        base = meta["base"]
        if base not in ("bytes", "chars"):
            raise ValueError(base)
        return ChunkTable(chunks, base, pre, list(meta.get("inputs", [])), str(meta["bpe_lab"]),
                          int(meta.get("invalid_bytes", 0)), int(meta.get("nul_bytes", 0)), str(meta.get("source", "bpe-lab")))
    except BpeLabError as exc:
        raise CountsError(f"{shown}: {exc}") from None
    except (KeyError, TypeError, ValueError) as exc:
        raise CountsError(f"{shown}: its bpe-lab metadata lacks or garbles {one_line(str(exc))}") from None
