# The training stage of the compiled core (included by compiled.pyx): the pair state's node
# type, first index, counts (Counts), queue (Queue) and merge (the layout: layout.pxi).


# -- training ---------------------------------------------------------------------------------

ctypedef fused node_t:
    int
    long long

cdef extern from *:
    # a hint that the memory at ``address`` will soon be read (GCC and Clang); no effect on results
    void __builtin_prefetch(const void *address) nogil

#: How many occurrences ahead the merge asks for a node's memory: a pair's occurrences lie far
#: apart in a large layout, so each would otherwise wait for memory in turn.
cdef Py_ssize_t AHEAD = 12

cdef int64_t SEP = -2  # engine.train.pair_views.SEP
cdef int64_t DEAD = -1  # engine.train.pair_views.DEAD


cdef inline int _address(int64_t x) except -1:
    if x > INT32_MAX:
        raise OverflowError("a node address above 2**31 - 1 does not fit the occurrence lists")
    return <int>x


cdef struct _PairSlot:  # the first index's table: a pair key (EMPTY: none) and its number
    uint64_t key
    int64_t group


cdef struct _Tally:  # a pair's occurrences in the layout and its weighted count
    int64_t total
    int64_t size


cdef Py_ssize_t _index(node_t[::1] data, Py_ssize_t n, int *gid, uint64_t **order) except -1:
    """Number the pairs of the layout in order of first occurrence (``gid`` per node: the pair
    it starts, or -1); ``order`` gets a new C array of each pair's key, by number. Returns the
    number of pairs. (Key and number share a slot: one cache miss a node, not two.)"""
    cdef uint64_t size = 1 << 12, mask = size - 1, slot, i
    cdef _PairSlot *table = <_PairSlot *>PyMem_Malloc(size * sizeof(_PairSlot))
    cdef _PairSlot *grown
    cdef uint64_t *keys = <uint64_t *>PyMem_Malloc(size * sizeof(uint64_t))
    cdef void *more
    cdef Py_ssize_t node, count = 0, room = size
    cdef int64_t prev = SEP, s
    cdef uint64_t key
    cdef int64_t g
    try:
        if table == NULL or keys == NULL:
            raise MemoryError()
        memset(table, 0xFF, size * sizeof(_PairSlot))
        for node in range(n):
            s = data[4 * node]
            gid[node] = -1
            if prev >= 0 and s >= 0:
                key = (<uint64_t>prev << SHIFT) | <uint64_t>s
                slot = _mix(key) & mask
                while True:
                    if table[slot].key == EMPTY:
                        g = count
                        table[slot].key = key
                        table[slot].group = g
                        if count == room:
                            room *= 2
                            more = PyMem_Realloc(keys, room * sizeof(uint64_t))
                            if more == NULL:
                                raise MemoryError()
                            keys = <uint64_t *>more
                        keys[count] = key
                        count += 1
                        if 2 * <uint64_t>count > size:  # grow: rehash into twice the slots
                            grown = <_PairSlot *>PyMem_Malloc(2 * size * sizeof(_PairSlot))
                            if grown == NULL:
                                raise MemoryError()
                            memset(grown, 0xFF, 2 * size * sizeof(_PairSlot))
                            mask = 2 * size - 1
                            for i in range(size):
                                if table[i].key != EMPTY:
                                    slot = _mix(table[i].key) & mask
                                    while grown[slot].key != EMPTY:
                                        slot = (slot + 1) & mask
                                    grown[slot] = table[i]
                            PyMem_Free(table)
                            table, size = grown, 2 * size
                        break
                    if table[slot].key == key:
                        g = table[slot].group
                        break
                    slot = (slot + 1) & mask
                gid[node - 1] = <int>g  # the pair starts at the node before
            prev = s
        order[0] = keys
        keys = NULL
        return count
    finally:
        PyMem_Free(table)
        PyMem_Free(keys)


def index_pairs(data, int64_t floor):
    """The first count and occurrence index of a layout: see ``index_pairs`` in
    engine/train/loops.py, which returns exactly what this does."""
    cdef Py_ssize_t n = len(data) // 4, i, j, count = 0
    cdef int *gid = <int *>PyMem_Malloc((n + 1) * sizeof(int))
    cdef uint64_t *order = NULL
    cdef _Tally *tally = NULL
    cdef Py_ssize_t total
    cdef Counts counts
    cdef Where where
    cdef int[::1] narrow
    cdef long long[::1] wide
    cdef int g
    if gid == NULL:
        raise MemoryError()
    try:
        if data.typecode == "i":
            narrow = data
            count = _index(narrow, n, gid, &order)
        else:
            wide = data
            count = _index(wide, n, gid, &order)
        tally = <_Tally *>PyMem_Malloc((count + 1) * sizeof(_Tally))
        if tally == NULL:
            raise MemoryError()
        memset(tally, 0, (count + 1) * sizeof(_Tally))
        # each pair's occurrences and weighted count (a pair weighs what its left node does: a
        # chunk's nodes all weigh the chunk's count)
        if data.typecode == "i":
            for i in range(n):
                g = gid[i]
                if g >= 0:
                    tally[g].size += 1
                    tally[g].total += narrow[4 * i + 3]
        else:
            for i in range(n):
                g = gid[i]
                if g >= 0:
                    tally[g].size += 1
                    tally[g].total += wide[4 * i + 3]
        counts = Counts()
        where = Where()
        total = 0
        for j in range(count):
            if tally[j].total >= floor:
                total += tally[j].size + 1
        where._repool(total)  # one pool, the size of every list kept: no garbage, no growth
        for j in range(count):  # size becomes the list's offset in the pool, -1 when not kept
            if tally[j].total < floor:
                tally[j].size = -1
                continue
            counts.put(<int64_t>order[j], tally[j].total)
            tally[j].size = where.reserve(<int64_t>order[j], tally[j].size)
        for i in range(n):
            g = gid[i]
            if g >= 0 and tally[g].size >= 0:
                where.pool[tally[g].size] = _address(4 * i)
                tally[g].size += 1
        return counts, where
    finally:
        PyMem_Free(gid)
        PyMem_Free(order)
        PyMem_Free(tally)


cdef struct Slot:
    int64_t key  # -1: empty
    int64_t value


cdef class Counts:
    """The compiled core's pair counts: {pair key: count} in an open-addressing table of C ints
    (linear probing, keys >= 0), with the part of a dict's interface the pair state and its
    readers use. The compiled merge reads and changes it in C: a dict of int objects costs
    a cache miss on each value and an allocation on each change, for millions of changes."""

    cdef Slot *slots
    cdef uint64_t mask
    cdef Py_ssize_t used

    def __cinit__(self, items=None):
        self.slots = NULL
        self.used = 0
        self._alloc(16)

    def __init__(self, items=None):
        if items is not None:
            for k, v in (items.items() if hasattr(items, "items") else items):
                self[k] = v

    def __dealloc__(self):
        PyMem_Free(self.slots)

    cdef int _alloc(self, uint64_t size) except -1:
        cdef Slot *slots = <Slot *>PyMem_Malloc(size * sizeof(Slot))
        if slots == NULL:
            raise MemoryError()
        memset(slots, 0xFF, size * sizeof(Slot))  # every key -1
        PyMem_Free(self.slots)
        self.slots = slots
        self.mask = size - 1
        return 0

    cdef inline Py_ssize_t find(self, int64_t key) noexcept:
        """The slot holding ``key``, or -1."""
        cdef uint64_t slot = _mix(<uint64_t>key) & self.mask
        cdef int64_t found
        while True:
            found = self.slots[slot].key
            if found == key:
                return <Py_ssize_t>slot
            if found < 0:
                return -1
            slot = (slot + 1) & self.mask

    cdef int put(self, int64_t key, int64_t value) except -1:
        """Set ``key``'s count (a new key is added)."""
        cdef uint64_t slot = _mix(<uint64_t>key) & self.mask
        cdef int64_t found
        if key < 0:
            raise ValueError("a pair key is not negative")
        while True:
            found = self.slots[slot].key
            if found == key:
                self.slots[slot].value = value
                return 0
            if found < 0:
                break
            slot = (slot + 1) & self.mask
        self.slots[slot].key = key
        self.slots[slot].value = value
        self.used += 1
        if 2 * <uint64_t>self.used > self.mask + 1:
            self._grow()
        return 0

    cdef int _grow(self) except -1:
        cdef Slot *old = self.slots
        cdef uint64_t size = self.mask + 1, i, slot
        self.slots = NULL
        try:
            self._alloc(2 * size)
        except MemoryError:
            self.slots = old
            raise
        for i in range(size):
            if old[i].key >= 0:
                slot = _mix(<uint64_t>old[i].key) & self.mask
                while self.slots[slot].key >= 0:
                    slot = (slot + 1) & self.mask
                self.slots[slot] = old[i]
        PyMem_Free(old)
        return 0

    cdef void remove(self, Py_ssize_t at) noexcept:
        """Empty slot ``at``, shifting back the entries after it that probed past it."""
        cdef uint64_t i = <uint64_t>at, j = i, home, mask = self.mask
        while True:
            j = (j + 1) & mask
            if self.slots[j].key < 0:
                break
            home = _mix(<uint64_t>self.slots[j].key) & mask
            # entry j may move to the hole at i unless its home lies cyclically in (i, j]
            if (j > i and (home <= i or home > j)) or (j < i and home <= i and home > j):
                self.slots[i] = self.slots[j]
                i = j
        self.slots[i].key = -1
        self.used -= 1

    # -- the dict interface ------------------------------------------------------------------

    def __len__(self):
        return self.used

    def __contains__(self, key):
        return type(key) is int and key >= 0 and self.find(key) >= 0

    def __getitem__(self, key):
        cdef Py_ssize_t at = self.find(key) if type(key) is int and key >= 0 else -1
        if at < 0:
            raise KeyError(key)
        return self.slots[at].value

    def __setitem__(self, key, int64_t value):
        self.put(key, value)

    def __delitem__(self, key):
        cdef Py_ssize_t at = self.find(key) if type(key) is int and key >= 0 else -1
        if at < 0:
            raise KeyError(key)
        self.remove(at)

    def get(self, key, default=None):
        cdef Py_ssize_t at = self.find(key) if type(key) is int and key >= 0 else -1
        return self.slots[at].value if at >= 0 else default

    def pop(self, key, *default):
        cdef Py_ssize_t at = self.find(key) if type(key) is int and key >= 0 else -1
        if at < 0:
            if default:
                return default[0]
            raise KeyError(key)
        value = self.slots[at].value
        self.remove(at)
        return value

    def keys(self):
        cdef uint64_t i
        cdef list out = []
        for i in range(self.mask + 1):
            if self.slots[i].key >= 0:
                out.append(self.slots[i].key)
        return out

    def values(self):
        cdef uint64_t i
        cdef list out = []
        for i in range(self.mask + 1):
            if self.slots[i].key >= 0:
                out.append(self.slots[i].value)
        return out

    def items(self):
        cdef uint64_t i
        cdef list out = []
        for i in range(self.mask + 1):
            if self.slots[i].key >= 0:
                out.append((self.slots[i].key, self.slots[i].value))
        return out

    def __iter__(self):
        return iter(self.keys())

    def copy(self):
        cdef Counts other = Counts.__new__(Counts)
        other._alloc(self.mask + 1)
        memcpy(other.slots, self.slots, (self.mask + 1) * sizeof(Slot))
        other.used = self.used
        return other

    def __eq__(self, other):
        if isinstance(other, (Counts, dict)):
            return dict(self.items()) == (dict(other.items()) if isinstance(other, Counts) else other)
        return NotImplemented

    def __reduce__(self):
        return Counts, (dict(self.items()),)

    def __repr__(self):
        return f"Counts({dict(self.items())!r})"

    def queue(self):
        """The lowest-ids queue of these pairs (:class:`Queue`)."""
        return Queue.of(self)

    def histogram(self, hist):
        """Add one to ``hist[count]`` for every pair (the pair state's histogram, built once)."""
        cdef uint64_t i
        for i in range(self.mask + 1):
            if self.slots[i].key >= 0:
                hist[self.slots[i].value] += 1


cdef struct QEntry:
    # a lowest-ids queue entry, (CMAX - count) << 40 | key as a Python int, in two fields
    uint64_t field  # CMAX - count
    uint64_t key


cdef inline bint _before(QEntry x, QEntry y) noexcept nogil:
    return x.field < y.field or (x.field == y.field and x.key < y.key)


cdef uint64_t C_CMAX = (<uint64_t>1) << 50  # engine.train.loops.CMAX
cdef uint64_t M40 = ((<uint64_t>1) << 40) - 1


cdef class Queue:
    """The pair state's queue under the lowest-ids rule, on the compiled path: a binary min-heap
    of C structs holding exactly the entries of the pure path's heap of Python ints
    (``(CMAX - count) << 40 | key``), with the pair state's readers of it in C (settle, top,
    the read-ahead of the top count's ties: the pure twins are PairState._settle, top and
    _read_front). Iterating gives the entries as Python ints, in no order."""

    cdef QEntry *heap
    cdef Py_ssize_t size
    cdef Py_ssize_t cap

    def __cinit__(self):
        self.heap = NULL
        self.size = 0
        self.cap = 0

    def __dealloc__(self):
        PyMem_Free(self.heap)

    cdef int _reserve(self, Py_ssize_t n) except -1:
        if n <= self.cap:
            return 0
        cdef Py_ssize_t cap = self.cap * 2 if self.cap else 64
        while cap < n:
            cap *= 2
        cdef QEntry *grown = <QEntry *>PyMem_Realloc(self.heap, cap * sizeof(QEntry))
        if grown == NULL:
            raise MemoryError()
        self.heap = grown
        self.cap = cap
        return 0

    cdef int push(self, QEntry e) except -1:
        self._reserve(self.size + 1)
        cdef Py_ssize_t i = self.size, parent
        cdef QEntry *h = self.heap
        while i > 0:
            parent = (i - 1) >> 1
            if not _before(e, h[parent]):
                break
            h[i] = h[parent]
            i = parent
        h[i] = e
        self.size += 1
        return 0

    cdef void _down(self, QEntry e) noexcept:
        """Put ``e`` at the root and sift it down."""
        cdef Py_ssize_t i = 0, child, n = self.size
        cdef QEntry *h = self.heap
        while True:
            child = 2 * i + 1
            if child >= n:
                break
            if child + 1 < n and _before(h[child + 1], h[child]):
                child += 1
            if not _before(h[child], e):
                break
            h[i] = h[child]
            i = child
        h[i] = e

    cdef void pop(self) noexcept:
        self.size -= 1
        if self.size > 0:
            self._down(self.heap[self.size])

    cdef void replace(self, QEntry e) noexcept:
        self._down(e)

    cdef void heapify(self) noexcept:
        cdef Py_ssize_t i, j, child, n = self.size
        cdef QEntry *h = self.heap
        cdef QEntry e
        for j in range(n // 2 - 1, -1, -1):
            e = h[j]
            i = j
            while True:
                child = 2 * i + 1
                if child >= n:
                    break
                if child + 1 < n and _before(h[child + 1], h[child]):
                    child += 1
                if not _before(h[child], e):
                    break
                h[i] = h[child]
                i = child
            h[i] = e

    cdef inline int64_t _live(self, Counts count, uint64_t key) noexcept:
        cdef Py_ssize_t at = count.find(<int64_t>key)
        return count.slots[at].value if at >= 0 else 0

    cdef bint _settle(self, Counts count, int64_t floor) noexcept:
        """Repair the queue until its top entry is exact (PairState._settle); False if empty."""
        cdef QEntry e
        cdef int64_t live, stored
        while self.size:
            e = self.heap[0]
            live = self._live(count, e.key)
            stored = <int64_t>(C_CMAX - e.field)
            if live < floor or live > stored:
                self.pop()  # gone, or a newer optimistic entry exists
                continue
            if live != stored:
                e.field = C_CMAX - <uint64_t>live
                self.replace(e)
                continue
            return True
        return False

    # -- what the pair state calls -----------------------------------------------------------

    @staticmethod
    def of(Counts count):
        """The queue of every pair in ``count`` (the first index's counts)."""
        cdef Queue q = Queue.__new__(Queue)
        cdef uint64_t i
        cdef Slot s
        q._reserve(count.used + 1)
        for i in range(count.mask + 1):
            s = count.slots[i]
            if s.key >= 0:
                q.heap[q.size].field = C_CMAX - <uint64_t>s.value
                q.heap[q.size].key = <uint64_t>s.key
                q.size += 1
        q.heapify()
        return q

    def __len__(self):
        return self.size

    def __iter__(self):
        cdef Py_ssize_t i
        cdef list out = []
        for i in range(self.size):
            out.append((<object>self.heap[i].field) << 40 | self.heap[i].key)
        return iter(out)

    def copy(self):
        cdef Queue q = Queue.__new__(Queue)
        q._reserve(self.size + 1)
        memcpy(q.heap, self.heap, self.size * sizeof(QEntry))
        q.size = self.size
        return q

    def push_entry(self, entry):
        """Push an entry given as the pure path's Python int."""
        cdef QEntry e
        e.field = entry >> 40
        e.key = entry & M40
        self.push(e)

    def settle(self, Counts count, int64_t floor):
        """PairState._settle: the exact top entry as a Python int, or None when empty."""
        if not self._settle(count, floor):
            return None
        return (<object>self.heap[0].field) << 40 | self.heap[0].key

    def top(self, Counts count, int64_t floor, Py_ssize_t k):
        """PairState.top under lowest-ids: the ``k`` best pairs as ``(a, b, count)``, the queue
        unchanged (the entries taken are pushed back)."""
        cdef list out = []
        cdef Py_ssize_t n = 0, i
        cdef QEntry *taken = NULL
        cdef QEntry *grown
        cdef Py_ssize_t room = 0
        cdef QEntry e
        cdef uint64_t last = <uint64_t>-1
        cdef int64_t live
        try:
            while len(out) < k and self._settle(count, floor):
                e = self.heap[0]
                self.pop()
                if n == room:
                    room = 2 * room if room else 16
                    grown = <QEntry *>PyMem_Realloc(taken, room * sizeof(QEntry))
                    if grown == NULL:
                        raise MemoryError()
                    taken = grown
                taken[n] = e
                n += 1
                if e.key != last:  # a pair's exact entries are equal, so popped one after another
                    last = e.key
                    live = <int64_t>(C_CMAX - e.field)
                    out.append((<int64_t>(e.key >> SHIFT), <int64_t>(e.key & MASK), live))
            for i in range(n):
                self.push(taken[i])
        finally:
            PyMem_Free(taken)
        return out

    def read_front(self, Counts count, int64_t floor, int64_t top_count, Py_ssize_t k, Py_ssize_t want):
        """PairState._read_front's reading, the top entry exact (settled): the exact entries of
        ``top_count`` in queue order, one a pair, at most ``want`` (as Python ints), the first
        ``k`` of their pairs, and whether that was all of them: ``(ahead, ties, complete)``."""
        cdef list ahead = []
        cdef list ties = []
        cdef Py_ssize_t n = 0, i
        cdef QEntry *taken = NULL
        cdef QEntry *grown
        cdef Py_ssize_t room = 0
        cdef QEntry e
        cdef uint64_t last
        cdef int64_t live
        cdef bint complete = True
        try:
            while self._settle(count, floor):
                e = self.heap[0]
                if <int64_t>(C_CMAX - e.field) != top_count:
                    break
                self.pop()
                if n == room:
                    room = 2 * room if room else 16
                    grown = <QEntry *>PyMem_Realloc(taken, room * sizeof(QEntry))
                    if grown == NULL:
                        raise MemoryError()
                    taken = grown
                taken[n] = e
                n += 1
                if n > 1 and e.key == last:
                    continue
                last = e.key
                ahead.append((<object>e.field) << 40 | e.key)
                if len(ties) < k:
                    ties.append((<int64_t>(e.key >> SHIFT), <int64_t>(e.key & MASK)))
                if len(ahead) == want:
                    complete = False
                    break
            for i in range(n):
                self.push(taken[i])
        finally:
            PyMem_Free(taken)
        return ahead, tuple(ties), complete


from bisect import bisect_left
from heapq import heappush

cdef object CMAX = 1 << 50  # engine.train.loops.CMAX


cdef struct Tally:
    # count -> change in how many pairs have it, summed over one merge (a C table, its keys in
    # order of first change), so that the histogram dict is touched once a count, not per pair
    uint64_t *table
    uint64_t mask
    int64_t *key
    int64_t *change
    Py_ssize_t size


cdef inline void _tally(Tally *t, int64_t c, int64_t d) noexcept:
    if c == 0:  # the histogram keeps no count 0
        return
    cdef uint64_t slot = _mix(<uint64_t>c) & t.mask, found
    while True:
        found = t.table[slot]
        if found == EMPTY:
            t.table[slot] = <uint64_t>t.size
            t.key[t.size] = c
            t.change[t.size] = d
            t.size += 1
            return
        if t.key[found] == c:
            t.change[found] += d
            return
        slot = (slot + 1) & t.mask


#: How many groups (or new pairs) ahead the merge asks for their slots in the counts table.
cdef Py_ssize_t SOON = 4


cdef inline void _want(Counts count, int64_t key) noexcept:
    """A hint: ``key``'s first slot in the counts table will soon be read."""
    __builtin_prefetch(&count.slots[_mix(<uint64_t>key) & count.mask])


cdef inline void _lose(Counts count, Tally *t, int64_t k, int64_t wt) noexcept:
    """A pair of existing tokens loses ``wt`` (when its count is kept at all)."""
    cdef Py_ssize_t at = count.find(k)
    if at < 0:  # born below the floor, never kept
        return
    cdef int64_t c0 = count.slots[at].value
    _tally(t, c0, -1)
    c0 -= wt
    count.slots[at].value = c0
    _tally(t, c0, 1)


cdef uint64_t *_table(Py_ssize_t n, uint64_t *mask) except NULL:
    """An empty open-addressing table of at least 2n slots (``mask``: its size - 1)."""
    cdef uint64_t size = 16
    while size < 2 * <uint64_t>n:
        size <<= 1
    cdef uint64_t *table = <uint64_t *>PyMem_Malloc(size * sizeof(uint64_t))
    if table == NULL:
        raise MemoryError()
    memset(table, 0xFF, size * sizeof(uint64_t))  # every slot EMPTY
    mask[0] = size - 1
    return table


cdef Py_ssize_t _group(const int64_t *sym, const int64_t *wt, Py_ssize_t n, int *gid, int64_t *gsym,
                       int64_t *gwt, int *gsize) except -1:
    """Group the entries by symbol in order of first appearance (an entry whose symbol is not a
    token gets group -1): each group's symbol, summed weight and size. Returns the number of groups."""
    cdef uint64_t mask, slot, found
    cdef uint64_t *table = _table(n, &mask)
    cdef Py_ssize_t i, groups = 0
    cdef int g
    cdef int64_t s
    for i in range(n):
        s = sym[i]
        if s < 0:
            gid[i] = -1
            continue
        slot = _mix(<uint64_t>s) & mask
        while True:
            found = table[slot]
            if found == EMPTY:
                g = <int>groups
                table[slot] = (<uint64_t>s << 32) | <uint64_t>g
                gsym[g] = s
                gwt[g] = 0
                gsize[g] = 0
                groups += 1
                break
            if (found >> 32) == <uint64_t>s:
                g = <int>(found & LOW32)
                break
            slot = (slot + 1) & mask
        gid[i] = g
        gsize[g] += 1
        gwt[g] += wt[i]
    PyMem_Free(table)
    return groups



cdef inline void _add(uint64_t *table, uint64_t mask, int64_t *nkey, int64_t *ncount, int *nsrc,
                      Py_ssize_t *fresh, int64_t k, int64_t d, int src) noexcept:
    """Add ``d`` to new pair ``k``'s count in the C table (a new key joins the order); ``src``:
    the group whose nodes are its occurrences (-1: none here)."""
    cdef uint64_t slot = _mix(<uint64_t>k) & mask, found
    while True:
        found = table[slot]
        if found == EMPTY:
            table[slot] = <uint64_t>fresh[0]
            nkey[fresh[0]] = k
            ncount[fresh[0]] = d
            nsrc[fresh[0]] = src
            fresh[0] += 1
            return
        if nkey[found] == k:
            ncount[found] += d
            if src >= 0:
                nsrc[found] = src
            return
        slot = (slot + 1) & mask


cdef int _flatten(const int *gid, const int64_t *at, Py_ssize_t n, Py_ssize_t groups, const int *gsize,
                  int *start, int *flat) except -1:
    """The entries' addresses grouped: group g's, in order, are ``flat[start[g]:start[g] + gsize[g]]``."""
    cdef Py_ssize_t i, g, total = 0
    for g in range(groups):
        start[g] = <int>total
        total += gsize[g]
    cdef int *fill = <int *>PyMem_Malloc((groups + 1) * sizeof(int))
    if fill == NULL:
        raise MemoryError()
    memcpy(fill, start, groups * sizeof(int))
    for i in range(n):
        g = gid[i]
        if g >= 0:
            flat[fill[g]] = _address(at[i])
            fill[g] += 1
    PyMem_Free(fill)
    return 0


cdef tuple _merge(node_t[::1] data, const int[::1] plist, int64_t a, int64_t b, int64_t new_id, Counts count,
                  object hist, Where where, object heap, int64_t floor, object front, object entry):
    cdef Py_ssize_t m = plist.shape[0]
    cdef Py_ssize_t i, j, done = 0, nl = 0, nr = 0, fresh = 0, g, size
    cdef int64_t p, q, o, r, w, extra = 0, k, wt, so, sr, c
    cdef int64_t key = (a << SHIFT) | b
    cdef Py_ssize_t limit = data.shape[0] - 1
    cdef int src
    cdef const int *nodes
    cdef uint64_t mask = 0
    cdef uint64_t *table = NULL
    cdef Tally tally
    cdef QEntry qe
    cdef Queue queue
    cdef uint64_t bfield = 0, bkey = 0
    tally.table = NULL
    tally.key = NULL
    # per occurrence: o, p, so, sr, weight, q; then per group / new pair
    cdef int64_t *buf = <int64_t *>PyMem_Malloc((6 * m + 1) * sizeof(int64_t))
    cdef int64_t *gbuf = <int64_t *>PyMem_Malloc((8 * m + 2) * sizeof(int64_t))
    cdef int *ibuf = <int *>PyMem_Malloc((10 * m + 1) * sizeof(int))
    if buf == NULL or gbuf == NULL or ibuf == NULL:
        PyMem_Free(buf)
        PyMem_Free(gbuf)
        PyMem_Free(ibuf)
        raise MemoryError()
    cdef int64_t *o_at = buf
    cdef int64_t *p_at = buf + m
    cdef int64_t *so_at = buf + 2 * m
    cdef int64_t *sr_at = buf + 3 * m
    cdef int64_t *w_at = buf + 4 * m
    cdef int64_t *q_at = buf + 5 * m
    cdef int64_t *lsym = gbuf
    cdef int64_t *lwt = gbuf + m
    cdef int64_t *rsym = gbuf + 2 * m
    cdef int64_t *rwt = gbuf + 3 * m
    cdef int64_t *nkey = gbuf + 4 * m  # new pairs (at most 2m + 1): key, then count
    cdef int64_t *ncount = gbuf + 6 * m + 1
    cdef int *lgid = ibuf
    cdef int *rgid = ibuf + m
    cdef int *lsize = ibuf + 2 * m
    cdef int *rsize = ibuf + 3 * m
    cdef int *lstart = ibuf + 4 * m
    cdef int *rstart = ibuf + 5 * m
    cdef int *lflat = ibuf + 6 * m
    cdef int *rflat = ibuf + 7 * m
    cdef int *nsrc = ibuf + 8 * m  # each new pair's node group: left g, or right nl + g; -1 none yet
    try:
        for i in range(m):
            if i + AHEAD < m:  # the node and its neighbours (usually the nodes beside it)
                p = plist[i + AHEAD]
                __builtin_prefetch(&data[p - 4 if p >= 4 else 0])
                __builtin_prefetch(&data[p + 8 if p + 8 < limit else p])
            p = plist[i]
            if data[p] != a:
                continue
            q = data[p + 1]
            if data[q] != b:
                continue
            o = data[p + 2]
            r = data[q + 1]
            so_at[done] = data[o]
            sr_at[done] = data[r]
            data[p] = <node_t>new_id
            data[q] = <node_t>DEAD
            data[p + 1] = <node_t>r
            data[r + 2] = <node_t>p
            o_at[done] = o
            p_at[done] = p
            q_at[done] = q
            w = data[p + 3]
            w_at[done] = w
            extra += w - 1
            done += 1
        absorbed = _ints(done)
        for i in range(done):
            absorbed.data.as_ints[i] = _address(q_at[i])
        nl = _group(so_at, w_at, done, lgid, lsym, lwt, lsize)
        nr = _group(sr_at, w_at, done, rgid, rsym, rwt, rsize)
        g = count.find(key)
        old = 0
        if g >= 0:
            old = count.slots[g].value
            count.remove(g)
        # every count this merge changes: the merged pair's, two a group, one a new pair's
        size = 3 * (nl + nr) + 3
        tally.table = _table(size, &tally.mask)
        tally.key = <int64_t *>PyMem_Malloc(2 * size * sizeof(int64_t))
        if tally.key == NULL:
            raise MemoryError()
        tally.change = tally.key + size
        tally.size = 0
        _tally(&tally, old, -1)
        # The pairs of existing tokens beside the merged nodes lose their weight, group by
        # group; the pairs with new_id are summed in a C table, in order of first appearance.
        table = _table(2 * nl + nr + 1, &mask)
        for g in range(nl):
            if g + SOON < nl:  # the counts table's slots of the pairs a few groups on
                _want(count, (lsym[g + SOON] << SHIFT) | a)
            so = lsym[g]
            wt = lwt[g]
            k = (so << SHIFT) | a
            if so == new_id:  # an adjacent earlier occurrence: (new, a) becomes (new, new)
                _add(table, mask, nkey, ncount, nsrc, &fresh, k, -wt, -1)
            elif k != key:
                _lose(count, &tally, k, wt)
            _add(table, mask, nkey, ncount, nsrc, &fresh, (so << SHIFT) | new_id, wt, <int>g)
        for g in range(nr):
            if g + SOON < nr:
                _want(count, (b << SHIFT) | rsym[g + SOON])
            sr = rsym[g]
            wt = rwt[g]
            k = (b << SHIFT) | sr
            if k != key:
                _lose(count, &tally, k, wt)
            _add(table, mask, nkey, ncount, nsrc, &fresh, (new_id << SHIFT) | sr, wt, <int>(nl + g))
        _flatten(lgid, o_at, done, nl, lsize, lstart, lflat)
        _flatten(rgid, p_at, done, nr, rsize, rstart, rflat)
        # Register the pairs with new_id that can ever win (floor): count, index, queue.
        bound = front[3] if front is not None else -1
        queue = heap if type(heap) is Queue else None  # lowest-ids: the C queue
        if bound >= 0:
            bfield = bound >> 40
            bkey = bound & M40
        for j in range(fresh):
            if j + SOON < fresh:  # (and in the occurrence index's key table)
                _want(count, nkey[j + SOON])
                __builtin_prefetch(&where.key_at[_mix(<uint64_t>nkey[j + SOON]) & where.mask])
            c = ncount[j]
            if c < floor:  # counts never grow: born below the floor (or gone), never merged
                continue
            src = nsrc[j]
            if src < 0:
                raise RuntimeError("a new pair with a count but no nodes")
            if src < nl:
                size = lsize[src]
                nodes = lflat + lstart[src]
            else:
                size = rsize[src - nl]
                nodes = rflat + rstart[src - nl]
            count.put(nkey[j], c)
            _tally(&tally, c, 1)
            where.put(nkey[j], nodes, size)
            if entry is not None:
                heappush(heap, entry(nkey[j], c, nodes[0]))
            elif queue is not None:
                qe.field = C_CMAX - <uint64_t>c
                qe.key = <uint64_t>nkey[j]
                queue.push(qe)
                if bound >= 0 and (qe.field < bfield or (qe.field == bfield and qe.key <= bkey)):
                    e = ((CMAX - <object>c) << 40) | <object>nkey[j]
                    ahead = front[2]
                    at = bisect_left(ahead, e)
                    if at == len(ahead) or ahead[at] != e:
                        ahead.insert(at, e)
            else:
                e = ((CMAX - <object>c) << 40) | <object>nkey[j]
                heappush(heap, e)
                if e <= bound:
                    ahead = front[2]
                    at = bisect_left(ahead, e)
                    if at == len(ahead) or ahead[at] != e:
                        ahead.insert(at, e)
        for j in range(tally.size):
            if tally.change[j]:
                hist[tally.key[j]] += tally.change[j]
        return old, extra, absorbed
    finally:
        PyMem_Free(tally.table)
        PyMem_Free(tally.key)
        PyMem_Free(buf)
        PyMem_Free(gbuf)
        PyMem_Free(ibuf)
        PyMem_Free(table)


def merge(data, plist, int64_t a, int64_t b, int64_t new_id, Counts count, hist, Where where, heap,
          int64_t floor, front, entry):
    """One merge of the pair state: ``engine.train.loops.merge`` (relink, then account) in one
    C pass, which returns exactly what this does. Only the pairs that can ever win get an
    occurrence list (in ``where``'s pool: no array object); the others' groups stay C buffers."""
    cdef int[::1] narrow
    cdef long long[::1] wide
    cdef const int[::1] at = plist
    if data.typecode == "i":  # not a fused def: its dispatch would import numpy
        narrow = data
        return _merge(narrow, at, a, b, new_id, count, hist, where, heap, floor, front, entry)
    wide = data
    return _merge(wide, at, a, b, new_id, count, hist, where, heap, floor, front, entry)

