"""The headless command line: the contract scripts rely on, and bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from helpers import ROOT, SAMPLES


def bpe_lab(*args: str, stdin: str | bytes | None = None, cwd=None) -> subprocess.CompletedProcess:
    """Run the real entry point (``python -m tui``) in a subprocess."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    return subprocess.run(
        [sys.executable, "-m", "tui", *args], input=data, capture_output=True, cwd=cwd or ROOT, env=env, timeout=120
    )


@pytest.mark.slow
def test_seed000_through_the_cli(tmp_path):
    out = tmp_path / "tok.json"
    specials = [a for s in ("<pad>", "<bos>", "<eos>", "<user>", "<assistant>") for a in ("--special", s)]
    run = bpe_lab("train", str(SAMPLES / "die-katze.txt"), "-o", str(out), "--vocab-size", "270",
                  "--base", "bytes", "--pretokenizer", "simple", "--tie-break", "lowest-ids", *specials)
    assert run.returncode == 0, run.stderr
    assert b"wrote" in run.stderr and run.stdout == b""
    data = json.loads(out.read_text(encoding="utf-8"))
    assert len(data["merges"]) == 9 and all(len(p) == 2 for p in data["merges"])
    enc = bpe_lab("encode", "-t", str(out), "die katze", "--json")
    assert json.loads(enc.stdout) == [259, 264, 101]
    assert bpe_lab("encode", "-t", str(out), "die katze").stdout.decode().split() == ["259", "264", "101"]
    assert bpe_lab("encode", "-t", str(out), "--pieces", "die katze").stdout.decode().strip() == "die| katz|e"
    dec = bpe_lab("decode", "-t", str(out), "259", "264", "101")
    assert dec.stdout.decode("utf-8") == "die katze"
    dec = bpe_lab("decode", "-t", str(out), stdin="[259, 264, 101]")
    assert dec.stdout.decode("utf-8") == "die katze"


def test_seed001_chars_base_log(tmp_path):
    out = tmp_path / "tok.json"
    run = bpe_lab("train", str(SAMPLES / "low-lower-lowest.txt"), "-o", str(out), "--merges", "4",
                  "--base", "chars", "--pretokenizer", "none", "--tie-break", "first-seen", "--log")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.decode("utf-8").splitlines()
    assert len(lines) == 4
    assert "l + o" in lines[0] and "→ lo" in lines[0] and "13 tokens" in lines[0]
    assert "·low" in lines[2] and lines[3].rstrip().endswith("6 tokens")
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["alphabet"] == ["\ufffd", " ", "e", "l", "o", "r", "s", "t", "w"]
    assert [data["merges"][k] for k in range(4)] == [[3, 4], [9, 8], [1, 10], [11, 2]]


def test_encode_reads_stdin_and_keeps_crlf(tmp_path):
    out = tmp_path / "tok.json"
    bpe_lab("train", str(SAMPLES / "workshop.txt"), "-o", str(out), "--merges", "50")
    text = "line one\r\nline two\r\n"
    ids = json.loads(bpe_lab("encode", "-t", str(out), "--json", stdin=text).stdout)
    dec = bpe_lab("decode", "-t", str(out), stdin=json.dumps(ids))
    assert dec.stdout == text.encode("utf-8")


def test_merge_log_shows_partial_utf8_in_brackets(tmp_path):
    corpus = tmp_path / "zh.txt"
    corpus.write_text("不与世东不与世东。\n" * 20, encoding="utf-8")
    run = bpe_lab("train", str(corpus), "-o", str(tmp_path / "t.json"), "--pretokenizer", "none", "--merges", "3", "--log")
    first = run.stdout.decode("utf-8").splitlines()[0]
    assert "[e4] + [b8]" in first and "→ [e4 b8]" in first


@pytest.mark.parametrize(
    "args,fragment",
    [
        (["train", "{missing}", "-o", "{out}"], "no such file"),
        (["train", "{dir}", "-o", "{out}"], "is a directory"),
        (["train", "{empty}", "-o", "{out}"], "empty"),
        (["train", "{corpus}", "-o", "{out}", "--pattern", "(unclosed"], "invalid pattern"),
        (["train", "{corpus}", "-o", "{out}", "--vocab-size", "100"], "below the base"),
        (["train", "{corpus}", "-o", "{out}", "--merges", "-3"], "0 or more"),
        (["train", "{corpus}", "-o", "{dir}/no/such/dir/t.json"], "cannot write"),
        (["encode", "-t", "{missing}", "abc"], "no such file"),
        (["encode", "-t", "{corpus}", "abc"], "invalid JSON"),
        (["decode", "-t", "{tok}", "12", "x"], "not a token id"),
        (["decode", "-t", "{tok}", "99999"], "out of range"),
    ],
)
@pytest.mark.slow
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, fragment):
    paths = {
        "missing": tmp_path / "missing.txt",
        "dir": tmp_path,
        "empty": tmp_path / "empty.txt",
        "corpus": tmp_path / "c.txt",
        "out": tmp_path / "out.json",
        "tok": tmp_path / "tok.json",
    }
    paths["empty"].write_bytes(b"")
    paths["corpus"].write_text("abc abc", encoding="utf-8")
    bpe_lab("train", str(paths["corpus"]), "-o", str(paths["tok"]), "--merges", "1")
    run = bpe_lab(*[a.format(**{k: str(v) for k, v in paths.items()}) for a in args])
    err = run.stderr.decode("utf-8")
    assert run.returncode == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert fragment in err and err.startswith("bpe-lab: error:")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files regardless of permissions")
def test_unreadable_corpus(tmp_path):
    corpus = tmp_path / "secret.txt"
    corpus.write_text("abc", encoding="utf-8")
    corpus.chmod(0)
    run = bpe_lab("train", str(corpus), "-o", str(tmp_path / "t.json"))
    assert run.returncode == 2 and b"permission denied" in run.stderr


def test_unreadable_corpus_via_mocked_read(tmp_path, monkeypatch, capsys):
    """The permission path, exercised in-process (CI runs as root, where chmod 0 still reads)."""
    from pathlib import Path

    from tui.cli.commands import main

    corpus = tmp_path / "secret.txt"
    corpus.write_text("abc", encoding="utf-8")

    def deny(self):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "read_bytes", deny)
    monkeypatch.setattr(Path, "open", lambda self, *a, **k: deny(self))
    assert main(["train", str(corpus), "-o", str(tmp_path / "t.json")]) == 2
    err = capsys.readouterr().err
    assert err == f"bpe-lab: error: {corpus}: permission denied\n"


def test_invalid_utf8_policy_is_reported_once(tmp_path):
    corpus = tmp_path / "bin.txt"
    corpus.write_bytes(b"abc \xff\xfe abc abc \xff\xfe")
    out = tmp_path / "t.json"
    run = bpe_lab("train", str(corpus), "-o", str(out), "--merges", "5")
    assert run.returncode == 0
    assert run.stderr.count(b"not valid UTF-8") == 1 and b"raw bytes" in run.stderr
    run = bpe_lab("train", str(corpus), "-o", str(out), "--merges", "5", "--base", "chars")
    assert b"U+FFFD" in run.stderr
