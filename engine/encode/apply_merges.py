"""Rank-based encoding of one chunk: the earliest-learned merge present fires first (seed 000).

A merge's rank is the id it makes (merges are numbered in the order they were learned), so the
merge to apply next is the pair of the chunk with the lowest rank, the leftmost of equal ones.
Merging it, then looking again, equals the seeds' "apply each merge everywhere, left to right,
in learned order" (:func:`engine.encode.reference.encode`) because a merge never creates a pair
of lower rank than its own. Two ways to find that pair, with the same ids:

- short chunks (most of them): a list of the chunk's ids and a list of its pairs' ranks; each
  step takes the lowest rank (``min``, then ``list.index`` for the leftmost), merges there and
  looks up only the two pairs beside it.
- long chunks (pre-tokenizer ``none`` makes a whole text one chunk): a lazy queue of candidate
  merges, ``rank << 32 | position``, over a linked list of positions, as HuggingFace's
  ``Word.merge_all`` does, O(n log n); an entry whose pair has changed since it was pushed is
  dropped when it comes out.

This is the pure path's merger, and the reference for the compiled core's ``ChunkEncoder``
(:mod:`engine.native.door`), which also merges Chinese character by character first
(:mod:`engine.native.borders`).
"""

from __future__ import annotations

from heapq import heapify, heappop, heappush

from engine.encode.pairs import SHIFT

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
    get = ranks.get
    pair_ranks = [get(a << SHIFT | b, _NO_RANK) for a, b in zip(ids, ids[1:])]
    while pair_ranks:
        r = min(pair_ranks)
        if r == _NO_RANK:
            break
        i = pair_ranks.index(r)  # the leftmost pair of that rank: it becomes token r
        ids[i] = r
        del ids[i + 1]
        del pair_ranks[i]
        if i:
            pair_ranks[i - 1] = get(ids[i - 1] << SHIFT | r, _NO_RANK)
        if i < len(pair_ranks):
            pair_ranks[i] = get(r << SHIFT | ids[i + 1], _NO_RANK)
    return ids


def _apply_long(ids: list[int], ranks: dict[int, int]) -> list[int]:
    """Heap of packed ``rank << 32 | position`` ints over a linked list (see the module doc)."""
    get = ranks.get
    n = len(ids)
    sym = list(ids)
    nxt = list(range(1, n + 1))
    prv = list(range(-1, n - 1))
    heap: list[int] = []
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
