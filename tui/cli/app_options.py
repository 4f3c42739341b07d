"""The app's command line (``bpe-lab [CORPUS] [options]``), without textual.

The launcher (tui/app/launch.py) parses with it, and ``bpe-lab serve`` checks the options it
will start each browser tab's app with (tui/cli/serve.py) before any app runs.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tui.cli.common import PATTERN_NAMES, PROG, SERVE_SUMMARY, Parser, add_training_options
from tui.i18n import LANGUAGES
from tui.model.pacing import SPEED_NAMES


def build_parser() -> argparse.ArgumentParser:
    parser = AppParser(
        prog=PROG,
        description="Train BPE one merge at a time and see everything that happens: with no command, "
        "the app opens on CORPUS. The commands below run without it (bpe-lab COMMAND --help).",
    )
    parser.add_argument("corpus", nargs="?", metavar="CORPUS", help="a text file (default: the bundled workshop corpus)")
    add_training_options(parser)
    parser.add_argument("--tokenizer", metavar="TOK", help="replay a tokenizer (a file in any supported format, or a name once fetched: "
                             "bpe-lab models) on the corpus, merge by merge")
    parser.add_argument("--pattern-name", choices=PATTERN_NAMES, metavar="NAME",
                        help="pre-tokenizer for a --tokenizer file that holds none (a tiktoken rank file that is not "
                             "a well-known one, vocab.json + merges.txt): "
                             f"{', '.join(PATTERN_NAMES)}")
    parser.add_argument("--resume", action="store_true",
                        help="continue the last session where you left it (with CORPUS: that corpus's session)")
    parser.add_argument("--session", metavar="PATH",
                        help="one session file for every corpus (default: one per corpus in ~/.local/state/bpe-lab/sessions/)")
    parser.add_argument("--run", action="store_true", help="start training as soon as the corpus is loaded")
    parser.add_argument("--speed", choices=tuple(SPEED_NAMES), default="max", metavar="N",
                        help="run speed in merges a second: 1, 2, 5, 20 or max (default; + and - change it in the app)")
    add_theme_option(parser)
    parser.add_argument("--counts", metavar="TABLE",
                        help="train on a chunk-count table (bpe-lab count) or a word-count file instead of a corpus")
    parser.add_argument("--lang", choices=LANGUAGES, metavar="LANG",
                        help="the app's language: en, de or zh (default: the locale's, LC_ALL/LC_MESSAGES/LANG, else English)")
    parser.add_argument("--headless", action="store_true", help=argparse.SUPPRESS)  # tests: no terminal
    # bpe-lab serve starts each browser tab's app with these (tui/cli/serve.py): files only inside
    # the served folder, and a session file of the tab's own in the server's session folder.
    parser.add_argument("--serve-root", metavar="DIR", help=argparse.SUPPRESS)
    parser.add_argument("--serve-sessions", metavar="DIR", help=argparse.SUPPRESS)
    return parser


class AppParser(Parser):
    """The app's parser, whose ``--help`` ends with every subcommand and what it does (built only
    when help is asked for: a launch imports no command module)."""

    def format_help(self) -> str:
        return super().format_help() + "\n" + commands_help()


def commands_help() -> str:
    """``commands:`` and one line per subcommand, from the commands' own parsers and serve's.

    Example: the line ``  serve    the app in web browsers, one app process for each tab ...``
    """
    from tui.cli.commands import build_parser as headless_parser

    rows = []
    for action in headless_parser()._subparsers._group_actions:  # argparse's one subparsers action
        rows += [(choice.dest, choice.help or "") for choice in action._choices_actions]
    rows.append(("serve", SERVE_SUMMARY))
    width = max(len(name) for name, _help in rows)
    lines = [f"  {name:<{width}}  {text}" for name, text in rows]
    return "commands (bpe-lab COMMAND --help):\n" + "\n".join(lines) + "\n"


def add_theme_option(parser: argparse.ArgumentParser) -> None:
    """``--theme NAME`` (the app, and the commands that start it: lessons, serve)."""
    parser.add_argument("--theme", metavar="NAME",
                        help="a Textual theme, e.g. textual-light for a projector (default: the one last picked "
                             "in the palette, ctrl+p → theme; else textual-dark)")


def confine_args(args: argparse.Namespace):
    """The :class:`tui.model.confine.Confinement` of ``--serve-root``, with the corpus and tokenizer
    given made absolute and checked against it; ValueError (one line) when they are outside, or
    for options a served app cannot take (``bpe-lab serve`` checks its app options with this)."""
    import os

    from tui.model.confine import Confinement

    if args.resume or args.session:
        raise ValueError("in a browser each participant has a session of their own: --resume and --session do not apply")
    rules = Confinement(Path(args.serve_root))
    if not rules.root.is_dir():
        raise ValueError(f"{args.serve_root}: no such folder to serve")
    for name in ("corpus", "tokenizer", "counts"):
        given = getattr(args, name)
        if given and not given.startswith("sample:"):
            given = os.path.abspath(os.path.expanduser(given))  # named from where serve started
            rules.readable(given)
            setattr(args, name, given)
    return rules


def table_corpus(args: argparse.Namespace, config):
    """``--counts TABLE``: the table as the app's corpus, and the config it trains with (the
    table's pre-tokenizer and base; contradicting options are refused, as by train --counts)."""
    from tui.cli.count import counts_config
    from tui.model.workbench import LoadedCorpus

    if args.corpus is not None or args.tokenizer is not None:
        raise ValueError("give a CORPUS, --tokenizer or --counts TABLE, not two of them")
    corpus = LoadedCorpus.open_counts(args.counts, config)
    return corpus, counts_config(args, corpus.table, config)
