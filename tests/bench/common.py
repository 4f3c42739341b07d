"""Shared pieces for the hand-run benchmarks: corpora, timing child processes, reporting.

Every benchmark times a peer in the same run, alternating ours and theirs, and reports medians
and ratios (ours / peer; lower is better). Nothing here asserts a time: these machines are noisy.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "corpora"
CACHE = Path(tempfile.gettempdir()) / "bpe-lab-bench"


def code_files() -> list[Path]:
    """Distinct Python source files (by content) of the running interpreter's standard library,
    then of its site-packages, each list shuffled with a fixed seed: realistic code, never one
    text repeated and never a sorted prefix (which puts one package's near-identical files
    side by side)."""
    seen: set[bytes] = set()
    out: list[Path] = []
    for root in (Path(sysconfig.get_paths()["stdlib"]), Path(sysconfig.get_paths()["purelib"])):
        files = []
        for source in sorted(root.rglob("*.py")):
            if root.name != "site-packages" and "site-packages" in source.parts:
                continue
            try:
                data = source.read_bytes()
                data.decode("utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            digest = hashlib.sha256(data).digest()
            if digest not in seen and data.strip():
                seen.add(digest)
                files.append(source)
        random.Random(0).shuffle(files)
        out += files
    return out


def stdlib_corpus(size: int) -> Path:
    """``size`` bytes of distinct Python source files, shuffled (:func:`code_files`: the standard
    library first, then site-packages past 31 MB), cached in /tmp."""
    CACHE.mkdir(exist_ok=True)
    path = CACHE / f"code-shuffled-{size}.txt"
    if path.exists() and path.stat().st_size >= size - 4:
        return path
    chunks: list[bytes] = []
    total = 0
    for source in code_files():
        data = source.read_bytes()
        chunks.append(data)
        total += len(data)
        if total >= size:
            break
    blob = b"".join(chunks)[:size]
    blob = blob.decode("utf-8", "ignore").encode("utf-8")  # never cut a character in half
    path.write_bytes(blob)
    return path


def shared_corpus(name: str) -> Path | None:
    path = SHARED / name
    return path if path.exists() else None


#: CPU seconds (user + system) of each contender's runs in the last :func:`alternate`, by name:
#: steadier than wall time on a machine shared with other work (:func:`report` prints both).
CPU: dict[str, list[float]] = {}


def run_child(argv: list[str], env: dict[str, str | None] | None = None, cpu: list[float] | None = None,
              stdin: Path | None = None) -> tuple[float, int]:
    """Wall seconds and peak RSS (MB) of one child process (its CPU seconds appended to ``cpu``).

    GNU time (``/usr/bin/time``) reports the RSS: a child forked from this (large) process would
    count this process's pages as its own before it execs.
    """
    timer = ["/usr/bin/time", "-f", "%e %M %U %S"] if Path("/usr/bin/time").exists() else []
    started = time.perf_counter()
    merged = {name: value for name, value in {**os.environ, **(env or {})}.items() if value is not None}
    with open(stdin or os.devnull, "rb") as given:
        proc = subprocess.run(timer + argv, stdin=given, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=merged)
    elapsed = time.perf_counter() - started
    err = proc.stderr.decode("utf-8", "replace")
    if proc.returncode != 0:
        raise RuntimeError(f"{argv[:3]} failed: {err.strip()[-500:]}")
    if timer:
        wall, kb, user, system = err.strip().splitlines()[-1].split()
        if cpu is not None:
            cpu.append(float(user) + float(system))
        return float(wall), int(kb) // 1024
    return elapsed, 0


def alternate(contenders: dict[str, list[str] | tuple[list[str], dict]], runs: int = 3,
              stdin: Path | None = None) -> dict[str, tuple[float, int]]:
    """Run each contender ``runs`` times, interleaved (each reading ``stdin``, when given);
    return (median seconds, max RSS MB)."""
    times: dict[str, list[float]] = {name: [] for name in contenders}
    rss: dict[str, int] = {name: 0 for name in contenders}
    CPU.clear()
    CPU.update({name: [] for name in contenders})
    for _ in range(runs):
        for name, spec in contenders.items():
            argv, env = spec if isinstance(spec, tuple) else (spec, {})
            seconds, peak = run_child(argv, env, CPU[name], stdin)
            times[name].append(seconds)
            rss[name] = max(rss[name], peak)
    return {name: (statistics.median(times[name]), rss[name]) for name in contenders}


#: Run our code as an installed copy runs: with its modules' bytecode cached (pip compiles it at
#: install, as it did for the peers' packages). Where PYTHONDONTWRITEBYTECODE is set, a source
#: checkout would otherwise compile every module of engine/ and tui/ at each launch (~25 ms).
INSTALLED: dict[str, str | None] = {"PYTHONDONTWRITEBYTECODE": None, "PYTHONPYCACHEPREFIX": str(CACHE / "pycache")}


def ours(*args: str, root: Path = ROOT) -> list[str]:
    """The real command line, from this checkout (or the one at ``root``: ``--before``)."""
    return [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(root)!r}); from tui.main import entry; sys.argv[0] = 'bpe-lab'; entry()", *args]


#: The environment that forces bpe-lab's pure-Python path (engine/native/door.py).
PURE: dict[str, str | None] = {**INSTALLED, "BPE_LAB_PURE": "1"}


def record(key: str, value: float) -> None:
    """Hand one measured figure to ``run_all.py``'s summary table (nothing when run alone)."""
    path = os.environ.get("BPE_LAB_BENCH_RESULTS")
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps({"key": key, "value": value}) + "\n")


def report(title: str, results: dict[str, tuple[float, int]], baseline: str) -> None:
    """Print medians, peak memory and ratios against ``baseline``."""
    print(f"\n== {title}")
    base_time, base_rss = results[baseline]
    base_cpu = cpu_median(baseline)
    for name, (seconds, peak) in results.items():
        used = cpu_median(name)
        cpu = f"   CPU {used:5.2f} s x{used / base_cpu:5.2f}" if used and base_cpu else ""
        print(f"  {name:<34} {seconds:7.2f} s  {peak:6d} MB   time x{seconds / base_time:5.2f}   memory x{peak / max(base_rss, 1):5.2f}{cpu}")


def cpu_median(name: str) -> float:
    """Median CPU seconds of a contender of the last :func:`alternate` (0 when not measured)."""
    return statistics.median(CPU[name]) if CPU.get(name) else 0.0
