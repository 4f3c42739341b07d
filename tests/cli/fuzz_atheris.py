"""Coverage-guided fuzzing of every reader with atheris (optional; CI does not run it).

The same contract as ``tests/cli/test_fuzz.py``: any input gives a working tokenizer (or corpus) or a
one-line ``ValueError``; any other exception is a crash atheris reports, with the input saved.

    pip install atheris                      # a wheel for Linux x86-64, CPython 3.8-3.11
    python tests/cli/fuzz_atheris.py -max_total_time=600
    python tests/cli/fuzz_atheris.py -runs=100000 corpus-dir/     # keep and reuse what it found

The first byte of each input picks the target (a file name: native, HF, seed 001, the halves of a
GPT-2 pair and of a tiktoken pair, or a corpus); the rest is the file. The valid files of
``tests/cli/test_fuzz.py`` are the starting points (written to a seed folder when none is given).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import atheris

sys.path[:0] = [str(Path(__file__).resolve().parents[2]), str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parent)]

with atheris.instrument_imports():
    from engine.corpus.reading import count_corpus, decode_corpus, read_corpus
    from engine.formats import load_any
    from engine.text.pretokenize import PreTokenizer

from test_fuzz import VALID, check  # noqa: E402  (after the instrumented imports)

#: (name to write, format whose other files go beside it, or None)
TARGETS = [
    ("t.json", None), ("tokenizer.json", None), ("seed.json", None), ("vocab.json", "gpt2"), ("merges.txt", "gpt2"),
    ("t.tiktoken", "tiktoken"), ("t.tiktoken.json", "tiktoken"), ("corpus.txt", None),
]
WORK = Path(tempfile.mkdtemp(prefix="bpe-atheris-"))
PRE = PreTokenizer("gpt2", split_digits=True)


def one_input(data: bytes) -> None:
    if not data:
        return
    name, companions = TARGETS[data[0] % len(TARGETS)]
    content = data[1:]
    folder = WORK / "case"
    folder.mkdir(exist_ok=True)
    for old in folder.iterdir():
        old.unlink()
    for other, other_content in (VALID[companions] if companions else {}).items():
        (folder / other).write_bytes(other_content)
    path = folder / name
    path.write_bytes(content)
    if name == "corpus.txt":
        for base in ("bytes", "chars"):
            decode_corpus(content, base=base)
            try:
                whole = read_corpus(path, base=base)
            except ValueError:
                continue
            counted = count_corpus(path, PRE, base=base, block=7)
            assert counted.chunks == PRE.count(whole.text), "count_corpus differs from read_corpus"
        return
    check(lambda: load_any(path))


def seeds() -> Path:
    """A folder of starting inputs: every valid file, prefixed with its target byte."""
    folder = WORK / "seeds"
    folder.mkdir()
    names = [name for name, _ in TARGETS]
    count = 0
    for files in VALID.values():
        for name, content in files.items():
            target = name if name in names else "t.json"
            (folder / f"seed{count}").write_bytes(bytes([names.index(target)]) + content)
            count += 1
    (folder / "corpus").write_bytes(bytes([names.index("corpus.txt")]) + "Grüße\r\nfrom 分词 \x00\xff".encode("utf-8", "surrogateescape"))
    return folder


if __name__ == "__main__":
    argv = list(sys.argv)
    if not any(not a.startswith("-") for a in argv[1:]):
        argv.append(str(seeds()))
    atheris.Setup(argv, one_input)
    atheris.Fuzz()
