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
#: How many pairs of the top count choose reads ahead (lowest-ids): the next steps' tie sets.
FRONT = 16


class PairRanking:
    """The queue's read side, mixed into :class:`engine.pairstate.PairState`."""

    heap: list[int]
    count: dict[int, int]
    hist: defaultdict[int, int]
    min_count: int
    wide: bool
    _front: list | None

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

        Under lowest-ids the tie set is read from :attr:`_front` (see :meth:`_read_front`),
        which is read off the queue again only when it runs short.
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
        front = self._front
        if front is not None and front[0] is self.heap and front[1] == entry >> 40:
            cget = self.count.get
            ahead = front[2]
            ties = []
            gone = 0
            for e in ahead:
                other = e & _M40
                if cget(other) == count:
                    ties.append((other >> SHIFT, other & MASK))
                    if len(ties) == k:
                        break
                elif not ties:
                    gone += 1
            if gone:
                del ahead[:gone]
            if len(ties) == k and ties[0] == (a, b):
                return a, b, count, tuple(ties), total
        ties = self._read_front(entry, count, k)
        return a, b, count, ties, total

    def _read_front(self, entry: int, count: int, k: int) -> tuple[tuple[int, int], ...]:
        """Read the first pairs of the top count off the queue (lowest-ids) and keep them as
        :attr:`_front`; returns the first ``k`` of them.

        The front is ``[heap, field, entries, bound]``: for the heap list it was read from and
        the top count's field (``entry >> 40``), the exact entries of that count in queue order
        as they were then, and a bound such that every entry of that count at or below it is in
        the list. It stays true as training goes on: entries of the top count only leave the
        queue at its top, and the only ones added are the pairs a merge makes (no more frequent
        than the pair merged), which merge inserts when at or below the bound. An undo may push
        anything: it drops the front; a restored state has another heap list. Entries whose
        pair's count has fallen since are stepped over (and dropped once at the head).
        """
        heap = self.heap
        cget = self.count.get
        floor = self.min_count
        want = k if k > FRONT else FRONT
        taken = [heappop(heap)]
        key = entry & _M40
        seen = {key}
        ahead = [entry]
        ties = [(key >> SHIFT, key & MASK)]
        complete = True
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
                ahead.append(entry)
                if len(ties) < k:
                    ties.append((other >> SHIFT, other & MASK))
                if len(ahead) == want:
                    complete = False
                    break
        for entry in taken:
            heappush(heap, entry)
        field = ahead[0] >> 40
        self._front = [heap, field, ahead, ((field + 1) << 40) - 1 if complete else ahead[-1]]
        return tuple(ties)
