"""A step near the end of a long replay, with text in the tokenize pane (run by hand; nothing
asserts a time).

    python tests/bench/bench_replay_step.py [--tokenizer llama3.tiktoken] [--steps 5]
    python tests/bench/bench_replay_step.py --code /tmp/old-checkout   # another checkout's code
    BPE_LAB_PURE=1 python tests/bench/bench_replay_step.py              # the pure path

What the app does after each step of a replay when text is typed: the step's tokenizer
(``Trainer.tokenizer()``, a step of the replayed file) and its first encoding of the text (which
makes what the tokenizer makes at first use: for a rank file, its rank order and merger; for
Chinese, the borders of its vocabulary). ``Trainer.replaying`` on 20,000 characters of
../shared/corpora/tang_2000.txt (the workshop sample without ../shared), ``goto`` to 745 merges
before the end, then ``--steps`` steps, each timed. The first step after the jump also pays
what the file's own tokenizer makes once. Real files come from tests/fetch_tokenizers.py's cache;
``--code DIR`` imports bpe-lab from DIR instead (an older checkout, its compiled core built or
copied in), for before/after figures.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent
TYPED = "秦川雄帝宅，函谷壮皇居。中华人民共和国 The baker's 12 rolls."


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tokenizer", default="llama3.tiktoken", help="a name in tests/fetch_tokenizers.py")
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--code", type=Path, default=TESTS.parent, help="the checkout whose code is timed")
    args = parser.parse_args()
    sys.path[:0] = [str(args.code.resolve()), str(TESTS)]
    from fetch_tokenizers import LLAMA3_PATTERN, load_cached, real_file

    from engine import Trainer
    from engine.native import implementation
    from engine.text.pretokenize import O200K_PATTERN, PreTokenizer

    path = real_file(args.tokenizer)
    if path is None:
        sys.exit(f"{args.tokenizer} cannot be had (python tests/fetch_tokenizers.py {args.tokenizer})")
    pattern = {"llama3": LLAMA3_PATTERN, "llama4": O200K_PATTERN}.get(args.tokenizer.split(".")[0])
    options = {"pretokenizer": PreTokenizer("custom", pattern)} if pattern else {}
    script = load_cached(path, **options).tokenizer
    tang = TESTS.parent.parent / "shared" / "corpora" / "tang_2000.txt"
    if tang.exists():
        text = tang.read_text(encoding="utf-8")[:20000]
    else:
        text = (TESTS.parent / "assets" / "samples" / "workshop.txt").read_text(encoding="utf-8")
    trainer = Trainer.replaying(text, script)
    trainer.goto(max(len(script.merges) - 745, 0))
    print(f"{args.tokenizer}: {len(script.merges)} merges, from step {trainer.steps}; {implementation()}; "
          f"code from {args.code}")
    for _ in range(args.steps):
        if trainer.step() is None:
            break
        started = time.perf_counter()
        tok = trainer.tokenizer()
        made = time.perf_counter()
        tok.encode(TYPED)
        done = time.perf_counter()
        print(f"  step {trainer.steps}: tokenizer {made - started:.3f} s, first encode {done - made:.3f} s, "
              f"both {done - started:.3f} s")


if __name__ == "__main__":
    main()
