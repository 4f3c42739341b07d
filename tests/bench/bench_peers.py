"""Issue 43's table: bpe-lab against every peer that installs here, whole processes (run by hand).

    python tests/bench/bench_peers.py [--runs 3] [--rows train-tang,encode-tang-gpt2 ...] [--vocab 32000]

The peers: ``pip install -e '.[test,bench]' rustbpe bpeasy tokendagger bpe-openai`` (tokendagger
builds against PCRE2: ``libpcre2-dev``); the bench extra holds only sentencepiece, so that it
installs where PCRE2's headers are missing.

Each row is one piece of work done by whole processes, run with this interpreter: bpe-lab through
its command line (``bpe-lab train CORPUS -o OUT --vocab-size 32000 --quiet``, ``bpe-lab encode -t
NAME < CORPUS``; with its bytecode cached, as an installed copy has it: common.INSTALLED) and each
peer through a small script (bench_train.py's ``HF`` and ``SPM``, ``RUSTBPE``, ``BPEASY`` and ``ENCODE`` below) that loads, works and writes its
result as bpe-lab does. The contenders of a row take turns (common.alternate), ``--runs`` rounds;
wall time is the median, peak memory (GNU time's maximum RSS) the largest. A peer whose module
does not import is left out with one line. The tables at the end are ratios, bpe-lab / peer
(lower is better for bpe-lab), time then memory, in Markdown, in issue 43's layout.

Training (vocabulary 32,000 in every case: bases, merges and specials together). The pre-tokenizer
is GPT-2's pattern wherever a peer takes one (bpe-lab's default, ``--pretokenizer gpt2``):

- **tokenizers**: ``BpeTrainer`` with the ``ByteLevel`` pre-tokenizer (GPT-2's pattern; no prefix
  space) and its 256-byte alphabet, min frequency 2 (bpe-lab's default), saved as tokenizer.json;
  at its default parallelism (two threads here) and with ``TOKENIZERS_PARALLELISM=false`` (one).
- **sentencepiece**: ``model_type="bpe"``, ``character_coverage=1.0`` (every character of the corpus
  gets a piece: bpe-lab's byte base can spell every character, and the default 0.9995 would send
  tang_all's rarest characters to ``<unk>``, less work for less coverage; with full coverage the
  6,289 distinct characters take vocabulary slots before any merge, as they do in bpe-lab, whose
  merges make them from bytes first), ``hard_vocab_limit=False``, ``max_sentence_length=65536``
  (long code lines are trained on, not dropped), every line read (``input_sentence_size`` at its
  default, 0), its default threads and whitespace splitting. SentencePiece has no regex
  pre-tokenizer: it splits on whitespace and where the script changes, so a run of Chinese
  characters between two punctuation marks is one "word", as it is one ``\\p{L}+`` chunk under
  GPT-2's pattern.
- **rustbpe** (nanochat's trainer): ``Tokenizer().train_from_iterator(lines, 32000,
  pattern=GPT-2's)``, its default buffer, the ranks written as a .tiktoken file.
- **bpeasy**: ``train_bpe(lines, GPT-2's pattern, max_token_length=128, vocab_size=32000)``, saved
  with ``save_vocab_to_tiktoken``. bpeasy needs a length cap (bpe-lab has none); 128 bytes is a
  generous one.

Both Rust trainers take the corpus as an iterator of lines (keeping their newlines), as tokenizers
reads a file line by line.

Encoding: the rank files ``bpe-lab fetch`` keeps, ``~/.cache/bpe-lab/tokenizers/{gpt2,cl100k,
o200k}.json`` (npm tiktoken's JSON: the pattern, the specials and the ranks inline). bpe-lab takes
them by name (``-t gpt2``); tiktoken (``Encoding(...).encode_ordinary``) and tokendagger
(``Tokenizer(...).encode``) are built from the same JSON, parsed by the script (``RANKS``);
bpe-openai from its own bundled files (``get_encoding("cl100k_base")``; its GPT-2 would download,
so its GPT-2 cells stay empty), given the text in pieces of about 50,000 characters (it refuses
a text of a million characters or of over 200,000 tokens), each cut after a newline followed by
a non-space, where cl100k's and o200k's patterns always end a chunk; tokenizers (GPT-2's rows only, as in the issue) from the
tokenizer.json ``bpe-lab export --format hf`` writes from the same ranks. Every script reads the
corpus on standard input. Before the timed rounds each contender runs once printing its ids (a
warm-up: bpe-lab's merge cache is written then): every peer's ids must equal bpe-lab's, and a
mismatch is printed loudly and marked ``≠`` in the table. In the timed runs ``bpe-lab encode``
prints its ids (its command line has no other output) and a peer prints only their number:
turning millions of ids into text in Python (``" ".join(map(str, ids))``) is the script's work, not
the library's, and costs more than the encoding itself (tang_all with GPT-2's ranks, tiktoken:
0.82 s CPU and 370 MB printing the ids against 0.37 s and 113 MB printing their number).
``--print-ids`` times the peers printing them too.

Corpora: ../shared/corpora/tang_all.txt (4.8 MB of Chinese poems); 50 MB of distinct Python files,
shuffled (common.stdlib_corpus); 20 MB of English prose (common.english_corpus: Python's
documentation as the interpreter carries it, package docs, CMake's help and the English man
pages, distinct documents, shuffled). The machine is shared: read the ratios, measured side by
side, not the seconds.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_train import HF, SPM  # the same two trainers bench_train.py times

from common import CPU, INSTALLED, ROOT, alternate, english_corpus, ours, shared_corpus, stdlib_corpus

RANK_FILES = Path.home() / ".cache" / "bpe-lab" / "tokenizers"

#: GPT-2's pattern as OpenAI wrote it (engine.text.pretokenize.GPT2_PATTERN matches the same), for the
#: trainers that take a regex.
GPT2 = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""

LINES = """
def lines():
    with open(sys.argv[1], encoding="utf-8", newline="") as corpus:
        yield from corpus
"""

RUSTBPE = """
import sys, base64, rustbpe
""" + LINES + """
tok = rustbpe.Tokenizer()
tok.train_from_iterator(lines(), int(sys.argv[2]), pattern=sys.argv[4])
with open(sys.argv[3], "w") as out:
    out.writelines(f"{base64.b64encode(token).decode()} {rank}\\n" for token, rank in tok.get_mergeable_ranks())
"""

BPEASY = """
import sys, bpeasy
""" + LINES + """
vocab = bpeasy.train_bpe(lines(), sys.argv[4], 128, int(sys.argv[2]))
bpeasy.save_vocab_to_tiktoken(vocab, sys.argv[3])
"""

#: The ids printed (the check run, and ``--print-ids``) or only their number (the timed runs).
WRITE = """
def write(ids):
    sys.stdout.write((" ".join(map(str, ids)) if sys.argv[-1] == "ids" else str(len(ids))) + "\\n")
"""

#: npm tiktoken's JSON (``"bpe_ranks"``: lines of a marker, the first rank, base64 tokens).
RANKS = """
import sys, json, base64
def ranks(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    out = {}
    for line in data["bpe_ranks"].split("\\n"):
        parts = line.split(" ")
        if len(parts) > 2:
            first = int(parts[1])
            for i, token in enumerate(parts[2:]):
                out[base64.b64decode(token)] = first + i
    return data["pat_str"], out, data.get("special_tokens", {})
text = sys.stdin.buffer.read().decode("utf-8")
""" + WRITE

ENCODE = {
    "tiktoken": RANKS + """
import tiktoken
pattern, mergeable, specials = ranks(sys.argv[1])
ids = tiktoken.Encoding(name="bench", pat_str=pattern, mergeable_ranks=mergeable, special_tokens=specials).encode_ordinary(text)
write(ids)
""",
    "tokendagger": RANKS + """
import tokendagger
pattern, mergeable, specials = ranks(sys.argv[1])
ids = tokendagger.Tokenizer("bench", pat_str=pattern, mergeable_ranks=mergeable, special_tokens=specials).encode(text)
write(ids)
""",
    "bpe-openai": """
import sys, bpe_openai, re
""" + WRITE + """
text = sys.stdin.buffer.read().decode("utf-8")
enc = bpe_openai.get_encoding(sys.argv[1])
ids, start = [], 0
while start < len(text):  # pieces under its limits, cut where a line starts with a non-space
    found = re.compile(r"\\n(?=\\S)").search(text, start + 50_000)
    end = found.end() if found else len(text)
    ids += enc.encode_ordinary(text[start:end])
    start = end
write(ids)
""",
    "tokenizers": """
import sys
from tokenizers import Tokenizer
""" + WRITE + """
text = sys.stdin.buffer.read().decode("utf-8")
ids = Tokenizer.from_file(sys.argv[1]).encode(text).ids
write(ids)
""",
}

#: The module each peer imports (its column is left out when it does not import).
MODULES = {"tokenizers": "tokenizers", "sentencepiece": "sentencepiece", "rustbpe": "rustbpe", "bpeasy": "bpeasy",
           "tiktoken": "tiktoken", "tokendagger": "tokendagger", "bpe-openai": "bpe_openai"}
PEERS = list(MODULES)
BPE_OPENAI_NAMES = {"cl100k": "cl100k_base", "o200k": "o200k_base"}

#: row key -> (title, corpus, what: "train" or the rank file's name)
ROWS: dict[str, tuple[str, str, str]] = {
    "train-tang": ("train tang_all to 32k", "tang", "train"),
    "train-code": ("train 50 MB code to 32k", "code", "train"),
    "train-english": ("train 20 MB English to 32k", "english", "train"),
    "encode-tang-gpt2": ("encode tang_all, GPT-2 ranks", "tang", "gpt2"),
    "encode-tang-cl100k": ("encode tang_all, cl100k", "tang", "cl100k"),
    "encode-tang-o200k": ("encode tang_all, o200k", "tang", "o200k"),
    "encode-english-gpt2": ("encode 20 MB English, GPT-2", "english", "gpt2"),
    "encode-english-cl100k": ("encode 20 MB English, cl100k", "english", "cl100k"),
}


def importable(module: str) -> bool:
    """Whether ``module`` imports in a fresh interpreter (a broken build fails here, not mid-run)."""
    return subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True).returncode == 0


def corpus(name: str) -> Path | None:
    if name == "tang":
        return shared_corpus("tang_all.txt")
    if name == "code":
        return stdlib_corpus(50_000_000)
    return english_corpus(20_000_000)


def train_contenders(path: Path, vocab: str, peers: list[str], out: Path, chars: bool = False) -> dict:
    """``chars``: bpe-lab from characters too (Chinese: the setting SentencePiece's compares with)."""
    contenders: dict = {"bpe-lab": (ours("train", str(path), "-o", str(out / "ours.json"), "--vocab-size", vocab, "--quiet"),
                                    INSTALLED)}
    if chars:
        contenders["bpe-lab --base chars"] = (ours("train", str(path), "-o", str(out / "ours-chars.json"), "--vocab-size",
                                                   vocab, "--base", "chars", "--quiet"), INSTALLED)
    if "tokenizers" in peers:
        hf = [sys.executable, "-c", HF, str(path), vocab, str(out / "hf.json")]
        contenders["tokenizers"] = hf
        contenders["tokenizers 1 thread"] = (hf, {"TOKENIZERS_PARALLELISM": "false"})
    if "sentencepiece" in peers:
        contenders["sentencepiece"] = [sys.executable, "-c", SPM, str(path), vocab, str(out / "spm")]
    if "rustbpe" in peers:
        contenders["rustbpe"] = [sys.executable, "-c", RUSTBPE, str(path), vocab, str(out / "rustbpe.tiktoken"), GPT2]
    if "bpeasy" in peers:
        contenders["bpeasy"] = [sys.executable, "-c", BPEASY, str(path), vocab, str(out / "bpeasy.tiktoken"), GPT2]
    return contenders


def encode_contenders(ranks: str, peers: list[str], out: Path, output: str) -> dict:
    """bpe-lab and the peers on one rank file; the peers print their ids (``output`` "ids") or their number."""
    rank_file = RANK_FILES / f"{ranks}.json"
    contenders: dict = {"bpe-lab": (ours("encode", "-t", ranks), INSTALLED)}
    if ranks == "gpt2" and "tokenizers" in peers:
        hf_file = out / "gpt2-tokenizer.json"
        if not hf_file.exists():
            subprocess.run(ours("export", "-t", ranks, "--format", "hf", "-o", str(hf_file)), check=True,
                           env={**os.environ, "PYTHONDONTWRITEBYTECODE": ""}, capture_output=True)
        contenders["tokenizers"] = [sys.executable, "-c", ENCODE["tokenizers"], str(hf_file), output]
    for peer in ("tiktoken", "tokendagger"):
        if peer in peers:
            contenders[peer] = [sys.executable, "-c", ENCODE[peer], str(rank_file), output]
    if "bpe-openai" in peers and ranks in BPE_OPENAI_NAMES:
        contenders["bpe-openai"] = [sys.executable, "-c", ENCODE["bpe-openai"], BPE_OPENAI_NAMES[ranks], output]
    return contenders


def ids_of(spec, path: Path) -> list[int]:
    argv, env = spec if isinstance(spec, tuple) else (spec, {})
    merged = {k: v for k, v in {**os.environ, **env}.items() if v is not None}
    with open(path, "rb") as given:
        done = subprocess.run(argv, stdin=given, capture_output=True, env=merged)
    if done.returncode != 0:
        raise RuntimeError(f"{argv[:3]} failed: {done.stderr.decode('utf-8', 'replace').strip()[-500:]}")
    return [int(x) for x in done.stdout.split()]


def check_ids(contenders: dict, path: Path) -> set[str]:
    """Each contender once, untimed (the warm-up): the peers whose ids differ from bpe-lab's."""
    expected = ids_of(contenders["bpe-lab"], path)
    print(f"  bpe-lab: {len(expected):,} tokens")
    wrong = set()
    for name, spec in contenders.items():
        if name == "bpe-lab":
            continue
        got = ids_of(spec, path)
        if got == expected:
            print(f"  {name}: the same {len(got):,} ids")
            continue
        wrong.add(name)
        first = next((i for i, (a, b) in enumerate(zip(got, expected)) if a != b), min(len(got), len(expected)))
        print(f"  !!!!!!!! MISMATCH: {name} gives {len(got):,} tokens, bpe-lab {len(expected):,}; first difference at id "
              f"{first:,} ({got[first:first + 5]} against {expected[first:first + 5]})")
    return wrong


def cell(ratio: float | None, extra: str = "") -> str:
    return "" if ratio is None else f"{ratio:.2f}{extra}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rows", default=",".join(ROWS), help=f"comma-separated, of: {', '.join(ROWS)}")
    parser.add_argument("--vocab", type=int, default=32000)
    parser.add_argument("--print-ids", action="store_true",
                        help="time the encode peers printing their ids as text (default: printing their number)")
    args = parser.parse_args()
    rows = [r.strip() for r in args.rows.split(",") if r.strip()]
    unknown = [r for r in rows if r not in ROWS]
    if unknown:
        parser.error(f"unknown rows {unknown}; known: {', '.join(ROWS)}")
    peers = []
    for peer, module in MODULES.items():
        if importable(module):
            peers.append(peer)
        else:
            print(f"{peer}: `import {module}` fails here (pip install {peer}): its column is left out")
    print(f"{datetime.date.today()}, {platform.node()}, {os.cpu_count()} cores, {platform.processor() or platform.machine()}, "
          f"Python {platform.python_version()}; load average {os.getloadavg()[0]:.1f}; runs {args.runs}")
    print("bpe-lab's core: " + subprocess.run(
        [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(ROOT)!r}); from engine.native.door import implementation; print(implementation())"],
        capture_output=True, text=True).stdout.strip())
    results: dict[str, dict[str, tuple[float, int, float]]] = {}
    mismatched: dict[str, set[str]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        for key in rows:
            title, corpus_name, what = ROWS[key]
            path = corpus(corpus_name)
            if path is None:
                print(f"\n== {title}: skipped (../shared/corpora absent)")
                continue
            print(f"\n== {title} ({path.name}, {path.stat().st_size / 1e6:.1f} MB)", flush=True)
            if what == "train":
                contenders = train_contenders(path, str(args.vocab), peers, out, chars=corpus_name == "tang")
                stdin = None
            else:
                if not (RANK_FILES / f"{what}.json").exists():
                    print(f"  skipped: {RANK_FILES / what}.json is absent (bpe-lab fetch {what})")
                    continue
                mismatched[key] = check_ids(encode_contenders(what, peers, out, "ids"), path)
                contenders = encode_contenders(what, peers, out, "ids" if args.print_ids else "count")
                stdin = path
            measured = alternate(contenders, runs=args.runs, stdin=stdin)
            results[key] = {name: (seconds, peak, statistics.median(CPU[name])) for name, (seconds, peak) in measured.items()}
            ours_time, ours_peak, _ = results[key]["bpe-lab"]
            for name, (seconds, peak, cpu) in results[key].items():
                print(f"  {name:<20} {seconds:7.2f} s  CPU {cpu:6.2f} s  {peak:6d} MB   bpe-lab / it: time x{ours_time / seconds:5.2f}"
                      f"   memory x{ours_peak / max(peak, 1):5.2f}", flush=True)
    print_tables(rows, results, mismatched)
    print_targets(results)


def ratio(results: dict, key: str, name: str, index: int) -> float | None:
    row = results.get(key, {})
    if name not in row:
        return None
    return row["bpe-lab"][index] / max(row[name][index], 1e-9)


def print_tables(rows: list[str], results: dict, mismatched: dict[str, set[str]]) -> None:
    for index, what in ((0, "wall time, medians"), (1, "peak memory, the largest of the runs"), (2, "CPU time, medians")):
        print(f"\n### bpe-lab / peer, {what} (whole processes; lower is better for bpe-lab)\n")
        print("| work | bpe-lab | " + " | ".join(PEERS) + " |")
        print("|---|---|" + "---|" * len(PEERS))
        for key in rows:
            if key not in results:
                continue
            seconds, peak, _ = results[key]["bpe-lab"]
            own = f"{peak} MB" if index == 1 else f"{results[key]['bpe-lab'][index]:.2f} s"
            cells = []
            for peer in PEERS:
                mark = " ≠" if peer in mismatched.get(key, set()) else ""
                text = cell(ratio(results, key, peer, index), mark)
                if peer == "tokenizers" and "tokenizers 1 thread" in results[key]:
                    text += f" (1 thread {cell(ratio(results, key, 'tokenizers 1 thread', index))})"
                cells.append(text)
            print(f"| {ROWS[key][0]} | {own} | " + " | ".join(cells) + " |")
    print("\nseconds and MB of each contender: the row's lines above")


def print_targets(results: dict) -> None:
    """Issue 43's targets, as far as the rows run measure them."""
    print("\n### issue 43's targets\n")
    lines = []
    for key in ("encode-tang-gpt2", "encode-tang-cl100k", "encode-tang-o200k"):
        tik = ratio(results, key, "tiktoken", 0)
        if tik is not None:
            lines.append(f"- {ROWS[key][0]}: {tik:.2f}× tiktoken (target ≤ 0.8): {'holds' if tik <= 0.8 else 'does not hold'}")
        bo = ratio(results, key, "bpe-openai", 0)
        if bo is not None:
            lines.append(f"- {ROWS[key][0]}: {bo:.2f}× bpe-openai (target ≤ 0.9): {'holds' if bo <= 0.9 else 'does not hold'}")
    row = results.get("train-tang", {})
    for name in ("bpe-lab", "bpe-lab --base chars"):
        if name in row and "sentencepiece" in row:
            spm_time = row[name][0] / max(row["sentencepiece"][0], 1e-9)
            spm_memory = row[name][1] / max(row["sentencepiece"][1], 1e-9)
            held = spm_time <= 0.6 and spm_memory <= 1.0
            lines.append(f"- train tang_all, {name}: {spm_time:.2f}× sentencepiece's time (target ≤ 0.6), {spm_memory:.2f}× its "
                         f"peak memory (target ≤ 1.0): {'holds' if held else 'does not hold'}")
    print("\n".join(lines) or "(no row of the targets was run)")


if __name__ == "__main__":
    main()
