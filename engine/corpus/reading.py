"""Reading a corpus file: exact bytes in, a clear one-line error for anything unusable.

Decoding policy for bytes that are not valid UTF-8: the bytes base trains on the raw bytes
(they travel through the pre-tokenizer as lone surrogates, ``surrogateescape``, and come back as
the same bytes); the chars base replaces each bad byte with U+FFFD, the unknown character. Line
endings are never translated: ``\\r\\n`` reaches the pre-tokenizer as it is in the file. NUL
bytes are text like any other (U+0000), but a corpus holding them is probably a binary file:
:meth:`Corpus.note` says so, once. A corpus of whitespace alone is trained as it is (with a note).

A regular file whose size or modification time changes while it is read is refused
(:class:`CorpusError`): what was read may be half old and half new.

Sizes are bounded before memory is spent on them: a regular file is read up to the size it
had when opened (more is a file that changed), anything else (a pipe, a device such as
``/dev/zero``, standard input ``-``) up to :data:`MAX_STREAM_BYTES` unless a ``max_bytes`` is
given (``--max-corpus-bytes``); past the bound reading stops and :class:`CorpusError` says so.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from collections import Counter
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Protocol, cast

from engine.errors import MAX_STREAM_BYTES, CorpusError, CountsError, reading_file, size_text
from engine.text.pretokenize import NAMED_PATTERNS, PreTokenizer, add_counts

__all__ = ["MAX_STREAM_BYTES", "STDIN", "Corpus", "CorpusError", "CountedCorpus", "count_corpus", "decode_corpus",
           "read_corpus", "streamable"]

#: The corpus name that means standard input.
STDIN = "-"


def is_stdin(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` names standard input (``-``)."""
    return os.fspath(path) == STDIN


def shown_name(path: str | os.PathLike[str]) -> str:
    """How messages name a corpus: its path, or ``standard input`` for ``-``."""
    return "standard input" if is_stdin(path) else str(path)


def _open_stdin():
    """Standard input as a binary file that leaves the descriptor open when closed."""
    if sys.stdin is None:
        raise FileNotFoundError
    return open(sys.stdin.fileno(), "rb", closefd=False)


def _over_bound(name: str, limit: int, given: bool, size: int | None = None) -> CorpusError:
    """The one line for a corpus above its size bound (``size`` known: a regular file)."""
    if size is not None:
        return CorpusError(f"{name}: {size_text(size)} is above the corpus bound of {size_text(limit)} "
                           "set by --max-corpus-bytes")
    if given:
        return CorpusError(f"{name}: stopped reading at {size_text(limit)}, the corpus bound set by --max-corpus-bytes")
    return CorpusError(f"{name}: stopped reading at {size_text(limit)}, the bound for a corpus that is not a "
                       "regular file (raise it with --max-corpus-bytes N)")


def _note(name: str, invalid: int, nul: int, blank: bool, base: str) -> str | None:
    """The one line a corpus deserves: invalid UTF-8 and NUL bytes, or whitespace alone."""
    if invalid or nul:
        found = []
        if invalid:
            found.append(f"{invalid} bytes are not valid UTF-8")
        if nul:
            found.append(f"{invalid and 'and ' or ''}{nul} bytes are NUL (is it a binary file?)")
        if base == "bytes":
            policy = "trained on the raw bytes"
        elif invalid:
            policy = "invalid bytes replaced by U+FFFD" + (", NUL kept as a character" if nul else "")
        else:
            policy = "NUL kept as a character"
        return f"{name}: {' '.join(found)}; {policy}"
    if blank:
        return f"{name}: holds only whitespace; trained on it as it is"
    return None


@dataclass(frozen=True)
class Corpus:
    """A decoded corpus and what reading it found."""

    text: str
    name: str
    size: int  # bytes in the file
    invalid_bytes: int  # bytes that were not valid UTF-8
    nul_bytes: int = 0  # NUL bytes (a binary file, probably)

    @property
    def warning(self) -> str | None:
        """A one-line note about invalid UTF-8, if there was any."""
        if not self.invalid_bytes:
            return None
        return f"{self.name}: {self.invalid_bytes} bytes are not valid UTF-8"

    @property
    def blank(self) -> bool:
        """Whether the corpus is whitespace alone."""
        return self.text.isspace()

    def note(self, base: str = "bytes") -> str | None:
        """The one line to tell the user about this corpus, if any: invalid UTF-8 and NUL bytes
        (with what ``base`` does with them), or whitespace alone.

        Example: ``decode_corpus(b"a\\xff\\x00").note() -> '<text>: 1 bytes are not valid UTF-8
        and 1 bytes are NUL (is it a binary file?); trained on the raw bytes'``
        """
        return _note(self.name, self.invalid_bytes, self.nul_bytes, self.blank, base)


_ESCAPED = re.compile("[\udc80-\udcff]")


def decode_corpus(data: bytes, *, base: str = "bytes", name: str = "<text>") -> Corpus:
    """Decode bytes per the policy above. Example: ``decode_corpus(b"a\\xff").invalid_bytes -> 1``"""
    nul = data.count(0)
    try:
        return Corpus(text=data.decode("utf-8"), name=name, size=len(data), invalid_bytes=0, nul_bytes=nul)
    except UnicodeDecodeError:
        pass
    text = data.decode("utf-8", "surrogateescape")  # each bad byte becomes U+DC80..U+DCFF
    invalid = len(_ESCAPED.findall(text))
    if base == "chars":
        text = _ESCAPED.sub("\ufffd", text)
    return Corpus(text=text, name=name, size=len(data), invalid_bytes=invalid, nul_bytes=nul)


def read_corpus(path: str | os.PathLike[str], *, base: str = "bytes", max_bytes: int | None = None) -> Corpus:
    """Read and decode a corpus file (``-``: standard input); raise :class:`CorpusError` with a
    one-line reason. ``max_bytes`` bounds any corpus (default: streams to :data:`MAX_STREAM_BYTES`)."""
    name = shown_name(path) if is_stdin(path) else Path(path).name
    return decode_corpus(read_corpus_bytes(path, max_bytes=max_bytes), base=base, name=name)


def read_corpus_bytes(path: str | os.PathLike[str], *, max_bytes: int | None = None) -> bytes:
    """A corpus file's exact bytes, with the same one-line errors as :func:`read_corpus`."""
    stdin = is_stdin(path)
    p = Path(path)
    shown = shown_name(path)
    with reading_file(shown, CorpusError, "a text file"):
        with _open_stdin() if stdin else _open_corpus(p) as handle:
            before = os.fstat(handle.fileno())
            if stat.S_ISREG(before.st_mode) and not stdin:
                if max_bytes is not None and before.st_size > max_bytes:
                    raise _over_bound(shown, max_bytes, True, before.st_size)
                data = handle.read(before.st_size + 1)  # more than it held: it changed (refused below)
            else:
                data = bytes(_read_stream(handle, shown, max_bytes))
        if not stdin:
            _check_unchanged(p, before, len(data))
    if not data:
        raise CorpusError(f"{shown}: the file is empty")
    return data


def _open_corpus(p: Path):
    """A corpus file opened without waiting (:func:`engine.corpus.files.open_bounded`): a FIFO gets a few
    seconds for a writer, then is refused, instead of hanging the command or the app's loader;
    the bounds are the corpus's own (see the module's docstring)."""
    from engine.corpus.files import open_bounded

    return open_bounded(p, kind="a text file", error=CorpusError, limit=sys.maxsize - 1, devices=True)


def _read_stream(handle: BinaryIO, shown: str, max_bytes: int | None) -> bytearray:
    """Read a pipe or device to its end, refusing it once it goes past its bound."""
    limit = MAX_STREAM_BYTES if max_bytes is None else max_bytes
    data = bytearray()
    while True:
        block = handle.read(min(BLOCK, limit + 1 - len(data)))
        if not block:
            return data
        data += block
        if len(data) > limit:
            raise _over_bound(shown, limit, max_bytes is not None)


def _check_unchanged(p: Path, before: os.stat_result, read: int) -> None:
    """Refuse a regular file whose size, modification time or identity changed while it was read
    (or of which fewer or more bytes were read than it held)."""
    if not stat.S_ISREG(before.st_mode):
        return  # a pipe or a device: there is no size to compare
    try:
        after = os.stat(p)
    except FileNotFoundError:
        after = None
    if after is None or read != before.st_size or (after.st_size, after.st_mtime_ns, after.st_ino) != (
        before.st_size, before.st_mtime_ns, before.st_ino
    ):
        raise CorpusError(f"{p}: the file changed while it was being read; try again once it is complete")


@dataclass(frozen=True)
class CountedCorpus:
    """A corpus read block by block: its distinct chunks with counts, never the whole text."""

    chunks: Counter[str]
    name: str
    size: int
    invalid_bytes: int
    nul_bytes: int = 0

    warning = Corpus.warning

    @property
    def blank(self) -> bool:
        """Whether the corpus is whitespace alone."""
        return all(chunk.isspace() for chunk in self.chunks)

    def note(self, base: str = "bytes") -> str | None:
        """See :meth:`Corpus.note`."""
        return _note(self.name, self.invalid_bytes, self.nul_bytes, self.blank, base)


#: Cuts go just after a newline followed by any character but whitespace (``_CUT`` below):
#: every named pre-tokenizer (simple, gpt2, gpt4) ends a chunk there, whatever came before (no
#: pattern lets a chunk run from a newline into a non-space character), so each piece can be
#: pre-tokenized alone.
BLOCK = 1 << 20


def streamable(pretokenizer: PreTokenizer) -> bool:
    """Whether :func:`count_corpus` can pre-tokenize with this pre-tokenizer block by block."""
    return pretokenizer.scan in NAMED_PATTERNS


def count_corpus(
    path: str | os.PathLike[str],
    pretokenizer: PreTokenizer,
    *,
    base: str = "bytes",
    block: int = BLOCK,
    processes: int = 1,
    max_bytes: int | None = None,
    progress: Callable[[int, int, int], None] | None = None,
) -> CountedCorpus:
    """Pre-tokenize a file a block at a time and count its chunks, holding only one block.

    Gives exactly ``pretokenizer.count(read_corpus(path).text)`` (same counts, same order of
    first appearance) for the named pre-tokenizers (see :func:`streamable`); a peak of a few
    megabytes instead of the whole text (a 10 MB file with one emoji is 40 MB as a str).
    With ``processes`` 2, a large file's second half is counted in a worker process at the same
    time (the command line only). A pipe, a device or standard input (``-``)
    is read once, without seeking, up to ``max_bytes`` (default :data:`MAX_STREAM_BYTES`), and
    held while it is counted: it has no size to check before the work starts.
    ``progress(bytes read, bytes in all, distinct chunks)`` is called after each block of a
    regular file (with two processes, from the first half's: an estimate of both).
    """
    if not streamable(pretokenizer):
        raise ValueError(f"the {pretokenizer.name} pre-tokenizer needs the whole text at once")
    p = Path(path)
    shown = shown_name(path)
    with reading_file(shown, CorpusError, "a text file"):
        before = os.fstat(sys.stdin.fileno()) if is_stdin(path) and sys.stdin is not None else p.stat()
        if stat.S_ISDIR(before.st_mode):
            raise IsADirectoryError
        if is_stdin(path) or not stat.S_ISREG(before.st_mode):
            counts, invalid, nul, size = _count_stream(path, pretokenizer, base, block, max_bytes)
            if not size:
                raise CorpusError(f"{shown}: the file is empty")
            return CountedCorpus(counts, p.name if not is_stdin(path) else shown, size, invalid, nul)
        size = before.st_size
        if max_bytes is not None and size > max_bytes:
            raise _over_bound(shown, max_bytes, True, size)
        mid = _middle_cut(p, size) if processes > 1 and size >= PARALLEL_MIN and hasattr(os, "fork") else None
        if mid is None:
            report = (lambda done, distinct: progress(done, size, distinct)) if progress else None
            counts, invalid, nul, read = _count_range(p, 0, None, pretokenizer, base, block, size, None, report)
        else:
            report = (lambda done, distinct: progress(min(size, done * size // mid), size, distinct)) if progress else None
            counts, invalid, nul = _count_in_two(p, mid, size, pretokenizer, base, block, report)
            read = size
        _check_unchanged(p, before, read)
        size = read
    if not size:
        raise CorpusError(f"{p}: the file is empty")
    return CountedCorpus(counts, p.name, size, invalid, nul)


def _count_stream(
    path: str | os.PathLike[str], pretokenizer: PreTokenizer, base: str, block: int, max_bytes: int | None
) -> tuple[Counter[str], int, int, int]:
    """Count a pipe, a device or standard input. It is read whole first, up to its bound, so an
    endless or oversized stream is refused in seconds, before any pre-tokenizing is spent on it
    (random bytes pre-tokenize at well under 1 MB/s); then counted from memory, block by block."""
    with _open_stdin() if is_stdin(path) else _open_corpus(Path(path)) as handle:
        data = _read_stream(handle, shown_name(path), max_bytes)
    return _count_range(Path(path), 0, None, pretokenizer, base, block, None, _Blocks(data))


class Reader(Protocol):
    """What :func:`_count_range` reads a stream with: a file's ``read``."""

    def read(self, size: int, /) -> bytes: ...


class _Blocks:
    """Bytes in memory, read a block at a time like a file (without copying them whole)."""

    def __init__(self, data: bytes | bytearray) -> None:
        self.view = memoryview(data)
        self.at = 0

    def read(self, size: int) -> bytes:
        piece = self.view[self.at:self.at + size].tobytes()
        self.at += len(piece)
        return piece


#: Files at least this large are counted by two processes when asked: from here, pre-tokenizing
#: half the file costs more than starting a worker and sending its counts back (docs/benchmarks.md).
PARALLEL_MIN = 512 << 10


def _count_range(
    p: Path, start: int, end: int | None, pretokenizer: PreTokenizer, base: str, block: int,
    limit: int | None = None, stream: Reader | None = None, progress: Callable[[int, int], None] | None = None,
    max_piece: int | None = None,
) -> tuple[Counter[str], int, int, int]:
    """Count the chunks of bytes [start, end) of a file (``end`` None: to the end, which must be a
    safe cut otherwise); returns (counts, invalid bytes, NUL bytes, bytes read).

    ``stream``: read that (a stream already read into memory, see :func:`_count_stream`)
    instead of opening ``p``. Reading stops as soon as more than ``limit`` bytes came: the
    counts are then partial, and the caller refuses the file (it grew while it was read).

    Linear in the file's size whatever its lines: each byte is searched for a cut once (a line
    of 50 MB is read on until its end and counted as one piece; the pre-tokenizer scans a long
    piece a part at a time, see :meth:`PreTokenizer.batches`). ``max_piece``: a piece with no
    cut longer than this is refused (:class:`CountsError`) instead of held."""
    counts: Counter[str] = Counter()
    invalid = nul = read = 0
    pending = bytearray()
    scanned = 0  # pending[:scanned] holds no cut (bar its last byte, a newline maybe)
    with p.open("rb") if stream is None else nullcontext(stream) as handle:
        if start:  # a range of a file (a stream is always read from its start)
            cast(BinaryIO, handle).seek(start)
        while True:
            want = block if end is None else min(block, end - start - read)
            if limit is not None:
                want = min(want, limit + 1 - read)
            data = handle.read(want) if want > 0 else b""
            read += len(data)
            if limit is not None and read > limit:
                return counts, invalid, nul, read
            pending += data
            if not data:
                # The end of the range: a cut in the middle of the file keeps its next
                # character, as every other cut does (see below).
                nxt = handle.read(1) if end is not None else b""
                if nxt:  # the character at a safe cut, whole
                    nxt += handle.read(_utf8_length(nxt[0]) - 1)
                piece, lookahead = bytes(pending + nxt), len(nxt)
                pending = bytearray()
            else:
                found = _last_cut(pending, max(scanned - CUT_BYTES, 0))
                if found is None:
                    scanned = len(pending)
                    if max_piece is not None and scanned > max_piece:
                        raise _piece_too_long(p, max_piece)
                    continue  # no safe cut yet (a very long line): read on
                # The piece keeps the character after the cut: the patterns look one
                # character ahead (a run of whitespace splits differently before a letter
                # than at the end of the text). Its chunk is the piece's last, and the next
                # piece counts it.
                cut, lookahead = found
                piece = bytes(pending[: cut + lookahead])
                del pending[:cut]
                scanned = len(pending)
            if piece:
                own = len(piece) - lookahead  # the lookahead character's bytes are the next piece's
                nul += piece.count(0, 0, own)
                try:  # valid UTF-8 (nearly always): no escaped bytes to look for
                    text = piece.decode("utf-8")
                    bad = 0
                except UnicodeDecodeError:
                    text = piece.decode("utf-8", "surrogateescape")
                    bad = len(_ESCAPED.findall(text[:-1] if lookahead else text))
                if bad:
                    invalid += bad
                    if base == "chars":
                        text = _ESCAPED.sub("\ufffd", text)
                direct = not (pretokenizer.split_digits or pretokenizer.split_newlines)
                # Without digit or newline splitting the chunks go straight into the counts (no
                # table per piece to add up); dropping the lookahead's chunk after counting it
                # keeps the order of first appearance, as it is the piece's last.
                raw = pretokenizer.count_raw(text, counts if direct else None)
                if lookahead:
                    last = text[-1]
                    raw[last] -= 1
                    if not raw[last]:
                        del raw[last]
                if not direct:
                    counts.update(pretokenizer.split_counted(raw))
                if progress is not None:
                    progress(read, len(counts))
            if not data:
                return counts, invalid, nul, read


def _piece_too_long(p: Path, bound: int) -> CountsError:
    return CountsError(f"{p}: more than {size_text(bound)} of text with no place to cut it (a newline before "
                       "printable text): a chunk that long is refused (raise the bound with --max-chunk-bytes N)")


def _middle_cut(p: Path, size: int) -> int | None:
    """A safe cut before printable ASCII near the middle of the file, or None when there is none
    near it. Only before ASCII: the second process pays for sending its table back, and the files
    whose lines start beyond ASCII here are Chinese, whose chunks are nearly all distinct:
    tang_all.txt counted in 0.08-0.11 s in one process, 0.20-0.23 s in two when cut."""
    with p.open("rb") as handle:
        handle.seek(size // 2)
        window = handle.read(BLOCK)
    i = first_cut(window, ascii_only=True)
    return None if i is None else size // 2 + i


def _count_in_two(
    p: Path, mid: int, size: int, pretokenizer: PreTokenizer, base: str, block: int,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[Counter[str], int, int]:
    """Count [0, mid) here and [mid, size) in a worker process at the same time (the standard
    library's process pool, as ``bpe-lab count`` uses); the worker's counts come after ours, so
    the order of first appearance is kept."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork")) as pool:
        second = pool.submit(_count_from, str(p), mid, size, pretokenizer.to_dict(), base, block)
        try:
            first, invalid, nul, _ = _count_range(p, 0, mid, pretokenizer, base, block, None, None, progress)
        except BaseException:
            second.cancel()
            raise
        counts, more_invalid, more_nul = second.result()
    add_counts(first, counts)  # compiled: in C (Counter.update adds a table in a Python loop)
    del counts
    return first, invalid + more_invalid, nul + more_nul


def _count_from(path: str, start: int, size: int, pre: dict, base: str, block: int) -> tuple[Counter[str], int, int]:
    """A worker's part of :func:`_count_in_two`: the chunks of the file from ``start`` on."""
    counts, invalid, nul, _ = _count_range(Path(path), start, None, PreTokenizer.from_dict(pre), base, block, size - start)
    return counts, invalid, nul


#: A safe cut is just after a newline followed by a character that is not whitespace: every
#: named pattern ends a chunk at such a newline and starts one at that character, which is a
#: chunk of its own at the end of a text (the piece's lookahead). Printable ASCII, or any other
#: character in well-formed UTF-8 but the whitespace beyond ASCII (the same for ``re``'s ``\s``,
#: ``str.isspace`` and ``regex``'s ``\s``: U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028,
#: U+2029, U+202F, U+205F, U+3000), excluded by their bytes. One match, no check after it: a
#: block of newlines before rejected characters is searched once, not once a newline.
_CUT = (rb"\n(?!\xc2[\x85\xa0]|\xe1\x9a\x80|\xe2\x80[\x80-\x8a\xa8\xa9\xaf]|\xe2\x81\x9f|\xe3\x80\x80)"
        rb"([\x21-\x7e]|[\xc2-\xdf][\x80-\xbf]|\xe0[\xa0-\xbf][\x80-\xbf]|[\xe1-\xec\xee\xef][\x80-\xbf]{2}"
        rb"|\xed[\x80-\x9f][\x80-\xbf]|\xf0[\x90-\xbf][\x80-\xbf]{2}|[\xf1-\xf3][\x80-\xbf]{3}"
        rb"|\xf4[\x80-\x8f][\x80-\xbf]{2})")
#: The greedy ``.*`` makes a match from the start find the last one (the regex engine
#: backtracks from the end, in C).
_LAST_CUT = re.compile(rb"(?s:.*)" + _CUT)
_NEXT_CUT = re.compile(_CUT)
_NEXT_ASCII_CUT = re.compile(rb"\n([\x21-\x7e])")
#: The most bytes a cut spans (the newline and a four-byte character): a search carried on
#: from where the last one stopped starts this far back.
CUT_BYTES = 5


def _utf8_length(lead: int) -> int:
    """The length of the UTF-8 sequence a byte leads (1 for ASCII and for a stray byte)."""
    return 2 if 0xC2 <= lead <= 0xDF else 3 if 0xE0 <= lead <= 0xEF else 4 if 0xF0 <= lead <= 0xF4 else 1


def _last_cut(data: bytes | bytearray, start: int = 0) -> tuple[int, int] | None:
    """The last safe cut in ``data[start:]`` (just after a newline) and the length of the
    character after it, or None."""
    match = _LAST_CUT.match(data, start)
    return (match.start(1), match.end(1) - match.start(1)) if match else None


def first_cut(data: bytes | bytearray, ascii_only: bool = False) -> int | None:
    """The first safe cut in ``data`` (its whole character inside), or None; ``ascii_only``:
    only before printable ASCII."""
    match = (_NEXT_ASCII_CUT if ascii_only else _NEXT_CUT).search(data)
    return match.start(1) if match else None
