"""A corpus as the app loads it (:class:`LoadedCorpus`): a sample, a file or a chunk-count table,
read once and hashed, its base units and line starts indexed; and the refusals before reading
(standard input, which carries the app's keys; a file too large to hold)."""

from __future__ import annotations

import os
import re
import stat
from array import array
from dataclasses import dataclass, replace
from pathlib import Path

from engine import Corpus, CorpusError, TrainConfig
from engine.corpus import ChunkTable, check_usable, decode_corpus, is_stdin, read_corpus_bytes, read_counts
from engine.errors import MAX_APP_CORPUS_BYTES, size_text
from engine.text import pretokenizer_for
from tui.model.samples import sample
from tui.model.session import fingerprint


def refuse_standard_input(source: str, what: str = "the corpus") -> None:
    """The app reads its keys from standard input: a text it reads must not come from there
    (``-``, ``/dev/stdin``), or the two would take each other's bytes. Raises CorpusError."""
    if is_stdin(source) or _is_the_terminal_input(source):
        raise CorpusError(f"{source}: the app reads its keys from standard input, so {what} cannot come from "
                          "there: save the text to a file and open that (bpe-lab train - reads standard input)")


APP_CORPUS_BYTES = MAX_APP_CORPUS_BYTES  # engine.errors says why


def refuse_too_large(path: Path, max_bytes: int | None) -> None:
    """A regular file above :data:`APP_CORPUS_BYTES`, with no bound given: refused before it is
    read, in one line that says what to do instead. Raises CorpusError."""
    if max_bytes is not None:
        return
    try:
        info = path.stat()
    except (OSError, ValueError):
        return  # the reader says why it cannot be read
    if stat.S_ISREG(info.st_mode) and info.st_size > APP_CORPUS_BYTES:
        raise CorpusError(f"{path}: {size_text(info.st_size)} is more than the app holds in memory "
                          f"({size_text(APP_CORPUS_BYTES)}): count it first (bpe-lab count {path} -o counts.parquet) "
                          "and open the counts (bpe-lab --counts counts.parquet), or raise the bound "
                          "with --max-corpus-bytes N")


def _is_the_terminal_input(path: str) -> bool:
    """Whether ``path`` is the file behind standard input (``/dev/stdin``, ``/proc/self/fd/0``)."""
    try:
        mine, theirs = os.fstat(0), os.stat(path)
    except (OSError, ValueError):
        return False
    return (mine.st_dev, mine.st_ino) == (theirs.st_dev, theirs.st_ino) and not stat.S_ISREG(mine.st_mode)


@dataclass(frozen=True)
class LoadedCorpus:
    """A corpus as the app shows it: text, its base units, and where each line starts."""

    name: str
    path: Path | None  # None for a bundled sample
    text: str
    units: bytes | str  # UTF-8 bytes (bytes base) or the text (chars base)
    line_starts: array  # unit offset of each line; one extra entry: the end
    size: int  # bytes in the file
    invalid_bytes: int
    sha256: str = ""  # of the exact bytes read (sessions check it on resume)
    note: str | None = None  # one line for the user: invalid UTF-8, NUL bytes, blank text
    #: A chunk-count table (``bpe-lab --counts``): the trainer trains on its chunks, and ``text``
    #: is the listing of the most frequent ones that the corpus pane shows (see :meth:`from_table`).
    table: ChunkTable | None = None

    @classmethod
    def from_corpus(cls, corpus: Corpus, base: str, path: Path | None, sha256: str = "") -> LoadedCorpus:
        units, starts = _units_and_lines(corpus.text, base)
        return cls(corpus.name, path, corpus.text, units, starts, corpus.size, corpus.invalid_bytes, sha256, corpus.note(base))

    def shown_as(self, text: str) -> LoadedCorpus:
        """This corpus showing ``text`` instead: a replayed tokenizer's normalized corpus, which
        is what it merges (name, path, size and hash stay the file's: a session finds it again)."""
        units, starts = _units_and_lines(text, "bytes" if isinstance(self.units, bytes) else "chars")
        return replace(self, text=text, units=units, line_starts=starts)

    def with_base(self, base: str) -> LoadedCorpus:
        """This corpus read at another base (its units and line offsets; the text is the same
        for valid UTF-8)."""
        units, starts = _units_and_lines(self.text, base)
        return replace(self, units=units, line_starts=starts)

    @classmethod
    def from_table(cls, path: Path, table: ChunkTable, sha256: str = "") -> LoadedCorpus:
        """A chunk-count table, until the workbench lists its chunks (:meth:`listed`)."""
        size = sum(len(c.encode("utf-8", "surrogateescape")) * n for c, n in table.chunks.items())
        return cls(path.name, path, "", b"" if table.base == "bytes" else "", array("q", [0, 0]), size,
                   table.invalid_bytes, sha256, None, table)

    def listed(self, text: str) -> LoadedCorpus:
        """This table corpus showing ``text`` (:meth:`engine.Trainer.listing`) in the corpus pane."""
        shown = decode_corpus(text.encode("utf-8", "surrogateescape"), base=self.table.base, name=self.name)
        made = LoadedCorpus.from_corpus(shown, self.table.base, self.path, self.sha256)
        return replace(made, size=self.size, invalid_bytes=self.invalid_bytes, note=None, table=self.table)

    @classmethod
    def open(cls, source: str | Path, base: str, *, max_bytes: int | None = None) -> LoadedCorpus:
        """A file path, or ``sample:NAME`` for a bundled sample. Raises ValueError (one line).

        ``max_bytes`` bounds the corpus (``--max-corpus-bytes``); without it a pipe or a device
        stops at :data:`engine.corpus.reading.MAX_STREAM_BYTES` and a regular file above
        :data:`APP_CORPUS_BYTES` is refused before it is read."""
        text = str(source)
        if text.startswith("sample:"):
            name = text.split(":", 1)[1]
            data = sample(name).read_bytes()
            corpus = decode_corpus(data, base=base, name=name)
            return cls.from_corpus(corpus, base, None, fingerprint(data))
        refuse_standard_input(text)
        path = Path(source)
        if _is_parquet(path):  # a chunk-count table (bpe-lab count): opened as one, by content
            table = read_counts(path)
            check_usable(str(path), table)
            return cls.from_table(path, table, table.file_sha256)
        refuse_too_large(path, max_bytes)
        data = read_corpus_bytes(path, max_bytes=max_bytes)  # read once: the hash is of exactly the bytes trained on
        if data[:4] == b"PAR1":  # a table from a pipe: told by the bytes read, not by reading it twice
            from engine.corpus import counts_from_bytes

            table = counts_from_bytes(str(path), data, parquet=True)
            check_usable(str(path), table)
            return cls.from_table(path, table, table.file_sha256)
        return cls.from_corpus(decode_corpus(data, base=base, name=path.name), base, path, fingerprint(data))

    @classmethod
    def open_counts(cls, source: str | Path, config: TrainConfig) -> LoadedCorpus:
        """A chunk-count table: bpe-lab's Parquet, or another tool's word counts, cut into chunks
        by ``config``'s pre-tokenizer. Raises ValueError (one line)."""
        refuse_standard_input(str(source), "the table")
        table = read_counts(source, pretokenizer=pretokenizer_for(config), base=config.base)
        check_usable(str(source), table)
        return cls.from_table(Path(source), table, table.file_sha256)  # the bytes read: a pipe cannot be read again

    @property
    def source(self) -> str:
        """What :meth:`open` takes to read this corpus again (an absolute path, or sample:NAME)."""
        return str(self.path.resolve()) if self.path is not None else f"sample:{self.name}"

    @property
    def line_count(self) -> int:
        return max(len(self.line_starts) - 1, 1)

    def line_range(self, line: int) -> tuple[int, int]:
        """Units [start, end) of a line (its newline included)."""
        starts = self.line_starts
        if line + 1 >= len(starts):
            return (starts[-1], starts[-1])
        return starts[line], starts[line + 1]


def _units_and_lines(text: str, base: str) -> tuple[bytes | str, array]:
    """A text's base units (UTF-8 bytes or the text) and the unit offset of each line's start,
    with one extra entry: the end."""
    units: bytes | str = text.encode("utf-8", "surrogateescape") if base == "bytes" else text
    newline = b"\n" if isinstance(units, bytes) else "\n"
    starts = array("q", [0])
    starts.extend(m.end() for m in re.finditer(re.escape(newline), units))
    if starts[-1] != len(units):
        starts.append(len(units))
    return units, starts


def _is_parquet(path: Path) -> bool:
    """Whether a regular file starts as Parquet does; a pipe is never read here (its first bytes
    would be lost, and a FIFO with no writer would wait): its bytes are read once, then told."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False
        with path.open("rb") as handle:
            return handle.read(4) == b"PAR1"
    except OSError:
        return False  # reading it as a corpus says what is wrong


def table_config(config: TrainConfig, table: ChunkTable) -> TrainConfig:
    """``config`` with the table's base and pre-tokenizer: its chunks were cut by them."""
    pre = table.pretokenizer
    if table.source != "bpe-lab":
        return config
    return replace(config, base=table.base, pretokenizer=pre.name, pattern=pre.pattern if pre.name == "custom" else None,
                   split_digits=pre.split_digits, no_merge_newline=pre.split_newlines,
                   tie_rule=config.tie_rule if (config.tie_rule == "hf") == pre.per_line else
                   ("hf" if pre.per_line else "lowest-ids"))
