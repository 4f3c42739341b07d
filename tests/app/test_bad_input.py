"""Every row of docs/bad-input.md is a test: the command it shows, run on the input it names,
exits as documented and prints exactly the documented line (errors: that line alone, on stderr).

The table is the single source: each row's id picks a SETUP below (the files it needs, and the
simulation for what a test cannot do for real: a full disk, permissions as root, a file that
grows while read); a row without a setup, or a setup without a row, fails
``test_the_table_and_the_setups_agree``.
"""

from __future__ import annotations

import base64
import codecs
import errno
import io
import json
import os
import re
import shlex
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import ROOT

import engine.corpus
import tui.cli.commands as cli
import tui.cli.common as common
from engine import Tokenizer, TrainConfig, Trainer
from engine.bytelevel import token_to_unicode
from engine.formats import export_tokenizer, load_any
from engine.tokenizer import load_tokenizer
from tui.app.launch import launch

from bad_input_tables import SETUP_TABLES, VERIFY_TABLES

DOC = ROOT / "docs" / "bad-input.md"


@dataclass(frozen=True)
class Row:
    id: str
    what: str
    argv: list[str]
    exit: int
    message: str  # the exact line; "—" when nothing but the usual summary is printed
    error: str  # the class of the exception behind an error line; "—" for exit 0


def _cells(line: str) -> list[str]:
    cells = re.split(r"(?<!\\)\|", line.strip())[1:-1]
    return [c.strip().replace("\\|", "|") for c in cells]


def _code(cell: str) -> str:
    if cell == "—":
        return cell
    assert cell.startswith("`") and cell.endswith("`"), cell
    return cell[1:-1]


def table() -> list[Row]:
    rows = []
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if not line.startswith("| `"):
            continue
        key, what, command, code, message, error = _cells(line)
        argv = shlex.split(_code(command))
        assert argv[0] == "bpe-lab", line
        rows.append(Row(_code(key), what, argv[1:], int(code), _code(message), _code(error)))
    return rows


ROWS = table()


# -- inputs -----------------------------------------------------------------------------------

CORPUS = "the cat in the hat sat on the mat\nthe cat ate the rat\n"


def corpus(tmp: Path, name: str = "c.txt", data: bytes | str = CORPUS) -> Path:
    path = tmp / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


def native(tmp: Path, name: str = "tok.json", **fields) -> Path:
    data = {"format": "bpe-lab", "version": 1, "base": "bytes", "merges": [[116, 104], [256, 101]], **fields}
    path = tmp / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def trained_tok(tmp: Path) -> Path:
    """tok.json: two merges on the corpus (vocabulary 258)."""
    trainer = Trainer(CORPUS, TrainConfig(max_merges=2))
    trainer.train()
    trainer.tokenizer().save(tmp / "tok.json")
    return tmp / "tok.json"


HF_CHARS = {"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "c": 2, "ab": 3, "abc": 4}, "merges": ["a b", "ab c"]}}
BYTES = {token_to_unicode(bytes([b])): b for b in range(256)}


def hf(tmp: Path, name: str = "tokenizer.json", **model) -> Path:
    data = json.loads(json.dumps(HF_CHARS))
    data["model"].update(model)
    path = tmp / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def seed001(tmp: Path, vocab: list, merges: list, name: str = "seed.json") -> Path:
    path = tmp / name
    path.write_text(json.dumps({"vocab": vocab, "merges": merges}), encoding="utf-8")
    return path


def gpt2_pair(tmp: Path, merges: list[str], extra: dict[str, int] | None = None, folder: str = "pair") -> Path:
    where = tmp / folder
    where.mkdir()
    vocab = dict(BYTES)
    for line in merges:
        a, b = line.split(" ")
        vocab.setdefault(a + b, len(vocab))
    vocab.update(extra or {})
    (where / "vocab.json").write_text(json.dumps(vocab), encoding="utf-8")
    (where / "merges.txt").write_text("#version: 0.2\n" + "".join(m + "\n" for m in merges), encoding="utf-8")
    return where


def ranks(tmp: Path, lines: list[str], sidecar: dict | None = None, name: str = "t.tiktoken") -> Path:
    path = tmp / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    side = {"name": "t", "pat_str": r"[\s\S]+", "special_tokens": {}} if sidecar is None else sidecar
    (tmp / (name + ".json")).write_text(json.dumps(side), encoding="utf-8")
    return path


#: A SentencePiece ModelProto in small: one piece (field 1), a trainer spec (field 2) of model_type 2 (BPE).
#: The piece is "a" with score -1.0 (field 2, a float: bytes that are not UTF-8, as in every real model).
SPM_BPE = b"\x0a\x08\x0a\x01a\x15\x00\x00\x80\xbf\x12\x02\x18\x02"
#: The same with no model_type (field 3 of the trainer spec): sentencepiece's default, Unigram.
SPM_UNIGRAM = b"\x0a\x08\x0a\x01a\x15\x00\x00\x80\xbf\x12\x00"


def with_normalizer(tmp: Path) -> None:
    """tokenizer.json: tok.json's tokenizer as hf, with an NFKC normalizer."""
    export_tokenizer(load_tokenizer(trained_tok(tmp)), "hf", tmp / "tokenizer.json")
    data = json.loads((tmp / "tokenizer.json").read_text(encoding="utf-8"))
    data["normalizer"] = {"type": "NFKC"}
    (tmp / "tokenizer.json").write_text(json.dumps(data), encoding="utf-8")


def word_ends(tmp: Path) -> None:
    """tok.json: a tokenizer trained with the end-of-word suffix </w>."""
    trainer = Trainer("low lower lowest newest", TrainConfig(max_merges=4, end_of_word="</w>"))
    list(trainer.run())
    trainer.tokenizer().save(tmp / "tok.json")


def b64(token: bytes) -> str:
    return base64.b64encode(token).decode("ascii")


BYTE_RANKS = [f"{b64(bytes([b]))} {b}" for b in range(256)]


# -- simulations ------------------------------------------------------------------------------


def deny_reading(monkeypatch, name: str) -> None:
    """Permission denied on one file (tests run as root, which reads anything)."""
    real_open = Path.open

    def guarded(self, *args, **kwargs):
        if self.name == name:
            raise PermissionError(errno.EACCES, "Permission denied", str(self))
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", guarded)
    real_os_open = os.open

    def os_open(path, flags, *args, **kwargs):  # the bounded reader opens with os.open
        if Path(os.fspath(path)).name == name and not flags & (os.O_WRONLY | os.O_RDWR):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real_os_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", os_open)


def grow_while_read(monkeypatch, path: Path) -> None:
    """Another program appends to the corpus while bpe-lab counts it."""
    real = engine.corpus._count_range

    def counting(p, *args):
        result = real(p, *args)
        with open(path, "ab") as handle:
            handle.write(b"more text arrives\n")
        return result

    monkeypatch.setattr(engine.corpus, "_count_range", counting)


def fail_writes(monkeypatch, code: int, message: str, *, after: int = 0) -> None:
    """The disk fills (or the folder refuses) while a file is written: the ``after``-th sync on."""
    calls = {"n": 0}
    real_fsync = os.fsync

    def fsync(fd):
        calls["n"] += 1
        if calls["n"] > after:
            raise OSError(code, message)
        return real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)


def refuse_temp_files(monkeypatch) -> None:
    """Permission denied on the output folder (root writes anywhere, so mkstemp is refused)."""

    def mkstemp(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)


# -- the setup of every row -------------------------------------------------------------------

Setup = Callable[[Path, pytest.MonkeyPatch], None]


def _long_line(tmp: Path) -> None:
    words = CORPUS.replace("\n", " ").encode("ascii")
    size = 50 << 20
    (tmp / "line.txt").write_bytes((words * (size // len(words) + 1))[:size])


def _truncated_merges(tmp: Path) -> None:
    merges = [("a" * k) + " a" for k in range(1, 1201)]
    where = gpt2_pair(tmp, merges)
    lines = (where / "merges.txt").read_text(encoding="utf-8").splitlines(keepends=True)
    (where / "merges.txt").write_text("".join(lines[:101]), encoding="utf-8")


SETUP: dict[str, Setup] = {
    # corpora
    "corpus-missing": lambda tmp, mp: None,
    "corpus-directory": lambda tmp, mp: (tmp / "folder").mkdir(),
    "corpus-unreadable": lambda tmp, mp: (corpus(tmp, "secret.txt"), deny_reading(mp, "secret.txt")),
    "corpus-empty": lambda tmp, mp: corpus(tmp, "empty.txt", b""),
    "corpus-whitespace": lambda tmp, mp: corpus(tmp, "blank.txt", " \t\n\r\n  \n" * 50),
    "corpus-invalid-utf8": lambda tmp, mp: corpus(tmp, "latin1.txt", "Grüße aus Köln, schöne Grüße\n".encode("latin-1") * 10),
    "corpus-invalid-utf8-chars": lambda tmp, mp: corpus(tmp, "latin1.txt", "Grüße aus Köln, schöne Grüße\n".encode("latin-1") * 10),
    "corpus-nul": lambda tmp, mp: corpus(tmp, "padded.txt", b"record one\x00\x00\x00\x00record two\x00\x00\x00\x00" * 25),
    "corpus-binary": lambda tmp, mp: corpus(tmp, "image.bin", bytes(range(256)) * 4),
    "corpus-long-line": lambda tmp, mp: _long_line(tmp),
    "corpus-line-endings": lambda tmp, mp: corpus(tmp, "mixed.txt", b"unix line\nwindows line\r\nold mac line\rmixed\r\n\n\r\r\n" * 20),
    "corpus-changing": lambda tmp, mp: grow_while_read(mp, corpus(tmp, "growing.txt")),
    "corpus-nothing-matches": lambda tmp, mp: corpus(tmp),
    # options
    "vocab-below-base": lambda tmp, mp: corpus(tmp),
    "vocab-zero": lambda tmp, mp: corpus(tmp),
    "vocab-huge": lambda tmp, mp: corpus(tmp),
    "vocab-not-a-number": lambda tmp, mp: corpus(tmp),
    "merges-negative": lambda tmp, mp: corpus(tmp),
    "merges-zero": lambda tmp, mp: corpus(tmp),
    "merges-huge": lambda tmp, mp: corpus(tmp),
    "min-frequency-zero": lambda tmp, mp: corpus(tmp),
    "pattern-invalid": lambda tmp, mp: corpus(tmp),
    "pattern-slow": lambda tmp, mp: corpus(tmp, "as.txt", "a" * 5000 + "!"),
    "pattern-and-name": lambda tmp, mp: corpus(tmp),
    "force-merge-absent": lambda tmp, mp: corpus(tmp),
    "force-merge-rare": lambda tmp, mp: corpus(tmp),
    "force-merge-no-token": lambda tmp, mp: corpus(tmp),
    "force-merge-unparsable": lambda tmp, mp: corpus(tmp),
    "force-merge-past-limit": lambda tmp, mp: corpus(tmp),
    "merges-prefix-missing": lambda tmp, mp: corpus(tmp),
    "merges-prefix-absent": lambda tmp, mp: (corpus(tmp), native(tmp, "p.json", merges=[[120, 121]])),
    "end-of-word-empty": lambda tmp, mp: corpus(tmp),
    "end-of-word-hf-rule": lambda tmp, mp: corpus(tmp),
    "special-empty": lambda tmp, mp: corpus(tmp),
    "special-twice": lambda tmp, mp: corpus(tmp),
    "special-base-token": lambda tmp, mp: corpus(tmp),
    "special-learned": lambda tmp, mp: corpus(tmp),
    "heldout-fraction": lambda tmp, mp: corpus(tmp),
    # tokenizer files: reading
    "tok-missing": lambda tmp, mp: None,
    "tok-directory": lambda tmp, mp: (tmp / "folder").mkdir(),
    "tok-unreadable": lambda tmp, mp: (native(tmp), deny_reading(mp, "tok.json")),
    "tok-binary": lambda tmp, mp: corpus(tmp, "model.bin", bytes(range(256))),
    "tok-unknown": lambda tmp, mp: corpus(tmp, "notes.txt", "my tokenizer notes\n"),
    "tok-1gb": lambda tmp, mp: os.truncate(corpus(tmp, "huge.json", b"{"), 1 << 30),
    "tok-invalid-json": lambda tmp, mp: corpus(tmp, "tok.json", '{"format": "bpe-lab", "version": 1,\n "merges": [[116, 104] [256, 101]]}'),
    "tok-truncated-json": lambda tmp, mp: corpus(tmp, "tokenizer.json", json.dumps(HF_CHARS)[:40]),
    "tok-nested": lambda tmp, mp: corpus(tmp, "tok.json", "[" * 100_000),
    "tok-long-number": lambda tmp, mp: corpus(tmp, "tok.json", '{"format": "bpe-lab", "version": ' + "9" * 5000 + "}"),
    "native-wrong-type": lambda tmp, mp: native(tmp, merges="th e"),
    "native-later-id": lambda tmp, mp: native(tmp, merges=[[257, 101], [116, 104]]),
    "native-self": lambda tmp, mp: native(tmp, merges=[[116, 256]]),
    "native-duplicate": lambda tmp, mp: native(tmp, merges=[[116, 104], [116, 104]]),
    "native-out-of-range": lambda tmp, mp: native(tmp, merges=[[116, 10**30]]),
    "native-special-id": lambda tmp, mp: native(tmp, specials=[{"token": "<eos>", "id": 7}]),
    "hf-wrong-type": lambda tmp, mp: hf(tmp, vocab=[["a", 0]]),
    "hf-huge-id": lambda tmp, mp: hf(tmp, vocab={"a": 0, "b": 1, "c": 2, "ab": 3, "abc": 2**40}),
    "hf-later": lambda tmp, mp: hf(tmp, merges=["ab c", "a b"]),
    "hf-duplicate": lambda tmp, mp: hf(tmp, merges=["a b", "a b"]),
    "hf-contradiction": lambda tmp, mp: hf(tmp, merges=["a b", "b c"]),
    "hf-wordpiece": lambda tmp, mp: corpus(tmp, "tokenizer.json", json.dumps({"model": {"type": "WordPiece", "vocab": {"a": 0}}})),
    "hf-unigram": lambda tmp, mp: corpus(tmp, "tokenizer.json", json.dumps({"model": {"type": "Unigram", "vocab": [["a", -1.0]]}})),
    "hf-byte-fallback": lambda tmp, mp: hf(tmp, byte_fallback=True),
    "hf-prefix": lambda tmp, mp: hf(tmp, continuing_subword_prefix="##"),
    "codes-version": lambda tmp, mp: (tmp / "codes.txt").write_text("#version: 0.1\nl o\nlo w</w>\n", encoding="utf-8"),
    "hf-normalizer-export": lambda tmp, mp: with_normalizer(tmp),
    "end-of-word-export": lambda tmp, mp: word_ends(tmp),
    "spm-bpe-model": lambda tmp, mp: corpus(tmp, "tokenizer.model", SPM_BPE),
    "spm-unigram-model": lambda tmp, mp: corpus(tmp, "tokenizer.model", SPM_UNIGRAM),
    "gpt2-added-clash": lambda tmp, mp: (gpt2_pair(tmp, ["a b"]), (tmp / "pair" / "added_tokens.json").write_text('{"<x>": 97}')),
    "seed001-wrong-type": lambda tmp, mp: seed001(tmp, ["\ufffd", "a", 7], []),
    "seed001-out-of-range": lambda tmp, mp: seed001(tmp, ["\ufffd", "a", "b", "ab"], [[[1, 9], 3]]),
    "seed001-later": lambda tmp, mp: seed001(tmp, ["\ufffd", "a", "b", "aab", "ab"], [[[1, 4], 3], [[1, 2], 4]]),
    "seed001-self": lambda tmp, mp: seed001(tmp, ["\ufffd", "a", "b", "ab"], [[[1, 3], 3]]),
    "seed001-duplicate": lambda tmp, mp: seed001(tmp, ["\ufffd", "a", "b", "ab", "ab"], [[[1, 2], 3], [[1, 2], 4]]),
    "seed001-contradiction": lambda tmp, mp: seed001(tmp, ["\ufffd", "a", "b", "ba"], [[[1, 2], 3]]),
    "gpt2-wrong-type": lambda tmp, mp: (gpt2_pair(tmp, ["a b"]), (tmp / "pair" / "vocab.json").write_text("[1, 2]")),
    "gpt2-missing-half": lambda tmp, mp: (gpt2_pair(tmp, ["a b"]), (tmp / "pair" / "merges.txt").unlink()),
    "gpt2-duplicate": lambda tmp, mp: gpt2_pair(tmp, ["a b", "a b"]),
    "gpt2-contradiction": lambda tmp, mp: (gpt2_pair(tmp, ["a b"]), (tmp / "pair" / "merges.txt").write_text("#version: 0.2\na b\nb c\n")),
    "gpt2-truncated-line": lambda tmp, mp: (gpt2_pair(tmp, ["a b", "ab c"]), (tmp / "pair" / "merges.txt").write_text("#version: 0.2\na b\nab")),
    "gpt2-truncated-file": lambda tmp, mp: _truncated_merges(tmp),
    "tiktoken-wrong-type": lambda tmp, mp: ranks(tmp, BYTE_RANKS, {"pat_str": "x", "special_tokens": ["<eos>"]}),
    "tiktoken-duplicate": lambda tmp, mp: ranks(tmp, BYTE_RANKS + [f"{b64(b'ab')} 256", f"{b64(b'ab')} 257"]),
    "tiktoken-huge-rank": lambda tmp, mp: ranks(tmp, BYTE_RANKS + [f"{b64(b'ab')} {10**30}"]),
    "tiktoken-truncated": lambda tmp, mp: corpus(tmp, "t.tiktoken", "\n".join(BYTE_RANKS)[:-4]),
    "tiktoken-no-pattern": lambda tmp, mp: corpus(tmp, "t.tiktoken", "\n".join(BYTE_RANKS) + "\n"),
    # ids
    "decode-out-of-range": lambda tmp, mp: trained_tok(tmp),
    "decode-enormous": lambda tmp, mp: trained_tok(tmp),
    "decode-not-an-id": lambda tmp, mp: trained_tok(tmp),
    # writing
    "write-missing-folder": lambda tmp, mp: corpus(tmp),
    "write-directory": lambda tmp, mp: (corpus(tmp), (tmp / "folder").mkdir()),
    "write-device": lambda tmp, mp: corpus(tmp),
    "write-disk-full": lambda tmp, mp: (corpus(tmp), (tmp / "tok.json").write_text("old"),
                                        fail_writes(mp, errno.ENOSPC, "No space left on device")),
    "write-permission": lambda tmp, mp: (corpus(tmp), (tmp / "tok.json").write_text("old"), refuse_temp_files(mp)),
    "export-pair-disk-full": lambda tmp, mp: (trained_tok(tmp), export_tokenizer(load_tokenizer(tmp / "tok.json"), "gpt2", tmp / "pair"),
                                              fail_writes(mp, errno.ENOSPC, "No space left on device", after=1)),
    "export-cannot-hold": lambda tmp, mp: Tokenizer([], base="chars", alphabet=["\ufffd", "a"]).save(tmp / "chars.json"),
}


# -- round 2 (issue 11): one dict per area, so the areas are worked on apart -------------------

def _chain(tmp: Path, n: int = 100_000) -> Path:
    """chain.json: merges a+a, then (the last token)+a, n in all: small, but its tokens would
    hold n²/2 bytes."""
    merges = [[97, 97]] + [[255 + k, 97] for k in range(1, n)]
    return native(tmp, "chain.json", merges=merges, pretokenizer={"name": "none"})


def _chain_corpus(tmp: Path) -> Path:
    """20,000 distinct characters, twice: as one chunk with ties to the pair seen first, each
    merge joins the next character to the token before (a prefix of 2, 3, 4 ... characters)."""
    run = "".join(chr(0x4E00 + i) for i in range(20_000))
    return corpus(tmp, "chain.txt", run + run)


def _specials(tmp: Path, n: int) -> Path:
    """specials.json: no merges, n special tokens <s0>, <s1>, ..."""
    return native(tmp, "specials.json", merges=[], specials=[{"token": f"<s{k}>", "id": 256 + k} for k in range(n)])


def _hf_split(tmp: Path, regex: str) -> Path:
    data = json.loads(json.dumps(HF_CHARS))
    data["pre_tokenizer"] = {"type": "Split", "pattern": {"Regex": regex}, "behavior": "Isolated", "invert": False}
    path = tmp / "tokenizer.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


#: Patterns that compile to gigabytes, tokenizers whose vocabulary needs quadratic memory.
SETUP_BOUNDS: dict[str, Setup] = {
    "pattern-huge-repeat": lambda tmp, mp: corpus(tmp),
    "pattern-nested-repeats": lambda tmp, mp: corpus(tmp),
    "pattern-long": lambda tmp, mp: native(tmp, pretokenizer={"name": "custom", "pattern": ("[A-Za-z]+ " * 104858)[: 1 << 20]}),
    "pattern-in-native-file": lambda tmp, mp: native(tmp, pretokenizer={"name": "custom", "pattern": "(?:ab){99999999}"}),
    "pattern-in-hf-split": lambda tmp, mp: _hf_split(tmp, "(?:[a-z]{1,1000} ?){1000}"),
    "pattern-in-tiktoken": lambda tmp, mp: ranks(tmp, BYTE_RANKS, {"name": "t", "pat_str": "[a-z]{1000000}", "special_tokens": {}}),
    "tok-chained-merges": lambda tmp, mp: _chain(tmp),
    "train-chained-merges": lambda tmp, mp: _chain_corpus(tmp),
    "tiktoken-vocab-bytes": lambda tmp, mp: ranks(tmp, BYTE_RANKS + [f"{b64(bytes([65 + k]) * 1_000_000)} {256 + k}" for k in range(17)]),
    "tiktoken-long-token": lambda tmp, mp: ranks(tmp, BYTE_RANKS + [f"{b64(b'ab' * (1 << 19) + b'c')} 256"]),
    "tok-many-specials": lambda tmp, mp: _specials(tmp, 200_000),
    "tok-too-many-specials": lambda tmp, mp: _specials(tmp, 1 << 20),
}


def fifo_corpus(tmp: Path, name: str = "fifo", data: str = CORPUS) -> None:
    """A named pipe that a writer thread fills once a reader opens it (a daemon: should the
    command never open it, the thread waits there harmlessly)."""
    os.mkfifo(tmp / name)

    def write() -> None:
        with open(tmp / name, "wb") as handle:
            handle.write(data.encode("utf-8"))

    threading.Thread(target=write, daemon=True).start()


def stdin_pipe(monkeypatch, data: str) -> None:
    """Standard input is a real pipe holding ``data`` (less than a pipe's buffer: written at once)."""
    read_end, write_end = os.pipe()
    os.write(write_end, data.encode("utf-8"))
    os.close(write_end)
    monkeypatch.setattr(sys, "stdin", open(read_end, encoding="utf-8"))


def stream_session(tmp: Path) -> None:
    """s.json: a session, written as the app writes one, whose corpus is /dev/zero."""
    session = {"format": "bpe-lab session", "version": 1,
               "corpus": {"source": "/dev/zero", "sha256": "0" * 64, "size": 1000},
               "config": TrainConfig().to_dict(), "merges": [], "step": 0, "selected": None, "replay": None}
    (tmp / "s.json").write_text(json.dumps(session), encoding="utf-8")


def read_only(tmp: Path, name: str = "tok.json") -> None:
    (tmp / name).write_text("old")
    (tmp / name).chmod(0o444)


#: Streams and devices as corpora, outputs that name an input, output paths, the app launcher.
SETUP_STREAMS: dict[str, Setup] = {
    "stream-endless": lambda tmp, mp: None,
    "stream-endless-bound": lambda tmp, mp: None,
    "stream-endless-whole": lambda tmp, mp: None,
    "stream-endless-compare": lambda tmp, mp: None,
    "corpus-above-bound": lambda tmp, mp: corpus(tmp),
    "max-corpus-bytes-invalid": lambda tmp, mp: corpus(tmp),
    "stream-fifo": lambda tmp, mp: fifo_corpus(tmp),
    "stream-stdin": lambda tmp, mp: stdin_pipe(mp, CORPUS),
    "stream-stdin-whole": lambda tmp, mp: stdin_pipe(mp, CORPUS),
    "stream-stdin-bound": lambda tmp, mp: stdin_pipe(mp, CORPUS),
    "stream-stdin-empty": lambda tmp, mp: stdin_pipe(mp, ""),
    "output-is-corpus": lambda tmp, mp: corpus(tmp),
    "output-hard-link": lambda tmp, mp: os.link(corpus(tmp), tmp / "link.txt"),
    "output-symlink": lambda tmp, mp: (corpus(tmp), (tmp / "alias.txt").symlink_to("c.txt")),
    "output-is-stdin": lambda tmp, mp: mp.setattr(sys, "stdin", open(corpus(tmp), encoding="utf-8")),
    "export-onto-tokenizer": lambda tmp, mp: trained_tok(tmp),
    "export-onto-sidecar": lambda tmp, mp: ranks(tmp, BYTE_RANKS),
    "export-onto-pair": lambda tmp, mp: gpt2_pair(tmp, ["a b"]),
    "export-new-folder-disk-full": lambda tmp, mp: (trained_tok(tmp), fail_writes(mp, errno.ENOSPC, "No space left on device")),
    "output-trailing-slash": lambda tmp, mp: corpus(tmp),
    "export-trailing-slash-file": lambda tmp, mp: trained_tok(tmp),
    "export-trailing-slash-folder": lambda tmp, mp: trained_tok(tmp),
    "output-read-only": lambda tmp, mp: (corpus(tmp), read_only(tmp)),
    "app-stdin": lambda tmp, mp: None,
    "app-stream": lambda tmp, mp: None,
    "app-corpus-too-large": lambda tmp, mp: os.truncate(corpus(tmp, "huge.txt", b""), 300 << 20),  # sparse: no disk used
    "app-session-stream": lambda tmp, mp: stream_session(tmp),
    "app-session-is-corpus": lambda tmp, mp: corpus(tmp),
    "app-lang-unknown": lambda tmp, mp: None,
    "app-session-is-tokenizer": lambda tmp, mp: (corpus(tmp), trained_tok(tmp)),
}


def session_file(tmp: Path, text: str | bytes | None = None, **changes) -> Path:
    """s.json: a session on c.txt (three merges, at step 2) with ``changes``, or ``text`` itself."""
    if text is None:
        corpus(tmp)
        from tui.model.session import fingerprint

        data = {"format": "bpe-lab session", "version": 1,
                "corpus": {"source": "c.txt", "sha256": fingerprint(CORPUS.encode("utf-8")), "size": len(CORPUS)},
                "config": TrainConfig(max_merges=3).to_dict(), "merges": [[116, 104], [256, 101], [32, 116]],
                "step": 2, "selected": None, "replay": None, **changes}
        text = json.dumps(data)
    path = tmp / "s.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


def edited_session(tmp: Path, old: str, new: str) -> Path:
    """s.json with one piece of its JSON text replaced (for values json.dumps cannot write)."""
    path = session_file(tmp)
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")
    return path


def stdin_of(monkeypatch, data: bytes | None = None, *, device: str | None = None) -> None:
    """What ``decode`` reads on standard input: ``data``, or a device such as /dev/zero."""
    stream = open(device, "rb") if device else io.BytesIO(data)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(stream))


#: Session files (--resume) and decode's input.
SETUP_SESSIONS: dict[str, Setup] = {
    "session-missing": lambda tmp, mp: corpus(tmp),
    "session-nested": lambda tmp, mp: session_file(tmp, "[" * 5000),
    "session-long-number": lambda tmp, mp: session_file(tmp, '{"step": ' + "9" * 10_000 + "}"),
    "session-too-many-values": lambda tmp, mp: session_file(tmp, "[" + "[]," * 7_000_000 + "[]]"),
    "session-1gb": lambda tmp, mp: os.truncate(session_file(tmp, "{"), 1 << 30),
    "session-fifo": lambda tmp, mp: os.mkfifo(tmp / "s.json"),
    "session-invalid-utf8": lambda tmp, mp: session_file(tmp, bytes(range(256))),
    "session-wrong-type": lambda tmp, mp: session_file(tmp, "[1, 2]"),
    "session-huge-step": lambda tmp, mp: edited_session(tmp, '"step": 2', '"step": 1e400'),
    "session-huge-size": lambda tmp, mp: edited_session(tmp, f'"size": {len(CORPUS)}', '"size": 1e400'),
    "session-huge-merge-id": lambda tmp, mp: edited_session(tmp, "[256, 101]", "[256, 1e400]"),
    "session-later-id": lambda tmp, mp: session_file(tmp, merges=[[116, 104], [256, 101], [32, 999]]),
    "session-branches-current": lambda tmp, mp: session_file(tmp, branches={"current": "x", "branches": [
        {"name": "main", "parent": None, "parts_at": 0, "at": 2, "merges": [[116, 104], [256, 101, 1], [32, 116]]}]}),
    "session-branches-parent": lambda tmp, mp: session_file(tmp, branches={"current": "main", "branches": [
        {"name": "main", "parent": None, "parts_at": 0, "at": 2, "merges": [[116, 104], [256, 101, 1], [32, 116]]},
        {"name": "b1", "parent": "b7", "parts_at": 1, "at": 2, "merges": [[104, 101, 1]]}]}),
    "session-corpus-wrong-type": lambda tmp, mp: session_file(tmp, corpus=["c.txt"]),
    "session-config": lambda tmp, mp: session_file(tmp, config={"split_digits": "yes"}),
    "session-replay": lambda tmp, mp: session_file(tmp, replay={"format": "bpe-lab", "version": 1, "base": "bytes", "merges": [[1]]}),
    "decode-nested": lambda tmp, mp: (trained_tok(tmp), stdin_of(mp, b"[" * 1000 + b"]" * 1000 + b"\n")),
    "decode-long-id": lambda tmp, mp: (trained_tok(tmp), stdin_of(mp, b"9" * 10_000 + b"\n")),
    "decode-long-id-argument": lambda tmp, mp: trained_tok(tmp),
    "decode-endless": lambda tmp, mp: (trained_tok(tmp), stdin_of(mp, device="/dev/zero")),
    "decode-float": lambda tmp, mp: trained_tok(tmp),
    "encode-endless": lambda tmp, mp: (trained_tok(tmp), stdin_of(mp, device="/dev/zero")),
}


def shell_quoting(monkeypatch) -> None:
    """What bash does with ``$'\\xff\\xfe'`` in a row's command (shlex leaves ``$\\xff\\xfe``):
    the bytes it spells reach Python as its argv does, decoded with surrogateescape."""
    real_main = cli.main

    def main(argv, **kwargs):
        argv = [os.fsdecode(codecs.escape_decode(a[1:].encode("ascii"))[0]) if a.startswith("$\\") else a for a in argv]
        return real_main(argv, **kwargs)

    monkeypatch.setattr(cli, "main", main)


def whisper_like(tmp: Path) -> Path:
    """A miniature of Whisper's multilingual.tiktoken: the bytes, some merges, and a last line
    ``= 259``, an empty token (tiktoken's loader takes it)."""
    merged = [b"ab", b"abc", b"th"]
    lines = BYTE_RANKS + [f"{b64(t)} {256 + k}" for k, t in enumerate(merged)] + ["= 259"]
    path = tmp / "multilingual.tiktoken"
    path.write_text("\n".join(lines) + "\n", encoding="ascii")
    return path


def hf_specials(tmp: Path, added: list[dict]) -> Path:
    data = json.loads(json.dumps(HF_CHARS))
    data["added_tokens"] = added
    path = tmp / "tokenizer.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def hf_own_order(tmp: Path) -> Path:
    """tokenizer.json numbered as tokenizers' trainer numbers it: specials, bytes, merges."""
    from engine.bytelevel import hf_byte_rank
    from engine.formats.hf import tokenizer_json

    tok = Tokenizer([(116, 104), (256, 101)], specials=["<pad>"])
    rank = hf_byte_rank()
    ids = [1 + rank[b] for b in range(256)] + [257, 258, 0]
    (tmp / "tokenizer.json").write_text(json.dumps(tokenizer_json(tok, ids)), encoding="utf-8")
    return tmp / "tokenizer.json"


#: Format detection by content, real files from other tools, specials.
SETUP_FORMATS: dict[str, Setup] = {
    "format-named-vocab-json": lambda tmp, mp: corpus(tmp),
    "format-named-merges-txt": lambda tmp, mp: corpus(tmp),
    "format-named-tiktoken-json": lambda tmp, mp: corpus(tmp),
    "format-hf-renamed": lambda tmp, mp: export_tokenizer(load_tokenizer(trained_tok(tmp)), "hf", tmp / "myvocab.json"),
    "format-tiktoken-empty-token": lambda tmp, mp: whisper_like(tmp),
    "format-special-surrogate-option": lambda tmp, mp: (corpus(tmp), shell_quoting(mp)),
    "format-special-surrogate-native": lambda tmp, mp: native(tmp, specials=[{"token": "\udcff", "id": 258}]),
    "format-special-surrogate-hf": lambda tmp, mp: hf_specials(tmp, [{"id": 5, "content": "<\udcff>"}]),
    "format-special-surrogate-gpt2": lambda tmp, mp: gpt2_pair(tmp, ["a b"], {"<\ud800>": 300}),
    "format-special-surrogate-tiktoken": lambda tmp, mp: ranks(tmp, BYTE_RANKS, {"pat_str": r"[\s\S]+", "special_tokens": {"<\udcff>": 256}}),
    "format-seed001-empty": lambda tmp, mp: seed001(tmp, [], []),
    "format-hf-empty": lambda tmp, mp: hf(tmp, vocab={}, merges=[]),
    "format-vocab-json-empty": lambda tmp, mp: (gpt2_pair(tmp, []), (tmp / "pair" / "vocab.json").write_text("{}")),
    "format-tiktoken-empty": lambda tmp, mp: corpus(tmp, "t.tiktoken", b""),
    "format-native-renumbered": lambda tmp, mp: hf_own_order(tmp),
}


def no_matplotlib(mp) -> None:
    """matplotlib cannot be imported, as without the plots extra (None in sys.modules blocks it)."""
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        mp.delitem(sys.modules, name)
    mp.setitem(sys.modules, "matplotlib", None)


CURVE_CSV = "merges,tokens,bytes_per_token,undone\n0,10,1.0,False\n1,8,1.25,False\n"

#: train --curve-out and --export, bpe-lab plot, the app's --theme.
SETUP_FIGURES: dict[str, Setup] = {
    "plot-not-a-table": lambda tmp, mp: native(tmp),
    "plot-bad-row": lambda tmp, mp: corpus(tmp, "curve.csv", "merges,tokens,bytes_per_token\n1,x,2.5\n"),
    "plot-bad-suffix": lambda tmp, mp: corpus(tmp, "curve.csv", CURVE_CSV),
    "plot-no-matplotlib": lambda tmp, mp: (corpus(tmp, "curve.csv", CURVE_CSV), no_matplotlib(mp)),
    "export-no-matplotlib": lambda tmp, mp: (corpus(tmp), no_matplotlib(mp)),
    "curve-out-suffix": lambda tmp, mp: corpus(tmp),
    "heldout-without-export": lambda tmp, mp: (corpus(tmp), corpus(tmp, "h.txt")),
    "theme-unknown": lambda tmp, mp: None,
}


def lesson(tmp: Path, *directives: str, name: str = "bad.md", front: str = '+++\ntitle = "t"\n+++\n') -> Path:
    """A lesson whose one step (its line 6 on) holds these directives."""
    return corpus(tmp, name, front + "## one\n```bpe\n" + "\n".join(directives) + "\n```\n")


# Issue 14: lesson files (docs/lessons.md).
SETUP_LESSONS: dict[str, Setup] = {
    "lesson-unknown-directive": lambda tmp, mp: lesson(tmp, "stepp 3"),
    "lesson-bad-step": lambda tmp, mp: lesson(tmp, "goto -1"),
    "lesson-missing-file": lambda tmp, mp: lesson(tmp, "open file=gone.txt"),
    "lesson-unknown-sample": lambda tmp, mp: lesson(tmp, "open sample=cats.txt"),
    "lesson-bad-claim": lambda tmp, mp: lesson(tmp, "expect tokens 6"),
    "lesson-front-matter": lambda tmp, mp: lesson(tmp, "step", front="+++\ntitle \"t\"\n+++\n"),
    "lesson-no-front-matter": lambda tmp, mp: corpus(tmp, "notes.md", "# Notes\n\n## one\n"),
    "lesson-missing": lambda tmp, mp: None,
    "lesson-unknown-name": lambda tmp, mp: None,
    "lesson-start-bad-file": lambda tmp, mp: lesson(tmp, "stepp 3"),
    "lesson-fine": lambda tmp, mp: lesson(tmp, "open sample=qa.txt", "step 2", "expect step == 2", name="fine.md"),
    # issue 21: bombs (run under a CPU-time and a memory limit: BOMB_ROWS), escapes, paths out
    "lesson-heading-blanks": lambda tmp, mp: corpus(tmp, "head.md", '+++\ntitle = "t"\n+++\n## a' + " " * 100_000
                                                     + "b\n```bpe\nopen sample=qa.txt\n```\n"),
    "lesson-long-quoted-word": lambda tmp, mp: lesson(tmp, "open sample=qa.txt", 'tokenize "' + "a" * 760_000 + '"',
                                                       name="quote.md"),
    "lesson-many-comments": lambda tmp, mp: lesson(tmp, "#1 " * 300_000, name="comments.md"),
    "lesson-too-large": lambda tmp, mp: corpus(tmp, "big.md", '+++\ntitle = "t"\n+++\n## one\n' + "x" * (2 << 20)),
    "lesson-device": lambda tmp, mp: None,
    "lesson-deep-front-matter": lambda tmp, mp: lesson(tmp, "step", front="+++\ntitle = " + "[" * 100_000 + "\n+++\n"),
    "lesson-deep-claim": lambda tmp, mp: lesson(tmp, 'expect encode "a" == ' + "[" * 100_000),
    "lesson-control-character": lambda tmp, mp: corpus(tmp, "bad.md", '+++\ntitle = "t"\n+++\n## one\n'
                                                        "copy \x1b]52;c;aGVsbG8=\x1b\\ this\n```bpe\nopen sample=qa.txt\n```\n"),
    "lesson-claim-long-number": lambda tmp, mp: lesson(tmp, "open sample=qa.txt", "expect vocab == " + "9" * 5000),
    "lesson-file-outside": lambda tmp, mp: lesson(tmp, "open file=/etc/passwd"),
    "lesson-replay-outside": lambda tmp, mp: (trained_tok(tmp), (tmp / "class").mkdir(),
                                              lesson(tmp / "class", "open sample=qa.txt", "replay ../tok.json")),
    "lesson-trusted": lambda tmp, mp: (trained_tok(tmp), (tmp / "class").mkdir(),
                                       lesson(tmp / "class", "open sample=qa.txt", "replay ../tok.json")),
}

#: Rows that are time or memory bombs: run in a subprocess (``python -m tui``) under RLIMIT_CPU and
#: RLIMIT_AS, so that a regression fails the row instead of hanging the run or the machine.
BOMB_ROWS = {"lesson-heading-blanks", "lesson-long-quoted-word", "lesson-many-comments", "lesson-too-large",
             "lesson-device", "lesson-deep-front-matter", "lesson-deep-claim"}
BOMB_CPU_SECONDS, BOMB_MEMORY = 30, 1 << 30


def run_limited(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``python -m tui ARGV`` under the bombs' limits (SIGXCPU past the CPU time)."""
    import resource

    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (BOMB_CPU_SECONDS, BOMB_CPU_SECONDS))
        resource.setrlimit(resource.RLIMIT_AS, (BOMB_MEMORY, BOMB_MEMORY))

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "tui", *argv], capture_output=True, text=True, cwd=cwd, env=env,
                          preexec_fn=limits, timeout=600, stdin=subprocess.DEVNULL)

#: Sockets a row's setup listens on (another server), closed by the row's check.
HELD: list[socket.socket] = []


def listening(port: int) -> None:
    """Another server on 127.0.0.1:``port`` while the row runs (if something else listens there
    already, the port is in use all the same)."""
    try:
        HELD.append(socket.create_server(("127.0.0.1", port)))
    except OSError:
        pass


def let_go(tmp: Path) -> None:
    while HELD:
        HELD.pop().close()


#: bpe-lab serve's options and the app options it checks before listening.
SETUP_SERVE: dict[str, Setup] = {
    "serve-no-extra": lambda tmp, mp: mp.setitem(sys.modules, "textual_serve", None),
    "serve-port-in-use": lambda tmp, mp: listening(8765),
    "serve-port-invalid": lambda tmp, mp: None,
    "serve-max-clients-zero": lambda tmp, mp: None,
    "serve-root-missing": lambda tmp, mp: None,
    "serve-root-file": lambda tmp, mp: corpus(tmp),
    "serve-corpus-outside": lambda tmp, mp: (tmp / "class").mkdir(),
    "serve-corpus-missing": lambda tmp, mp: (tmp / "class").mkdir(),
    "serve-resume": lambda tmp, mp: None,
    "serve-app-option": lambda tmp, mp: None,
    "serve-counts-outside": lambda tmp, mp: (tmp / "class").mkdir(),
    "serve-counts-missing": lambda tmp, mp: (tmp / "class").mkdir(),
}


def without_module(monkeypatch, name: str) -> None:
    """An optional extra not installed: importing ``name`` (or its submodules) fails."""
    import builtins

    real_import = builtins.__import__

    def guarded(module, *args, **kwargs):
        if module == name or module.startswith(name + "."):
            raise ImportError(f"No module named {module!r}")
        return real_import(module, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", guarded)


def table_file(tmp: Path, name: str = "c.parquet", pretokenizer: str = "gpt2", version: str | None = None) -> Path:
    from engine import count_inputs, write_counts
    from engine.pretokenize import PreTokenizer

    table = count_inputs([str(corpus(tmp))], PreTokenizer(pretokenizer), processes=1)
    if version is not None:
        table.version = version
    write_counts(table, tmp / name)
    return tmp / name


def refusing_server(monkeypatch) -> None:
    """Something listens on 127.0.0.1:47631 that is no Dask scheduler: it accepts and hangs up."""
    import socket

    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        server.bind(("127.0.0.1", 47631))
    except OSError:
        pytest.skip("port 47631 is taken")
    server.listen()

    def serve() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            conn.close()

    threading.Thread(target=serve, daemon=True).start()
    monkeypatch.setattr("engine._dask_count.CONNECT_SECONDS", 2)


def vanish_while_counting(monkeypatch, tmp: Path) -> None:
    """b.txt is deleted while a.txt is counted (another program cleans up the shard)."""
    import engine._blocks as blocks

    corpus(tmp, "a.txt")
    corpus(tmp, "b.txt")
    real = blocks.count_task

    def counting(task, *args):
        if task.path.endswith("a.txt") and (tmp / "b.txt").exists():
            (tmp / "b.txt").unlink()
        return real(task, *args)

    monkeypatch.setattr(blocks, "count_task", counting)


#: Chunk-count tables: counting, Parquet files, --counts, the Dask scheduler, the scale extra.
SETUP_COUNTS: dict[str, Setup] = {
    "counts-no-pyarrow": lambda tmp, mp: (corpus(tmp), without_module(mp, "pyarrow")),
    "counts-no-dask": lambda tmp, mp: (corpus(tmp), without_module(mp, "distributed")),
    "counts-no-zstandard": lambda tmp, mp: (corpus(tmp, "c.txt.zst", b"(\xb5/\xfd"), without_module(mp, "zstandard")),
    "counts-scheduler-unreachable": lambda tmp, mp: (corpus(tmp), mp.setattr("engine._dask_count.CONNECT_SECONDS", 2)),
    "counts-scheduler-refusing": lambda tmp, mp: (corpus(tmp), refusing_server(mp)),
    "counts-input-vanishes": lambda tmp, mp: vanish_while_counting(mp, tmp),
    "counts-glob-empty": lambda tmp, mp: None,
    "counts-table-missing": lambda tmp, mp: None,
    "counts-table-corrupt": lambda tmp, mp: corpus(tmp, "c.parquet", b"PAR1" + bytes(range(256)) * 4 + b"PAR1"),
    "counts-table-truncated": lambda tmp, mp: (tmp / "t.parquet").write_bytes(table_file(tmp).read_bytes()[:300]),
    "counts-table-foreign": lambda tmp, mp: __import__("pyarrow.parquet").parquet.write_table(
        __import__("pyarrow").table({"chunk": [b"a"], "count": [1]}), tmp / "c.parquet"),
    "counts-table-other-version": lambda tmp, mp: table_file(tmp, version="0.0.1"),
    "counts-table-other-pretokenizer": lambda tmp, mp: table_file(tmp),
    "counts-table-hf-rule": lambda tmp, mp: table_file(tmp),
    "counts-merge-different": lambda tmp, mp: (table_file(tmp, "a.parquet"), table_file(tmp, "b.parquet", "gpt4")),
    "counts-merge-word-file": lambda tmp, mp: (table_file(tmp, "a.parquet"), corpus(tmp, "dict.txt", "low 5\n")),
    "counts-not-a-table": lambda tmp, mp: corpus(tmp, "model.bin", bytes(range(256))),
    "counts-word-file-bad-line": lambda tmp, mp: corpus(tmp, "dict.txt", "low 5\nlower two\n"),
    "counts-pruned-away": lambda tmp, mp: table_file(tmp),
    "counts-prune-without-table": lambda tmp, mp: corpus(tmp),
    "counts-output-in-folder": lambda tmp, mp: ((tmp / "shards").mkdir(), corpus(tmp / "shards", "a.txt"),
                                                table_file(tmp / "shards", "all.parquet")),
}


#: Rows whose line needs an optional extra installed (the scale extra: a Parquet table is read or
#: written, or a Dask scheduler is reached): without it they skip, naming what is missing.
_TABLES = ("counts-no-dask", "counts-no-zstandard", "counts-input-vanishes", "counts-table-corrupt",
           "counts-table-truncated", "counts-table-foreign", "counts-table-other-version",
           "counts-table-other-pretokenizer", "counts-table-hf-rule", "counts-merge-different",
           "counts-merge-word-file", "counts-pruned-away", "counts-output-in-folder")
NEEDS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(_TABLES, ("pyarrow",)),
    **dict.fromkeys(("counts-scheduler-unreachable", "counts-scheduler-refusing"), ("pyarrow", "distributed")),
}


@pytest.fixture(autouse=True)
def _skip_without_the_extra_a_row_needs(request):
    params = getattr(request.node, "callspec", None)
    row = params.params.get("row") if params is not None else None
    for module in NEEDS.get(getattr(row, "id", None), ()):
        pytest.importorskip(module, reason=f"row {row.id} needs {module} (the scale extra: pip install -e '.[scale]')")


for _area in (SETUP_BOUNDS, SETUP_STREAMS, SETUP_SESSIONS, SETUP_FORMATS, SETUP_FIGURES, SETUP_LESSONS, SETUP_SERVE, SETUP_COUNTS,
              SETUP_TABLES):
    assert not set(_area) & set(SETUP), set(_area) & set(SETUP)
    SETUP.update(_area)


# -- checks beyond the message ----------------------------------------------------------------


def _round_trip(tmp: Path) -> None:
    """CRLF, CR and LF survive encode and decode exactly, through the command line."""
    text = (tmp / "mixed.txt").read_bytes().decode("utf-8")
    out = io.StringIO()
    assert cli.main(["encode", "-t", "tok.json", "--json", text], out=out, err=io.StringIO()) == 0
    ids = json.loads(out.getvalue())
    assert len(ids) < len(text)  # it learned something
    out = io.StringIO()
    assert cli.main(["decode", "-t", "tok.json", json.dumps(ids)], out=out, err=io.StringIO()) == 0
    assert out.getvalue() == text


def _old_file_kept(tmp: Path) -> None:
    assert (tmp / "tok.json").read_text() == "old"
    assert sorted(p.name for p in tmp.iterdir()) == ["c.txt", "tok.json"]  # no temp file left


def _old_pair_kept(tmp: Path) -> None:
    assert sorted(p.name for p in (tmp / "pair").iterdir()) == ["merges.txt", "vocab.json"]  # no temp file
    export_tokenizer(load_tokenizer(tmp / "tok.json"), "gpt2", tmp / "again")
    for name in ("vocab.json", "merges.txt"):  # as the setup's export wrote them
        assert (tmp / "pair" / name).read_bytes() == (tmp / "again" / name).read_bytes()


VERIFY: dict[str, Callable[[Path], None]] = {
    "corpus-line-endings": _round_trip,
    "merges-zero": lambda tmp: (load_tokenizer(tmp / "tok.json").merges == [] or pytest.fail("merges written")),
    "corpus-whitespace": lambda tmp: load_tokenizer(tmp / "tok.json").merges,
    "write-disk-full": _old_file_kept,
    "write-permission": _old_file_kept,
    "export-pair-disk-full": _old_pair_kept,
    "write-device": lambda tmp: Path("/dev/full").is_char_device() or pytest.fail("/dev/full was replaced"),
}


def _stopped_at_the_bound(tmp: Path) -> None:
    """Training stopped before 30,000 merges, at the bound, and bpe-lab reads what it wrote."""
    from engine.config import MAX_VOCAB_BYTES

    tok = load_tokenizer(tmp / "tok.json")
    held = sum(map(len, tok.pieces))
    assert 1000 < len(tok.merges) < 30_000
    assert MAX_VOCAB_BYTES - 3 * 20_000 < held <= MAX_VOCAB_BYTES  # one more merge would pass it
    assert tok.pieces[-1] == "".join(chr(0x4E00 + i) for i in range(len(tok.merges) + 1)).encode("utf-8")


def _specials_found(tmp: Path) -> None:
    out = io.StringIO()
    assert cli.main(["encode", "-t", "specials.json", "--json", "<s7>hi <s199999><s1999999>"], out=out, err=io.StringIO()) == 0
    assert json.loads(out.getvalue()) == [263, 104, 105, 32, 256 + 199_999, *b"<s1999999>"]  # no such special
    exported = load_any(tmp / "tokenizer.json")
    assert exported.encode("<s5>") == [256 + 5] and exported.tokenizer.vocab_size == 256 + 200_000


VERIFY_BOUNDS: dict[str, Callable[[Path], None]] = {
    "train-chained-merges": _stopped_at_the_bound,
    "tok-many-specials": _specials_found,
}


def _trained_on_the_corpus(pretokenizer: str) -> Callable[[Path], None]:
    """tok.json holds the merges that training on the same text from a file makes."""

    def check(tmp: Path) -> None:
        trainer = Trainer(CORPUS, TrainConfig(max_merges=5, pretokenizer=pretokenizer))
        trainer.train()
        assert load_tokenizer(tmp / "tok.json").merges == trainer.tokenizer().merges

    return check


def _corpus_kept(tmp: Path) -> None:
    assert (tmp / "c.txt").read_text(encoding="utf-8") == CORPUS
    assert not [p.name for p in tmp.iterdir() if p.name.startswith(".")]  # no temp file left


VERIFY_STREAMS: dict[str, Callable[[Path], None]] = {
    "stream-fifo": _trained_on_the_corpus("gpt2"),
    "stream-stdin": _trained_on_the_corpus("gpt2"),
    "stream-stdin-whole": _trained_on_the_corpus("none"),
    "output-is-corpus": _corpus_kept,
    "output-hard-link": _corpus_kept,
    "output-symlink": lambda tmp: (_corpus_kept(tmp), (tmp / "alias.txt").is_symlink() or pytest.fail("link replaced")),
    "output-is-stdin": _corpus_kept,
    "export-onto-tokenizer": lambda tmp: load_tokenizer(tmp / "tok.json").merges,
    "export-new-folder-disk-full": lambda tmp: not (tmp / "new").exists() or pytest.fail("an empty folder is left"),
    "output-trailing-slash": lambda tmp: sorted(p.name for p in tmp.iterdir()) == ["c.txt"] or pytest.fail("written"),
    "export-trailing-slash-file": lambda tmp: not (tmp / "newdir").exists() or pytest.fail("written"),
    "export-trailing-slash-folder": lambda tmp: load_any(tmp / "newdir").tokenizer.merges
                                                == load_tokenizer(tmp / "tok.json").merges or pytest.fail("not the same"),
    "output-read-only": lambda tmp: ((tmp / "tok.json").read_text() == "old" and (tmp / "tok.json").stat().st_mode & 0o777 == 0o444)
                                    or pytest.fail("the read-only file was replaced"),
    "app-session-is-corpus": _corpus_kept,
    "app-session-is-tokenizer": lambda tmp: load_tokenizer(tmp / "tok.json").merges,
}


VERIFY_SESSIONS: dict[str, Callable[[Path], None]] = {
}


def _encodes_as_trained(name: str) -> Callable[[Path], None]:
    """The file train wrote under a name of another format is read back as what it is (native)."""

    def verify(tmp: Path) -> None:
        out, err = io.StringIO(), io.StringIO()
        assert cli.main(["encode", "-t", name, "--json", "the cat sat"], out=out, err=err) == 0, err.getvalue()
        assert err.getvalue() == ""
        trainer = Trainer(CORPUS, TrainConfig(max_merges=10))
        trainer.train()
        assert json.loads(out.getvalue()) == trainer.tokenizer().encode("the cat sat")

    return verify


def _same_hf(tmp: Path) -> None:
    assert json.loads((tmp / "tokenizer.json").read_text("utf-8")) == json.loads((tmp / "myvocab.json").read_text("utf-8"))


def _empty_token_skipped(tmp: Path) -> None:
    vocab = json.loads((tmp / "tokenizer.json").read_text("utf-8"))["model"]["vocab"]
    assert len(vocab) == 259 and "" not in vocab and 259 not in vocab.values()


def _renumbered(tmp: Path) -> None:
    tok = load_tokenizer(tmp / "tok.json")
    assert tok.merges == [(116, 104), (256, 101)] and tok.specials == {"<pad>": 258}


VERIFY_FIGURES: dict[str, Callable[[Path], None]] = {
    "export-no-matplotlib": lambda tmp: sorted(p.name for p in (tmp / "out").iterdir()) == sorted(
        f"{n}.{s}" for n in ("curve", "composition", "merges") for s in ("csv", "json")) or pytest.fail("not the tables"),
    "plot-no-matplotlib": lambda tmp: not (tmp / "curve.svg").exists() or pytest.fail("a figure was written"),
}


VERIFY_FORMATS: dict[str, Callable[[Path], None]] = {
    "format-named-vocab-json": _encodes_as_trained("my_vocab.json"),
    "format-named-merges-txt": _encodes_as_trained("tok-merges.txt"),
    "format-named-tiktoken-json": _encodes_as_trained("x.tiktoken.json"),
    "format-hf-renamed": _same_hf,
    "format-tiktoken-empty-token": _empty_token_skipped,
    "format-special-surrogate-option": lambda tmp: not (tmp / "tok.json").exists() or pytest.fail("trained anyway"),
    "format-native-renumbered": _renumbered,
}


VERIFY_SERVE: dict[str, Callable[[Path], None]] = {
    "serve-port-in-use": let_go,
}


def read_counts_of(path: Path) -> None:
    """The table is still the one the setup wrote, whole."""
    from engine import read_counts

    assert read_counts(path).chunks


def _nothing_written(*names: str) -> Callable[[Path], None]:
    """No output, not even part of one (nor a temporary file beside it)."""

    def check(tmp: Path) -> None:
        for name in names:
            assert not (tmp / name).exists(), f"{name} was written"
        assert not [p.name for p in tmp.iterdir() if p.name.startswith(".")], "a temporary file is left"

    return check


VERIFY_COUNTS: dict[str, Callable[[Path], None]] = {
    key: _nothing_written("c.parquet" if key.startswith("counts-no") or "scheduler" in key or "vanish" in key or "glob" in key
                          else ("all.parquet" if "merge" in key else "tok.json"))
    for key in SETUP_COUNTS if key not in ("counts-table-corrupt", "counts-table-foreign")
}
VERIFY_COUNTS["counts-output-in-folder"] = lambda tmp: read_counts_of(tmp / "shards" / "all.parquet")
VERIFY_COUNTS["counts-table-corrupt"] = _nothing_written("tok.json")
VERIFY_COUNTS["counts-table-foreign"] = _nothing_written("tok.json")


for _area in (VERIFY_BOUNDS, VERIFY_STREAMS, VERIFY_SESSIONS, VERIFY_FORMATS, VERIFY_FIGURES, VERIFY_SERVE, VERIFY_COUNTS,
              VERIFY_TABLES):
    VERIFY.update(_area)


# -- the tests --------------------------------------------------------------------------------


@pytest.fixture
def sandbox(tmp_path, monkeypatch):
    """Work in the test's folder; and no rename may land outside it (a broken guard must not
    replace /dev/full or anything else of the machine's)."""
    monkeypatch.chdir(tmp_path)
    real_replace = os.replace

    def replace(src, dst, **kwargs):
        assert Path(os.path.realpath(dst)).is_relative_to(tmp_path.resolve()), f"a rename onto {dst}"
        return real_replace(src, dst, **kwargs)

    monkeypatch.setattr(os, "replace", replace)
    return tmp_path


def test_the_table_and_the_setups_agree():
    ids = [row.id for row in ROWS]
    assert len(ids) == len(set(ids)), "a row id is used twice"
    assert set(ids) == set(SETUP), f"rows without setup: {set(ids) - set(SETUP)}; setups without row: {set(SETUP) - set(ids)}"
    assert set(VERIFY) <= set(SETUP)
    assert SLOW_ROWS <= set(ids)


#: Rows whose value is in a long run (50 MB through the reader, 100,000 specials, a pattern's time
#: bound): the slow pass (``-m slow``) runs them.
SLOW_ROWS = {"corpus-long-line", "tok-many-specials", "tok-too-many-specials", "pattern-slow"}


def cpu_seconds() -> float:
    """Processor time of this process and the ones it waited for: what a command cost, which a
    loaded machine does not stretch as it does the wall clock (the 50 MB row, about 3 s of work,
    took 22 s on one core shared with other runs)."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


@pytest.mark.parametrize("row", [pytest.param(row, id=row.id, marks=[pytest.mark.slow] * (row.id in SLOW_ROWS)) for row in ROWS])
def test_documented_bad_input(row: Row, sandbox, monkeypatch):
    SETUP[row.id](sandbox, monkeypatch)
    if row.id in BOMB_ROWS:
        run = run_limited(row.argv, sandbox)
        assert run.returncode == row.exit, run.stderr[-2000:]
        if row.exit == 2:
            assert run.stderr == row.message + "\n" and run.stdout == ""
        else:
            assert [line for line in run.stderr.splitlines() if line.startswith("bpe-lab: note:")] == (
                [] if row.message == "—" else [row.message])
            assert run.stderr.splitlines()[-1].startswith("bpe-lab: ")
        return
    raised: list[BaseException | str] = []
    real_error = common.error
    monkeypatch.setattr(common, "error", lambda exc, err: raised.append(exc) or real_error(exc, err))
    out, err = io.StringIO(), io.StringIO()
    started = cpu_seconds()
    if row.argv[0] == "serve":  # bpe-lab serve: its rows must fail before it listens
        from tui.cli import serve

        monkeypatch.setattr(serve, "run_server", lambda *a: pytest.fail("the server started"))
        code = serve.main(row.argv[1:], out=out, err=err)
    elif row.argv[0] not in common.HEADLESS:  # the app's launcher: its rows must fail before the app starts
        monkeypatch.setattr("tui.app.BpeApp.run", lambda *a, **k: pytest.fail("the app started"))
        code = launch(row.argv, err=err)
    else:
        code = cli.main(row.argv, out=out, err=err)
    elapsed = cpu_seconds() - started
    monkeypatch.undo()  # the simulations end with the command
    monkeypatch.chdir(sandbox)
    printed = err.getvalue()
    assert code == row.exit, printed
    if row.exit == 2:
        assert printed == row.message + "\n"
        assert len(raised) == 1 and type(raised[0]).__name__ == row.error
        assert out.getvalue() == ""
    else:
        assert not raised and row.error == "—"
        notes = [line for line in printed.splitlines() if line.startswith("bpe-lab: note:")]
        assert notes == ([] if row.message == "—" else [row.message])
        assert printed.splitlines()[-1].startswith("bpe-lab: ")
    assert elapsed < 60, f"{row.id} took {elapsed:.1f} s of processor time"
    VERIFY.get(row.id, lambda tmp: None)(sandbox)


REAL_ENTRY = ["vocab-not-a-number", "corpus-missing", "tok-invalid-json", "pattern-invalid", "decode-not-an-id"]


@pytest.mark.parametrize("key", REAL_ENTRY)
def test_the_real_entry_point_prints_the_same_line(key, tmp_path, monkeypatch):
    """A few rows through ``python -m tui`` itself: no traceback, the documented line, exit 2."""
    row = next(r for r in ROWS if r.id == key)
    SETUP[key](tmp_path, monkeypatch)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    run = subprocess.run([sys.executable, "-m", "tui", *row.argv], capture_output=True, cwd=tmp_path, env=env, timeout=120)
    assert run.returncode == row.exit
    assert run.stderr.decode("utf-8") == row.message + "\n"


def test_the_readme_links_the_table():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "docs/bad-input.md" in readme


# -- the policies behind the table, from Python -----------------------------------------------


def test_every_engine_error_is_a_one_line_value_error():
    from engine import errors

    for name in ("CorpusError", "ConfigError", "PatternError", "PatternTimeoutError", "TokenizerFileError",
                 "FileTooLargeError", "ExportError", "TokenIdError", "WriteError"):
        assert issubclass(getattr(errors, name), errors.BpeLabError) and issubclass(getattr(errors, name), ValueError)
    assert issubclass(errors.WriteError, OSError)
    assert errors.one_line("a\nb\r\tc") == "a\\nb\\r\\tc"


@pytest.mark.slow
def test_slow_patterns_are_bounded_everywhere(monkeypatch):
    import engine.pretokenize as pre
    from engine.errors import PatternTimeoutError
    from engine.pretokenize import PreTokenizer

    assert PreTokenizer("custom", "(a+)+$").split("a" * 40 + "!") == []  # short runs are fine
    monkeypatch.setattr(pre, "PATTERN_SECONDS", 0.1)
    for pattern, text in (("(a+)+$", "a" * 5000 + "!"), ("(a|a)+$", "a" * 40 + "!")):  # cubic, exponential
        slow = PreTokenizer("custom", pattern)
        for run in (lambda: slow.split(text), lambda: list(slow.positioned(text)), lambda: slow.count(text),
                    lambda: Tokenizer([], pretokenizer=slow).encode(text)):
            started = cpu_seconds()
            with pytest.raises(PatternTimeoutError, match=rf"is too slow: no result after 0\.1 s on {len(text)} characters"):
                run()
            assert cpu_seconds() - started < 5  # stopped: the pattern alone would run for years


def test_specials_that_could_be_learned_are_refused_before_training():
    from engine.errors import ConfigError

    text = "the cat <eos> the hat <eos>"
    with pytest.raises(ConfigError, match="'the' occurs in the corpus inside a pre-tokenizer chunk"):
        Trainer(text, TrainConfig(specials=("the",)))
    with pytest.raises(ConfigError, match="'<eos>' occurs in the corpus"):
        Trainer(text, TrainConfig(pretokenizer="none", specials=("<eos>",)))
    with pytest.raises(ConfigError, match="a character of the corpus, already a base token"):
        Trainer(text, TrainConfig(base="chars", specials=("c",)))
    with pytest.raises(ConfigError, match="single byte, already base token 10"):
        Trainer(text, TrainConfig(specials=("\n",)))
    Trainer(text, TrainConfig(specials=("<eos>", "<pad>"))).train()  # gpt2 splits <eos>: fine
    # A replayed tokenizer's specials are its own: not checked against the corpus.
    tok = Tokenizer([(116, 104)], specials=["the"])
    Trainer.replaying(text, tok).train()


def test_a_merges_txt_missing_a_few_lines_gives_a_note(tmp_path):
    from engine.formats import load_any

    where = gpt2_pair(tmp_path, ["a b", "ab c", "x y"])
    (where / "merges.txt").write_text("#version: 0.2\na b\nx y\n", encoding="utf-8")  # "ab c" lost
    imported = load_any(where)
    assert any("look merged (first: 'abc')" in note and "truncated?" in note for note in imported.warnings)
    assert imported.tokenizer.specials == {"abc": 258} and imported.encode("abc") == [257]  # the file's id
