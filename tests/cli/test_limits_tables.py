"""Issue 21's bombs, hangs and pipes for tables, counting and the other readers, run as a user
would: each command in a subprocess under ``RLIMIT_AS`` (about 1 GB) and ``RLIMIT_CPU`` with a
timeout, so a regression fails the test instead of taking the machine down or hanging it.

- memory bombs: a ``.gz`` of a long run of ``a``, a small Parquet file holding one huge chunk;
- never hangs: FIFOs without a writer as a table, a count input, a tokenizer, a plot table,
  the config file; devices;
- pipes keep every byte: ``--counts <(cat words.txt)`` trains as the file does, ``count <(...)``
  counts it, a tokenizer and a plot table from ``<(cat ...)`` read whole;
- crafted session branches are refused before any work, and a restore can be stopped.
"""

from __future__ import annotations

import gzip
import json
import os
import resource
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from extras import skip_without
from helpers import ROOT

from engine import TrainConfig, Trainer
from engine.encode.tokenizer import load_tokenizer

from bad_input_tables import huge_chunk, repeated_chunk

MEMORY = 1 << 30  # the address space each command may use
CPU_SECONDS = 60  # processor time each command may use
TIMEOUT = 120
CORPUS = "the cat in the hat sat on the mat\nthe cat ate the rat\n" * 40 + "Grüße, 你好 🙂\n"
WORDS = "".join(f"w{k} {k % 7 + 1}\n" for k in range(3000))  # above a pipe's 64 kB buffer and the old 4 kB sniff


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS))


def run(command: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """A shell command line (``bpe-lab`` is ``python -m tui``; bash, for ``<(...)``) under the limits."""
    bpe_lab = f"{shlex.quote(sys.executable)} -m tui"
    environment = dict(os.environ, PYTHONPATH=str(ROOT), BPE_LAB_SESSION=str(cwd / "session.json"), **env)
    return subprocess.run(["bash", "-c", command.replace("bpe-lab", bpe_lab)], capture_output=True, text=True, cwd=cwd,
                          env=environment, timeout=TIMEOUT, preexec_fn=_limits, stdin=subprocess.DEVNULL)


def refused(result: subprocess.CompletedProcess[str], line: str) -> None:
    assert (result.returncode, result.stderr) == (2, line + "\n")


# -- memory bombs -----------------------------------------------------------------------------


@pytest.mark.needs_extra("scale")  # count writes a Parquet table
def test_a_gzip_bomb_is_refused_within_the_memory_limit(tmp_path):
    """200 MB of ``a`` in 200 kB of gzip once took count to 2 GB (400 MB: 4 GB)."""
    with gzip.open(tmp_path / "bomb.gz", "wb", compresslevel=1) as handle:
        block = b"a" * (1 << 20)
        for _ in range(200):
            handle.write(block)
    refused(run("bpe-lab count bomb.gz -o z.parquet", tmp_path),
            "bpe-lab: error: bomb.gz: more than 64 MB of text with no place to cut it (a newline before printable text): "
            "a chunk that long is refused (raise the bound with --max-chunk-bytes N)")
    assert not (tmp_path / "z.parquet").exists()


@pytest.mark.slow
@pytest.mark.needs_extra("scale")
def test_a_small_parquet_file_holding_a_huge_chunk_is_refused_before_decoding(tmp_path):
    """12 kB on disk, one 300 MB chunk: 5.3 GB once read and trained on."""
    huge_chunk(tmp_path)
    assert (tmp_path / "bomb.parquet").stat().st_size < 64 << 10
    line = ("bpe-lab: error: bomb.parquet: holds a chunk longer than 1 MB, the bound for one chunk "
            "(raise it with --max-chunk-bytes N)")
    refused(run("bpe-lab train --counts bomb.parquet -o tok.json", tmp_path), line)
    refused(run("bpe-lab count --merge bomb.parquet bomb.parquet -o all.parquet", tmp_path), line)


def test_a_chunk_repeated_by_a_dictionary_is_measured_before_it_is_decoded(tmp_path):
    """90 kB on disk, one 900 kB chunk stored once and repeated 30,000 times: 27 GB decoded. Its
    first row group alone (900 MB) is refused by a 64 MB bound before a row is decoded, within
    the 1 GB limit (it once decoded a batch of 16,384 rows first)."""
    repeated_chunk(tmp_path)
    assert (tmp_path / "bomb.parquet").stat().st_size < 128 << 10
    line = ("bpe-lab: error: bomb.parquet: training on its chunks would take 699.8 MB of memory, above the table bound "
            "of 64 MB (raise it with --max-table-bytes N)")
    refused(run("bpe-lab train --counts bomb.parquet -o tok.json --max-table-bytes 64M", tmp_path), line)


def test_a_word_count_file_is_bounded_by_what_training_on_it_takes(tmp_path):
    """300,000 distinct words (3 MB) take about 250 MB to train on, which the bound now counts
    (it once counted 33 MB, and 8 million words took 3.7 GB before running out of memory)."""
    (tmp_path / "words.txt").write_text("".join(f"w{k:07d} 1\n" for k in range(300_000)), encoding="utf-8")
    result = run("bpe-lab train --counts words.txt -o tok.json --max-table-bytes 200M", tmp_path)
    assert result.returncode == 2 and result.stderr.startswith(
        "bpe-lab: error: words.txt: training on its words would take more than 200 MB of memory at line "), result.stderr
    assert not (tmp_path / "tok.json").exists()


@pytest.mark.parametrize(("command", "line"), [
    ("bpe-lab train --counts /dev/zero -o tok.json", "bpe-lab: error: /dev/zero: is a device, not a chunk-count table"),
    *(pytest.param(command, line, marks=pytest.mark.needs_extra("scale")) for command, line in (  # count writes a Parquet table
        ("bpe-lab count /dev/zero -o z.parquet", "bpe-lab: error: /dev/zero: is a device, not a text file"),
        ("bpe-lab count /dev/urandom -o z.parquet", "bpe-lab: error: /dev/urandom: is a device, not a text file"),
    )),
    ("bpe-lab plot /dev/zero -o c.svg", "bpe-lab: error: /dev/zero: is a device, not a tokenizer file"),
])
def test_devices_are_refused_at_once(tmp_path, command, line):
    refused(run(command, tmp_path), line)


@pytest.mark.needs_extra("scale")  # count writes a Parquet table
def test_an_endless_pipe_given_to_count_stops_at_its_bound(tmp_path):
    refused(run("bpe-lab count <(cat /dev/zero) -o z.parquet --max-corpus-bytes 8M", tmp_path),
            "bpe-lab: error: /dev/fd/63: more than 8 MB, too large for a text file (raise the limit with --max-corpus-bytes N)")


# -- never a hang -----------------------------------------------------------------------------


FIFO_LINE = "bpe-lab: error: {}: a named pipe with no writer (nothing to read); start what writes it first, or save it to a file"


# each waits the real writer grace (2 s) out, over the default run's limit: all in the slow pass
# (the default run has the same refusals in process, with a shorter grace: tests/bad_input_tables.py)
@pytest.mark.parametrize("command", [
    *(pytest.param(command, marks=pytest.mark.slow) for command in (
        "bpe-lab train --counts fifo -o tok.json",
        "bpe-lab compare --counts fifo",
        "bpe-lab plot fifo -o c.svg",
        "bpe-lab encode -t fifo hello",
        "bpe-lab decode -t fifo 1 2",
    )),
    *(pytest.param(command, marks=[pytest.mark.slow, pytest.mark.needs_extra("scale")]) for command in (
        "bpe-lab count fifo -o z.parquet",
        "bpe-lab count --merge fifo fifo -o all.parquet",
    )),
])
def test_a_fifo_without_a_writer_is_refused_not_waited_on(tmp_path, command):
    os.mkfifo(tmp_path / "fifo")
    refused(run(command, tmp_path), FIFO_LINE.format("fifo"))


def test_a_fifo_as_the_config_file_is_ignored_with_a_note(tmp_path):
    """A FIFO there kept the app from ever drawing: the config is read before it starts."""
    (tmp_path / "bpe-lab").mkdir()
    os.mkfifo(tmp_path / "bpe-lab" / "config.json")
    script = ("from tui.model.prefs import config_path, load_prefs; "
              "prefs, note = load_prefs(config_path()); print(prefs, note)")
    result = run(f"{shlex.quote(sys.executable)} -c {shlex.quote(script)}", tmp_path, XDG_CONFIG_HOME=str(tmp_path))
    path = tmp_path / "bpe-lab" / "config.json"
    assert (result.returncode, result.stdout) == (0, f"{{}} {path}: cannot read it (is a pipe, not a bpe-lab config "
                                                     "(save it to a file)); using the defaults\n"), result.stderr


# -- pipes keep every byte --------------------------------------------------------------------


def test_counts_from_a_pipe_train_exactly_as_from_the_file(tmp_path):
    (tmp_path / "words.txt").write_text(WORDS, encoding="utf-8")
    from_file = run("bpe-lab train --counts words.txt -o file.json --merges 30", tmp_path)
    from_pipe = run("bpe-lab train --counts <(cat words.txt) -o pipe.json --merges 30", tmp_path)
    assert from_file.returncode == from_pipe.returncode == 0, from_pipe.stderr
    assert from_file.stderr.split("; ")[2] == from_pipe.stderr.split("; ")[2]  # corpus A -> B tokens
    assert load_tokenizer(tmp_path / "pipe.json").merges == load_tokenizer(tmp_path / "file.json").merges


@pytest.mark.needs_extra("scale")  # count writes a Parquet table
def test_a_parquet_table_from_a_pipe_trains_as_the_file(tmp_path):
    (tmp_path / "c.txt").write_text(CORPUS, encoding="utf-8")
    assert run("bpe-lab count c.txt -o t.parquet", tmp_path).returncode == 0
    from_file = run("bpe-lab train --counts t.parquet -o file.json --merges 20", tmp_path)
    from_pipe = run("bpe-lab train --counts <(cat t.parquet) -o pipe.json --merges 20", tmp_path)
    assert from_file.returncode == from_pipe.returncode == 0, from_pipe.stderr
    assert load_tokenizer(tmp_path / "pipe.json").merges == load_tokenizer(tmp_path / "file.json").merges


@pytest.mark.needs_extra("scale")  # count writes a Parquet table
def test_count_reads_a_pipe_whole(tmp_path):
    """``count <(printf 'the cat\\n')`` said "the inputs are empty"."""
    (tmp_path / "c.txt").write_text(CORPUS, encoding="utf-8")
    assert run("bpe-lab count c.txt -o file.parquet", tmp_path).returncode == 0
    result = run("bpe-lab count <(cat c.txt) -o pipe.parquet", tmp_path)
    assert result.returncode == 0, result.stderr
    from engine.corpus import read_counts

    assert list(read_counts(tmp_path / "pipe.parquet").chunks.items()) == list(read_counts(tmp_path / "file.parquet").chunks.items())
    small = run("bpe-lab count <(printf 'the cat\\n') -o small.parquet", tmp_path)
    assert small.returncode == 0 and "3 distinct chunks, 3 in all" in small.stderr, small.stderr


@pytest.mark.slow
def test_a_tokenizer_and_a_plot_table_from_a_pipe(tmp_path):
    (tmp_path / "c.txt").write_text(CORPUS, encoding="utf-8")
    assert run("bpe-lab train c.txt -o tok.json --merges 20 --curve-out curve.csv", tmp_path).returncode == 0
    from_file = run("bpe-lab encode -t tok.json 'the cat in the hat'", tmp_path)
    from_pipe = run("bpe-lab encode -t <(cat tok.json) 'the cat in the hat'", tmp_path)
    assert from_pipe.returncode == 0 and from_pipe.stdout == from_file.stdout, from_pipe.stderr
    skip_without("plots")
    plot = run("bpe-lab plot <(cat curve.csv) -o curve.svg", tmp_path)
    assert plot.returncode == 0 and "(curve, 21 rows)" in plot.stderr, plot.stderr


# -- decode's deep lists ----------------------------------------------------------------------


def test_decode_of_a_deeply_nested_list_is_one_line(tmp_path):
    (tmp_path / "c.txt").write_text(CORPUS, encoding="utf-8")
    assert run("bpe-lab train c.txt -o tok.json --merges 5", tmp_path).returncode == 0
    (tmp_path / "deep.txt").write_text("[" * 1_000_000, encoding="utf-8")
    refused(run("bpe-lab decode -t tok.json < deep.txt", tmp_path), "bpe-lab: error: standard input: expected a JSON list of integers")
    refused(run(f"bpe-lab decode -t tok.json '{'[' * 100_000}'", tmp_path), "bpe-lab: error: arguments: expected a JSON list of integers")


# -- crafted branches -------------------------------------------------------------------------


TEXT = (ROOT / "assets" / "samples" / "workshop.txt").read_text(encoding="utf-8")


def crafted_branches(trainer: Trainer) -> dict:
    """64 branches parting from main alternately at 0 and at its end, one merge each: every one
    walks the whole line back or forth (issue 21: 382 s to restore against 8 s of training)."""
    main = [list(e.pair) for e in trainer.history]
    length = len(main)
    items = [{"name": "main", "parent": None, "parts_at": 0, "at": length, "merges": main}]
    for k in range(1, 64):
        start = 0 if k % 2 else length
        items.append({"name": f"b{k}", "parent": "main", "parts_at": start, "at": start, "merges": [main[0]]})
    return {"current": "main", "branches": items}


def test_crafted_branches_are_refused_before_any_restore(tmp_path):
    trainer = Trainer(TEXT, TrainConfig(max_merges=3000))
    trainer.train()
    data = crafted_branches(trainer)
    from engine.train.branches import restore_work

    trained, walked = restore_work(data["branches"])
    fresh = Trainer(TEXT, TrainConfig(max_merges=3000))
    with pytest.raises(ValueError) as caught:
        fresh.restore_branches(data)
    assert str(caught.value) == (f"branches: restoring them would walk {walked:,} merges back and forth, more than 8 "
                                 f"times the {trained:,} they train (plus 20,000): refused")
    assert fresh.steps == 0 and not fresh.history  # nothing was done


def test_a_session_of_real_branches_is_within_the_bound():
    """What the app writes: train, go back, force a merge, train on; twice."""
    trainer = Trainer(TEXT, TrainConfig(max_merges=600, min_frequency=1))
    trainer.train()
    for back in (100, 400):
        trainer.switch("main")
        trainer.goto(back)
        pair = next(p for p in trainer.pair_counts() if p != trainer.future[-1].pair) if trainer.future else None
        trainer.force(pair)
        trainer.train()
    data = trainer.branch_data()
    from engine.train.branches import restore_work

    trained, walked = restore_work(data["branches"])
    assert walked <= 2 * trained
    fresh = Trainer(TEXT, TrainConfig(max_merges=600, min_frequency=1))
    assert fresh.restore_branches(data) is None
    assert fresh.branch_data() == data


def test_a_restore_can_be_stopped():
    trainer = Trainer(TEXT, TrainConfig(max_merges=300))
    trainer.train()
    trainer.goto(10)
    trainer.force(next(iter(trainer.pair_counts())))
    data = trainer.branch_data()
    from engine.train.branches import RestoreStopped

    asked = []
    fresh = Trainer(TEXT, TrainConfig(max_merges=300))
    with pytest.raises(RestoreStopped, match="^restoring the session's branches was stopped$"):
        fresh.restore_branches(data, stop=lambda: asked.append(1) or len(asked) > 50)
    assert len(asked) == 51 and fresh.steps < 300
    again = Trainer(TEXT, TrainConfig(max_merges=300))
    assert again.restore_branches(data, stop=lambda: False) is None and again.branch_data() == data


def test_the_bound_runs_in_a_small_fraction_of_the_restore():
    """The estimate walks no merges: 64 branches of the largest size are judged in a moment
    (under a CPU-time limit, so a quadratic estimate would fail, not hang)."""
    items = [{"name": "main", "parent": None, "parts_at": 0, "at": 0, "merges": [[1, 2]] * 100_000}]
    items += [{"name": f"b{k}", "parent": f"b{k - 1}" if k > 1 else "main", "parts_at": 50_000 - k, "at": 0,
               "merges": [[1, 2]] * 1000} for k in range(1, 64)]
    script = ("import json, sys; from engine.train.branches import restore_work; "
              "print(restore_work(json.load(sys.stdin)))")
    result = subprocess.run([sys.executable, "-c", script], input=json.dumps(items), capture_output=True, text=True,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=TIMEOUT,
                            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_CPU, (5, 5)))
    assert result.returncode == 0, result.stderr
    trained, walked = json.loads(result.stdout.replace("(", "[").replace(")", "]"))
    assert trained == 100_000 + 63_000 and walked > 0


# -- small tokenizer files that cost unbounded time -------------------------------------------


@pytest.mark.parametrize("pieces", [
    [("▁" * (2 ** k), -1e9, 1) for k in range(1, 9)] + [("▁", -2e9, 1), ("a", -2e9, 1)],  # runs of 2 to 256: cubic
    [("a", -10.0, 1), ("b", -10.0, 1), ("ab", -1.0, 1), ("ab" * 16000, -2.0, 1)],  # one piece of 32,000: quadratic
], ids=["runs-to-256", "ab-16000"])
def test_small_models_that_were_cubic_load_within_a_cpu_limit(pieces, tmp_path):
    """A 1.7 kB and a 32 kB .model that took over 60 s (the run plan checked on runs to 1,026
    with a quadratic rule; a 32,000-character piece split by rescans) load under the CPU limit."""
    from helpers import spm_model_bytes

    (tmp_path / "t.model").write_bytes(spm_model_bytes([("<unk>", 0.0, 2), *pieces], fallback=False))
    result = run("bpe-lab encode -t t.model '▁▁▁▁ ab'", tmp_path)
    assert result.returncode == 0, result.stderr[-500:]


def test_a_charsmap_that_loops_is_refused_before_any_walk(tmp_path):
    """A .model whose nmt_nfkc trie goes by ``a`` back to its root: each walk read 256 bytes in
    pure Python (100 kB of ``a`` took 14.7 s, 400 kB over 60 s). The loop is found when the
    table is read, in one pass over it."""
    from helpers import spm_model_bytes

    from bad_input_files import looping_charsmap

    pieces = [("<unk>", 0.0, 2), ("a", -1.0, 1), ("b", -2.0, 1)]
    (tmp_path / "t.model").write_bytes(spm_model_bytes(pieces, fallback=False, table=looping_charsmap()))
    (tmp_path / "a.txt").write_text("a" * 400_000, encoding="utf-8")
    refused(run("bpe-lab encode -t t.model < a.txt", tmp_path),
            "bpe-lab: error: t.model: the model's nmt_nfkc table is malformed (its trie loops back on itself)")
