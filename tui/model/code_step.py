"""The code view's model: which line of the reference trainer decides the step the app is at, and
that step's values, read from the trainer (no textual).

At step k the view is about merge k, from its event: the pairs that tied at its count (the top
pairs; an untied merge had the top count alone), the pair chosen and why, the new id and its
token, the corpus length before and after. At step 0, or after an undo back to it, it is about
the merge the next step makes: the top candidates now (or the recorded merge a redo makes). A
line says what the next pass of the loop finds now, and when training is done, which stop line
ends it. Every sentence is whole and goes through :func:`tui.i18n._`.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import Merge, Trainer
from engine.text import token_display
from engine.train import STOP_ROLES, deciding_role
from tui.i18n import N_, _
from tui.model.workbench import Workbench

#: How many pairs the count line names (the tie set or the top candidates).
TOP = 4

#: The reference's comments, each as the UI says it (tests/model/test_code_step.py checks that
#: every comment of the excerpt has its entry, so none shows untranslated).
COMMENTS = {
    "# neighbours overlap: a a a holds the pair (a, a) twice": N_("# neighbours overlap: a a a holds the pair (a, a) twice"),
    "# on a tie: the lowest left id, then the lowest right id": N_("# on a tie: the lowest left id, then the lowest right id"),
    "# on a tie: the pair counted first (met first in the text)": N_("# on a tie: the pair counted first (met first in the text)"),
    "# the pair's two tokens, joined, are the next token": N_("# the pair's two tokens, joined, are the next token"),
    "# every occurrence becomes the new id, left to right": N_("# every occurrence becomes the new id, left to right"),
    "# the corpus's length in tokens after this merge": N_("# the corpus's length in tokens after this merge"),
    "# merges you chose by hand come first, whatever their counts": N_("# merges you chose by hand come first, whatever their counts"),
    "# count every pair again, on the corpus as the merges left it": N_("# count every pair again, on the corpus as the merges left it"),
    "# seed 001: a token never holds a newline": N_("# seed 001: a token never holds a newline"),
    "# a pair rarer than this is not worth a token: training stops": N_("# a pair rarer than this is not worth a token: training stops"),
}


def comment(text: str) -> str:
    """A comment of the reference as the UI says it (one not in :data:`COMMENTS` as written)."""
    return _(COMMENTS[text]) if text in COMMENTS else text


@dataclass(frozen=True)
class CodeStep:
    """The step the code view describes: ``made`` (merge ``step`` was made, the trainer is at it)
    or the next one. ``marked``: the role of the line that decides it (None when nothing merges
    next); ``stop``: the role of the stop line that ends training now (None while it goes on).
    ``top``: the top pairs as the panes name them, with counts (the chosen one first)."""

    step: int
    made: bool
    marked: str | None
    stop: str | None
    pair: tuple[int, int] | None = None
    shown_pair: str = ""
    count: int = 0
    tie_total: int = 0
    top: tuple[tuple[str, int], ...] = ()
    new_id: str = ""
    token: str = ""
    before: int = 0
    after: int | None = None
    why: str = ""
    then: tuple[tuple[str, int], ...] = ()
    stop_text: str | None = None


def code_step(workbench: Workbench) -> CodeStep:
    """The view's step, read under the workbench's lock (raises Busy while a batch holds it)."""
    with workbench.reading():
        trainer = workbench.trainer
        stop_text = workbench.stop_reason()  # None while a step would merge (or redo)
        stop = None if stop_text is None else _stop_role(workbench, trainer)
        last = trainer.last
        if last is not None:
            then = tuple(_top(workbench, trainer)) if stop_text is None else ()
            return _made(workbench, last, True, stop, stop_text, then)
        if trainer.future:  # back at step 0 after an undo: the next step redoes a recorded merge
            return _made(workbench, trainer.future[0], False, None, None, ())
        return _next(workbench, trainer, stop, stop_text)


def _stop_role(workbench: Workbench, trainer: Trainer) -> str | None:
    """The stop rule that holds now (training is done), as the reference's line; None for the
    trainer's own stops (a replayed file's end, the most bytes a vocabulary may hold)."""
    target = trainer.target_merges
    if target is not None and trainer.steps >= target:
        return STOP_ROLES["merges" if workbench.config.max_merges == target else "vocab-size"]
    if trainer.is_replay or trainer.stop_reason == "vocab-bytes":
        return None
    # as the status line says it: with a floor of 2, pairs that occur once are left, and too rare
    return STOP_ROLES["no-pairs" if workbench.config.min_frequency <= 1 else "min-frequency"]


def _show(workbench: Workbench, pair: tuple[int, int]) -> str:
    return f"{workbench.token_name(pair[0], space='·')} + {workbench.token_name(pair[1], space='·')}"


def _top(workbench: Workbench, trainer: Trainer) -> list[tuple[str, int]]:
    """What the next pass finds: the top pairs now; in a replay, the file's next merge and its
    count here (the pass does not choose by count)."""
    if trainer.is_replay:
        upcoming = trainer.scripted_next()
        return [] if upcoming is None else [(_show(workbench, upcoming[0]), upcoming[1])]
    return [(_show(workbench, c.pair), c.count) for c in trainer.candidates(TOP)]


def _made(workbench: Workbench, event: Merge, made: bool, stop: str | None, stop_text: str | None,
          then: tuple[tuple[str, int], ...]) -> CodeStep:
    """A recorded merge: made (the trainer is at its step) or the one a redo makes next."""
    trainer = workbench.trainer
    replay = trainer.is_replay
    rule = workbench.config.tie_rule
    top = tuple((_show(workbench, pair), event.count) for pair in event.ties[:TOP]) if not replay else ()
    return CodeStep(
        step=event.step, made=made, marked=deciding_role(event, rule, replay=replay), stop=stop,
        pair=event.pair, shown_pair=_show(workbench, event.pair), count=event.count, tie_total=event.tie_total,
        top=top or ((_show(workbench, event.pair), event.count),),
        new_id=workbench.id_text(event.new_id) if made else _next_id(workbench, event.new_id),
        token=token_display(event.token, space="·"), before=event.tokens_before, after=event.tokens_after,
        why=why(event, rule, replay, workbench), then=then, stop_text=stop_text)


def _next(workbench: Workbench, trainer: Trainer, stop: str | None, stop_text: str | None) -> CodeStep:
    """Step 0 with nothing recorded: the merge the rule makes next, from the candidates now."""
    step = trainer.steps + 1
    if trainer.is_replay:
        return _next_replay(workbench, trainer, stop, stop_text)
    top = trainer.candidates(TOP)
    if stop is not None or not top:
        return CodeStep(step=step, made=False, marked=None, stop=stop, before=trainer.corpus_tokens, stop_text=stop_text)
    best = top[0]
    total = trainer.tie_count(best.count)
    ties = tuple(c.pair for c in top if c.count == best.count)
    rule = workbench.config.tie_rule
    event = Merge(step, best.pair, 0, b"", best.count, ties, total, 0, 0)
    made_id = trainer.vocab_size - len(workbench.config.specials)
    return CodeStep(
        step=step, made=False, marked=deciding_role(event, rule), stop=None, pair=best.pair,
        shown_pair=_show(workbench, best.pair), count=best.count, tie_total=total,
        top=tuple((_show(workbench, c.pair), c.count) for c in top), new_id=str(made_id),
        token=_joined(workbench, best.pair), before=trainer.corpus_tokens, why=why(event, rule, False, workbench))


def _next_replay(workbench: Workbench, trainer: Trainer, stop: str | None, stop_text: str | None) -> CodeStep:
    step = trainer.steps + 1
    upcoming = trainer.scripted_next()
    if upcoming is None:
        return CodeStep(step=step, made=False, marked=None, stop=stop, before=trainer.corpus_tokens, stop_text=stop_text)
    pair, count, _rank = upcoming
    event = Merge(step, pair, 0, b"", count, (pair,), 1, 0, 0)
    made_id = trainer.vocab_size - len(workbench.config.specials)
    return CodeStep(step=step, made=False, marked="apply", stop=None, pair=pair, shown_pair=_show(workbench, pair),
                    count=count, tie_total=1, top=((_show(workbench, pair), count),), new_id=_next_id(workbench, made_id),
                    token=_joined(workbench, pair), before=trainer.corpus_tokens,
                    why=why(event, workbench.config.tie_rule, True, workbench))


def _next_id(workbench: Workbench, token: int) -> str:
    """The id the next merge's token will have, as the user sees ids (a replayed file's own)."""
    ids = workbench.file_ids
    return str(ids[token] if workbench.script is not None and ids is not None and token < len(ids) else token)


def _joined(workbench: Workbench, pair: tuple[int, int]) -> str:
    """The token a pair makes, as the panes name it (the right part's subword mark cut off)."""
    trainer = workbench.trainer
    right = trainer.token_bytes(pair[1])
    prefix = (workbench.config.subword_prefix or "").encode()
    if prefix and right.startswith(prefix):
        right = right[len(prefix):]
    return token_display(trainer.token_bytes(pair[0]) + right, space="·")


#: Why a tie rule took the pair it took (the reference teaches the first two).
TIE_WHY = {
    "first-seen": N_("{n} pairs tie at {count}: first-seen takes the pair met first in the text"),
    "hf": N_("{n} pairs tie at {count}: hf takes the pair HuggingFace's ids put first "
             "(the trainer's rule; the reference teaches lowest-ids and first-seen)"),
    "subword-nmt": N_("{n} pairs tie at {count}: subword-nmt takes the pair whose texts sort last "
                      "(the trainer's rule; the reference teaches lowest-ids and first-seen)"),
}


def why(event: Merge, rule: str, replay: bool, workbench: Workbench) -> str:
    """One sentence: why this pair merges (its count alone, the tie rule, your choice, the file)."""
    if event.manual:
        return _("you chose it (a manual merge): best_pair was not asked")
    if replay:
        return _("the replayed file's merge {step}: best_pair is not asked; the pair occurs {count} times here").format(
            step=event.step, count=f"{event.count:,}")
    if not event.tied:
        return _("the count decides: every other pair occurs fewer than {count} times").format(count=f"{event.count:,}")
    n, count = f"{event.tie_total:,}", f"{event.count:,}"
    if rule != "lowest-ids":
        return _(TIE_WHY.get(rule, TIE_WHY["first-seen"])).format(n=n, count=count)
    left, right = event.pair
    other = event.ties[1] if len(event.ties) > 1 else None
    if other is not None and other[0] == left:
        return _("{n} pairs tie at {count}: lowest-ids takes the lowest left id ({left}), "
                 "then the lowest right id ({right})").format(n=n, count=count, left=workbench.id_text(left),
                                                               right=workbench.id_text(right))
    return _("{n} pairs tie at {count}: lowest-ids takes the lowest left id ({left})").format(
        n=n, count=count, left=workbench.id_text(left))
