"""The lesson directives as they were before the registry (tui/lessons/directives.py): the
parser's if-chain that checked a directive line and the headless run's if-chain that did it, kept
verbatim apart from names as a reference for differential tests (tests/cli/test_lesson_directives.py)."""

from __future__ import annotations

import re

from engine import Trainer
from tui.i18n import _
from tui.lessons.directives import ActionFailed, open_source, read_source
from tui.lessons.format import SETTINGS, SOURCES, LessonError, config_for, sample_name
from tui.model.finder import find_token

TABS = ("curve", "vocabulary", "heldout", "baselines", "compare", "tierules")
QUIZ_MODES = ("shuffled", "hidden", "typed")
TRAINING = ("open", "step", "run", "goto", "undo", "replay")


def _positive(where: str, word: str, what: str, minimum: int = 1) -> int:
    if not re.fullmatch(r"\d+", word) or int(word) < minimum:
        raise LessonError(_("{where}: bad {what} {word}: a whole number of {minimum} or more").format(
            where=where, what=what, word=repr(word), minimum=minimum))
    return int(word)


def check_directive(where: str, kind: str, args: tuple[str, ...], options: dict[str, str]) -> None:
    def no_options(*allowed: str) -> None:
        extra = sorted(set(options) - set(allowed))
        if extra:
            raise LessonError(_("{where}: {kind} takes no option {option}=").format(where=where, kind=kind, option=extra[0]))

    def arity(least: int, most: int, usage: str) -> None:
        if not least <= len(args) <= most:
            raise LessonError(_("{where}: {kind} reads: {usage}").format(where=where, kind=kind, usage=usage))

    if kind == "open":
        arity(0, 0, "open sample=NAME|file=PATH|text=\"...\" [setting=value ...]")
        sources = [k for k in SOURCES if k in options]
        if len(sources) != 1:
            raise LessonError(_("{where}: open takes one of sample=, file= or text=").format(where=where))
        for key in options:
            if key not in SOURCES and key not in SETTINGS:
                raise LessonError(_("{where}: unknown setting {key}= (have: {choices})").format(
                    where=where, key=key, choices=', '.join(SETTINGS)))
        if "sample" in options:
            from tui.model.samples import SAMPLES

            if sample_name(options["sample"]) not in SAMPLES:
                raise LessonError(_("{where}: no bundled sample named {sample} (have: {choices})").format(
                    where=where, sample=repr(options['sample']), choices=', '.join(SAMPLES)))
        if "text" in options and not options["text"]:
            raise LessonError(_("{where}: open text= needs some text").format(where=where))
        try:
            config_for(options)
        except ValueError as exc:
            raise LessonError(_("{where}: {exc}").format(where=where, exc=exc)) from None
    elif kind in ("step", "undo"):
        arity(0, 1, f"{kind} [N]")
        no_options()
        if args:
            _positive(where, args[0], _("step number"))
    elif kind == "run":
        arity(0, 1, "run [N]")
        no_options()
        if args:
            _positive(where, args[0], _("step number"), 0)
    elif kind == "goto":
        arity(1, 1, "goto N")
        no_options()
        _positive(where, args[0], _("step number"), 0)
    elif kind == "select":
        arity(1, 1, "select TOKEN (text, \"[e4 b8]\" bytes or #id)")
        no_options()
    elif kind == "tokenize":
        arity(0, 1, "tokenize \"TEXT\" [trace=on|off]")
        no_options("trace")
        if options.get("trace", "on") not in ("on", "off"):
            raise LessonError(_("{where}: trace is on or off").format(where=where))
    elif kind == "trace":
        arity(1, 1, "trace on|off")
        no_options()
        if args[0] not in ("on", "off"):
            raise LessonError(_("{where}: trace is on or off, not {word}").format(where=where, word=repr(args[0])))
    elif kind == "analysis":
        arity(1, 1, f"analysis TAB (one of {', '.join(TABS)}) [text=\"...\" with compare]")
        no_options("text")
        if args[0] not in TABS:
            raise LessonError(_("{where}: unknown analysis tab {word} (have: {choices})").format(
                where=where, word=repr(args[0]), choices=', '.join(TABS)))
        if "text" in options and args[0] != "compare":
            raise LessonError(_("{where}: text= goes with analysis compare (the text compared)").format(where=where))
    elif kind == "replay":
        arity(1, 1, "replay PATH (a tokenizer file)")
        no_options()
    elif kind == "quiz":
        arity(0, 0, "quiz [mode=shuffled|hidden|typed] [rounds=N]")
        no_options("mode", "rounds")
        if options.get("mode", "shuffled") not in QUIZ_MODES:
            raise LessonError(_("{where}: unknown quiz mode {mode} (have: {choices})").format(
                where=where, mode=repr(options['mode']), choices=', '.join(QUIZ_MODES)))
        if "rounds" in options:
            _positive(where, options["rounds"], _("number of rounds"))
    else:
        known = "open, step, run, goto, undo, select, tokenize, trace, analysis, replay, quiz, expect"
        raise LessonError(_("{where}: unknown directive {kind} (have: {known})").format(where=where, kind=repr(kind), known=known))


def act(run, action) -> str | None:
    """The headless run's old ``HeadlessRun.act`` on ``run`` (trainer, text, resolve)."""
    kind = action.kind
    if kind == "open":
        source = open_source(run, action, write_text=False)
        text = read_source(source, action.options.get("text"))
        try:
            run.trainer = Trainer(text, source.config)
        except ValueError as exc:
            raise ActionFailed(str(exc)) from None
        run.text = text
        return None
    if run.trainer is None:
        if kind in TRAINING:
            raise ActionFailed(_("{kind}: no corpus is open (an open directive comes first)").format(kind=kind))
        return None
    if kind == "replay":
        from engine import load_any

        try:
            imported = load_any(run.resolve(action.args[0]))
        except ValueError as exc:
            raise ActionFailed(str(exc)) from None
        run.trainer = Trainer.replaying(run.text or "", imported.tokenizer)
        return None
    if kind in ("step", "run", "goto", "undo"):
        return move(run.trainer, action)
    if kind == "select" and find_token(run.trainer, action.args[0]) is None:
        raise ActionFailed(_("select: no token matches {token}").format(token=repr(action.args[0])))
    return None


def move(trainer: Trainer, action) -> str | None:
    """Do a step/run/goto/undo on ``trainer``; a note when a stop rule ends it early."""
    kind, args = action.kind, action.args
    if kind == "step":
        target = trainer.steps + (int(args[0]) if args else 1)
    elif kind == "undo":
        target = max(trainer.steps - (int(args[0]) if args else 1), 0)
    elif kind == "run" and not args:
        trainer.train()
        return None
    else:
        target = int(args[0])
    reached = trainer.goto(target)
    if reached < target:
        return _("stopped at step {step}: a stop rule holds").format(step=reached)
    return None
