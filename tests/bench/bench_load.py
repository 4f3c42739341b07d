"""Whole-process ``bpe-lab encode`` with a big tokenizer file, against its own library (run by hand).

    python tests/bench/bench_load.py [--runs 5]

Issue 16's first two speed-gap rows: a user runs ``bpe-lab encode -t FILE "hi"`` once, so the
cost is loading the file, not encoding.

- ``gpt2.tiktoken``: the real GPT-2 rank file from the ``openai-whisper`` package's assets
  (fetched once with ``pip download openai-whisper --no-deps`` into the bench cache; the package
  itself needs torch, so it is not installed). The peer is a fresh ``python`` that builds
  ``tiktoken.Encoding`` from the same file (``load_tiktoken_bpe``, GPT-2's pattern) and encodes
  "hi". A rank file holds no merge pairs: bpe-lab recovers them, and keeps what it recovered in
  its merge cache (``engine/formats/merge_cache.py``). Ours is timed without the cache
  (``BPE_LAB_CACHE=off``: what a first use costs) and warm (what every later call costs).
- an HF ``tokenizer.json`` of 130,000 merges, trained once by ``tokenizers`` (ByteLevel) on
  60 MB of standard-library source and cached; the peer is a fresh ``python`` running
  ``tokenizers.Tokenizer.from_file(...).encode("hi")``.

- with ``--names`` (issue 41's rows), the named tokenizers o200k and Llama 4 as ``bpe-lab fetch``
  keeps them (skipped with a line when not fetched): the peer builds ``tiktoken.Encoding`` from
  the same file (o200k's npm JSON decoded as tiktoken's own loader decodes a rank file; Llama 4's
  rank file with ``load_tiktoken_bpe``) with the pattern bpe-lab chose, and encodes "hi". Ours:
  a use after ``bpe-lab fetch NAME`` (which fills the merge cache, so a first use in class is a
  later use: tests/cli/test_fetch.py), and a first use of the file by path with no cache
  (``BPE_LAB_CACHE=off``: the merges recovered from the ranks).
  Issue 41's bounds: a first use at most 1.5x the peer, a later use at most 1.2x.

Each contender is a whole process (interpreter start, imports, load, encode), timed with GNU
time for the wall clock, CPU time (user + system: steadier on a shared machine) and peak RSS;
runs alternate, medians reported, ratios ours / peer.
Target (issue 16): ≤ 2× the peer's time. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from common import CACHE, INSTALLED, alternate, cpu_median, ours, record, report, stdlib_corpus

GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""


def gpt2_tiktoken() -> Path:
    """The real gpt2.tiktoken from openai-whisper's sdist (downloaded once, without its deps)."""
    path = CACHE / "gpt2.tiktoken"
    if path.exists():
        return path
    CACHE.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                        "openai-whisper", "-d", tmp], check=True)
        archive = next(Path(tmp).glob("openai_whisper-*.tar.gz"))
        with tarfile.open(archive) as tar:
            member = next(m for m in tar.getmembers() if m.name.endswith("whisper/assets/gpt2.tiktoken"))
            data = tar.extractfile(member).read()
    path.write_bytes(data)
    return path


def hf_130k() -> Path:
    """A ByteLevel tokenizer.json with 130,000 merges, trained once by tokenizers."""
    path = CACHE / "hf-130k.json"
    if path.exists():
        return path
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=256 + 130_000, min_frequency=1, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train([str(stdlib_corpus(60_000_000))], trainer)
    tok.save(str(path))
    return path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--names", action="store_true", help="only the named tokenizers' rows (o200k, Llama 4)")
    args = parser.parse_args()
    if args.names:
        named_rows(args.runs)
        return

    rank_file = gpt2_tiktoken()
    with tempfile.TemporaryDirectory() as cold_home:
        cold = {**INSTALLED, "BPE_LAB_CACHE": "off"}
        warm = {**INSTALLED, "BPE_LAB_CACHE": str(Path(cold_home) / "kept")}
        subprocess.run(ours("encode", "-t", str(rank_file), "--pattern-name", "gpt2", "hi"), check=True,
                       stdout=subprocess.DEVNULL, env={**os.environ, "BPE_LAB_CACHE": warm["BPE_LAB_CACHE"]})
        peer = [sys.executable, "-c",
                "import sys, tiktoken; from tiktoken.load import load_tiktoken_bpe; "
                f"e = tiktoken.Encoding('gpt2', pat_str={GPT2_PATTERN!r}, mergeable_ranks=load_tiktoken_bpe(sys.argv[1]), "
                "special_tokens={}); print(e.encode('hi'))", str(rank_file)]
        contenders = {
            "tiktoken": (peer, {"TIKTOKEN_CACHE_DIR": ""}),
            "bpe-lab (merge cache warm)": (ours("encode", "-t", str(rank_file), "--pattern-name", "gpt2", "hi"), warm),
            "bpe-lab (no cache: a first use)": (ours("encode", "-t", str(rank_file), "--pattern-name", "gpt2", "hi"), cold),
        }
        results = alternate(contenders, args.runs)
    report("whole-process encode with the real gpt2.tiktoken (50,000 merges recovered from ranks)", results, "tiktoken")
    record("load_tiktoken_ratio", results["bpe-lab (merge cache warm)"][0] / results["tiktoken"][0])
    record("load_tiktoken_cpu_ratio", cpu_median("bpe-lab (merge cache warm)") / max(cpu_median("tiktoken"), 1e-9))

    hf_file = hf_130k()
    contenders = {
        "tokenizers": [sys.executable, "-c", "import sys; from tokenizers import Tokenizer; "
                       "print(Tokenizer.from_file(sys.argv[1]).encode('hi').ids)", str(hf_file)],
        "bpe-lab": (ours("encode", "-t", str(hf_file), "hi"), INSTALLED),
    }
    results = alternate(contenders, args.runs)
    report("whole-process encode with an HF tokenizer.json of 130,000 merges", results, "tokenizers")
    record("load_hf_ratio", results["bpe-lab"][0] / results["tokenizers"][0])
    record("load_hf_cpu_ratio", cpu_median("bpe-lab") / max(cpu_median("tokenizers"), 1e-9))


PEER_NAMED = """
import base64, json, sys, tiktoken
from tiktoken.load import load_tiktoken_bpe
path, pattern = sys.argv[1], sys.argv[2]
if path.endswith(".json"):  # npm tiktoken's encoders/*.json: lines of a marker, the first rank, base64 tokens
    ranks = {}
    for line in json.load(open(path))["bpe_ranks"].split("\\n"):
        if line:
            _, first, *tokens = line.split(" ")
            for i, token in enumerate(tokens):
                ranks[base64.b64decode(token)] = int(first) + i
else:
    ranks = load_tiktoken_bpe(path)
print(tiktoken.Encoding("x", pat_str=pattern, mergeable_ranks=ranks, special_tokens={}).encode("hi"))
"""


def named_rows(runs: int) -> None:
    """Issue 41's load rows: o200k and Llama 4 by name, against tiktoken on the same file."""
    from engine.formats import by_name, fetched, load_any

    for name in ("o200k", "llama4"):
        entry = by_name(name)
        path = fetched(entry) if entry is not None else None
        if path is None:
            print(f"{name}: not fetched (bpe-lab fetch {name}); its rows are skipped")
            continue
        pattern = load_any(name).tokenizer.pretokenizer.pattern or ""
        with tempfile.TemporaryDirectory() as home:
            kept = str(Path(home) / "kept")  # filled as bpe-lab fetch fills it
            subprocess.run(ours("fetch", name), check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           env={**os.environ, "BPE_LAB_CACHE": kept})
            contenders = {
                "tiktoken": ([sys.executable, "-c", PEER_NAMED, str(path), pattern], {"TIKTOKEN_CACHE_DIR": ""}),
                "bpe-lab, after fetch": (ours("encode", "-t", name, "hi"), {**INSTALLED, "BPE_LAB_CACHE": kept}),
                "bpe-lab, by path, no cache": (ours("encode", "-t", str(path), "hi"), {**INSTALLED, "BPE_LAB_CACHE": "off"}),
            }
            results = alternate(contenders, runs)
        report(f"whole-process encode 'hi' with {name} by name ({path.name})", results, "tiktoken")
        record(f"load_{name}_later_ratio", results["bpe-lab, after fetch"][0] / results["tiktoken"][0])
        record(f"load_{name}_later_cpu_ratio", cpu_median("bpe-lab, after fetch") / max(cpu_median("tiktoken"), 1e-9))


if __name__ == "__main__":
    main()
