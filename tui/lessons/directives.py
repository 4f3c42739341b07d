"""The lesson directives: one class a directive, and the list of them once (:data:`DIRECTIVES`).

Each directive knows how it is checked (:meth:`Kind.check`: the parser, ``bpe-lab lesson
--check``), how it runs on a bare trainer (:meth:`Kind.headless`: ``bpe-lab lesson --run``,
:mod:`tui.lessons.runner`) and how it plays in the app through a
:class:`tui.model.driver.LabDriver` (:meth:`Kind.play`: :mod:`tui.lessons.player`). The moves
(step, undo, run, goto) share their step arithmetic (:meth:`Move.target`).

The base class and what every directive shares are :mod:`tui.lessons.kind`; where an ``open``
reads its corpus and its settings, :mod:`tui.lessons.sources`. This module is below the parser
(:mod:`tui.lessons.format` imports it, never the other way) and imports no textual.
"""

from __future__ import annotations

from tui.i18n import _
from tui.lessons.kind import (  # noqa: F401 (the directives' names, kept importable here)
    ActionFailed,
    BadDirective,
    Directive,
    HeadlessContext,
    Kind,
    PlayContext,
    no_corpus,
    whole_number,
)
from tui.lessons.sources import (  # noqa: F401 (the open directive's names, kept importable here)
    SETTINGS,
    SOURCES,
    Source,
    config_for,
    lesson_path,
    load_tokenizer,
    open_source,
    read_source,
    sample_name,
    text_file,
)
from tui.model.driver import DriverError
from tui.model.tabs import TAB_IDS

#: The analysis screen's tabs a lesson may open.
TABS = TAB_IDS  # the analysis screen's tab list, kept once in tui.model.tabs
#: Quiz modes (the predict-the-next-merge quiz).
QUIZ_MODES = ("shuffled", "hidden", "typed")


# -- the directives --------------------------------------------------------------------------------

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
        run.corpus_name = source.name
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
    usage = f"analysis TAB (one of {', '.join(TABS)}) [text=\"...\" add=\"NAME ...\" with compare]"
    least = most = 1
    options = ("text", "add")
    shown_again = True  # back (<) to its step shows the tab again, not the main screen

    def check_values(self, where, args, options):
        if args[0] not in TABS:
            raise BadDirective(_("{where}: unknown analysis tab {word} (have: {choices})").format(
                where=where, word=repr(args[0]), choices=', '.join(TABS)))
        if "text" in options and args[0] != "compare":
            raise BadDirective(_("{where}: text= goes with analysis compare (the text compared)").format(where=where))
        if "add" in options:
            from tui.lessons.real import check_name

            if args[0] != "compare":
                raise BadDirective(_("{where}: add= goes with analysis compare (the tokenizers compared)").format(
                    where=where))
            for name in options["add"].split():
                problem = check_name(name)
                if problem:
                    raise BadDirective(f"{where}: {problem}")

    async def on_driver(self, action, player, driver):
        driver.show_tab(action.args[0], text=action.options.get("text"), add=tuple(action.options.get("add", "").split()))
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


class Need(Kind):
    """The real tokenizers a step measures, by name (:mod:`tui.lessons.real`): loaded now (in the
    app in a thread, so the screen stays live), or the step fails with the line that fetches them."""

    name = "need"
    usage = "need NAME [NAME ...] (tokenizers by name: bpe-lab models)"
    least = 1
    most = 8

    def check_values(self, where, args, options):
        from tui.lessons.real import check_name

        for word in args:
            problem = check_name(word)
            if problem:
                raise BadDirective(f"{where}: {problem}")

    @staticmethod
    def _load(names: tuple[str, ...]) -> None:
        from tui.lessons.real import missing, named

        problem = missing(names)
        if problem:
            raise ActionFailed(problem)
        for name in names:
            try:
                named(name)
            except (OSError, ValueError) as exc:
                raise ActionFailed(f"{name}: {exc}") from None

    def headless(self, action, run):
        _add_needed(run, action.args)
        self._load(action.args)
        return None

    async def play(self, action, player):
        import asyncio

        _add_needed(player, action.args)
        await asyncio.to_thread(self._load, action.args)
        return None


def _add_needed(context, names: tuple[str, ...]) -> None:
    needed = context.needed
    needed.extend(n for n in names if n not in needed)


class Handin(Kind):
    """The student's findings written as Markdown (:func:`tui.lessons.real.handin_markdown`): in
    the app where a save goes (in a browser, downloaded), headless in the folder the run names."""

    name = "handin"
    usage = "handin [model=NAME]"
    options = ("model",)

    def check_values(self, where, args, options):
        from engine.formats import model_named

        if "model" in options and model_named(options["model"]) is None:
            raise BadDirective(_("{where}: unknown model {name} (bpe-lab models lists them)").format(
                where=where, name=repr(options["model"])))

    @staticmethod
    def markdown(action, context, corpus_name: str, corpus: str, surprises: list[str]) -> str:
        import datetime

        from tui.lessons.real import handin_markdown

        when = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
        try:
            return handin_markdown(context.lesson.title, context.needed, corpus_name, corpus,
                                   action.options.get("model"), surprises, when)
        except (OSError, ValueError) as exc:
            raise ActionFailed(str(exc)) from None

    def on_trainer(self, action, run, trainer):
        text = self.markdown(action, run, run.corpus_name, trainer.text, list(run.surprises))
        run.handin = text
        if run.handin_folder is not None:
            from engine.corpus import atomic_write_text

            target = run.handin_folder / f"handin-{run.lesson.path.name.split('.')[0]}.md"
            try:
                atomic_write_text(target, text)
            except OSError as exc:
                raise ActionFailed(_("handin not written: {path}: {reason}").format(
                    path=target, reason=exc.strerror or exc)) from None
            run.handin_path = target
        return None

    async def on_driver(self, action, player, driver):
        import asyncio

        workbench = driver.workbench
        with workbench.reading():
            corpus, name = workbench.trainer.text, workbench.corpus.name
        text = await asyncio.to_thread(self.markdown, action, player, name, corpus, driver.marked())
        driver.hand_in(f"handin-{player.lesson.path.name.split('.')[0]}", text)
        return None


#: Every directive but ``expect`` (a claim, :mod:`tui.lessons.claims`), by name, in the order
#: docs/lessons.md lists them.
DIRECTIVES: dict[str, Kind] = {kind.name: kind() for kind in (
    Open, StepForward, Run, Goto, Undo, Select, Tokenize, Trace, Analysis, Replay, Quiz, Need, Handin)}


def check_directive(where: str, kind: str, args: tuple[str, ...], options: dict[str, str]) -> None:
    """Check one directive line's words; BadDirective (one line) for an unknown directive or bad words."""
    found = DIRECTIVES.get(kind)
    if found is None:
        known = ", ".join([*DIRECTIVES, "expect"])
        raise BadDirective(_("{where}: unknown directive {kind} (have: {known})").format(where=where, kind=repr(kind), known=known))
    found.check(where, args, options)
