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
    return parser


def launch(argv: Sequence[str]) -> int:
    """Parse the app's options, read the corpus (errors: one line, exit 2), run the app."""
    args = build_parser().parse_args(list(argv))
    try:
        config = config_from_args(args)
        pretokenizer_for(config)  # a bad pattern is refused here, before the app starts
        from .workbench import LoadedCorpus

        corpus = LoadedCorpus.open(args.corpus or f"sample:{DEFAULT_SAMPLE}", config.base)
    except ValueError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    from .app import BpeApp

    BpeApp(corpus, config).run()
    return 0
