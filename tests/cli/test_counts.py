"""Chunk-count tables: training from a table makes exactly the merges of training on the text
(every tie rule, pre-tokenizer and base), counts past 2³¹ and 2³² stay exact, tables add up,
word-count files of other tools read as chunks, and pruning keeps the merges it promises."""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from helpers import shared_corpus
from hypothesis import given
from hypothesis import strategies as st

import tui.cli.commands as cli
from engine import CorpusError, CountsError, PreTokenizer, TrainConfig, Trainer
from engine.corpus import ChunkTable, count_inputs, decode_corpus, merge_tables, prune, read_counts, write_counts
from engine.encode.tokenizer import load_tokenizer
from engine.text import pretokenizer_for
from engine.train.reference import train_counts as reference_train_counts

ALPHABETS = ["ab", "a b\n", "ab\n\n", "aä \n", "xy 12\n", "中文，。\n", "a1 b2\nc", "😀a \n", "Ab!? \n\r"]
RAW = [b"", b"\xff", b"\xe4\xb8", b"\x00"]
#: Writing or reading a Parquet table needs the scale extra: those tests skip without it.
needs_pyarrow = pytest.mark.needs_extra("scale")


@st.composite
def corpora(draw) -> bytes:
    """Text from a small alphabet (ties and runs), now and then with bytes that are not UTF-8."""
    text = draw(st.text(alphabet=draw(st.sampled_from(ALPHABETS)), min_size=1, max_size=120)).encode("utf-8")
    for _ in range(draw(st.integers(0, 2))):
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(RAW)) + text[at:]
    return text


@st.composite
def configs(draw) -> TrainConfig:
    base = draw(st.sampled_from(["bytes", "chars"]))
    rules = ["lowest-ids", "first-seen"] + (["hf"] if base == "bytes" else [])
    return TrainConfig(
        base=base,
        pretokenizer=draw(st.sampled_from(["none", "simple", "gpt2", "gpt4"])),
        tie_rule=draw(st.sampled_from(rules)),
        split_digits=draw(st.booleans()),
        no_merge_newline=draw(st.booleans()),
        min_frequency=draw(st.sampled_from([1, 2])),
        max_merges=draw(st.integers(0, 40)),
    )


def events(trainer: Trainer) -> list[tuple]:
    return [(e.pair, e.count, e.ties, e.tie_total, e.tokens_after) for e in trainer.train()]


def table_of(data: list[bytes], config: TrainConfig, *, task_bytes: int = 16, engine: str = "local") -> ChunkTable:
    with tempfile.TemporaryDirectory() as folder:
        paths = []
        for i, part in enumerate(data):
            path = Path(folder) / f"part{i}.txt"
            path.write_bytes(part)
            paths.append(str(path))
        return count_inputs(paths, pretokenizer_for(config), base=config.base, processes=1, task_bytes=task_bytes, engine=engine)


@given(corpora(), configs(), st.sampled_from([16, 40, 1 << 20]))
@needs_pyarrow
def test_a_table_trains_exactly_as_the_corpus(data, config, task_bytes):
    """Counted in blocks (a cut every 16 bytes where one is safe), through Parquet and back:
    the same merges, counts, tie sets and corpus sizes as training on the text."""
    text = decode_corpus(data, base=config.base).text
    expected = events(Trainer(text, config))
    table = table_of([data], config, task_bytes=task_bytes)
    assert events(Trainer.from_counts(table.pairs(), config)) == expected
    with tempfile.TemporaryDirectory() as folder:
        write_counts(table, Path(folder) / "t.parquet")
        again = read_counts(Path(folder) / "t.parquet")
    assert list(again.chunks.items()) == list(table.chunks.items())
    assert events(Trainer.from_counts(again.pairs(), config)) == expected


@given(st.lists(corpora(), min_size=1, max_size=3), configs())
def test_several_inputs_add_up_as_each_file_counted_alone(parts, config):
    pre = pretokenizer_for(config)
    expected: Counter[str] = Counter()
    for part in parts:
        expected.update(pre.count(decode_corpus(part, base=config.base).text))
    table = table_of(parts, config)
    assert list(table.chunks.items()) == list(expected.items())


@st.composite
def huge_tables(draw):
    words = draw(st.lists(st.text(alphabet="ab c", min_size=1, max_size=6), min_size=1, max_size=10, unique=True))
    scale = draw(st.sampled_from([1 << 31, (1 << 32) + 7, 3 << 40]))
    return [(w, scale * draw(st.integers(1, 4)) + draw(st.integers(0, 3))) for w in words]


@given(huge_tables(), st.sampled_from(["lowest-ids", "first-seen"]), st.sampled_from(["bytes", "chars"]))
def test_counts_past_32_bits_are_exact(chunks, tie_rule, base):
    """Chunk counts above 2³¹ and 2³² (pair counts far above): the naive reference on Python
    ints and the trainer agree, and the node array is 64-bit."""
    config = TrainConfig(base=base, pretokenizer="none", tie_rule=tie_rule, max_merges=15)
    expected = reference_train_counts(chunks, base=base, tie_rule=tie_rule, max_merges=15)
    trainer = Trainer.from_counts([(w.encode("utf-8"), n) for w, n in chunks], config)
    assert [(e.pair, e.count) for e in trainer.train()] == expected
    assert trainer._state.data.typecode == "q"
    trainer._state.verify()


def test_small_counts_keep_the_32_bit_node_array():
    trainer = Trainer.from_counts([(b"abab", 5), (b"ab", (1 << 31) - 1)], TrainConfig())
    assert trainer._state.data.typecode == "i"
    assert trainer.step().count == (1 << 31) - 1 + 10


@needs_pyarrow
def test_a_count_of_2_to_the_63_and_more_survives_parquet(tmp_path):
    table = ChunkTable(Counter({"ab": (1 << 63) + 5, "c": 1}), "bytes", PreTokenizer("gpt2"))
    write_counts(table, tmp_path / "t.parquet")
    assert read_counts(tmp_path / "t.parquet").chunks == table.chunks
    with pytest.raises(CorpusError, match="more than"):  # 2 x 2^63 tokens: past what a pair count may reach
        Trainer.from_counts(table.pairs(), TrainConfig())


@needs_pyarrow
def test_an_empty_chunk_from_another_writer_is_refused(tmp_path):
    """bpe-lab count never writes an empty chunk; a table another writer made with one is refused
    in one line (the fuzz test found it read as a chunk '' that trains nothing)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    write_counts(ChunkTable(Counter({"ab": 2}), "bytes", PreTokenizer("gpt2")), tmp_path / "ok.parquet")
    meta = pq.read_schema(tmp_path / "ok.parquet").metadata
    rows = pa.table({"chunk": pa.array([b"ab", b""], pa.binary()), "count": pa.array([2, 1], pa.int64()),
                     "order": pa.array([0, 1], pa.int64())}).replace_schema_metadata(meta)
    pq.write_table(rows, tmp_path / "t.parquet")
    with pytest.raises(CountsError, match="an empty chunk"):
        read_counts(tmp_path / "t.parquet")


def test_repeated_chunks_add_up_and_bad_counts_are_refused():
    a = Trainer.from_counts([(b"ab", 2), (b"cd", 1), (b"ab", 3)], TrainConfig(max_merges=1))
    assert a.step().count == 5
    for bad in (0, -1, 2.5):
        with pytest.raises(CorpusError):
            Trainer.from_counts([(b"ab", bad)], TrainConfig())


@pytest.mark.parametrize("suffix, opener", [(".gz", gzip.open), (".bz2", bz2.open), (".xz", lzma.open),
                                             pytest.param(".zst", None, marks=pytest.mark.needs_extra("scale"))])
def test_compressed_inputs_count_as_the_plain_file(tmp_path, suffix, opener):
    data = "the cat sat on the mat\nthe cat ate the rat\n中文，。\n".encode() * 50
    (tmp_path / "plain.txt").write_bytes(data)
    if opener is None:
        import zstandard

        (tmp_path / f"c.txt{suffix}").write_bytes(zstandard.ZstdCompressor().compress(data))
    else:
        with opener(tmp_path / f"c.txt{suffix}", "wb") as handle:
            handle.write(data)
    pre = PreTokenizer("gpt2")
    plain = count_inputs([str(tmp_path / "plain.txt")], pre, processes=1)
    packed = count_inputs([str(tmp_path / f"c.txt{suffix}")], pre, processes=1)
    assert list(packed.chunks.items()) == list(plain.chunks.items())
    assert packed.inputs[0]["size"] == (tmp_path / f"c.txt{suffix}").stat().st_size and len(packed.inputs[0]["sha256"]) == 64


def test_folders_and_globs_are_sorted_and_hidden_files_skipped(tmp_path):
    (tmp_path / "d" / "sub").mkdir(parents=True)
    (tmp_path / "d" / "b.txt").write_text("bee bee\n")
    (tmp_path / "d" / "sub" / "a.txt").write_text("ant\n")
    (tmp_path / "d" / ".hidden").write_text("secret\n")
    pre = PreTokenizer("gpt2")
    table = count_inputs([str(tmp_path / "d")], pre, processes=1)
    assert [Path(i["path"]).name for i in table.inputs] == ["b.txt", "a.txt"]  # d/b.txt < d/sub/a.txt
    assert "secret" not in table.chunks
    globbed = count_inputs([str(tmp_path / "d" / "**" / "*.txt")], pre, processes=1)
    assert sorted(globbed.chunks.items()) == sorted(table.chunks.items())
    with pytest.raises(CountsError, match="matches no file"):
        count_inputs([str(tmp_path / "*.nothing")], pre)


def test_blocks_are_a_few_a_worker_within_their_bounds():
    """Unless told a size, a plan cuts about four blocks a worker, from 8 MB to 256 MB: few
    partial tables to add up, yet a worker's last block short beside the whole."""
    from engine.corpus.count_blocks import MAX_TASK_BYTES, TASK_BYTES, task_size

    assert task_size(1_000_000_000, 2) == 125_000_000
    assert task_size(10_000_000, 2) == TASK_BYTES
    assert task_size(100_000_000_000, 2) == MAX_TASK_BYTES
    assert task_size(1_000_000_000, 0) == 250_000_000


def test_local_processes_give_the_table_of_one_process(tmp_path):
    lines = [f"line {i}: the value is {i * 7919 % 1000} and the word is {'abcdefg'[i % 7] * (i % 5)}\n" for i in range(40_000)]
    (tmp_path / "big.txt").write_text("".join(lines))
    pre = PreTokenizer("gpt2")
    one = count_inputs([str(tmp_path / "big.txt")], pre, processes=1, task_bytes=100_000)
    two = count_inputs([str(tmp_path / "big.txt")], pre, processes=2, task_bytes=100_000)
    assert list(one.chunks.items()) == list(two.chunks.items())
    assert list(one.chunks.items()) == list(pre.count((tmp_path / "big.txt").read_text()).items())


def test_tables_add_up_in_order_and_refuse_other_pretokenizers():
    gpt2 = PreTokenizer("gpt2")
    a = ChunkTable(Counter({"x": 2, "y": 1}), "bytes", gpt2, [{"path": "a"}])
    b = ChunkTable(Counter({"z": 5, "x": 1}), "bytes", gpt2, [{"path": "b"}])
    merged = merge_tables([("a.parquet", a), ("b.parquet", b)])
    assert list(merged.chunks.items()) == [("x", 3), ("y", 1), ("z", 5)]
    assert [i["path"] for i in merged.inputs] == ["a", "b"]
    other = ChunkTable(Counter({"z": 1}), "bytes", PreTokenizer("gpt4"))
    with pytest.raises(CountsError, match=r"b.parquet: counted differently from a.parquet \(pre-tokenizer gpt4 against gpt2\)"):
        merge_tables([("a.parquet", a), ("b.parquet", other)])
    chars = ChunkTable(Counter({"z": 1}), "chars", gpt2)
    with pytest.raises(CountsError, match="base chars against bytes"):
        merge_tables([("a.parquet", a), ("b.parquet", chars)])


def test_word_count_files_of_other_tools(tmp_path):
    """subword-nmt 'word count' and SentencePiece 'word<TAB>count': each word one chunk, as written."""
    (tmp_path / "dict.txt").write_text("low 5\nlower 2\nnewest 6\nwidest 3\n")
    (tmp_path / "words.tsv").write_text("low\t5\nlower\t2\nnewest\t6\nwidest\t3\n")
    nmt = read_counts(tmp_path / "dict.txt")
    spm = read_counts(tmp_path / "words.tsv")
    assert (nmt.source, spm.source) == ("subword-nmt", "sentencepiece")
    assert list(nmt.chunks.items()) == list(spm.chunks.items()) == [("low", 5), ("lower", 2), ("newest", 6), ("widest", 3)]
    config = TrainConfig(base="chars", max_merges=10, tie_rule="first-seen")
    expected = reference_train_counts(list(nmt.chunks.items()), base="chars", tie_rule="first-seen", max_merges=10)
    assert [(e.pair, e.count) for e in Trainer.from_counts(nmt.pairs(), config).train()] == expected
    (tmp_path / "bad.txt").write_text("low 5\nlower two\n")
    with pytest.raises(CountsError, match="line 2 is not 'word count'"):
        read_counts(tmp_path / "bad.txt")


@given(st.text(alphabet="ab c\n", min_size=5, max_size=200), st.integers(1, 4), st.sampled_from(["lowest-ids", "first-seen"]))
def test_pruning_keeps_every_merge_that_leads_by_more_than_what_was_pruned(text, min_count, tie_rule):
    """Pruning takes at most D pair occurrences from any pair (D: the pruned chunks' pairs). While
    the whole table's best pair leads the next by more than D, the pruned table merges the same."""
    config = TrainConfig(base="bytes", pretokenizer="gpt2", tie_rule=tie_rule, min_frequency=1)
    chunks = pretokenizer_for(config).count(text)
    pruned = prune(chunks, min_count=min_count)
    assume_kept = pruned.chunks
    if not assume_kept:
        return
    lost = sum((len(c.encode()) - 1) * n for c, n in chunks.items() if c not in assume_kept)
    full = Trainer("", config, chunks=chunks)
    part = Trainer("", config, chunks=assume_kept)
    while True:
        top = full.candidates(2)
        if not top or (len(top) == 2 and top[0].count - top[1].count <= lost) or top[0].count <= lost:
            break
        a, b = full.step(), part.step()
        assert b is not None and a.pair == b.pair
    assert pruned.removed_occurrences == sum(n for c, n in chunks.items() if c not in assume_kept)


def test_max_chunks_keeps_the_most_frequent_in_first_seen_order():
    chunks = Counter({"a": 1, "b": 5, "c": 3, "d": 5})
    pruned = prune(chunks, max_chunks=2)
    assert list(pruned.chunks.items()) == [("b", 5), ("d", 5)]
    assert (pruned.removed_chunks, pruned.removed_occurrences, pruned.largest_removed) == (2, 4, 3)


# -- the command line -------------------------------------------------------------------------


def run(*argv: str) -> tuple[int, str]:
    err = io.StringIO()
    code = cli.main(list(argv), out=io.StringIO(), err=err)
    return code, err.getvalue()


def merges(path: Path) -> list:
    return json.loads(path.read_text())["merges"]


@pytest.mark.parametrize("name, options", [
    ("the-verdict.txt", ["--tie-break", "first-seen"]),
    ("the-verdict.txt", ["--tie-break", "hf"]),
    ("tang_2000.txt", ["--pretokenizer", "gpt4"]),
])
@pytest.mark.slow
@needs_pyarrow
def test_count_then_train_gives_the_merges_of_train_on_a_real_corpus(tmp_path, name, options):
    corpus = shared_corpus(name)
    assert run("train", str(corpus), "-o", str(tmp_path / "raw.json"), "--merges", "500", *options)[0] == 0
    code, err = run("count", str(corpus), "-o", str(tmp_path / "c.parquet"), *options)
    assert code == 0, err
    assert run("train", "--counts", str(tmp_path / "c.parquet"), "-o", str(tmp_path / "t.json"), "--merges", "500", *options)[0] == 0
    assert merges(tmp_path / "t.json") == merges(tmp_path / "raw.json")
    assert load_tokenizer(tmp_path / "t.json").pretokenizer == load_tokenizer(tmp_path / "raw.json").pretokenizer


def test_train_counts_in_one_process_or_two_with_the_same_merges(tmp_path):
    """``train --processes 1`` counts the corpus in this process alone (the issue's "training on
    the text in one process"), 2 the second half in a worker: the same merges; 3 is refused."""
    import random

    rng = random.Random(7)
    words = ["the", "cat", "sat", "on", "mat", "über", "中文", "x1", "  ", "\t"]
    lines = (" ".join(rng.choice(words) for _ in range(rng.randint(1, 12))) for _ in range(40_000))
    corpus = tmp_path / "c.txt"
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert corpus.stat().st_size > 600_000  # above PARALLEL_MIN: two processes do count it in halves
    for processes in ("1", "2"):
        code, err = run("train", str(corpus), "-o", str(tmp_path / f"p{processes}.json"), "--merges", "40",
                        "--processes", processes, "--quiet")
        assert code == 0, err
    assert merges(tmp_path / "p1.json") == merges(tmp_path / "p2.json") and len(merges(tmp_path / "p1.json")) == 40
    code, err = run("train", str(corpus), "-o", str(tmp_path / "p3.json"), "--processes", "3")
    assert code == 2 and "1 or 2, not 3" in err


@needs_pyarrow
def test_count_merge_and_train_from_shards(tmp_path):
    text = "the cat sat on the mat\nthe cat ate the rat\n" * 30
    (tmp_path / "a.txt").write_text(text[: len(text) // 2])
    (tmp_path / "b.txt").write_text(text[len(text) // 2 :])
    for shard in ("a", "b"):
        code, err = run("count", str(tmp_path / f"{shard}.txt"), "-o", str(tmp_path / f"{shard}.parquet"), "--quiet")
        assert code == 0, err
    code, err = run("count", "--merge", str(tmp_path / "a.parquet"), str(tmp_path / "b.parquet"), "-o", str(tmp_path / "all.parquet"))
    assert code == 0 and "merged 2 tables" in err
    both = count_inputs([str(tmp_path / "a.txt"), str(tmp_path / "b.txt")], PreTokenizer("gpt2"), processes=1)
    assert list(read_counts(tmp_path / "all.parquet").chunks.items()) == list(both.chunks.items())
    code, err = run("train", "--counts", str(tmp_path / "all.parquet"), "-o", str(tmp_path / "t.json"), "--min-chunk-count", "31")
    assert code == 0 and "bpe-lab: note: pruned" in err


@needs_pyarrow
def test_train_counts_refuses_options_the_table_was_not_counted_with(tmp_path):
    (tmp_path / "c.txt").write_text("the cat sat\n")
    assert run("count", str(tmp_path / "c.txt"), "-o", str(tmp_path / "c.parquet"))[0] == 0
    code, err = run("train", "--counts", str(tmp_path / "c.parquet"), "-o", str(tmp_path / "t.json"), "--base", "chars")
    assert code == 2 and "it cannot train with --base chars" in err
    code, err = run("train", str(tmp_path / "c.txt"), "--counts", str(tmp_path / "c.parquet"), "-o", str(tmp_path / "t.json"))
    assert code == 2 and "either CORPUS or --counts" in err
    assert not (tmp_path / "t.json").exists()


@needs_pyarrow
def test_compare_from_a_table(tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_text("the cat sat on the mat\nthe cat ate the rat\n" * 20)
    assert run("count", str(corpus), "-o", str(tmp_path / "c.parquet"))[0] == 0
    out = io.StringIO()
    code = cli.main(["compare", "--counts", str(tmp_path / "c.parquet"), "--merges", "20", "--json"], out=out, err=io.StringIO())
    rows = json.loads(out.getvalue())
    assert code == 0
    trainer = Trainer(corpus.read_text(), TrainConfig(max_merges=20))
    trainer.train()
    assert rows[0]["name"] == "bpe" and rows[0]["corpus_tokens"] == trainer.corpus_tokens
    assert all(row["note"] for row in rows[1:])  # the baselines need the text itself


def test_hashing_reports_its_progress_before_the_counting(tmp_path):
    """Every input is read once for its hash before counting: that reading shows as progress."""
    from engine.corpus.counts import count_inputs

    for name, text in (("a.txt", "the cat sat\n" * 30_000), ("b.txt", "on the mat\n" * 20_000)):
        (tmp_path / name).write_text(text)
    total = sum(p.stat().st_size for p in tmp_path.iterdir())
    seen: list[tuple[str, int, int]] = []
    count_inputs([str(tmp_path)], PreTokenizer("gpt2"), processes=1,
                 hashing=lambda done, all_: seen.append(("hash", done, all_)),
                 progress=lambda done, all_, chunks: seen.append(("count", done, all_)))
    hashed = [entry for entry in seen if entry[0] == "hash"]
    assert len(hashed) >= 2 and hashed[-1][1:] == (total, total)  # block by block, to the end
    assert [done for _, done, _ in hashed] == sorted(done for _, done, _ in hashed)
    assert seen.index(hashed[-1]) < min(i for i, entry in enumerate(seen) if entry[0] == "count")


def test_progress_shows_on_a_terminal_only():
    from tui.cli.progress import Bar

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    shown = Terminal()
    with Bar(shown) as bar:
        bar.hashing(100, 100)
        bar.bytes(50, 100, 7)
        bar.merges(10, 20)
    assert shown.getvalue()
    for quiet, stream in ((True, Terminal()), (False, io.StringIO())):
        with Bar(stream, quiet=quiet) as bar:
            bar.bytes(50, 100, 7)
        assert stream.getvalue() == ""


@needs_pyarrow
def test_the_summary_counts_one_input_in_the_singular_and_in_the_bars_unit(tmp_path, monkeypatch):
    """Issue 39: "counted 1 inputs (4.6 MB)" after a bar that said 4.8 MB. One input is one
    input, and the bar and the summary say sizes in one unit (engine.errors.size_text's)."""
    import re

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    corpus = tmp_path / "c.txt"
    corpus.write_text("the cat sat on the mat\n" * 60_000)  # 1.3 MB: 1.3 MB in both
    err = Terminal()
    monkeypatch.setenv("COLUMNS", "160")
    assert cli.main(["count", str(corpus), "-o", str(tmp_path / "c.parquet")], out=io.StringIO(), err=err) == 0
    text = err.getvalue()
    summary = text.splitlines()[-1]
    assert "bpe-lab: counted 1 input (1.3 MB): " in summary  # after the bar's erasing escapes
    shown = set(re.findall(r"\d+(?:\.\d+)? [kMG]B", text))
    assert "1.3 MB" in shown and not any(size.startswith("1.4") for size in shown), shown
    (tmp_path / "d.txt").write_text("on the mat sat the cat\n" * 60_000)
    code, err_text = run("count", str(corpus), str(tmp_path / "d.txt"), "-o", str(tmp_path / "d.parquet"), "--quiet")
    assert code == 0 and "counted 2 inputs (2.6 MB)" in err_text
    from tui.cli.progress import sizes

    assert sizes(1 << 20, 3 << 20) == "1 MB/3 MB" and sizes(3190, None) == "3.1 kB"


@needs_pyarrow
def test_rows_another_writer_shuffled_are_read_in_their_order(tmp_path):
    import pyarrow.parquet as pq

    table = ChunkTable(Counter({"a": 3, "b": 2, "c": 1}), "bytes", PreTokenizer("gpt2"))
    write_counts(table, tmp_path / "t.parquet")
    pq.write_table(pq.read_table(tmp_path / "t.parquet").take([2, 0, 1]), tmp_path / "s.parquet")  # keeps the metadata
    assert list(read_counts(tmp_path / "s.parquet").chunks.items()) == [("a", 3), ("b", 2), ("c", 1)]


@needs_pyarrow
def test_a_count_never_reads_the_table_it_writes_into_its_folder(tmp_path):
    (tmp_path / "shards").mkdir()
    (tmp_path / "shards" / "a.txt").write_text("the cat sat\n")
    out = str(tmp_path / "shards" / "all.parquet")
    assert run("count", str(tmp_path / "shards"), "-o", out)[0] == 0
    before = (tmp_path / "shards" / "all.parquet").read_bytes()
    code, err = run("count", str(tmp_path / "shards"), "-o", out)
    assert code == 2 and "is the same file as the input" in err
    assert (tmp_path / "shards" / "all.parquet").read_bytes() == before


def test_engine_and_train_never_import_the_scale_libraries():
    import subprocess
    import sys

    code = ("import sys, engine, tui.cli.commands; tui.cli.commands.build_parser(); "
            "assert not {'pyarrow', 'dask', 'distributed', 'zstandard'} & set(sys.modules), sorted(sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True).returncode == 0
