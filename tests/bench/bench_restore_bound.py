"""Crafted session branches against training time (issue 21, item 13; run by hand).

    python tests/bench/bench_restore_bound.py [--corpus PATH] [--merges 2000]

Trains MERGES merges on the corpus as the app does (a Workbench: its checkpoints), then times:
the 64 crafted branches of the issue (parting from main alternately at 0 and at its end: every
one walks the whole line), which the bound refuses; the most alternations the bound still lets
through (the worst restore a session file can ask for); and a session the app writes (main,
and one branch forced half-way). Each is printed against the training time. Default corpus:
../shared/corpora/tang_all.txt.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from common import ROOT, record

sys.path.insert(0, str(ROOT))

from engine import TrainConfig  # noqa: E402
from engine.train.branches import RESTORE_FACTOR, RESTORE_SLACK, restore_work  # noqa: E402
from tui.model.workbench import LoadedCorpus, Workbench  # noqa: E402


def crafted(main: list[list[int]], branches: int) -> dict:
    length = len(main)
    items = [{"name": "main", "parent": None, "parts_at": 0, "at": length, "merges": main}]
    for k in range(1, branches):
        start = 0 if k % 2 else length
        items.append({"name": f"b{k}", "parent": "main", "parts_at": start, "at": start, "merges": [main[0]]})
    return {"current": "main", "branches": items}


def timed(action) -> tuple[float, object]:
    started = time.perf_counter()
    try:
        result = action()
    except ValueError as exc:
        result = exc
    return time.perf_counter() - started, result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", default=str(ROOT.parent / "shared" / "corpora" / "tang_all.txt"))
    parser.add_argument("--merges", type=int, default=2000)
    args = parser.parse_args()
    config = TrainConfig(max_merges=args.merges)
    corpus = LoadedCorpus.open(args.corpus, config.base)
    build, bench = timed(lambda: Workbench(corpus, config))
    trained_s, _ = timed(bench.trainer.train)
    main_line = [list(e.pair) for e in bench.trainer.history]
    print(f"{Path(args.corpus).name}: {len(main_line)} merges trained in {trained_s:.2f} s (build {build:.2f} s)")
    record("restore_bound.train_s", trained_s)

    def restore(data):  # a fresh trainer, as the app's resume builds one; only the restore is timed
        trainer = Workbench(corpus, config).trainer
        return lambda: trainer.restore_branches(data)

    # the 64 branches: refused by the bound, before any work
    data = crafted(main_line, 64)
    trained, walked = restore_work(data["branches"])
    seconds, result = timed(restore(data))
    print(f"64 crafted branches: walk {walked:,} for {trained:,} trained -> {type(result).__name__} in {seconds:.2f} s "
          f"({seconds / trained_s:.3f} x training; the estimate alone: nothing is walked)")
    print(f"    {result}")
    record("restore_bound.crafted64_s", seconds)
    # the most alternations the bound lets through
    most = max(k for k in range(2, 64) if (lambda w: w[1] <= RESTORE_FACTOR * w[0] + RESTORE_SLACK)(
        restore_work(crafted(main_line, k)["branches"])))
    data = crafted(main_line, most)
    trained, walked = restore_work(data["branches"])
    seconds, result = timed(restore(data))
    print(f"{most} crafted branches (the most the bound accepts): walk {walked:,} -> restored in {seconds:.2f} s "
          f"({seconds / trained_s:.2f} x training){'' if result is None else f' [{result}]'}")
    record("restore_bound.worst_accepted_ratio", seconds / trained_s)
    # what the app writes: main, then a branch forced half-way and trained to the end
    bench.trainer.goto(len(main_line) // 2)
    bench.trainer.force(next(iter(bench.trainer.pair_counts())))
    bench.trainer.train()
    real = bench.trainer.branch_data()
    trained, walked = restore_work(real["branches"])
    seconds, result = timed(restore(real))
    print(f"a session the app writes (2 branches): walk {walked:,} for {trained:,} trained -> {seconds:.2f} s "
          f"({seconds / trained_s:.2f} x training)")
    record("restore_bound.app_session_ratio", seconds / trained_s)


if __name__ == "__main__":
    main()
