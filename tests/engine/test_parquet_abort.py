"""A damaged chunk-count table that makes pyarrow end the process (it throws where nothing
catches it: std::terminate) is refused in one line instead: a forked child walks the table's
descriptions first (engine.corpus.parquet._walks)."""

from __future__ import annotations

import os
import random

import pytest

from engine.corpus import count_inputs, read_counts, write_counts
from engine.errors import CountsError
from engine.text.pretokenize import PreTokenizer

pytestmark = [pytest.mark.needs_extra("scale"), pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")]


def test_a_child_that_dies_walking_the_table_means_the_table_is_refused(tmp_path, monkeypatch):
    import engine.corpus.parquet as parquet

    (tmp_path / "c.txt").write_text("the cat sat on the mat\n" * 20, encoding="utf-8")
    write_counts(count_inputs([str(tmp_path / "c.txt")], PreTokenizer("gpt2"), processes=1), tmp_path / "t.parquet")
    assert read_counts(tmp_path / "t.parquet").chunks  # a sound table reads
    real = parquet._pyarrow
    monkeypatch.setattr(parquet, "_pyarrow", lambda: os.abort() if os.getpid() != parent else real())
    parent = os.getpid()
    with pytest.raises(CountsError, match="not a readable Parquet file"):
        read_counts(tmp_path / "t.parquet")


def test_a_table_whose_column_sizes_make_pyarrow_terminate_is_refused(tmp_path):
    """The damage the fuzz test found in CI (with pyarrow 26, "Definition level histogram size
    mismatch" ended the worker); another pyarrow may read it or refuse it: never a crash."""
    corpus = "low lower lowest newer wider <eos>\nthe cat in the hat, 123 4567\n" * 3 + "Grüße 分词 😀\n"
    (tmp_path / "c.txt").write_text(corpus, encoding="utf-8")
    write_counts(count_inputs([str(tmp_path / "c.txt")], PreTokenizer("gpt2"), processes=1), tmp_path / "t.parquet")
    raw = bytearray((tmp_path / "t.parquet").read_bytes())
    pick = random.Random(3807)  # the recipe of the fuzz test's damage, seeded as it was found
    for _ in range(pick.randint(1, 4)):
        at = pick.randint(0, len(raw) - 1)
        action = pick.choice(["flip", "cut", "insert"])
        if action == "flip":
            raw[at] ^= pick.randint(1, 255)
        elif action == "cut":
            del raw[at:at + pick.randint(1, 64)]
        else:
            raw[at:at] = pick.randbytes(pick.randint(1, 16))
    (tmp_path / "d.parquet").write_bytes(bytes(raw))
    try:
        table = read_counts(tmp_path / "d.parquet", max_table_bytes=1 << 20, max_chunk_bytes=4096)
    except ValueError as exc:
        assert "\n" not in str(exc)
    else:
        assert table.chunks
