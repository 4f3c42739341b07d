"""Encoding throughput against tiktoken and tokenizers, same merges, same pattern (run by hand).

    python tests/bench/bench_encode.py [--runs 5]

A gpt2/bytes tokenizer is trained to 32,000 on 1 MB of standard-library source, exported with
bpe-lab's own exporters and loaded by tiktoken (``tiktoken.Encoding`` built locally from the
.tiktoken file: no download) and by tokenizers (tokenizer.json). All three must return the same
ids. Timed on 1 MB and 10 MB: ours cold (a fresh tokenizer: no chunk cache) and warm (second pass), tiktoken
(``encode_ordinary``), tokenizers (``encode``, single call). Medians of ``--runs``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, record, stdlib_corpus

sys.path.insert(0, str(ROOT))
os.environ.setdefault("TIKTOKEN_CACHE_DIR", "")

from engine import Tokenizer, TrainConfig, Trainer  # noqa: E402
from engine.formats import export_tokenizer  # noqa: E402


def timed(fn, runs: int, setup=lambda: None) -> float:
    return timed_cpu(fn, runs, setup)[0]


def timed_cpu(fn, runs: int, setup=lambda: None) -> tuple[float, float]:
    """Median wall and CPU seconds of ``fn`` (CPU time is steadier on a busy machine; both
    encoders compared this way run on one thread)."""
    times, cpu = [], []
    for _ in range(runs):
        arg = setup()
        started, used = time.perf_counter(), time.process_time()
        fn() if arg is None else fn(arg)
        times.append(time.perf_counter() - started)
        cpu.append(time.process_time() - used)
    return statistics.median(times), statistics.median(cpu)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    import tiktoken
    from tiktoken.load import load_tiktoken_bpe
    from tokenizers import Tokenizer as HfTokenizer

    train_text = stdlib_corpus(1_000_000).read_text(encoding="utf-8")
    trainer = Trainer(train_text, TrainConfig(vocab_size=32000))
    trainer.train()
    tok = trainer.tokenizer()
    out = Path(tempfile.mkdtemp())
    export_tokenizer(tok, "tiktoken", out / "ours.tiktoken")
    export_tokenizer(tok, "hf", out / "tokenizer.json")
    side = json.loads((out / "ours.tiktoken.json").read_text(encoding="utf-8"))
    enc = tiktoken.Encoding(name="bench", pat_str=side["pat_str"], mergeable_ranks=load_tiktoken_bpe(str(out / "ours.tiktoken")), special_tokens={})
    hf = HfTokenizer.from_file(str(out / "tokenizer.json"))
    print(f"tokenizer: {tok.vocab_size} tokens, trained on 1 MB of stdlib source")
    for size in (1_000_000, 10_000_000):
        text = stdlib_corpus(size).read_text(encoding="utf-8")
        ids = tok.encode_ordinary(text)
        assert ids == enc.encode_ordinary(text), "tiktoken disagrees"
        assert ids == hf.encode(text).ids, "tokenizers disagrees"

        def fresh():  # cold: a new tokenizer (no chunk cache, no token facts learned yet)
            return Tokenizer(tok.merges, pretokenizer=tok.pretokenizer)

        t_cold, cpu_cold = timed_cpu(lambda cold: cold.encode_ordinary(text), args.runs, setup=fresh)
        tok.encode_ordinary(text)
        t_warm = timed(lambda: tok.encode_ordinary(text), args.runs)
        t_tik, cpu_tik = timed_cpu(lambda: enc.encode_ordinary(text), args.runs)
        t_hf = timed(lambda: hf.encode(text), args.runs)
        mb = size / 1e6
        print(f"\n== {mb:.0f} MB, {len(ids)} tokens (identical ids from all three)")
        for name, t in (("bpe-lab cold", t_cold), ("bpe-lab warm", t_warm), ("tiktoken", t_tik), ("tokenizers", t_hf)):
            print(f"  {name:<14} {t:7.3f} s  {mb / t:6.1f} MB/s")
        print(f"  throughput ours(warm)/tiktoken: x{t_tik / t_warm:.2f} (target >= 0.5, moonshot >= 1)")
        record(f"encode {mb:.0f} MB warm", t_tik / t_warm)
        print(f"  throughput ours(cold)/tiktoken: x{t_tik / t_cold:.2f}, CPU time x{cpu_tik / cpu_cold:.2f} (target >= 0.5)")
        record(f"encode {mb:.0f} MB cold", t_tik / t_cold)
        print(f"  throughput ours(warm)/tokenizers: x{t_hf / t_warm:.2f}")


if __name__ == "__main__":
    main()
