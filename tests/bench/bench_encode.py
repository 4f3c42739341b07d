"""Encoding throughput against tiktoken and tokenizers, same merges, same pattern (run by hand).

    python tests/bench/bench_encode.py [--runs 5] [--gpt2 PATH/gpt2.tiktoken] [--only-gpt2] [--skip tokenizers]

A gpt2/bytes tokenizer is asked for 32,000 tokens on 1 MB of distinct, shuffled Python files
(common.stdlib_corpus; the report says how many it really made), exported with
bpe-lab's own exporters and loaded by tiktoken (``tiktoken.Encoding`` built locally from the
.tiktoken file: no download) and by tokenizers (tokenizer.json). All three must return the same
ids. Timed on 1 MB and 10 MB: ours cold (a fresh tokenizer: no chunk cache) and warm (second pass), tiktoken
(``encode_ordinary``), tokenizers (``encode``, single call; about 50 s at 10 MB: ``--skip
tokenizers`` leaves it out), and ours cold on the pure path (``BPE_LAB_PURE``'s reference, in the
same process) and as before the whole-text encoder (``before``: the compiled split, then the
chunk cache, a dict). Medians of ``--runs``, alternating, wall and CPU seconds.

With ``--gpt2`` (GPT-2's real ranks: ``whisper/assets/gpt2.tiktoken`` of the openai-whisper sdist,
or ``$BPE_LAB_GPT2_TIKTOKEN``): ../shared/corpora/tang_all.txt (4.8 MB of Chinese) encoded in
the file's ids, in process (ours cold with the compiled core and on the pure path, tiktoken,
tokenizers with the same vocabulary exported) and as whole processes (``bpe-lab encode -t
gpt2.tiktoken`` reading standard input, against a tiktoken script doing the same). The machine
is shared: medians, and the ratios are what to read.

With ``--o200k`` (a rank file split by tiktoken's o200k pattern: Llama 4's ``tokenizer.model``
from llama-models, as tests/fetch_tokenizers.py caches it): 10 MB of code and tang_all in the
file's ids, in process and as whole processes (``bpe-lab encode -t FILE --pattern O200K``),
against tiktoken with the same ranks and pattern. ``--llama3`` does the same for a rank file
split by Llama 3's pattern (Llama 3's ``tokenizer.model``).
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

from common import INSTALLED, PURE, ROOT, alternate, ours, record, report, shared_corpus, stdlib_corpus

sys.path.insert(0, str(ROOT))
os.environ.setdefault("TIKTOKEN_CACHE_DIR", "")

from engine import Tokenizer, TrainConfig, Trainer  # noqa: E402
from engine.formats import export_tokenizer, load_any  # noqa: E402
from engine.native.door import COMPILED, implementation, using  # noqa: E402
from engine.native.door import PURE as PURE_BACKEND  # noqa: E402
from engine.text.pretokenize import GPT2_PATTERN, LLAMA3_PATTERN, O200K_PATTERN, PreTokenizer  # noqa: E402

TIKTOKEN_STDIN = """
import sys, tiktoken
from tiktoken.load import load_tiktoken_bpe
enc = tiktoken.Encoding(name="gpt2", pat_str=sys.argv[2], mergeable_ranks=load_tiktoken_bpe(sys.argv[1]), special_tokens={})
ids = enc.encode_ordinary(sys.stdin.read())
sys.stdout.write(" ".join(map(str, ids)) + "\\n")
"""


def gpt2_chinese(path: Path, runs: int, before: Path | None = None) -> None:
    """tang_all in GPT-2's ids: in process, then whole processes (see the module doc)."""
    import tiktoken
    from tiktoken.load import load_tiktoken_bpe
    from tokenizers import Tokenizer as HfTokenizer

    corpus = shared_corpus("tang_all.txt")
    if corpus is None:
        print("\n== GPT-2 ranks on Chinese: skipped (../shared/corpora absent)")
        return
    text = corpus.read_text(encoding="utf-8")
    imported = load_any(path, pretokenizer=PreTokenizer("gpt2"))  # writes the merge cache the first time
    tok = imported.tokenizer
    enc = tiktoken.Encoding(name="gpt2", pat_str=GPT2_PATTERN, mergeable_ranks=load_tiktoken_bpe(str(path)), special_tokens={})
    folder = Path(tempfile.mkdtemp())
    export_tokenizer(tok, "hf", folder / "tokenizer.json", ids=imported.file_ids)
    hf = HfTokenizer.from_file(str(folder / "tokenizer.json"))
    expected = enc.encode_ordinary(text)
    assert hf.encode(text).ids == expected, "tokenizers disagrees"
    print(f"\n== tang_all.txt ({len(text.encode()) / 1e6:.1f} MB of Chinese) with GPT-2's ranks, {len(expected)} tokens, in process")
    times = {}
    for name, native in (("bpe-lab cold (compiled)", COMPILED), ("bpe-lab cold (pure)", PURE_BACKEND)):
        if native is None:
            continue

        def fresh():
            return Tokenizer(tok.merges, pretokenizer=tok.pretokenizer)

        with using(native):
            assert imported.to_file_ids(fresh().encode_ordinary(text)) == expected, "bpe-lab disagrees"
            times[name] = timed(lambda cold: imported.to_file_ids(cold.encode_ordinary(text)), runs, setup=fresh)
    times["tiktoken"] = timed(lambda: enc.encode_ordinary(text), runs)
    times["tokenizers"] = timed(lambda: hf.encode(text), runs)
    for name, t in times.items():
        print(f"  {name:<24} {t:7.3f} s   throughput x{times['tiktoken'] / t:5.2f} tiktoken, x{times['tokenizers'] / t:5.2f} tokenizers")
        if name.startswith("bpe-lab"):
            record(f"encode Chinese gpt2 {name}", times["tiktoken"] / t)
    whole_processes(path, ("--pattern-name", "gpt2"), GPT2_PATTERN, corpus, runs, before)


def whole_processes(path: Path, pattern_args: tuple[str, ...], pattern: str, corpus: Path, runs: int,
                    before: Path | None) -> None:
    """``bpe-lab encode -t path`` (compiled, pure, before) against a tiktoken script with the
    same ranks and pattern, each reading ``corpus`` on standard input."""
    command = ("encode", "-t", str(path), *pattern_args)
    contenders: dict = {"bpe-lab encode": (ours(*command), INSTALLED), "bpe-lab encode (pure)": (ours(*command), PURE)}
    if before is not None:
        contenders["bpe-lab encode (before)"] = (ours(*command, root=before.resolve()), INSTALLED)
    contenders["tiktoken script"] = [sys.executable, "-c", TIKTOKEN_STDIN, str(path), pattern]
    results = alternate(contenders, runs=runs, stdin=corpus)
    report("the same, whole processes reading standard input (time x: ours / tiktoken's)", results, "tiktoken script")


def rank_file_rows(path: Path, runs: int, before: Path | None = None, pattern: str = O200K_PATTERN,
                   label: str = "o200k's pattern") -> None:
    """A rank file under its pattern (o200k's, or Llama 3's) on code and on Chinese: in process,
    then whole processes."""
    import tiktoken
    from tiktoken.load import load_tiktoken_bpe

    load_any(path, pretokenizer=PreTokenizer("custom", pattern))  # writes the merge cache the first time
    enc = tiktoken.Encoding(name="ranks", pat_str=pattern, mergeable_ranks=load_tiktoken_bpe(str(path)),
                            special_tokens={})
    corpora = {"code 10 MB": stdlib_corpus(10_000_000), "tang_all.txt": shared_corpus("tang_all.txt")}
    for title, corpus in corpora.items():
        if corpus is None:
            print(f"\n== {title}: skipped (../shared/corpora absent)")
            continue
        text = corpus.read_text(encoding="utf-8")
        expected = enc.encode_ordinary(text)
        print(f"\n== {title} ({len(text.encode()) / 1e6:.1f} MB) with {path.name}'s ranks and {label}, "
              f"{len(expected)} tokens, in process")
        times = {}
        for name, native in (("bpe-lab cold (compiled)", COMPILED), ("bpe-lab cold (pure)", PURE_BACKEND)):
            if native is None:
                continue

            def fresh():  # cold: loaded again (from the merge cache), no chunk met yet
                return load_any(path, pretokenizer=PreTokenizer("custom", pattern))

            with using(native):
                assert fresh().encode(text) == expected, "bpe-lab disagrees"
                times[name] = timed(lambda cold: cold.encode(text), runs, setup=fresh)
        times["tiktoken"] = timed(lambda: enc.encode_ordinary(text), runs)
        for name, t in times.items():
            print(f"  {name:<24} {t:7.3f} s   throughput x{times['tiktoken'] / t:5.2f} tiktoken")
        whole_processes(path, ("--pattern", pattern), pattern, corpus, runs, before)


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
    parser.add_argument("--gpt2", type=Path, default=os.environ.get("BPE_LAB_GPT2_TIKTOKEN"),
                        help="GPT-2's gpt2.tiktoken, for the Chinese rows")
    parser.add_argument("--only-gpt2", action="store_true", help="only the Chinese rows")
    parser.add_argument("--o200k", type=Path, help="a rank file split by o200k's pattern (Llama 4's): its rows only")
    parser.add_argument("--llama3", type=Path, help="a rank file split by Llama 3's pattern (Llama 3's): its rows only")
    parser.add_argument("--before", type=Path, help="another checkout whose bpe-lab encode is timed too (whole process)")
    parser.add_argument("--skip", action="append", default=[], choices=["tokenizers", "pure", "before"],
                        help="leave a contender out of the code rows (repeatable)")
    args = parser.parse_args()
    print(f"bpe-lab's hot loops: {implementation()}")
    if args.o200k is not None:
        rank_file_rows(args.o200k, args.runs, args.before)
    if args.llama3 is not None:
        rank_file_rows(args.llama3, args.runs, args.before, LLAMA3_PATTERN, "Llama 3's pattern")
    if args.o200k is not None or args.llama3 is not None:
        return
    if args.gpt2 is not None:
        gpt2_chinese(args.gpt2, args.runs, args.before)
    elif args.only_gpt2:
        parser.error("--only-gpt2 needs --gpt2 PATH")
    if args.only_gpt2:
        return
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
    print(f"tokenizer: asked for 32000 tokens, made {tok.vocab_size} ({len(tok.merges)} merges), on 1 MB of distinct shuffled Python files")
    for size in (1_000_000, 10_000_000):
        text = stdlib_corpus(size).read_text(encoding="utf-8")
        ids = tok.encode_ordinary(text)
        assert ids == enc.encode_ordinary(text), "tiktoken disagrees"
        if "tokenizers" not in args.skip:
            assert ids == hf.encode(text).ids, "tokenizers disagrees"

        def fresh():  # cold: a new tokenizer (no chunk cache, no token facts learned yet)
            return Tokenizer(tok.merges, pretokenizer=tok.pretokenizer)

        def fresh_before():  # the path before the whole-text encoder: the split, then the dict cache
            cold = fresh()
            cold._coder = False
            return cold

        def fresh_pure():
            with using(PURE_BACKEND):
                return Tokenizer(tok.merges, pretokenizer=tok.pretokenizer)

        was = COMPILED is not None
        rows: dict[str, list[tuple[float, float]]] = {}
        if "pure" not in args.skip and was:
            assert fresh_pure().encode_ordinary(text) == ids, "the pure path disagrees"
        tok.encode_ordinary(text)
        for _ in range(args.runs):  # alternating, one run each a round
            rows.setdefault("bpe-lab cold", []).append(timed_cpu(lambda cold: cold.encode_ordinary(text), 1, setup=fresh))
            rows.setdefault("bpe-lab warm", []).append(timed_cpu(lambda: tok.encode_ordinary(text), 1))
            rows.setdefault("tiktoken", []).append(timed_cpu(lambda: enc.encode_ordinary(text), 1))
            if "before" not in args.skip and was:
                rows.setdefault("bpe-lab cold (before)", []).append(timed_cpu(lambda cold: cold.encode_ordinary(text), 1, setup=fresh_before))
            if "pure" not in args.skip and was:
                rows.setdefault("bpe-lab cold (pure)", []).append(timed_cpu(lambda cold: cold.encode_ordinary(text), 1, setup=fresh_pure))
            if "tokenizers" not in args.skip:
                rows.setdefault("tokenizers", []).append(timed_cpu(lambda: hf.encode(text), 1))
        med = {name: (statistics.median(w for w, _ in got), statistics.median(c for _, c in got)) for name, got in rows.items()}
        t_tik, cpu_tik = med["tiktoken"]
        mb = size / 1e6
        print(f"\n== {mb:.0f} MB, {len(ids)} tokens (identical ids from all)")
        for name, (t, cpu) in med.items():
            print(f"  {name:<22} {t:7.3f} s wall {cpu:7.3f} s CPU  {mb / t:6.1f} MB/s  throughput x tiktoken: "
                  f"wall x{t_tik / t:.2f}, CPU x{cpu_tik / cpu:.2f}")
        t_cold, cpu_cold = med["bpe-lab cold"]
        t_warm, _ = med["bpe-lab warm"]
        print(f"  throughput ours(warm)/tiktoken: x{t_tik / t_warm:.2f} (target >= 0.5, moonshot >= 1)")
        record(f"encode {mb:.0f} MB warm", t_tik / t_warm)
        print(f"  throughput ours(cold)/tiktoken: x{t_tik / t_cold:.2f}, CPU time x{cpu_tik / cpu_cold:.2f} (target >= 0.7)")
        record(f"encode {mb:.0f} MB cold", t_tik / t_cold)
        if "tokenizers" in med:
            print(f"  throughput ours(warm)/tokenizers: x{med['tokenizers'][0] / t_warm:.2f}")


if __name__ == "__main__":
    main()
