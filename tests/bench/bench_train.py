"""Training speed and memory against HuggingFace tokenizers' BpeTrainer (run by hand).

    python tests/bench/bench_train.py [--runs 3] [--quick]

Ours: ``bpe-lab train CORPUS -o OUT --vocab-size 32000`` (bytes, gpt2, undo log on, as in the
app), whole process, with its bytecode cached as an installed copy has it (common.INSTALLED).
Peer: ``tokenizers`` BpeTrainer with a ByteLevel pre-tokenizer, the full ByteLevel alphabet and
min_frequency 2, saving its tokenizer.json, at its default parallelism and with
TOKENIZERS_PARALLELISM=false (its fastest setting on 2 cores). Corpora: 1 MB and 10 MB of the
standard library's source, ../shared/corpora/tang_all.txt (Chinese poems), and the-verdict.txt
repeated to 2 MB (English prose).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from common import CACHE, INSTALLED, alternate, ours, record, report, shared_corpus, stdlib_corpus

HF = """
import sys
from tokenizers import Tokenizer, models, pre_tokenizers, trainers
tok = Tokenizer(models.BPE())
tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
trainer = trainers.BpeTrainer(vocab_size=int(sys.argv[2]), min_frequency=2, show_progress=False,
                              initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
tok.train([sys.argv[1]], trainer)
tok.save(sys.argv[3])
"""


def english_corpus(size: int) -> Path | None:
    verdict = shared_corpus("the-verdict.txt")
    if verdict is None:
        return None
    CACHE.mkdir(exist_ok=True)
    path = CACHE / f"verdict-{size}.txt"
    if not path.exists():
        text = verdict.read_bytes()
        path.write_bytes((text * (size // len(text) + 1))[:size].decode("utf-8", "ignore").encode("utf-8"))
    return path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--vocab", type=int, default=32000)
    parser.add_argument("--quick", action="store_true", help="only the 1 MB and 10 MB stdlib corpora")
    args = parser.parse_args()
    corpora = {"stdlib 1 MB": stdlib_corpus(1_000_000), "stdlib 10 MB": stdlib_corpus(10_000_000)}
    if not args.quick:
        corpora["tang_all.txt (Chinese, 4.8 MB)"] = shared_corpus("tang_all.txt")
        corpora["the-verdict x100 (English prose, 2 MB)"] = english_corpus(2_000_000)
    keys = dict(zip(corpora, ("code 1 MB", "code 10 MB", "Chinese", "prose")))
    out = Path(tempfile.mkdtemp())
    for title, path in corpora.items():
        if path is None:
            print(f"\n== {title}: skipped (../shared/corpora absent)")
            continue
        vocab = str(args.vocab)
        hf = [sys.executable, "-c", HF, str(path), vocab, str(out / "hf.json")]
        results = alternate(
            {
                "bpe-lab train": (ours("train", str(path), "-o", str(out / "ours.json"), "--vocab-size", vocab), INSTALLED),
                "tokenizers (default)": hf,
                "tokenizers (PARALLELISM=false)": (hf, {"TOKENIZERS_PARALLELISM": "false"}),
            },
            runs=args.runs,
        )
        report(f"{title}, vocabulary {vocab}", results, "tokenizers (default)")
        fastest = min(results["tokenizers (default)"][0], results["tokenizers (PARALLELISM=false)"][0])
        print(f"  ours / fastest tokenizers setting: x{results['bpe-lab train'][0] / fastest:.2f}")
        (seconds, peak), (default, default_peak) = results["bpe-lab train"], results["tokenizers (default)"]
        record(f"train {keys[title]} default", seconds / default)
        record(f"train {keys[title]} fastest", seconds / fastest)
        record(f"train {keys[title]} memory", peak / max(default_peak, 1))


if __name__ == "__main__":
    main()
