"""Rank-based encoding of one chunk: the earliest-learned merge present fires first (seed 000).

Two paths give identical results: a direct loop for short chunks, and for long ones (pre-tokenizer
``none`` makes a whole text one chunk) a heap over (rank, position) on a linked list, O(n log n).
Merging the leftmost lowest-rank pair one at a time equals the seeds' "merge every occurrence left
to right" because a merge never creates a pair of lower rank than its own.
"""

from __future__ import annotations

from heapq import heapify, heappop, heappush

from ._pairs import SHIFT

#: Chunks longer than this use the heap path.
LONG_CHUNK = 64


def apply_merges(ids: list[int], ranks: dict[int, int]) -> list[int]:
    """Encode one chunk's base ids; ``ranks`` maps ``a << SHIFT | b`` to the id the merge made.

    Example: with ranks {(1,2)->4, (4,3)->5}: ``apply_merges([1, 2, 3, 1, 2], ranks) -> [5, 4]``
    """
    if len(ids) > LONG_CHUNK:
        return _apply_long(ids, ranks)
    return _apply_short(list(ids), ranks)


def _apply_short(ids: list[int], ranks: dict[int, int]) -> list[int]:
    get = ranks.get
    while len(ids) > 1:
        best = None
        at = 0
        prev = ids[0]
        for i in range(1, len(ids)):
            cur = ids[i]
            r = get(prev << SHIFT | cur)
            if r is not None and (best is None or r < best):
                best = r
                at = i - 1
            prev = cur
        if best is None:
            break
        ids[at : at + 2] = (best,)
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
