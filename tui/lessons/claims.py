"""Checking a lesson's claims against a trainer: pure (no textual), so the headless
``bpe-lab lesson --run`` and the app's lesson pane give the same verdicts.

Example::

    result = evaluate(claim, trainer)      # claim: expect tokens == 6
    result.ok, result.actual                # (True, 6)
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from engine import Trainer
from engine.text import token_display
from tui.i18n import _
from tui.lessons.claim_syntax import REAL_QUANTITIES
from tui.lessons.format import Claim, show_value
from tui.model.finder import parse_query


@dataclass(frozen=True)
class Result:
    """A claim's verdict: ``ok``, and the value found (``actual``), or why none could be
    (``problem``: a token that does not exist, no corpus open): then it failed."""

    claim: Claim
    ok: bool
    actual: object = None
    problem: str | None = None

    @property
    def shown_actual(self) -> str:
        return self.problem if self.problem is not None else show_value(self.actual)

    def line(self) -> str:
        """One line: ``✓ tokens == 6`` or ``✗ tokens == 6 (actual: 8)``."""
        mark = "✓" if self.ok else "✗"
        text = f"{mark} {self.claim.subject} {self.claim.expected}"
        return text if self.ok else _("{claim} (actual: {actual})").format(claim=text, actual=self.shown_actual)

    def to_dict(self) -> dict:
        return {"line": self.claim.line, "claim": self.claim.source, "ok": self.ok, "actual": self.actual,
                "expected": self.claim.value, "op": self.claim.op, "problem": self.problem}


class ClaimProblem(Exception):
    """The quantity cannot be measured (a token that is not in the vocabulary, ...)."""


def _display(trainer: Trainer, token: int, space: str = " ") -> str:
    return token_display(trainer.token_bytes(token), space=space)


def token_id(trainer: Trainer, text: str) -> int:
    """The id of a token named in the find syntax: text (``·`` for a space), ``[e4 b8]`` bytes,
    ``#id``, or a special token's text. Exact, never the nearest: ClaimProblem when none."""
    specials = trainer.config.specials
    if text in specials:
        return trainer.vocab_size - len(specials) + specials.index(text)
    kind, value = parse_query(text)
    made = trainer.vocab_size - len(specials)
    if kind == "id":
        if not 0 <= value < trainer.vocab_size:
            raise ClaimProblem(_("no token #{value}").format(value=value))
        return value
    if trainer.config.base == "chars" and kind == "bytes":
        try:
            value.decode("utf-8")
        except UnicodeDecodeError:
            raise ClaimProblem(_("{text}: the chars base has no partial characters").format(text=text)) from None
    vocab = trainer.vocab
    for i in range(made):
        if vocab[i] == value:
            return i
    raise ClaimProblem(_("no token {text} in the vocabulary").format(text=repr(text)))


def _text_bytes(trainer: Trainer, text: str) -> bytes:
    """What ``bytes "TOKEN"`` measures: a token's bytes by id or bytes, else the text's UTF-8."""
    kind, value = parse_query(text)
    if kind == "id":
        return trainer.token_bytes(token_id(trainer, text))
    return value


def measure(claim: Claim, trainer: Trainer, tokenizer=None) -> object:
    """The claim's quantity now. ClaimProblem when it cannot be measured."""
    q, args = claim.quantity, claim.args
    tok = tokenizer if tokenizer is not None else (trainer.tokenizer() if q in _NEEDS_TOKENIZER else None)
    if q == "tokens":
        return trainer.corpus_tokens
    if q == "step":
        return trainer.steps
    if q == "vocab":
        return trainer.vocab_size
    if q == "merge":
        n = int(args[0])
        if n > trainer.steps:
            raise ClaimProblem(_("only {count} merges made").format(count=trainer.steps))
        return _display(trainer, trainer.events(n - 1, n)[0].new_id)
    if q == "merges":
        return [_display(trainer, e.new_id) for e in trainer.events()]
    if q == "encode":
        return tok.encode(args[0])
    if q == "pieces":
        return [token_display(tok.token_bytes(i)) for i in tok.encode(args[0])]
    if q == "decode":
        try:
            return tok.decode(json.loads(args[0]))
        except ValueError as exc:
            raise ClaimProblem(str(exc)) from None
    if q == "trace":
        _ids, steps = tok.encode_trace(args[0])
        return [token_display(tok.token_bytes(s.new_id)) for s in steps]
    if q == "id":
        return token_id(trainer, args[0])
    if q == "bytes":
        return list(_text_bytes(trainer, args[0]))
    if q == "token":
        i = int(args[0].lstrip("#"))
        if not 0 <= i < trainer.vocab_size:
            raise ClaimProblem(_("no token #{i}").format(i=i))
        return _display(trainer, i)
    if q == "count":
        a, b = (token_id(trainer, part) for part in args[0].split())
        return trainer.pair_count((a, b))
    if q == "candidate":
        n = int(args[0])
        found = trainer.candidates(n)
        if len(found) < n:
            raise ClaimProblem(_("only {count} candidates").format(count=len(found)))
        a, b = found[n - 1].pair
        return f"{_display(trainer, a, '·')} {_display(trainer, b, '·')}"
    if q == "ties":
        top = trainer.candidates(1)
        return trainer.tie_count(top[0].count) if top else 0
    if q == "composition":
        from engine.analysis import composition

        made = trainer.vocab_size - len(trainer.config.specials)
        kind = "char" if args[0] == "whole" else args[0]
        return composition(trainer.vocab[:made], trainer.base_size).counts[kind]
    if q == "heldout":
        ids = tok.encode(args[0], specials=False)
        if args[1] == "tokens":
            return len(ids)
        if not ids:
            raise ClaimProblem(_("the text is empty"))
        size = len(args[0].encode("utf-8")) if args[1] == "bytes_per_token" else len(args[0])
        return size / len(ids)
    if q in ("word", "char"):
        from engine.analysis import CharTokenizer, WordTokenizer

        baseline = (WordTokenizer if q == "word" else CharTokenizer)(trainer.text)
        if args[0] == "vocab":
            return baseline.vocab_size
        tokens, unknown = baseline.count(args[1])
        return tokens if args[0] == "tokens" else unknown
    if q == "stop":
        return _stop(trainer)
    if q in REAL_QUANTITIES:
        from tui.lessons.real import measure as measure_real

        return measure_real(q, args, trainer.text)
    raise ClaimProblem(_("unknown quantity {q}").format(q=q))


_NEEDS_TOKENIZER = {"encode", "pieces", "decode", "trace", "heldout"}


def _stop(trainer: Trainer) -> str:
    """Why training cannot go on now, or ``"running"`` (as the status line says it)."""
    if trainer.future:
        return "running"
    target = trainer.target_merges
    if target is not None and trainer.steps >= target:
        return "merge count reached" if trainer.config.max_merges == target else "vocabulary size reached"
    top = trainer.candidates(1)
    if top and top[0].count >= trainer.config.min_frequency:
        return "running"
    return "no pairs left" if trainer.config.min_frequency <= 1 else f"no pair occurs {trainer.config.min_frequency} times"


def compare(op: str, actual: object, expected: object) -> bool:
    """``actual OP expected``; ``==`` and ``!=`` compare with a float expected value at its own
    precision (``1.75`` matches 1.7498), the orderings exactly (``< 0.1`` holds for 0.08); lists
    compare as lists."""
    if isinstance(actual, tuple):
        actual = list(actual)
    if op in ("==", "!=") and isinstance(expected, float) and isinstance(actual, (int, float)):
        places = len(repr(expected).split(".")[1]) if "." in repr(expected) else 0
        actual = round(actual, places)
    if op in ("==", "!="):
        same = actual == expected
        return same if op == "==" else not same
    if not isinstance(actual, (int, float)) or isinstance(actual, bool):
        return False
    return {"<": actual < expected, "<=": actual <= expected, ">": actual > expected, ">=": actual >= expected}[op]


def evaluate(claim: Claim, trainer: Trainer | None, tokenizer=None) -> Result:
    """Check one claim now. Never raises for a claim that cannot be measured: it fails, saying why."""
    if trainer is None:
        return Result(claim, False, problem=_("no corpus is open (an open directive comes first)"))
    try:
        actual = measure(claim, trainer, tokenizer)
    except ClaimProblem as exc:
        return Result(claim, False, problem=str(exc))
    except ValueError as exc:  # the engine's one-line errors (a pattern too slow on the text, ...)
        return Result(claim, False, problem=str(exc))
    return Result(claim, compare(claim.op, actual, claim.value), actual)
