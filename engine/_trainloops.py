"""The trainer's hot loops in pure Python: the reference for the compiled core's twins
(``engine/_ccore.pyx``); :mod:`engine._core` picks one or the other. The node layout is
:mod:`engine._pairstate`'s."""

from __future__ import annotations

from array import array
from collections import defaultdict
from functools import partial

from ._pairs import SHIFT
from ._pairviews import DEAD, SEP

_nodes = partial(array, "i")


def index_pairs(sym: list[int], weights: list[int]) -> tuple[dict[int, int], dict[int, array[int]]]:
    """The first pair index of a layout (symbols, ``SEP`` between chunks, and each node's
    weight): {pair key: weighted count} and {pair key: ascending addresses of its left nodes},
    both in order of first occurrence."""
    count: defaultdict[int, int] = defaultdict(int)
    where: defaultdict[int, array[int]] = defaultdict(_nodes)
    prev = SEP
    address = -4
    for s, wt in zip(sym, weights):
        if prev >= 0 and s >= 0:
            key = prev << SHIFT | s
            count[key] += wt
            where[key].append(address)
        prev = s
        address += 4
    return dict(count), dict(where)


def relink(data: array[int], plist: array[int], a: int, b: int, new_id: int) -> tuple[
        dict[int, array[int]], dict[int, array[int]], dict[int, int], dict[int, int], int, array[int]]:
    """The merge loop of :meth:`engine._pairstate.PairState.merge`: replace each live (a, b) at the addresses
    ``plist`` by ``new_id``, left to right, relinking the nodes. Returns ``(left, right, lx, rx,
    extra, absorbed)``: the merged nodes grouped by their neighbours' symbols (left symbol -> the
    left neighbours' addresses, right symbol -> the merged nodes' addresses, both ascending, in
    order of first appearance), the extra weight of each group (chunks that occur more than
    once; a group without any is left out), the extra weight in all, and the absorbed nodes
    (each keeps its back link to its p: undo finds p there)."""
    left: defaultdict[int, array[int]] = defaultdict(_nodes)
    right: defaultdict[int, array[int]] = defaultdict(_nodes)
    lx: dict[int, int] = {}
    rx: dict[int, int] = {}
    extra = 0
    absorbed = _nodes()
    push = absorbed.append
    for p in plist:
        if data[p] != a:
            continue
        q = data[p + 1]
        if data[q] != b:
            continue
        o = data[p + 2]
        r = data[q + 1]
        so = data[o]
        sr = data[r]
        data[p] = new_id
        data[q] = DEAD
        data[p + 1] = r
        data[r + 2] = p
        if so >= 0:
            left[so].append(o)
        if sr >= 0:
            right[sr].append(p)
        if data[p + 3] != 1:  # a chunk that occurs more than once
            more = data[p + 3] - 1
            extra += more
            if so >= 0:
                lx[so] = lx.get(so, 0) + more
            if sr >= 0:
                rx[sr] = rx.get(sr, 0) + more
        push(q)
    return left, right, lx, rx, extra, absorbed
