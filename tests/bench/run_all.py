"""Every benchmark in turn, then issue 6's table of targets with the values measured (run by hand).

    python tests/bench/run_all.py [--skip app start ...]

Each benchmark prints its own report as it runs (about ten minutes in all on a 2-core machine)
and hands its key figures over through a file (``common.record``); the table at the end puts
them against the targets. Ratios are ours / peer, measured in the same run; lower is better
except for speed-ups and throughput.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHES = {
    "train": ["bench_train.py"],
    "naive": ["bench_naive.py"],
    "encode": ["bench_encode.py"],
    "undo": ["bench_undo.py"],
    "app": ["bench_app.py", "--presses", "12"],
    "start": ["bench_start.py"],
}


def run(names: list[str]) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        results = Path(tmp) / "results.jsonl"
        results.touch()
        for name in names:
            print(f"\n######## {name}: python tests/bench/{' '.join(BENCHES[name])}", flush=True)
            env = {**os.environ, "BPE_LAB_BENCH_RESULTS": str(results)}
            code = subprocess.run([sys.executable, str(HERE / BENCHES[name][0]), *BENCHES[name][1:]], env=env).returncode
            if code != 0:
                print(f"######## {name} failed (exit {code}); its rows stay empty", flush=True)
        figures: dict[str, float] = {}
        for line in results.read_text(encoding="utf-8").splitlines():
            item = json.loads(line)
            figures[item["key"]] = item["value"]
        return figures


def judge(values: list[float], target: float, moonshot: float | None, higher_is_better: bool = False) -> str:
    if not values:
        return "not measured"
    worst = min(values) if higher_is_better else max(values)
    met = worst >= target if higher_is_better else worst <= target
    if moonshot is None:
        return "yes" if met else "no"
    shot = worst >= moonshot if higher_is_better else worst <= moonshot
    return "moonshot" if shot else "yes" if met else "no"


def table(f: dict[str, float]) -> list[tuple[str, str, str, str, str]]:
    def get(*keys: str) -> list[float]:
        return [f[k] for k in keys if k in f]

    def x(value: float) -> str:
        return f"{value:.2f}x"

    rows = []
    code = ["code 1 MB", "code 10 MB", "prose"]
    default = get(*(f"train {c} default" for c in code))
    fastest = get(*(f"train {c} fastest" for c in code))
    measured = "; ".join(
        f"{c} {x(f[f'train {c} default'])} (fastest setting {x(f[f'train {c} fastest'])})" for c in code if f"train {c} default" in f
    )
    rows.append(("training, English/code, vocab 32k", "<= 1.0x", "<= 0.7x", measured or "-",
                 f"default: {judge(default, 1.0, 0.7)}; fastest: {judge(fastest, 1.0, 0.7)}"))
    chinese = get("train Chinese default")
    rows.append(("training, Chinese tang_all.txt", "<= 1.5x", "<= 1.0x",
                 f"{x(chinese[0])} (fastest setting {x(f['train Chinese fastest'])})" if chinese else "-",
                 f"default: {judge(chinese, 1.5, 1.0)}; fastest: {judge(get('train Chinese fastest'), 1.5, 1.0)}"))
    memory = get(*(f"train {c} memory" for c in ("code 1 MB", "code 10 MB", "Chinese", "prose")))
    rows.append(("peak memory, same runs", "<= 2x", "<= 1x", ", ".join(x(m) for m in memory) or "-", judge(memory, 2.0, 1.0)))
    naive = get("naive speed-up")
    rows.append(("against the naive seed algorithm", ">= 200x", ">= 500x", f"{naive[0]:.0f}x faster" if naive else "-",
                 judge(naive, 200, 500, higher_is_better=True)))
    encode = get("encode 1 MB warm")
    rows.append(("encoding throughput, warm, 1 MB", ">= 0.5x tiktoken", ">= 1x",
                 f"{x(encode[0])} (10 MB {x(f['encode 10 MB warm'])})" if encode and "encode 10 MB warm" in f else "-",
                 judge(encode, 0.5, 1.0, higher_is_better=True)))
    moves = ("undo", "redo", "undo again", "goto start", "goto end")
    for stem in ("code-shuffled-10000000", "tang_all"):
        with_copies = get(*(f"undo {stem} app {m}" for m in moves))
        walking = get(*(f"undo {stem} walking {m}" for m in moves))
        if with_copies:
            each = ", ".join(f"{m} {x(f[f'undo {stem} app {m}'])}" for m in moves if f"undo {stem} app {m}" in f)
            rows.append((f"undo/redo of N merges, {stem}", "<= 0.1x training them", "",
                         f"the app's checkpoints: {each}; walking: {x(min(walking))}-{x(max(walking))}" if walking else each,
                         judge(with_copies, 0.1, None)))
    app = get(*(f"app stdlib-5000000 {k}" for k in ("step", "undo", "goto", "far")))
    rows.append(("app: step / undo / goto, 5 MB, shown", "<= 50 ms", "<= 16 ms", " / ".join(f"{v * 1000:.0f} ms" for v in app) or "-",
                 judge(app, 0.050, 0.016)))
    keys = get(*(k for k in f if k.startswith("app ") and k.endswith(" key")))
    rows.append(("app: key press handled while training", "<= 100 ms", "<= 33 ms", f"worst median {max(keys) * 1000:.1f} ms" if keys else "-",
                 judge(keys, 0.100, 0.033)))
    start = get("start first frame")
    rows.append(("app: start to first frame, default corpus", "<= 1.5 s", "<= 0.5 s", f"{start[0]:.2f} s" if start else "-",
                 judge(start, 1.5, 0.5)))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--skip", nargs="*", default=[], choices=sorted(BENCHES))
    args = parser.parse_args()
    figures = run([name for name in BENCHES if name not in args.skip])
    print("\n######## issue 6's targets, measured now (ours / peer)\n")
    print("| what | target | moonshot | measured | met |")
    print("|---|---|---|---|---|")
    for row in table(figures):
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
