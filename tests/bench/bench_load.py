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
    args = parser.parse_args()

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


if __name__ == "__main__":
    main()
