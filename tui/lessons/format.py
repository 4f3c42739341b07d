"""The lesson file format: Markdown with TOML front matter and fenced ``bpe`` directive blocks.

Parsing and checking only: no textual, no trainer. :func:`parse` reads a file into a
:class:`Lesson` and raises :class:`LessonError` (one line, ``FILE:LINE: message``) on the first
problem; :func:`check` returns every problem of a file as such lines. docs/lessons.md describes
the format; this module is its reference.
"""

from __future__ import annotations

import json
import re
import shlex
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from tui.i18n import _, ngettext
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
from tui.lessons.directives import whole_number as _positive

#: Comparison operators of a claim.
OPS = ("==", "!=", "<=", ">=", "<", ">")
#: The languages bundled lessons come in.
LANGUAGES = ("en", "de", "zh")
#: Front matter keys.
FRONT_KEYS = {"title", "seed", "lang"}

#: Claims: the quantity -> how many arguments it takes, and what they are (docs/lessons.md).
QUANTITIES: dict[str, tuple[str, ...]] = {
    "tokens": (),
    "step": (),
    "vocab": (),
    "merge": ("N",),
    "merges": (),
    "encode": ("TEXT",),
    "pieces": ("TEXT",),
    "decode": ("IDS",),
    "trace": ("TEXT",),
    "id": ("TOKEN",),
    "bytes": ("TOKEN",),
    "token": ("ID",),
    "count": ("PAIR",),
    "candidate": ("N",),
    "ties": (),
    "composition": ("KIND",),
    "heldout": ("TEXT", "MEASURE"),
    "word": ("WHAT", "TEXT?"),
    "char": ("WHAT", "TEXT?"),
    "stop": (),
}
COMPOSITION_KINDS = ("whole", "char", "multi", "partial")
HELDOUT_MEASURES = ("tokens", "bytes_per_token", "chars_per_token")
BASELINE_MEASURES = ("vocab", "tokens", "unknown")


class LessonError(ValueError):
    """A lesson file that cannot be read or used: one line, ``FILE:LINE: message``."""


@dataclass(frozen=True)
class Claim:
    """``expect QUANTITY [ARGS] OP VALUE``: checked when its step runs."""

    quantity: str
    args: tuple[str, ...]
    op: str
    value: object  # int, float, str or list
    line: int
    source: str

    @property
    def kind(self) -> str:
        return "expect"

    @property
    def expected(self) -> str:
        """The expected value as the claim wrote it (``== [259, 264, 101]``)."""
        return f"{self.op} {show_value(self.value)}"

    @property
    def subject(self) -> str:
        """What the claim measures, as written (``encode "die katze"``)."""
        return " ".join([self.quantity, *(a if re.fullmatch(r"#?\w+", a) else json.dumps(a, ensure_ascii=False) for a in self.args)])


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

    @property
    def folder(self) -> Path:
        return self.path.parent

    def resolve(self, relative: str) -> Path:
        """A path a directive names, relative to the lesson file."""
        return (self.folder / Path(relative).expanduser()).resolve() if not Path(relative).is_absolute() else Path(relative)


def show_value(value: object) -> str:
    """A claim's value as a lesson writes it: numbers bare, text quoted, lists as JSON."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return json.dumps(list(value), ensure_ascii=False)
    return str(value)


# -- splitting a directive line ------------------------------------------------------------------

def strip_comment(line: str) -> str:
    """The line up to a ``#`` comment: a ``#`` outside quotes that starts a word, unless the word
    is a token id (``#12``, the find syntax)."""
    quote = None
    i = 0
    while i < len(line):
        ch = line[i]
        if quote:
            if ch == "\\" and quote == '"':
                i += 2
                continue
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "\\":
            i += 2
            continue
        elif ch == "#" and (i == 0 or line[i - 1].isspace()) and not re.match(r"#\d+(\s|$)", line[i:]):
            return line[:i]
        i += 1
    return line


def words(line: str) -> list[tuple[str, str, int]]:
    """The line's words as shlex reads them, each with its raw text and where it ends.

    Example: ``words('tokenize "a b"')`` -> ``[('tokenize', 'tokenize', 9), ('a b', '"a b"', 15)]``
    """
    lexer = shlex.shlex(line, posix=True)
    lexer.whitespace_split = True
    lexer.commenters = ""
    out = []
    start = 0
    while True:
        word = lexer.get_token()
        if word is None:
            break
        end = lexer.instream.tell()
        out.append((word, line[start:end].strip(), end))
        start = end
    return out


def parse_value(raw: str, where: str) -> object:
    """A claim's VALUE: a JSON list, a quoted string, a number, or a bare word (a string)."""
    raw = raw.strip()
    if not raw:
        raise LessonError(_("{where}: a claim needs a value after its operator").format(where=where))
    if raw.startswith("["):
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            raise LessonError(_("{where}: not a JSON list: {raw}").format(where=where, raw=raw)) from None
        if not isinstance(value, list):
            raise LessonError(_("{where}: not a JSON list: {raw}").format(where=where, raw=raw))
        return value
    if raw[0] in "'\"":
        try:
            parts = shlex.split(raw)
        except ValueError:
            raise LessonError(_("{where}: unbalanced quotes in {raw}").format(where=where, raw=raw)) from None
        if len(parts) != 1:
            raise LessonError(_("{where}: one value after the operator, not {raw}").format(where=where, raw=raw))
        return parts[0]
    if re.fullmatch(r"[-+]?\d+", raw):
        return int(raw)
    if re.fullmatch(r"[-+]?(\d+\.\d*|\.\d+)([eE][-+]?\d+)?", raw):
        return float(raw)
    if " " in raw:
        raise LessonError(_("{where}: one value after the operator, not {raw} (quote text)").format(where=where, raw=raw))
    return raw


# -- parsing a file ------------------------------------------------------------------------------

_FENCE = re.compile(r"^(\s{0,3})(`{3,}|~{3,})\s*([^`\s]*)")
_HEADING = re.compile(r"^##\s+(.*?)\s*#*\s*$")


def parse(path: str | Path, text: str | None = None) -> Lesson:
    """Read a lesson (the first problem raises :class:`LessonError`)."""
    lesson, problems = _read(Path(path), text)
    if problems:
        raise LessonError(problems[0])
    assert lesson is not None
    return lesson


def _read(path: Path, text: str | None) -> tuple[Lesson | None, list[str]]:
    name = str(path)
    if text is None:
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None, [_("{name}: no such lesson file").format(name=name)]
        except IsADirectoryError:
            return None, [_("{name}: is a directory, not a lesson file").format(name=name)]
        except UnicodeDecodeError:
            return None, [_("{name}:1: the lesson is not UTF-8 text").format(name=name)]
        except OSError as exc:
            return None, [_("{name}: cannot read it ({reason})").format(name=name, reason=exc.strerror or exc)]
    lines = text.splitlines()
    problems: list[str] = []
    front, body_start = _front_matter(name, lines, problems)
    if front is None:
        return None, problems
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
        heading = _HEADING.match(line)
        if heading:
            close_step()
            current_title, current_line = heading.group(1) or f"step {len(steps)}", number
            prose, actions = [], []
            continue
        prose.append(line)
    if fence is not None:
        problems.append(_("{name}:{line}: a ``` block is not closed").format(name=name, line=len(lines)))
    close_step()
    if len(steps) < 2:
        problems.append(_("{name}:{line}: the lesson has no steps (a step starts at a ## heading)").format(name=name, line=len(lines) or 1))
    lesson = Lesson(path, str(title or path.stem), None if seed is None else str(seed), str(lang), tuple(steps), front)
    for step in lesson.steps:
        for action in step.actions:
            if isinstance(action, Directive):
                _check_files(lesson, action, problems)
    return lesson, sorted(problems, key=_line_of)


def _line_of(problem: str) -> int:
    match = re.search(r":(\d+): ", problem)
    return int(match.group(1)) if match else 0


def _lang_from_name(path: Path) -> str | None:
    parts = path.name.split(".")
    return parts[-2] if len(parts) >= 3 and parts[-2] in LANGUAGES else None


def _front_matter(name: str, lines: list[str], problems: list[str]) -> tuple[dict | None, int]:
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
            return _claim(where, number, body, split)
        args, options = _options(where, split)
        check_directive(where, split[0][0], args, options)
        return Directive(split[0][0], args, options, number, line.strip())
    except (LessonError, BadDirective) as exc:
        problems.append(str(exc))
        return None


def _claim(where: str, number: int, body: str, split: list[tuple[str, str, int]]) -> Claim:
    ops = [i for i, (word, raw, _) in enumerate(split) if raw in OPS]
    if not ops or ops[0] < 2:
        raise LessonError(_("{where}: a claim reads expect QUANTITY [ARGS] OP VALUE, with OP one of {choices}").format(
            where=where, choices=' '.join(OPS)))
    at = ops[0]
    quantity = split[1][0]
    args = tuple(word for word, _, _ in split[2:at])
    value = parse_value(body[split[at][2]:], where)
    if quantity not in QUANTITIES:
        raise LessonError(_("{where}: unknown quantity {quantity} (have: {choices})").format(
            where=where, quantity=repr(quantity), choices=', '.join(QUANTITIES)))
    _check_claim_args(where, quantity, args, split[at][0], value)
    return Claim(quantity, args, split[at][0], value, number, body.strip())


def _check_claim_args(where: str, quantity: str, args: tuple[str, ...], op: str, value: object) -> None:
    wanted = QUANTITIES[quantity]
    least = sum(1 for w in wanted if not w.endswith("?"))
    if not least <= len(args) <= len(wanted):
        shown = " ".join(wanted) or _("no arguments")
        raise LessonError(ngettext("{where}: expect {quantity} takes {wanted}, not {count} argument",
                                   "{where}: expect {quantity} takes {wanted}, not {count} arguments", len(args)).format(
            where=where, quantity=quantity, wanted=shown, count=len(args)))
    if quantity in ("merge", "candidate"):
        _positive(where, args[0], _("merge number") if quantity == "merge" else _("candidate number"))
    if quantity == "token":
        _positive(where, args[0].lstrip("#"), _("token id"), 0)
    if quantity == "decode":
        try:
            ids = json.loads(args[0])
        except json.JSONDecodeError:
            ids = None
        if not isinstance(ids, list) or not all(type(i) is int for i in ids):
            raise LessonError(_("{where}: decode takes a JSON list of ids, like \"[259, 264]\"").format(where=where))
    if quantity == "composition" and args[0] not in COMPOSITION_KINDS:
        raise LessonError(_("{where}: unknown composition kind {word} (choose whole, multi or partial)").format(
            where=where, word=repr(args[0])))
    if quantity == "heldout" and args[1] not in HELDOUT_MEASURES:
        raise LessonError(_("{where}: heldout measures {choices}, not {word}").format(
            where=where, choices=', '.join(HELDOUT_MEASURES), word=repr(args[1])))
    if quantity in ("word", "char"):
        if args[0] not in BASELINE_MEASURES:
            raise LessonError(_("{where}: {quantity} measures {choices}, not {word}").format(
                where=where, quantity=quantity, choices=', '.join(BASELINE_MEASURES), word=repr(args[0])))
        if (args[0] == "vocab") != (len(args) == 1):
            raise LessonError(_("{where}: expect {quantity} vocab takes no text; {quantity} tokens and unknown take one").format(
                where=where, quantity=quantity))
    if quantity == "count" and len(args[0].split()) != 2:
        raise LessonError(_("{where}: count takes a pair \"A B\" (two tokens, · for a space inside one)").format(where=where))
    if op not in ("==", "!=") and not isinstance(value, (int, float)):
        raise LessonError(_("{where}: {op} compares numbers; {value} is not one").format(where=where, op=op, value=show_value(value)))


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
    """A file a directive names must exist (relative to the lesson)."""
    named = action.options.get("file") if action.kind == "open" else action.args[0] if action.kind == "replay" else None
    if named is None:
        return
    path = lesson.resolve(named)
    if not path.is_file():
        what = _("no such file") if not path.exists() else _("not a file")
        problems.append(_("{file}:{line}: {named}: {what}").format(file=lesson.path, line=action.line, named=named, what=what))


# -- checking ------------------------------------------------------------------------------------

def check(path: str | Path) -> list[str]:
    """Every problem of a lesson file, one ``FILE:LINE: message`` line each (empty: fine)."""
    return _read(Path(path), None)[1]
