"""``bpe-lab [CORPUS] [training options]``: open the app (the default corpus is a bundled sample)."""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from engine.pretokenize import pretokenizer_for

from .cli import PROG, add_training_options, config_from_args
from .samples import DEFAULT_SAMPLE


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Train BPE one merge at a time and see everything that happens. "
        "Headless commands: bpe-lab train|encode|decode --help.",
    )
    parser.add_argument("corpus", nargs="?", metavar="CORPUS", help="a text file (default: the bundled workshop corpus)")
    add_training_options(parser)
    parser.add_argument("--tokenizer", metavar="TOK", help="replay a tokenizer (any supported format) on the corpus, merge by merge")
    parser.add_argument("--pattern-name", choices=("none", "simple", "gpt2", "gpt4"), metavar="NAME",
                        help="pre-tokenizer for a --tokenizer file that holds none (.tiktoken, vocab.json + merges.txt)")
    return parser


def imported_tokenizer(args: argparse.Namespace):
    """The --tokenizer to replay (None without one); notes go to stderr, errors raise ValueError."""
    if not args.tokenizer:
        return None
    from engine.formats import load_any
    from engine.pretokenize import PreTokenizer

    pre = None
    if args.pattern_name:
        pre = PreTokenizer(args.pattern_name)
    elif args.pattern:
        pre = PreTokenizer("custom", args.pattern)
    imported = load_any(args.tokenizer, pretokenizer=pre)
    for note in imported.warnings:
        print(f"{PROG}: note: {args.tokenizer}: {note}", file=sys.stderr)
    return imported.tokenizer


def launch(argv: Sequence[str]) -> int:
    """Parse the app's options, read the corpus (errors: one line, exit 2), run the app."""
    args = build_parser().parse_args(list(argv))
    try:
        replay = imported_tokenizer(args)
        if replay is not None:
            args.pattern = None  # it named the imported file's pattern, not a training option
        config = config_from_args(args)
        pretokenizer_for(config)  # a bad pattern is refused here, before the app starts
        from .workbench import LoadedCorpus

        base = replay.base if replay is not None else config.base
        corpus = LoadedCorpus.open(args.corpus or f"sample:{DEFAULT_SAMPLE}", base)
    except ValueError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    from .app import BpeApp

    BpeApp(corpus, config, replay=replay).run()
    return 0
