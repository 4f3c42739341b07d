"""The pair state's node layout constants, its merge records and copies, and read-only views of
its node array (see :mod:`engine.train.pair_state` for the layout): the corpus as sequences, spans of
tokens, token frequencies, and a full recount of the pairs that checks the incremental counts.

The views are plain functions of the node array: :class:`engine.train.pair_state.PairState` calls them.
"""

from __future__ import annotations

from array import array
from collections import defaultdict
from collections.abc import Collection, Sized
from dataclasses import dataclass

from engine.encode.pairs import SHIFT

SEP = -2  # chunk separator
DEAD = -1  # a position absorbed by a merge


@dataclass(slots=True)
class MergeRecord:
    """What one merge changed: enough to undo it locally.

    The pair's occurrence list and the nodes absorbed share one array (``nodes``: the list,
    then the absorbed nodes; ``split``: where they meet). The undo log does not keep records as
    such: the event log (:mod:`engine.train.event_log`) keeps their numbers and pools their
    nodes, and makes a record again for an undo."""

    a: int
    b: int
    new_id: int
    count: int  # the pair's count before the merge
    removed: int  # corpus tokens removed (weighted)
    nodes: array[int]  # plist + absorbed
    split: int  # len(plist)

    @property
    def plist(self) -> array[int]:
        """The pair's occurrence list, restored on undo (a copy)."""
        return self.nodes[:self.split]

    @property
    def absorbed(self) -> array[int]:
        """The nodes absorbed, in merge order (each still links back to its p; a copy)."""
        return self.nodes[self.split:]

    @property
    def moved(self) -> int:
        """How many nodes the merge absorbed: ``len(self.absorbed)``."""
        return len(self.nodes) - self.split


@dataclass(slots=True)
class StateCopy:
    """A pair state copied whole (see :meth:`engine.train.pair_state.PairState.snapshot`): what a long jump restores.

    The occurrence lists are shared, not copied: once made, a list is never changed (merges
    make new ones, undo puts old ones back), so copying the dict that holds them is enough.
    """

    data: array
    count: dict[int, int]  # a dict, or the compiled core's Counts (a dict's interface)
    where: dict[int, array]
    heap: Collection[int]  # a list heap, or the compiled core's Queue (lowest-ids)
    hist: dict[int, int]
    freq: list[int] | None
    tokens: int
    #: Only the nodes are kept (``count``, ``where`` and ``heap`` empty): a restore makes the
    #: index again from them (step 0's copy under a memory bound: see PairState.snapshot).
    lean: bool = False

    @property
    def cost(self) -> int:
        """What restoring this copy costs (see :meth:`estimate`; a lean copy's restore makes
        the index again: tang_all's 1.5 million nodes in 0.07 s compiled, 1 s pure)."""
        cost = self.estimate(self.data, self.count, self.heap)
        return cost + len(self.data) // 32 if self.lean else cost

    @property
    def size(self) -> int:
        """Roughly the bytes it holds (see :meth:`bytes_of`)."""
        return self.bytes_of(self.data, self.count, self.heap)

    @staticmethod
    def bytes_of(data: array, count: Sized, heap: Sized) -> int:
        """Roughly the bytes a copy holds: the node array, two dict tables, the queue's entries."""
        return data.itemsize * len(data) + 100 * len(count) + 40 * len(heap)

    @staticmethod
    def estimate(data: array, count: Sized, heap: Sized) -> int:
        """What restoring it takes, in the units of ``engine.train.checkpoints.WORK_PER_MERGE``
        (calibrated with ``tests/bench/bench_undo.py``, ratios in docs/benchmarks.md: a node is
        copied back far faster than an undo moves one, since it goes into the array in use; a
        pair and a queue entry less so). Taking a copy costs more (fresh memory)."""
        return len(data) // 2048 + len(count) // 30 + len(heap) // 100


def token_frequencies(data: array) -> list[int]:
    """Weighted occurrences of every token id in the node array (index = id), counted afresh."""
    freq: defaultdict[int, int] = defaultdict(int)
    for s, wt in zip(data[0::4], data[3::4]):
        if s >= 0:
            freq[s] += wt
    size = max(freq, default=-1) + 1
    return [freq.get(i, 0) for i in range(size)]


def chunk_spans(data: array, starts: array, uid: int, lo: int, hi: int) -> list[tuple[int, int, int]]:
    """Tokens of distinct chunk ``uid`` that overlap base units [lo, hi) of the chunk, as
    (token id, start, end) relative to the chunk's start.

    A live node is the leftmost base unit of its token, so node addresses give offsets; an
    absorbed node's back link leads to the node that absorbed it, so any unit finds its
    token in a few hops.
    """
    start = starts[uid]
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


def sequences(data: array) -> list[tuple[int, ...]]:
    """The current symbols of every distinct chunk, in layout order."""
    out: list[tuple[int, ...]] = []
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


def pair_counts(data: array) -> dict[tuple[int, int], int]:
    """Every pair present now with its weighted count, counted afresh from the sequences."""
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


def verify(data: array, count: dict[int, int], hist: dict[int, int], tokens: int, min_count: int) -> None:
    """Check a pair state's incremental counts against a fresh count of its node array (for
    tests); raise ``AssertionError`` if they differ."""
    exact = {a << SHIFT | b: c for (a, b), c in pair_counts(data).items()}
    kept = {k: c for k, c in count.items() if c}
    expected = {k: c for k, c in exact.items() if k in kept or c >= min_count}
    if kept != expected:
        raise AssertionError("incremental pair counts differ from a fresh count")
    hist = {c: n for c, n in hist.items() if n}
    fresh: dict[int, int] = {}
    for c in kept.values():
        fresh[c] = fresh.get(c, 0) + 1
    if hist != fresh:
        raise AssertionError("count histogram out of step")
    if tokens != sum(data[p + 3] for p in range(0, len(data), 4) if data[p] >= 0):
        raise AssertionError("corpus token count out of step")
