"""Streams as corpora, under a memory limit: an endless stream is refused at its bound in one
line, never by running the machine out of memory; real pipes on standard input train exactly
like the same text in a file; the app's launcher fails as the command line does.

Each command runs in a subprocess under ``RLIMIT_AS`` (about 1 GB) with a timeout, so that a
regression fails the test instead of taking the machine down.
"""

from __future__ import annotations

import io
import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT

from engine import TrainConfig
from engine.corpus.reading import MAX_STREAM_BYTES
from engine.encode.tokenizer import load_tokenizer
from engine.errors import size_text

MEMORY = 1 << 30  # the address space each command may use
TIMEOUT = 120
CORPUS = "the cat in the hat sat on the mat\nthe cat ate the rat\n" * 40 + "Grüße, 你好 🙂\n"
STREAM_BOUND = (f"bpe-lab: error: /dev/zero: stopped reading at {size_text(MAX_STREAM_BYTES)}, the bound for a "
                "corpus that is not a regular file (raise it with --max-corpus-bytes N)\n")
GIVEN_BOUND = "bpe-lab: error: /dev/zero: stopped reading at 1 MB, the corpus bound set by --max-corpus-bytes\n"


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def bpe_lab(args: list[str], cwd: Path, *, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """``python -m tui ARGS`` (the real entry point) under the memory limit."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), BPE_LAB_SESSION=str(cwd / "session.json"))
    return subprocess.run([sys.executable, "-m", "tui", *args], input=stdin, capture_output=True, cwd=cwd, env=env,
                          timeout=TIMEOUT, preexec_fn=_limit_memory,
                          stdin=None if stdin is not None else subprocess.DEVNULL)


def refused(run: subprocess.CompletedProcess[bytes], line: str) -> None:
    assert (run.returncode, run.stderr.decode("utf-8")) == (2, line)
    assert run.stdout == b""


def test_the_bound_is_what_the_help_and_the_docs_say():
    assert MAX_STREAM_BYTES == 512 << 20
    doc = (ROOT / "docs" / "bad-input.md").read_text(encoding="utf-8")
    assert "up to **512 MB**" in doc and STREAM_BOUND.strip() in doc


@pytest.mark.slow
@pytest.mark.parametrize("extra", [[], ["--pretokenizer", "none"]], ids=["streaming", "whole"])
def test_an_endless_stream_stops_at_the_default_bound(tmp_path, extra):
    refused(bpe_lab(["train", "/dev/zero", "-o", "x.json", *extra], tmp_path), STREAM_BOUND)
    assert not (tmp_path / "x.json").exists()


@pytest.mark.parametrize("args", [
    ["train", "--max-corpus-bytes", "1M", "/dev/zero", "-o", "x.json"],
    ["train", "/dev/zero", "-o", "x.json", "--pretokenizer", "none", "--max-corpus-bytes", "1024K"],
    ["compare", "/dev/zero", "--max-corpus-bytes", "1M"],
    ["/dev/zero", "--max-corpus-bytes", "1M", "--headless"],
], ids=["train", "whole", "compare", "app"])
@pytest.mark.slow
def test_a_given_bound_stops_an_endless_stream(tmp_path, args):
    refused(bpe_lab(args, tmp_path), GIVEN_BOUND)


def test_endless_random_bytes_are_refused_at_the_bound(tmp_path):
    refused(bpe_lab(["train", "/dev/urandom", "-o", "x.json", "--max-corpus-bytes", "4M"], tmp_path),
            "bpe-lab: error: /dev/urandom: stopped reading at 4 MB, the corpus bound set by --max-corpus-bytes\n")


def test_a_stream_past_its_bound_is_refused_before_any_pre_tokenizing(tmp_path, monkeypatch):
    """No time is spent on a stream that will be refused (random bytes pre-tokenize slowly)."""
    from engine.corpus.reading import CorpusError, count_corpus
    from engine.text.pretokenize import PreTokenizer

    (tmp_path / "c.txt").write_text(CORPUS * 10, encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", open(tmp_path / "c.txt", encoding="utf-8"))  # '-' is read as a stream
    monkeypatch.setattr(PreTokenizer, "count_raw", lambda *a: pytest.fail("pre-tokenized"))
    with pytest.raises(CorpusError, match=r"^standard input: stopped reading at 1 kB, the corpus bound set by --max"):
        count_corpus("-", PreTokenizer("gpt2"), max_bytes=1024)


@pytest.mark.slow
def test_the_app_on_an_endless_stream(tmp_path):
    """``bpe-lab /dev/zero`` used to end in a MemoryError traceback."""
    refused(bpe_lab(["/dev/zero", "--headless"], tmp_path), STREAM_BOUND)


@pytest.mark.slow
def test_a_session_whose_corpus_is_an_endless_stream(tmp_path):
    session = {"format": "bpe-lab session", "version": 1,
               "corpus": {"source": "/dev/zero", "sha256": "0" * 64, "size": 1000},
               "config": TrainConfig(max_merges=10).to_dict(), "merges": [[116, 104]], "step": 1, "selected": None,
               "replay": None}
    (tmp_path / "s.json").write_text(json.dumps(session), encoding="utf-8")
    refused(bpe_lab(["--resume", "--session", "s.json", "--headless"], tmp_path), STREAM_BOUND)


def _file_merges(tmp: Path, *extra: str) -> list[tuple[int, int]]:
    (tmp / "c.txt").write_text(CORPUS, encoding="utf-8")
    run = bpe_lab(["train", "c.txt", "-o", "file.json", "--merges", "20", *extra], tmp)
    assert run.returncode == 0, run.stderr
    merges = load_tokenizer(tmp / "file.json").merges
    assert len(merges) == 20
    return merges


@pytest.mark.slow
@pytest.mark.parametrize("corpus", ["-", "/dev/stdin"])
@pytest.mark.parametrize("extra", [[], ["--pretokenizer", "none"], ["--base", "chars"]], ids=["gpt2", "none", "chars"])
def test_a_real_pipe_on_standard_input_trains_like_the_file(tmp_path, corpus, extra):
    expected = _file_merges(tmp_path, *extra)
    run = bpe_lab(["train", corpus, "-o", "t.json", "--merges", "20", *extra], tmp_path, stdin=CORPUS.encode("utf-8"))
    assert run.returncode == 0, run.stderr
    assert load_tokenizer(tmp_path / "t.json").merges == expected


@pytest.mark.slow
def test_a_large_pipe_is_read_in_blocks(tmp_path):
    """Megabytes through a pipe (more than one read block, no seeking): as from a file."""
    big = CORPUS * 1500  # about 2.5 MB
    (tmp_path / "big.txt").write_text(big, encoding="utf-8")
    from_file = bpe_lab(["train", "big.txt", "-o", "file.json", "--merges", "30"], tmp_path)
    from_pipe = bpe_lab(["train", "-", "-o", "pipe.json", "--merges", "30"], tmp_path, stdin=big.encode("utf-8"))
    assert from_file.returncode == from_pipe.returncode == 0, from_pipe.stderr
    assert load_tokenizer(tmp_path / "pipe.json").merges == load_tokenizer(tmp_path / "file.json").merges


def test_compare_reads_standard_input(tmp_path):
    (tmp_path / "c.txt").write_text(CORPUS, encoding="utf-8")
    from_file = bpe_lab(["compare", "c.txt", "--merges", "20", "--json"], tmp_path)
    from_pipe = bpe_lab(["compare", "-", "--merges", "20", "--json"], tmp_path, stdin=CORPUS.encode("utf-8"))
    assert from_file.returncode == from_pipe.returncode == 0, from_pipe.stderr
    rows = lambda run: {row["name"]: row["corpus_tokens"] for row in json.loads(run.stdout)}  # noqa: E731
    assert rows(from_pipe)["bpe"] == rows(from_file)["bpe"]


def test_a_fifo_trains_like_the_file(tmp_path):
    expected = _file_merges(tmp_path)
    os.mkfifo(tmp_path / "fifo")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    command = subprocess.Popen([sys.executable, "-m", "tui", "train", "fifo", "-o", "t.json", "--merges", "20"],
                               cwd=tmp_path, env=env, stderr=subprocess.PIPE, preexec_fn=_limit_memory)
    with open(tmp_path / "fifo", "wb") as writer:  # waits for the command to open it
        writer.write(CORPUS.encode("utf-8"))
    _, stderr = command.communicate(timeout=TIMEOUT)
    assert command.returncode == 0, stderr
    assert load_tokenizer(tmp_path / "t.json").merges == expected


@pytest.mark.parametrize("corpus", ["-", "/dev/stdin"])
def test_the_app_refuses_standard_input_as_its_corpus(tmp_path, corpus):
    """The app's keys come from standard input: it cannot be the corpus too."""
    run = bpe_lab([corpus, "--headless"], tmp_path, stdin=CORPUS.encode("utf-8"))
    refused(run, f"bpe-lab: error: {corpus}: the app reads its keys from standard input, so the corpus cannot come "
                 "from there: save the text to a file and open that (bpe-lab train - reads standard input)\n")


def test_the_app_refuses_standard_input_as_its_held_out_text():
    from tui.model.evaluation import make_split
    from tui.model.workbench import LoadedCorpus

    corpus = LoadedCorpus.open("sample:workshop.txt", "bytes")
    with pytest.raises(ValueError, match=r"^-: the app reads its keys from standard input, so the held-out text cannot"):
        make_split(corpus, "-")


# -- the launcher catches what the command line catches ---------------------------------------


FAILURES = [
    (ValueError("a bad value"), 2, "bpe-lab: error: a bad value\n"),
    (FileNotFoundError(2, "No such file or directory", "x.txt"), 2, "bpe-lab: error: x.txt: No such file or directory\n"),
    (MemoryError(), 2, "bpe-lab: error: out of memory while training (try a smaller corpus, or a pre-tokenizer other than none)\n"),
    (KeyboardInterrupt(), 130, "bpe-lab: interrupted\n"),
    (BrokenPipeError(), 0, ""),
]


@pytest.mark.parametrize("exc, code, line", FAILURES, ids=[type(f[0]).__name__ for f in FAILURES])
def test_the_launcher_and_the_command_line_turn_the_same_failures_into_one_line(monkeypatch, tmp_path, exc, code, line):
    """Both go through tui.cli.common.guarded: a failure while the corpus loads (the app) or while it is
    read (train) gives the same line and exit code."""
    import engine
    import tui.cli.commands as cli
    import tui.model.loaded_corpus
    from tui.app.launch import launch

    def fail(*args, **kwargs):
        raise exc

    (tmp_path / "c.txt").write_text(CORPUS, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(tui.model.loaded_corpus, "read_corpus_bytes", fail)  # LoadedCorpus.open reads with it
    monkeypatch.setattr(engine, "count_corpus", fail)  # train imports it from engine when it runs
    monkeypatch.setattr("tui.app.BpeApp.run", lambda *a, **k: pytest.fail("the app started"))
    for run in (lambda err: launch(["c.txt"], err=err), lambda err: cli.main(["train", "c.txt", "-o", "t.json"], err=err)):
        err = io.StringIO()
        assert run(err) == code
        assert err.getvalue() == line


def test_the_launcher_refuses_a_bad_option_in_one_line(capsys):
    from tui.app.launch import launch

    assert launch(["--max-corpus-bytes", "lots"]) == 2
    assert capsys.readouterr().err == ("bpe-lab: error: argument --max-corpus-bytes: 'lots' is not a size of 1 byte or "
                                       "more (like 1048576, 512M or 2G) (see bpe-lab --help)\n")


# -- outputs that are an input ----------------------------------------------------------------


@pytest.mark.parametrize("name", ["c.txt", "link.txt", "alias.txt"])
def test_the_app_never_saves_its_tokenizer_over_its_corpus(tmp_path, name):
    """``s`` in the app with the corpus's name, a hard link or a symlink to it: refused, kept."""
    from engine.errors import WriteError
    from tui.model.workbench import LoadedCorpus, Workbench

    (tmp_path / "c.txt").write_text(CORPUS, encoding="utf-8")
    os.link(tmp_path / "c.txt", tmp_path / "link.txt")
    (tmp_path / "alias.txt").symlink_to("c.txt")
    workbench = Workbench(LoadedCorpus.open(tmp_path / "c.txt", "bytes"), TrainConfig(max_merges=3))
    workbench.goto(3)
    line = f"{tmp_path / name}: cannot write (it is the same file as the corpus {tmp_path / 'c.txt'}); nothing was written"
    with pytest.raises(WriteError) as raised:
        workbench.save(tmp_path / name)
    assert str(raised.value) == line
    assert (tmp_path / "c.txt").read_text(encoding="utf-8") == CORPUS
    workbench.save(tmp_path / "tok.json")  # any other name is fine
    assert len(load_tokenizer(tmp_path / "tok.json").merges) == 3
