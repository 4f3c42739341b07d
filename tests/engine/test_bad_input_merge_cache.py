"""A merge cache entry (engine/formats/merge_cache.py) that is hostile is ignored and rebuilt,
never waited on and never a traceback (issue 21): it is read through the one bounded reader
(engine.corpus.files.open_bounded: no FIFO, no device, nothing above its bound) and its header is parsed
with every failure caught, a header nested too deeply included."""

from __future__ import annotations

import os
import threading

import pytest

from engine import TrainConfig, Trainer
from engine.formats import export_tokenizer, load_any, merge_cache
from engine.formats.merge_cache import MAGIC, MAX_HEADER

TEXT = "the cat in the hat sat on the mat; the hat is a cat's hat. " * 20 + "Müller grüßt 東京 🙂 " * 5


@pytest.fixture
def rank_file(tmp_path):
    trainer = Trainer(TEXT, TrainConfig(vocab_size=400, pretokenizer="gpt2"))
    trainer.train()
    path = tmp_path / "tok.tiktoken"
    export_tokenizer(trainer.tokenizer(), "tiktoken", path)
    return path


def entry_of(rank_file):
    return merge_cache.cache_dir() / f"{merge_cache.key_of(rank_file.read_text(encoding='utf-8'))}.bin"


def load_within(path, seconds: float = 30.0):
    """load_any(path) in a thread, failing (not hanging) if it takes longer than ``seconds``."""
    result = {}
    thread = threading.Thread(target=lambda: result.update(value=load_any(path)), daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "the load hangs on the cache entry"
    assert "value" in result, "the load failed"
    return result["value"]


HOSTILE = {
    "deep-header": lambda entry: entry.write_bytes(MAGIC + b"[" * 200_000 + b"\n"),
    "huge": lambda entry: (entry.write_bytes(MAGIC), os.truncate(entry, len(MAGIC) + MAX_HEADER + (64 << 20))),
    "garbage": lambda entry: entry.write_bytes(os.urandom(5000)),
    "long-number": lambda entry: entry.write_bytes(MAGIC + b'{"merges": ' + b"9" * 5000 + b"}\n"),
    "fifo": lambda entry: os.mkfifo(entry),
    "device": lambda entry: entry.symlink_to("/dev/zero"),
    "folder": lambda entry: entry.mkdir(),
}


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_hostile_entry_is_ignored_and_the_load_is_the_cold_one(rank_file, kind):
    cold = load_any(rank_file)
    entry = entry_of(rank_file)
    entry.unlink()
    HOSTILE[kind](entry)
    warm = load_within(rank_file)
    assert warm.tokenizer.merges == cold.tokenizer.merges and warm.file_ids == cold.file_ids
    assert warm.tokenizer.encode(TEXT) == cold.tokenizer.encode(TEXT)
    if kind in ("deep-header", "huge", "garbage", "long-number"):  # a regular file: rebuilt in place
        assert entry.stat().st_size < 1 << 20 and entry.read_bytes().startswith(MAGIC)
        again = load_within(rank_file)
        assert again.tokenizer.merges == cold.tokenizer.merges
