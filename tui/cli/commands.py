"""The headless command line: its parser and the dispatch to each command, for scripts, and fast
to start (no textual import).

Every failure the user can cause ends as one line on stderr and exit code 2.

Each command family is a module of tui/cli/ (``train``, ``compare``, ``encode`` and ``export``,
``decode``, ``count``, ``plot`` in ``report``, ``lesson``), which adds its subparser and runs it;
:func:`main` is the entry point.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import TextIO

from tui.cli.common import PROG, Parser, guarded

# engine.formats and engine.analysis, and the trainer and corpus readers (lazy names of engine),
# are imported by the commands that use them: ``bpe-lab encode`` needs neither the trainer nor
# the corpus readers, ``bpe-lab train`` never the file formats (tests/cli/test_cli_startup.py).

#: Each command family's module and the function that adds its subparsers, in --help's order,
#: with the commands it adds. A command line naming one builds that family's parser alone.
FAMILIES: list[tuple[str, str, tuple[str, ...]]] = [
    ("tui.cli.train", "add_train_parser", ("train",)),
    ("tui.cli.encode", "add_encode_parser", ("encode",)),
    ("tui.cli.decode", "add_decode_parser", ("decode",)),
    ("tui.cli.encode", "add_export_parser", ("export",)),
    ("tui.cli.compare", "add_compare_parser", ("compare",)),
    ("tui.cli.report", "add_plot_parser", ("plot",)),
    ("tui.cli.lesson", "add_lesson_parser", ("lesson",)),  # the app starts only for a lesson's NAME|PATH
    ("tui.cli.count", "add_count_parser", ("count",)),
    ("tui.cli.fetch", "add_fetch_parsers", ("fetch", "models")),
    ("tui.cli.diff", "add_diff_parser", ("diff",)),
    ("tui.cli.tokens", "add_tokens_parser", ("tokens",)),
    ("tui.cli.vocab", "add_vocab_parser", ("vocab",)),
    ("tui.cli.tax", "add_tax_parser", ("tax",)),
    ("tui.cli.code", "add_code_parser", ("code",)),
    ("tui.cli.compare_text", "add_compare_text_parser", ("compare-text",)),
]


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The headless command line; with ``only`` (a command's name), its family's parser alone
    (the others' modules are not imported: a command starts faster)."""
    parser = Parser(prog=PROG, description="Train and use BPE tokenizers one merge at a time.")
    sub = parser.add_subparsers(dest="command", required=True)
    for module, adder, commands in FAMILIES:
        if only is None or only in commands:
            getattr(importlib.import_module(module), adder)(sub)
    return parser


def run_command(argv: Sequence[str] | None, out: TextIO, err: TextIO, doing: list[str] | None = None) -> int:
    """Parse a headless command line and run it (errors raise; :func:`main` prints them)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    named = argv[0] if argv and any(argv[0] in commands for _, _, commands in FAMILIES) else None
    args = build_parser(named).parse_args(argv)
    if doing is not None:
        doing.append(args.command)
    if args.command == "train":
        from tui.cli.train import run_train

        return run_train(args, out, err)
    if args.command in ("encode", "export"):
        from tui.cli.encode import run_encode, run_export

        return run_encode(args, out, err) if args.command == "encode" else run_export(args, err)
    if args.command == "compare":
        from tui.cli.compare import run_compare

        return run_compare(args, out, err)
    if args.command == "plot":
        from tui.cli.report import run_plot

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
    from tui.cli.decode import run_decode

    return run_decode(args, out, err)


def main(argv: Sequence[str] | None = None, *, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run a headless command; returns the exit code."""
    out = out or sys.stdout
    err = err or sys.stderr
    doing: list[str] = []  # the command, once parsed: an out-of-memory line says what was being done
    return guarded(lambda: run_command(argv, out, err, doing), err, doing)
