"""``bpe-lab count`` and ``--counts``: chunk-count tables on the command line (no textual import).

``count INPUT... -o T.parquet`` counts; ``count --merge A B ... -o T.parquet`` adds tables;
``train --counts T`` and ``compare --counts T`` train from a table or a word-count file of
another tool, optionally pruned (``--min-chunk-count``, ``--max-chunks``).
"""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING, TextIO

from engine import PRETOKENIZERS, TIE_RULES, ConfigError, CountsError, PreTokenizer, TrainConfig
from engine.corpus import MAX_CHUNK_BYTES, MAX_TABLE_BYTES, check_target, refuse_inputs
from engine.errors import MAX_STREAM_BYTES, size_text

# engine.corpus.counts (lazy names of engine) loads with the commands that count: building the parser
# for ``bpe-lab encode`` must not (tests/cli/test_cli_startup.py).
if TYPE_CHECKING:
    from engine.corpus import ChunkTable

from tui.cli.common import byte_size
from tui.cli.progress import Bar, train_with_bar

PROG = "bpe-lab"


def add_count_parser(sub) -> None:
    """The ``count`` subcommand: the pre-tokenizer options of ``train`` and where to count."""
    count = sub.add_parser("count", help="pre-tokenize and count chunks into a table (Parquet) that train --counts reads")
    count.add_argument("inputs", nargs="+", metavar="INPUT", help="files, folders or globs (.gz .bz2 .xz .zst read as they are)")
    count.add_argument("-o", "--output", required=True, metavar="TABLE.parquet", help="where to write the table")
    count.add_argument("--merge", action="store_true", help="INPUTs are tables: add them up into one")
    count.add_argument("--base", choices=("bytes", "chars"), default="bytes", help="bytes (default) or characters")
    count.add_argument("--pretokenizer", choices=PRETOKENIZERS, default=None, help="how text is split (default gpt2)")
    count.add_argument("--pattern", metavar="REGEX", help="a custom pre-tokenizer regex")
    count.add_argument("--split-digits", action="store_true", help="make every digit a chunk of its own")
    count.add_argument("--no-merge-newline", action="store_true", help="make every newline a chunk of its own (as XSLM's BPE chapter does)")
    count.add_argument("--tie-break", choices=TIE_RULES, default="lowest-ids", dest="tie_rule",
                       help="hf: pre-tokenize line by line as HuggingFace's trainer does (train --tie-break hf needs it)")
    count.add_argument("--engine", choices=("local", "dask"), default="local", help="local cores (default) or a Dask cluster")
    count.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="an existing Dask scheduler (default: a LocalCluster)")
    count.add_argument("--processes", type=int, default=None, metavar="N", help="local processes (default: every core)")
    count.add_argument("--quiet", action="store_true", help="no progress bar")
    add_chunk_bound(count)
    count.add_argument("--max-decompressed-bytes", type=byte_size, default=None, metavar="N",
                       help="refuse a compressed input that decompresses to more than N bytes (suffixes K, M, G; default "
                            "100 times its size, at least 256M)")
    count.add_argument("--max-corpus-bytes", type=byte_size, default=None, metavar="N",
                       help=f"refuse a pipe that holds more than N bytes (default {size_text(MAX_STREAM_BYTES)})")


def add_chunk_bound(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--max-chunk-bytes", type=byte_size, default=None, metavar="N",
                        help=f"refuse a chunk longer than N bytes (default {size_text(MAX_CHUNK_BYTES)})")


def add_counts_options(parser: argparse.ArgumentParser) -> None:
    """``--counts`` and pruning, for ``train`` and ``compare``."""
    parser.add_argument("--counts", metavar="TABLE", help="train from a chunk-count table (bpe-lab count) or a word-count file "
                                                        "(subword-nmt 'word count', SentencePiece 'word<TAB>count') instead of CORPUS")
    parser.add_argument("--min-chunk-count", type=int, metavar="K", help="with --counts: drop chunks seen fewer than K times")
    parser.add_argument("--max-chunks", type=int, metavar="N", help="with --counts: keep only the N most frequent chunks")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    add_chunk_bound(parser)
    parser.add_argument("--max-table-bytes", type=byte_size, default=None, metavar="N",
                        help=f"with --counts: refuse a table whose training would take more than N bytes of memory "
                             f"(default {size_text(MAX_TABLE_BYTES)})")


def _pretokenizer(args: argparse.Namespace) -> PreTokenizer:
    if args.pattern is not None and args.pretokenizer not in (None, "custom"):
        raise ConfigError("give either --pretokenizer or --pattern, not both")
    name = "custom" if args.pattern is not None else (args.pretokenizer or "gpt2")
    return PreTokenizer(name, args.pattern, split_digits=args.split_digits, split_newlines=args.no_merge_newline,
                        per_line=args.tie_rule == "hf")


def run_count(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from engine.corpus import count_inputs, require_pyarrow, write_counts

    if args.merge:
        return _run_merge(args, err)
    if args.scheduler is not None and args.engine != "dask":
        raise ConfigError("--scheduler needs --engine dask")
    if args.processes is not None and args.processes < 1:
        raise ConfigError(f"--processes must be 1 or more, not {args.processes}")
    pretokenizer = _pretokenizer(args)
    if args.base == "chars" and args.tie_rule == "hf":
        raise ConfigError("the hf tie rule works on bytes only (--base bytes)")
    _check_output(args.output, args.inputs)
    require_pyarrow()  # before the counting it would throw away
    with Bar(err, quiet=args.quiet, what="count") as bar:
        table = count_inputs(args.inputs, pretokenizer, base=args.base, engine=args.engine, processes=args.processes,
                             scheduler=args.scheduler, progress=bar.bytes, hashing=bar.hashing,
                             max_chunk_bytes=args.max_chunk_bytes, max_decompressed_bytes=args.max_decompressed_bytes,
                             max_stream_bytes=args.max_corpus_bytes)
    if not table.chunks:
        raise CountsError("no chunks to count: the inputs are empty or the pattern matches none of them")
    note = _note(table)
    if note:
        print(f"{PROG}: note: {note}", file=err)
    write_counts(table, args.output)
    inputs = "1 input" if len(table.inputs) == 1 else f"{len(table.inputs)} inputs"
    print(f"{PROG}: counted {inputs} ({_size(table)}): {len(table.chunks)} distinct chunks, "
          f"{table.occurrences} in all ({table.describe()}); wrote {args.output}", file=err)
    return 0


def _size(table: ChunkTable) -> str:
    from engine.errors import size_text

    return size_text(sum(i.get("size", 0) for i in table.inputs))


def _note(table: ChunkTable) -> str | None:
    found = []
    if table.invalid_bytes:
        found.append(f"{table.invalid_bytes} bytes are not valid UTF-8")
    if table.nul_bytes:
        found.append(f"{table.nul_bytes} bytes are NUL (binary files?)")
    if not found:
        return None
    policy = "kept as raw bytes" if table.base == "bytes" else "invalid bytes replaced by U+FFFD"
    return f"the inputs: {' and '.join(found)}; {policy}"


def _check_output(output: str, inputs: list[str]) -> None:
    """No input, nor a file a folder or glob names, may be the output (a second count of a
    folder must not read, then replace, the table the first wrote into it)."""
    from engine.corpus import expand_inputs

    refuse_inputs([output], [(p, f"the input {p}") for p in inputs if os.path.exists(p)])
    refuse_inputs([output], [(p, f"the input {p}") for p in expand_inputs(inputs)])
    check_target(output)


def _run_merge(args: argparse.Namespace, err: TextIO) -> int:
    from engine.corpus import check_usable, merge_tables, read_counts, write_counts

    _check_output(args.output, args.inputs)
    tables = []
    for path in args.inputs:
        table = read_counts(path, max_chunk_bytes=args.max_chunk_bytes)
        if table.source != "bpe-lab":
            raise CountsError(f"{path}: a {table.source} word-count file, not a table of bpe-lab count (merge adds tables)")
        check_usable(path, table)
        tables.append((path, table))
    merged = merge_tables(tables)
    write_counts(merged, args.output)
    print(f"{PROG}: merged {len(tables)} tables: {len(merged.chunks)} distinct chunks, {merged.occurrences} in all "
          f"({merged.describe()}); wrote {args.output}", file=err)
    return 0


# -- training from a table --------------------------------------------------------------------


def counts_config(args: argparse.Namespace, table: ChunkTable, config: TrainConfig) -> TrainConfig:
    """The training config for a table: its pre-tokenizer and base; options that contradict
    them are refused, naming the difference (the merges would not be the corpus's)."""
    from dataclasses import replace

    pre = table.pretokenizer
    if table.source != "bpe-lab":  # word counts: the options given describe the tokenizer
        return config
    asked = []
    if args.pattern is not None and (pre.name != "custom" or pre.pattern != args.pattern):
        asked.append(f"--pattern {args.pattern!r}")
    elif args.pretokenizer is not None and args.pretokenizer != pre.name:
        asked.append(f"--pretokenizer {args.pretokenizer}")
    if args.base is not None and args.base != table.base:
        asked.append(f"--base {args.base}")
    if args.split_digits and not pre.split_digits:
        asked.append("--split-digits")
    if args.no_merge_newline and not pre.split_newlines:
        asked.append("--no-merge-newline")
    if (config.tie_rule == "hf") != pre.per_line:
        asked.append(f"--tie-break {config.tie_rule} (the table was counted {'line by line' if pre.per_line else 'whole'}; "
                     "count with --tie-break hf for it)")
    if asked:
        raise ConfigError(f"{args.counts}: counted with {table.describe()}; it cannot train with {', '.join(asked)}")
    return replace(config, base=table.base, pretokenizer=pre.name, pattern=pre.pattern if pre.name == "custom" else None,
                   split_digits=pre.split_digits, no_merge_newline=pre.split_newlines)


def load_for_training(args: argparse.Namespace, config: TrainConfig, err: TextIO):
    """(table, config, pruned chunks) for ``--counts``, with the pruning reported on ``err``."""
    from engine.corpus import check_usable, prune, read_counts
    from engine.text import pretokenizer_for

    if args.corpus is not None:
        raise ConfigError("give either CORPUS or --counts, not both")
    table = read_counts(args.counts, pretokenizer=pretokenizer_for(config), base=config.base,
                        max_table_bytes=args.max_table_bytes, max_chunk_bytes=args.max_chunk_bytes)
    check_usable(args.counts, table)
    config = counts_config(args, table, config)
    pruned = prune(table.chunks, min_count=args.min_chunk_count, max_chunks=args.max_chunks)
    if not pruned.chunks:
        raise CountsError(f"{args.counts}: pruning left no chunks (the most frequent occurs {pruned.largest_removed} times)")
    if pruned.removed_chunks:
        lost = _pair_mass(table, pruned, config.base)
        share = pruned.removed_occurrences / max(table.occurrences, 1)
        print(f"{PROG}: note: pruned {pruned.removed_chunks} of {len(table.chunks)} distinct chunks "
              f"({pruned.removed_occurrences} occurrences, {share:.2%}); merges are those of the whole table while "
              f"the best pair leads the next by more than {lost} (the pair occurrences pruned)", file=err)
    return table, config, pruned.chunks


def _pair_mass(table: ChunkTable, pruned, base: str) -> int:
    """Pair occurrences the pruned chunks held: no pair's count fell by more."""
    kept = pruned.chunks
    units = (lambda c: len(c)) if base == "chars" else (lambda c: len(c.encode("utf-8", "surrogateescape")))
    return sum((units(c) - 1) * n for c, n in table.chunks.items() if c not in kept)


def check_counts_args(args: argparse.Namespace) -> None:
    """CORPUS or --counts; pruning only with --counts."""
    if args.counts is None:
        if args.corpus is None:
            raise ConfigError("give a CORPUS or --counts TABLE")
        if args.min_chunk_count is not None or args.max_chunks is not None:
            raise ConfigError("--min-chunk-count and --max-chunks prune a table: use them with --counts")


def compare_counts(args: argparse.Namespace, config: TrainConfig, err: TextIO) -> list:
    """``compare --counts``: the BPE row from the table (corpus tokens counted on it, the held-out
    file encoded); the baselines train on text, which a table does not hold: their rows say so."""
    from engine import Trainer, read_corpus
    from engine.analysis import BASELINES, BpeSegmenter, Row

    if args.heldout_fraction is not None:
        raise ConfigError("--heldout-fraction holds back part of a corpus; with --counts give --heldout FILE")
    _, config, chunks = load_for_training(args, config, err)
    trainer = Trainer("", config, chunks=chunks)
    train_with_bar(trainer, err, args.quiet)
    chars = sum(len(c) * n for c, n in chunks.items())
    row = Row("bpe", trainer.vocab_size, chars, trainer.corpus_tokens, 0)
    if args.heldout is not None:
        heldout = read_corpus(args.heldout, base=config.base, max_bytes=args.max_corpus_bytes).text
        tokens, unknown = BpeSegmenter(trainer.tokenizer()).count(heldout)
        row = Row("bpe", trainer.vocab_size, chars, trainer.corpus_tokens, 0, len(heldout), tokens, unknown)
    note = "needs the corpus text (a chunk-count table holds only counts)"
    return [row, *(Row(name, note=note) for name in BASELINES)]
