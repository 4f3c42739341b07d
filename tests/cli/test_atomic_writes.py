"""No lost work (issue 7): every write goes to a temporary file beside the target and is renamed
into place; a failed write leaves the old file as it was, leaves no temporary file behind, and
says so in one line (``WriteError``; the command line prints it with exit code 2).

Tests run as root, where permissions do not bite: a refused folder is a patched ``mkstemp``, a
full disk a patched ``fsync`` (or write), a failed rename a patched ``os.replace``.
"""

from __future__ import annotations

import errno
import io
import os
import stat
import tempfile
from pathlib import Path

import pytest

from engine import Tokenizer, TrainConfig, Trainer
from engine.corpus.files import atomic_write_bytes, atomic_write_files, atomic_write_text
from engine.errors import WriteError
from engine.formats import export_tokenizer, written_paths
from tui.cli.commands import main


@pytest.fixture
def guard(monkeypatch, tmp_path):
    """No rename may land outside the test's folder (so a broken guard cannot replace /dev/full)."""
    real = os.replace

    def replace(src, dst, **kwargs):
        assert Path(os.path.realpath(dst)).is_relative_to(tmp_path.resolve()), f"a rename onto {dst}"
        return real(src, dst, **kwargs)

    monkeypatch.setattr(os, "replace", replace)
    return replace


def listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def disk_full(monkeypatch, after: int = 0) -> None:
    calls = {"n": 0}
    real = os.fsync

    def fsync(fd):
        calls["n"] += 1
        if calls["n"] > after:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd)

    monkeypatch.setattr(os, "fsync", fsync)


def folder_refused(monkeypatch) -> None:
    def mkstemp(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)


def rename_fails(monkeypatch, guard, after: int = 0) -> None:
    calls = {"n": 0}

    def replace(src, dst, **kwargs):
        if str(src).endswith(".tmp"):
            calls["n"] += 1
            if calls["n"] > after:
                raise OSError(errno.EIO, "Input/output error")
        return guard(src, dst, **kwargs)

    monkeypatch.setattr(os, "replace", replace)


@pytest.mark.parametrize("failure", ["disk-full", "folder-refused", "rename-fails"])
def test_a_failed_write_keeps_the_old_file_and_leaves_no_temp_file(tmp_path, monkeypatch, guard, failure):
    target = tmp_path / "tok.json"
    atomic_write_text(target, "old")
    {"disk-full": lambda: disk_full(monkeypatch), "folder-refused": lambda: folder_refused(monkeypatch),
     "rename-fails": lambda: rename_fails(monkeypatch, guard)}[failure]()
    with pytest.raises(WriteError) as caught:
        atomic_write_text(target, "new")
    assert target.read_text() == "old" and listing(tmp_path) == ["tok.json"]
    exc = caught.value
    assert isinstance(exc, OSError) and isinstance(exc, ValueError)
    reason = {"disk-full": "No space left on device", "folder-refused": "Permission denied", "rename-fails": "Input/output error"}
    assert str(exc) == f"{target}: cannot write ({reason[failure]}); the old file is unchanged"


def test_a_failed_new_file_leaves_nothing(tmp_path, monkeypatch, guard):
    disk_full(monkeypatch)
    with pytest.raises(WriteError, match="nothing was written"):
        atomic_write_bytes(tmp_path / "new.json", b"data")
    assert listing(tmp_path) == []


def test_an_interrupted_write_removes_its_temp_file(tmp_path, monkeypatch, guard):
    target = tmp_path / "tok.json"
    atomic_write_text(target, "old")

    def interrupted(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        atomic_write_text(target, "new")
    assert target.read_text() == "old" and listing(tmp_path) == ["tok.json"]


def test_devices_and_directories_are_refused_before_anything_is_written(tmp_path, guard):
    assert Path("/dev/full").is_char_device()
    with pytest.raises(WriteError) as caught:
        atomic_write_bytes("/dev/full", b"x")
    assert str(caught.value) == "/dev/full: cannot write (it is not a regular file); nothing was written"
    assert Path("/dev/full").is_char_device()
    link = tmp_path / "full"
    link.symlink_to("/dev/full")
    with pytest.raises(WriteError, match="not a regular file"):
        atomic_write_bytes(link, b"x")
    assert link.is_symlink() and Path("/dev/full").is_char_device()
    (tmp_path / "folder").mkdir()
    with pytest.raises(WriteError, match=r"\(it is a directory\); nothing was written"):
        atomic_write_bytes(tmp_path / "folder", b"x")
    assert listing(tmp_path) == ["folder", "full"] and listing(tmp_path / "folder") == []


def test_a_symlink_is_followed_not_replaced(tmp_path, guard):
    (tmp_path / "real").mkdir()
    real = tmp_path / "real" / "tok.json"
    real.write_text("old")
    link = tmp_path / "tok.json"
    link.symlink_to(real)
    atomic_write_text(link, "new")
    assert link.is_symlink() and real.read_text() == "new"
    assert listing(tmp_path / "real") == ["tok.json"]


def test_the_mode_of_an_existing_file_is_kept(tmp_path, guard):
    target = tmp_path / "tok.json"
    target.write_text("old")
    target.chmod(0o640)
    atomic_write_text(target, "new")
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


@pytest.mark.parametrize("failure", ["disk-full-second", "rename-fails-second"])
def test_a_pair_is_written_as_one(tmp_path, monkeypatch, guard, failure):
    """vocab.json + merges.txt (and .tiktoken + .json): both temp files first, then both renames;
    a failure at the second file (or its rename) leaves both old files."""
    first, second = tmp_path / "vocab.json", tmp_path / "merges.txt"
    atomic_write_files([(first, b"old vocab"), (second, b"old merges")])
    if failure == "disk-full-second":
        disk_full(monkeypatch, after=1)
    else:
        rename_fails(monkeypatch, guard, after=1)
    with pytest.raises(WriteError) as caught:
        atomic_write_files([(first, b"new vocab"), (second, b"new merges")])
    assert first.read_bytes() == b"old vocab" and second.read_bytes() == b"old merges"
    assert listing(tmp_path) == ["merges.txt", "vocab.json"]  # no temp file, no backup
    assert str(caught.value).endswith("; the old files are unchanged")


def test_a_pair_of_new_files_is_all_or_nothing(tmp_path, monkeypatch, guard):
    rename_fails(monkeypatch, guard, after=1)
    with pytest.raises(WriteError, match="nothing was written"):
        atomic_write_files([(tmp_path / "a", b"1"), (tmp_path / "b", b"2")])
    assert listing(tmp_path) == []


# -- through the engine's writers and the command line ----------------------------------------


def tokenizer() -> Tokenizer:
    trainer = Trainer("the cat in the hat sat on the mat " * 5, TrainConfig(max_merges=5))
    trainer.train()
    return trainer.tokenizer()


@pytest.mark.parametrize("fmt", ["native", "hf", "gpt2", "tiktoken"])
def test_every_export_keeps_the_old_files_when_the_disk_fills(tmp_path, monkeypatch, guard, fmt):
    tok = tokenizer()
    target = tmp_path / {"gpt2": "pair", "tiktoken": "t.tiktoken"}.get(fmt, "t.json")
    export_tokenizer(tok, fmt, target)
    before = {p: p.read_bytes() for p in written_paths(fmt, target)}
    smaller = Trainer("the cat in the hat", TrainConfig(max_merges=1))
    smaller.train()
    disk_full(monkeypatch, after=len(before) - 1)  # the last file of the set fails
    with pytest.raises(WriteError):
        export_tokenizer(smaller.tokenizer(), fmt, target)
    assert {p: p.read_bytes() for p in before} == before
    leftovers = [p.name for p in tmp_path.rglob("*") if p.name.startswith(".")]
    assert leftovers == []


@pytest.mark.parametrize("command", ["train", "export-hf", "export-tiktoken"])
def test_the_command_line_says_so_in_one_line(tmp_path, monkeypatch, guard, command):
    corpus = tmp_path / "c.txt"
    corpus.write_text("the cat in the hat sat on the mat\n" * 5, encoding="utf-8")
    tok = tmp_path / "tok.json"
    assert main(["train", str(corpus), "-o", str(tok), "--merges", "3"], out=io.StringIO(), err=io.StringIO()) == 0
    if command == "train":
        target, argv = tok, ["train", str(corpus), "-o", str(tok), "--merges", "5"]
    else:
        fmt = command.split("-")[1]
        target = tmp_path / ("t.tiktoken" if fmt == "tiktoken" else "t.json")
        argv = ["export", "-t", str(tok), "--format", fmt, "-o", str(target)]
        assert main(argv, out=io.StringIO(), err=io.StringIO()) == 0
    before = {p: p.read_bytes() for p in tmp_path.iterdir()}
    disk_full(monkeypatch)
    err = io.StringIO()
    assert main(argv, out=io.StringIO(), err=err) == 2
    after = "the old files are unchanged" if command == "export-tiktoken" else "the old file is unchanged"
    assert err.getvalue() == f"bpe-lab: error: {target}: cannot write (No space left on device); {after}\n"
    assert {p: p.read_bytes() for p in tmp_path.iterdir()} == before
