"""Training at scale: 50 MB, 200 MB and 1 GB of distinct code and of mixed-language text (run by hand).

    python tests/bench/bench_scale.py [--sizes 50,200,1000] [--corpora code,mixed] [--runs 1] [--no-dask]
                                      [--max-memory-gb 12]

Issues 16 and 43 (item 4). Each corpus is built once and cached in the bench folder (common.py):

- **code** (common.code_corpus): every distinct source file (by content; ``common.CODE_SUFFIXES``:
  Python, C and C++, Rust, JavaScript, Perl, shell ...) of this interpreter, the other pyenv
  Pythons beside it, Rust's toolchain sources and /usr/lib, /usr/include, /usr/share, /usr/local,
  shuffled with a fixed seed: the 50 MB corpus is the 200 MB one's beginning.
- **mixed** (common.mixed_corpus): up to 10 % other languages (tang_all.txt's Chinese in 64 kB
  blocks, the man pages translated into 30 languages, gettext catalogs), the rest English
  documentation (the English prose of bench_peers.py, package docs, /usr/share/doc's
  changelogs) and code half and half, shuffled together. The run prints each kind's megabytes.
- **text** (``--corpora text``): the corpus of the earlier rounds (``distinct_text``: text files
  found under /usr, /opt, /var/lib and the home folder in a fixed order, not shuffled).

For each corpus and size, whole processes, timed with GNU time (wall seconds and peak RSS), taking
turns (``--runs`` rounds, medians):

- **tokenizers**: ``BpeTrainer`` (ByteLevel, full alphabet, min_frequency 2, default threads)
  training from the file, as ``bench_train.py`` runs it.
- **bpe-lab train**: ``bpe-lab train CORPUS --vocab-size V`` on the raw corpus, one command
  (which counts a large file in two processes, the second half in a worker).
- **bpe-lab train, 1 process**: the same with ``--processes 1``: training on the text in one
  process, the issue's comparator for the Dask path.
- **bpe-lab count + train**: ``bpe-lab count CORPUS -o t.parquet`` (local processes, one a core),
  then ``bpe-lab train --counts t.parquet``; the time is the two added up, the memory the
  larger peak.
- **bpe-lab count --engine dask + train**: the same count on a Dask ``LocalCluster`` (two worker
  processes here, one a core), then the same train. Its peak is the client's and the scheduler's
  (GNU time follows the process it starts, not the workers the cluster spawns).

After each size the merges of the bpe-lab runs are compared: the table counted on Dask must
give the merges training on the text gives. At the end, for each contender, the growth: the
log-log slope of time and of peak memory over the corpus size (least squares over the sizes
run; 1.0 is linear), with bpe-lab train's slopes set against tokenizers' (the issue: "grow no
faster"), and whether Dask's path (count + train, added up) beat training on the text in one
process (``--processes 1``), and in two (plain ``bpe-lab train``).

``--max-memory-gb`` (default 12) watches the children's summed RSS each second and stops the run
when it passes the bound (the machine is shared). Ratios are ours / tokenizers. Nothing here
asserts a time: these machines are noisy.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import sys
import sysconfig
import tempfile
import threading
import time
from pathlib import Path

from bench_train import HF  # the same peer as the training benchmark

from common import CACHE, INSTALLED, alternate, code_corpus, mixed_corpus, ours, record

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


CORPORA = {"code": code_corpus, "mixed": mixed_corpus, "text": distinct_text}


class MemoryWatch:
    """Polls the summed RSS of this process's descendants once a second; past ``limit`` bytes it
    kills them (the run then fails with the line this prints). psutil: the test extra."""

    def __init__(self, limit_gb: float) -> None:
        self.limit = int(limit_gb * 1e9)
        self.peak = 0
        self.tripped = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def __enter__(self) -> MemoryWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()

    def _watch(self) -> None:
        import psutil

        me = psutil.Process()
        while not self._stop.wait(1.0):
            children = me.children(recursive=True)
            total = 0
            for child in children:
                try:
                    total += child.memory_info().rss
                except psutil.Error:
                    pass
            self.peak = max(self.peak, total)
            if total > self.limit:
                self.tripped = True
                print(f"\n!!!!!!!! the children's memory reached {total / 1e9:.1f} GB (bound {self.limit / 1e9:.0f} GB): stopped",
                      flush=True)
                for child in children:
                    try:
                        child.kill()
                    except psutil.Error:
                        pass


def merges_of(path: Path) -> list:
    """The merges in a tokenizer file bpe-lab wrote."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return data["merges"] if "merges" in data else data["model"]["merges"]


def slope(points: list[tuple[float, float]]) -> float | None:
    """Least-squares slope of log(y) over log(x): 1.0 is linear growth."""
    points = [(math.log(x), math.log(y)) for x, y in points if x > 0 and y > 0]
    if len(points) < 2:
        return None
    mx = sum(x for x, _ in points) / len(points)
    my = sum(y for _, y in points) / len(points)
    spread = sum((x - mx) ** 2 for x, _ in points)
    return sum((x - mx) * (y - my) for x, y in points) / spread if spread else None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="50,200,1000", help="corpus sizes in MB")
    parser.add_argument("--corpora", default="code,mixed", help=f"comma-separated, of: {', '.join(CORPORA)}")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--vocab", type=int, default=32000)
    parser.add_argument("--no-dask", action="store_true")
    parser.add_argument("--max-memory-gb", type=float, default=12.0, help="stop when the children's RSS passes this")
    args = parser.parse_args()
    vocab = str(args.vocab)
    print(f"{time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}", flush=True)
    for kind in args.corpora.split(","):
        with MemoryWatch(args.max_memory_gb) as watch:
            run_corpus(kind, [int(s) for s in args.sizes.split(",")], args, vocab, watch)
        if watch.tripped:
            sys.exit(1)


def run_corpus(kind: str, sizes: list[int], args: argparse.Namespace, vocab: str, watch: MemoryWatch) -> None:
    growth: dict[str, list[tuple[float, float, float]]] = {}
    dask_verdicts: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        for megabytes in sizes:
            corpus = CORPORA[kind](megabytes * 1_000_000)
            mb = corpus.stat().st_size / 1e6
            table, dask_table = str(out / "t.parquet"), str(out / "d.parquet")
            contenders: dict[str, object] = {
                "tokenizers": [sys.executable, "-c", HF, str(corpus), vocab, str(out / "hf.json")],
                "bpe-lab train": (ours("train", str(corpus), "-o", str(out / "r.json"), "--vocab-size", vocab, "--quiet"), INSTALLED),
                "bpe-lab train, 1 process": (ours("train", str(corpus), "-o", str(out / "one.json"), "--vocab-size", vocab,
                                                  "--quiet", "--processes", "1"), INSTALLED),
                "bpe-lab count + train": (chain(ours("count", str(corpus), "-o", table, "--quiet"),
                                                ours("train", "--counts", table, "-o", str(out / "c.json"), "--vocab-size", vocab, "--quiet")),
                                          INSTALLED),
            }
            if not args.no_dask:
                contenders["bpe-lab count dask + train"] = (
                    chain(ours("count", str(corpus), "-o", dask_table, "--engine", "dask", "--quiet"),
                          ours("train", "--counts", dask_table, "-o", str(out / "d.json"), "--vocab-size", vocab, "--quiet")),
                    INSTALLED)
            results = alternate(contenders, args.runs)  # type: ignore[arg-type]
            base_time, base_rss = results["tokenizers"]
            print(f"\n== {kind}: {mb:.0f} MB ({corpus.name}), vocabulary {vocab}; children's summed peak so far "
                  f"{watch.peak / 1e9:.1f} GB")
            for name, (seconds, peak) in results.items():
                print(f"  {name:<28} {seconds:8.1f} s {peak:7d} MB   time x{seconds / base_time:5.2f}   memory x{peak / max(base_rss, 1):5.2f}",
                      flush=True)
                growth.setdefault(name, []).append((mb, seconds, peak))
            raw = merges_of(out / "r.json")
            same_local = merges_of(out / "c.json") == raw and merges_of(out / "one.json") == raw
            line = (f"  merges: {len(raw):,} training on the text; in one process, count + train "
                    f"{'the same' if same_local else 'DIFFERENT'}")
            if not args.no_dask:
                same_dask = merges_of(out / "d.json") == raw
                dask_time = results["bpe-lab count dask + train"][0]
                one, two = results["bpe-lab train, 1 process"][0], results["bpe-lab train"][0]
                line += f"; Dask + train {'the same' if same_dask else 'DIFFERENT'}"
                dask_verdicts.append(f"{mb:.0f} MB: {'same merges' if same_dask else 'DIFFERENT MERGES'}, {dask_time:.1f} s "
                                     f"against {one:.1f} s in one process ({'FASTER' if dask_time < one else 'not faster'}), "
                                     f"{two:.1f} s in two ({'faster' if dask_time < two else 'not faster'})")
            print(line + ("" if same_local and (args.no_dask or same_dask) else "   !!!!!!!! MISMATCH"), flush=True)
            ours_time, ours_rss = results["bpe-lab train"]
            record(f"scale {kind} {megabytes} MB time", ours_time / base_time)
            record(f"scale {kind} {megabytes} MB memory", ours_rss / max(base_rss, 1))
    print(f"\n== {kind}: growth over {', '.join(f'{mb:.0f}' for mb, _, _ in next(iter(growth.values())))} MB "
          "(log-log slope; 1.0 is linear)")
    for name, points in growth.items():
        time_slope, memory_slope = slope([(mb, s) for mb, s, _ in points]), slope([(mb, m) for mb, _, m in points])
        per_mb = "   ".join(f"{mb:.0f} MB: {s / mb:.3f} s/MB {m / mb:.1f} MB/MB" for mb, s, m in points)
        shown = "   ".join(f"{what} {value:.2f}" if value is not None else f"{what} -"
                           for what, value in (("time", time_slope), ("memory", memory_slope)))
        print(f"  {name:<28} {shown}   ({per_mb})")
    if "tokenizers" in growth and "bpe-lab train" in growth and len(growth["tokenizers"]) > 1:
        theirs, ours_ = growth["tokenizers"], growth["bpe-lab train"]
        for what, at in (("time", 1), ("memory", 2)):
            a, b = slope([(p[0], p[at]) for p in ours_]), slope([(p[0], p[at]) for p in theirs])
            if a is not None and b is not None:
                print(f"  bpe-lab train's {what} slope {a:.2f} against tokenizers' {b:.2f}: "
                      f"{'grows no faster' if a <= b else 'GROWS FASTER'}")
    if dask_verdicts:
        print("  Dask count + train against training on the text:")
        for verdict in dask_verdicts:
            print(f"    {verdict}")


if __name__ == "__main__":
    main()
