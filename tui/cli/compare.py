"""``bpe-lab compare``: bpe against char, word, WordPiece and Unigram tokenizers on a corpus (or a
chunk-count table), measured on the corpus or a held-out text."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

from tui.cli.common import PROG, add_training_options, config_from_args
from tui.cli.count import add_counts_options, check_counts_args
from tui.cli.progress import train_with_bar

if TYPE_CHECKING:
    from engine.analysis import Row


def add_compare_parser(sub) -> None:
    """``bpe-lab compare CORPUS``."""
    compare = sub.add_parser("compare", help="bpe against char, word, WordPiece and Unigram tokenizers on a corpus")
    compare.add_argument("corpus", metavar="CORPUS", nargs="?", help="the corpus file (or --counts TABLE)")
    held = compare.add_mutually_exclusive_group()
    held.add_argument("--heldout", metavar="FILE", help="a held-out text to measure on (training uses all of CORPUS)")
    held.add_argument("--heldout-fraction", type=float, metavar="F",
                      help="hold back the last F of CORPUS (0 < F < 1, cut at a line start) and measure on it")
    add_training_options(compare)
    add_counts_options(compare)
    compare.add_argument("--json", action="store_true", help="print a JSON list of rows")


#: ``compare`` trains this many merges when neither --vocab-size nor --merges is given.
COMPARE_MERGES = 1000


def run_compare(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from engine import Trainer, read_corpus
    from engine.analysis import BpeSegmenter, baseline_rows, build_baselines, hold_back, measure, trainer_counts

    if args.vocab_size is None and args.max_merges is None:
        args.max_merges = COMPARE_MERGES
    check_counts_args(args)
    config = config_from_args(args)
    if args.counts is not None:
        from tui.cli.count import compare_counts

        rows = compare_counts(args, config, err)
        heldout = args.heldout
        print_compare(args, rows, heldout is not None, out, err)
        return 0
    text = read_corpus(args.corpus, base=config.base, max_bytes=args.max_corpus_bytes).text
    heldout = None
    if args.heldout is not None:
        heldout = read_corpus(args.heldout, base=config.base, max_bytes=args.max_corpus_bytes).text
    elif args.heldout_fraction is not None:
        text, heldout = hold_back(text, args.heldout_fraction)
    trainer = Trainer(text, config)
    train_with_bar(trainer, err, args.quiet)
    rows = [measure(BpeSegmenter(trainer.tokenizer()), text, heldout, corpus_counts=trainer_counts(trainer))]
    rows += baseline_rows(build_baselines(text, trainer.vocab_size), text, heldout)
    print_compare(args, rows, heldout is not None, out, err)
    return 0


def print_compare(args: argparse.Namespace, rows: Sequence[Row], heldout: bool, out: TextIO, err: TextIO) -> None:
    if args.json:
        print(json.dumps([row.to_dict() for row in rows], ensure_ascii=False), file=out)
    else:
        print_rows(rows, out)
    where = "the held-out text" if heldout else "the corpus (no held-out text given)"
    print(f"{PROG}: note: unknown and chars/token are measured on {where}", file=err)


def print_rows(rows: Sequence[Row], out: TextIO) -> None:
    """The comparison as an aligned table; a row that could not be built shows its note."""
    print(f"{'tokenizer':<10} {'vocab':>7} {'corpus':>9} {'held-out':>9} {'unknown':>8} {'chars/token':>11}", file=out)
    for row in rows:
        if row.note is not None:
            print(f"{row.name:<10} {row.note}", file=out)
            continue
        held = "-" if row.heldout_tokens is None else str(row.heldout_tokens)
        cpt = row.chars_per_token
        print(f"{row.name:<10} {row.vocab_size:>7} {row.corpus_tokens:>9} {held:>9} {row.unknown:>8} "
              f"{'-' if cpt is None else f'{cpt:.3f}':>11}", file=out)
