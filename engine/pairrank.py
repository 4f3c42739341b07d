"""Reading the best pairs off :class:`engine.pairstate.PairState`'s lazy queue: the top ``k`` in
tie-rule order, how many pairs share a count, and the next merge with its tie set.

Queue entries are plain ints (see the pair state's module doc): ``(_CMAX - count) << 40 | key``
under the lowest-ids rule, ``((_CMAX - count) << 40 | tie) << 40 | key`` under the wide rules.
"""

from __future__ import annotations

from collections import defaultdict
from heapq import heappop, heappush, heapreplace

from .pairviews import SHIFT

MASK = (1 << SHIFT) - 1
_M40 = (1 << 40) - 1
_CMAX = 1 << 50  # counts are stored as _CMAX - count so the min-heap yields the max count


class PairRanking:
    """The queue's read side, mixed into :class:`engine.pairstate.PairState`."""

    heap: list[int]
    count: dict[int, int]
    hist: defaultdict[int, int]
    min_count: int
    wide: bool

    def _settle(self) -> int | None:  # pragma: no cover - PairState's
        raise NotImplementedError

    def top(self, k: int) -> list[tuple[int, int, int]]:
        """The ``k`` best pairs in tie-rule order as ``(a, b, count)``; the queue is unchanged.

        Called by the app after every step, so the repair loop of :meth:`_settle` is inlined
        for the lowest-ids rule.
        """
        out: list[tuple[int, int, int]] = []
        taken: list[int] = []
        seen: set[int] = set()
        heap, count = self.heap, self.count
        cget = count.get
        floor = self.min_count
        while len(out) < k and heap:
            if self.wide:
                entry = self._settle()
                if entry is None:
                    break
                key = entry & _M40
                live = count[key]
            else:
                entry = heap[0]
                key = entry & _M40
                live = cget(key, 0)
                stored = _CMAX - (entry >> 40)
                if live < floor or live > stored:
                    heappop(heap)
                    continue
                if live != stored:
                    heapreplace(heap, (_CMAX - live) << 40 | key)
                    continue
            heappop(heap)
            taken.append(entry)
            if key not in seen:  # a pair may have two exact entries after an undo
                seen.add(key)
                out.append((key >> SHIFT, key & MASK, live))
        for entry in taken:
            heappush(heap, entry)
        return out

    def ties(self, count: int) -> int:
        """How many pairs currently have exactly this count."""
        return self.hist.get(count, 0)

    def choose(self, cap: int) -> tuple[int, int, int, tuple[tuple[int, int], ...], int] | None:
        """The next merge as ``(a, b, count, ties, total)``, or None when no pair is left.

        ``total`` is :meth:`ties` of the count; ``ties`` lists the first ``min(total, cap)``
        pairs of that count in tie-rule order (the chosen pair first): exactly
        ``tuple((x, y) for x, y, c in self.top(min(total, cap)) if c == count)``.

        Under lowest-ids the tie set is read without taking anything off the queue. Once the top
        entry is exact with count c, every entry stores a count of at most c, and every pair
        whose count is c has an entry storing c (entries are never pessimistic): the entries
        storing c form a subtree at the heap's root. A best-first walk of that subtree, a small
        side heap of (entry, index), meets them in queue order; entries whose pair's count has
        fallen since are stepped over (the queue repairs them when they reach the top).
        """
        entry = self._settle()
        if entry is None:
            return None
        key = entry & _M40
        count = self.count[key]
        a, b = key >> SHIFT, key & MASK
        total = self.hist.get(count, 0)
        if total <= 1:
            return a, b, count, ((a, b),), total
        k = total if total < cap else cap
        if k <= 1:
            return a, b, count, ((a, b),) if k == 1 else (), total
        if self.wide:
            return a, b, count, tuple((x, y) for x, y, c in self.top(k) if c == count), total
        heap = self.heap
        cget = self.count.get
        floor = self.min_count
        ties = [(a, b)]
        taken = [heappop(heap)]
        seen = {key}
        while heap:
            entry = heap[0]
            other = entry & _M40
            live = cget(other, 0)
            stored = _CMAX - (entry >> 40)
            if live < floor or live > stored:
                heappop(heap)
                continue
            if live != stored:
                heapreplace(heap, (_CMAX - live) << 40 | other)
                continue
            if live != count:
                break
            taken.append(heappop(heap))
            if other not in seen:
                seen.add(other)
                ties.append((other >> SHIFT, other & MASK))
                if len(ties) == k:
                    break
        for entry in taken:
            heappush(heap, entry)
        return a, b, count, tuple(ties), total
