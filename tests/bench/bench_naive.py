"""Incremental training against the naive seed-000 algorithm (run by hand).

    python tests/bench/bench_naive.py [--size 1000000] [--merges 3000]

Both train the same text (1 MB of standard library source, gpt2 pre-tokenizer, lowest-ids ties)
for the same number of merges in this process; the naive trainer recounts every pair of every
distinct chunk after each merge, exactly as seed 000 does. The merges must be identical.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections import Counter
from pathlib import Path

from common import ROOT, record, stdlib_corpus

sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from engine import TrainConfig, Trainer  # noqa: E402
from engine.encode.reference import merge  # noqa: E402
from engine.text.pretokenize import PreTokenizer  # noqa: E402


def naive_train(text: str, merges: int) -> list[tuple[int, int]]:
    """Seed 000's train(), with the gpt2 pattern and a merge count instead of a vocabulary size."""
    words = Counter(PreTokenizer("gpt2").split(text))
    seqs = {w: list(w.encode("utf-8")) for w in words}
    learned: list[tuple[int, int]] = []
    while len(learned) < merges:
        pairs: Counter[tuple[int, int]] = Counter()
        for w, count in words.items():
            s = seqs[w]
            for pair in zip(s, s[1:]):
                pairs[pair] += count
        if not pairs:
            break
        pair, count = max(pairs.items(), key=lambda item: (item[1], -item[0][0], -item[0][1]))
        if count < 2:
            break
        new_id = 256 + len(learned)
        learned.append(pair)
        for w in words:
            seqs[w] = merge(seqs[w], pair, new_id)
    return learned


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--merges", type=int, default=3000)
    args = parser.parse_args()
    text = Path(stdlib_corpus(args.size)).read_text(encoding="utf-8")
    gc.collect()
    started = time.perf_counter()
    trainer = Trainer(text, TrainConfig(pretokenizer="gpt2", max_merges=args.merges))
    ours = [e.pair for e in trainer.train()]
    ours_time = time.perf_counter() - started
    print(f"bpe-lab Trainer: {ours_time:.2f} s for {len(ours)} merges")
    started = time.perf_counter()
    naive = naive_train(text, args.merges)
    naive_time = time.perf_counter() - started
    print(f"naive seed-000:  {naive_time:.2f} s for {len(naive)} merges")
    print(f"identical merges: {ours == naive}")
    print(f"speed-up: x{naive_time / ours_time:.0f} (target >= 100, issue 6: >= 200, moonshot >= 500)")
    record("naive speed-up", naive_time / ours_time if ours == naive else 0.0)


if __name__ == "__main__":
    main()
