"""Counting inputs in blocks: which files, where each is cut, and the counts put back in order.

A plain file is cut just after a newline followed by any character but whitespace (printable
ASCII, or beyond it), where no named pre-tokenizer can end a chunk otherwise
(:func:`engine.corpus.reading._last_cut`); each block is counted by the corpus counter
(:func:`engine.corpus.reading._count_range`, which keeps the character after its end as
lookahead), so the blocks' counts, added in file order, are exactly the file's. A compressed
file, or a pre-tokenizer that needs the whole text (``none``, a custom pattern), is one task.
The same tasks run in local processes (:func:`run_local`) or on Dask
(:mod:`engine.corpus.dask_count`); :class:`Combiner` adds results in task order as they arrive.
"""

from __future__ import annotations

import glob
import hashlib
import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.corpus.chunk_table import MAX_CHUNK_BYTES
from engine.corpus.reading import (
    BLOCK,
    CUT_BYTES,
    PARALLEL_MIN,
    _Blocks,
    _count_range,
    _last_cut,
    _piece_too_long,
    decode_corpus,
    first_cut,
    is_stdin,
    streamable,
)
from engine.errors import MAX_STREAM_BYTES, BpeLabError, CorpusError, CountsError, one_line, reading_file, size_text
from engine.text.pretokenize import PreTokenizer, add_counts

#: Suffixes read through a decompressor (``.zst`` needs the ``zstandard`` package).
COMPRESSED = (".gz", ".bz2", ".xz", ".zst")
#: Plain files are cut into blocks of at least this size (fewer, larger ones for small files).
TASK_BYTES = 8 << 20
#: Unless told a size, a plan cuts about this many blocks a worker (a local process or a Dask
#: worker) from its inputs, each from TASK_BYTES to MAX_TASK_BYTES: enough to even out the end
#: (a worker idle while another counts its last block), few enough that the partial tables
#: sent back and added up in order stay few, as each repeats the common chunks (1,000 MB of
#: code in 8 MB blocks: 110 tables, 4 s of adding up in the process that waits for them).
TASKS_PER_WORKER = 4
MAX_TASK_BYTES = 256 << 20
#: A compressed input may decompress to this many times its size on disk (at least
#: :data:`MIN_DECOMPRESSED` bytes); text compresses 3 to 10 times, a compression bomb a thousand:
#: ``--max-decompressed-bytes`` sets the bound instead.
EXPANSION = 100
MIN_DECOMPRESSED = 256 << 20
#: The counter holds at most this much text with no place to cut it (a newline before printable
#: text), or the chunk bound if that is larger: 400 MB of ``a`` is refused, not held 10 times over.
MAX_PIECE_BYTES = 64 << 20


@dataclass(frozen=True)
class Limits:
    """Bounds of one count: a chunk's bytes (``chunk``), a compressed input's decompressed bytes
    (``decompressed``, None: :data:`EXPANSION` times its size), a pipe's bytes (``stream``)."""

    chunk: int = MAX_CHUNK_BYTES
    decompressed: int | None = None
    stream: int | None = None

    def piece(self) -> int:
        return max(MAX_PIECE_BYTES, self.chunk)

    def unpacked(self, size: int) -> int:
        return self.decompressed if self.decompressed is not None else max(EXPANSION * size, MIN_DECOMPRESSED)


@dataclass(frozen=True)
class Task:
    """One piece of counting: bytes [start, end) of a plain file (``range``), a compressed
    file read as a stream (``stream``), or a whole file at once (``whole``)."""

    path: str
    kind: str
    start: int = 0
    end: int | None = None
    limit: int | None = None  # a range reads at most this much (more: the file grew)
    weight: int = 0  # bytes on disk it stands for (progress)
    data: bytes | None = None  # a pipe's bytes, read once when planned (kind ``memory``)
    cap: int | None = None  # a compressed file decompresses to at most this many bytes
    piece: int | None = None  # the most text with no cut the counter may hold (None: no bound)
    chunk: int | None = None  # the longest chunk, in bytes (None: no bound)
    cap_given: bool = False  # the cap is --max-decompressed-bytes (else EXPANSION times the size)


@dataclass(frozen=True)
class Input:
    path: str
    size: int
    sha256: str
    stamp: tuple[int, int, int] | None  # size, modification time, inode when planned (None: a pipe)


@dataclass
class Plan:
    files: list[Input]
    tasks: list[Task]
    total: int = 0

    def inputs(self) -> list[dict[str, Any]]:
        return [{"path": f.path, "size": f.size, "sha256": f.sha256} for f in self.files]


def expand(specs: list[str]) -> list[str]:
    """Files named, found in folders (recursively, sorted, hidden ones skipped) or matched by
    globs (sorted), each once, in the order given."""
    out: list[str] = []
    for spec in specs:
        if is_stdin(spec):
            raise CountsError("count reads files, folders or globs, not standard input (save it to a file first)")
        if any(ch in spec for ch in "*?[") and not os.path.exists(spec):
            found = [m for m in sorted(glob.glob(spec, recursive=True)) if os.path.isfile(m)]
            if not found:
                raise CountsError(f"{spec}: matches no file")
            out += found
        elif os.path.isdir(spec):
            root = Path(spec)
            found = sorted(str(p) for p in root.rglob("*")
                           if p.is_file() and not any(part.startswith(".") for part in p.relative_to(root).parts))
            if not found:
                raise CountsError(f"{spec}: the folder holds no file")
            out += found
        else:
            out.append(spec)
    return list(dict.fromkeys(out))


def _hash(path: str, read: Callable[[int], None] | None = None) -> tuple[str, os.stat_result]:
    """The file's SHA-256 and its stat; ``read(n)`` after each block of ``n`` bytes."""
    digest = hashlib.sha256()
    with reading_file(path, CorpusError, "a text file"), open(path, "rb") as handle:
        before = os.fstat(handle.fileno())
        while block := handle.read(BLOCK):
            digest.update(block)
            if read is not None:
                read(len(block))
    return digest.hexdigest(), before


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0  # hashing it says what is wrong


def _cuts(path: str, size: int, step: int) -> list[int]:
    """Safe cuts about ``step`` bytes apart (one found in the window after each multiple)."""
    cuts: list[int] = []
    with open(path, "rb") as handle:
        at = step
        while at < size - step // 2:
            handle.seek(at)
            window = handle.read(BLOCK)
            i = first_cut(window)
            if i is not None and (not cuts or at + i > cuts[-1]):
                cuts.append(at + i)
            at += step
    return cuts


def task_size(total: int, workers: int) -> int:
    """The block size for ``total`` bytes of input on ``workers`` workers (see
    :data:`TASKS_PER_WORKER`). Example: ``task_size(1_000_000_000, 2) -> 125000000``"""
    return max(TASK_BYTES, min(MAX_TASK_BYTES, -(-total // (TASKS_PER_WORKER * max(workers, 1)))))


def plan(specs: list[str], pretokenizer: PreTokenizer, step: int | None = TASK_BYTES,
         hashing: Callable[[int, int], None] | None = None, limits: Limits = Limits(), workers: int = 1) -> Plan:
    """The inputs (sizes, hashes) and the tasks that count them, blocks of about ``step`` bytes
    (None: :func:`task_size` of the inputs' bytes on ``workers`` workers). Hashing reads every
    input once before counting: ``hashing(bytes hashed, bytes in all)`` after each block. A pipe
    (``<(cmd)``, a FIFO with a writer) is read then, once, whole (up to ``limits.stream``,
    default :data:`MAX_STREAM_BYTES`), and counted from memory; a device is refused."""
    files, tasks = [], []
    whole = not streamable(pretokenizer)
    paths = expand(specs)
    if step is None:
        step = task_size(sum(_size(path) for path in paths if _regular(path)), workers)
    read = None
    if hashing is not None:
        total, done = sum(_size(path) for path in paths), 0

        def read(n: int) -> None:
            nonlocal done
            done += n
            hashing(done, max(total, done))

    piece, chunk = limits.piece(), limits.chunk
    if not whole:  # before hours of hashing: a file whose start has no place to cut is refused now
        for path in paths:
            _check_start(path, piece)
    for path in paths:
        if not _regular(path):
            data = _read_pipe(path, limits)
            files.append(Input(path, len(data), hashlib.sha256(data).hexdigest(), None))
            tasks.append(Task(path, "whole" if whole else "memory", weight=len(data), data=data, piece=piece,
                              chunk=chunk))
            continue
        digest, st = _hash(path, read)
        files.append(Input(path, st.st_size, digest, (st.st_size, st.st_mtime_ns, st.st_ino)))
        if path.endswith(COMPRESSED):
            tasks.append(Task(path, "whole" if whole else "stream", weight=st.st_size, cap=limits.unpacked(st.st_size),
                              piece=piece, chunk=chunk, cap_given=limits.decompressed is not None))
        elif whole or st.st_size < 2 * step:
            tasks.append(Task(path, "whole" if whole else "range", 0, None, st.st_size, st.st_size, piece=piece, chunk=chunk))
        else:
            bounds = [0, *_cuts(path, st.st_size, step), st.st_size]
            for start, end in zip(bounds, bounds[1:]):
                last = end == st.st_size
                tasks.append(Task(path, "range", start, None if last else end, end - start, end - start, piece=piece,
                                  chunk=chunk))
    return Plan(files, tasks, sum(f.size for f in files))


def _check_start(path: str, piece: int) -> None:
    """Refuse a large plain file whose first ``piece`` bytes hold no place to cut, as counting it
    would after reading them (a sparse file of a terabyte reads as zeros, and was hashed whole
    first)."""
    if not _regular(path) or path.endswith(COMPRESSED) or _size(path) <= piece:
        return
    read, tail = 0, b""
    with open(path, "rb") as handle:
        while read <= piece:  # a block at a time, the last bytes kept: a cut spans up to CUT_BYTES
            block = handle.read(min(BLOCK, piece + CUT_BYTES - read))
            if not block:
                return
            if _last_cut(tail + block) is not None:
                return
            read += len(block)
            tail = block[-(CUT_BYTES - 1):]
    raise _piece_too_long(Path(path), piece)


def _regular(path: str) -> bool:
    import stat

    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return True  # hashing it says what is wrong


def _read_pipe(path: str, limits: Limits) -> bytes:
    """A pipe's bytes, read once through the bounded reader (a device or a FIFO with no writer
    is refused in one line, a pipe past its bound too)."""
    from engine.corpus.files import open_bounded

    bound = MAX_STREAM_BYTES if limits.stream is None else limits.stream
    flag = "--max-corpus-bytes"
    return open_bounded(path, kind="a text file", error=CorpusError, limit=bound, flag=flag).read_all()


def open_input(path: str):
    """A binary file object of the input's bytes, decompressed by its suffix."""
    if path.endswith(".gz"):
        import gzip

        return gzip.open(path, "rb")
    if path.endswith(".bz2"):
        import bz2

        return bz2.open(path, "rb")
    if path.endswith(".xz"):
        import lzma

        return lzma.open(path, "rb")
    if path.endswith(".zst"):
        try:
            import zstandard
        except ImportError:
            raise CountsError(f"{path}: reading .zst needs zstandard: {_hint()}") from None
        return zstandard.open(path, "rb")
    return open(path, "rb")


def _hint() -> str:
    from engine.corpus.chunk_table import SCALE_HINT

    return SCALE_HINT


def count_task(task: Task, pre: dict[str, Any], base: str, progress=None) -> tuple[Counter[str], int, int, int]:
    """Count one task: (chunk counts in order of first occurrence, invalid bytes, NUL bytes,
    bytes read). Runs in a worker process or on a Dask worker: arguments are plain data.
    ``progress(bytes read, distinct chunks)`` after each block of a range (in this process)."""
    result = _count_task(task, pre, base, progress)
    if task.chunk is not None:
        check_chunks(result[0], task.chunk, task.path)
    return result


def check_chunks(chunks: Counter[str], bound: int, where: str) -> None:
    """Refuse counts holding a chunk above ``bound`` bytes (a character takes at most 4)."""
    for chunk in chunks:
        if len(chunk) * 4 > bound:
            size = len(chunk.encode("utf-8", "surrogateescape"))
            if size > bound:
                raise CountsError(f"{where}: a chunk of {size_text(size)} (starting {one_line(chunk[:20])!r}) is longer "
                                  f"than {size_text(bound)}, the bound for one chunk (raise it with --max-chunk-bytes N)")


def _count_task(task: Task, pre: dict[str, Any], base: str, progress=None) -> tuple[Counter[str], int, int, int]:
    pretokenizer = PreTokenizer.from_dict(pre)
    p = Path(task.path)
    try:
        if task.kind == "range":
            return _count_range(p, task.start, task.end, pretokenizer, base, BLOCK, task.limit, None, progress,
                                max_piece=task.piece)
        if task.kind == "memory":
            assert task.data is not None  # a memory task holds its pipe's bytes
            return _count_range(p, 0, None, pretokenizer, base, BLOCK, None, _Blocks(task.data), max_piece=task.piece)
        if task.data is not None:  # a pipe, counted whole
            data = task.data
        else:
            with open_input(task.path) as handle:
                capped = _Capped(handle, task) if task.cap is not None else handle
                if task.kind == "stream":
                    return _count_range(p, 0, None, pretokenizer, base, BLOCK, None, capped, max_piece=task.piece)
                data = capped.read()
        corpus = decode_corpus(data, base=base, name=p.name)
        return pretokenizer.count(corpus.text), corpus.invalid_bytes, corpus.nul_bytes, len(data)
    except FileNotFoundError:
        raise CorpusError(f"{task.path}: disappeared while it was being counted") from None
    except BpeLabError:
        raise
    except MemoryError:
        raise CountsError(f"{task.path}: ran out of memory while counting it") from None
    except Exception as exc:  # noqa: BLE001 - a corrupt archive raises its library's own errors
        raise CorpusError(f"{task.path}: cannot read ({one_line(str(exc)) or type(exc).__name__})") from None


class _Capped:
    """A decompressing reader that refuses to give more than the task's ``cap`` bytes."""

    def __init__(self, handle: Any, task: Task) -> None:
        assert task.cap is not None  # only a capped task is read through one
        self.handle, self.task, self.cap = handle, task, task.cap
        self.left = task.cap

    def read(self, size: int = -1, /) -> bytes:
        want = self.left + 1 if size < 0 else min(size, self.left + 1)
        data = self.handle.read(want)
        self.left -= len(data)
        if self.left < 0:
            task = self.task
            if task.cap_given:
                raise CountsError(f"{task.path}: decompresses to more than {size_text(self.cap)}, the bound set by "
                                  "--max-decompressed-bytes")
            raise CountsError(f"{task.path}: decompresses to more than {size_text(self.cap)}, the bound for a "
                              f"{size_text(task.weight)} file (a compression bomb?); raise it with "
                              "--max-decompressed-bytes N")
        return data


@dataclass
class Combiner:
    """Adds task results in task order as they arrive (a result waits for the ones before)."""

    plan: Plan
    chunks: Counter[str] = field(default_factory=Counter)
    invalid: int = 0
    nul: int = 0
    read: dict[str, int] = field(default_factory=dict)
    done_bytes: int = 0
    _waiting: dict[int, tuple] = field(default_factory=dict)
    _next: int = 0

    def add(self, index: int, result: tuple[Counter[str], int, int, int], progress=None) -> None:
        self._waiting[index] = result
        tasks = self.plan.tasks
        while self._next in self._waiting:
            counts, invalid, nul, read = self._waiting.pop(self._next)
            task = tasks[self._next]
            add_counts(self.chunks, counts)  # compiled: in C (Counter.update adds a table in a Python loop)
            self.invalid += invalid
            self.nul += nul
            self.read[task.path] = self.read.get(task.path, 0) + read
            self.done_bytes += task.weight
            self._next += 1
        if progress is not None:
            progress(self.done_bytes, self.plan.total, len(self.chunks))

    def finish(self) -> tuple[Counter[str], int, int]:
        """The counts, once every input is checked to be as it was when planned."""
        for f in self.plan.files:
            if f.stamp is None:  # a pipe, read whole when planned
                continue
            try:
                st = os.stat(f.path)
            except FileNotFoundError:
                raise CorpusError(f"{f.path}: disappeared while it was being counted") from None
            changed = (st.st_size, st.st_mtime_ns, st.st_ino) != f.stamp
            if changed or (not f.path.endswith(COMPRESSED) and self.read.get(f.path, f.size) != f.size):
                raise CorpusError(f"{f.path}: the file changed while it was being read; try again once it is complete")
        return self.chunks, self.invalid, self.nul


def run_local(plan: Plan, pretokenizer: PreTokenizer, base: str, processes: int, progress=None) -> Combiner:
    """Run the plan's tasks here, or in up to ``processes`` forked processes when it is worth it."""
    combiner = Combiner(plan)
    pre = pretokenizer.to_dict()
    if processes <= 1 or len(plan.tasks) <= 1 or plan.total < PARALLEL_MIN or not hasattr(os, "fork"):
        for i, task in enumerate(plan.tasks):
            within = None
            if progress is not None:
                done, seen = combiner.done_bytes, len(combiner.chunks)
                within = lambda read, distinct, done=done, seen=seen: progress(done + read, plan.total, seen + distinct)  # noqa: E731
            combiner.add(i, count_task(task, pre, base, within), progress)
        return combiner
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    with ProcessPoolExecutor(min(processes, len(plan.tasks)), mp_context=multiprocessing.get_context("fork")) as pool:
        futures = {pool.submit(count_task, task, pre, base): i for i, task in enumerate(plan.tasks)}
        try:
            for future in as_completed(futures):
                combiner.add(futures[future], future.result(), progress)
        except BaseException:
            for future in futures:
                future.cancel()
            raise
    return combiner


def combine(plan: Plan, combiner: Combiner) -> tuple[Counter[str], int, int]:
    """The counts of a finished run (see :meth:`Combiner.finish`)."""
    if combiner._next != len(plan.tasks):
        raise CountsError("counting stopped before every block was counted")
    return combiner.finish()
