"""The incremental heart of training: positions, weighted pair counts and a lazy max-queue.

Layout. Every distinct chunk is laid out once, left to right in order of first appearance in
the text, each chunk followed by a separator (symbol ``SEP``). A node is four consecutive ints of
one ``array('i')`` (``'q'`` when a weight needs 64 bits): at address ``p`` (a multiple of 4) ``D[p]`` is the symbol, ``D[p+1]`` and
``D[p+2]`` the addresses of the next and previous live nodes (a doubly linked list: the Re-Pair
idea), ``D[p+3]`` the number of times the chunk occurs in the corpus. A merge touches only the
nodes where its pair occurs, however long the chunk (pre-tokenizer ``none`` makes the whole text
one chunk). Interleaving matters: the four fields share a cache line, and the merge loop is bound
by memory latency (separate lists of int objects are slower: figures in docs/benchmarks.md).

Pairs are packed into one int, ``a << SHIFT | b``. ``where[key]`` lists the positions where the
pair occurred, ascending and append-only: entries go stale when a neighbour merges and are
checked on use (``sym[p] == a and sym[nxt[p]] == b``). Stale entries are kept on purpose: undo
makes them valid again, so undo never has to re-index anything.

Why lists stay sorted: the initial scan appends left to right, and every later entry belongs to a
pair containing the token just created, whose entries are all appended during that one merge,
which walks its own (sorted) list left to right. So "first occurrence in text order" (the
``first-seen`` tie rule) is the first valid entry of a list.

The queue holds one int per entry, ordered exactly like the tie rule, and is lazy: an entry may
be optimistic (stored count too high, stored first position too early); it is repaired when it
reaches the top. Forward merges only lower counts and move first occurrences later, so existing
entries stay optimistic; undo pushes fresh entries for the pairs it restores. Entries are plain
ints: ``(_CMAX - count) << 40 | key`` under the lowest-ids rule, ``((_CMAX - count) << 40 | tie)
<< 40 | key`` under the wide rules (first-seen, hf). The queue's read side (the top ``k`` in
tie-rule order, the next merge with its tie set) lives in this class with the merge loop, which
pushes the new pairs' entries and keeps :meth:`PairState._read_front`'s read-ahead true.

On the compiled path the counts are a C table (``engine.native.compiled.Counts``, a dict's interface)
and, under lowest-ids, the queue is a C heap of the same entries (``engine.native.compiled.Queue``) whose
readers (settle, top, the read-ahead) run in C; the code below is their pure twin, and
tests/engine/test_core.py walks both through merges, undos and jumps.

Sections: building, the queue, merging, undo, views and copies.
"""

from __future__ import annotations

from array import array
from collections import defaultdict
from collections.abc import Iterable, Sequence
from functools import partial
from heapq import heapify, heappop, heappush, heapreplace
from typing import Any, cast

from engine.encode.pairs import MASK, SHIFT
from engine.errors import CorpusError
from engine.native import Backend, backend
from engine.train import loops as _trainloops
from engine.train import pair_views as views
from engine.train.pair_views import MergeRecord, StateCopy

#: Node lists are arrays, not lists: compact, and invisible to the cyclic garbage collector
#: (which would otherwise walk millions of them on every full collection).
_nodes = partial(array, "i")
_EMPTY = _nodes()

_M40 = (1 << 40) - 1
#: Counts are stored as _CMAX - count so the min-heap yields the max count. Python ints never
#: wrap, so any pair count below it is exact; a corpus (or a chunk-count table) whose tokens
#: reach it is refused when the state is built (10^15 tokens: a petabyte of text).
_CMAX = _trainloops.CMAX
#: How many pairs of the top count choose reads ahead (lowest-ids): the next steps' tie sets.
FRONT = 16


class PairState:
    """Sequences of symbol ids with their weights, pair counts and the best-pair queue.

    Example: ``PairState([([1, 2, 1, 2], 1)], "lowest-ids").best() -> (1, 2, 2)``

    Pairs counted fewer than ``min_count`` times are counted but never queued or indexed:
    counts only fall as training goes on, so such a pair can never be chosen.
    """

    #: True after a restore until the borrowed parts are copied (see :meth:`own`).
    _borrowed = False
    #: Whether :attr:`heap` is the compiled core's queue (lowest-ids), not a list heap.
    _compiled_queue = False
    #: The copy whose node array the state uses after a restore, until :meth:`own`.
    _lender: StateCopy | None = None
    #: What a restore replaced (the state's own dicts and queue), freed by :meth:`own`.
    _retired: tuple | None = None
    #: True after restoring a lean copy: the index was made afresh, the state's own already.
    _fresh_index = False

    def __init__(
        self,
        sequences: Iterable[tuple[list[int], int]],
        tie_rule: str,
        min_count: int = 1,
        byte_rank: Sequence[int] | None = None,
        laid_out: tuple[array[int], array[int], int] | None = None,
    ) -> None:
        """``laid_out``: the layout of ``sequences`` already made (``(data, starts, tokens)``,
        as ``Backend.layout_chars`` makes it from counted chunks); ``sequences`` is then not read."""
        if tie_rule not in ("lowest-ids", "first-seen", "hf"):
            raise ValueError(f"unknown tie rule {tie_rule!r}")
        if tie_rule == "hf" and (byte_rank is None or len(byte_rank) != 256):
            raise ValueError("the hf tie rule needs the rank of each of the 256 bytes")
        self.first_seen = tie_rule == "first-seen"
        #: hf: ties go to the smallest (left, right) in another id space, where byte b has id
        #: byte_rank[b] and merged tokens keep their order (HuggingFace's BpeTrainer).
        self.byte_rank = list(byte_rank) if tie_rule == "hf" and byte_rank is not None else None
        #: Entries carry a tie value between count and pair: the first position or the rank.
        self.wide = self.first_seen or self.byte_rank is not None
        #: Pairs counted fewer times can never be merged: they are counted but not queued.
        self.min_count = max(1, min_count)
        # The layout in bulk (no Python loop per chunk: see _trainloops.layout)
        native = backend()  # the loops this state runs on (engine.native.door)
        if laid_out is None:
            laid_out = native.layout([(seq, weight) for seq, weight in sequences if seq])
        data, starts, tokens = laid_out
        if tokens >= _CMAX:
            raise CorpusError(f"the corpus holds {tokens} tokens, more than the {_CMAX - 1} a pair count may reach")
        self.data = data
        self.starts = starts
        self.tokens = tokens
        self._freq: list[int] | None = None  # weighted occurrences per token id, once asked
        #: {pair key: count}: a dict, or on the compiled path the core's ``Counts`` table, which
        #: has a dict's interface (and is typed as one here)
        self.count: dict[int, int] = {}
        #: {pair key: its positions}: a dict of arrays, or on the compiled path the core's
        #: ``Where`` (every list in one pool of C ints; a dict's interface, typed as one here)
        self.where: dict[int, array[int]] = {}
        self.hist: defaultdict[int, int] = defaultdict(int)  # count -> number of pairs
        self._front: list | None = None  # see _read_front
        self._tied: dict[int, tuple[int, int]] = {}  # the front's pairs as tuples, made once: see choose
        #: The merge loop of the path this state was built on (its counts are a dict on the
        #: pure path, the compiled core's C table on the other: see engine.native.door.Backend.index_pairs).
        self._merge = native.merge
        self._native = native
        self._index(native)

    # -- building ---------------------------------------------------------------------------

    def _index(self, native: Backend) -> None:
        count, where = native.index_pairs(self.data, self.min_count)
        self.count = cast(dict[int, int], count)  # the core's Counts has a dict's interface
        self.where = where
        hist = self.hist
        if isinstance(count, dict):
            for c in count.values():
                hist[c] += 1
        else:
            cast(Any, count).histogram(hist)  # the core's Counts
        if not self.wide and not isinstance(count, dict):
            # The compiled core's C queue (engine.native.compiled.Queue), with the readers below in C
            self.heap = cast(Any, count).queue()
            self._compiled_queue = True
            return
        self.heap = [self._entry(k, c, where[k][0]) for k, c in count.items()]
        heapify(self.heap)

    def _tie(self, key: int, first: int) -> int:
        """The tie value of a wide entry: first position (first-seen) or rank key (hf)."""
        rank = self.byte_rank
        if rank is None:
            return first
        a, b = key >> SHIFT, key & MASK
        return (rank[a] if a < 256 else a) << SHIFT | (rank[b] if b < 256 else b)

    def _entry(self, key: int, count: int, first: int) -> int:
        if self.wide:
            return ((_CMAX - count) << 40 | self._tie(key, first)) << 40 | key
        return (_CMAX - count) << 40 | key

    def _decode(self, entry: int) -> tuple[int, int, int]:
        """(key, count, tie value) of a queue entry (tie value 0 under lowest-ids)."""
        key = entry & _M40
        rest = entry >> 40
        if self.wide:
            return key, _CMAX - (rest >> 40), rest & _M40
        return key, _CMAX - rest, 0

    def first(self, key: int) -> int | None:
        """Address of the pair's first live occurrence, or None."""
        if not isinstance(self.where, dict):  # the compiled core's Where: the same walk in C
            return cast(Any, self.where).first(self.data, key)
        a, b = key >> SHIFT, key & MASK
        data = self.data
        for p in self.where.get(key, ()):
            if data[p] == a and data[data[p + 1]] == b:
                return p
        return None

    # -- the queue --------------------------------------------------------------------------

    def _settle(self) -> int | None:
        """Repair the queue until its top entry is exact; return that entry (None if empty)."""
        if self._compiled_queue:
            return self.heap.settle(self.count, self.min_count)
        heap, count = self.heap, self.count
        first_seen, wide = self.first_seen, self.wide
        floor = self.min_count  # below it a pair can never be merged: drop its entries
        while heap:
            entry = heap[0]
            key = entry & _M40
            rest = entry >> 40
            live = count.get(key, 0)
            stored = _CMAX - (rest >> 40) if wide else _CMAX - rest
            if live < floor or live > stored:
                heappop(heap)  # gone, or a newer optimistic entry exists
                continue
            if first_seen:
                exact = self.first(key)
                if live != stored or exact != rest & _M40:
                    heapreplace(heap, self._entry(key, live, exact or 0))
                    continue
            elif live != stored:
                heapreplace(heap, self._entry(key, live, 0))
                continue
            return entry
        return None

    def best(self) -> tuple[int, int, int] | None:
        """The next pair by the tie rule as ``(a, b, count)``, or None when no pair is left."""
        entry = self._settle()
        if entry is None:
            return None
        key, c, _ = self._decode(entry)
        return key >> SHIFT, key & MASK, c

    def top(self, k: int) -> list[tuple[int, int, int]]:
        """The ``k`` best pairs in tie-rule order as ``(a, b, count)``; the queue is unchanged.

        Called by the app after every step, so the repair loop of :meth:`_settle` is inlined
        for the lowest-ids rule.
        """
        if self._compiled_queue:
            return self.heap.top(self.count, self.min_count, k)
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
            # a pair stays in the front for up to k steps: its tuple is made once, so a long
            # run of ties (tang_all's last 80,000 merges) does not hold five new ones an event
            tied = self._tied
            for e in ahead:
                other = e & _M40
                if cget(other) == count:
                    pair = tied.get(other)
                    if pair is None:
                        pair = tied[other] = (other >> SHIFT, other & MASK)
                    ties.append(pair)
                    if len(ties) == k:
                        break
                elif not ties:
                    gone += 1
            if gone:
                del ahead[:gone]
            if len(ties) == k and ties[0] == (a, b):
                return a, b, count, tuple(ties), total
        return a, b, count, self._read_front(entry, count, k), total

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
        want = k if k > FRONT else FRONT
        if self._compiled_queue:
            ahead, ties, complete = heap.read_front(self.count, self.min_count, count, k, want)
            field = ahead[0] >> 40
            self._front = [heap, field, ahead, ((field + 1) << 40) - 1 if complete else ahead[-1]]
            return self._share(ties)
        cget = self.count.get
        floor = self.min_count
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
        return self._share(ties)

    def _share(self, ties: Iterable[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
        """The front's first tie set, each pair the tuple the last front made for it if it did,
        kept for :meth:`choose` to list again (see there)."""
        made, tied = self._tied, {}
        out = []
        for x, y in ties:
            key = x << SHIFT | y
            pair = tied[key] = made.get(key) or (x, y)
            out.append(pair)
        self._tied = tied
        return tuple(out)

    # -- merging ----------------------------------------------------------------------------

    def merge(self, a: int, b: int, new_id: int) -> MergeRecord:
        """Replace every occurrence of (a, b) by ``new_id``, left to right, non-overlapping.

        The loop only relinks nodes and groups the merged nodes by their neighbours' symbols;
        counts then change once per group (one dict update per distinct neighbour instead of
        four per occurrence). Chunks occurring more than once add their extra weight per group.
        """
        if self._borrowed:
            self.own()
        key = a << SHIFT | b
        plist = self.where.pop(key, _EMPTY)
        front = self._front  # choose's read-ahead: new entries at or below its bound join it
        if front is not None and front[0] is not self.heap:
            front = self._front = None
        old, extra, absorbed = self._merge(self.data, plist, a, b, new_id, self.count, self.hist, self.where,
                                           self.heap, self.min_count, front, self._entry if self.wide else None)
        removed = len(absorbed) + extra
        self.tokens -= removed
        if self._freq is not None:
            self._count_tokens(a, b, new_id, removed)
        return MergeRecord(a, b, new_id, old, removed, plist + absorbed, len(plist))

    def run(self, limit: int, cap: int, min_frequency: int, pieces: list[bytes], mark: int, known_bytes: int,
            max_bytes: int, step: int, log: tuple[Any, ...], records: bool,
            work: tuple[int, int] = (-1, 0)) -> tuple[int, str | None, int, list[tuple[array[int], array[int], int]] | None] | None:
        """Up to ``limit`` steps of choose and merge in the compiled core's one loop (lowest-ids,
        each logged into ``log``'s arrays: ``engine/native/steps.pxi``), or None where it does not
        run: the pure path, the other rules, or once token frequencies are kept. ``work``: stop
        once the nodes absorbed plus a constant a merge reach a budget (``(budget, constant)``;
        budget -1: none). Returns (steps made, the stop reason or None, the vocabulary's bytes,
        each step's ``(plist, absorbed, old)`` when ``records``)."""
        if not self._compiled_queue or self.wide or self._freq is not None:
            return None
        if self._borrowed:
            self.own()
        front = self._front
        if front is not None and front[0] is not self.heap:
            front = None
        kept: list[tuple[array[int], array[int], int]] | None = [] if records else None
        parts = (self.data, self.where, self.count, self.hist, self.heap, self.min_count, front, self.tokens)
        ran = self._native.run_steps(parts, log, limit, cap, FRONT, min_frequency, pieces, mark, known_bytes,
                                     max_bytes, step, kept, work)
        if ran is None:
            return None
        done, reason, known_bytes, self.tokens, self._front = ran
        return done, reason, known_bytes, kept

    # -- undo -------------------------------------------------------------------------------

    def unmerge(self, rec: MergeRecord) -> None:
        """Undo ``rec`` (the latest merge still applied), restoring the exact previous state."""
        if self._borrowed:
            self.own()
        a, b, new_id = rec.a, rec.b, rec.new_id
        self._front = None  # entries of any count come back: choose reads the queue afresh
        data = self.data
        left: defaultdict[int, array[int]] = defaultdict(_nodes)
        right: defaultdict[int, array[int]] = defaultdict(_nodes)
        lx: dict[int, int] = {}
        rx: dict[int, int] = {}
        nodes = rec.nodes  # the occurrence list, then the absorbed nodes
        for i in range(len(nodes) - 1, rec.split - 1, -1):  # reverse order mirrors the merge exactly
            q = nodes[i]
            p = data[q + 2]
            so = data[data[p + 2]]
            r = data[p + 1]
            sr = data[r]
            if so >= 0:
                left[so].append(p)
            if sr >= 0:
                right[sr].append(p)
            more = data[p + 3] - 1
            if more:
                if so >= 0:
                    lx[so] = lx.get(so, 0) + more
                if sr >= 0:
                    rx[sr] = rx.get(sr, 0) + more
            data[p] = a
            data[q] = b
            data[p + 1] = q
            data[r + 2] = q  # q still links to p and r: absorbed nodes keep their links
        key = a << SHIFT | b
        new = self._recount(left, right, lx, rx, key, a, b, new_id, -1)
        count, where, hist = self.count, self.where, self.hist
        for k in new:  # the pairs of the unmade token are gone
            c = count.pop(k, 0)
            if c:
                hist[c] -= 1
            where.pop(k, None)
        where[key] = rec.plist
        if rec.count:
            count[key] = rec.count
            hist[rec.count] += 1
        self.tokens += rec.removed
        self._count_tokens(a, b, new_id, -rec.removed)
        # Restored pairs may now beat their queue entries: push exact ones.
        restored = [key]
        restored.extend(so << SHIFT | a for so in left if so != new_id)
        restored.extend(b << SHIFT | sr for sr in right)
        floor = self.min_count
        push = self.heap.push_entry if self._compiled_queue else partial(heappush, self.heap)
        for k in restored:
            c = count.get(k, 0)
            if c >= floor:
                first = self.first(k) if self.first_seen else 0
                push(self._entry(k, c, first or 0))

    def _recount(
        self,
        left: dict[int, array[int]],
        right: dict[int, array[int]],
        lx: dict[int, int],
        rx: dict[int, int],
        key: int,
        a: int,
        b: int,
        new_id: int,
        sign: int,
    ) -> dict[int, int]:
        """Change the counts of existing pairs for a merge (sign 1) or its undo (sign -1); unmerge
        calls it, merge does the sign 1 case inline.

        Returns the net counts of the pairs that contain ``new_id`` (for a merge, their counts
        after it; for an undo, their keys to forget).
        """
        old: dict[int, int] = {}  # pairs of existing tokens: count change
        new: dict[int, int] = {}  # pairs with new_id: count
        oget, nget = old.get, new.get
        lget, rget = lx.get, rx.get
        for so, nodes in left.items():
            wt = (len(nodes) + lget(so, 0)) * sign
            k = so << SHIFT | a
            if so == new_id:  # an adjacent earlier occurrence: (new, a) becomes (new, new)
                new[k] = nget(k, 0) - wt
            elif k != key:
                old[k] = oget(k, 0) - wt
            k = so << SHIFT | new_id
            new[k] = nget(k, 0) + wt
        b_left = b << SHIFT
        x_left = new_id << SHIFT
        for sr, nodes in right.items():
            wt = (len(nodes) + rget(sr, 0)) * sign
            k = b_left | sr
            if k != key:
                old[k] = oget(k, 0) - wt
            k = x_left | sr
            new[k] = nget(k, 0) + wt
        self._apply(old)
        return new

    def _apply(self, delta: dict[int, int]) -> None:
        """Add count changes to pairs of existing tokens.

        A key that is not stored belongs to a pair born below the floor: it can never be merged
        and its count is not kept. Stored pairs keep their key at count 0 so that an undo can
        tell "fell to zero" (restore it) from "never kept" (ignore it).
        """
        count, hist = self.count, self.hist
        cget = count.get
        for k, d in delta.items():
            c0 = cget(k)
            if c0 is None or not d:
                continue
            c1 = c0 + d
            if c0:
                hist[c0] -= 1
            count[k] = c1
            if c1:
                hist[c1] += 1

    def _count_tokens(self, a: int, b: int, new_id: int, moved: int) -> None:
        freq = self._freq
        if freq is None:
            return
        if len(freq) <= new_id:
            freq.extend([0] * (new_id + 1 - len(freq)))
        freq[new_id] += moved
        freq[a] -= moved
        freq[b] -= moved

    # -- views and copies -------------------------------------------------------------------

    def frequencies(self) -> list[int]:
        """Weighted occurrences of every token id in the corpus now (counted once, then kept
        up to date by each merge and undo)."""
        if self._freq is None:
            self._freq = views.token_frequencies(self.data)
        return self._freq

    def chunk_spans(self, uid: int, lo: int, hi: int) -> list[tuple[int, int, int]]:
        """Tokens of distinct chunk ``uid`` overlapping its base units [lo, hi), as (token id,
        start, end) relative to the chunk (see :func:`engine.train.pair_views.chunk_spans`)."""
        return views.chunk_spans(self.data, self.starts, uid, lo, hi)

    def sequences(self) -> list[tuple[int, ...]]:
        """The current symbols of every distinct chunk, in layout order."""
        return views.sequences(self.data)

    def pair_counts(self) -> dict[tuple[int, int], int]:
        """Every pair present now with its weighted count, counted afresh from the sequences."""
        return views.pair_counts(self.data)

    def verify(self) -> None:
        """Check the incremental counts against a fresh count (for tests); raise if they differ."""
        views.verify(self.data, self.count, self.hist, self.tokens, self.min_count)

    def snapshot(self, into: array | None = None, lean: bool = False) -> StateCopy:
        """A copy of everything a merge or undo changes (C-speed copies, no Python loop).

        ``into``: a node array to copy the nodes into (a dropped copy's), sparing a fresh
        allocation's page faults. ``lean``: keep the nodes only, for a state whose index is
        the first one made from its nodes (step 0's: nothing merged yet, or every merge
        undone, which restores it exactly); :meth:`restore` makes it again. On tang_all at the
        character level that spares 19 of a copy's 42 MB for 0.07 s a restore (compiled)."""
        if into is not None and len(into) == len(self.data):
            into[:] = self.data
            data = into
        else:
            data = self.data[:]
        freq = self._freq[:] if self._freq is not None else None
        if lean:
            return StateCopy(data, {}, {}, [], {}, freq, self.tokens, lean=True)
        heap = self.heap.copy() if self._compiled_queue else self.heap[:]
        return StateCopy(data, self.count.copy(), self.where.copy(), heap, dict(self.hist), freq, self.tokens)

    def hand_over(self, spare: array | None = None) -> StateCopy:
        """This state as a copy, made of its own parts rather than copies of them, for a jump
        that restores a copy next (:meth:`restore` must come before anything reads the state).
        The state keeps ``spare`` (a dropped copy's node array, or a new one) for the restore
        to lend to the copy it borrows from."""
        data = self.data
        copy = StateCopy(data, self.count, self.where, self.heap, self.hist, self._freq, self.tokens)
        if spare is None or len(spare) != len(data):
            spare = array(data.typecode, bytes(len(data) * data.itemsize))
        self.data = spare
        self._borrowed = True  # nothing here is the state's own until the restore
        self._lender = None
        self._front = None
        return copy

    def own(self) -> None:
        """Make the state wholly its own after a :meth:`restore` borrowed a copy's parts (a
        merge or an undo does it first; the app calls it once a jump is on screen): the copy
        gets its node array back (filled with these same nodes), the pair dicts and the queue
        are copied."""
        if not self._borrowed:
            return
        lender = self._lender
        if lender is not None:
            # The copy holds the array this state had before the restore: fill it with the
            # nodes, which are still the copy's (nothing changes them before own()).
            lender.data[:] = self.data
            self._lender = None
        if self._fresh_index:  # a lean copy's restore made the index: it is the state's own
            self._fresh_index = False
            self._borrowed = False
            self._retired = None
            return
        self.count = self.count.copy()
        self.where = self.where.copy()  # the position arrays are never changed in place
        borrowed = self.heap
        self.heap = borrowed.copy() if self._compiled_queue else borrowed[:]
        front = self._front
        if front is not None and front[0] is borrowed:
            front[0] = self.heap  # the same entries: the read-ahead stays true
        self._borrowed = False
        self._retired = None

    def restore(self, copy: StateCopy) -> None:
        """Become the state ``copy`` was taken from (the copy stays usable for next time).

        Nothing is copied yet: the state borrows the copy's node array (lending it its own, of
        the same length: nodes are never added), pair dicts and queue, and :meth:`own` copies
        them back before anything changes them, so a jump shows its step at once (copying
        millions of nodes and the dicts is felt: docs/benchmarks.md). The
        queue's readers may repair the borrowed queue in place: an entry repaired or dropped
        for this state is one for the copy's, which is the same."""
        lender = self._lender
        if lender is not None:  # still on the last restore's loan, unchanged: give it back
            lender.data, self.data = self.data, lender.data
        elif not self._borrowed:
            # The state's own dicts and queue: freeing them now would touch every entry
            # before the jump is shown; they go in own(), after it.
            self._retired = (self.count, self.where, self.heap)
        self.data, copy.data = copy.data, self.data
        self._lender = copy
        self._front = None  # read from another queue
        self._borrowed = True
        if copy.lean:  # the index made again from the nodes (the lent array, unchanged)
            self.hist = defaultdict(int)
            self._index(self._native)
            self._fresh_index = True
        else:
            self.count = copy.count
            self.where = copy.where
            self.heap = copy.heap
            self.hist = defaultdict(int, copy.hist)
            self._fresh_index = False
        self._freq = copy.freq[:] if copy.freq is not None else None
        self.tokens = copy.tokens

