"""The headless command line: its parser and the dispatch to each command, for scripts, and fast
to start (no textual import).

Every failure the user can cause ends as one line on stderr and exit code 2.

Each command family is a module of tui/cli/ (``train``, ``compare``, ``encode`` and ``export``,
``decode``, ``count``, ``plot`` in ``report``, ``lesson``), which adds its subparser and runs it;
:func:`main` is the entry point.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TextIO

from tui.cli.common import PROG, Parser, guarded
from tui.cli.compare import add_compare_parser, run_compare
from tui.cli.count import add_count_parser
from tui.cli.decode import add_decode_parser, parse_ids, run_decode  # noqa: F401  (parse_ids: tests use it here)
from tui.cli.encode import add_encode_parser, add_export_parser, run_encode, run_export
from tui.cli.report import add_plot_parser, run_plot
from tui.cli.train import add_train_parser, run_train

# engine.formats and engine.analysis, and the trainer and corpus readers (lazy names of engine),
# are imported by the commands that use them: ``bpe-lab encode`` needs neither the trainer nor
# the corpus readers, ``bpe-lab train`` never the file formats (tests/cli/test_cli_startup.py).


def build_parser() -> argparse.ArgumentParser:
    """The headless command line."""
    parser = Parser(prog=PROG, description="Train and use BPE tokenizers one merge at a time.")
    sub = parser.add_subparsers(dest="command", required=True)
    add_train_parser(sub)
    add_encode_parser(sub)
    add_decode_parser(sub)
    add_export_parser(sub)
    add_compare_parser(sub)
    add_plot_parser(sub)
    from tui.cli.lesson import add_lesson_parser  # the app starts only for a lesson's NAME|PATH

    add_lesson_parser(sub)
    add_count_parser(sub)
    from tui.cli.code import add_code_parser
    from tui.cli.compare_text import add_compare_text_parser
    from tui.cli.diff import add_diff_parser
    from tui.cli.fetch import add_fetch_parsers
    from tui.cli.tax import add_tax_parser
    from tui.cli.tokens import add_tokens_parser
    from tui.cli.vocab import add_vocab_parser

    add_fetch_parsers(sub)
    add_diff_parser(sub)
    add_tokens_parser(sub)
    add_vocab_parser(sub)
    add_tax_parser(sub)
    add_code_parser(sub)
    add_compare_text_parser(sub)
    return parser


def run_command(argv: Sequence[str] | None, out: TextIO, err: TextIO, doing: list[str] | None = None) -> int:
    """Parse a headless command line and run it (errors raise; :func:`main` prints them)."""
    args = build_parser().parse_args(argv)
    if doing is not None:
        doing.append(args.command)
    if args.command == "train":
        return run_train(args, out, err)
    if args.command == "encode":
        return run_encode(args, out, err)
    if args.command == "export":
        return run_export(args, err)
    if args.command == "compare":
        return run_compare(args, out, err)
    if args.command == "plot":
        return run_plot(args, err)
    if args.command == "lesson":
        from tui.cli.lesson import run_lesson

        return run_lesson(args, out, err)
    if args.command == "count":
        from tui.cli.count import run_count

        return run_count(args, out, err)
    if args.command == "compare-text":
        from tui.cli.compare_text import run_compare_text

        return run_compare_text(args, out, err)
    if args.command == "code":
        from tui.cli.code import run_code

        return run_code(args, out, err)
    if args.command == "tax":
        from tui.cli.tax import run_tax

        return run_tax(args, out, err)
    if args.command == "vocab":
        from tui.cli.vocab import run_vocab

        return run_vocab(args, out, err)
    if args.command == "tokens":
        from tui.cli.tokens import run_tokens

        return run_tokens(args, out, err)
    if args.command == "diff":
        from tui.cli.diff import run_diff

        return run_diff(args, out, err)
    if args.command in ("fetch", "models"):
        from tui.cli.fetch import run_fetch, run_models

        return run_fetch(args, out, err) if args.command == "fetch" else run_models(out)
    return run_decode(args, out, err)


def main(argv: Sequence[str] | None = None, *, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run a headless command; returns the exit code."""
    out = out or sys.stdout
    err = err or sys.stderr
    doing: list[str] = []  # the command, once parsed: an out-of-memory line says what was being done
    return guarded(lambda: run_command(argv, out, err, doing), err, doing)
