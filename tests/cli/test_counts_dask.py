"""``bpe-lab count --engine dask`` on a real ``distributed`` cluster: a scheduler and two workers
started here as separate processes, bound to loopback, and stopped by the test. The table is the
local counter's exactly, and training from it makes the merges of training on the text."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import tui.cli.commands as cli
from engine import PreTokenizer
from engine.corpus import count_inputs, read_counts

pytest.importorskip("distributed")
pytestmark = pytest.mark.slow  # a cluster takes seconds to start

DASK = Path(sys.executable).with_name("dask")


def _address(scheduler: subprocess.Popen) -> str:
    """The scheduler's address, read from its log as it starts listening (then the log is drained
    by a thread, so that it never blocks on a full pipe)."""
    for line in scheduler.stderr:
        if "Scheduler at:" in line:
            threading.Thread(target=scheduler.stderr.read, daemon=True).start()
            return line.split("Scheduler at:", 1)[1].strip()
    raise AssertionError("the scheduler exited before listening")


@pytest.fixture
def cluster(tmp_path):
    """tcp://127.0.0.1:PORT of a scheduler with two single-threaded workers (separate processes)."""
    if not DASK.exists() and shutil.which("dask") is None:
        pytest.skip("the dask command is not installed")
    dask = str(DASK if DASK.exists() else shutil.which("dask"))
    procs = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=tmp_path)]
    try:
        address = _address(procs[0])
        assert address.startswith("tcp://127.0.0.1:")
        for _ in range(2):
            procs.append(subprocess.Popen([dask, "worker", address, "--host", "127.0.0.1", "--nworkers", "1",
                                           "--nthreads", "1", "--no-dashboard"],
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp_path))
        from distributed import Client

        with Client(address, timeout=60) as client:
            client.wait_for_workers(2, timeout=120)
        yield address
    finally:
        for proc in reversed(procs):
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _corpus(tmp_path: Path) -> list[str]:
    lines = [f"line {i}: the value is {i * 7919 % 1000}, the word {'abcdefg'[i % 7] * (i % 5)} 中文{i % 3}\n" for i in range(30_000)]
    (tmp_path / "a.txt").write_text("".join(lines[:20_000]))
    import gzip

    with gzip.open(tmp_path / "b.txt.gz", "wt") as handle:
        handle.write("".join(lines[20_000:]))
    return [str(tmp_path / "a.txt"), str(tmp_path / "b.txt.gz")]


def test_dask_on_a_two_worker_cluster_counts_exactly_as_the_local_counter(cluster, tmp_path, monkeypatch):
    inputs = _corpus(tmp_path)
    monkeypatch.setattr("engine.corpus.count_blocks.TASK_BYTES", 100_000)  # many blocks, spread over both workers
    err = io.StringIO()
    code = cli.main(["count", *inputs, "-o", str(tmp_path / "dask.parquet"), "--engine", "dask", "--scheduler", cluster],
                    out=io.StringIO(), err=err)
    assert code == 0, err.getvalue()
    local = count_inputs(inputs, PreTokenizer("gpt2"), processes=1, task_bytes=100_000)
    table = read_counts(tmp_path / "dask.parquet")
    assert list(table.chunks.items()) == list(local.chunks.items())
    assert [i["sha256"] for i in table.inputs] == [i["sha256"] for i in local.inputs]
    # and training from it is training on the text
    assert cli.main(["train", "--counts", str(tmp_path / "dask.parquet"), "-o", str(tmp_path / "t.json"), "--merges", "300"],
                    out=io.StringIO(), err=io.StringIO()) == 0
    whole = tmp_path / "whole.txt"
    import gzip

    whole_text = Path(inputs[0]).read_text() + gzip.open(inputs[1], "rt").read()
    whole.write_text(whole_text)  # both files end with a newline before a letter: no chunk joins them
    assert cli.main(["train", str(whole), "-o", str(tmp_path / "raw.json"), "--merges", "300"], out=io.StringIO(), err=io.StringIO()) == 0
    assert json.loads((tmp_path / "t.json").read_text())["merges"] == json.loads((tmp_path / "raw.json").read_text())["merges"]


def test_dask_without_a_scheduler_starts_a_local_cluster(tmp_path):
    inputs = _corpus(tmp_path)
    err = io.StringIO()
    code = cli.main(["count", *inputs, "-o", str(tmp_path / "c.parquet"), "--engine", "dask"], out=io.StringIO(), err=err)
    assert code == 0, err.getvalue()
    local = count_inputs(inputs, PreTokenizer("gpt2"), processes=1)
    assert list(read_counts(tmp_path / "c.parquet").chunks.items()) == list(local.chunks.items())
