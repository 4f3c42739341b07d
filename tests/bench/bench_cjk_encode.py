"""Chinese encode against every peer, whole processes, three real rank files (run by hand; issue 43).

    python tests/bench/bench_cjk_encode.py [--runs 5] [--before DIR] [--corpus PATH] [--only gpt2,cl100k,o200k]

For each of GPT-2's, cl100k's and o200k's ranks (npm tiktoken's JSON, as ``bpe-lab fetch`` keeps
them in ``~/.cache/bpe-lab/tokenizers/NAME.json``), ``bpe-lab encode -t NAME < tang_all.txt`` is
timed as a whole process against scripts doing the same work with each peer: load the same ranks
and the same pattern, encode standard input, write the ids (one line, space-separated):

- tiktoken: the file's ranks decoded into ``tiktoken.Encoding(pat_str=..., mergeable_ranks=...)``,
  ``encode_ordinary``;
- bpe-openai (cl100k and o200k only: it has no GPT-2): ``bpe_openai.get_encoding(NAME_base)`` with
  its own packaged ranks, ``encode_ordinary``; it refuses a text of a million characters or one
  of over 200,000 ids, so its script hands it the text in pieces of about 100,000 characters, cut
  after a newline that a non-space follows (where none of the three patterns joins two pieces);
- tokendagger: the same ranks into ``tokendagger.Encoding``, ``encode_ordinary``.

Every peer's ids are first checked against tiktoken's (and ours too); a peer that does not import
is one line and is left out. Then all contenders run interleaved, ``--runs`` rounds, and the
report prints medians (wall and CPU) and each ratio ours / peer (lower is faster). ``--before
DIR`` adds another checkout's ``bpe-lab encode`` (its own compiled core, built in place) to the
same rounds. Bytecode is cached, as for an installed copy (common.py), and each checkout keeps
its merge cache in a folder of its own under common.CACHE, filled by the check of its ids.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import statistics
import subprocess
import sys
from pathlib import Path

from common import CACHE, CPU, INSTALLED, ROOT, alternate, ours, shared_corpus

RANKS = Path.home() / ".cache" / "bpe-lab" / "tokenizers"

#: Decode npm tiktoken's inline ranks (lines of a marker, the first rank, base64 tokens) as fast
#: as plain Python can: the peers are not charged for a slow loader.
LOAD_RANKS = """
import binascii, json, sys
data = json.loads(open(sys.argv[1], "rb").read())
ranks = {}
for line in data["bpe_ranks"].split("\\n"):
    if line:
        _, first, *tokens = line.split(" ")
        start = int(first)
        ranks.update(zip(map(binascii.a2b_base64, tokens), range(start, start + len(tokens))))
"""

WRITE = """
sys.stdout.write(" ".join(map(str, ids)) + "\\n")
"""

TIKTOKEN = LOAD_RANKS + """
import tiktoken
enc = tiktoken.Encoding("ranks", pat_str=data["pat_str"], mergeable_ranks=ranks, special_tokens={})
ids = enc.encode_ordinary(sys.stdin.read())
""" + WRITE

TOKENDAGGER = LOAD_RANKS + """
import tokendagger
enc = tokendagger.Encoding("ranks", pat_str=data["pat_str"], mergeable_ranks=ranks, special_tokens={})
ids = enc.encode_ordinary(sys.stdin.read())
""" + WRITE

BPE_OPENAI = """
import re, sys, bpe_openai
enc = bpe_openai.get_encoding(sys.argv[1])
text = sys.stdin.read()
ids = []
start = 0
cut = re.compile(r"\\n(?=\\S)")
while start < len(text):  # at most 200,000 ids a call: cut after a newline before a non-space
    found = cut.search(text, start + 100_000)
    end = found.end() if found else len(text)
    ids += enc.encode_ordinary(text[start:end])
    start = end
""" + WRITE


def script(code: str, *args: str) -> list[str]:
    return [sys.executable, "-c", code, *args]


def output(argv: list[str], corpus: Path, env: dict | None = None) -> bytes | str:
    """The child's standard output, or why it failed (its last line of error)."""
    import os

    merged = {k: v for k, v in {**os.environ, **(env or {})}.items() if v is not None}
    with open(corpus, "rb") as given:
        proc = subprocess.run(argv, stdin=given, capture_output=True, env=merged)
    if proc.returncode != 0:
        return (proc.stderr.decode("utf-8", "replace").strip().splitlines() or ["failed"])[-1]
    return proc.stdout


def own_cache(root: Path) -> dict[str, str | None]:
    """The environment of a checkout's bpe-lab: bytecode cached, and a merge cache of its own,
    which the check of its ids fills (a user's later use): another checkout's, or another
    person's, entries never make it recover the merges in a timed run."""
    folder = CACHE / f"merges-{hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:12]}"
    return {**INSTALLED, "BPE_LAB_CACHE": str(folder)}


def contenders_for(name: str, path: Path, before: Path | None) -> dict:
    out: dict = {"bpe-lab encode": (ours("encode", "-t", name), own_cache(ROOT))}
    if before is not None:
        out["bpe-lab encode (before)"] = (ours("encode", "-t", name, root=before.resolve()), own_cache(before))
    out["tiktoken"] = (script(TIKTOKEN, str(path)), INSTALLED)
    if name in ("cl100k", "o200k"):
        out["bpe-openai"] = (script(BPE_OPENAI, f"{name}_base"), INSTALLED)
    out["tokendagger"] = (script(TOKENDAGGER, str(path)), INSTALLED)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--before", type=Path, help="another checkout whose bpe-lab encode runs in the same rounds")
    parser.add_argument("--corpus", type=Path, default=None, help="default: ../shared/corpora/tang_all.txt")
    parser.add_argument("--only", default="gpt2,cl100k,o200k", help="rank files by name, comma-separated")
    args = parser.parse_args()
    corpus = args.corpus or shared_corpus("tang_all.txt")
    if corpus is None:
        print("bench_cjk_encode: needs ../shared/corpora/tang_all.txt (or --corpus)")
        return 0
    modules = {"tiktoken": "tiktoken", "bpe-openai": "bpe_openai", "tokendagger": "tokendagger"}
    missing = {peer for peer, module in modules.items() if importlib.util.find_spec(module) is None}
    if "tiktoken" in missing:
        print("bench_cjk_encode: needs tiktoken (pip install -e '.[compare]'), the reference ids")
        return 0
    for peer in sorted(missing):
        print(f"({peer} does not import: left out)")
    summary: list[str] = []
    for name in args.only.split(","):
        path = RANKS / f"{name}.json"
        if not path.exists():
            print(f"\n== {name}: skipped ({path} absent: bpe-lab fetch {name})")
            continue
        contenders = {k: v for k, v in contenders_for(name, path, args.before).items() if k not in missing}
        expected = output(contenders["tiktoken"][0], corpus, INSTALLED)
        assert isinstance(expected, bytes), f"tiktoken failed: {expected}"
        for who in list(contenders):
            got = expected if who == "tiktoken" else output(contenders[who][0], corpus, contenders[who][1])
            if got != expected:
                print(f"({who} with {name}: {'ids differ from tiktoken' if isinstance(got, bytes) else got}; left out)")
                del contenders[who]
        tokens = expected.count(b" ") + 1
        results = alternate(contenders, args.runs, stdin=corpus)
        print(f"\n== {corpus.name} with {name}'s ranks, {tokens} tokens, same ids from all; "
              f"whole processes, medians of {args.runs}, interleaved")
        ours_time = results["bpe-lab encode"][0]
        ours_cpu = statistics.median(CPU["bpe-lab encode"])
        for who, (seconds, peak) in results.items():
            cpu = statistics.median(CPU[who])
            print(f"  {who:<26} {seconds:6.2f} s  CPU {cpu:5.2f} s  {peak:5d} MB   "
                  f"bpe-lab / this: time x{ours_time / seconds:5.2f}  CPU x{ours_cpu / cpu:5.2f}")
        peers = [who for who in results if not who.startswith("bpe-lab")]
        ratios = ", ".join(f"{ours_time / results[who][0]:.2f}× {who}" for who in peers)
        if "bpe-lab encode (before)" in results:
            ratios += f"; before {results['bpe-lab encode (before)'][0] / results['tiktoken'][0]:.2f}× tiktoken"
        summary.append(f"  {name:<7} {ours_time:5.2f} s: {ratios}")
    print("\n== bpe-lab's time over each peer's (targets: ≤ 0.8× tiktoken, ≤ 0.9× bpe-openai)")
    print("\n".join(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
