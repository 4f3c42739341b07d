"""The lesson file format: Markdown with TOML front matter and fenced ``bpe`` directive blocks.

Parsing and checking only: no textual, no trainer. :func:`parse` reads a file into a
:class:`Lesson` and raises :class:`LessonError` (one line, ``FILE:LINE: message``) on the first
problem; :func:`check` returns every problem of a file as such lines. docs/lessons.md describes
the format; this module is its reference.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import tomllib
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from engine import BpeLabError
from engine.errors import size_text
from engine.text import inert
from tui.i18n import _
from tui.lessons.claim_syntax import (  # noqa: F401 (the format's names, kept where they were)
    BASELINE_MEASURES,
    COMPOSITION_KINDS,
    HELDOUT_MEASURES,
    OPS,
    QUANTITIES,
    Claim,
    parse_claim,
    parse_value,
    show_value,
)
from tui.lessons.directives import (  # noqa: F401 (the format's names, kept where they were)
    QUIZ_MODES,
    SETTINGS,
    SOURCES,
    TABS,
    BadDirective,
    Directive,
    check_directive,
    config_for,
    sample_name,
)
from tui.lessons.errors import LessonError, OutsideLessonError
from tui.lessons.lexer import split_words, strip_comment, words  # noqa: F401 (kept importable here)

#: The languages bundled lessons come in.
LANGUAGES = ("en", "de", "zh")
#: Front matter keys.
FRONT_KEYS = {"title", "seed", "lang"}
#: Lesson files above this many bytes are refused before they are read (the bundled ones are
#: under 5 kB): parsing is linear, but a lesson is prose for people, not data.
MAX_LESSON_BYTES = 1 << 20

@dataclass(frozen=True)
class Step:
    """One step: its heading (or the lesson's title for the introduction), its Markdown and its
    actions (directives and claims) in the order they run."""

    title: str
    markdown: str
    actions: tuple[Directive | Claim, ...]
    line: int  # the heading's line (1 for the introduction)

    @property
    def claims(self) -> list[Claim]:
        return [a for a in self.actions if isinstance(a, Claim)]


@dataclass(frozen=True)
class Lesson:
    """A parsed lesson file: ``steps[0]`` is the introduction, then one step per ``##`` heading."""

    path: Path
    title: str
    seed: str | None
    lang: str
    steps: tuple[Step, ...]
    front: dict = field(default_factory=dict)
    #: The folders the files a lesson names must be in (resolved): its own folder and the bundled
    #: samples and lessons, as :func:`parse` sets it; None (``parse(..., anywhere=True)``): any.
    reach: tuple[Path, ...] | None = None
    #: In serve mode, the served folder and the bundled ones: a file must be in these as well.
    served: tuple[Path, ...] | None = None

    @property
    def folder(self) -> Path:
        return self.path.parent

    def resolve(self, relative: str) -> Path:
        """A path a directive names, relative to the lesson file, with every link followed;
        OutsideLessonError (one line) when it leaves the lesson's reach."""
        path = (self.folder / Path(relative).expanduser()).resolve()
        for folders, refusal in self._places(links=False):
            if not any(path.is_relative_to(folder) for folder in folders):
                raise OutsideLessonError(refusal(relative))
        return path

    def _places(self, *, links: bool = True) -> list[tuple[tuple[Path, ...], Callable[[str], str]]]:
        """Where the files this lesson opens must be, and how a file outside is refused (``links``:
        a file a tokenizer brings that is a link out is said as such)."""
        places: list[tuple[tuple[Path, ...], Callable[[str], str]]] = []
        if self.served is not None:
            served = self.served
            places.append((served, lambda named: (
                _("{named} is a link that leads outside the folder this server shares: a lesson reads a "
                  "tokenizer's files only from there") if links and self._a_link_out(named, served) else
                _("{named} is outside the folder this server shares: a lesson opens only files in it")
            ).format(named=self._shown(named))))
        if self.reach is not None:
            reach = self.reach
            places.append((reach, lambda named: (
                _("{named} is a link that leads outside the lesson's folder: a lesson reads a tokenizer's "
                  "files only from there") if links and self._a_link_out(named, reach) else
                _("{named} is outside the lesson's folder: a lesson opens files beside it and the bundled "
                  "samples (bpe-lab lesson --trust-lesson lets it open any file)")
            ).format(named=self._shown(named))))
        return places

    def _a_link_out(self, named: str, folders: tuple[Path, ...]) -> bool:
        """Whether ``named`` is inside ``folders`` as written (``..`` taken away, links not
        followed): then only a link can have led it out."""
        plain = Path(os.path.normpath(self.folder.resolve() / Path(named).expanduser()))
        return any(plain.is_relative_to(folder) for folder in folders)

    def _shown(self, named: str) -> str:
        """``named`` as a message shows it: relative to the lesson's folder when it is in it."""
        path = Path(named)
        if path.is_absolute() and path.is_relative_to(self.folder.resolve()):
            return str(path.relative_to(self.folder.resolve()))
        return named

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Every file read inside this block (a tokenizer file a directive names, and each file that
        comes with it: merges beside a vocab, added tokens, a sidecar) is kept in this lesson's
        reach as :meth:`resolve` keeps the named one: a link out of it is refused, unread."""
        from engine.corpus import reading_within

        with ExitStack() as stack:
            for folders, refusal in self._places():
                stack.enter_context(reading_within(folders, refusal))
            yield


def lesson_reach(path: Path) -> tuple[Path, ...]:
    """The folders a lesson at ``path`` may read files from: its own and the bundled ones."""
    from tui.model.confine import bundled_folders

    return (path.parent.resolve(), *bundled_folders())


# -- parsing a file ------------------------------------------------------------------------------

_FENCE = re.compile(r"^(\s{0,3})(`{3,}|~{3,})\s*([^`\s]*)")
#: Control characters a lesson may not hold (all but tab; newlines split its lines).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def heading(line: str) -> str | None:
    """A ``##`` heading's text (closing ``#``s and blanks stripped), else None: what
    ``^##\\s+(.*?)\\s*#*\\s*$`` matches, in linear time (that regex is cubic on blanks)."""
    if len(line) < 3 or not line.startswith("##") or not line[2].isspace():
        return None
    return line[2:].strip().rstrip("#").rstrip()


def parse(path: str | Path, text: str | None = None, *, anywhere: bool = False,
          within: tuple[Path, ...] | None = None) -> Lesson:
    """Read a lesson (the first problem raises :class:`LessonError`). Its files must lie in its
    folder or the bundled ones unless ``anywhere``, and inside ``within`` when given (serve
    mode). Control characters are not a problem here (they are shown escaped): :func:`check`
    reports them."""
    lesson, problems, _controls = _read(Path(path), text, anywhere, within)
    if problems:
        raise LessonError(inert(problems[0]))
    assert lesson is not None
    return lesson


class _Refused(BpeLabError):
    """The bounded reader refused a lesson file (said again in the lesson's words)."""


def read_lesson_text(path: Path, name: str) -> tuple[str | None, str | None]:
    """The text of a lesson file, or a problem: read through the one bounded reader every file
    goes through (engine.corpus.files.open_bounded): at most :data:`MAX_LESSON_BYTES`, never waiting (a
    pipe or a device is refused), newlines as ``read_text`` gives them."""
    from engine.corpus import open_bounded

    try:
        with open_bounded(path, kind="a lesson file", error=_Refused, limit=MAX_LESSON_BYTES, pipes=False) as opened:
            data = opened.read_all()
    except _Refused as exc:
        return None, _refusal(path, name, str(exc))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None, _("{name}:1: the lesson is not UTF-8 text").format(name=name)
    return text.replace("\r\n", "\n").replace("\r", "\n"), None


def _refusal(path: Path, name: str, said: str) -> str:
    """Why the reader refused ``path`` (it ``said``), in the lesson's (translated) words."""
    try:
        found = os.stat(path)
    except FileNotFoundError:
        return _("{name}: no such lesson file").format(name=name)
    except OSError as exc:
        return _("{name}: cannot read it ({reason})").format(name=name, reason=exc.strerror or exc)
    mode = found.st_mode
    if stat.S_ISDIR(mode):
        return _("{name}: is a directory, not a lesson file").format(name=name)
    if not stat.S_ISREG(mode):
        what = _("is a device") if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else _("is a pipe") if stat.S_ISFIFO(
            mode) else _("is not a regular file")
        return _("{name}: {what}, not a lesson file (save it to a file)").format(name=name, what=what)
    if found.st_size > MAX_LESSON_BYTES:
        return _("{name}: more than {limit}, too large for a lesson file").format(
            name=name, limit=size_text(MAX_LESSON_BYTES))
    if not os.access(path, os.R_OK):
        return _("{name}: cannot read it ({reason})").format(name=name, reason=os.strerror(errno.EACCES))
    shown = os.fspath(path)  # anything else (it grew past the bound while read, an I/O error): the reader's line
    return name + said[len(shown):] if said.startswith(shown) else said


def _lines(text: str) -> list[str]:
    """The lines of ``text`` split at newlines only (``splitlines`` also splits at form feeds,
    U+001C–U+001E, U+0085, U+2028 and U+2029, which would shift every line number after one)."""
    lines = text.replace("\r\n", "\n").split("\n")
    if lines and not lines[-1]:
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def _controls(name: str, lines: list[str], text: str) -> list[str]:
    """One problem per line holding a control character (one search when there is none)."""
    if _CONTROL.search(text) is None:
        return []
    found = []
    for index, line in enumerate(lines):
        match = _CONTROL.search(line)
        if match:
            found.append(_("{name}:{line}: a control character, U+{code:04X}, that a terminal would act on: "
                           "remove it (a lesson holds text, tabs and newlines)").format(
                name=name, line=index + 1, code=ord(match.group())))
    return found


def _read(path: Path, text: str | None, anywhere: bool = False, within: tuple[Path, ...] | None = None
          ) -> tuple[Lesson | None, list[str], list[str]]:
    name = inert(str(path))
    if text is None:
        text, problem = read_lesson_text(path, name)
        if text is None:
            return None, [problem or name], []
    lines = _lines(text)
    controls = _controls(name, lines, text)
    problems: list[str] = []
    front, body_start = _front_matter(name, lines, problems, controls)
    if front is None:
        return None, problems, controls
    title = front.get("title")
    lang = front.get("lang", _lang_from_name(path) or "en")
    seed = front.get("seed")
    steps: list[Step] = []
    current_title, current_line = str(title or path.stem), 1
    prose: list[str] = []
    actions: list[Directive | Claim] = []
    fence: str | None = None
    in_bpe = False

    def close_step() -> None:
        steps.append(Step(current_title, "\n".join(prose).strip("\n"), tuple(actions), current_line))

    for index in range(body_start, len(lines)):
        number = index + 1
        line = lines[index]
        if fence is not None:
            if line.strip().startswith(fence) and not line.strip().strip(fence[0]):
                fence = None
                if not in_bpe:
                    prose.append(line)
                in_bpe = False
                continue
            if in_bpe:
                action = _directive(name, number, line, problems)
                if action is not None:
                    if not steps:
                        problems.append(_("{name}:{number}: the introduction has no actions: put this under a ## step heading").format(
                            name=name, number=number))
                    actions.append(action)
            else:
                prose.append(line)
            continue
        match = _FENCE.match(line)
        if match:
            fence = match.group(2)
            in_bpe = match.group(3) == "bpe"
            if not in_bpe:
                prose.append(line)
            continue
        title_text = heading(line)
        if title_text is not None:
            close_step()
            current_title, current_line = title_text or f"step {len(steps)}", number
            prose, actions = [], []
            continue
        prose.append(line)
    if fence is not None:
        problems.append(_("{name}:{line}: a ``` block is not closed").format(name=name, line=len(lines)))
    close_step()
    if len(steps) < 2:
        problems.append(_("{name}:{line}: the lesson has no steps (a step starts at a ## heading)").format(name=name, line=len(lines) or 1))
    lesson = Lesson(path, str(title or path.stem), None if seed is None else str(seed), str(lang), tuple(steps), front,
                    None if anywhere else lesson_reach(path),
                    None if within is None else tuple(Path(folder).resolve() for folder in within))
    for step in lesson.steps:
        for action in step.actions:
            if isinstance(action, Directive):
                _check_files(lesson, action, problems)
    return lesson, sorted(problems, key=_line_of), controls


def _line_of(problem: str) -> int:
    match = re.search(r":(\d+): ", problem)
    return int(match.group(1)) if match else 0


def _lang_from_name(path: Path) -> str | None:
    parts = path.name.split(".")
    return parts[-2] if len(parts) >= 3 and parts[-2] in LANGUAGES else None


def _front_matter(name: str, lines: list[str], problems: list[str], controls: list[str]) -> tuple[dict | None, int]:
    """The TOML between the first two ``+++`` lines, and the index of the first body line."""
    first = 0
    while first < len(lines) and not lines[first].strip():
        first += 1
    if first >= len(lines) or lines[first].strip() != "+++":
        problems.append(_("{name}:{line}: a lesson starts with front matter between +++ lines (title = \"...\")").format(
            name=name, line=first + 1))
        return None, 0
    for end in range(first + 1, len(lines)):
        if lines[end].strip() == "+++":
            break
    else:
        problems.append(_("{name}:{line}: the front matter has no closing +++ line").format(name=name, line=first + 1))
        return None, 0
    try:
        front = tomllib.loads("\n".join(lines[first + 1:end]))
    except tomllib.TOMLDecodeError as exc:
        match = re.search(r"line (\d+)", str(exc))
        at = first + 1 + int(match.group(1)) if match else first + 1
        problems.append(_("{name}:{at}: bad front matter: {reason}").format(name=name, at=at, reason=str(exc).split(' (at')[0]))
        return None, 0
    except RecursionError:
        problems.append(_("{name}:{at}: bad front matter: nested too deeply").format(name=name, at=first + 2))
        return None, 0
    except ValueError:  # a number longer than Python converts
        problems.append(_("{name}:{at}: bad front matter: a number with too many digits").format(name=name, at=first + 2))
        return None, 0
    for key in ("title", "seed", "lang"):  # a TOML escape ("\u001b") is a control character the file does not show
        value = front.get(key)
        if isinstance(value, str) and _CONTROL.search(value):
            at = next((i + 1 for i in range(first + 1, end) if lines[i].lstrip().startswith(key)), first + 2)
            controls.append(_("{name}:{line}: a control character, U+{code:04X}, that a terminal would act on: "
                              "remove it (a lesson holds text, tabs and newlines)").format(
                name=name, line=at, code=ord(_CONTROL.search(value).group())))
    unknown = sorted(set(front) - FRONT_KEYS)
    if unknown:
        problems.append(_("{name}:{line}: unknown front matter key {key} (have: {choices})").format(
            name=name, line=first + 2, key=repr(unknown[0]), choices=', '.join(sorted(FRONT_KEYS))))
    if not isinstance(front.get("title"), str) or not front.get("title", "").strip():
        problems.append(_("{name}:{line}: the front matter needs a title = \"...\"").format(name=name, line=first + 1))
    if "lang" in front and front["lang"] not in LANGUAGES:
        problems.append(_("{name}:{line}: unknown lang {lang} (choose {choices})").format(
            name=name, line=first + 2, lang=repr(front['lang']), choices=', '.join(LANGUAGES)))
    if "seed" in front and not isinstance(front["seed"], (str, int)):
        problems.append(_("{name}:{line}: seed is a course text's number, like \"001\"").format(name=name, line=first + 2))
    return front, end + 1


def _directive(name: str, number: int, line: str, problems: list[str]) -> Directive | Claim | None:
    where = f"{name}:{number}"
    body = strip_comment(line)
    if not body.strip():
        return None
    try:
        split = words(body)
    except ValueError as exc:
        problems.append(_("{where}: {exc} in: {text}").format(where=where, exc=exc, text=line.strip()))
        return None
    try:
        if split[0][0] == "expect":
            return parse_claim(where, number, body, split)
        args, options = _options(where, split)
        check_directive(where, split[0][0], args, options)
        return Directive(split[0][0], args, options, number, line.strip())
    except (LessonError, BadDirective) as exc:
        problems.append(str(exc))
        return None


def _options(where: str, split: list[tuple[str, str, int]]) -> tuple[tuple[str, ...], dict[str, str]]:
    args: list[str] = []
    options: dict[str, str] = {}
    for word, raw, _end in split[1:]:
        key, sep, value = word.partition("=")
        if sep and re.fullmatch(r"[a-z_]+", key) and not raw.startswith(("'", '"')):
            if key in options:
                raise LessonError(_("{where}: {key}= is given twice").format(where=where, key=key))
            options[key] = value
        else:
            args.append(word)
    return tuple(args), options


def _check_files(lesson: Lesson, action: Directive, problems: list[str]) -> None:
    """A file a directive names must be within the lesson's reach (said first: whether a file
    out of reach exists is not said) and exist (relative to the lesson)."""
    named = action.options.get("file") if action.kind == "open" else action.args[0] if action.kind == "replay" else None
    if named is None:
        return
    try:
        path = lesson.resolve(named)
    except OutsideLessonError as exc:
        problems.append(f"{inert(str(lesson.path))}:{action.line}: {exc}")
        return
    except (OSError, RuntimeError, ValueError) as exc:  # a link loop, a NUL byte, a name too long
        problems.append(f"{inert(str(lesson.path))}:{action.line}: {named}: {getattr(exc, 'strerror', None) or exc}")
        return
    if not path.is_file():
        what = _("no such file") if not path.exists() else _("not a file")
        problems.append(_("{file}:{line}: {named}: {what}").format(file=lesson.path, line=action.line, named=named, what=what))


# -- checking ------------------------------------------------------------------------------------

def check(path: str | Path, *, anywhere: bool = False) -> list[str]:
    """Every problem of a lesson file, one ``FILE:LINE: message`` line each (empty: fine),
    control characters included."""
    _lesson, problems, controls = _read(Path(path), None, anywhere)
    return [inert(problem) for problem in sorted(problems + controls, key=_line_of)]
