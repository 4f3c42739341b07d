"""Undo, redo and goto against training the same merges (run by hand).

    python tests/bench/bench_undo.py [--corpus PATH] [--vocab 32000]

Trains to the vocabulary (undo log on), then undoes half of the merges, redoes them, and goes
from the last step to 0 and back; each is compared with the time training those merges took
(target: undo or redo of N merges <= 0.1 x the time to train them). Default corpus: 10 MB of
standard library source; ../shared/corpora/tang_all.txt too when present.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time

from common import ROOT, shared_corpus, stdlib_corpus

sys.path.insert(0, str(ROOT))

from engine import TrainConfig, Trainer  # noqa: E402


def measure(path, vocab: int) -> None:
    text = path.read_text(encoding="utf-8")
    trainer = Trainer(text, TrainConfig(vocab_size=vocab))
    gc.disable()
    marks = []
    started = time.perf_counter()
    for event in trainer.run():
        marks.append(time.perf_counter() - started)
    total = len(marks)
    half = total // 2
    train_second_half = marks[-1] - marks[half - 1]
    t0 = time.perf_counter()
    trainer.goto(half)
    undo = time.perf_counter() - t0
    t0 = time.perf_counter()
    trainer.goto(total)
    redo = time.perf_counter() - t0
    t0 = time.perf_counter()
    trainer.goto(0)
    down = time.perf_counter() - t0
    t0 = time.perf_counter()
    trainer.goto(total)
    up = time.perf_counter() - t0
    gc.enable()
    print(f"\n== {path.name}: {total} merges trained in {marks[-1]:.2f} s (last {total - half} in {train_second_half:.2f} s)")
    print(f"  undo {total - half} merges: {undo:.3f} s  x{undo / train_second_half:.3f} of training them")
    print(f"  redo {total - half} merges: {redo:.3f} s  x{redo / train_second_half:.3f}")
    print(f"  goto 0 from {total}: {down:.3f} s  x{down / marks[-1]:.3f} of training all")
    print(f"  goto {total} from 0: {up:.3f} s  x{up / marks[-1]:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--vocab", type=int, default=32000)
    args = parser.parse_args()
    measure(stdlib_corpus(10_000_000), args.vocab)
    tang = shared_corpus("tang_all.txt")
    if tang is not None:
        measure(tang, args.vocab)


if __name__ == "__main__":
    main()
