"""The trainer's hot loops in pure Python: the reference for the compiled core's twins
(``engine/native/train.pxi``, ``layout.pxi``); :mod:`engine.native.door` picks one or the other. The node layout
is :mod:`engine.train.pair_state`'s.

- :func:`layout`: the node array of the distinct chunks, each followed by a separator;
  :func:`layout_chars` that of the chars base's chunks as they are counted (strings), with
  their alphabet;
- :func:`index_pairs`: the first pair index, each pair's count and the addresses where it occurs;
- :func:`merge`: one merge, in two halves: :func:`relink` replaces each live occurrence and
  relinks its nodes, :func:`account` moves the counts of the pairs around them and queues the
  new ones.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Callable, Sequence
from functools import partial
from heapq import heappush
from itertools import accumulate, chain, compress, repeat
from operator import add, mul, ne

from engine.encode.pairs import MASK, SHIFT
from engine.train.pair_views import DEAD, SEP

_nodes = partial(array, "i")
#: engine.train.pair_state._CMAX: counts are queued as CMAX - count (a min-heap yields the largest).
CMAX = 1 << 50


def layout(pairs: list[tuple[Sequence[int], int]]) -> tuple[array[int], array[int], int]:
    """The pair state's node array for ``pairs`` (non-empty symbol lists, or bytes: their bytes
    are the symbols; each with its weight):
    ``(data, starts, tokens)``: SEP, then each chunk's symbols and a SEP, each node linked to
    its neighbours and weighing its chunk's count (the separators too); the address of each
    chunk's first node; the weighted number of symbols. The array is 32-bit unless a weight or
    an address needs 64 (:func:`node_typecode`). Built field by field, each in one slice
    assignment: the symbols, the links (node i links to 4i + 4 and back to 4i - 4), the weights.

    Example: ``list(layout([(b"ab", 3)])[0])`` is ``[SEP, 4, -4, 0,  97, 8, 0, 3,  98, 12, 4, 3,
    SEP, 16, 8, 3]``."""
    seqs = [seq for seq, _ in pairs]
    counts = [weight for _, weight in pairs]
    lengths = list(map(len, seqs))
    # address of each chunk's first node: 4 (after the first SEP), then 4 * (length + 1) on
    starts = list(accumulate(map(mul, map(add, lengths[:-1], repeat(1)), repeat(4)), initial=4)) if seqs else []
    tokens = sum(map(mul, counts, lengths))
    if tokens >= CMAX:  # (the pair state says so; the array could not hold such weights)
        return array("i"), array("q"), tokens
    n = sum(lengths) + len(seqs) + 1
    code = node_typecode(max(counts, default=0), 4 * n + 4)
    sym: list[int] = [SEP]
    sym.extend(chain.from_iterable(chain.from_iterable(zip(seqs, repeat((SEP,))))))
    weights: list[int] = [0]
    weights.extend(chain.from_iterable(map(repeat, counts, map(add, lengths, repeat(1)))))
    data = array(code, [0]) * (4 * n)
    data[0::4] = array(code, sym)
    after = array(code, range(4, 4 * n + 4, 4))  # node i links to 4i + 4 and back to 4i - 4
    data[1::4] = after
    data[2::4] = (array(code, (-4, 0)) + after)[:n]  # the same run, two nodes later
    data[3::4] = array(code, weights)
    return data, array("q", starts), tokens


def layout_chars(chunks: dict[str, int], alphabet: Sequence[str] | None) -> tuple[
        list[str], array[int], array[int], int, array[int]]:
    """The chars base's alphabet and :func:`layout` of the distinct ``chunks`` (chunk -> count,
    in order of first appearance), each character its id in the alphabet (0, U+FFFD's place,
    for one outside it), as ``(alphabet, data, starts, tokens, lengths)``: ``lengths`` holds
    every chunk's length in characters, the empty ones' too (which are not laid out).
    ``alphabet`` None: the chunks' characters, U+FFFD first, then in code point order.

    Example: ``layout_chars({"ab": 3}, None)[0]`` is ``['\ufffd', 'a', 'b']``."""
    if alphabet is None:
        seen = set().union(*chunks)
        alphabet = ["\ufffd", *sorted(seen - {"\ufffd"})]
    ids = {c: i for i, c in enumerate(alphabet)}
    get = ids.get
    seqs = [([get(ch, 0) for ch in c], n) for c, n in chunks.items()]
    data, starts, tokens = layout([(seq, n) for seq, n in seqs if seq])
    return list(alphabet), data, starts, tokens, array("i", [len(seq) for seq, _ in seqs])


def layout_bytes(chunks: dict[str, int]) -> tuple[array[int], array[int], int, array[int]]:
    """The bytes base's :func:`layout` of the distinct ``chunks`` (chunk -> count, in order of
    first appearance; bytes beyond UTF-8 as lone surrogates), each chunk its UTF-8 bytes, as
    ``(data, starts, tokens, lengths)``: ``lengths`` holds every chunk's length in bytes, the
    empty ones' too (which are not laid out).

    Example: ``layout_bytes({"ab": 3})[2]`` is 6."""
    seqs = [(c.encode("utf-8", "surrogateescape"), n) for c, n in chunks.items()]
    data, starts, tokens = layout([(seq, n) for seq, n in seqs if seq])
    return data, starts, tokens, array("i", [len(seq) for seq, _ in seqs])


#: The widest weight a node array of 32-bit ints holds; a chunk counted more often than this
#: (a chunk-count table of a large corpus) makes the node array 64-bit.
INT32_MAX = (1 << 31) - 1


def node_typecode(max_weight: int, max_address: int) -> str:
    """The node array's typecode: ``"i"`` (32-bit, half the memory) while every weight and
    address fits, else ``"q"`` (64-bit). Example: ``node_typecode(1 << 32, 40) -> 'q'``"""
    return "i" if max_weight <= INT32_MAX and max_address <= INT32_MAX else "q"


def index_pairs(data: array[int], floor: int) -> tuple[dict[int, int], dict[int, array[int]]]:
    """The first pair index of a layout: {pair key: weighted count} and {pair key: ascending
    addresses of its left nodes}, both in order of first occurrence, for the pairs counted at
    least ``floor`` times.

    One loop over the nodes gathers the addresses (:func:`gather`); a pair's count is then its
    number of addresses, plus the extra weight of the few chunks that occur more than once
    (found by a C-level filter on the weights), rather than summing weights node by node.

    Example: ``index_pairs(layout([([1, 2, 1, 2], 1)])[0], 1)`` counts ``1 << SHIFT | 2`` twice
    and ``2 << SHIFT | 1`` once."""
    end = len(data)
    where = gather(data, 0, end)
    count = {k: len(nodes) for k, nodes in where.items()}
    for address in compress(range(0, end, 4), map(ne, data[3::4], repeat(1))):
        x = data[address]
        if x >= 0 and address + 4 < end:
            y = data[address + 4]
            if y >= 0:
                count[x << SHIFT | y] += data[address + 3] - 1
    if floor > 1:
        return {k: c for k, c in count.items() if c >= floor}, {k: where[k] for k, c in count.items() if c >= floor}
    return count, dict(where)


def gather(data: array[int], lo: int, hi: int) -> dict[int, array[int]]:
    """{pair key: ascending addresses} of the pairs whose left node is in [lo, hi), in order of
    first occurrence (a pair's right node may be at hi)."""
    where: defaultdict[int, array[int]] = defaultdict(_nodes)
    for x, y, address in zip(data[lo:hi:4], data[lo + 4:hi + 4:4], range(lo, hi, 4)):
        if x >= 0 and y >= 0:
            where[x << SHIFT | y].append(address)
    return where


def relink(data: array[int], plist: array[int], a: int, b: int, new_id: int) -> tuple[
        dict[int, array[int]], dict[int, array[int]], dict[int, int], dict[int, int], int, array[int]]:
    """The merge loop of :meth:`engine.train.pair_state.PairState.merge`: replace each live (a, b) at the addresses
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


def account(count: dict[int, int], hist: dict[int, int], where: dict[int, array[int]], heap: list[int],
            left: dict[int, array[int]], right: dict[int, array[int]], lx: dict[int, int], rx: dict[int, int],
            a: int, b: int, new_id: int, floor: int, front: list | None, entry: Callable[[int, int, int], int] | None) -> int:
    """The counting half of :meth:`engine.train.pair_state.PairState.merge`, after :func:`relink`:
    the merged pair leaves ``count``/``hist``; the pairs of existing tokens beside the merged
    nodes lose their weight, group by group; the pairs with ``new_id`` are counted and, when
    they can ever win (``floor``), indexed in ``where`` and queued in ``heap`` (with ``entry``
    under the wide tie rules, else as ``(_CMAX - count) << 40 | key``), and those at or below
    ``front``'s bound join choose's read-ahead. Returns the merged pair's count before."""
    key = a << SHIFT | b
    old = count.pop(key, 0)
    if old:
        hist[old] -= 1
    # What PairState._recount and _apply do for an undo, inlined (most merges late in training
    # touch a handful of nodes, so the calls and dicts between them cost more than the work).
    # Pairs of existing tokens lose weight group by group (a key met twice, once on each side,
    # ends as _apply would leave it); pairs with new_id are summed first.
    cget = count.get
    new: dict[int, int] = {}
    nget = new.get
    for so, nodes in left.items():
        wt = len(nodes) + lx.get(so, 0) if lx else len(nodes)
        k = so << SHIFT | a
        if so == new_id:  # an adjacent earlier occurrence: (new, a) becomes (new, new)
            new[k] = nget(k, 0) - wt
        elif k != key:
            c0 = cget(k)
            if c0 is not None:  # None: born below the floor, never kept
                if c0:
                    hist[c0] -= 1
                c0 -= wt
                count[k] = c0
                if c0:
                    hist[c0] += 1
        k = so << SHIFT | new_id
        new[k] = nget(k, 0) + wt
    b_left = b << SHIFT
    x_left = new_id << SHIFT
    for sr, nodes in right.items():
        wt = len(nodes) + rx.get(sr, 0) if rx else len(nodes)
        k = b_left | sr
        if k != key:
            c0 = cget(k)
            if c0 is not None:
                if c0:
                    hist[c0] -= 1
                c0 -= wt
                count[k] = c0
                if c0:
                    hist[c0] += 1
        k = x_left | sr
        new[k] = nget(k, 0) + wt
    # Register the pairs with new_id: counts, and (if they can ever win) index and queue. A
    # pair's nodes are its neighbour group: left group so holds (so, new) and right group sr
    # holds (new, sr); both lists are ascending.
    bound = front[3] if front is not None else -1
    for k, c in new.items():
        if c < floor:  # counts never grow: a pair born below the floor (or gone) can never be merged
            continue
        count[k] = c
        hist[c] += 1
        nodes = left[k >> SHIFT] if k & MASK == new_id else right[k & MASK]
        where[k] = nodes
        if entry is not None:
            heappush(heap, entry(k, c, nodes[0]))
        else:
            e = (CMAX - c) << 40 | k
            heappush(heap, e)
            if e <= bound:
                ahead = front[2]  # type: ignore[index]
                i = bisect_left(ahead, e)
                if i == len(ahead) or ahead[i] != e:
                    ahead.insert(i, e)
    return old


def merge(data: array[int], plist: array[int], a: int, b: int, new_id: int, count: dict[int, int],
          hist: dict[int, int], where: dict[int, array[int]], heap: list[int], floor: int, front: list | None,
          entry: Callable[[int, int, int], int] | None) -> tuple[int, int, array[int]]:
    """One merge of :meth:`engine.train.pair_state.PairState.merge`: :func:`relink`, then
    :func:`account`. Returns ``(the merged pair's count before, extra weight, absorbed nodes)``."""
    left, right, lx, rx, extra, absorbed = relink(data, plist, a, b, new_id)
    old = account(count, hist, where, heap, left, right, lx, rx, a, b, new_id, floor, front, entry)
    return old, extra, absorbed
