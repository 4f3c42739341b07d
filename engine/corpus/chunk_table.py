"""The chunk-count table itself (see :mod:`engine.corpus.counts` for counting, reading and writing)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from engine.text.pretokenize import PreTokenizer
from engine.version import VERSION

#: The table format's version (its Parquet metadata's ``version``).
FORMAT = "bpe-lab chunk counts"
TABLE_VERSION = 1
#: What to install for Parquet, Dask and .zst (one line, in every message that needs it).
SCALE_HINT = "pip install 'bpe-lab[scale]' (pyarrow, dask[distributed], zstandard)"

Progress = Callable[[int, int, int], None]  # (bytes done, bytes in all, distinct chunks so far)

#: A table (Parquet or word counts) is refused when its file, or the memory training on the
#: chunks it holds takes (:func:`table_memory`), comes to more than this; ``--max-table-bytes``
#: raises it.
MAX_TABLE_BYTES = 4 << 30
#: What training on a table takes in memory, a distinct chunk and a byte of it at a time: the
#: table's row, the trainer's nodes, pairs and queue. Measured as the peak of ``bpe-lab train
#: --counts`` on word-count files (pure path, the larger: 1,000,000 distinct words of 9 bytes
#: 871 MB, 250,000 of 36 bytes 441 MB; docs/benchmarks.md).
ROW_BYTES = 600
BYTE_COST = 26


def table_memory(chunk_bytes: int, rows: int) -> int:
    """About the memory training on ``rows`` distinct chunks of ``chunk_bytes`` bytes in all takes."""
    return BYTE_COST * chunk_bytes + ROW_BYTES * rows
#: A chunk longer than this (in bytes) is refused in a table, and by ``bpe-lab count``;
#: ``--max-chunk-bytes`` raises it. Real chunks are words: a chunk of megabytes is a file that
#: was not pre-tokenized (training on it costs about 18 bytes of memory per byte).
MAX_CHUNK_BYTES = 1 << 20
#: The largest count a table may hold (it is stored in 64 bits).
MAX_COUNT = (1 << 64) - 1


@dataclass(frozen=True)
class Bounds:
    """The bounds a table is read within: its total (``table``) and one chunk (``chunk``), bytes."""

    table: int = MAX_TABLE_BYTES
    chunk: int = MAX_CHUNK_BYTES


DEFAULT_BOUNDS = Bounds()


@dataclass
class ChunkTable:
    """Distinct chunks (text; bytes beyond UTF-8 as lone surrogates, as a corpus decodes them)
    with their counts, in order of first occurrence, and how they were counted."""

    chunks: Counter[str]
    base: str
    pretokenizer: PreTokenizer
    inputs: list[dict[str, Any]] = field(default_factory=list)
    version: str = VERSION
    invalid_bytes: int = 0
    nul_bytes: int = 0
    #: ``bpe-lab`` for a table it counted; ``subword-nmt`` or ``sentencepiece`` for word counts.
    source: str = "bpe-lab"
    #: The SHA-256 of the file's bytes as read (the one read: a pipe cannot be read again);
    #: empty for a table made in memory.
    file_sha256: str = ""

    @property
    def occurrences(self) -> int:
        """Chunks in the corpus, counted with repeats."""
        return sum(self.chunks.values())

    def pairs(self) -> Iterable[tuple[bytes, int]]:
        """(chunk bytes, count) in order of first occurrence."""
        for chunk, n in self.chunks.items():
            yield chunk.encode("utf-8", "surrogateescape"), n

    def meta(self) -> dict[str, Any]:
        """The metadata a Parquet table carries (JSON)."""
        return {"format": FORMAT, "version": TABLE_VERSION, "bpe_lab": self.version, "base": self.base,
                "pretokenizer": self.pretokenizer.to_dict(), "inputs": self.inputs,
                "invalid_bytes": self.invalid_bytes, "nul_bytes": self.nul_bytes, "source": self.source}

    def describe(self) -> str:
        """How it was counted, for messages: ``gpt2 pre-tokenizer, bytes base``."""
        pre = self.pretokenizer
        name = f"pattern {pre.pattern!r}" if pre.name == "custom" else f"{pre.name} pre-tokenizer"
        extra = [x for x, on in (("split digits", pre.split_digits), ("newlines apart", pre.split_newlines),
                                 ("line by line", pre.per_line)) if on]
        return ", ".join([name, *extra, f"{self.base} base"])
