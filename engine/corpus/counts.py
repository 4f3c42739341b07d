"""Chunk-count tables: the distinct pre-tokenizer chunks of a corpus with how often each occurs.

Counting is the part of training that grows with the corpus; the merges need only this table.
:func:`count_inputs` counts files, folders and globs (plain, ``.gz``, ``.bz2``, ``.xz``, ``.zst``)
in blocks cut where no chunk can be split (:mod:`engine.corpus.count_blocks`), on local cores or on Dask
(:mod:`engine.corpus.dask_count`); :class:`ChunkTable` holds the result, in order of first occurrence,
so that training from it (:meth:`ChunkTable.trainer`) makes exactly the merges of training on the
text, tie rules included. Parquet files are read and written by :mod:`engine.corpus.parquet` (pyarrow
is imported only there, only when used); word-count files of other tools by :func:`read_counts`.

Several inputs: each file is pre-tokenized on its own, as if it ended the text (a chunk never
runs from one file into the next), and the counts are added in the order the inputs are given.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace

from engine.corpus.chunk_table import DEFAULT_BOUNDS, MAX_CHUNK_BYTES, MAX_TABLE_BYTES, Bounds, ChunkTable, Progress
from engine.errors import CountsError
from engine.text.pretokenize import PreTokenizer
from engine.version import VERSION

__all__ = ["MAX_CHUNK_BYTES", "MAX_TABLE_BYTES", "ChunkTable", "Pruned", "check_usable", "count_inputs", "counts_from_bytes",
           "expand_inputs", "merge_tables", "prune", "read_counts", "require_pyarrow", "write_counts"]

def differences(a: ChunkTable, b: ChunkTable) -> list[str]:
    """What keeps two tables from adding up, or from training under one config, in words."""
    out = []
    if a.version != b.version:
        out.append(f"bpe-lab {b.version} against {a.version}")
    if a.base != b.base:
        out.append(f"base {b.base} against {a.base}")
    pa, pb = a.pretokenizer, b.pretokenizer
    if pa.name != pb.name or pa.pattern != pb.pattern:
        out.append(f"pre-tokenizer {_pre_name(pb)} against {_pre_name(pa)}")
    for attr, words in (("split_digits", "digits split"), ("split_newlines", "newlines split (--no-merge-newline)"),
                        ("per_line", "line by line (the hf tie rule)")):
        if getattr(pa, attr) != getattr(pb, attr):
            out.append(f"{words} {'on' if getattr(pb, attr) else 'off'} against {'on' if getattr(pa, attr) else 'off'}")
    return out


def _pre_name(pre: PreTokenizer) -> str:
    return f"pattern {pre.pattern!r}" if pre.name == "custom" else pre.name


def merge_tables(tables: list[tuple[str, ChunkTable]]) -> ChunkTable:
    """Add tables counted apart (one per shard, per day): counts summed, first occurrences in
    the order given. Refuses tables counted differently, naming the difference."""
    (first_name, first), rest = tables[0], tables[1:]
    chunks: Counter[str] = Counter(first.chunks)
    inputs = list(first.inputs)
    invalid, nul = first.invalid_bytes, first.nul_bytes
    for name, table in rest:
        diff = differences(first, table)
        if diff:
            raise CountsError(f"{name}: counted differently from {first_name} ({'; '.join(diff)}); "
                              "tables add up only when counted alike")
        chunks.update(table.chunks)
        inputs += table.inputs
        invalid += table.invalid_bytes
        nul += table.nul_bytes
    return replace(first, chunks=chunks, inputs=inputs, invalid_bytes=invalid, nul_bytes=nul, file_sha256="")


@dataclass(frozen=True)
class Pruned:
    """A table's chunks after pruning, and what pruning took away."""

    chunks: Counter[str]
    removed_chunks: int
    removed_occurrences: int
    #: The largest count removed (0: none): merges are exact while the best pair's count stays
    #: above what pruning could have taken from any pair (see :func:`prune`).
    largest_removed: int


def prune(chunks: Counter[str], *, min_count: int | None = None, max_chunks: int | None = None) -> Pruned:
    """Drop chunks seen fewer than ``min_count`` times, then keep the ``max_chunks`` most
    frequent (equal counts: the one seen first), in order of first occurrence.

    Example: ``prune(Counter({"a": 3, "b": 1}), min_count=2).removed_occurrences -> 1``
    """
    if min_count is not None and min_count < 1:
        raise CountsError(f"--min-chunk-count must be 1 or more, not {min_count}")
    if max_chunks is not None and max_chunks < 1:
        raise CountsError(f"--max-chunks must be 1 or more, not {max_chunks}")
    if min_count is None and max_chunks is None:  # nothing to prune: the table itself, not a copy of it
        return Pruned(chunks, 0, 0, 0)
    kept = [(c, n) for c, n in chunks.items() if min_count is None or n >= min_count]
    if max_chunks is not None and len(kept) > max_chunks:
        order = sorted(range(len(kept)), key=lambda i: -kept[i][1])[:max_chunks]
        kept = [kept[i] for i in sorted(order)]
    out = Counter(dict(kept))
    removed = [n for c, n in chunks.items() if c not in out]
    return Pruned(out, len(removed), sum(removed), max(removed, default=0))


# -- reading and writing ----------------------------------------------------------------------


def expand_inputs(specs: list[str]) -> list[str]:
    """The files that files, folders and globs name, each once, in the order counted."""
    from engine.corpus.count_blocks import expand

    return expand(specs)


def require_pyarrow() -> None:
    """Raise :class:`CountsError` naming the extra to install when pyarrow is missing."""
    from engine.corpus.parquet import _pyarrow

    _pyarrow()


def write_counts(table: ChunkTable, path: str | os.PathLike[str]) -> None:
    """Write ``table`` as Parquet, atomically (needs pyarrow: the ``scale`` extra)."""
    from engine.corpus.parquet import write_table

    write_table(table, path)


def read_counts(path: str | os.PathLike[str], *, pretokenizer: PreTokenizer | None = None, base: str = "bytes",
                max_table_bytes: int | None = None, max_chunk_bytes: int | None = None) -> ChunkTable:
    """A chunk-count table (Parquet from ``bpe-lab count``) or a word-count file of another tool,
    told apart by content: subword-nmt's ``--dict-input`` (``word count`` a line) or
    SentencePiece's TSV (``word<TAB>count``). A word is one chunk, as it is (no pre-tokenizing);
    ``pretokenizer`` and ``base`` are what the tokenizer trained from it will use.

    Read once, through :func:`engine.corpus.files.open_bounded`: a pipe (``<(cmd)``) keeps every byte
    (the format is told by peeking at it), a FIFO without a writer or a device is refused, and
    so is a table above its bounds (:data:`MAX_TABLE_BYTES`, :data:`MAX_CHUNK_BYTES`; the
    flags ``--max-table-bytes`` and ``--max-chunk-bytes`` raise them). A table of no chunks is
    refused too: there is nothing to train on."""
    from engine.corpus.files import open_bounded

    shown = os.fspath(path)
    bounds = Bounds(MAX_TABLE_BYTES if max_table_bytes is None else max_table_bytes,
                    MAX_CHUNK_BYTES if max_chunk_bytes is None else max_chunk_bytes)
    with open_bounded(path, kind="a chunk-count table", error=CountsError, limit=bounds.table,
                      flag="--max-table-bytes") as opened:
        parquet = opened.peek(4) == b"PAR1"
        if parquet and opened.regular:  # read in place (seeking), never held whole beside its rows
            import hashlib

            from engine.corpus.parquet import read_table

            digest = hashlib.sha256()
            at = 0
            while block := os.pread(opened.fd, 1 << 20, at):
                digest.update(block)
                at += len(block)
            with opened.seekable_file() as handle:
                table = read_table(shown, handle, bounds)
            table.file_sha256 = digest.hexdigest()
            if not table.chunks:
                raise CountsError(f"{shown}: the table holds no chunks: there is nothing to train on")
            return table
        data = opened.read_all()
    return counts_from_bytes(shown, data, pretokenizer=pretokenizer, base=base, bounds=bounds, parquet=parquet)


def counts_from_bytes(shown: str, data: bytes, *, pretokenizer: PreTokenizer | None = None, base: str = "bytes",
                      bounds: Bounds = DEFAULT_BOUNDS, parquet: bool | None = None) -> ChunkTable:
    """The table in ``data``, a file's bytes already read (named ``shown`` in messages), as
    :func:`read_counts` reads it."""
    if parquet is None:
        parquet = data[:4] == b"PAR1"
    if parquet:
        from engine.corpus.parquet import read_table

        table = read_table(shown, data, bounds)
    else:
        from engine.corpus.word_counts import read_word_counts

        table = read_word_counts(shown, data, bounds, pretokenizer=pretokenizer or PreTokenizer("gpt2"), base=base)
    if not table.chunks:
        raise CountsError(f"{shown}: the table holds no chunks: there is nothing to train on")
    return table


def count_inputs(
    specs: list[str],
    pretokenizer: PreTokenizer,
    *,
    base: str = "bytes",
    engine: str = "local",
    processes: int | None = None,
    scheduler: str | None = None,
    progress: Progress | None = None,
    task_bytes: int | None = None,
    hashing: Callable[[int, int], None] | None = None,
    max_chunk_bytes: int | None = None,
    max_decompressed_bytes: int | None = None,
    max_stream_bytes: int | None = None,
) -> ChunkTable:
    """Count the chunks of every input (files, folders, globs; compressed or not).

    ``engine`` ``local`` uses ``processes`` local processes (default: every core); ``dask``
    runs the same blocks on a Dask cluster (``scheduler`` ``tcp://HOST:PORT``, or a
    ``LocalCluster`` when None). Either way the table equals counting the files one by one.
    ``task_bytes``: the size of a block (default: :func:`engine.corpus.count_blocks.task_size`,
    a few blocks a worker, of 8 to 256 MB).
    ``hashing(bytes hashed, bytes in all)`` while the inputs are hashed, before counting.
    Bounds (one-line :class:`CountsError` past them): a chunk's bytes (``max_chunk_bytes``,
    default :data:`MAX_CHUNK_BYTES`), a compressed input's decompressed bytes
    (``max_decompressed_bytes``, default 100 times its size), a pipe's bytes
    (``max_stream_bytes``, default :data:`engine.errors.MAX_STREAM_BYTES`).
    """
    from engine.corpus import count_blocks as _blocks

    limits = _blocks.Limits(MAX_CHUNK_BYTES if max_chunk_bytes is None else max_chunk_bytes, max_decompressed_bytes,
                            max_stream_bytes)
    if engine == "dask":
        from engine.corpus.dask_count import Connection

        with Connection(scheduler) as connection:  # a local cluster starts while the inputs are hashed
            plan = _blocks.plan(specs, pretokenizer, task_bytes, hashing, limits, connection.workers)
            results = connection.run(plan, pretokenizer, base, progress)
    elif engine == "local":
        processes = processes or os.cpu_count() or 1
        plan = _blocks.plan(specs, pretokenizer, task_bytes, hashing, limits, processes)
        results = _blocks.run_local(plan, pretokenizer, base, processes, progress)
    else:
        raise CountsError(f"unknown counting engine {engine!r} (local or dask)")
    chunks, invalid, nul = _blocks.combine(plan, results)  # each task's chunks are checked against the bound
    return ChunkTable(chunks, base, pretokenizer, plan.inputs(), invalid_bytes=invalid, nul_bytes=nul)


def check_usable(name: str, table: ChunkTable) -> None:
    """Refuse a table that another bpe-lab version counted: its pre-tokenizers may cut otherwise."""
    if table.source == "bpe-lab" and table.version != VERSION:
        raise CountsError(f"{name}: counted by bpe-lab {table.version}, and this is {VERSION}: "
                          "count the inputs again with this version")
