"""Counting and training at scale: 10 MB, 100 MB and 1 GB of distinct text (run by hand).

    python tests/bench/bench_scale.py [--sizes 10,100,1000] [--runs 1] [--vocab 32000] [--no-dask]

Issue 16's scale benchmark. The corpus of each size is built once (cached in the bench folder)
from text files found on this machine: the Python installations' sources and packages, the
system's documentation, C headers and other text under /usr, /opt, /var/lib and the home folder (the suffixes in ``SUFFIXES``), each
file's content taken once (deduplicated by hash, so no file repeats and the chunk table cannot
shrink a repeated file away), only UTF-8 text, in a fixed order, cut at a line end.

For each size, whole processes, timed with GNU time (wall seconds and peak RSS):

- **bpe-lab count + train**: ``bpe-lab count CORPUS -o t.parquet`` (local cores), then
  ``bpe-lab train --counts t.parquet --vocab-size V``; the time is the two added up, the memory
  the larger peak.
- **bpe-lab, Dask**: the same with ``count --engine dask`` (a LocalCluster, one worker process a
  core: two here), then the same train; the peak is the client's and the scheduler's (GNU time
  follows the process it starts, not the workers the cluster spawns).
- **bpe-lab train** on the raw corpus (one process), for reference.
- **tokenizers**: ``BpeTrainer`` (ByteLevel, full alphabet, min_frequency 2, default threads)
  training from the file, as ``bench_train.py`` runs it.

Ratios are ours / tokenizers. Targets: ≤ 0.8× tokenizers' time at 100 MB and 1 GB, peak memory
≤ 1.5× theirs, near-linear growth (the last lines print seconds per MB at each size). Nothing
here asserts a time: these machines are noisy.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import sysconfig
import tempfile
from pathlib import Path

from bench_train import HF  # the same peer as the training benchmark

from common import CACHE, INSTALLED, alternate, ours, record

SUFFIXES = {".py", ".pyi", ".txt", ".rst", ".md", ".c", ".h", ".cc", ".cpp", ".hpp", ".html", ".js", ".ts", ".css", ".json",
            ".xml", ".go", ".rs", ".java", ".sh", ".pl", ".pm", ".rb", ".tex", ".po", ".yaml", ".yml", ".toml", ".cfg"}


def roots() -> list[Path]:
    """Where text is looked for, most useful first (the interpreter's own sources lead)."""
    found = [Path(sysconfig.get_paths()["stdlib"]), Path(sysconfig.get_paths()["purelib"]),
             Path("/usr/lib/python3"), Path("/usr/share/doc"), Path("/usr/include"), Path("/usr/share"),
             Path("/usr/lib"), Path(sys.base_prefix), Path("/opt"), Path.home(), Path("/usr"), Path("/var/lib"), Path("/srv")]
    return [r for r in found if r.is_dir()]


def distinct_text(size: int) -> Path:
    """``size`` bytes of distinct UTF-8 text files from this machine (cached)."""
    CACHE.mkdir(exist_ok=True)
    path = CACHE / f"scale-{size // 1_000_000}MB.txt"
    if path.exists() and path.stat().st_size >= size * 0.98:
        return path
    seen: set[bytes] = set()
    total = 0
    # the bench folder, the checkouts (and their copies of the same packages), the system's own
    skip = {CACHE.resolve(), Path(__file__).resolve().parents[2].parent, Path("/proc"), Path("/sys"), Path("/tmp")}
    with open(path.with_suffix(".part"), "wb") as out:
        for root in roots():
            for folder, dirs, files in os.walk(root):
                here = Path(folder)
                dirs[:] = sorted(d for d in dirs if (here / d).resolve() not in skip and not d.startswith("."))
                for name in sorted(files):
                    if Path(name).suffix not in SUFFIXES:
                        continue
                    try:
                        data = (here / name).read_bytes()
                        data.decode("utf-8")
                    except (OSError, UnicodeDecodeError):
                        continue
                    digest = hashlib.blake2b(data, digest_size=16).digest()
                    if len(data) < 512 or digest in seen:
                        continue
                    seen.add(digest)
                    if not data.endswith(b"\n"):
                        data += b"\n"
                    out.write(data[: size - total])
                    total += min(len(data), size - total)
                    if total >= size:
                        break
                if total >= size:
                    break
            if total >= size:
                break
    os.replace(path.with_suffix(".part"), path)
    if total < size:
        print(f"note: only {total / 1e6:.0f} MB of distinct text on this machine (asked for {size / 1e6:.0f} MB)")
    return path


def chain(*commands: list[str]) -> list[str]:
    """One child running commands one after another (a shell's ``&&``), so GNU time reports the
    peak of the larger and the time of both."""
    script = " && ".join(" ".join(_quote(a) for a in command) for command in commands)
    return ["/bin/sh", "-c", script]


def _quote(arg: str) -> str:
    import shlex

    return shlex.quote(arg)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10,100,1000", help="corpus sizes in MB")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--vocab", type=int, default=32000)
    parser.add_argument("--no-dask", action="store_true")
    args = parser.parse_args()
    vocab = str(args.vocab)
    growth: dict[str, list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        for megabytes in [int(s) for s in args.sizes.split(",")]:
            corpus = distinct_text(megabytes * 1_000_000)
            mb = corpus.stat().st_size / 1e6
            table = str(out / "t.parquet")
            train_table = ours("train", "--counts", table, "-o", str(out / "c.json"), "--vocab-size", vocab, "--quiet")
            contenders: dict[str, object] = {
                "tokenizers": [sys.executable, "-c", HF, str(corpus), vocab, str(out / "hf.json")],
                "bpe-lab count + train --counts": (chain(ours("count", str(corpus), "-o", table, "--quiet"), train_table), INSTALLED),
                "bpe-lab train (raw corpus)": (ours("train", str(corpus), "-o", str(out / "r.json"), "--vocab-size", vocab, "--quiet"),
                                               INSTALLED),
            }
            if not args.no_dask:
                contenders["bpe-lab count --engine dask + train"] = (
                    chain(ours("count", str(corpus), "-o", table, "--engine", "dask", "--quiet"), train_table), INSTALLED)
            results = alternate(contenders, args.runs)  # type: ignore[arg-type]
            base_time, base_rss = results["tokenizers"]
            print(f"\n== {mb:.0f} MB of distinct text ({corpus.name}), vocabulary {vocab}")
            for name, (seconds, peak) in results.items():
                print(f"  {name:<36} {seconds:8.1f} s {peak:7d} MB   time x{seconds / base_time:5.2f}   memory x{peak / max(base_rss, 1):5.2f}")
                growth.setdefault(name, []).append((mb, seconds))
            ours_time, ours_rss = results["bpe-lab count + train --counts"]
            record(f"scale {megabytes} MB time", ours_time / base_time)
            record(f"scale {megabytes} MB memory", ours_rss / max(base_rss, 1))
    print("\n== growth: seconds per MB at each size")
    for name, points in growth.items():
        print(f"  {name:<36} " + "   ".join(f"{mb:.0f} MB: {s / mb:.3f}" for mb, s in points))


if __name__ == "__main__":
    main()
