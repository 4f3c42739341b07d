"""The setups of docs/bad-input.md's rows by area (issue 11 on): bounds, streams, sessions,
formats, figures, lessons, serve and counts; one dict an area, so the areas are worked on apart.
tests/app/test_bad_input.py runs the rows; tests/bad_input_tables.py holds the tables' rows."""

from __future__ import annotations

import codecs
import errno
import io
import json
import os
import random
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from helpers import ROOT

import tui.cli.commands as cli
from engine import Tokenizer, TrainConfig
from engine.encode.tokenizer import load_tokenizer
from engine.formats import export_tokenizer

from bad_input_files import (
    BYTE_RANKS,
    CORPUS,
    HF_CHARS,
    Setup,
    b64,
    companion_link,
    corpus,
    fail_writes,
    gpt2_pair,
    hf,
    native,
    ranks,
    seed001,
    sidecar_link,
    trained_tok,
)

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


def _rank_runs(tmp: Path, tokens: list[bytes]) -> Path:
    """t.tiktoken (and its sidecar: pattern none): the 256 bytes, then ``tokens`` in this rank order."""
    return ranks(tmp, BYTE_RANKS + [f"{b64(token)} {256 + k}" for k, token in enumerate(tokens)])


#: Issue 40: a, aa, ... a x 5000 (16.7 MB; 12.5 MB of tokens, under both bounds).
RUNS = [b"a" * k for k in range(2, 5001)]
#: The same runs in a shuffled rank order: most are merged byte by byte, and their parts grow
#: long, so each pair looked up is long too.
SHUFFLED_RUNS = RUNS[:]
random.Random(40).shuffle(SHUFFLED_RUNS)

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
    "tiktoken-runs": lambda tmp, mp: _rank_runs(tmp, RUNS),
    "tiktoken-doublings": lambda tmp, mp: _rank_runs(tmp, [b"a" * (1 << j) for j in range(1, 21)]),
    "tiktoken-recovery-budget": lambda tmp, mp: _rank_runs(tmp, SHUFFLED_RUNS),
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
    "session-min-frequency-huge": lambda tmp, mp: session_file(tmp, config={**TrainConfig(max_merges=3).to_dict(),
                                                                             "min_frequency": 2**63}),
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
    from engine.formats.hf import tokenizer_json
    from engine.text.bytelevel import hf_byte_rank

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
    "format-companion-link": lambda tmp, mp: companion_link(tmp),
    "format-sidecar-link": lambda tmp, mp: sidecar_link(tmp),
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
    # issue 40: numbers past 2**63 - 1, the range both paths take
    "lesson-min-frequency-huge": lambda tmp, mp: lesson(tmp, f"open sample=qa.txt min_frequency={2**63}"),
    "lesson-claim-huge-candidate": lambda tmp, mp: lesson(tmp, "open sample=qa.txt", f'expect candidate {2**63} == "t h"'),
    "lesson-file-outside": lambda tmp, mp: lesson(tmp, "open file=/etc/passwd"),
    "lesson-replay-outside": lambda tmp, mp: (trained_tok(tmp), (tmp / "class").mkdir(),
                                              lesson(tmp / "class", "open sample=qa.txt", "replay ../tok.json")),
    "lesson-trusted": lambda tmp, mp: (trained_tok(tmp), (tmp / "class").mkdir(),
                                       lesson(tmp / "class", "open sample=qa.txt", "replay ../tok.json")),
}

#: Rows that are time or memory bombs: run in a subprocess (``python -m tui``) under RLIMIT_CPU and
#: RLIMIT_AS, so that a regression fails the row instead of hanging the run or the machine.
BOMB_ROWS = {"lesson-heading-blanks", "lesson-long-quoted-word", "lesson-many-comments", "lesson-too-large",
             "lesson-device", "lesson-deep-front-matter", "lesson-deep-claim",
             "tiktoken-runs", "tiktoken-doublings", "tiktoken-recovery-budget", "spm-piece-chain"}
BOMB_CPU_SECONDS, BOMB_MEMORY = 30, 1 << 30
#: Bombs held to less processor time than BOMB_CPU_SECONDS (issue 40's rank files: loading and
#: writing them back took 8 s and 1.4 s compiled, minutes pure; now 0.6 s and 0.2 s at most).
BOMB_CPU_SECONDS_OF = {"tiktoken-runs": 2, "tiktoken-doublings": 1, "tiktoken-recovery-budget": 2, "spm-piece-chain": 5}


def run_limited(argv: list[str], cwd: Path, cpu: int = BOMB_CPU_SECONDS,
                env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m tui ARGV`` under the bombs' limits (SIGXCPU past ``cpu`` seconds of processor
    time), with ``env`` added to the environment."""
    import resource

    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
        resource.setrlimit(resource.RLIMIT_AS, (BOMB_MEMORY, BOMB_MEMORY))

    env = dict(os.environ, PYTHONPATH=str(ROOT), **(env or {}))
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
    "serve-allow-origin-not-origin": lambda tmp, mp: None,
    "serve-allow-origin-path": lambda tmp, mp: None,
    "serve-allow-origin-any": lambda tmp, mp: None,
    "serve-allow-origin-null": lambda tmp, mp: None,
    "serve-allow-host-url": lambda tmp, mp: None,
    "serve-allow-host-port": lambda tmp, mp: None,
    "serve-public-url-invalid": lambda tmp, mp: None,
    "serve-root-missing": lambda tmp, mp: None,
    "serve-root-file": lambda tmp, mp: corpus(tmp),
    "serve-corpus-outside": lambda tmp, mp: (tmp / "class").mkdir(),
    "serve-corpus-missing": lambda tmp, mp: (tmp / "class").mkdir(),
    "serve-resume": lambda tmp, mp: None,
    "serve-app-option": lambda tmp, mp: None,
    "serve-counts-outside": lambda tmp, mp: (tmp / "class").mkdir(),
    "serve-counts-missing": lambda tmp, mp: (tmp / "class").mkdir(),
    "serve-tokenizer-companion-link": lambda tmp, mp: ((tmp / "class").mkdir(),
                                                       companion_link(tmp, "class/pair", "/etc/passwd")),
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
    from engine.corpus import count_inputs, write_counts
    from engine.text.pretokenize import PreTokenizer

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
    monkeypatch.setattr("engine.corpus.dask_count.CONNECT_SECONDS", 2)


def vanish_while_counting(monkeypatch, tmp: Path) -> None:
    """b.txt is deleted while a.txt is counted (another program cleans up the shard)."""
    import engine.corpus.count_blocks as blocks

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
    "counts-scheduler-unreachable": lambda tmp, mp: (corpus(tmp), mp.setattr("engine.corpus.dask_count.CONNECT_SECONDS", 1)),
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
