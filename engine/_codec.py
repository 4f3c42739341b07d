"""Rank-based encoding of one chunk: the earliest-learned merge present fires first (seed 000).

Two paths give identical results (and the compiled core, :mod:`engine._core`, a third):

- short chunks (most of them): a list of the chunk's ids and a list of its pairs' ranks, built
  with C-level maps; each step finds the lowest rank with the C-level ``min`` and
  ``list.index`` (the leftmost), merges there and looks up only the two pairs beside it. The
  Python work is constant per merge; the C-level scans are over a few dozen ints.
- long chunks (pre-tokenizer ``none`` makes a whole text one chunk): a heap of candidate merges,
  ``rank << 32 | position``, over a linked list of parts, as HuggingFace's ``Word.merge_all``
  does, O(n log n).

Merging the leftmost lowest-rank pair one at a time equals the seeds' "merge every occurrence left
to right" because a merge never creates a pair of lower rank than its own.
"""

from __future__ import annotations

from heapq import heapify, heappop, heappush
from itertools import repeat
from operator import lshift, or_

from ._pairs import SHIFT

#: Chunks longer than this use the heap path (below it the list scans, all C-level, cost less
#: than the heap's Python-level pushes and pops; docs/benchmarks.md has the crossing point).
LONG_CHUNK = 16
#: The rank of a pair no merge covers: above every real one.
_NO_RANK = 1 << 62


def apply_merges(ids: list[int], ranks: dict[int, int]) -> list[int]:
    """Encode one chunk's base ids; ``ranks`` maps ``a << SHIFT | b`` to the id the merge made.
    ``ids`` is not changed.

    Example: with ranks {(1,2)->4, (4,3)->5}: ``apply_merges([1, 2, 3, 1, 2], ranks) -> [5, 4]``
    """
    if len(ids) > LONG_CHUNK:
        return _apply_long(ids, ranks)
    return _apply_short(list(ids), ranks)


def _apply_short(ids: list[int], ranks: dict[int, int]) -> list[int]:
    """The list-scan path (see the module doc); changes and returns ``ids``."""
    if len(ids) < 2:
        return ids
    get = ranks.get
    none = _NO_RANK
    pair_ranks = list(map(get, map(or_, map(lshift, ids[:-1], repeat(SHIFT)), ids[1:]), repeat(none)))
    lowest, index = min, pair_ranks.index
    while True:
        r = lowest(pair_ranks)
        if r == none:
            return ids
        i = index(r)  # the leftmost pair of that rank
        del ids[i + 1]
        del pair_ranks[i]
        ids[i] = r
        if i:
            pair_ranks[i - 1] = get(ids[i - 1] << SHIFT | r, none)
        if i < len(pair_ranks):
            pair_ranks[i] = get(r << SHIFT | ids[i + 1], none)
        elif not pair_ranks:
            return ids


def _apply_long(ids: list[int], ranks: dict[int, int]) -> list[int]:
    """Heap of packed ``rank << 32 | position`` ints over a linked list (see the module doc)."""
    get = ranks.get
    n = len(ids)
    sym = list(ids)
    nxt = list(range(1, n + 1))
    prv = list(range(-1, n - 1))
    heap = []
    push = heap.append
    prev = sym[0] if n else 0
    for i in range(1, n):
        cur = sym[i]
        r = get(prev << SHIFT | cur)
        if r is not None:
            push(r << 32 | (i - 1))
        prev = cur
    heapify(heap)
    mask = (1 << 32) - 1
    while heap:
        entry = heappop(heap)
        i = entry & mask
        a = sym[i]
        if a < 0:
            continue
        j = nxt[i]
        r = entry >> 32
        if j >= n or get(a << SHIFT | sym[j]) != r:
            continue  # stale: a neighbour merged since this entry was pushed
        sym[i] = r
        sym[j] = -1
        k = nxt[j]
        nxt[i] = k
        if k < n:
            prv[k] = i
            rr = get(r << SHIFT | sym[k])
            if rr is not None:
                heappush(heap, rr << 32 | i)
        o = prv[i]
        if o >= 0:
            rr = get(sym[o] << SHIFT | r)
            if rr is not None:
                heappush(heap, rr << 32 | o)
    return [s for s in sym if s >= 0]
