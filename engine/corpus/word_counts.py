"""Word-count files of other tools, read as chunk-count tables.

subword-nmt's ``--dict-input``: ``word count`` a line (the word is everything before the last
space). SentencePiece's TSV input (``--input_format=tsv``): ``word<TAB>count``. Which one is
told by content: a tab on the first line means TSV. Each word becomes one chunk exactly as it is
written (no pre-tokenizing: these tools split words themselves), counted as the file says; a word
listed twice is counted twice. Blank lines are skipped.
"""

from __future__ import annotations

import hashlib
from collections import Counter

from engine.corpus.chunk_table import DEFAULT_BOUNDS, MAX_COUNT, Bounds, ChunkTable, table_memory
from engine.errors import CountsError, size_text
from engine.text.pretokenize import PreTokenizer

#: The longest count a line may hold: 2**64 - 1 has 20 digits.
COUNT_DIGITS = 20


def read_word_counts(shown: str, data: bytes, bounds: Bounds = DEFAULT_BOUNDS, *, pretokenizer: PreTokenizer,
                     base: str) -> ChunkTable:
    """A table of the words in ``data`` (the file's bytes, see the module's docstring);
    one-line :class:`CountsError` naming the file and line."""
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
    total = 0
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        word, found, count = line.rpartition(sep)
        if not found or not word or not (count.isascii() and count.isdigit()) or not count.strip("0"):
            raise CountsError(f"{shown}: line {number} is not '{shape}' with a count of 1 or more "
                              f"(read as a {source} word-count file)")
        if len(count.lstrip("0")) > COUNT_DIGITS or int(count) > MAX_COUNT:
            raise CountsError(f"{shown}: line {number}: a count of {len(count.lstrip('0'))} digits, more than 64 bits "
                              f"hold (at most {MAX_COUNT})")
        size = len(word.encode("utf-8", "surrogatepass"))
        if size > bounds.chunk:
            raise CountsError(f"{shown}: line {number} holds a word longer than {size_text(bounds.chunk)}, the bound "
                              "for one chunk (raise it with --max-chunk-bytes N)")
        if word not in chunks:
            total += table_memory(size, 1)
            if total > bounds.table:
                raise CountsError(f"{shown}: training on its words would take more than {size_text(bounds.table)} of "
                                  f"memory at line {number}, the table bound (raise it with --max-table-bytes N)")
        chunks[word] += int(count)
    for word, n in chunks.items():
        if n > MAX_COUNT:
            raise CountsError(f"{shown}: the word {word[:20]!r} is counted {n} times in all, more than 64 bits hold")
    return ChunkTable(chunks, base, pretokenizer, [{"path": shown, "size": len(data)}], source=source,
                      file_sha256=hashlib.sha256(data).hexdigest())
