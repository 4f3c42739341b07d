"""The syntax of a lesson's claims, ``expect QUANTITY [ARGS] OP VALUE``: what each quantity
takes, reading the value, and checking the arguments (docs/lessons.md). Parsing only: checking
a claim against a trainer is :mod:`tui.lessons.claims`.

Example: ``parse_value('[259, 264]', 'x.md:3') -> [259, 264]``
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from tui.i18n import _, ngettext
from tui.lessons.directives import whole_number as _positive
from tui.lessons.errors import LessonError
from tui.lessons.lexer import split_words
from tui.lessons.real import MEASURES

#: Comparison operators of a claim.
OPS = ("==", "!=", "<=", ">=", "<", ">")
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
    **MEASURES,  # a named real tokenizer (tui.lessons.real): lesson 005, the course's tokenizer lab
}
#: The quantities that measure a named real tokenizer.
REAL_QUANTITIES = tuple(MEASURES)
COMPOSITION_KINDS = ("whole", "char", "multi", "partial")
HELDOUT_MEASURES = ("tokens", "bytes_per_token", "chars_per_token")
BASELINE_MEASURES = ("vocab", "tokens", "unknown")


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


def show_value(value: object) -> str:
    """A claim's value as a lesson writes it: numbers bare, text quoted, lists as JSON."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return json.dumps(list(value), ensure_ascii=False)
    return str(value)


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
        except RecursionError:
            raise LessonError(_("{where}: a list nested too deeply").format(where=where)) from None
        except ValueError:  # a number longer than Python converts
            raise LessonError(_("{where}: a number with too many digits").format(where=where)) from None
        if not isinstance(value, list):
            raise LessonError(_("{where}: not a JSON list: {raw}").format(where=where, raw=raw))
        return value
    if raw[0] in "'\"":
        try:
            parts = [word for word, _end in split_words(raw)]
        except ValueError:
            raise LessonError(_("{where}: unbalanced quotes in {raw}").format(where=where, raw=raw)) from None
        if len(parts) != 1:
            raise LessonError(_("{where}: one value after the operator, not {raw}").format(where=where, raw=raw))
        return parts[0]
    if re.fullmatch(r"[-+]?\d+", raw):
        try:
            return int(raw)
        except ValueError:  # longer than Python converts (sys.get_int_max_str_digits())
            raise LessonError(_("{where}: a number with too many digits").format(where=where)) from None
    if re.fullmatch(r"[-+]?(\d+\.\d*|\.\d+)([eE][-+]?\d+)?", raw):
        return float(raw)
    if " " in raw:
        raise LessonError(_("{where}: one value after the operator, not {raw} (quote text)").format(where=where, raw=raw))
    return raw


def parse_claim(where: str, number: int, body: str, split: list[tuple[str, str, int]]) -> Claim:
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
    check_claim_args(where, quantity, args, split[at][0], value)
    return Claim(quantity, args, split[at][0], value, number, body.strip())


def check_claim_args(where: str, quantity: str, args: tuple[str, ...], op: str, value: object) -> None:
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
        except (ValueError, RecursionError):  # not JSON, nested too deeply, a number too long
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
    if quantity in REAL_QUANTITIES:
        from tui.lessons.real import check_args

        problem = check_args(quantity, args)
        if problem:
            raise LessonError(f"{where}: {problem}")
    if op not in ("==", "!=") and not isinstance(value, (int, float)):
        raise LessonError(_("{where}: {op} compares numbers; {value} is not one").format(where=where, op=op, value=show_value(value)))
