"""Loading rank files of long tokens (issue 40, item 5), on both paths (run by hand).

    python tests/bench/bench_rank_recovery.py [--before DIR] [--only WORD] [--limit SECONDS]

Each variant is a ``.tiktoken`` file of the 256 bytes and then its tokens in that rank order
(written to a temporary folder, never kept): runs of ``a`` to ``a`` x 5000 (16.7 MB), doublings to
``a`` x 2^20, repeated characters, interleaved families, every prefix of one long token, random
long tokens, shuffled orders. Each is loaded by ``load_tiktoken`` with the gpt2 pattern and the
merge cache off, in a fresh ``python`` under a CPU-time limit (``RLIMIT_CPU``, default 60 s),
compiled and pure (``BPE_LAB_PURE``); ``--before DIR`` times another checkout the same way (its
engine on ``PYTHONPATH``, this interpreter). Printed: CPU seconds of the whole process (start,
imports, reading, recovering), or how it was refused or stopped. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import base64
import itertools
import os
import random
import resource
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _runs(byte: bytes = b"a", top: int = 5000, step: int = 1) -> list[bytes]:
    return [byte * k for k in range(2, top + 1, step)]


def _doublings(unit: bytes = b"a", top: int = 20) -> list[bytes]:
    return [unit * (1 << j) for j in range(top + 1) if len(unit) << j >= 2]


def _prefixes(word: bytes, top: int = 5000) -> list[bytes]:
    return [word[:k] for k in range(2, top + 1)]


def _thue_morse(n: int) -> bytes:
    bits = [0]
    while len(bits) < n:
        bits += [1 - b for b in bits]
    return bytes(97 + b for b in bits[:n])


def _fibonacci_word(n: int) -> bytes:
    a, b = b"a", b"ab"
    while len(b) < n:
        a, b = b, b + a
    return b[:n]


def variants() -> dict[str, Callable[[], list[bytes]]]:
    """Name -> its tokens (made when asked: some are 15 MB)."""
    rng = random.Random(7)
    word = bytes(rng.randrange(256) for _ in range(5000))
    two_three = [bytes(t) for n in (2, 3) for t in itertools.product(b"abcd", repeat=n)]

    def shuffled(tokens: list[bytes], seed: int) -> list[bytes]:
        random.Random(seed).shuffle(tokens)
        return tokens

    def random_tokens(alphabet: bytes, lengths: list[int], seed: int) -> list[bytes]:
        pick = random.Random(seed)
        return [bytes(pick.choice(alphabet) for _ in range(k)) for k in lengths]

    return {
        "runs a x2 .. x5000": lambda: _runs(),
        "runs of NUL x2 .. x5000": lambda: _runs(b"\0"),
        "runs a x2 .. x5790 (16.8 MB of tokens)": lambda: _runs(top=5790),
        "runs a x2, x5, x8 .. x8600": lambda: _runs(top=8600, step=3),
        "doublings of a to 2^20": lambda: _doublings(),
        "doublings of e-acute to 1 MB": lambda: _doublings("é".encode(), 19),
        "e-acute x1 .. x2900": lambda: ["é".encode() * k for k in range(1, 2900)],
        "CJK x1 .. x2360": lambda: ["中".encode() * k for k in range(1, 2360)],
        "'hello ' x1 .. x2200": lambda: [b"hello " * k for k in range(1, 2200)],
        "runs of a and b, interleaved": lambda: [t for k in range(2, 3500) for t in (b"a" * k, b"b" * k)],
        "prefixes of one random token": lambda: _prefixes(word),
        "suffixes of one random token": lambda: [word[-k:] for k in range(2, 5001)],
        "prefixes of one random token, shuffled": lambda: shuffled(_prefixes(word), 7),
        "prefixes of the Thue-Morse word": lambda: _prefixes(_thue_morse(5000)),
        "prefixes of a Fibonacci word": lambda: _prefixes(_fibonacci_word(5000)),
        "3000 random 5000-byte tokens": lambda: random_tokens(bytes(range(256)), [5000] * 3000, 1),
        "random abcd tokens of 5000 and 2500 bytes": lambda: two_three + random_tokens(b"abcd", [2500, 5000] * 2000, 2),
        "runs a, reversed": lambda: _runs()[::-1],
        "runs a, shuffled": lambda: shuffled(_runs(), 40),
    }


def write(path: Path, tokens: list[bytes]) -> None:
    lines = [f"{base64.b64encode(bytes([b])).decode()} {b}" for b in range(256)]
    seen = {bytes([b]) for b in range(256)}
    for token in tokens:
        if token not in seen:
            seen.add(token)
            lines.append(f"{base64.b64encode(token).decode()} {len(lines)}")
    path.write_text("\n".join(lines) + "\n", encoding="ascii")


LOAD = """
import sys
from engine.errors import BpeLabError
from engine.formats.tiktoken_bpe import load_tiktoken
from engine.native.door import implementation
from engine.text.pretokenize import pretokenizer_named
try:
    tok = load_tiktoken(sys.argv[1], pretokenizer_named("gpt2")).tokenizer
    said = f"{len(tok.merges)} merges, {len(tok.whole_pieces)} whole pieces"
except BpeLabError as exc:
    said = "refused: " + str(exc).split(": ", 1)[1][:70]
print(said, f"({implementation()})")
"""


def timed(checkout: Path, path: Path, pure: bool, limit: int) -> str:
    """CPU seconds of one load in a fresh process, and what it printed."""
    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (limit, limit))

    env = dict(os.environ, PYTHONPATH=str(checkout), BPE_LAB_CACHE="off", BPE_LAB_PURE="1" if pure else "0",
               PYTHONDONTWRITEBYTECODE="1")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    run = subprocess.run([sys.executable, "-c", LOAD, str(path)], capture_output=True, text=True, env=env,
                         cwd=checkout, preexec_fn=limits)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    said = run.stdout.strip() if run.returncode == 0 else f"stopped at the {limit} s limit" if run.returncode < 0 else "failed"
    return f"{seconds:6.2f} s  {said}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="another checkout to time the same way")
    parser.add_argument("--only", help="variants whose name holds this")
    parser.add_argument("--limit", type=int, default=60, help="CPU seconds a load may take")
    args = parser.parse_args()
    checkouts = [("here", ROOT)] + ([("before", args.before.resolve())] if args.before else [])
    with tempfile.TemporaryDirectory() as tmp:
        for name, make in variants().items():
            if args.only and args.only not in name:
                continue
            path = Path(tmp) / "v.tiktoken"
            write(path, make())
            print(f"{name} ({path.stat().st_size / 1e6:.1f} MB)", flush=True)
            for label, checkout in checkouts:
                for pure in (False, True):
                    print(f"  {label:6s} {'pure' if pure else 'compiled':8s} {timed(checkout, path, pure, args.limit)}",
                          flush=True)


if __name__ == "__main__":
    main()
