"""The lesson directives: one class a directive, and the list of them once (:data:`DIRECTIVES`).

Each directive knows how it is checked (:meth:`Kind.check`: the parser, ``bpe-lab lesson
--check``), how it runs on a bare trainer (:meth:`Kind.headless`: ``bpe-lab lesson --run``,
:mod:`tui.lessons.runner`) and how it plays in the app through a
:class:`tui.model.driver.LabDriver` (:meth:`Kind.play`: :mod:`tui.lessons.player`). The moves
(step, undo, run, goto) share their step arithmetic (:meth:`Move.target`).

This module is below the parser (:mod:`tui.lessons.format` imports it, never the other way) and
imports no textual: the settings an ``open`` takes (:func:`config_for`) and where it reads its
corpus (:func:`open_source`) live here, as the ``open`` directive's.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Protocol

from tui.i18n import _
from tui.model.driver import DriverError
from tui.model.tabs import TAB_IDS

if TYPE_CHECKING:
    from engine import TrainConfig, Trainer
    from tui.model.driver import LabDriver

#: The analysis screen's tabs a lesson may open.
TABS = TAB_IDS  # the analysis screen's tab list, kept once in tui.model.tabs
#: Quiz modes (the predict-the-next-merge quiz).
QUIZ_MODES = ("shuffled", "hidden", "typed")

#: ``open`` settings: the setting -> the TrainConfig field it sets and the kind of value.
SETTINGS = {
    "base": ("base", "name"),
    "pretokenizer": ("pretokenizer", "name"),
    "pattern": ("pattern", "text"),
    "split_digits": ("split_digits", "bool"),
    "tie_rule": ("tie_rule", "name"),
    "tie_break": ("tie_rule", "name"),
    "vocab_size": ("vocab_size", "count"),
    "vocab": ("vocab_size", "count"),
    "max_merges": ("max_merges", "count"),
    "merges": ("max_merges", "count"),
    "min_frequency": ("min_frequency", "int"),
    "no_merge_newline": ("no_merge_newline", "bool"),
    "specials": ("specials", "list"),
    "end_of_word": ("end_of_word", "text"),
}
#: Where ``open`` reads its corpus from.
SOURCES = ("sample", "file", "text")


class BadDirective(ValueError):
    """A directive line that does not check: one line, ``FILE:LINE: message`` (the parser makes
    it a :class:`tui.lessons.format.LessonError`)."""


class ActionFailed(Exception):
    """An action that cannot be done (a file gone, settings the corpus refuses): one line."""


@dataclass(frozen=True)
class Directive:
    """One line of a ``bpe`` block: ``kind`` (open, step, expect, ...), its positional words and
    its ``key=value`` options; ``line`` is its line in the file, ``source`` the line as written."""

    kind: str
    args: tuple[str, ...]
    options: dict[str, str]
    line: int
    source: str


class HeadlessContext(Protocol):
    """What a directive run headless works on (:class:`tui.lessons.runner.HeadlessRun`)."""

    trainer: Trainer | None
    text: str | None

    def resolve(self, relative: str) -> Path:
        """A file the lesson names, relative to it."""


class PlayContext(Protocol):
    """What a directive played in the app works on (:class:`tui.lessons.player.LessonPlayer`)."""

    driver: LabDriver

    def resolve(self, relative: str) -> Path:
        """A file the lesson names, relative to it."""

    def ask_quiz(self, mode: str, rounds: int) -> None:
        """Open the quiz once the step's other actions are done."""


def whole_number(where: str, word: str, what: str, minimum: int = 1) -> int:
    """``word`` as a whole number of at least ``minimum``; BadDirective (one line) otherwise."""
    if not re.fullmatch(r"\d+", word) or int(word) < minimum:
        raise BadDirective(_("{where}: bad {what} {word}: a whole number of {minimum} or more").format(
            where=where, what=what, word=repr(word), minimum=minimum))
    return int(word)


def no_corpus(kind: str) -> ActionFailed:
    return ActionFailed(_("{kind}: no corpus is open (an open directive comes first)").format(kind=kind))


# -- the directives --------------------------------------------------------------------------------

class Kind:
    """A directive: how it reads (``least``..``most`` words, the ``options`` it takes), how it is
    checked, run headless and played. ``training``: it changes the training state (it needs a
    corpus, and the app waits for it); ``shown_again``: what it shows is shown again when a step's
    state is brought back (back, or > after exploring)."""

    name: ClassVar[str]
    usage: ClassVar[str]
    least: ClassVar[int] = 0
    most: ClassVar[int] = 0
    options: ClassVar[tuple[str, ...] | None] = ()  # None: the directive checks its options itself
    training: ClassVar[bool] = False
    shown_again: ClassVar[bool] = False

    def check(self, where: str, args: tuple[str, ...], options: dict[str, str]) -> None:
        """BadDirective (one line) when the words or options are wrong."""
        if not self.least <= len(args) <= self.most:
            raise BadDirective(_("{where}: {kind} reads: {usage}").format(where=where, kind=self.name, usage=self.usage))
        if self.options is not None:
            extra = sorted(set(options) - set(self.options))
            if extra:
                raise BadDirective(_("{where}: {kind} takes no option {option}=").format(
                    where=where, kind=self.name, option=extra[0]))
        self.check_values(where, args, options)

    def check_values(self, where: str, args: tuple[str, ...], options: dict[str, str]) -> None:
        """What :meth:`check` checks beyond the number of words and the option names."""

    def headless(self, action: Directive, run: HeadlessContext) -> str | None:
        """Do the action on ``run.trainer``; a note to show (a stop rule that ended a move early),
        ActionFailed when it cannot be done. What only the app shows is checked as far as a
        trainer can check it."""
        if run.trainer is None:
            if self.training:
                raise no_corpus(self.name)
            return None
        return self.on_trainer(action, run, run.trainer)

    def on_trainer(self, action: Directive, run: HeadlessContext, trainer: Trainer) -> str | None:
        return None

    async def play(self, action: Directive, player: PlayContext) -> str | None:
        """Do the action in the app, through ``player.driver``; a note to show, ActionFailed
        when it cannot be done (a DriverError's line)."""
        if player.driver.workbench is None:
            raise no_corpus(self.name)
        try:
            return await self.on_driver(action, player, player.driver)
        except DriverError as exc:
            raise ActionFailed(str(exc)) from None

    async def on_driver(self, action: Directive, player: PlayContext, driver: LabDriver) -> str | None:
        return None


class Open(Kind):
    name = "open"
    usage = "open sample=NAME|file=PATH|text=\"...\" [setting=value ...]"
    options = None
    training = True

    def check_values(self, where, args, options):
        sources = [k for k in SOURCES if k in options]
        if len(sources) != 1:
            raise BadDirective(_("{where}: open takes one of sample=, file= or text=").format(where=where))
        for key in options:
            if key not in SOURCES and key not in SETTINGS:
                raise BadDirective(_("{where}: unknown setting {key}= (have: {choices})").format(
                    where=where, key=key, choices=', '.join(SETTINGS)))
        if "sample" in options:
            from tui.model.samples import SAMPLES

            if sample_name(options["sample"]) not in SAMPLES:
                raise BadDirective(_("{where}: no bundled sample named {sample} (have: {choices})").format(
                    where=where, sample=repr(options['sample']), choices=', '.join(SAMPLES)))
        if "text" in options and not options["text"]:
            raise BadDirective(_("{where}: open text= needs some text").format(where=where))
        try:
            config_for(options)
        except ValueError as exc:
            raise BadDirective(_("{where}: {exc}").format(where=where, exc=exc)) from None

    def headless(self, action, run):
        from engine import Trainer

        source = open_source(run, action, write_text=False)
        text = read_source(source, action.options.get("text"))
        try:
            run.trainer = Trainer(text, source.config)
        except ValueError as exc:
            raise ActionFailed(str(exc)) from None
        run.text = text
        return None

    async def play(self, action, player):
        source = open_source(player, action)
        driver = player.driver
        try:
            await driver.open(source.source, source.config)
        except DriverError as exc:
            raise ActionFailed(str(exc)) from None
        workbench = driver.workbench
        if workbench is None or workbench.corpus.source != source.source or workbench.config != source.config:
            raise ActionFailed(_("{name} did not open with these settings").format(name=source.name))
        return None


class Move(Kind):
    """step, undo, run, goto: a target step from the step now (:meth:`target`), reached by
    training or jumping."""

    most = 1
    training = True
    minimum = 1  # the least N

    def check_values(self, where, args, options):
        if args:
            whole_number(where, args[0], _("step number"), self.minimum)

    def target(self, args: tuple[str, ...], steps: int) -> int | None:
        """The step to reach from ``steps`` (None: train to the end)."""
        raise NotImplementedError

    def on_trainer(self, action, run, trainer):
        target = self.target(action.args, trainer.steps)
        if target is None:
            trainer.train()
            return None
        return stopped_early(target, trainer.goto(target))

    async def on_driver(self, action, player, driver):
        with driver.workbench.reading():
            steps = driver.workbench.steps
        target = self.target(action.args, steps)
        reached = await driver.move(target)
        return None if target is None else stopped_early(target, reached)


def stopped_early(target: int, reached: int) -> str | None:
    """The note when a stop rule ended a move before its target."""
    if reached < target:
        return _("stopped at step {step}: a stop rule holds").format(step=reached)
    return None


class StepForward(Move):
    name = "step"
    usage = "step [N]"

    def target(self, args, steps):
        return steps + (int(args[0]) if args else 1)


class Run(Move):
    name = "run"
    usage = "run [N]"
    minimum = 0

    def target(self, args, steps):
        return int(args[0]) if args else None


class Goto(Move):
    name = "goto"
    usage = "goto N"
    least = 1
    minimum = 0

    def target(self, args, steps):
        return int(args[0])


class Undo(Move):
    name = "undo"
    usage = "undo [N]"

    def target(self, args, steps):
        return max(steps - (int(args[0]) if args else 1), 0)


class Select(Kind):
    name = "select"
    usage = "select TOKEN (text, \"[e4 b8]\" bytes or #id)"
    least = most = 1
    shown_again = True

    def on_trainer(self, action, run, trainer):
        from tui.model.finder import find_token

        if find_token(trainer, action.args[0]) is None:
            raise self.none_matches(action)
        return None

    async def on_driver(self, action, player, driver):
        from tui.model.finder import find_token

        workbench = driver.workbench
        with workbench.reading():
            found = find_token(workbench.trainer, action.args[0], workbench.our_id)
        if found is None:
            raise self.none_matches(action)
        driver.select(found)
        return None

    @staticmethod
    def none_matches(action: Directive) -> ActionFailed:
        return ActionFailed(_("select: no token matches {token}").format(token=repr(action.args[0])))


class Tokenize(Kind):
    name = "tokenize"
    usage = "tokenize \"TEXT\" [trace=on|off]"
    most = 1
    options = ("trace",)
    shown_again = True

    def check_values(self, where, args, options):
        if options.get("trace", "on") not in ("on", "off"):
            raise BadDirective(_("{where}: trace is on or off").format(where=where))

    async def on_driver(self, action, player, driver):
        trace = action.options.get("trace")
        driver.tokenize(action.args[0] if action.args else None, trace=None if trace is None else trace == "on")
        return None


class Trace(Kind):
    name = "trace"
    usage = "trace on|off"
    least = most = 1
    shown_again = True

    def check_values(self, where, args, options):
        if args[0] not in ("on", "off"):
            raise BadDirective(_("{where}: trace is on or off, not {word}").format(where=where, word=repr(args[0])))

    async def on_driver(self, action, player, driver):
        driver.tokenize(None, trace=action.args[0] == "on")
        return None


class Analysis(Kind):
    name = "analysis"
    usage = f"analysis TAB (one of {', '.join(TABS)}) [text=\"...\" with compare]"
    least = most = 1
    options = ("text",)
    shown_again = True  # back (<) to its step shows the tab again, not the main screen

    def check_values(self, where, args, options):
        if args[0] not in TABS:
            raise BadDirective(_("{where}: unknown analysis tab {word} (have: {choices})").format(
                where=where, word=repr(args[0]), choices=', '.join(TABS)))
        if "text" in options and args[0] != "compare":
            raise BadDirective(_("{where}: text= goes with analysis compare (the text compared)").format(where=where))

    async def on_driver(self, action, player, driver):
        driver.show_tab(action.args[0], text=action.options.get("text"))
        return None


class Replay(Kind):
    name = "replay"
    usage = "replay PATH (a tokenizer file)"
    least = most = 1
    training = True

    def on_trainer(self, action, run, trainer):
        from engine import Trainer

        imported = load_tokenizer(run, action.args[0], (ValueError,))
        run.trainer = Trainer.replaying(run.text or "", imported.tokenizer)
        return None

    async def on_driver(self, action, player, driver):
        workbench = driver.workbench
        imported = load_tokenizer(player, action.args[0], (ValueError, OSError))
        await driver.open(workbench.corpus.source, workbench.config, imported.tokenizer, imported.file_ids)
        return None


class Quiz(Kind):
    name = "quiz"
    usage = "quiz [mode=shuffled|hidden|typed] [rounds=N]"
    options = ("mode", "rounds")

    def check_values(self, where, args, options):
        if options.get("mode", "shuffled") not in QUIZ_MODES:
            raise BadDirective(_("{where}: unknown quiz mode {mode} (have: {choices})").format(
                where=where, mode=repr(options['mode']), choices=', '.join(QUIZ_MODES)))
        if "rounds" in options:
            whole_number(where, options["rounds"], _("number of rounds"))

    async def on_driver(self, action, player, driver):
        player.ask_quiz(action.options.get("mode", "shuffled"), int(action.options.get("rounds", "1")))
        return None


#: Every directive but ``expect`` (a claim, :mod:`tui.lessons.claims`), by name, in the order
#: docs/lessons.md lists them.
DIRECTIVES: dict[str, Kind] = {kind.name: kind() for kind in (
    Open, StepForward, Run, Goto, Undo, Select, Tokenize, Trace, Analysis, Replay, Quiz)}


def check_directive(where: str, kind: str, args: tuple[str, ...], options: dict[str, str]) -> None:
    """Check one directive line's words; BadDirective (one line) for an unknown directive or bad words."""
    found = DIRECTIVES.get(kind)
    if found is None:
        known = ", ".join([*DIRECTIVES, "expect"])
        raise BadDirective(_("{where}: unknown directive {kind} (have: {known})").format(where=where, kind=repr(kind), known=known))
    found.check(where, args, options)


# -- where an open reads its corpus, and with which settings ------------------------------------------

@dataclass(frozen=True)
class Source:
    """Where an ``open`` reads its corpus: ``sample:NAME`` or a file path (inline text is written
    to a file of its own, so that sessions and resume work on it as on any file)."""

    source: str
    name: str
    config: TrainConfig


def lesson_path(context: HeadlessContext | PlayContext, named: str) -> Path:
    """The file a directive names, or ActionFailed when the lesson may not read it."""
    try:
        return context.resolve(named)
    except (OSError, RuntimeError, ValueError) as exc:  # outside the lesson's reach, a link loop, a NUL byte
        raise ActionFailed(str(exc)) from None


def load_tokenizer(context: HeadlessContext | PlayContext, named: str, errors: tuple[type[Exception], ...]):
    """The tokenizer file ``replay PATH`` names, loaded; ActionFailed (its line) when it cannot be."""
    from engine import load_any

    path = lesson_path(context, named)
    try:
        return load_any(path)
    except errors as exc:
        raise ActionFailed(str(exc)) from None


def text_file(text: str) -> Path:
    """The file an inline ``open text="..."`` corpus is kept in (by its hash, in the state folder)."""
    from engine import atomic_write_bytes
    from tui.model.confine import lesson_text_folder

    data = text.encode("utf-8")
    path = lesson_text_folder() / f"text-{hashlib.sha256(data).hexdigest()[:12]}.txt"
    if not path.is_file() or path.read_bytes() != data:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(path, data)
    return path


def open_source(context: HeadlessContext | PlayContext, action: Directive, *, write_text: bool = True) -> Source:
    """The corpus and settings an ``open`` directive names. ActionFailed when it cannot be."""
    options = action.options
    try:
        config = config_for(options)
    except ValueError as exc:
        raise ActionFailed(str(exc)) from None
    if "sample" in options:
        name = sample_name(options["sample"])
        return Source(f"sample:{name}", name, config)
    if "file" in options:
        path = lesson_path(context, options["file"])
        if not path.is_file():
            raise ActionFailed(_("{file}: no such file").format(file=options['file']))
        return Source(str(path), path.name, config)
    if not write_text:
        return Source("", "lesson text", config)
    try:
        path = text_file(options["text"])
    except OSError as exc:
        raise ActionFailed(_("cannot keep the lesson's text in a file: {reason}").format(reason=exc.strerror or exc)) from None
    return Source(str(path), path.name, config)


def read_source(source: Source, text: str | None = None) -> str:
    """The corpus text of a source, decoded as the app decodes it."""
    from engine import decode_corpus

    if source.source.startswith("sample:"):
        from tui.model.samples import sample

        data = sample(source.name).read_bytes()
    elif text is not None:
        data = text.encode("utf-8")
    else:
        from engine import MAX_STREAM_BYTES, read_corpus_bytes

        try:  # the one bounded reader, at the bound of a stream: a stranger's lesson may name a huge file
            data = read_corpus_bytes(source.source, max_bytes=MAX_STREAM_BYTES)
        except ValueError as exc:
            raise ActionFailed(str(exc)) from None
    return decode_corpus(data, base=source.config.base, name=source.name).text


def sample_name(name: str) -> str:
    """A bundled sample's file name; ``.txt`` may be left out (``die-katze`` is ``die-katze.txt``)."""
    from tui.model.samples import SAMPLES

    return name if name in SAMPLES or f"{name}.txt" not in SAMPLES else f"{name}.txt"


_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


def config_for(options: dict[str, str]):
    """The training config an ``open`` directive asks for: the sample's example settings
    (``tui.model.samples.SETTINGS``) or the defaults, with the directive's settings over them.
    ValueError (one line) on a bad setting.

    Example: ``config_for({"sample": "die-katze.txt", "vocab_size": "265"}).vocab_size`` -> 265
    """
    from engine import TrainConfig
    from tui.model.samples import SETTINGS as SAMPLE_SETTINGS

    data = dict(SAMPLE_SETTINGS.get(sample_name(options.get("sample", "")), {}))
    for key, raw in options.items():
        if key in SOURCES:
            continue
        if key not in SETTINGS:
            raise ValueError(_("unknown setting {key}=").format(key=key))
        name, kind = SETTINGS[key]
        if kind == "count":
            if raw.lower() in ("none", ""):
                data[name] = None
                continue
            if not re.fullmatch(r"\d+", raw):
                raise ValueError(_("{key}= takes a whole number or none, not {raw}").format(key=key, raw=repr(raw)))
            data[name] = int(raw)
        elif kind == "int":
            if not re.fullmatch(r"\d+", raw):
                raise ValueError(_("{key}= takes a whole number, not {raw}").format(key=key, raw=repr(raw)))
            data[name] = int(raw)
        elif kind == "bool":
            if raw.lower() not in _TRUE | _FALSE:
                raise ValueError(_("{key}= is true or false, not {raw}").format(key=key, raw=repr(raw)))
            data[name] = raw.lower() in _TRUE
        elif kind == "list":
            data[name] = [s for s in raw.split(",") if s] if raw else []
        else:
            data[name] = raw
    if "pattern" in options and "pretokenizer" not in options:
        data["pretokenizer"] = "custom"
    if data.get("pretokenizer") != "custom":
        data.pop("pattern", None)
    if "vocab_size" in {SETTINGS[k][0] for k in options if k in SETTINGS} and "max_merges" not in {
            SETTINGS[k][0] for k in options if k in SETTINGS}:
        data.pop("max_merges", None)  # one stop rule asked for replaces the sample's other one
    if "max_merges" in {SETTINGS[k][0] for k in options if k in SETTINGS} and "vocab_size" not in {
            SETTINGS[k][0] for k in options if k in SETTINGS}:
        data.pop("vocab_size", None)
    return TrainConfig.from_dict(data)
