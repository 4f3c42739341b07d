"""Undo, redo and goto against training the same merges (run by hand).

    python tests/bench/bench_undo.py [--corpus PATH] [--vocab 32000]

Trains to the vocabulary (undo log on), then undoes half of the merges, redoes them, undoes
them again, and goes from half-way to 0, to the end and back to 0; each is compared with the
time training those merges took (target: undo or redo of N merges <= 0.1 x the time to train
them). Twice per corpus: walking merge by merge (no checkpoints) and as the app does it (its
checkpoints and memory bound, tui/model/workbench.py; engine/train/checkpoints.py). Corpora: 10 MB of standard library source;
../shared/corpora/tang_all.txt too when present.
"""

from __future__ import annotations

import argparse
import gc
import resource
import subprocess
import sys
import time
from pathlib import Path

from common import ROOT, record, shared_corpus, stdlib_corpus

sys.path.insert(0, str(ROOT))

from engine import TrainConfig, Trainer  # noqa: E402
from tui.model.workbench import CHECKPOINT_MEMORY, CHECKPOINTS  # noqa: E402


def timed(action) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def measure(path, vocab: int, checkpoints: int) -> None:
    text = path.read_text(encoding="utf-8")
    trainer = Trainer(text, TrainConfig(vocab_size=vocab), checkpoints=checkpoints, checkpoint_memory=CHECKPOINT_MEMORY)
    gc.disable()
    marks = []
    started = time.perf_counter()
    for _event in trainer.run():
        marks.append(time.perf_counter() - started)
    total = len(marks)
    half = total // 2
    train_half = marks[-1] - marks[half - 1]
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    moves = [  # (key for run_all.py, title, target step, time training those merges took)
        ("undo", f"undo the last {total - half}", half, train_half),
        ("redo", f"redo those {total - half}", total, train_half),
        ("undo again", "undo them again", half, train_half),
        ("goto start", f"goto 0 from {half}", 0, marks[half - 1]),
        ("goto end", f"goto {total} from 0", total, marks[-1]),
        ("goto start", f"goto 0 from {total}", 0, marks[-1]),
    ]
    kind = f"{checkpoints} checkpoints (the app)" if checkpoints else "no checkpoints (walking)"
    print(f"\n== {path.name}, {kind}: {total} merges trained in {marks[-1]:.2f} s (the last {total - half} in {train_half:.2f} s)")
    for key, title, target, trained in moves:
        took = timed(lambda: trainer.goto(target))
        print(f"  {title:<26} {took:7.3f} s  x{took / trained:.3f} of training those merges")
        record(f"undo {path.stem} {'app' if checkpoints else 'walking'} {key}", took / trained)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    print(f"  peak RSS {rss} MB after training, {peak} MB after the moves")
    gc.enable()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--vocab", type=int, default=32000)
    parser.add_argument("--one", nargs=2, metavar=("CORPUS", "CHECKPOINTS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:  # one measurement, in its own process so that its peak memory is its own
        measure(Path(args.one[0]), args.vocab, int(args.one[1]))
        return
    corpora = [stdlib_corpus(10_000_000), shared_corpus("tang_all.txt")]
    for path in corpora:
        if path is None:
            continue
        for checkpoints in (0, CHECKPOINTS):
            argv = [sys.executable, __file__, "--vocab", str(args.vocab), "--one", str(path), str(checkpoints)]
            subprocess.run(argv, check=True)


if __name__ == "__main__":
    main()
