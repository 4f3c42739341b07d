"""Predict the next merge: the quiz's rules, without the UI.

A round asks for the pair the learner expects to merge next, reads a typed pick
(:func:`read_pick`: ``l o``, ``[e4 b8] [e4 b8]``, ``#12 #40``, ``l + o`` or the merged text
``lo`` when only one pair makes it), judges it against the merge training makes (:func:`judge`:
right, tied with the winner's count, or wrong), keeps the score (:class:`Score`) and says why the
tie rule chose the winner when the pick tied (:func:`explain_tie`).

The screen (:mod:`tui.app.screens.quiz`) draws it; every message here is a whole sentence through
:func:`tui.i18n._`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine import Trainer
from engine.text import hf_byte_rank, token_display
from tui.i18n import N_, _
from tui.model.cells import fit

#: The ways to pick: from the candidates shuffled (counts hidden), with nothing shown (type
#: it), or typed with the shuffled candidates beside the input as a hint.
MODES = ("shuffled", "hidden", "typed")
MODE_NAMES = {
    "shuffled": N_("shuffled: pick one, counts hidden"),
    "hidden": N_("hidden: type the pair"),
    "typed": N_("typed: the candidates are hints"),
}
#: How many candidates a shuffled round offers.
CHOICES = 6

Pair = tuple[int, int]


class PickError(ValueError):
    """A typed pick that names no pair occurring now; the message is one line for the learner."""


def show(trainer: Trainer, token: int) -> str:
    """A token as the panes show it (a space as ``·``)."""
    return token_display(trainer.token_bytes(token), space="·")


def show_pair(trainer: Trainer, pair: Pair) -> str:
    """Example: ``'l + o'``."""
    return f"{show(trainer, pair[0])} + {show(trainer, pair[1])}"


# -- reading a typed pick ----------------------------------------------------------------------

#: How the panes write characters that cannot be typed inside a token.
_TYPED = {"·": " ", "↵": "\n", "⇥": "\t", "␍": "\r"}


def split_parts(text: str) -> list[str]:
    """The tokens of a typed pick: runs of non-space characters; spaces inside ``[...]`` belong
    to the bytes, and spaces typed before anything else are text of the first token, as a
    learner types the space-led pieces most early merges make (``" t"`` is ``·t``).

    Example: ``split_parts("[e4 b8] 天") -> ['[e4 b8]', '天']``; ``split_parts(" t") -> [' t']``
    """
    parts: list[str] = []
    leading = len(text) - len(text.lstrip(" ")) if text.strip() else 0  # spaces alone: nothing typed
    current = text[:leading]
    inside = False
    for ch in text[leading:]:
        if ch == "[":
            if inside:
                raise PickError(_("A [ inside brackets: write bytes as [e4 b8]."))
            inside = True
        elif ch == "]":
            if not inside:
                raise PickError(_("A ] without its [: write bytes as [e4 b8]."))
            inside = False
        if ch.isspace() and not inside:
            if current:
                parts.append(current)
            current = ""
        else:
            current += ch
    if inside:
        raise PickError(_("A [ without its ]: write bytes as [e4 b8]."))
    if current:
        parts.append(current)
    return parts


def part_bytes(part: str) -> bytes:
    """One typed token as bytes: text (``·`` a space, ``↵`` a newline) and ``[hex]`` runs.

    Example: ``part_bytes("·lo") -> b' lo'``; ``part_bytes("，[e5]") -> b'\\xef\\xbc\\x8c\\xe5'``
    """
    out = bytearray()
    rest = part
    while rest:
        if rest.startswith("["):
            inner, rest = rest[1:].split("]", 1)
            for byte in inner.split():
                if len(byte) != 2 or any(c not in "0123456789abcdefABCDEF" for c in byte):
                    raise PickError(_("Not a byte in hex: {byte} (write bytes as [e4 b8]).").format(byte=byte))
                out.append(int(byte, 16))
            continue
        ch, rest = rest[0], rest[1:]
        out += _TYPED.get(ch, ch).encode("utf-8")
    return bytes(out)


def spelled(part: str) -> str:
    """A typed token as the panes spell it: its leading spaces as ``·``. Example: ``' t' -> '·t'``."""
    text = part.lstrip(" ")
    return "·" * (len(part) - len(text)) + text


def _token(trainer: Trainer, ids: dict[bytes, int], part: str) -> int:
    if part.startswith("#") and part[1:].isdigit():
        token = int(part[1:])
        if token >= trainer.vocab_size - len(trainer.config.specials):
            raise PickError(_("No token has id {id} now.").format(id=token))
        return token
    token = ids.get(part_bytes(part))
    if token is None:
        raise PickError(_("No token {token} in the vocabulary now.").format(token=spelled(part)))
    return token


def token_ids(trainer: Trainer) -> dict[bytes, int]:
    """Every token's bytes to its id (the first id, should two merges make the same bytes)."""
    ids: dict[bytes, int] = {}
    for token, data in enumerate(trainer.vocab):
        ids.setdefault(data, token)
    return ids


def read_pick(trainer: Trainer, text: str) -> Pair:
    """The pair a typed pick names: two tokens (``l o``, ``l + o``, ``[e4 b8] [e4 b8]``, ``#108
    #111``) or the merged text when exactly one pair occurring now makes it (``lo``).

    Raises :class:`PickError` (one sentence) for anything else, or a pair that does not occur now.
    """
    parts = split_parts(text)
    if len(parts) == 3 and parts[1] == "+":
        parts = [parts[0], parts[2]]
    ids = token_ids(trainer)
    if not parts:
        raise PickError(_("Type the pair you expect to merge next, for example: l o"))
    if len(parts) == 1:
        return _merged(trainer, ids, parts[0])
    if len(parts) != 2:
        raise PickError(_("Type two tokens (for example: l o) or the text they make (lo)."))
    pair = (_token(trainer, ids, parts[0]), _token(trainer, ids, parts[1]))
    if trainer.pair_count(pair) == 0:
        raise PickError(_("{pair} does not occur in the corpus now.").format(pair=show_pair(trainer, pair)))
    return pair


def _merged(trainer: Trainer, ids: dict[bytes, int], part: str) -> Pair:
    """The one pair occurring now whose two tokens make ``part``'s bytes."""
    data = part_bytes(part)
    found = []
    for cut in range(1, len(data)):
        a, b = ids.get(data[:cut]), ids.get(data[cut:])
        if a is not None and b is not None and trainer.pair_count((a, b)) > 0:
            found.append((a, b))
    if not found and data in ids:
        raise PickError(_("{text} is one token already: type the pair you expect to merge next.").format(text=spelled(part)))
    if not found:
        raise PickError(_("No two tokens side by side make {text} now: type the two tokens.").format(text=spelled(part)))
    if len(found) > 1:
        options = " / ".join(show_pair(trainer, pair) for pair in found)
        raise PickError(_("{text} could be any of {options}: type the two tokens.").format(text=spelled(part),
                                                                                  options=options))
    return found[0]


# -- judging and scoring -----------------------------------------------------------------------


def judge(pick: Pair, pick_count: int, merged: Pair, count: int) -> str:
    """``right`` (the pair merged), ``tied`` (another pair with the merged pair's count: the tie
    rule decided against it) or ``wrong``."""
    if pick == merged:
        return "right"
    return "tied" if pick_count == count else "wrong"


@dataclass
class Score:
    """The session's score (the app keeps one for as long as it runs)."""

    right: int = 0
    tied: int = 0
    wrong: int = 0

    def add(self, verdict: str) -> None:
        setattr(self, verdict, getattr(self, verdict) + 1)

    @property
    def rounds(self) -> int:
        return self.right + self.tied + self.wrong

    def text(self) -> str:
        """Example: ``'right 2 · tied 1 · wrong 0'``."""
        return _("right {right} · tied {tied} · wrong {wrong}").format(right=self.right, tied=self.tied, wrong=self.wrong)


# -- why the tie rule chose the winner ---------------------------------------------------------


def first_occurrences(sequences: Sequence[Sequence[int]], pairs: Sequence[Pair]) -> dict[Pair, tuple[int, int]]:
    """Where each pair first occurs as (chunk, token index), chunks in order of first appearance
    in the text (the order the first-seen rule reads). Example:
    ``first_occurrences([(1, 2, 1, 2)], [(2, 1)]) -> {(2, 1): (0, 1)}``"""
    wanted = set(pairs)
    found: dict[Pair, tuple[int, int]] = {}
    for chunk, seq in enumerate(sequences):
        for i in range(len(seq) - 1):
            pair = (seq[i], seq[i + 1])
            if pair in wanted and pair not in found:
                found[pair] = (chunk, i)
                if len(found) == len(wanted):
                    return found
    return found


def explain_tie(
    rule: str,
    winner: Pair,
    pick: Pair,
    shown: Callable[[Pair], str],
    where: dict[Pair, tuple[int, int]] | None = None,
    chunk_text: Callable[[int], str] | None = None,
) -> str:
    """One or two sentences: the pick had the winner's count, and why the tie rule took the winner.

    ``where`` (first-seen): each pair's first occurrence from :func:`first_occurrences`;
    ``chunk_text(chunk)`` shows a chunk (None when the whole text is one chunk).
    """
    win, yours = shown(winner), shown(pick)
    if rule == "lowest-ids":
        if winner[0] != pick[0]:
            return _("Tied: right count, and the tie rule (lowest-ids) chose {winner} because its left id {win_id} "
                     "is lower than {pick}'s {pick_id}.").format(winner=win, pick=yours, win_id=winner[0], pick_id=pick[0])
        return _("Tied: right count, and the tie rule (lowest-ids) chose {winner} because, with the same left "
                 "token, its right id {win_id} is lower than {pick}'s {pick_id}.").format(
                     winner=win, pick=yours, win_id=winner[1], pick_id=pick[1])
    if rule == "first-seen" and where and winner in where and pick in where:
        (wc, wi), (pc, pi) = where[winner], where[pick]
        if chunk_text is None:
            return _("Tied: right count, and the tie rule (first-seen) chose {winner} because it occurs first in the "
                     "corpus: at token {win_at}, {pick} only at token {pick_at}.").format(
                         winner=win, pick=yours, win_at=wi + 1, pick_at=pi + 1)
        if wc == pc:
            return _("Tied: right count, and the tie rule (first-seen) chose {winner} because it occurs first in the "
                     "corpus: both first occur in {chunk}, {winner} at token {win_at}, {pick} at token {pick_at}.").format(
                         winner=win, pick=yours, chunk=chunk_text(wc), win_at=wi + 1, pick_at=pi + 1)
        return _("Tied: right count, and the tie rule (first-seen) chose {winner} because it occurs first in the "
                 "corpus: {winner} first in {win_chunk}, {pick} only later, in {pick_chunk}.").format(
                     winner=win, pick=yours, win_chunk=chunk_text(wc), pick_chunk=chunk_text(pc))
    if rule == "hf":
        return _("Tied: right count, and the tie rule (hf) chose {winner} because it comes first in HuggingFace's "
                 "order, {win_key} before {pick}'s {pick_key} (bytes ranked by their ByteLevel characters, merged "
                 "tokens by id).").format(winner=win, pick=yours, win_key=hf_key(winner), pick_key=hf_key(pick))
    return _("Tied: right count, and the tie rule ({rule}) chose {winner}.").format(rule=rule, winner=win)


def tie_reason(trainer: Trainer, winner: Pair, pick: Pair) -> str:
    """:func:`explain_tie` for the trainer's tie rule, before the merge (first-seen reads where
    each pair first occurs now: O(corpus), once a tied round)."""
    where = chunk_text = None
    rule = trainer.config.tie_rule
    if rule == "first-seen":
        sequences = trainer.sequences()
        where = first_occurrences(sequences, [winner, pick])
        if len(sequences) > 1:
            def chunk_text(chunk: int) -> str:
                text = "".join(show(trainer, token) for token in sequences[chunk])
                return "“" + fit(text, 16).rstrip() + "”"
    return explain_tie(rule, winner, pick, lambda pair: show_pair(trainer, pair), where, chunk_text)


def hf_key(pair: Pair) -> tuple[int, int]:
    """The pair as the hf rule orders it: a byte by its ByteLevel character's rank, a merged
    token by its id. Example: ``hf_key((ord("!"), 300)) -> (0, 300)``"""
    rank = hf_byte_rank()
    return tuple(rank[t] if t < 256 else t for t in pair)  # type: ignore[return-value]


# -- a round's outcome, as the panel says it ---------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """What a round found: the pick, the merge made (and whether the tie rule chose it), and the
    runner-up by the tie rule."""

    pick: Pair
    pick_count: int
    merged: Pair
    count: int
    runner_up: tuple[Pair, int] | None
    tie_total: int
    by_rule: bool = True  # False: the step redid a recorded merge the rule would not make now

    @property
    def verdict(self) -> str:
        return judge(self.pick, self.pick_count, self.merged, self.count)


def reveal_lines(outcome: Outcome, shown: Callable[[Pair], str], tie_text: str | None = None) -> list[str]:
    """The reveal, sentence by sentence: the verdict, the merge and its count, the runner-up's
    count, and (tied) why the tie rule chose the merge."""
    merged, count = shown(outcome.merged), outcome.count
    verdict = outcome.verdict
    lines = []
    if verdict == "right":
        lines.append(_("Right: {pair} merges, {count} times.").format(pair=merged, count=count))
    elif verdict == "tied":
        lines.append(tie_text or _("Tied: right count, and the tie rule chose {pair}.").format(pair=merged))
    else:
        lines.append(_("Wrong: {pick} occurs {pick_count} times; {pair} merges, {count} times.").format(
            pick=shown(outcome.pick), pick_count=outcome.pick_count, pair=merged, count=count))
    if verdict == "tied":
        lines.append(_("The merge: {pair}, {count} times.").format(pair=merged, count=count))
    if outcome.runner_up is not None:
        pair, runner_count = outcome.runner_up
        lines.append(_("Runner-up: {pair}, {count} times.").format(pair=shown(pair), count=runner_count))
    else:
        lines.append(_("No runner-up: no other pair can merge now."))
    if outcome.tie_total > 1 and verdict == "right":
        lines.append(_("{n} pairs tied at {count}; the tie rule chose this one.").format(n=outcome.tie_total, count=count))
    if not outcome.by_rule:
        lines.append(_("This step redid a merge recorded earlier, not the tie rule's choice now."))
    return lines
