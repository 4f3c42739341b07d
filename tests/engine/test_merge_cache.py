"""The cache of merges recovered from .tiktoken rank files (engine/formats/merge_cache.py): a warm
load is the cold load exactly; a damaged, foreign or wrong entry is never used but rebuilt; the
folder stays bounded; a cache that cannot be written costs nothing but time."""

from __future__ import annotations

import json
import os

import pytest

from engine import TrainConfig, Trainer
from engine.formats import export_tokenizer, load_any, merge_cache
from engine.formats.merge_cache import MAGIC

TEXT = "the cat in the hat sat on the mat; the hat is a cat's hat. " * 20 + "Müller grüßt 東京 🙂 " * 5


@pytest.fixture
def rank_file(tmp_path):
    """A .tiktoken file (with its sidecar) of a tokenizer trained here."""
    trainer = Trainer(TEXT, TrainConfig(vocab_size=400, pretokenizer="gpt2"))
    trainer.train()
    path = tmp_path / "tok.tiktoken"
    export_tokenizer(trainer.tokenizer(), "tiktoken", path)
    return path


def entries():
    folder = merge_cache.cache_dir()
    return sorted(folder.glob("*.bin")) if folder.exists() else []


def same(a, b) -> None:
    assert a.tokenizer.merges == b.tokenizer.merges
    assert a.tokenizer.pieces == b.tokenizer.pieces
    assert a.file_ids == b.file_ids
    assert a.warnings == b.warnings
    assert a.tokenizer.encode(TEXT) == b.tokenizer.encode(TEXT)


def test_warm_load_is_the_cold_load(rank_file, monkeypatch):
    cold = load_any(rank_file)
    assert len(entries()) == 1  # the first load kept what it recovered
    warm = load_any(rank_file)
    same(cold, warm)
    monkeypatch.setenv("BPE_LAB_CACHE", "off")
    same(cold, load_any(rank_file))


def test_off_writes_nothing(rank_file, monkeypatch, tmp_path):
    monkeypatch.setenv("BPE_LAB_CACHE", "off")
    load_any(rank_file)
    assert merge_cache.cache_dir() is None
    assert not (tmp_path / "merge-cache").exists()


def damage_body(data: bytes) -> bytes:
    return data[:-3] + bytes([data[-3] ^ 1]) + data[-2:]


def consistent_but_wrong(data: bytes) -> bytes:
    """Swap two merges' left parts and fix the body checksum: only the check against the ranks
    can tell."""
    import hashlib
    from array import array

    end = data.index(b"\n", len(MAGIC))
    header = json.loads(data[len(MAGIC) : end])
    body = array("I")
    body.frombytes(data[end + 1 :])
    n = header["merges"]
    body[n - 1], body[n - 2] = body[n - 2], body[n - 1]
    blob = body.tobytes()
    header["body"] = hashlib.sha256(blob).hexdigest()
    return MAGIC + json.dumps(header).encode() + b"\n" + blob


@pytest.mark.parametrize("damage", [
    damage_body,
    lambda data: data[: len(data) // 2],  # truncated
    lambda data: b"garbage",
    lambda data: b"",
    lambda data: MAGIC + b"{not json\n",
    lambda data: data.replace(MAGIC, b"bpe-lab merge cache 0\n"),  # another version of the format
    consistent_but_wrong,
], ids=["bit-flip", "truncated", "garbage", "empty", "bad-header", "old-format", "wrong-merges"])
def test_a_bad_entry_is_rebuilt(rank_file, damage):
    cold = load_any(rank_file)
    (entry,) = entries()
    good = entry.read_bytes()
    assert damage(good) != good
    entry.write_bytes(damage(good))
    same(cold, load_any(rank_file))
    assert entry.read_bytes() == good  # written again, whole


def test_an_entry_of_another_file_is_not_used(rank_file, tmp_path):
    cold = load_any(rank_file)
    (entry,) = entries()
    other = tmp_path / "other.tiktoken"
    other.write_bytes(rank_file.read_bytes().replace(b" 300\n", b" 9300\n", 1))
    (tmp_path / "other.tiktoken.json").write_bytes((tmp_path / "tok.tiktoken.json").read_bytes())
    # put this file's entry where the other file's would be: the header names its source
    os.replace(entry, entry.with_name(merge_cache.key_of(other.read_text()) + ".bin"))
    assert load_any(other).tokenizer.pieces == cold.tokenizer.pieces


def test_the_folder_stays_bounded(rank_file, monkeypatch):
    monkeypatch.setattr(merge_cache, "MAX_ENTRIES", 3)
    lines = rank_file.read_text().splitlines(keepends=True)
    for n in range(6):  # six different files (one line dropped each time)
        variant = rank_file.with_name(f"v{n}.tiktoken")
        variant.write_text("".join(lines[: len(lines) - 1 - n]))
        load_any(variant, need_pattern=False)
    assert len(entries()) == 3


def test_an_unwritable_cache_costs_nothing_but_time(rank_file, monkeypatch, tmp_path):
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache folder would be")
    monkeypatch.setenv("BPE_LAB_CACHE", str(blocked / "merges"))
    first = load_any(rank_file)
    monkeypatch.setenv("BPE_LAB_CACHE", "off")
    same(first, load_any(rank_file))


def test_cache_ranks_become_our_ids_dense_or_sparse():
    from engine.encode.recovered import our_ids as _our_ids

    base = [5, 3, None, 0]  # our ids 0..3 are the bytes; byte 2 has no rank
    assert _our_ids(base, [4, 6, 7], [5, 4, 7, 2], [0, 6]) == [[0, 4, 6, None], [3, 5]]  # dense, with a gap
    assert _our_ids([2, 3, 0, 1], [4, 5], [4, 0, 5]) == [[4, 2, 5]]  # ranks first.. in order: ids equal ranks
    assert _our_ids(base, [10**9, 10**9 + 1], [10**9 + 1, 3]) == [[5, 1]]  # sparse: a dict, not a huge list
    assert _our_ids(base, [4, 6], [8], [4]) == [[None], [4]]  # a rank past the last
