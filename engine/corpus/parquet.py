"""Chunk-count tables as Parquet (pyarrow, the ``scale`` extra; imported only here, only when used).

Columns: ``chunk`` (binary: the chunk's bytes), ``count`` (int64, or uint64 when a count needs
it), ``order`` (int64: rank of first occurrence, 0 first; rows are written in that order too).
The schema's metadata key ``bpe-lab`` holds :meth:`engine.corpus.counts.ChunkTable.meta` as JSON.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from typing import Any

from engine.corpus.chunk_table import DEFAULT_BOUNDS, FORMAT, MAX_COUNT, SCALE_HINT, TABLE_VERSION, Bounds, ChunkTable, table_memory
from engine.corpus.files import atomic_write_bytes
from engine.errors import BpeLabError, CountsError, one_line, size_text
from engine.text.pretokenize import PreTokenizer

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
    try:  # UTF-8 throughout (nearly always): encoded by Arrow in one pass
        chunks = pa.array(list(table.chunks), pa.string()).cast(pa.binary())
    except (UnicodeEncodeError, pa.ArrowInvalid):  # bytes beyond UTF-8, as lone surrogates
        chunks = pa.array([c.encode("utf-8", "surrogateescape") for c in table.chunks], pa.binary())
    counts = list(table.chunks.values())
    top = max(counts, default=0)
    if top > UINT64_MAX:
        raise CountsError(f"a count of {top} does not fit in 64 bits")
    kind = pa.uint64() if top > INT64_MAX else pa.int64()
    schema = pa.schema([("chunk", pa.binary()), ("count", kind), ("order", pa.int64())],
                       metadata={KEY: json.dumps(table.meta(), ensure_ascii=False).encode("utf-8")})
    arrow = pa.table([chunks, pa.array(counts, kind), pa.array(range(len(chunks)), pa.int64())],
                     schema=schema)
    sink = pa.BufferOutputStream()
    pq.write_table(arrow, sink, compression="zstd")
    atomic_write_bytes(path, sink.getvalue().to_pybytes())


def read_table(shown: str, data, bounds: Bounds = DEFAULT_BOUNDS) -> ChunkTable:
    """The table in ``data`` (a Parquet file's bytes, or a seekable binary file of them, opened by
    :func:`engine.corpus.counts.read_counts`);
    one-line :class:`CountsError` for anything ``bpe-lab count`` would not have written, or a
    table above ``bounds`` (refused from the file's own description before its rows are
    decoded, and again as they are)."""
    pa, pq = _pyarrow()
    if not _walks(data):
        raise CountsError(f"{shown}: not a readable Parquet file (corrupt or truncated)")
    try:
        source = pa.BufferReader(data) if isinstance(data, bytes) else data
        handle = pq.ParquetFile(source)
        meta = _meta(shown, handle.schema_arrow.metadata or {})
        _check_columns(shown, handle.schema_arrow, pa)
        _check_size(shown, handle.metadata, bounds)
        if _dictionary_chunks(handle.metadata):
            # The chunks come as a dictionary and indices where the file stores them so: their size
            # is known before a row is decoded (one long chunk repeated is gigabytes decoded).
            # Other encodings (plain, delta) decode to the size the row groups said, checked above.
            handle = pq.ParquetFile(source, read_dictionary=["chunk"])
        chunks = _rows(shown, handle, meta["base"] == "chars", bounds)
    except BpeLabError:
        raise
    except Exception:  # noqa: BLE001 - pyarrow's errors for truncated or corrupt files vary
        # pyarrow's own words vary by version and say little ("Couldn't deserialize thrift")
        raise CountsError(f"{shown}: not a readable Parquet file (corrupt or truncated)") from None
    finally:
        pa.default_memory_pool().release_unused()  # the rows are Python objects now: give Arrow's buffers back
    table = _table(shown, meta, chunks)
    if isinstance(data, bytes):
        table.file_sha256 = hashlib.sha256(data).hexdigest()
    return table


#: Seconds a forked child may take to walk a table's descriptions (:func:`_walks`).
WALK_SECONDS = 10


def _walks(data) -> bool:
    """Whether pyarrow reads the file's footer and every column chunk's description without
    ending the process. A damaged description can make pyarrow (26) throw where nothing catches
    it (``std::terminate``: "Definition level histogram size mismatch"), so where processes fork
    a child process (the standard library's, forked) walks them first, and a child killed by a
    signal means the file is refused. True where it cannot be told (no fork, no ``/proc``, a
    child still walking after :data:`WALK_SECONDS`)."""
    import multiprocessing

    if "fork" not in multiprocessing.get_all_start_methods():
        return True
    if isinstance(data, bytes):
        path = None
    else:
        try:  # the child opens its own description of the file: the parent's offset is not moved
            path = f"/proc/self/fd/{data.fileno()}"
        except (AttributeError, OSError, ValueError):
            return True
        if not os.path.exists(path):
            return True
    child = multiprocessing.get_context("fork").Process(target=_walk, args=(data if path is None else None, path))
    child.start()
    child.join(WALK_SECONDS)
    if child.exitcode is None:  # still walking: let the parent read it as it would have
        child.kill()
        child.join()
        return True
    return child.exitcode >= 0  # negative: ended by a signal (abort)


def _walk(data: bytes | None, path: str | None) -> None:
    """:func:`_walks`'s child: read the descriptions; a Python exception is the parent's to report."""
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 2)  # what the C++ runtime says as it ends the child is not for the user
    try:
        pa, pq = _pyarrow()
        metadata = pq.ParquetFile(pa.BufferReader(data) if path is None else pa.OSFile(path)).metadata
        for g in range(metadata.num_row_groups):
            group = metadata.row_group(g)
            for c in range(group.num_columns):
                column = group.column(c)
                column.encodings, column.statistics  # noqa: B018 - read to be parsed
    except Exception:  # noqa: BLE001
        pass


def _check_columns(shown: str, schema, pa) -> None:
    """chunk binary (or text), count and order integers: anything else is refused by name (a
    float, NaN or bool count is no count)."""
    wanted = (("chunk", lambda t: pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_string(t)
               or pa.types.is_large_string(t), "bytes"),
              ("count", pa.types.is_integer, "integers"), ("order", pa.types.is_integer, "integers"))
    for name, ok, what in wanted:
        if name not in schema.names:
            raise CountsError(f"{shown}: no {name!r} column (a table of bpe-lab count has chunk, count and order)")
        kind = schema.field(name).type
        if pa.types.is_dictionary(kind):  # the chunks, read as a dictionary (see read_table)
            kind = kind.value_type
        if not ok(kind):
            raise CountsError(f"{shown}: its {name!r} column holds {one_line(str(kind))}, not {what}")


def _dictionary_chunks(metadata) -> bool:
    """Whether any row group stores the ``chunk`` column dictionary-encoded."""
    for g in range(metadata.num_row_groups):
        group = metadata.row_group(g)
        for c in range(group.num_columns):
            column = group.column(c)
            if column.path_in_schema == "chunk" and any("DICTIONARY" in e for e in column.encodings):
                return True
    return False


def _check_size(shown: str, metadata, bounds: Bounds) -> None:
    """Refuse a table whose row groups say they hold more than the bounds, before decoding them."""
    rows = metadata.num_rows
    chunk_bytes = 0
    for g in range(metadata.num_row_groups):
        group = metadata.row_group(g)
        for c in range(group.num_columns):
            column = group.column(c)
            if column.path_in_schema == "chunk":
                if "DELTA_BYTE_ARRAY" in column.encodings:  # its pages hold each chunk's change from the last
                    raise CountsError(f"{shown}: its chunks are stored DELTA_BYTE_ARRAY-encoded, whose decoded size "
                                      "is not known before they are decoded (bpe-lab count writes them plain or as "
                                      "a dictionary: write the table so)")
                chunk_bytes += max(column.total_uncompressed_size - 4 * group.num_rows, 0)  # less the lengths
                if group.num_rows and column.total_uncompressed_size > (bounds.chunk + 4) * group.num_rows + 4096:
                    raise _too_long(shown, bounds.chunk)
    total = table_memory(chunk_bytes, rows)
    if total > bounds.table:
        raise _too_large(shown, total, bounds.table)


def _too_large(shown: str, total: int, bound: int) -> CountsError:
    return CountsError(f"{shown}: training on its chunks would take {size_text(total)} of memory, above the table "
                       f"bound of {size_text(bound)} (raise it with --max-table-bytes N)")


def _too_long(shown: str, bound: int) -> CountsError:
    return CountsError(f"{shown}: holds a chunk longer than {size_text(bound)}, the bound for one chunk "
                       "(raise it with --max-chunk-bytes N)")


def _batches(shown: str, handle, bounds: Bounds):
    """(chunk, count, order) rows, in the file's order (see :func:`_columns`)."""
    for chunks, counts, order in _columns(shown, handle, bounds):
        yield from zip(chunks, counts, order)


def _columns(shown: str, handle, bounds: Bounds):
    """The rows a batch at a time, as three lists (chunks, counts, orders); a chunk above the
    bound is refused before it is decoded to text, and so is a table whose rows add up above its
    bound (a row group's own size was checked before it was read: :func:`_check_size`). The
    sizes are taken from Arrow's arrays, a dictionary's lengths by its indices, and the rows
    checked there too (no missing value, counts from 1, no empty chunk), before any row becomes
    Python."""
    import pyarrow.compute as pc

    total = 0
    for batch in handle.iter_batches(batch_size=1 << 16, columns=["chunk", "count", "order"]):
        if not len(batch):
            continue
        column = batch.column(0)
        if hasattr(column, "dictionary"):  # lengths of the dictionary's values, taken by index
            sizes = pc.take(pc.binary_length(column.dictionary), column.indices)
        else:
            sizes = pc.binary_length(column)
        if (pc.max(sizes).as_py() or 0) > bounds.chunk:
            raise _too_long(shown, bounds.chunk)
        total += table_memory(pc.sum(sizes).as_py() or 0, len(batch))
        if total > bounds.table:
            raise _too_large(shown, total, bounds.table)
        counts = batch.column(1)
        if any(batch.column(i).null_count for i in range(3)) or pc.min(counts).as_py() < 1:
            raise CountsError(f"{shown}: a row has no chunk, no order or a count below 1")
        if pc.min(sizes).as_py() < 1:  # bpe-lab count never writes one; another writer may
            raise CountsError(f"{shown}: a row has an empty chunk (a chunk is at least one byte of text)")
        yield _texts(column), _values(counts), _values(batch.column(2))


def _values(column) -> list:
    """A column's values as Python objects, through NumPy where it is installed (``to_pylist``
    makes a scalar object a row, several times slower; pyarrow runs without NumPy since 16)."""
    try:
        return column.to_numpy(zero_copy_only=False).tolist()
    except ImportError:
        return column.to_pylist()


def _texts(column) -> list:
    """A chunk column's values as Python objects (:func:`_values`): ``str`` where the whole batch
    is UTF-8 (Arrow checks it in one pass), else ``bytes``."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if hasattr(column, "dictionary"):
        column = column.dictionary_decode()
    if pa.types.is_binary(column.type) or pa.types.is_large_binary(column.type):
        try:
            column = pc.cast(column, pa.large_string() if pa.types.is_large_binary(column.type) else pa.string())
        except (pa.ArrowInvalid, UnicodeDecodeError):
            pass  # bytes beyond UTF-8 in this batch: each chunk is decoded on its own
    return _values(column)


def _rows(shown: str, handle, strict: bool, bounds: Bounds) -> Counter[str]:
    """The chunks and counts in the ``order`` column's order, a batch at a time (a table as large
    as its corpus is never held twice): rows bpe-lab wrote are in that order already; rows
    another writer shuffled are read again, all at once, and sorted. ``strict``: a chars-base
    table, whose chunks must be UTF-8 (a bytes base keeps other bytes as lone surrogates).

    A batch of distinct chunks in increasing order, none seen before (every batch bpe-lab
    writes), goes into the table in one C-level update; any other is added row by row."""
    decode = _strict(shown) if strict else _escaped
    table: Counter[str] = Counter()
    last = -1
    for chunks, counts, order in _columns(shown, handle, bounds):
        if order[0] <= last or any(map(int.__ge__, order, order[1:])):
            table = Counter()
            for chunk, n, _ in sorted(_batches(shown, handle, bounds), key=lambda row: row[2]):
                table[decode(chunk)] += n
            return table
        last = order[-1]
        fresh = dict(zip(map(decode, chunks), counts))
        if len(fresh) == len(chunks) and table.keys().isdisjoint(fresh):
            dict.update(table, fresh)  # (Counter.update adds a mapping in a Python loop)
        else:
            for chunk, n in zip(map(decode, chunks), counts):
                table[chunk] += n
    return table


def _escaped(chunk: bytes | str) -> str:
    return chunk if isinstance(chunk, str) else chunk.decode("utf-8", "surrogateescape")


def _strict(shown: str):
    def decode(chunk: bytes | str) -> str:
        if isinstance(chunk, str):
            return chunk
        try:
            return chunk.decode("utf-8")
        except UnicodeDecodeError:
            raise CountsError(f"{shown}: a chunk is not valid UTF-8 ({one_line(repr(chunk[:20]))}), which a "
                              "chars-base table cannot hold (bpe-lab count --base chars writes U+FFFD for such bytes)") from None
    return decode


def _meta(shown: str, raw: dict[bytes, bytes]) -> dict[str, Any]:
    if KEY not in raw:
        raise CountsError(f"{shown}: a Parquet file without bpe-lab's chunk-count metadata (not written by bpe-lab count)")
    try:
        meta = json.loads(raw[KEY].decode("utf-8"), parse_int=_small_int)
    except _LongNumber:
        raise CountsError(f"{shown}: its bpe-lab metadata holds a number of more than 20 digits") from None
    except RecursionError:
        raise CountsError(f"{shown}: its bpe-lab metadata is nested too deeply") from None
    except (UnicodeDecodeError, ValueError):
        raise CountsError(f"{shown}: its bpe-lab metadata is not JSON") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise CountsError(f"{shown}: its bpe-lab metadata is not a chunk-count table's")
    if meta.get("version") != TABLE_VERSION:
        raise CountsError(f"{shown}: table format version {one_line(repr(meta.get('version')))[:40]}; "
                          f"this bpe-lab reads version {TABLE_VERSION}")
    if meta.get("base") not in ("bytes", "chars"):
        raise CountsError(f"{shown}: its bpe-lab metadata lacks or garbles 'base' (bytes or chars)")
    return meta


class _LongNumber(ValueError):
    pass


def _small_int(text: str) -> int:
    if len(text.lstrip("-")) > 20:
        raise _LongNumber
    return int(text)


def _table(shown: str, meta: dict[str, Any], chunks: Counter[str]) -> ChunkTable:
    def garbled(what: str) -> CountsError:
        return CountsError(f"{shown}: its bpe-lab metadata lacks or garbles {what!r}")

    def count(key: str) -> int:
        value = meta.get(key, 0)
        if type(value) is not int or not 0 <= value <= MAX_COUNT:
            raise garbled(key)
        return value

    pre, inputs, made_by, source = (meta.get(k) for k in ("pretokenizer", "inputs", "bpe_lab", "source"))
    if not isinstance(pre, dict) or not all(isinstance(k, str) for k in pre):
        raise garbled("pretokenizer")
    for key in ("name", "pattern"):
        if pre.get(key) is not None and not isinstance(pre.get(key), str):
            raise garbled(f"pretokenizer.{key}")
    if not isinstance(inputs, list) or not all(isinstance(i, dict) for i in inputs):
        raise garbled("inputs")
    if not isinstance(made_by, str) or not isinstance(source if source is not None else "", str):
        raise garbled("bpe_lab" if not isinstance(made_by, str) else "source")
    try:
        pretokenizer = PreTokenizer.from_dict(pre)
    except BpeLabError as exc:
        raise CountsError(f"{shown}: {exc}") from None
    except (KeyError, TypeError, ValueError, AttributeError):
        raise garbled("pretokenizer") from None
    return ChunkTable(chunks, meta["base"], pretokenizer, inputs, made_by, count("invalid_bytes"), count("nul_bytes"),
                      source or "bpe-lab")
