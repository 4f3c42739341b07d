"""Both paths before and after a change: the compiled core and the pure path of this checkout and
of another (run by hand).

    python tests/bench/bench_paths.py --before ../before [--runs 5] [--only train-tang encode-code]

The rows the pure path's speed bound is read on (docs/benchmarks.md, "The pure path as the
reference"), each a whole process reading the same input, with its bytecode cached
(common.INSTALLED): ``bpe-lab train CORPUS -o OUT --vocab-size 32000`` on
../shared/corpora/tang_all.txt (``train-tang``) and on 50 MB of distinct code
(``train-code``, common.stdlib_corpus); ``bpe-lab encode -t whisper-gpt2.tiktoken --pattern-name
gpt2`` reading tang_all (``encode-tang``) or 10 MB of code (``encode-code``) on standard input,
GPT-2's ranks as tests/fetch_tokenizers.py caches them. Four contenders, alternating: this
checkout and ``--before`` (its compiled core built: ``pip install -e .`` there), each compiled and
with ``BPE_LAB_PURE=1``. Medians of ``--runs``, wall and CPU seconds: the CPU seconds are the
steadier on a shared machine (training counts a large file in two processes: its wall time is
the less steady). The first screen and a replay's step have their own scripts
(bench_first_screen.py ``--before DIR --pure``, bench_replay_step.py ``--code DIR``).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from common import INSTALLED, PURE, ROOT, alternate, cpu_median, ours, report, shared_corpus, stdlib_corpus

sys.path.insert(0, str(ROOT / "tests"))

ROWS = ("encode-tang", "encode-code", "train-tang", "train-code")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", type=Path, required=True, help="the checkout before the change")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", nargs="*", choices=ROWS, default=list(ROWS))
    args = parser.parse_args()
    from fetch_tokenizers import real_file

    gpt2 = real_file("whisper-gpt2.tiktoken")
    tang = shared_corpus("tang_all.txt")
    out = Path(tempfile.mkdtemp())
    train = ("-o", str(out / "ours.json"), "--vocab-size", "32000")
    encode = ("encode", "-t", str(gpt2), "--pattern-name", "gpt2")
    rows = {
        "encode-tang": (encode, tang, gpt2 is not None and tang is not None),
        "encode-code": (encode, stdlib_corpus(10_000_000) if "encode-code" in args.only else None, gpt2 is not None),
        "train-tang": (("train", str(tang), *train), None, tang is not None),
        "train-code": (("train", str(stdlib_corpus(50_000_000)) if "train-code" in args.only else "", *train), None, True),
    }
    before = args.before.resolve()
    for name in args.only:
        command, stdin, can = rows[name]
        if not can:
            print(f"\n== {name}: skipped (no ../shared/corpora or no cached whisper-gpt2.tiktoken)")
            continue
        contenders: dict = {
            "before, compiled": (ours(*command, root=before), INSTALLED),
            "after, compiled": (ours(*command), INSTALLED),
            "before, pure": (ours(*command, root=before), PURE),
            "after, pure": (ours(*command), PURE),
        }
        results = alternate(contenders, runs=args.runs, stdin=stdin)
        report(f"{name}, medians of {args.runs} alternating runs", results, "before, compiled")
        for path in ("compiled", "pure"):
            wall = results[f"after, {path}"][0] / results[f"before, {path}"][0]
            cpu = cpu_median(f"after, {path}") / max(cpu_median(f"before, {path}"), 1e-9)
            print(f"  {path}: after / before x{wall:.2f} wall, x{cpu:.2f} CPU")


if __name__ == "__main__":
    main()
