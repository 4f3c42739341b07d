"""The inputs docs/bad-input.md's rows are run on (files written for a row) and the
simulations of what a test cannot do for real (a full disk, permissions as root, a file that
grows while read). tests/app/test_bad_input.py runs the rows."""

from __future__ import annotations

import base64
import errno
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

import engine.corpus.reading
from engine import TrainConfig, Trainer
from engine.encode.tokenizer import load_tokenizer
from engine.formats import export_tokenizer
from engine.text.bytelevel import token_to_unicode

#: A row's setup: the files it needs in the test's folder, and its simulations.
Setup = Callable[[Path, pytest.MonkeyPatch], None]


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
#: SPM_BPE with an nmt_nfkc normalizer spec whose table (field 2) is two bytes: no trie fits.
SPM_BAD_TABLE = SPM_BPE + b"\x1a\x0e\x0a\x08nmt_nfkc\x12\x02\x01\x00"
def looping_charsmap() -> bytes:
    """A precompiled charsmap whose trie goes from its root, by ``a``, back to its root: every
    walk from an ``a`` would read on for ever, and no key ever ends."""
    import struct

    units = [0] * 354
    units[0] = 256 << 10  # the root's children are at 256 ^ byte
    units[256 ^ 0x61] = (97 << 10) | 0x61  # 'a', whose children are at (353 ^ 97) = 256: the root again
    return struct.pack("<I", 4 * len(units)) + struct.pack(f"<{len(units)}I", *units) + b"\0"


def spm_with_table(table: bytes) -> bytes:
    """SPM_BPE with an nmt_nfkc normalizer spec holding ``table``."""
    from fetch_tokenizers import proto_field

    return SPM_BPE + proto_field(3, proto_field(1, b"nmt_nfkc") + proto_field(2, table))


#: SPM_BPE with its one piece scored NaN (the float 0x7fc00000).
SPM_NAN = SPM_BPE.replace(b"\x15\x00\x00\x80\xbf", b"\x15\x00\x00\xc0\x7f")


def piece_chain(n: int = 3000) -> bytes:
    """A SentencePiece BPE .model of ``a``, ``aa``, ... ``a`` x ``n`` (4.5 MB at 3,000): every
    split of every piece is a piece, so splitting them into merges costs about 5 us a character
    (2,000 of them: 2 million characters, 10 s)."""
    from helpers import spm_model_bytes

    return spm_model_bytes([("<unk>", 0.0, 2), ("a", 0.0, 1)] + [("a" * k, float(-k), 1) for k in range(2, n + 1)],
                           fallback=False)


def with_normalizer(tmp: Path, normalizer: dict | None = None) -> None:
    """tokenizer.json: tok.json's tokenizer as hf, with an NFKC normalizer (or ``normalizer``)."""
    export_tokenizer(load_tokenizer(trained_tok(tmp)), "hf", tmp / "tokenizer.json")
    data = json.loads((tmp / "tokenizer.json").read_text(encoding="utf-8"))
    data["normalizer"] = normalizer or {"type": "NFKC"}
    (tmp / "tokenizer.json").write_text(json.dumps(data), encoding="utf-8")


def word_ends(tmp: Path) -> None:
    """tok.json: a tokenizer trained with the end-of-word suffix </w>."""
    trainer = Trainer("low lower lowest newest", TrainConfig(max_merges=4, end_of_word="</w>"))
    list(trainer.run())
    trainer.tokenizer().save(tmp / "tok.json")


def word_insides(tmp: Path) -> None:
    """tok.json: a tokenizer trained with the continuing-subword prefix ##."""
    trainer = Trainer("low lower lowest newest", TrainConfig(max_merges=4, subword_prefix="##"))
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
    real = engine.corpus.reading._count_range

    def counting(p, *args):
        result = real(p, *args)
        with open(path, "ab") as handle:
            handle.write(b"more text arrives\n")
        return result

    monkeypatch.setattr(engine.corpus.reading, "_count_range", counting)


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


#: What an outside file holds in the companion rows: a line no error may quote.
SECRET_LINE = "root:x:0:0:root:/root:/bin/bash"


def companion_link(tmp: Path, folder: str = "pair", target: str | None = None) -> Path:
    """A GPT-2 pair whose merges.txt is a link out of its folder: to ``target``, or to a file
    beside the folder that holds :data:`SECRET_LINE`."""
    (tmp / folder).parent.mkdir(parents=True, exist_ok=True)
    where = gpt2_pair(tmp, ["a b"], folder=folder)
    if target is None:
        (tmp / "secret.txt").write_text(SECRET_LINE + "\n", encoding="utf-8")
        target = "../" * len(Path(folder).parts) + "secret.txt"
    (where / "merges.txt").unlink()
    (where / "merges.txt").symlink_to(target)
    return where


def sidecar_link(tmp: Path) -> Path:
    """A rank file ``tok/t.tiktoken`` whose sidecar is a link out of ``tok/`` to a sidecar whose
    special token (a secret's text) takes an id the ranks use."""
    from engine.encode.tokenizer import load_tokenizer
    from engine.formats import export_tokenizer

    (tmp / "tok").mkdir()
    export_tokenizer(load_tokenizer(trained_tok(tmp)), "tiktoken", tmp / "tok" / "t.tiktoken")
    side = tmp / "tok" / "t.tiktoken.json"
    data = json.loads(side.read_text(encoding="utf-8"))
    data["special_tokens"] = {SECRET_LINE: 0}
    (tmp / "side.json").write_text(json.dumps(data), encoding="utf-8")
    side.unlink()
    side.symlink_to("../side.json")
    return side


def gguf(pairs: list[tuple[str, int, bytes]], version: int = 3, keys: int | None = None) -> bytes:
    """A GGUF file's header: its magic, version, no tensors, then (key, GGUF type, encoded value)
    pairs (``keys``: the count it claims, when not the pairs')."""
    import struct

    out = b"GGUF" + struct.pack("<IQQ", version, 0, len(pairs) if keys is None else keys)
    for key, kind, value in pairs:
        out += struct.pack("<Q", len(key)) + key.encode() + struct.pack("<I", kind) + value
    return out


def gguf_string(text: str) -> bytes:
    """A GGUF string value (type 8)."""
    import struct

    return struct.pack("<Q", len(text.encode())) + text.encode()


def gguf_strings(texts: list[str]) -> bytes:
    """A GGUF array of strings (type 9 of type 8)."""
    import struct

    return struct.pack("<IQ", 8, len(texts)) + b"".join(map(gguf_string, texts))

