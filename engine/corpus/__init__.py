"""The corpus: bounded reading and atomic writing of files, reading a corpus, and counting its
chunks (in local processes, on Dask, into Parquet chunk-count tables, from other tools' word
counts).

The data flow: text -> chunks -> **counts** -> merges -> ids -> files.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.lazy import exports

if TYPE_CHECKING:
    from engine.corpus.chunk_table import MAX_CHUNK_BYTES, MAX_TABLE_BYTES
    from engine.corpus.counts import (
        ChunkTable,
        Pruned,
        check_usable,
        count_inputs,
        counts_from_bytes,
        expand_inputs,
        merge_tables,
        prune,
        read_counts,
        require_pyarrow,
        write_counts,
    )
    from engine.corpus.files import (
        BoundedInput,
        atomic_write_bytes,
        atomic_write_text,
        check_folder,
        check_target,
        check_within,
        open_bounded,
        parse_json,
        read_bounded,
        reading_within,
        refuse_collisions,
        refuse_inputs,
    )
    from engine.corpus.reading import Corpus, count_corpus, decode_corpus, is_stdin, read_corpus, read_corpus_bytes, streamable

__all__, __getattr__, __dir__ = exports(__name__, {
    "engine.corpus.reading": ("Corpus", "count_corpus", "decode_corpus", "is_stdin", "read_corpus", "read_corpus_bytes",
                              "streamable"),
    "engine.corpus.files": ("BoundedInput", "atomic_write_bytes", "atomic_write_text", "check_folder", "check_target",
                            "check_within", "open_bounded", "parse_json", "read_bounded", "reading_within",
                            "refuse_collisions", "refuse_inputs"),
    "engine.corpus.counts": ("ChunkTable", "Pruned", "check_usable", "count_inputs", "counts_from_bytes", "expand_inputs",
                             "merge_tables", "prune", "read_counts", "require_pyarrow", "write_counts"),
    "engine.corpus.chunk_table": ("MAX_CHUNK_BYTES", "MAX_TABLE_BYTES"),
})
