"""Chunk-count tables written by other Parquet writers, with other encodings: read when their
decoded size is known before decoding, refused by name when it is not."""

from __future__ import annotations

import json

import pytest

from engine.corpus import read_counts
from engine.errors import CountsError

pytestmark = pytest.mark.needs_extra("scale")


@pytest.mark.parametrize("encoding", ["PLAIN", "DELTA_LENGTH_BYTE_ARRAY"])
def test_a_table_of_other_encodings_reads_as_bpe_lab_s_own(tmp_path, encoding):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from bad_input_tables import meta

    chunks = [b"the", b" cat", b" sat", "é".encode()]
    table = pa.table({"chunk": pa.array(chunks), "count": pa.array([5, 3, 2, 1]), "order": pa.array(range(4))})
    table = table.replace_schema_metadata({"bpe-lab": json.dumps(meta())})
    pq.write_table(table, tmp_path / "t.parquet", use_dictionary=False, compression="zstd",
                   column_encoding={"chunk": encoding, "count": "DELTA_BINARY_PACKED", "order": "DELTA_BINARY_PACKED"})
    counts = read_counts(tmp_path / "t.parquet")
    assert dict(counts.chunks) == {"the": 5, " cat": 3, " sat": 2, "é": 1}


def test_delta_byte_array_chunks_are_refused_before_decoding(tmp_path):
    from bad_input_tables import delta_chunks

    with pytest.raises(CountsError, match="DELTA_BYTE_ARRAY-encoded, whose decoded size is not known"):
        read_counts(delta_chunks(tmp_path))
