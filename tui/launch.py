"""``bpe-lab [CORPUS] [training options]``: open the app (the default corpus is a bundled sample)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

from engine import pretokenizer_for

from .cli import PROG, Parser, UsageError, add_training_options, config_from_args
from .samples import DEFAULT_SAMPLE


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog=PROG,
        description="Train BPE one merge at a time and see everything that happens. "
        "Headless commands: bpe-lab train|encode|decode|export|compare --help.",
    )
    parser.add_argument("corpus", nargs="?", metavar="CORPUS", help="a text file (default: the bundled workshop corpus)")
    add_training_options(parser)
    parser.add_argument("--tokenizer", metavar="TOK", help="replay a tokenizer (any supported format) on the corpus, merge by merge")
    parser.add_argument("--pattern-name", choices=("none", "simple", "gpt2", "gpt4"), metavar="NAME",
                        help="pre-tokenizer for a --tokenizer file that holds none (.tiktoken, vocab.json + merges.txt)")
    parser.add_argument("--resume", action="store_true",
                        help="continue the last session where you left it (with CORPUS: that corpus's session)")
    parser.add_argument("--session", metavar="PATH",
                        help="one session file for every corpus (default: one per corpus in ~/.local/state/bpe-lab/sessions/)")
    parser.add_argument("--run", action="store_true", help="start training as soon as the corpus is loaded")
    parser.add_argument("--headless", action="store_true", help=argparse.SUPPRESS)  # tests: no terminal
    return parser


def imported_tokenizer(args: argparse.Namespace):
    """The --tokenizer to replay (None without one); notes go to stderr, errors raise ValueError."""
    if not args.tokenizer:
        return None
    from engine.formats import load_any
    from engine import PreTokenizer

    pre = None
    if args.pattern_name:
        pre = PreTokenizer(args.pattern_name)
    elif args.pattern:
        pre = PreTokenizer("custom", args.pattern)
    imported = load_any(args.tokenizer, pretokenizer=pre)
    for note in imported.warnings:
        print(f"{PROG}: note: {args.tokenizer}: {note}", file=sys.stderr)
    return imported.tokenizer


def resumed(args: argparse.Namespace, session_file: Path):
    """The session to resume and its corpus; ValueError (one line) when it cannot be."""
    from .session import Session
    from .workbench import LoadedCorpus

    session = Session.load(session_file)
    base = session.replay.base if session.replay is not None else session.config.base
    corpus = LoadedCorpus.open(session.source, base)
    if corpus.sha256 != session.sha256:
        raise ValueError(f"{session.source} changed since the session was saved: cannot resume it")
    return session, corpus


def resume_file(args: argparse.Namespace, explicit: Path | None) -> Path:
    """The session file ``--resume`` resumes: the explicit one; else CORPUS's own session (the
    most recent on it whose corpus bytes are unchanged); else the most recent session.
    ValueError (one line) when there is none."""
    from .session import corpus_session_path, corpus_sessions, fingerprint, latest_session_path

    if explicit is not None or not args.corpus:
        return explicit if explicit is not None else latest_session_path()
    source = args.corpus if args.corpus.startswith("sample:") else str(Path(args.corpus).resolve())
    if source.startswith("sample:"):
        from .samples import sample

        data = sample(source.split(":", 1)[1]).read_bytes()
    else:
        try:
            data = Path(source).read_bytes()
        except OSError as exc:
            raise ValueError(f"{args.corpus}: cannot read it ({exc.strerror or exc})") from None
    path = corpus_session_path(source, fingerprint(data))
    if path.exists():
        return path
    if corpus_sessions(source):
        raise ValueError(f"{args.corpus} changed since the session was saved: cannot resume it")
    raise ValueError(f"no session on {args.corpus} to resume")


def launch(argv: Sequence[str]) -> int:
    """Parse the app's options, read the corpus (errors: one line, exit 2), run the app."""
    try:
        args = build_parser().parse_args(list(argv))
    except UsageError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    from .session import explicit_session_path

    explicit = Path(args.session) if args.session else explicit_session_path()
    session_file = explicit
    if args.resume:
        try:
            session_file = resume_file(args, explicit)
            session, corpus = resumed(args, session_file)
        except ValueError as exc:
            print(f"{PROG}: error: {exc}", file=sys.stderr)
            return 2
        from .app import BpeApp

        app = BpeApp(corpus, session.config, script=session.replay, resume=session, session_file=explicit,
                     resumed_from=session_file, run=args.run)
        app.run(headless=args.headless)
        return 0
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

    BpeApp(corpus, config, script=replay, session_file=session_file, run=args.run).run(headless=args.headless)
    return 0
