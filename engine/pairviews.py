"""The pair state's node layout constants, its merge records, and its read-only views: the corpus
as sequences, spans of tokens, frequencies, and a full recount that checks the incremental
counts (tests)."""

from __future__ import annotations

from array import array
from collections import defaultdict
from dataclasses import dataclass

SHIFT = 20
SEP = -2  # chunk separator
DEAD = -1  # a position absorbed by a merge


@dataclass(slots=True)
class MergeRecord:
    """What one merge changed: enough to undo it locally."""

    a: int
    b: int
    new_id: int
    count: int  # the pair's count before the merge
    removed: int  # corpus tokens removed (weighted)
    plist: array[int]  # the pair's occurrence list, restored on undo
    absorbed: array[int]  # the nodes absorbed, in merge order (each still links back to its p)


@dataclass(slots=True)
class StateCopy:
    """A pair state copied whole (see :meth:`PairViews.snapshot`): what a long jump restores.

    The occurrence lists are shared, not copied: once made, a list is never changed (merges
    make new ones, undo puts old ones back), so copying the dict that holds them is enough.
    """

    data: array
    count: dict[int, int]
    where: dict[int, array]
    heap: list[int]
    hist: dict[int, int]
    freq: list[int] | None
    tokens: int

    @property
    def cost(self) -> int:
        """What taking or restoring this copy costs (see :meth:`estimate`)."""
        return self.estimate(self.data, self.count, self.heap)

    @property
    def size(self) -> int:
        """Roughly the bytes it holds (see :meth:`bytes_of`)."""
        return self.bytes_of(self.data, self.count, self.heap)

    @staticmethod
    def bytes_of(data: array, count: dict[int, int], heap: list[int]) -> int:
        """Roughly the bytes a copy holds: the node array, two dict tables, the queue's entries."""
        return data.itemsize * len(data) + 100 * len(count) + 40 * len(heap)

    @staticmethod
    def estimate(data: array, count: dict[int, int], heap: list[int]) -> int:
        """What restoring it takes, in the units of ``engine.checkpoints.WORK_PER_MERGE``
        (calibrated with ``tests/bench/bench_undo.py``: a node is copied back ~500x faster than
        an undo moves one, since it goes into the array in use; a pair ~30x, a queue entry
        ~100x). Taking a copy costs about twice as much (fresh memory)."""
        return len(data) // 2048 + len(count) // 30 + len(heap) // 100


class PairViews:
    """Views over :class:`engine.pairstate.PairState`'s node array (see its module doc)."""

    data: array
    starts: array
    count: dict[int, int]
    where: dict[int, array]
    heap: list[int]
    hist: defaultdict[int, int]
    tokens: int
    min_count: int
    _freq: list[int] | None

    def snapshot(self, into: array | None = None) -> StateCopy:
        """A copy of everything a merge or undo changes (C-speed copies, no Python loop).

        ``into``: a node array to copy the nodes into (a dropped copy's), sparing a fresh
        allocation's page faults."""
        if into is not None and len(into) == len(self.data):
            into[:] = self.data
            data = into
        else:
            data = self.data[:]
        freq = self._freq[:] if self._freq is not None else None
        return StateCopy(data, self.count.copy(), self.where.copy(), self.heap[:], dict(self.hist), freq, self.tokens)

    def restore(self, copy: StateCopy) -> None:
        """Become the state ``copy`` was taken from (the copy stays usable for next time).

        The node array is copied into the one in use (nodes are never added, so lengths match):
        a fresh 60 MB array would cost more in page faults than the copy itself."""
        self.data[:] = copy.data
        self.count = copy.count.copy()
        self.where = copy.where.copy()
        self.heap = copy.heap[:]
        self.hist = defaultdict(int, copy.hist)
        self._freq = copy.freq[:] if copy.freq is not None else None
        self.tokens = copy.tokens

    def frequencies(self) -> list[int]:
        """Weighted occurrences of every token id in the corpus now (counted once, then kept
        up to date by each merge and undo)."""
        if self._freq is None:
            data = self.data
            freq: defaultdict[int, int] = defaultdict(int)
            for s, wt in zip(data[0::4], data[3::4]):
                if s >= 0:
                    freq[s] += wt
            size = max(freq, default=-1) + 1
            self._freq = [freq.get(i, 0) for i in range(size)]
        return self._freq

    def chunk_spans(self, uid: int, lo: int, hi: int) -> list[tuple[int, int, int]]:
        """Tokens of distinct chunk ``uid`` that overlap base units [lo, hi) of the chunk, as
        (token id, start, end) relative to the chunk's start.

        A live node is the leftmost base unit of its token, so node addresses give offsets; an
        absorbed node's back link leads to the node that absorbed it, so any unit finds its
        token in a few hops.
        """
        data = self.data
        start = self.starts[uid]
        node = start + 4 * lo
        while data[node] == DEAD:
            node = data[node + 2]
        out: list[tuple[int, int, int]] = []
        while True:
            s = data[node]
            if s == SEP:
                break
            off = (node - start) >> 2
            if off >= hi:
                break
            after = data[node + 1]
            out.append((s, off, (after - start) >> 2))
            node = after
        return out

    def sequences(self) -> list[tuple[int, ...]]:
        """The current symbols of every distinct chunk, in layout order."""
        out: list[tuple[int, ...]] = []
        data = self.data
        end = len(data) - 4
        p = 0
        while p < end:
            seq = []
            p = data[p + 1]
            while data[p] != SEP:
                seq.append(data[p])
                p = data[p + 1]
            out.append(tuple(seq))
        return out

    def pair_counts(self) -> dict[tuple[int, int], int]:
        """Every pair present now with its weighted count, counted afresh from the sequences."""
        data = self.data
        out: dict[tuple[int, int], int] = {}
        end = len(data) - 4
        p = 0
        while p < end:
            p = data[p + 1]
            weight = data[p + 3]
            prev = data[p]
            p = data[p + 1]
            while data[p] != SEP:
                pair = (prev, data[p])
                out[pair] = out.get(pair, 0) + weight
                prev = data[p]
                p = data[p + 1]
        return out

    def verify(self) -> None:
        """Check the incremental counts against a fresh count (for tests); raise if they differ."""
        exact = {a << SHIFT | b: c for (a, b), c in self.pair_counts().items()}
        kept = {k: c for k, c in self.count.items() if c}
        expected = {k: c for k, c in exact.items() if k in kept or c >= self.min_count}
        if kept != expected:
            raise AssertionError("incremental pair counts differ from a fresh count")
        hist = {c: n for c, n in self.hist.items() if n}
        fresh: dict[int, int] = {}
        for c in kept.values():
            fresh[c] = fresh.get(c, 0) + 1
        if hist != fresh:
            raise AssertionError("count histogram out of step")
        if self.tokens != self._token_total():
            raise AssertionError("corpus token count out of step")

    def _token_total(self) -> int:
        data = self.data
        return sum(data[p + 3] for p in range(0, len(data), 4) if data[p] >= 0)
