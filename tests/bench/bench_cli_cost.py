"""What the command line costs over the engine's API, and its start-up (run by hand; issue 43).

    python tests/bench/bench_cli_cost.py [--runs 3] [--ranks PATH] [--corpus PATH]

Each row runs whole processes, interleaved, and prints the medians and the ratio to the first:
- ``bpe-lab encode`` (plain, ``--json``, ``--pieces``) reading the corpus on standard input,
  against a script doing the same work through the API (``load_any``, ``encode``, the same
  output: ``ids_text``, ``to_file_ids``, each distinct token drawn once);
- ``bpe-lab train CORPUS --vocab-size 32000 -o OUT`` against ``Trainer(...)``, ``train()``,
  ``save``;
- start-up without work, ``bpe-lab encode -t RANKS ''``, against tiktoken loading the same rank
  file (``load_tiktoken_bpe``) and building its ``Encoding``: the issue's bound is 1.5×.

Defaults: GPT-2's ranks as Whisper ships them (the test cache, tests/fetch_tokenizers.py) and
tang_all.txt from ../shared/corpora. Bytecode is cached, as for an installed copy (common.py).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from common import INSTALLED, alternate, ours, report, shared_corpus

API_ENCODE = """
import json, sys
from engine.formats import load_any
from engine.text import pretokenizer_named, token_display
imported = load_any(sys.argv[1], pretokenizer=pretokenizer_named("gpt2"))
tok = imported.tokenizer
ids = tok.encode(sys.stdin.read())
mode = sys.argv[2]
if mode == "plain":
    print(imported.ids_text(ids))
elif mode == "json":
    print(json.dumps(imported.to_file_ids(ids)))
else:
    shown = {i: token_display(tok.token_bytes(i)) for i in set(ids)}
    print("|".join(map(shown.__getitem__, ids)))
"""

API_TRAIN = """
import sys
from engine import Trainer, TrainConfig, read_corpus
trainer = Trainer(read_corpus(sys.argv[1], base="bytes").text, TrainConfig(vocab_size=32000))
for _ in trainer.train():
    pass
trainer.tokenizer().save(sys.argv[2])
"""

TIKTOKEN_LOAD = """
import sys, tiktoken
from tiktoken.load import load_tiktoken_bpe
ranks = load_tiktoken_bpe(sys.argv[1])
pattern = r"'(?:[sdmt]|ll|ve|re)| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+"
tiktoken.Encoding("ranks", pat_str=pattern, mergeable_ranks=ranks, special_tokens={}).encode("")
"""


def api(script: str, *args: str) -> list[str]:
    root = Path(__file__).resolve().parents[2]
    return [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(root)!r}); sys.argv[1:] = {list(args)!r}\n{script}"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--ranks", default=str(Path.home() / ".cache" / "bpe-lab-test-tokenizers" / "whisper-gpt2.tiktoken"))
    parser.add_argument("--corpus", default=None)
    args = parser.parse_args()
    corpus = Path(args.corpus) if args.corpus else shared_corpus("tang_all.txt")
    if corpus is None or not Path(args.ranks).exists():
        print("bench_cli_cost: needs ../shared/corpora/tang_all.txt (or --corpus) and the rank file "
              "(python tests/fetch_tokenizers.py whisper-gpt2.tiktoken, or --ranks)")
        return 0
    out = Path(tempfile.mkdtemp(prefix="bench-cli-"))
    for mode, flag in (("plain", []), ("json", ["--json"]), ("pieces", ["--pieces"])):
        results = alternate({
            "API (load_any, encode, print)": (api(API_ENCODE, args.ranks, mode), INSTALLED),
            f"bpe-lab encode {' '.join(flag)}".rstrip(): (ours("encode", "-t", args.ranks, "--pattern-name", "gpt2", *flag),
                                                          INSTALLED),
        }, args.runs, stdin=corpus)
        report(f"encode {corpus.name} with GPT-2's ranks ({mode})", results, "API (load_any, encode, print)")
    results = alternate({
        "API (Trainer, train, save)": (api(API_TRAIN, str(corpus), str(out / "api.json")), INSTALLED),
        "bpe-lab train --vocab-size 32000": (ours("train", str(corpus), "--vocab-size", "32000", "-o", str(out / "cli.json")),
                                             INSTALLED),
    }, args.runs)
    report(f"train {corpus.name} to 32,000", results, "API (Trainer, train, save)")
    contenders = {"bpe-lab encode -t RANKS ''": (ours("encode", "-t", args.ranks, "--pattern-name", "gpt2", ""), INSTALLED)}
    try:
        import tiktoken  # noqa: F401
    except ImportError:
        print("\n(tiktoken is not installed: the start-up row has no peer)")
    else:
        contenders = {"tiktoken: load the ranks, Encoding": api(TIKTOKEN_LOAD, args.ranks), **contenders}
    results = alternate(contenders, max(args.runs, 5))
    report("start-up without work", results, next(iter(contenders)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
