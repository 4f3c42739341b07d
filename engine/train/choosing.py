"""Choosing the next merge: every way a step picks its pair, behind one protocol.

A BPE trainer repeats one move: take the most frequent pair of adjacent tokens and merge it.
What "the most frequent" means when several pairs share the top count is the *tie rule*, and
each library has its own. Where the pair comes from at all can change too: a replay does not
choose, it follows a tokenizer file's merges in order. This module holds every one of those
answers, and they all answer the same question the same way::

    chooser.choose()        -> Choice(pair, count, ties, tie_total), or Stop(reason)
    chooser.candidates(k)   -> the k best pairs in the order the rule ranks them

The :class:`~engine.train.trainer.Trainer` asks its chooser once a step and never looks inside.

The choosers:

- :class:`RuleChooser`: the tie rules the pair state orders its queue by (``lowest-ids``,
  ``first-seen``, ``hf``; see :meth:`engine.train.pair_state.PairState.choose`). The queue
  answers directly: its top entry is the choice and the entries after it of the same count
  are the tie set.
- :class:`TextTieChooser`: subword-nmt's rule, which breaks ties by the tokens' *texts*
  (``learn_bpe``'s ``max(stats, key=lambda x: (stats[x], x))``): the largest pair of byte
  strings, left part first. Texts are not in the queue's order, so the state orders the queue
  by count then ids, and this chooser reads every pair of the top count and sorts them. It
  keeps the last tie set it read: the next step checks it and tops it up with the pairs the
  last merge made instead of reading the whole set again.
- :class:`ScriptChooser`: a replay (see :mod:`engine.train.replay`). Step k's choice is the
  script's merge k, whatever its count in this corpus; its candidates are still the rule's,
  so the app can show how the file's choice compares with what training would pick.

Example::

    state = PairState([([1, 2, 1, 2], 1)], "lowest-ids")
    RuleChooser(state, min_frequency=1).choose()
    # Choice(pair=(1, 2), count=2, ties=((1, 2),), tie_total=1)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, Protocol

from engine.encode.pairs import SHIFT
from engine.train.events import TIE_CAP, Candidate
from engine.train.pair_state import PairState
from engine.train.pair_views import MergeRecord


class Choice(NamedTuple):
    """The pair the next merge joins, and how it was chosen.

    ``count`` is its weighted count now; ``ties`` the pairs that share that count (the chosen
    one first, in the rule's order, at most :data:`~engine.train.events.TIE_CAP`) and
    ``tie_total`` how many there are in all (0 when a replay's pair does not occur here).
    A NamedTuple: one is made every step.
    """

    pair: tuple[int, int]
    count: int  # type: ignore[assignment]  # a field named like tuple.count, which it hides
    ties: tuple[tuple[int, int], ...]
    tie_total: int


class Stop(NamedTuple):
    """No choice: training stops here, for ``reason`` (the Trainer's ``stop_reason``:
    ``no-pairs``, ``min-frequency`` or ``replay-end``)."""

    reason: str


class Chooser(Protocol):
    """How a step picks its pair. The Trainer holds one and asks it once a step."""

    def choose(self) -> Choice | Stop:
        """The next merge, or why there is none."""
        ...

    def candidates(self, k: int) -> list[Candidate]:
        """The ``k`` best pairs for the next merge, in the order the rule ranks them."""
        ...


class Line(Protocol):
    """What a chooser may read of the line of merges (the Trainer's timeline, read only)."""

    @property
    def steps(self) -> int:
        """How many merges are applied now."""
        ...

    @property
    def pieces(self) -> Sequence[bytes]:
        """The bytes of every token now, by id."""
        ...

    @property
    def last_record(self) -> MergeRecord | None:
        """What the latest merge changed (None at step 0 or without undo records)."""
        ...


class RuleChooser:
    """The tie rules the pair state's queue is ordered by: ``lowest-ids``, ``first-seen``, ``hf``
    (and count then ids, the order :class:`TextTieChooser` starts from)."""

    def __init__(self, state: PairState, min_frequency: int) -> None:
        self.state = state
        self.min_frequency = min_frequency

    def choose(self) -> Choice | Stop:
        """The queue's top pair with its tie set, unless no pair is left or the best is rarer
        than ``min_frequency``."""
        chosen = self.state.choose(TIE_CAP)
        if chosen is None:
            return Stop("no-pairs")
        a, b, count, ties, total = chosen
        if count < self.min_frequency:
            return Stop("min-frequency")
        return Choice((a, b), count, ties, total)

    def candidates(self, k: int) -> list[Candidate]:
        """The queue's first ``k`` pairs."""
        return [Candidate((a, b), c) for a, b, c in self.state.top(k)]


#: A tie set as :class:`TextTieChooser` keeps it: ``(text key, pair)`` entries, best first.
Keyed = list[tuple[tuple[bytes, bytes], tuple[int, int]]]


class TextTieChooser:
    """subword-nmt's rule: among the pairs of the top count, the largest pair of token texts.

    Its own state is the last tie set it read (``last_tie_set``: the count and its keyed pairs),
    which the next step checks and tops up (see :meth:`tie_set`)."""

    def __init__(self, state: PairState, min_frequency: int, line: Line) -> None:
        self.state = state
        self.by_count = RuleChooser(state, min_frequency)
        self.line = line
        self.last_tie_set: tuple[int, Keyed] | None = None

    def text_key(self, pair: tuple[int, int]) -> tuple[bytes, bytes]:
        """The pair as subword-nmt compares pairs: its tokens' bytes, left first."""
        pieces = self.line.pieces
        return pieces[pair[0]], pieces[pair[1]]

    def choose(self) -> Choice | Stop:
        """The queue's top count (count then ids), and among its pairs the largest by text."""
        chosen = self.by_count.choose()
        if isinstance(chosen, Stop) or chosen.tie_total <= 1:
            return chosen
        tied = self.tie_set(chosen.count, chosen.tie_total)
        return Choice(tied[0], chosen.count, tuple(tied[:TIE_CAP]), chosen.tie_total)

    def candidates(self, k: int) -> list[Candidate]:
        """The ``k`` best pairs under subword-nmt's rule, from the ``k`` best by count then ids:
        every pair of the last count there is read, since any of them may rank first."""
        state = self.state
        top = state.top(k)
        if not top:
            return []
        last = top[-1][2]
        if top[0][2] == last and state.ties(last) >= k:  # the top k are all tied: the set a step reads
            return [Candidate(pair, last) for pair in self.tie_set(last, state.ties(last))[:k]]
        above = sum(1 for _, _, c in top if c > last)
        every = state.top(above + state.ties(last))
        every.sort(key=lambda t: (t[2], self.text_key((t[0], t[1]))), reverse=True)
        return [Candidate((a, b), c) for a, b, c in every[:k]]

    def tie_set(self, count: int, total: int) -> list[tuple[int, int]]:
        """The ``total`` pairs of ``count`` now, largest text first. The last set read is kept:
        its pairs that still have the count and the same texts (an id may name another token
        after an undo), with the new pairs the last merge made, are the set when there are
        ``total`` of them (each is tied, and no two are the same); else every tied pair is read
        off the queue again."""
        kept = self.last_tie_set
        tied: Keyed | None = None
        if kept is not None and kept[0] == count:
            get, key = self.state.count.get, self.text_key
            tied = [(k, p) for k, p in kept[1] if get(p[0] << SHIFT | p[1]) == count and key(p) == k]
            if len(tied) < total:
                fresh = self.new_pairs(count, {p for _, p in tied})
                if fresh:
                    tied = sorted(tied + [(key(p), p) for p in fresh], reverse=True)
            if len(tied) != total:
                tied = None
        if tied is None:
            tied = sorted(((self.text_key((a, b)), (a, b)) for a, b, c in self.state.top(total) if c == count),
                          reverse=True)
        self.last_tie_set = (count, tied)
        return [p for _, p in tied]

    def new_pairs(self, count: int, known: set[tuple[int, int]]) -> set[tuple[int, int]]:
        """The pairs of ``count`` beside the token the last merge made, not in ``known``."""
        record = self.line.last_record
        if record is None:
            return set()
        data, new, get = self.state.data, record.new_id, self.state.count.get
        out = set()
        for p in record.plist:
            if data[p] != new:
                continue  # a stale entry, or an occurrence a neighbour took
            for pair in ((data[data[p + 2]], new), (new, data[data[p + 1]])):
                if pair not in known and get(pair[0] << SHIFT | pair[1]) == count:
                    out.add(pair)
        return out


class ScriptChooser:
    """A replay's steps: step k makes the script's merge k (a tokenizer file's merges, in
    order), whatever its count is in this corpus. Candidates are the tie rule's (``ranking``)."""

    def __init__(self, script: Sequence[tuple[int, int]], state: PairState, line: Line, ranking: Chooser) -> None:
        # the pairs themselves, not copies: a 200k-merge file's script is ready in milliseconds
        self.script: list[tuple[int, int]] = list(map(tuple, script))  # type: ignore[arg-type]
        self.state = state
        self.line = line
        self.ranking = ranking

    def choose(self) -> Choice | Stop:
        """The script's next merge with its count here (and, as its tie total, how many pairs
        share that count; 0 when the pair does not occur)."""
        steps = self.line.steps
        if steps >= len(self.script):
            return Stop("replay-end")
        a, b = self.script[steps]
        count = self.state.count.get(a << SHIFT | b, 0)
        return Choice((a, b), count, ((a, b),), self.state.ties(count) if count else 0)

    def candidates(self, k: int) -> list[Candidate]:
        """What the tie rule would rank first now (the script follows its file, not these)."""
        return self.ranking.candidates(k)

    def upcoming(self, redo: tuple[int, int] | None) -> tuple[tuple[int, int], int, int] | None:
        """The merge the next step makes (``redo``, an undone merge's pair, when there is one),
        as ``(pair, count here, rank by count)``: the rank is 1 + how many pairs occur more
        often now (one pass over the distinct counts, never the corpus). None once every merge
        is made."""
        if redo is not None:
            pair = redo
        elif self.line.steps < len(self.script):
            pair = self.script[self.line.steps]
        else:
            return None
        a, b = pair
        count = self.state.count.get(a << SHIFT | b, 0)
        above = sum(n for c, n in self.state.hist.items() if c > count)
        return (a, b), count, above + 1


def chooser_for(rule: str, state: PairState, min_frequency: int, line: Line,
                script: Sequence[tuple[int, int]] | None = None) -> Chooser:
    """The chooser of a tie rule (``subword-nmt``: by texts; any other: the state's queue),
    or of a replay's ``script``, which follows it and ranks candidates by the rule."""
    ranking: Chooser = (TextTieChooser(state, min_frequency, line) if rule == "subword-nmt"
                        else RuleChooser(state, min_frequency))
    if script is None:
        return ranking
    return ScriptChooser(script, state, line, ranking)

