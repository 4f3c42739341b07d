"""``bpe-lab lesson``: list the bundled lessons, check or run a lesson file headless, or start the
app with a lesson. Only starting the app imports textual."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import TextIO

#: tui.lessons.format.LANGUAGES, spelled out so that building the command line's parser does not
#: import the lesson format (tomllib and the rest: a tenth of ``bpe-lab encode``'s start-up;
#: tests/cli/test_cli_startup.py checks that they agree).
LANGUAGES = ("en", "de", "zh")


def add_lesson_parser(sub) -> None:
    lesson = sub.add_parser(
        "lesson",
        help="list the bundled lessons, start one in the app, or check or run lesson files",
        description="Without arguments: list the bundled lessons. With NAME or PATH: start the app with that "
                    "lesson. --check validates files; --run plays a lesson headless and checks every claim.",
    )
    lesson.add_argument("lessons", nargs="*", metavar="NAME|PATH", help="a bundled lesson's name (000, die-katze) or a lesson file")
    lesson.add_argument("--lang", choices=LANGUAGES, help="the language of a bundled lesson (default: the locale's, else en)")
    mode = lesson.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="validate the files: one FILE:LINE line per problem, exit 2 if any")
    mode.add_argument("--run", action="store_true", help="play the lesson headless: every claim checked, exit 1 if one fails")
    lesson.add_argument("--json", action="store_true", help="with --run: print the verdicts as JSON")
    lesson.add_argument("--surprise", action="append", default=[], metavar="TEXT",
                        help="with --run: a text you found surprising, for the hand-in a lesson writes (handin-NAME.md "
                             "in the working folder); again for more")
    lesson.add_argument("--session", metavar="PATH", help="when starting the app: one session file for every corpus")
    lesson.add_argument("--trust-lesson", action="store_true",
                        help="let the lesson open files outside its own folder (by default a lesson opens only the "
                             "files beside it and the bundled samples)")


def run_lesson(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from tui.cli.common import UsageError

    if args.json and not args.run:
        raise UsageError("--json goes with --run")
    if args.surprise and not args.run:
        raise UsageError("--surprise goes with --run (in the app, ! marks the tokenized text)")
    if args.check:
        if not args.lessons:
            raise UsageError("lesson --check needs one or more lesson files")
        return check_files(args.lessons, args.lang, out, err, anywhere=args.trust_lesson)
    if args.run:
        if len(args.lessons) != 1:
            raise UsageError("lesson --run takes one lesson (a name or a file)")
        return run_headless(args.lessons[0], args.lang, out, err, as_json=args.json, anywhere=args.trust_lesson,
                            surprises=tuple(args.surprise))
    if not args.lessons:
        return list_lessons(out, args.lang)
    if len(args.lessons) != 1:
        raise UsageError("give one lesson to start (a name or a file)")
    return start_app(args.lessons[0], args.lang, args.session, err, anywhere=args.trust_lesson)


def list_lessons(out: TextIO, lang: str | None = None) -> int:
    """The bundled lessons, each titled in ``lang`` (else the locale's language) where it has
    that language, else in English."""
    from engine.text import inert
    from tui.lessons.catalog import bundled, locale_lang
    from tui.lessons.format import LessonError, parse
    from tui.model.course import course_text

    found = bundled()
    if not found:
        print("no bundled lessons", file=out)
        return 0
    rows = []
    lang = lang or locale_lang()
    for each in found:
        path, _ = each.file(lang)
        try:
            lesson = parse(path)
            title, course = lesson.title, course_text(lesson.seed)
        except LessonError as exc:
            title, course = f"(cannot read: {exc})", "-"
        rows.append((each.name, ",".join(each.languages), title, course))
    width = max(len(r[0]) for r in rows)
    print(f"{'lesson':<{width}}  languages  title · course text", file=out)
    for name, langs, title, course in rows:
        print(f"{name:<{width}}  {langs:<9}  {inert(title)} · {inert(course)}", file=out)
    return 0


def check_files(names: list[str], lang: str | None, out: TextIO, err: TextIO, *, anywhere: bool = False) -> int:
    """Every problem of every file as ``bpe-lab: error: FILE:LINE: message``; the last one is
    raised (one error line and exit 2, as every command's)."""
    from engine.text import inert
    from tui.cli.common import PROG
    from tui.lessons.catalog import resolve
    from tui.lessons.format import LessonError, check

    problems: list[str] = []
    checked = 0
    for name in names:
        try:
            path, _ = resolve(name, lang)
        except LessonError as exc:
            problems.append(inert(str(exc)))
            continue
        problems.extend(check(path, anywhere=anywhere))
        checked += 1
    if problems:
        for line in problems[:-1]:
            print(f"{PROG}: error: {line}", file=err)
        raise LessonError(problems[-1])
    print(f"{PROG}: {checked} lesson file{'s' if checked != 1 else ''} fine", file=err)
    return 0


def run_headless(name: str, lang: str | None, out: TextIO, err: TextIO, *, as_json: bool = False,
                 anywhere: bool = False, surprises: tuple[str, ...] = ()) -> int:
    """Play the lesson headless. Everything printed comes from files (the lesson, its corpora):
    control characters are shown escaped (:func:`engine.text.display.inert`; in JSON as escapes)."""
    from engine.text import inert
    from tui.cli.common import PROG
    from tui.lessons.catalog import load
    from tui.lessons.runner import HeadlessRun

    lesson, note = load(name, lang, anywhere=anywhere)
    if note:
        print(f"{PROG}: note: {inert(note)}", file=err)
    from pathlib import Path

    run = HeadlessRun(lesson, handin_folder=Path.cwd(), surprises=surprises)
    reports = run.run()
    claims = [r for rep in reports for r in rep.results]
    failed = [r for r in claims if not r.ok]
    failed_actions = sum(rep.failed_actions for rep in reports)
    if as_json:
        data = {"lesson": str(lesson.path), "title": lesson.title, "lang": lesson.lang,
                "ok": not failed and not failed_actions,
                "handin": None if run.handin_path is None else str(run.handin_path),
                "steps": [{"step": rep.index, "title": rep.step.title, "line": rep.step.line,
                           "claims": [r.to_dict() for r in rep.results],
                           "notes": [{"line": line, "message": msg} for line, msg in rep.notes]} for rep in reports]}
        print(json_inert(json.dumps(data, ensure_ascii=False)), file=out)
    else:
        total = len(lesson.steps) - 1
        for rep in reports:
            if not rep.results and not rep.notes:
                continue
            print(inert(f"step {rep.index}/{total}: {rep.step.title}"), file=out)
            lines = [(line, f"  ! {lesson.path}:{line}: {message}") for line, message in rep.notes]
            lines += [(r.claim.line, f"  {r.line()}  [{lesson.path}:{r.claim.line}]") for r in rep.results]
            for _, text in sorted(lines, key=lambda item: item[0]):
                print(inert(text), file=out)
        if run.handin_path is not None:
            print(inert(f"your findings: {run.handin_path} (add why each surprised you, and hand it in)"), file=out)
        print(f"{len(claims) - len(failed)} of {len(claims)} claims hold"
              + (f"; {failed_actions} action{'s' if failed_actions != 1 else ''} failed" if failed_actions else ""), file=out)
    return 1 if failed or failed_actions else 0


def json_inert(text: str) -> str:
    """JSON text with C1 controls and DEL escaped too (``json.dumps`` escapes only C0 when it
    keeps non-ASCII text): the same JSON, safe on a terminal."""
    import re

    return re.sub("[\x7f-\x9f]", lambda m: f"\\u{ord(m.group()):04x}", text)


#: Starts the app with a lesson: ``(name, lang, session, err, anywhere=) -> exit code``. The front
#: door (tui/main.py) sets it to the app's launcher (tui.app.launch.start_lesson); this module never
#: imports the app, so without the front door the command says the app is not available.
app_starter: Callable[..., int] | None = None


def start_app(name: str, lang: str | None, session: str | None, err: TextIO, *, anywhere: bool = False) -> int:
    from tui.cli.common import UsageError
    from tui.i18n import set_language
    from tui.lessons.catalog import load

    set_language(lang)  # the lesson's language, as the app will speak it (its errors too)
    load(name, lang, anywhere=anywhere)  # a name that means no lesson, or a file that does not parse: one line, before any app
    if app_starter is None:
        raise UsageError("the app is not available here: run `bpe-lab lesson NAME`")
    return app_starter(name, lang, session, err, anywhere=anywhere)
