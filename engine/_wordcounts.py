"""Word-count files of other tools, read as chunk-count tables.

subword-nmt's ``--dict-input``: ``word count`` a line (the word is everything before the last
space). SentencePiece's TSV input (``--input_format=tsv``): ``word<TAB>count``. Which one is
told by content: a tab on the first line means TSV. Each word becomes one chunk exactly as it is
written (no pre-tokenizing: these tools split words themselves), counted as the file says; a word
listed twice is counted twice. Blank lines are skipped.
"""

from __future__ import annotations

import os
from collections import Counter

from ._chunktable import ChunkTable
from .errors import CountsError, reading_file
from .pretokenize import PreTokenizer


def read_word_counts(path: str | os.PathLike[str], *, pretokenizer: PreTokenizer, base: str) -> ChunkTable:
    """A table of the file's words (see the module's docstring); one-line :class:`CountsError`."""
    shown = os.fspath(path)
    with reading_file(shown, CountsError, "a word-count file"), open(path, "rb") as handle:
        data = handle.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise CountsError(f"{shown}: neither a chunk-count table (Parquet) nor a word-count file (it is not UTF-8 text)") from None
    lines = text.splitlines()
    first = next((line for line in lines if line.strip()), None)
    if first is None:
        raise CountsError(f"{shown}: the file is empty")
    tsv = "\t" in first
    sep, source, shape = ("\t", "sentencepiece", "word<TAB>count") if tsv else (" ", "subword-nmt", "word count")
    chunks: Counter[str] = Counter()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        word, found, count = line.rpartition(sep)
        if not found or not word or not count.isdigit() or int(count) < 1:
            raise CountsError(f"{shown}: line {number} is not '{shape}' with a count of 1 or more "
                              f"(read as a {source} word-count file)")
        chunks[word] += int(count)
    return ChunkTable(chunks, base, pretokenizer, [{"path": shown, "size": len(data)}], source=source)
