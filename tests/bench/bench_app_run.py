"""The app's full-speed training run against the headless trainer, same corpus (run by hand).

    python tests/bench/bench_app_run.py [--corpus tang_all.txt] [--vocab-size 32000]

Issue 16's fifth speed-gap row. The app (Pilot, 100×30) opens the corpus, and space runs
training at full speed to the vocabulary size while every pane follows; timed from the press
to the worker's end, with the step reached after 1 s and after the first 1,000 merges. The
peers, in the same run: ``Trainer.train()`` in this process on the same corpus and config (what
the app's worker drives; its merging, since the app built its trainer before space was pressed),
and whole-process ``bpe-lab train``. Target: the app ≤ 1.3× the
headless run. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

from common import INSTALLED, ROOT, alternate, ours, record, shared_corpus

sys.path.insert(0, str(ROOT))

from engine import TrainConfig, Trainer  # noqa: E402
from tui.app.shell import BpeApp  # noqa: E402
from tui.model.workbench import LoadedCorpus, Workbench  # noqa: E402


async def app_run(path: Path, vocab_size: int, steps: int) -> tuple[float, float, float | None]:
    """Seconds from space to the end of the run; merges made in its first second; seconds to
    the first 1,000 merges."""
    corpus = LoadedCorpus.open(str(path), "bytes")
    workbench = Workbench(corpus, TrainConfig(vocab_size=vocab_size))
    app = BpeApp(workbench=workbench)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        app.training.set_speed(None)
        started = time.perf_counter()
        await pilot.press("space")
        first_second = None
        thousand = None
        while True:
            await asyncio.sleep(0.02)
            elapsed = time.perf_counter() - started
            if first_second is None and elapsed >= 1.0:
                first_second = workbench.steps
            if thousand is None and workbench.steps >= 1000:
                thousand = elapsed
            if not app.workers._workers or all(w.is_finished for w in app.workers._workers):
                if workbench.steps > 0 and not workbench.training:
                    break
        await app.workers.wait_for_complete()
        total = time.perf_counter() - started
        await pilot.pause()
        assert workbench.steps == steps, (workbench.steps, steps)  # the same run as the headless one
    return total, float(first_second or workbench.steps), thousand


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", default="tang_all.txt")
    parser.add_argument("--vocab-size", type=int, default=32000)
    args = parser.parse_args()
    path = shared_corpus(args.corpus) or Path(args.corpus)
    if not path.exists():
        sys.exit(f"no corpus {args.corpus}: run from a checkout beside ../shared")
    text = path.read_text(encoding="utf-8")

    started = time.perf_counter()
    trainer = Trainer(text, TrainConfig(vocab_size=args.vocab_size))
    built = time.perf_counter() - started
    trainer.train()
    headless = time.perf_counter() - started
    steps = trainer.steps
    del trainer

    total, in_first_second, thousand = asyncio.run(app_run(path, args.vocab_size, steps))
    with tempfile.TemporaryDirectory() as out:
        whole = alternate({"bpe-lab train": (ours("train", str(path), "--vocab-size", str(args.vocab_size),
                                                   "-o", str(Path(out) / "t.json")), INSTALLED)}, 1)["bpe-lab train"][0]
    print(f"\n== {path.name}, vocab {args.vocab_size}")
    print(f"  Trainer.train() in process      {headless:7.2f} s  (building the trainer {built:.2f} s)")
    print(f"  bpe-lab train (whole process)   {whole:7.2f} s")
    merging = headless - built
    print(f"  the app, space to the end       {total:7.2f} s   x{total / merging:5.2f} of Trainer.train()'s merging "
          f"(the app built its trainer before), x{total / whole:5.2f} of bpe-lab train")
    print(f"  the app's first second: {in_first_second:,.0f} merges; first 1,000 merges in "
          f"{'-' if thousand is None else f'{thousand:.2f} s'}")
    record("app run ratio", total / merging)


if __name__ == "__main__":
    main()
