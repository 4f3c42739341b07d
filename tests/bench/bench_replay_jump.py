"""A jump to the end of a long replay, in the app and headless (run by hand; nothing asserts a time).

    python tests/bench/bench_replay_jump.py [--tokenizer llama3.tiktoken] [--corpus sample:workshop.txt]
    python tests/bench/bench_replay_jump.py --code /tmp/old-checkout   # the same, with another checkout's code

Issue 23: `g` to the last step of Llama 3's 127,049 merges replayed on the workshop sample. Timed:

- the headless walk: ``Trainer.replaying(...).goto(end)`` (what the app's worker drives);
- the app (Pilot, 100×30), from the jump to its worker's end, with the tokenize pane empty and
  with a sentence in it (re-encoded while the jump runs);
- training on the same corpus to its end in this process, for the cost of a merge made by choice.

Ratios are ours / the headless walk (lower is better). ``--code DIR`` imports bpe-lab from DIR
instead (an older checkout, its compiled core built or copied in), for before/after figures.
Real files come from tests/fetch_tokenizers.py's cache.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent
SENTENCE = "Türkiye Büyükşehir Belediyesi Ayrıca açıklama yaptı."


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tokenizer", default="llama3.tiktoken", help="a name in tests/fetch_tokenizers.py")
    parser.add_argument("--corpus", default="sample:workshop.txt")
    parser.add_argument("--code", type=Path, default=TESTS.parent, help="the checkout whose code is timed")
    return parser.parse_args()


def main() -> None:
    args = parse()
    sys.path[:0] = [str(args.code.resolve()), str(TESTS)]
    os.environ.setdefault("BPE_LAB_SESSION", str(Path(tempfile.mkdtemp()) / "session.json"))
    from fetch_tokenizers import LLAMA3_PATTERN, load_cached, real_file

    from engine import TrainConfig, Trainer
    from engine.text.pretokenize import PreTokenizer
    from tui.model.workbench import LoadedCorpus, Workbench

    path = real_file(args.tokenizer)
    if path is None:
        sys.exit(f"{args.tokenizer} cannot be had (python tests/fetch_tokenizers.py {args.tokenizer})")
    options = {"pretokenizer": PreTokenizer("custom", LLAMA3_PATTERN)} if args.tokenizer.startswith("llama3") else {}
    imported = load_cached(path, **options)
    script = imported.tokenizer
    end = len(script.merges)
    corpus = LoadedCorpus.open(args.corpus, script.base)

    started = time.perf_counter()
    trainer = Trainer.replaying(corpus.text, script)
    trainer.goto(end)
    headless = time.perf_counter() - started
    del trainer

    trained = Trainer(corpus.text, TrainConfig(base=script.base, min_frequency=1))
    started = time.perf_counter()
    trained.train()
    training, made = time.perf_counter() - started, trained.steps
    del trained

    def app_jump(text: str | None) -> float:
        from tui.app.options import LaunchOptions
        from tui.app.shell import BpeApp

        workbench = Workbench(corpus, TrainConfig(), script=script, file_ids=imported.file_ids)
        app = BpeApp(workbench=workbench, options=LaunchOptions(script=script, file_ids=imported.file_ids))

        async def run() -> float:
            async with app.run_test(size=(100, 30)) as pilot:
                await pilot.pause()
                if text is not None:
                    app.lab.tokenize(text)
                    await pilot.pause()
                began = time.perf_counter()
                app.lab.go(end)
                while workbench.steps != end or workbench.training:
                    await asyncio.sleep(0.02)
                took = time.perf_counter() - began
                await pilot.pause()
                return took

        return asyncio.run(run())

    empty = app_jump(None)
    typed = app_jump(SENTENCE)
    print(f"\n== {args.tokenizer} ({end:,} merges) on {args.corpus}, code of {args.code}")
    print(f"  headless Trainer.replaying().goto(end)  {headless:7.2f} s  ({end / headless:,.0f} merges/s)")
    print(f"  the app, g to the end, tokenize empty   {empty:7.2f} s  x{empty / headless:5.2f}")
    print(f"  the app, g to the end, a sentence typed {typed:7.2f} s  x{typed / headless:5.2f}")
    print(f"  training the corpus to its end          {training:7.2f} s  ({made:,} merges, "
          f"{made / training:,.0f} merges/s: a replayed merge costs x{(headless / end) / (training / made):.2f})")


if __name__ == "__main__":
    main()
