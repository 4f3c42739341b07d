"""Fuzzing the readers (issue 7): any bytes, any JSON, any damaged file gives either a working
object or the documented error, a ``ValueError`` (the engine's classes in ``engine.errors`` are
ValueErrors) with a one-line message; never another exception.

Every loader is covered: native, HF ``tokenizer.json``, GPT-2's ``vocab.json`` + ``merges.txt``,
``.tiktoken`` (with and without its sidecar), seed 001's JSON, ``load_any``/``detect_format``;
and the corpus readers ``read_corpus``, ``decode_corpus`` and ``count_corpus``; chunk-count tables
(``read_counts`` on any bytes, damaged Parquet, hostile column types and metadata, word-count
files: issue 21); session files
(``Session.load``: only a one-line ``SessionError``) and decode's input (``parse_ids`` and
``bpe-lab decode`` on arguments and standard input: exit 0, or 2 with one line).

The CI budget is small (``FUZZ_EXAMPLES``, 25 examples a test; the whole file runs in a few
seconds). For a longer local run::

    HYPOTHESIS_PROFILE=thorough python -m pytest tests/cli/test_fuzz.py        # 2000 examples a test
    BPE_LAB_FUZZ_EXAMPLES=20000 python -m pytest tests/cli/test_fuzz.py        # or any number

``tests/cli/fuzz_atheris.py`` drives the same checks with atheris (coverage-guided), by hand.
"""

from __future__ import annotations

import base64
import copy
import functools
import io
import json
import os
import re
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine import Tokenizer, TrainConfig, Trainer
from engine.corpus.reading import count_corpus, decode_corpus, read_corpus
from engine.encode.tokenizer import load_tokenizer, tokenizer_from_dict
from engine.formats import BY_NAME, detect_format, export_tokenizer, load_any
from engine.formats.gpt2 import load_gpt2
from engine.formats.hf import load_hf
from engine.formats.seed001 import load_seed001
from engine.formats.tiktoken_bpe import _limited_bpe, load_tiktoken
from engine.text.pretokenize import PreTokenizer

PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "default")
FUZZ_EXAMPLES = int(os.environ.get("BPE_LAB_FUZZ_EXAMPLES", 2000 if PROFILE == "thorough" else 25))
fuzz = settings(
    max_examples=FUZZ_EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)

TEXTS = ["", "hello world", "Grüße 123\r\n", "分词 😀 <eos>", "a\x00b\udcff"]


# -- the contract -----------------------------------------------------------------------------


def exercise(result: Any) -> None:
    """A loaded tokenizer must work: encode and decode any text, and give the ids back."""
    imported = result if hasattr(result, "tokenizer") else None
    tok: Tokenizer = imported.tokenizer if imported else result
    assert isinstance(tok, Tokenizer)
    for text in TEXTS:
        ids = tok.encode(text)
        assert all(type(i) is int and 0 <= i < tok.vocab_size for i in ids)
        tok.decode(ids)
        if tok.base == "bytes" and tok.pretokenizer.covers_everything:
            # Every byte is a base token, so the bytes come back exactly (specials aside).
            assert tok.decode_bytes(tok.encode(text, specials=False)) == text.encode("utf-8", "surrogateescape")
        if imported is not None:
            try:
                file_ids = imported.encode(text)
            except ValueError:
                continue  # a token the file has no id for: documented
            assert imported.decode(file_ids) == tok.decode(ids)


def check(load: Callable[[], Any]) -> None:
    """``load()`` gives a working object or a one-line ValueError; anything else fails the test."""
    try:
        result = load()
    except ValueError as exc:
        message = str(exc)
        assert message and "\n" not in message and "\r" not in message, repr(message)
        return
    exercise(result)


@contextmanager
def folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="bpe-fuzz-") as name:
        yield Path(name)


def write(path: Path, content: bytes | str) -> Path:
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8", "surrogatepass"))
    return path


# -- valid files to damage --------------------------------------------------------------------

CORPUS = "low lower lowest newer wider <eos>\nthe cat in the hat, 123 4567\n" * 3 + "Grüße 分词 😀\n"


def _trained(base: str, pretokenizer: str, specials=("<pad>", "<s>")) -> Tokenizer:
    config = TrainConfig(base=base, pretokenizer=pretokenizer, max_merges=24, min_frequency=1, specials=specials,
                         tie_rule="first-seen")
    trainer = Trainer(CORPUS, config)
    trainer.train()
    return trainer.tokenizer()


def _exported() -> dict[str, dict[str, bytes]]:
    """One small valid tokenizer per format, as the files' bytes (name -> content)."""
    out: dict[str, dict[str, bytes]] = {}
    bytes_tok = _trained("bytes", "gpt2")
    chars_tok = _trained("chars", "none", specials=())
    with folder() as tmp:
        for fmt, tok, name in (("native", bytes_tok, "t.json"), ("hf", bytes_tok, "tokenizer.json"),
                               ("hf-chars", chars_tok, "tokenizer.json"), ("seed001", chars_tok, "seed.json"),
                               ("gpt2", bytes_tok, "pair"), ("tiktoken", bytes_tok, "t.tiktoken")):
            target = tmp / fmt / name
            target.parent.mkdir()
            export_tokenizer(tok, fmt.split("-")[0], target)
            out[fmt] = {p.name: p.read_bytes() for p in sorted(target.parent.rglob("*")) if p.is_file()}
    return out


VALID = _exported()


def _entry(fmt: str, folder: Path) -> Path:
    """The path a user would give for a format's files in ``folder``."""
    return {"gpt2": folder, "tiktoken": folder / "t.tiktoken"}.get(fmt) or folder / next(iter(VALID[fmt]))


_READERS: dict[str, Callable[[Path], Any]] = {
    "native": load_tokenizer, "hf": load_hf, "hf-chars": load_hf, "seed001": load_seed001, "gpt2": load_gpt2,
    "tiktoken": load_tiktoken,
}


def load_format(fmt: str, folder: Path) -> Any:
    """The format's own loader on its files in ``folder``."""
    return _READERS[fmt](_entry(fmt, folder))


def test_the_valid_files_load():
    for fmt, files in VALID.items():
        with folder() as tmp:
            for name, content in files.items():
                write(tmp / name, content)
            exercise(load_format(fmt, tmp))
            exercise(load_any(_entry(fmt, tmp)))


# -- strategies -------------------------------------------------------------------------------

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-3, 300)
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=6)
    | st.sampled_from(["", "a", "ab", "Ġ", "<eos>", "BPE", "bytes", "chars", "bpe-lab", "gpt2", "custom", "a b", "(", "\ud800"])
)
JSON = st.recursive(SCALARS, lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=6), kids, max_size=4),
                    max_leaves=16)


def _places(node: Any, out: list) -> list:
    """Every (container, key) in a JSON tree."""
    if isinstance(node, dict):
        for key in list(node):
            out.append((node, key))
            _places(node[key], out)
    elif isinstance(node, list):
        for i in range(len(node)):
            out.append((node, i))
            _places(node[i], out)
    return out


@st.composite
def damaged_json(draw, document: Any) -> Any:
    """A valid document with one to three parts replaced, removed, repeated or retyped."""
    data = copy.deepcopy(document)
    for _ in range(draw(st.integers(1, 3))):
        places = _places(data, [])
        if not places:
            return draw(JSON)
        container, key = draw(st.sampled_from(places))
        action = draw(st.sampled_from(["replace", "remove", "repeat", "nudge", "wrap"]))
        value = container[key]
        if action == "replace":
            container[key] = draw(JSON)
        elif action == "remove":
            del container[key]
        elif action == "repeat" and isinstance(container, list):
            container.insert(key, copy.deepcopy(value))
        elif action == "nudge" and type(value) is int:
            container[key] = value + draw(st.sampled_from([-1, 1, -value - 1, 2**32, 10**30]))
        elif action == "wrap":
            container[key] = [value]
    return data


def _json_doc(fmt: str) -> tuple[str, Any]:
    name, content = next(iter(VALID[fmt].items()))
    return name, json.loads(content)


@st.composite
def damaged_lines(draw, content: bytes) -> bytes:
    """A line-based file (merges.txt, .tiktoken) with lines removed, repeated, swapped or replaced."""
    lines = content.split(b"\n")
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(lines) - 1))
        action = draw(st.sampled_from(["remove", "repeat", "swap", "replace", "split"]))
        if action == "remove" and len(lines) > 1:
            del lines[i]
        elif action == "repeat":
            lines.insert(i, lines[i])
        elif action == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif action == "replace":
            lines[i] = draw(st.binary(max_size=12) | st.sampled_from([b"a b", b"YQ== 0", b"YWI= 99999999999", b"# x", b"  "]))
        else:
            lines[i : i + 1] = lines[i].split(b" ")
    return b"\n".join(lines)


# -- tokenizer files --------------------------------------------------------------------------


@fuzz
@given(st.binary(max_size=300), st.sampled_from(["t.json", "tokenizer.json", "vocab.json", "merges.txt", "t.tiktoken",
                                                 "t.tiktoken.json", "seed.json", "other"]))
def test_any_bytes_under_any_name(data, name):
    with folder() as tmp:
        path = write(tmp / name, data)
        check(lambda: load_any(path))
        for loader in (load_tokenizer, load_hf, load_seed001, load_gpt2, load_tiktoken):
            check(lambda: loader(path))
        try:
            assert detect_format(path) in BY_NAME  # a registered format (a GGUF header is four bytes)
        except ValueError as exc:
            assert "\n" not in str(exc)


@fuzz
@given(JSON, st.sampled_from(["t.json", "vocab.json", "t.tiktoken.json"]))
def test_any_json(value, name):
    with folder() as tmp:
        path = write(tmp / name, json.dumps(value))
        if name == "vocab.json":
            write(tmp / "merges.txt", VALID["gpt2"]["merges.txt"])
        if name == "t.tiktoken.json":
            write(tmp / "t.tiktoken", VALID["tiktoken"]["t.tiktoken"])
        check(lambda: load_any(path))
        check(lambda: tokenizer_from_dict(value))


@fuzz
@given(st.data(), st.sampled_from(["native", "hf", "hf-chars", "seed001"]))
def test_damaged_json_files(data, fmt):
    name, document = _json_doc(fmt)
    damaged = data.draw(damaged_json(document))
    with folder() as tmp:
        path = write(tmp / name, json.dumps(damaged, ensure_ascii=data.draw(st.booleans())))
        check(lambda: load_format(fmt, tmp))
        check(lambda: load_any(path))


@fuzz
@given(st.data(), st.sampled_from(["vocab.json", "merges.txt", "t.tiktoken", "t.tiktoken.json"]))
def test_damaged_pairs(data, part):
    fmt = "gpt2" if part in ("vocab.json", "merges.txt") else "tiktoken"
    files = dict(VALID[fmt])
    if part.endswith(".json"):
        files[part] = json.dumps(data.draw(damaged_json(json.loads(files[part])))).encode("utf-8")
    else:
        files[part] = data.draw(damaged_lines(files[part]))
    with folder() as tmp:
        for name, content in files.items():
            write(tmp / name, content)
        check(lambda: load_format(fmt, tmp))
        check(lambda: load_any(_entry(fmt, tmp)))


@fuzz
@given(st.data(), st.sampled_from(sorted(VALID)))
def test_truncated_files(data, fmt):
    files = dict(VALID[fmt])
    name = data.draw(st.sampled_from(sorted(files)))
    files[name] = files[name][: data.draw(st.integers(0, len(files[name])))]
    with folder() as tmp:
        for each, content in files.items():
            write(tmp / each, content)
        check(lambda: load_format(fmt, tmp))
        check(lambda: load_any(_entry(fmt, tmp)))


@fuzz
@given(st.lists(st.tuples(st.binary(min_size=1, max_size=4), st.integers(0, 2**33)), max_size=12),
       st.sampled_from([None, "none", "gpt2"]))
def test_any_rank_file(entries, pattern):
    lines = "\n".join(f"{base64.b64encode(token).decode('ascii')} {rank}" for token, rank in entries)
    with folder() as tmp:
        path = write(tmp / "r.tiktoken", lines)
        check(lambda: load_tiktoken(path, PreTokenizer(pattern) if pattern else None))


@fuzz
@given(st.dictionaries(st.binary(min_size=2, max_size=40), st.integers(0, 50), max_size=8), st.binary(min_size=1, max_size=200),
       st.integers(0, 60))
def test_rank_recovery_is_tiktokens_merging(extra, token, max_rank):
    """The heap version of tiktoken's merging (linear-logarithmic, for hostile long tokens) makes
    exactly the parts the plain rescan makes."""
    ranks = {bytes([b]): b for b in range(256)}
    for t, r in extra.items():
        ranks.setdefault(t, 256 + r)
    assume(len(set(ranks.values())) == len(ranks))
    parts = [token[i : i + 1] for i in range(len(token))]
    while len(parts) > 1:
        best = at = None
        for i in range(len(parts) - 1):
            r = ranks.get(parts[i] + parts[i + 1])
            if r is not None and r < max_rank + 256 and (best is None or r < best):
                best, at = r, i
        if at is None:
            break
        parts[at : at + 2] = [parts[at] + parts[at + 1]]
    assert _limited_bpe(ranks, token, max_rank + 256) == parts


# -- corpora ----------------------------------------------------------------------------------


@fuzz
@given(st.binary(max_size=400) | st.lists(st.sampled_from([b"\n", b"\r\n", b"\r", b" ", b"\x00", b"\xff", b"a", b"\xe4\xb8",
                                                            b"\xe4\xb8\x8d", b"'s", b"12", b"\t"]), max_size=80).map(b"".join),
       st.integers(1, 64))
def test_corpus_readers_on_any_bytes(data, block):
    for base in ("bytes", "chars"):
        decoded = decode_corpus(data, base=base, name="x")
        assert decoded.size == len(data) and decoded.nul_bytes == data.count(0)
        if base == "bytes":  # the raw bytes come back exactly
            assert decoded.text.encode("utf-8", "surrogateescape") == data
        note = decoded.note(base)
        assert note is None or "\n" not in note
    with folder() as tmp:
        path = write(tmp / "c.txt", data)
        for base in ("bytes", "chars"):
            try:
                whole = read_corpus(path, base=base)
            except ValueError as exc:
                assert not data and "empty" in str(exc)
                continue
            pre = PreTokenizer("gpt2", split_digits=True)
            counted = count_corpus(path, pre, base=base, block=block)
            assert counted.chunks == pre.count(whole.text) and list(counted.chunks) == list(pre.count(whole.text))
            assert (counted.size, counted.invalid_bytes, counted.nul_bytes) == (whole.size, whole.invalid_bytes, whole.nul_bytes)
            assert counted.note(base) == whole.note(base)
            try:
                Trainer(whole.text, TrainConfig(base=base, max_merges=5, min_frequency=1)).train()
            except ValueError as exc:  # nothing to train on is the only refusal
                assert "no text to train on" in str(exc)


# -- chunk-count tables (issue 21) -------------------------------------------------------------


def check_table(path: Path) -> None:
    """``read_counts`` gives a table of text chunks with whole counts of 1 or more, that trains;
    or one one-line ValueError. Never another exception, nor a float, NaN or bool count."""
    from engine.corpus import read_counts

    try:
        table = read_counts(path, max_table_bytes=1 << 20, max_chunk_bytes=4096)
    except ValueError as exc:
        message = str(exc)
        assert message and "\n" not in message and "\r" not in message and len(message) < 1000, repr(message)
        return
    assert table.chunks and all(type(c) is str and c for c in table.chunks)
    assert all(type(n) is int and 1 <= n < 2**64 for n in table.chunks.values())
    assert table.base in ("bytes", "chars") and isinstance(table.inputs, list)
    if table.base == "chars":
        assert all(c.encode("utf-8") for c in table.chunks)  # no lone surrogates
    config = TrainConfig(base=table.base, max_merges=5, min_frequency=1, pretokenizer=table.pretokenizer.name,
                         pattern=table.pretokenizer.pattern if table.pretokenizer.name == "custom" else None)
    try:
        Trainer("", config, chunks=table.chunks).train()
    except ValueError as exc:  # a table may still be unusable for training (a bad pattern): one line
        assert "\n" not in str(exc)


@functools.cache
def _table_bytes() -> tuple[bytes, dict]:
    """A table bpe-lab count wrote (bytes base, gpt2) and its metadata (made on first use: it
    needs pyarrow, the scale extra)."""
    from engine.corpus import count_inputs, write_counts

    with folder() as tmp:
        write(tmp / "c.txt", CORPUS)
        table = count_inputs([str(tmp / "c.txt")], PreTokenizer("gpt2"), processes=1)
        write_counts(table, tmp / "t.parquet")
        return (tmp / "t.parquet").read_bytes(), table.meta()


#: Values a hostile writer puts in a count column.
ODD_COUNTS = st.sampled_from(["int64", "uint64", "int8", "double", "bool", "string", "binary"])


@fuzz
@given(st.binary(max_size=400) | st.builds(lambda head, rest: head + rest, st.just(b"PAR1"), st.binary(max_size=400)))
def test_any_bytes_as_a_table(data):
    with folder() as tmp:
        check_table(write(tmp / "t", data))


@pytest.mark.needs_extra("scale")
@fuzz
@given(st.data())
def test_damaged_parquet_tables(data):
    raw = bytearray(_table_bytes()[0])
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(raw) - 1))
        action = data.draw(st.sampled_from(["flip", "cut", "insert"]))
        if action == "flip":
            raw[at] ^= data.draw(st.integers(1, 255))
        elif action == "cut":
            del raw[at:at + data.draw(st.integers(1, 64))]
        else:
            raw[at:at] = data.draw(st.binary(min_size=1, max_size=16))
    with folder() as tmp:
        check_table(write(tmp / "t.parquet", bytes(raw)))


@pytest.mark.needs_extra("scale")
@fuzz
@given(st.data(), ODD_COUNTS)
def test_hostile_parquet_writers(data, kind):
    """Any column types and values, any damage to the metadata: what pyarrow can write."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    chunks = data.draw(st.lists(st.binary(min_size=0, max_size=6) | st.none(), max_size=6))
    values = {"int64": st.integers(-2, 2**63 - 1), "uint64": st.integers(0, 2**64 - 1), "int8": st.integers(-128, 127),
              "double": st.floats(allow_nan=True, allow_infinity=True), "bool": st.booleans(),
              "string": st.text(max_size=4), "binary": st.binary(max_size=4)}[kind]
    counts = data.draw(st.lists(values | st.none(), min_size=len(chunks), max_size=len(chunks)))
    order = data.draw(st.lists(st.integers(-3, 10) | st.none(), min_size=len(chunks), max_size=len(chunks)))
    table_meta = _table_bytes()[1]
    meta = data.draw(damaged_json(table_meta)) if data.draw(st.booleans()) else table_meta
    types = {"int64": pa.int64(), "uint64": pa.uint64(), "int8": pa.int8(), "double": pa.float64(), "bool": pa.bool_(),
             "string": pa.string(), "binary": pa.binary()}
    table = pa.table({"chunk": pa.array(chunks, pa.binary()), "count": pa.array(counts, types[kind]),
                      "order": pa.array(order, pa.int64())})
    table = table.replace_schema_metadata({b"bpe-lab": json.dumps(meta).encode("utf-8")})
    with folder() as tmp:
        pq.write_table(table, tmp / "t.parquet")
        check_table(tmp / "t.parquet")


WORD_LINES = st.sampled_from(["the 3", "cat\t2", "a 0", "b -1", "c ²", "d 1.5", "e 99999999999999999999999", " 4",
                              "f " + "9" * 5000, "g\t", "", "  ", "h 1 2", "naïve 7", "x" * 5000 + " 1", "\udcff 1"])


@fuzz
@given(st.lists(WORD_LINES | st.text(max_size=12), max_size=12), st.sampled_from(["\n", "\r\n"]))
def test_any_word_count_file(lines, end):
    with folder() as tmp:
        check_table(write(tmp / "dict.txt", end.join(lines)))


# -- sessions and decode's input (issue 11) ----------------------------------------------------

import tui.cli.commands as cli  # noqa: E402
from tui.cli.common import UsageError  # noqa: E402
from tui.cli.decode import parse_ids  # noqa: E402
from tui.model.session import Session, SessionError, fingerprint  # noqa: E402


def _session_doc(replay: bool) -> dict:
    """A valid session on CORPUS: trained (at step 10 of 24 merges), or replaying a tokenizer."""
    tok = _trained("bytes", "gpt2")
    session = Session("c.txt", fingerprint(CORPUS.encode("utf-8")), len(CORPUS.encode("utf-8")), tok.config,
                      list(tok.merges), 10, 260, tok if replay else None)
    return json.loads(session.to_json())


SESSIONS = {False: _session_doc(False), True: _session_doc(True)}
#: Number spellings that no session field may hold, put in place of a number in a session's text.
ODD_NUMBERS = ["1e400", "-1e400", "NaN", "Infinity", "-0", "2.0", "1E2", "9" * 5000, "9" * 30, "-1", "0.5e-400"]


def check_session(path: Path) -> None:
    """``Session.load`` gives a session whose fields have their types and ranges, or one
    ``SessionError`` line; anything else fails the test."""
    try:
        session = Session.load(path)
    except SessionError as exc:
        message = str(exc)
        assert message and "\n" not in message and "\r" not in message and len(message) < 1000, repr(message)
        return
    assert isinstance(session.config, TrainConfig) and isinstance(session.source, str)
    assert type(session.size) is int and session.size >= 0
    assert all(type(a) is int and type(b) is int and a >= 0 and b >= 0 for a, b in session.merges)
    assert type(session.step) is int and 0 <= session.step <= len(session.merges)
    assert session.selected is None or type(session.selected) is int
    if session.replay is not None:
        exercise(session.replay)


@fuzz
@given(st.data(), st.booleans())
def test_damaged_sessions(data, replay):
    damaged = data.draw(damaged_json(SESSIONS[replay]))
    with folder() as tmp:
        check_session(write(tmp / "s.json", json.dumps(damaged, ensure_ascii=data.draw(st.booleans()))))


@fuzz
@given(st.data(), st.booleans())
def test_sessions_with_odd_numbers(data, replay):
    text = json.dumps(SESSIONS[replay])
    numbers = [m.span() for m in re.finditer(r"(?<![\w.])\d+(?![\w.])", text)]
    for _ in range(data.draw(st.integers(1, 3))):
        start, end = data.draw(st.sampled_from(numbers))
        text = text[:start] + data.draw(st.sampled_from(ODD_NUMBERS)) + text[end:]
        numbers = [m.span() for m in re.finditer(r"(?<![\w.])\d+(?![\w.])", text)]
    with folder() as tmp:
        check_session(write(tmp / "s.json", text))


@fuzz
@given(JSON | st.binary(max_size=300))
def test_any_json_or_bytes_as_a_session(value):
    with folder() as tmp:
        content = value if isinstance(value, bytes) else json.dumps(value)
        check_session(write(tmp / "s.json", content))


ID_PARTS = ["1", "104", "258", "-1", "+", "+5", "[", "]", ",", " ", "\n", "\t", "1e400", "1.5", "9" * 50, "9" * 5000, "[1, 2]",
            "[[1]]", "٣", "\u2003", "null", "true", '"1"', "\x00", "\ufffd", "0x10", "1_0", "[" * 200]
ID_TEXT = st.lists(st.sampled_from(ID_PARTS), max_size=12).map("".join) | st.text(max_size=40)


def _decode(tmp: Path, argv: list[str], stdin: bytes | None = None) -> None:
    """``bpe-lab decode`` exits 0 (output only) or 2 (one error line only)."""
    out_bytes = io.BytesIO()
    out = io.TextIOWrapper(out_bytes, encoding="utf-8", errors="surrogateescape")
    err = io.StringIO()
    real = sys.stdin
    if stdin is not None:
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin))
    try:
        code = cli.main(["decode", "-t", str(tmp / "t.json"), *argv], out=out, err=err)
    finally:
        sys.stdin = real
    printed = err.getvalue()
    assert code in (0, 2), printed
    if code == 2:
        assert printed.count("\n") == 1 and printed.startswith("bpe-lab: error: ") and len(printed) < 300, printed
    else:
        assert printed == ""


@fuzz
@given(ID_TEXT, st.booleans())
def test_decode_any_input(text, raw):
    try:
        ids = parse_ids([text], "arguments")
        assert all(type(i) is int for i in ids)
    except UsageError as exc:
        assert "\n" not in str(exc)
    with folder() as tmp:
        write(tmp / "t.json", VALID["native"]["t.json"])
        extra = ["--bytes"] if raw else []
        _decode(tmp, extra, stdin=text.encode("utf-8", "surrogatepass"))
        if text.split():
            _decode(tmp, [*extra, *text.split()])


# -- lesson files (issue 21) ------------------------------------------------------------------

LESSON_WORDS = ["open", "sample=qa.txt", "file=x.txt", "text=\"a b\"", "step", "run", "goto", "3", "-1", "undo", "select",
                "tokenize", "trace", "on", "analysis", "curve", "replay", "../t.json", "quiz", "mode=typed", "expect",
                "encode", "decode", "merge", "1", "==", "<=", "[1,", "[[", "]", '"', "'", "\\", "#", "#1", "#x", "=",
                "\x1b]52;c;", "\x9b", "\t", "漢字", "9" * 30]


@st.composite
def lesson_texts(draw) -> str:
    """Lesson files near the format: front matter (sometimes broken), headings, prose, ``bpe``
    blocks of directive-like lines, fences left open."""
    title = draw(st.sampled_from(['title = "t"', 'title = "[/x]"', "title = [[[", 'title = "\\u001b"', "x = 1", ""]))
    parts = [draw(st.sampled_from(["+++\n", "", "  +++\n"])), title + "\n", draw(st.sampled_from(["+++\n", ""]))]
    for _ in range(draw(st.integers(0, 4))):
        parts.append(draw(st.sampled_from(["## ", "##", "### ", "## a  ##  ", "##\t"])) + draw(st.text(max_size=8)) + "\n")
        parts.append(draw(st.text(max_size=20)) + "\n")
        if draw(st.booleans()):
            parts.append(draw(st.sampled_from(["```bpe\n", "~~~bpe\n", "```\n", "````bpe\n"])))
            for _ in range(draw(st.integers(0, 4))):
                parts.append(" ".join(draw(st.lists(st.sampled_from(LESSON_WORDS), max_size=6))) + "\n")
            parts.append(draw(st.sampled_from(["```\n", "~~~\n", ""])))
    return "".join(parts)


@fuzz
@given(lesson_texts() | st.text(max_size=300) | st.binary(max_size=300))
def test_any_lesson_file(content):
    """check() gives one-line, inert problems; parse() a lesson or one LessonError; never another
    exception, whatever the bytes."""
    from engine.text.display import inert
    from tui.lessons.format import LessonError, check, parse

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "l.md"
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8", "surrogatepass"))
        problems = check(path)
        for problem in problems:
            assert "\n" not in problem and problem.startswith(str(path)) and inert(problem) == problem
        try:
            lesson = parse(path)
        except LessonError as exc:
            assert str(exc) in problems
        else:
            assert len(lesson.steps) >= 2
            assert all("a control character, U+" in p for p in problems)  # what parse lets through: shown escaped
