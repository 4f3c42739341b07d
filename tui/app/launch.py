"""``bpe-lab [CORPUS] [training options]``: open the app (the default corpus is a bundled sample)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import TextIO

from engine.corpus import refuse_inputs
from engine.text import pretokenizer_for
from tui.cli.app_options import add_theme_option, build_parser, confine_args, table_corpus  # noqa: F401  (the launcher's, re-exported)
from tui.cli.common import PROG, config_from_args, guarded
from tui.i18n import set_language
from tui.model.pacing import SPEED_NAMES
from tui.model.samples import DEFAULT_SAMPLE


def theme_options(args: argparse.Namespace) -> dict:
    """The app's theme keywords from ``--theme`` and the user's config file: ``theme``,
    ``prefs_file`` and ``notes`` (a config file that was ignored). An unknown ``--theme`` is a
    one-line UsageError naming the themes there are."""
    from textual.theme import BUILTIN_THEMES

    from tui.cli.common import UsageError
    from tui.model.prefs import config_path, load_prefs, theme_from_prefs

    known = set(BUILTIN_THEMES)
    if args.theme is not None and args.theme not in known:
        raise UsageError(f"unknown theme {args.theme!r}; the themes are: {', '.join(sorted(known))}")
    path = config_path()
    prefs, problem = load_prefs(path)
    remembered, ignored = theme_from_prefs(prefs, path, known)
    notes = [note for note in (problem, ignored) if note]
    return {"theme": args.theme or remembered, "prefs_file": path, "notes": notes}


def imported_tokenizer(args: argparse.Namespace, rules=None):
    """The --tokenizer to replay, an ``engine.formats.Imported`` (its tokenizer and the file's
    ids; None without one); notes go to stderr, errors raise ValueError."""
    if not args.tokenizer:
        return None
    from engine import PreTokenizer, pretokenizer_named
    from engine.formats import load_any
    from tui.cli.progress import loading_bar

    pre = None
    if args.pattern_name:
        pre = pretokenizer_named(args.pattern_name)
    elif args.pattern:
        pre = PreTokenizer("custom", args.pattern)
    with loading_bar(sys.stderr), rules.reading() if rules is not None else nullcontext():
        # (before the app's screen: the first use of a rank file takes seconds; served, every file
        # that comes with the tokenizer stays in the served folder too)
        imported = load_any(args.tokenizer, pretokenizer=pre)
    for note in imported.warnings:
        print(f"{PROG}: note: {args.tokenizer}: {note}", file=sys.stderr)
    return imported


def resumed(args: argparse.Namespace | None, session_file: Path):
    """The session to resume and its corpus; ValueError (one line) when it cannot be."""
    from tui.model.session import Session, SessionError
    from tui.model.workbench import LoadedCorpus

    session = Session.load(session_file)
    if session.replay is None:
        try:
            pretokenizer_for(session.config)  # the session's pattern is refused here, as a --pattern is
        except ValueError as exc:
            raise SessionError(f"{session_file}: \"config\": {exc}") from None
    base = session.replay.base if session.replay is not None else session.config.base
    if session.counts:
        corpus = LoadedCorpus.open_counts(session.source, session.config)
    else:
        corpus = LoadedCorpus.open(session.source, base, max_bytes=getattr(args, "max_corpus_bytes", None))
    if corpus.sha256 != session.sha256:
        raise ValueError(f"{session.source} changed since the session was saved: cannot resume it")
    return session, corpus




def resume_file(args: argparse.Namespace, explicit: Path | None) -> Path:
    """The session file ``--resume`` resumes: the explicit one; else CORPUS's own session (the
    most recent on it whose corpus bytes are unchanged); else the most recent session.
    ValueError (one line) when there is none."""
    from tui.model.session import corpus_session_path, corpus_sessions, fingerprint, latest_session_path

    if explicit is not None or not args.corpus:
        return explicit if explicit is not None else latest_session_path()
    source = args.corpus if args.corpus.startswith("sample:") else str(Path(args.corpus).resolve())
    if source.startswith("sample:"):
        from tui.model.samples import sample

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


def launch(argv: Sequence[str], *, err: TextIO | None = None) -> int:
    """Parse the app's options, read the corpus, run the app. Every failure the user can cause
    is one line and exit code 2, exactly as in the headless commands (:func:`tui.cli.guarded`)."""
    return guarded(lambda: _launch(argv), err or sys.stderr, ("app",))


def _launch(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(list(argv))
    themed = theme_options(args)  # an unknown --theme is refused before anything is read
    set_language(args.lang)  # the app's UI; the headless commands never set one
    from tui.model.session import explicit_session_path
    from tui.model.workbench import LoadedCorpus

    rules = serve_mode(args) if args.serve_root is not None else None
    #: One session file for every corpus (--session, $BPE_LAB_SESSION); else each corpus has its own.
    explicit = Path(args.session) if args.session else explicit_session_path()
    if args.resume:
        session_file = resume_file(args, explicit)
        session, corpus = resumed(args, session_file)
        refuse_inputs([session_file], [(corpus.path, f"the corpus {corpus.path}")] if corpus.path is not None else [])
        from tui.app import BpeApp
        from tui.app.options import LaunchOptions

        options = LaunchOptions(script=session.replay, file_ids=session.replay_ids, resume=session, session_file=explicit,
                                resumed_from=session_file, run=args.run, speed=SPEED_NAMES[args.speed],
                                memory=served_memory(rules), **themed)
        app = BpeApp(corpus, session.config, options=options)
        served(app, rules)
        app.run(headless=args.headless)
        return 0
    imported = imported_tokenizer(args, rules)
    replay = imported.tokenizer if imported is not None else None
    if replay is not None:
        args.pattern = None  # it named the imported file's pattern, not a training option
    config = config_from_args(args)
    pretokenizer_for(config)  # a bad pattern is refused here, before the app starts
    base = replay.base if replay is not None else config.base
    if args.counts is not None:
        corpus, config = table_corpus(args, config)
    else:
        corpus = LoadedCorpus.open(args.corpus or f"sample:{DEFAULT_SAMPLE}", base, max_bytes=args.max_corpus_bytes)
    open_note = None
    if args.base is None and replay is None and args.counts is None:  # a base not chosen: by the text
        from tui.model.cjk import character_level

        corpus, config, open_note = character_level(corpus, config)
    inputs = [(corpus.path, f"the corpus {corpus.path}")] if corpus.path is not None else []
    if imported is not None:  # the autosave must not replace the tokenizer being replayed either
        from engine.formats import read_paths

        inputs += [(path, f"the tokenizer {path}") for path in read_paths(imported.format, args.tokenizer)]
    if explicit is not None:
        refuse_inputs([explicit], inputs)
    from tui.app import BpeApp
    from tui.app.options import LaunchOptions

    file_ids = imported.file_ids if imported is not None else None
    options = LaunchOptions(script=replay, file_ids=file_ids, session_file=explicit, run=args.run,
                            speed=SPEED_NAMES[args.speed], base_chosen=args.base is not None, open_note=open_note,
                            memory=served_memory(rules), **themed)
    app = BpeApp(corpus, config, options=options)
    served(app, rules)
    app.run(headless=args.headless)
    return 0


def served(app, rules) -> None:
    """Make ``app`` a browser tab's (``rules``: its Confinement; None in a terminal): files only
    inside the served folder, and copies to the participant's clipboard, not the server's."""
    from tui.model.clipboard import server_clipboard

    app.confinement = rules
    if rules is not None and app.lab.clipboard_fn is None:
        app.lab.clipboard_fn = server_clipboard


def served_memory(rules) -> int | None:
    """A browser tab's budget for copies and caches (tui.model.budget); None in a terminal."""
    if rules is None:
        return None
    from tui.model.budget import TAB_BUDGET

    return TAB_BUDGET


def serve_mode(args: argparse.Namespace):
    """A browser tab's app (``bpe-lab serve``): its files only inside the served folder, which is
    also where it works, and a session file of the tab's own (``args.session``). Returns the
    :class:`tui.model.confine.Confinement`; ValueError (one line) for a file outside it."""
    import os
    import time

    rules = confine_args(args)
    os.chdir(rules.root)  # a name typed in a dialog is a file in the served folder
    # The baselines' trainers (tokenizers) on one thread: a class's tabs share the machine's cores.
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    if args.serve_sessions:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        args.session = str(Path(args.serve_sessions) / f"session-{stamp}-{os.getpid()}.json")
    return rules


def start_lesson(name: str, lang: str | None, session: str | None, err: TextIO, *, anywhere: bool = False) -> int:
    """``bpe-lab lesson NAME``: the app with that lesson (the front door hands this to
    tui/cli/lesson.py). The app speaks the lesson's language (--lang), else the locale's, like
    ``bpe-lab`` itself: a Chinese lesson in an English UI mixed two languages on one screen.
    (Before loading: the note on a missing translation is said in it too.)"""
    from tui.lessons.catalog import load

    set_language(lang)
    lesson, note = load(name, lang, anywhere=anywhere)  # anywhere: --trust-lesson
    from tui.app import BpeApp
    from tui.app.options import LaunchOptions

    options = LaunchOptions(session_file=Path(session) if session else None)
    app = BpeApp(None, options=options, lesson=lesson, lesson_note=note)
    app.lesson_lang = lang
    app.run()
    return 0
