"""Training speed and memory against HuggingFace tokenizers' BpeTrainer and SentencePiece's BPE
(run by hand).

    python tests/bench/bench_train.py [--runs 3] [--quick] [--before ../main] [--big]
    python tests/bench/bench_train.py --cjk [--runs 5] [--before ../main]

Ours: ``bpe-lab train CORPUS -o OUT --vocab-size 32000`` (bytes, gpt2, undo log on, as in the
app), whole process, with its bytecode cached as an installed copy has it (common.INSTALLED):
with the compiled core when it is built, and with ``BPE_LAB_PURE=1`` (the pure path).
``--before DIR`` adds the same command from another checkout (the code before a change), timed
in the same run. Peers: ``tokenizers`` BpeTrainer with a ByteLevel pre-tokenizer, the full
ByteLevel alphabet and min_frequency 2, saving its tokenizer.json, at its default parallelism
and with TOKENIZERS_PARALLELISM=false (its fastest setting on 2 cores); SentencePiece
(``pip install sentencepiece``) with ``model_type=bpe``, full character coverage, a soft vocabulary
limit, at its default threads. Corpora: 1 MB and 10 MB of distinct Python files, shuffled
(common.stdlib_corpus), ../shared/corpora/tang_all.txt (Chinese poems), and with ``--big`` 50 MB
of distinct code. Medians of ``--runs`` whole processes, alternating: the machine is shared, so
read the ratios (measured side by side), not the seconds.

``--cjk`` is issue 43's row instead: ../shared/corpora/tang_all.txt to 32,000 against
SentencePiece's BPE on the same file, time and peak memory (GNU time's maximum RSS) of whole
processes, as ratios to SentencePiece's. Ours at the character level, the setting comparable to
SentencePiece's (which merges characters) and the one the app opens a mostly-CJK corpus with
(``--base chars``), and at the default bytes base; ``--before DIR`` adds that checkout's
characters run.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import tempfile
from pathlib import Path

from common import INSTALLED, PURE, alternate, ours, record, report, shared_corpus, stdlib_corpus

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

SPM = """
import sys
import sentencepiece as spm
spm.SentencePieceTrainer.train(input=sys.argv[1], model_prefix=sys.argv[3], vocab_size=int(sys.argv[2]),
                               model_type="bpe", character_coverage=1.0, hard_vocab_limit=False,
                               max_sentence_length=1 << 16, minloglevel=2)
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--vocab", type=int, default=32000)
    parser.add_argument("--quick", action="store_true", help="only the 1 MB and 10 MB code corpora")
    parser.add_argument("--big", action="store_true", help="also 50 MB of distinct code")
    parser.add_argument("--only", help="only the corpora whose title contains this")
    parser.add_argument("--before", type=Path, help="another checkout whose bpe-lab train is timed too")
    parser.add_argument("--skip", nargs="*", default=[], help="contenders to leave out, by the start of their name")
    parser.add_argument("--cjk", action="store_true", help="only issue 43's row: tang_all against sentencepiece, "
                                                           "chars and bytes bases, time and peak memory")
    args = parser.parse_args()
    if args.cjk:
        cjk(args)
        return
    corpora = {"code 1 MB": stdlib_corpus(1_000_000), "code 10 MB": stdlib_corpus(10_000_000)}
    if not args.quick:
        corpora["tang_all.txt (Chinese, 4.8 MB)"] = shared_corpus("tang_all.txt")
    if args.big:
        corpora["code 50 MB"] = stdlib_corpus(50_000_000)
    keys = dict(zip(corpora, ("code 1 MB", "code 10 MB", "Chinese", "code 50 MB")))
    has_spm = importlib.util.find_spec("sentencepiece") is not None
    if not has_spm:
        print("sentencepiece is not installed (pip install sentencepiece): its column is left out")
    out = Path(tempfile.mkdtemp())
    for title, path in corpora.items():
        if args.only and args.only not in title:
            continue
        if path is None:
            print(f"\n== {title}: skipped (../shared/corpora absent)")
            continue
        vocab = str(args.vocab)
        hf = [sys.executable, "-c", HF, str(path), vocab, str(out / "hf.json")]
        train = ("train", str(path), "-o", str(out / "ours.json"), "--vocab-size", vocab)
        contenders: dict = {"bpe-lab train": (ours(*train), INSTALLED), "bpe-lab train (pure)": (ours(*train), PURE)}
        if args.before is not None:
            contenders["bpe-lab train (before)"] = (ours(*train, root=args.before.resolve()), INSTALLED)
        contenders["tokenizers (default)"] = hf
        contenders["tokenizers (PARALLELISM=false)"] = (hf, {"TOKENIZERS_PARALLELISM": "false"})
        if has_spm:
            contenders["sentencepiece (bpe)"] = [sys.executable, "-c", SPM, str(path), vocab, str(out / "spm")]
        keep = ("bpe-lab train", "tokenizers (default)", "tokenizers (PARALLELISM=false)")
        contenders = {n: c for n, c in contenders.items() if n in keep or not any(n.startswith(x) for x in args.skip)}
        results = alternate(contenders, runs=args.runs)
        report(f"{title}, vocabulary {vocab}", results, "tokenizers (default)")
        fastest = min(results["tokenizers (default)"][0], results["tokenizers (PARALLELISM=false)"][0])
        for name in [n for n in results if n.startswith("bpe-lab")]:
            line = f"  {name} / fastest tokenizers setting: x{results[name][0] / fastest:.2f}"
            if "sentencepiece (bpe)" in results:
                line += f"   / sentencepiece: x{results[name][0] / results['sentencepiece (bpe)'][0]:.2f}"
            print(line)
        (seconds, peak), (default, default_peak) = results["bpe-lab train"], results["tokenizers (default)"]
        record(f"train {keys[title]} default", seconds / default)
        record(f"train {keys[title]} fastest", seconds / fastest)
        record(f"train {keys[title]} memory", peak / max(default_peak, 1))


def cjk(args: argparse.Namespace) -> None:
    """tang_all.txt against sentencepiece (see the module's docstring, ``--cjk``)."""
    path = shared_corpus("tang_all.txt")
    if path is None or importlib.util.find_spec("sentencepiece") is None:
        print("needs ../shared/corpora/tang_all.txt and sentencepiece (pip install sentencepiece)")
        return
    out = Path(tempfile.mkdtemp())
    vocab = str(args.vocab)
    train = ("train", str(path), "-o", str(out / "ours.json"), "--vocab-size", vocab, "--quiet")
    contenders: dict = {
        "sentencepiece (bpe)": [sys.executable, "-c", SPM, str(path), vocab, str(out / "spm")],
        "bpe-lab train --base chars": (ours(*train, "--base", "chars"), INSTALLED),
        "bpe-lab train (bytes)": (ours(*train), INSTALLED),
    }
    if args.before is not None:
        contenders["bpe-lab train --base chars (before)"] = (ours(*train, "--base", "chars", root=args.before.resolve()),
                                                            INSTALLED)
        contenders["bpe-lab train (bytes, before)"] = (ours(*train, root=args.before.resolve()), INSTALLED)
    results = alternate(contenders, runs=args.runs)
    report(f"tang_all.txt (Chinese, 4.8 MB), vocabulary {vocab}, medians of {args.runs}", results,
           "sentencepiece (bpe)")
    spm_time, spm_peak = results["sentencepiece (bpe)"]
    for name in [n for n in results if n.startswith("bpe-lab")]:
        seconds, peak = results[name]
        print(f"  {name} / sentencepiece: time x{seconds / spm_time:.2f}, peak memory x{peak / max(spm_peak, 1):.2f}")
        record(f"train cjk {name} time", seconds / spm_time)


if __name__ == "__main__":
    main()
