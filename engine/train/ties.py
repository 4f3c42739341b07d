"""subword-nmt's tie rule: among pairs of the top count, the largest pair of token texts goes
first (``learn_bpe``'s ``max(stats, key=lambda x: (stats[x], x))``). The pair state orders its
queue by count then ids for it; the :class:`~engine.train.trainer.Trainer` reads the tied set and
orders it here, keeping the last set read so the next step tops it up instead of reading it again."""

from __future__ import annotations

from engine.encode.pairs import SHIFT
from engine.train.events import TIE_CAP, Merge
from engine.train.pair_state import MergeRecord, PairState


class TrainerTies:
    """Ties by the tokens' texts (a mixin of :class:`~engine.train.trainer.Trainer`, which sets these)."""

    _state: PairState
    _pieces: list[bytes]
    _history: list[tuple[Merge, MergeRecord | None]]
    _tied: tuple[int, list[tuple[tuple[bytes, bytes], tuple[int, int]]]] | None

    def _text_key(self, pair: tuple[int, int]) -> tuple[bytes, bytes]:
        return self._pieces[pair[0]], self._pieces[pair[1]]

    def _by_text_order(self, top: list[tuple[int, int, int]], k: int) -> list[tuple[int, int, int]]:
        """The ``k`` best pairs under subword-nmt's rule, from the ``k`` best by count then ids
        (``top``): every pair of the last count there is read, since any of them may rank first."""
        last = top[-1][2]
        if top[0][2] == last and self._state.ties(last) >= k:  # the top k are all tied: the set the step reads
            return [(a, b, last) for a, b in self._tie_set(last, self._state.ties(last))[:k]]
        above = sum(1 for _, _, c in top if c > last)
        every = self._state.top(above + self._state.ties(last))
        every.sort(key=lambda t: (t[2], self._text_key((t[0], t[1]))), reverse=True)
        return every[:k]

    def _largest_text(self, count: int, total: int) -> tuple[int, int, int, tuple[tuple[int, int], ...], int]:
        """subword-nmt's choice among the ``total`` pairs of the top ``count``: the largest pair
        of token texts (left part first), as ``learn_bpe``'s ``max(stats, key=lambda x:
        (stats[x], x))``; the tie set in that order."""
        tied = self._tie_set(count, total)
        a, b = tied[0]
        return a, b, count, tuple(tied[:TIE_CAP]), total

    def _tie_set(self, count: int, total: int) -> list[tuple[int, int]]:
        """The ``total`` pairs of ``count`` now, largest text first. The last set read is kept:
        its pairs that still have the count and the same texts (an id may name another token
        after an undo), with the new pairs the last merge made, are the set when there are
        ``total`` of them (each is tied, and no two are the same); else every tied pair is read
        off the queue again."""
        kept = self._tied
        tied = None
        if kept is not None and kept[0] == count:
            get, key = self._state.count.get, self._text_key
            tied = [(k, p) for k, p in kept[1] if get(p[0] << SHIFT | p[1]) == count and key(p) == k]
            if len(tied) < total:
                fresh = self._new_pairs(count, {p for _, p in tied})
                if fresh:
                    tied = sorted(tied + [(key(p), p) for p in fresh], reverse=True)
            if len(tied) != total:
                tied = None
        if tied is None:
            tied = sorted(((self._text_key((a, b)), (a, b)) for a, b, c in self._state.top(total) if c == count),
                          reverse=True)
        self._tied = (count, tied)
        return [p for _, p in tied]

    def _new_pairs(self, count: int, known: set[tuple[int, int]]) -> set[tuple[int, int]]:
        """The pairs of ``count`` beside the token the last merge made, not in ``known``."""
        if not self._history or self._history[-1][1] is None:
            return set()
        record = self._history[-1][1]
        data, new, get = self._state.data, record.new_id, self._state.count.get
        out = set()
        for p in record.plist:
            if data[p] != new:
                continue  # a stale entry, or an occurrence a neighbour took
            for pair in ((data[data[p + 2]], new), (new, data[data[p + 1]])):
                if pair not in known and get(pair[0] << SHIFT | pair[1]) == count:
                    out.add(pair)
        return out
