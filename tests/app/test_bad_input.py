"""Every row of docs/bad-input.md is a test: the command it shows, run on the input it names,
exits as documented and prints exactly the documented line (errors: that line alone, on stderr).

The table is the single source: each row's id picks a SETUP (below, and by area in tests/bad_input_areas.py: the files it needs, and the
simulation for what a test cannot do for real: a full disk, permissions as root, a file that
grows while read); a row without a setup, or a setup without a row, fails
``test_the_table_and_the_setups_agree``.
"""

from __future__ import annotations

import errno
import io
import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import ROOT

import tui.cli.commands as cli
import tui.cli.common as common
from engine import Tokenizer, TrainConfig, Trainer
from engine.encode.tokenizer import load_tokenizer
from engine.formats import export_tokenizer, load_any
from tui.app.launch import launch

from bad_input_areas import (
    BOMB_CPU_SECONDS,
    BOMB_CPU_SECONDS_OF,
    BOMB_ROWS,
    SETUP_BOUNDS,
    SETUP_COUNTS,
    SETUP_FIGURES,
    SETUP_FORMATS,
    SETUP_LESSONS,
    SETUP_SERVE,
    SETUP_SESSIONS,
    SETUP_STREAMS,
    run_limited,
)
from bad_input_checks import VERIFY
from bad_input_files import (
    BYTE_RANKS,
    CORPUS,
    HF_CHARS,
    SPM_BAD_TABLE,
    SPM_BPE,
    SPM_NAN,
    SPM_UNIGRAM,
    Setup,
    b64,
    corpus,
    deny_reading,
    fail_writes,
    gguf,
    gguf_string,
    gguf_strings,
    gpt2_pair,
    grow_while_read,
    hf,
    looping_charsmap,
    native,
    piece_chain,
    ranks,
    refuse_temp_files,
    seed001,
    spm_with_table,
    trained_tok,
    with_normalizer,
    word_ends,
    word_insides,
)
from bad_input_tables import SETUP_TABLES

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


# The inputs and simulations: tests/bad_input_files.py; the areas' setups: tests/bad_input_areas.py;
# the checks beyond the message: tests/bad_input_checks.py.

# -- the setup of every row -------------------------------------------------------------------

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
    "min-frequency-huge": lambda tmp, mp: corpus(tmp),
    "min-frequency-huge-compare": lambda tmp, mp: corpus(tmp),
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
    "subword-prefix-space": lambda tmp, mp: corpus(tmp),
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
    "subword-prefix-export": lambda tmp, mp: word_insides(tmp),
    "spm-bpe-model": lambda tmp, mp: corpus(tmp, "tokenizer.model", SPM_BPE),
    "spm-unigram-model": lambda tmp, mp: corpus(tmp, "tokenizer.model", SPM_UNIGRAM),
    "spm-table": lambda tmp, mp: corpus(tmp, "tokenizer.model", SPM_BAD_TABLE),
    "spm-score": lambda tmp, mp: corpus(tmp, "tokenizer.model", SPM_NAN),
    "spm-table-loop": lambda tmp, mp: corpus(tmp, "tokenizer.model", spm_with_table(looping_charsmap())),
    "spm-piece-chain": lambda tmp, mp: (tmp / "tokenizer.model").write_bytes(piece_chain()),
    "clip-gzip-bomb": lambda tmp, mp: corpus(tmp, "bpe_simple_vocab_16e6.txt.gz", __import__("gzip").compress(
        b'"bpe_simple_vocab_16e6.txt#version: 0.2\n' + b"a b\n" * (5 << 20))),
    "name-not-fetched": lambda tmp, mp: mp.setenv("BPE_LAB_TOKENIZERS", str(tmp / "cache")),
    "fetch-unknown-name": lambda tmp, mp: None,
    "gguf-version": lambda tmp, mp: corpus(tmp, "model.gguf", gguf([], version=1)),
    "gguf-truncated": lambda tmp, mp: corpus(tmp, "model.gguf", gguf([("tokenizer.ggml.tokens", 9, gguf_strings(
        ["a", "b"]))])[:-3]),
    "gguf-count": lambda tmp, mp: corpus(tmp, "model.gguf", gguf([("tokenizer.ggml.tokens", 9,
                                                                   (8).to_bytes(4, "little") + (1 << 60).to_bytes(8, "little"))])),
    "gguf-chained": lambda tmp, mp: corpus(tmp, "model.gguf", gguf([
        ("tokenizer.ggml.model", 8, gguf_string("gpt2")), ("tokenizer.ggml.pre", 8, gguf_string("viking")),
        ("tokenizer.ggml.tokens", 9, gguf_strings(["a", "b", "ab"])), ("tokenizer.ggml.merges", 9, gguf_strings(["a b"]))])),
    "gguf-model": lambda tmp, mp: corpus(tmp, "model.gguf", gguf([("tokenizer.ggml.model", 8, gguf_string("bert"))])),
    "hf-normalizer-growth": lambda tmp, mp: with_normalizer(tmp, {"type": "Sequence", "normalizers": [
        {"type": "Replace", "pattern": {"String": "a"}, "content": "aa"}] * 34}),
    "hf-normalizer-prepend": lambda tmp, mp: with_normalizer(tmp, {"type": "Prepend", "prepend": "b" * (5 << 20)}),
    "hf-normalizer-regex-growth": lambda tmp, mp: with_normalizer(tmp, {"type": "Replace", "pattern": {"Regex": "a"},
                                                                        "content": "b" * 10_000}),
    "hf-normalizer-regex-slow": lambda tmp, mp: with_normalizer(tmp, {"type": "Replace", "pattern": {"Regex": "(a|a)+$"},
                                                                      "content": "b"}),
    "gpt2-added-clash": lambda tmp, mp: (gpt2_pair(tmp, ["a b"]), (tmp / "pair" / "added_tokens.json").write_text('{"<x>": 97}')),
    "seed001-wrong-type": lambda tmp, mp: seed001(tmp, ["\ufffd", "a", 7], []),
    "seed001-out-of-range": lambda tmp, mp: seed001(tmp, ["\ufffd", "a", "b", "ab"], [[[1, 9], 3]]),
    "seed001-later": lambda tmp, mp: seed001(tmp, ["\ufffd", "a", "b", "aab", "ab"], [[[1, 4], 3], [[1, 2], 4]]),
    "seed001-self": lambda tmp, mp: seed001(tmp, ["\ufffd", "a", "b", "ab"], [[[1, 3], 3]]),
    "seed001-duplicate": lambda tmp, mp: seed001(tmp, ["\ufffd", "a", "b", "ab", "ab"], [[[1, 2], 3], [[1, 2], 4]]),
    "seed001-contradiction": lambda tmp, mp: seed001(tmp, ["\ufffd", "a", "b", "ba"], [[[1, 2], 3]]),
    "gpt2-wrong-type": lambda tmp, mp: (gpt2_pair(tmp, ["a b"]), (tmp / "pair" / "vocab.json").write_text("[1, 2]")),
    "gpt2-missing-half": lambda tmp, mp: (gpt2_pair(tmp, ["a b"]), (tmp / "pair" / "merges.txt").unlink()),
    "gpt2-openai-half": lambda tmp, mp: (tmp / "vocab.bpe").write_text("#version: 0.2\n\u0120 t\n\u0120 a\nh e\n",
                                                                       encoding="utf-8"),
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




#: Rows whose line needs an optional extra installed, marked ``needs_extra`` (tests/extras.py):
#: without it they skip, naming what is missing. ``scale``: a Parquet table is read or written
#: (``count`` writes one), or a Dask scheduler is reached; ``serve``: a server is started.
_TABLES = ("counts-no-dask", "counts-no-zstandard", "counts-input-vanishes", "counts-table-corrupt",
           "counts-table-truncated", "counts-table-foreign", "counts-table-other-version",
           "counts-table-other-pretokenizer", "counts-table-hf-rule", "counts-merge-different",
           "counts-merge-word-file", "counts-pruned-away", "counts-output-in-folder",
           "counts-scheduler-unreachable", "counts-scheduler-refusing",
           "table-app-float-counts", "table-float-counts", "table-nan-counts", "table-bool-counts",
           "table-merge-float-counts", "table-metadata-pretokenizer-list", "table-metadata-inputs-string",
           "table-metadata-long-number", "table-metadata-deep", "table-chars-invalid-utf8", "table-empty",
           "table-huge-chunk", "table-long-chunk", "count-from-fifo", "count-fifo-no-writer", "count-device",
           "count-gz-no-cut", "count-gz-bomb", "count-gz-bound-given", "count-long-chunk")
_SERVERS = ("serve-port-in-use", "serve-root-missing", "serve-root-file", "serve-corpus-outside", "serve-corpus-missing",
            "serve-resume", "serve-app-option", "serve-counts-outside", "serve-counts-missing")
NEEDS_EXTRA: dict[str, str] = {**dict.fromkeys(_TABLES, "scale"), **dict.fromkeys(_SERVERS, "serve")}


for _area in (SETUP_BOUNDS, SETUP_STREAMS, SETUP_SESSIONS, SETUP_FORMATS, SETUP_FIGURES, SETUP_LESSONS, SETUP_SERVE, SETUP_COUNTS,
              SETUP_TABLES):
    assert not set(_area) & set(SETUP), set(_area) & set(SETUP)
    SETUP.update(_area)


# -- the tests --------------------------------------------------------------------------------


@pytest.fixture
def sandbox(tmp_path, monkeypatch):
    """Work in the test's folder; and no rename may land outside it (a broken guard must not
    replace /dev/full or anything else of the machine's). A missing extra is named as for the
    README's install, wherever the tests run (tests/cli/test_first_minute.py tests the others)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("tui.extras.install_command", lambda extra: f".venv/bin/pip install '.[{extra}]'")
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
SLOW_ROWS = {"corpus-long-line", "tok-many-specials", "tok-too-many-specials", "pattern-slow", "hf-normalizer-regex-slow"}


def cpu_seconds() -> float:
    """Processor time of this process and the ones it waited for: what a command cost, which a
    loaded machine does not stretch as it does the wall clock (the 50 MB row, about 3 s of work,
    took 22 s on one core shared with other runs)."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def _marks(row: Row) -> list[pytest.MarkDecorator]:
    extra = NEEDS_EXTRA.get(row.id)
    return [pytest.mark.slow] * (row.id in SLOW_ROWS) + ([pytest.mark.needs_extra(extra)] if extra else [])


@pytest.mark.parametrize("row", [pytest.param(row, id=row.id, marks=_marks(row)) for row in ROWS])
def test_documented_bad_input(row: Row, sandbox, monkeypatch):
    SETUP[row.id](sandbox, monkeypatch)
    if row.id in BOMB_ROWS:
        run = run_limited(row.argv, sandbox, BOMB_CPU_SECONDS_OF.get(row.id, BOMB_CPU_SECONDS))
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


RANK_FILE_BOMBS = ["tiktoken-runs", "tiktoken-doublings", "tiktoken-recovery-budget"]


@pytest.mark.parametrize("pure", [False, True], ids=["compiled", "pure"])
@pytest.mark.parametrize("key", RANK_FILE_BOMBS)
def test_rank_file_bombs_within_their_time_on_both_paths(key, pure, tmp_path, monkeypatch):
    """Issue 40's rank files on each path, whichever this run uses, under their rows' CPU time."""
    if not pure:
        from engine.native import door

        monkeypatch.delenv(door.PURE_ENV, raising=False)
        found, why = door.load()
        if found is None:
            pytest.skip(f"no compiled core here: {why}")
    row = next(row for row in ROWS if row.id == key)
    SETUP[key](tmp_path, monkeypatch)
    run = run_limited(row.argv, tmp_path, BOMB_CPU_SECONDS_OF[key], env={"BPE_LAB_PURE": "1" if pure else "0",
                                                                         "BPE_LAB_CACHE": "off"})
    assert run.returncode == row.exit, run.stderr[-2000:]
    if row.exit == 2:
        assert run.stderr == row.message + "\n"
    else:  # written back as it was read
        assert (tmp_path / "out.tiktoken").read_bytes() == (tmp_path / "t.tiktoken").read_bytes()


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
    import engine.text.pretokenize as pre
    from engine.errors import PatternTimeoutError
    from engine.text.pretokenize import PreTokenizer

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

    where = gpt2_pair(tmp_path, ["a b", "ab c", "x y"])
    (where / "merges.txt").write_text("#version: 0.2\na b\nx y\n", encoding="utf-8")  # "ab c" lost
    imported = load_any(where)
    assert any("look merged (first: 'abc')" in note and "truncated?" in note for note in imported.warnings)
    assert imported.tokenizer.specials == {"abc": 258} and imported.encode("abc") == [257]  # the file's id


def test_a_rank_file_is_replayed_with_a_pattern_named_after_its_family(tmp_path):
    """The app's --pattern-name takes the names the headless commands take: o200k (GPT-4o's and
    Llama 4's) and llama3, kept as those files' patterns; a name it does not know is refused."""
    import argparse

    from engine.text.pretokenize import GPT4_PATTERN, LLAMA3_PATTERN, O200K_PATTERN
    from tui.app.launch import imported_tokenizer

    ranks = tmp_path / "t.tiktoken"
    ranks.write_text("\n".join(BYTE_RANKS) + "\n", encoding="utf-8")
    for name, pattern, kind in (("o200k", O200K_PATTERN, "custom"), ("llama3", LLAMA3_PATTERN, "custom"),
                                ("gpt4", GPT4_PATTERN, "gpt4")):
        imported = imported_tokenizer(argparse.Namespace(tokenizer=str(ranks), pattern_name=name, pattern=None))
        pre = imported.tokenizer.pretokenizer
        assert (pre.pattern, pre.name) == (pattern, kind)
    assert launch([str(ranks), "--tokenizer", str(ranks), "--pattern-name", "o100k"]) == 2
