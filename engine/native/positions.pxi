# The pair state's occurrence index of the compiled core (included by compiled.pyx, before
# train.pxi, whose first index and merge fill it): every position list in one pool of C ints.


cdef class Where:
    """The compiled core's occurrence index: {pair key: ascending addresses of its left nodes},
    the pure path's dict of ``array('i')`` (engine/train/loops.py) with the part of a dict's
    interface the pair state uses. Every list lives in one pool of C ints, each as its length
    and then its addresses, found through an open-addressing table of keys (linear probing,
    keys >= 0): a position list as an array object costs a header of 64 bytes and an allocation,
    and tang_all at the character level keeps hundreds of thousands of them (docs/benchmarks.md).

    Lists are never changed in place, as on the pure path: putting a key's list appends a new
    span and leaves the old one as garbage, which the pool sheds when it must grow and garbage
    is at least a quarter of it (the live spans are packed down in place). Reading a list
    (``where[key]``, ``get``, ``pop``, ``items``) gives a copy as an ``array('i')``."""

    cdef int64_t *key_at  # each slot's key, -1: empty
    cdef uint32_t *span  # the key's span: pool[span] is its length, its addresses follow
    cdef uint64_t mask
    cdef Py_ssize_t used
    cdef int *pool
    cdef Py_ssize_t fill  # ints of the pool in use (live spans and garbage)
    cdef Py_ssize_t cap  # ints the pool holds
    cdef Py_ssize_t live  # ints of the live spans (lengths included)

    def __cinit__(self, items=None):
        self.key_at = NULL
        self.span = NULL
        self.pool = NULL
        self.used = self.fill = self.cap = self.live = 0
        self._table(16)

    def __init__(self, items=None):
        if items is not None:
            for k, v in (items.items() if hasattr(items, "items") else items):
                self[k] = v

    def __dealloc__(self):
        PyMem_Free(self.key_at)
        PyMem_Free(self.span)
        PyMem_Free(self.pool)

    cdef int _table(self, uint64_t size) except -1:
        """An empty table of ``size`` slots in place of the current one (which the caller keeps)."""
        cdef int64_t *keys = <int64_t *>PyMem_Malloc(size * sizeof(int64_t))
        cdef uint32_t *span = <uint32_t *>PyMem_Malloc(size * sizeof(uint32_t))
        if keys == NULL or span == NULL:
            PyMem_Free(keys)
            PyMem_Free(span)
            raise MemoryError()
        memset(keys, 0xFF, size * sizeof(int64_t))  # every key -1
        self.key_at = keys
        self.span = span
        self.mask = size - 1
        return 0

    cdef inline Py_ssize_t find(self, int64_t key) noexcept:
        """The slot holding ``key``, or -1."""
        cdef uint64_t slot = _mix(<uint64_t>key) & self.mask
        cdef int64_t found
        while True:
            found = self.key_at[slot]
            if found == key:
                return <Py_ssize_t>slot
            if found < 0:
                return -1
            slot = (slot + 1) & self.mask

    cdef int _grow(self) except -1:
        cdef int64_t *old_keys = self.key_at
        cdef uint32_t *old_span = self.span
        cdef uint64_t size = self.mask + 1, i, slot
        try:
            self._table(2 * size)
        except MemoryError:
            self.key_at, self.span, self.mask = old_keys, old_span, size - 1
            raise
        for i in range(size):
            if old_keys[i] >= 0:
                slot = _mix(<uint64_t>old_keys[i]) & self.mask
                while self.key_at[slot] >= 0:
                    slot = (slot + 1) & self.mask
                self.key_at[slot] = old_keys[i]
                self.span[slot] = old_span[i]
        PyMem_Free(old_keys)
        PyMem_Free(old_span)
        return 0

    cdef int _repool(self, Py_ssize_t room, bint free=True) except -1:
        """A new pool of the live spans, packed, with room for ``room`` more ints (``free``:
        free the old pool; a copy reads its original's and leaves it)."""
        cdef Py_ssize_t cap = self.live + room, at = 0, n
        cdef uint64_t i
        cdef int *pool
        if cap < 1024:
            cap = 1024
        if cap > <Py_ssize_t>LOW32:
            raise MemoryError("an occurrence index of more than 2**32 ints")
        pool = <int *>PyMem_Malloc(cap * sizeof(int))
        if pool == NULL:
            raise MemoryError()
        for i in range(self.mask + 1):
            if self.key_at[i] >= 0:
                n = self.pool[self.span[i]] + 1
                memcpy(pool + at, self.pool + self.span[i], n * sizeof(int))
                self.span[i] = <uint32_t>at
                at += n
        if free:
            PyMem_Free(self.pool)
        self.pool = pool
        self.fill = at
        self.cap = cap
        return 0

    cdef int _compact(self) except -1:
        """Shed the garbage in place: the live spans, in pool order, moved down over it (no
        second pool is held beside the first, as :meth:`_repool` holds one). Each live span's
        length is swapped for its slot (negative) while the pool is walked; a garbage span keeps
        its length, which is how the walk steps over it."""
        cdef uint64_t size = self.mask + 1, i
        cdef uint32_t *lengths
        cdef Py_ssize_t at = 0, to = 0, n
        cdef int v
        if size > <uint64_t>INT32_MAX:  # a slot must fit a (negative) int
            return self._repool(0)
        lengths = <uint32_t *>PyMem_Malloc(size * sizeof(uint32_t))
        if lengths == NULL:
            raise MemoryError()
        for i in range(size):
            if self.key_at[i] >= 0:
                lengths[i] = <uint32_t>self.pool[self.span[i]]
                self.pool[self.span[i]] = -1 - <int>i
        while at < self.fill:
            v = self.pool[at]
            if v >= 0:  # garbage: step over it
                at += v + 1
                continue
            i = <uint64_t>(-1 - v)
            n = lengths[i]
            if to != at:
                memmove(self.pool + to, self.pool + at, (n + 1) * sizeof(int))
            self.pool[to] = <int>n
            self.span[i] = <uint32_t>to
            to += n + 1
            at += n + 1
        PyMem_Free(lengths)
        self.fill = to
        return 0

    cdef int _room(self, Py_ssize_t need) except -1:
        """Make room for ``need`` more ints at the pool's end: shed the garbage in place when it
        is at least a quarter of the pool, and grow the pool to one and a half times what it
        must hold if that is not room enough. (Shedding only half-garbage pools into a new pool
        of twice the size kept the index at five times its live lists on 200 MB of code, and
        the pool is most of what training adds to the memory: docs/benchmarks.md.)"""
        cdef int *pool
        cdef Py_ssize_t cap
        if self.fill + need <= self.cap:
            return 0
        if 4 * (self.fill - self.live) >= self.fill:
            self._compact()
            if self.fill + need <= self.cap:
                return 0
        cap = self.fill + need + (self.fill + need) // 2
        if cap > <Py_ssize_t>LOW32:
            cap = <Py_ssize_t>LOW32
            if self.fill + need > cap:
                raise MemoryError("an occurrence index of more than 2**32 ints")
        pool = <int *>PyMem_Realloc(self.pool, cap * sizeof(int))
        if pool == NULL:
            raise MemoryError()
        self.pool = pool
        self.cap = cap
        return 0

    cdef int put(self, int64_t key, const int *nodes, Py_ssize_t n) except -1:
        """Set ``key``'s list to the ``n`` addresses at ``nodes`` (not in the pool itself)."""
        cdef Py_ssize_t at = self.reserve(key, n)
        if n:
            memcpy(self.pool + at, nodes, n * sizeof(int))
        return 0

    cdef Py_ssize_t reserve(self, int64_t key, Py_ssize_t n) except -1:
        """Set ``key``'s list to ``n`` addresses the caller writes at ``pool + `` the offset
        returned (before the pool changes again)."""
        cdef Py_ssize_t at
        cdef uint64_t slot
        cdef int64_t found
        if key < 0:
            raise ValueError("a pair key is not negative")
        if n > INT32_MAX:
            raise OverflowError("an occurrence list of more than 2**31 - 1 addresses")
        self._room(n + 1)
        at = self.fill
        self.pool[at] = <int>n
        self.fill += n + 1
        self.live += n + 1
        slot = _mix(<uint64_t>key) & self.mask
        while True:
            found = self.key_at[slot]
            if found == key:
                self.live -= self.pool[self.span[slot]] + 1  # the old span is garbage now
                self.span[slot] = <uint32_t>at
                return at + 1
            if found < 0:
                break
            slot = (slot + 1) & self.mask
        self.key_at[slot] = key
        self.span[slot] = <uint32_t>at
        self.used += 1
        if 2 * <uint64_t>self.used > self.mask + 1:
            self._grow()
        return at + 1

    cdef void remove(self, Py_ssize_t at) noexcept:
        """Empty slot ``at`` (its span becomes garbage), shifting back the entries after it that
        probed past it."""
        cdef uint64_t i = <uint64_t>at, j = i, home, mask = self.mask
        self.live -= self.pool[self.span[i]] + 1
        while True:
            j = (j + 1) & mask
            if self.key_at[j] < 0:
                break
            home = _mix(<uint64_t>self.key_at[j]) & mask
            if (j > i and (home <= i or home > j)) or (j < i and home <= i and home > j):
                self.key_at[i] = self.key_at[j]
                self.span[i] = self.span[j]
                i = j
        self.key_at[i] = -1
        self.used -= 1

    cdef carray.array _list(self, Py_ssize_t slot):
        """The list at ``slot`` as a new ``array('i')``."""
        cdef const int *at = self.pool + self.span[slot]
        cdef carray.array out = _ints(at[0])
        if at[0]:
            memcpy(out.data.as_ints, at + 1, at[0] * sizeof(int))
        return out

    # -- the dict interface ------------------------------------------------------------------

    def __len__(self):
        return self.used

    def __contains__(self, key):
        return type(key) is int and key >= 0 and self.find(key) >= 0

    def __getitem__(self, key):
        cdef Py_ssize_t at = self.find(key) if type(key) is int and key >= 0 else -1
        if at < 0:
            raise KeyError(key)
        return self._list(at)

    def __setitem__(self, key, nodes):
        cdef const int[::1] view
        if not (isinstance(nodes, carray.array) and nodes.typecode == "i"):
            nodes = carray.array("i", nodes)
        if len(nodes) == 0:
            self.put(key, NULL, 0)
            return
        view = nodes
        self.put(key, &view[0], view.shape[0])

    def __delitem__(self, key):
        cdef Py_ssize_t at = self.find(key) if type(key) is int and key >= 0 else -1
        if at < 0:
            raise KeyError(key)
        self.remove(at)

    def get(self, key, default=None):
        cdef Py_ssize_t at = self.find(key) if type(key) is int and key >= 0 else -1
        return self._list(at) if at >= 0 else default

    def pop(self, key, *default):
        cdef Py_ssize_t at = self.find(key) if type(key) is int and key >= 0 else -1
        if at < 0:
            if default:
                return default[0]
            raise KeyError(key)
        out = self._list(at)
        self.remove(at)
        return out

    def keys(self):
        cdef uint64_t i
        cdef list out = []
        for i in range(self.mask + 1):
            if self.key_at[i] >= 0:
                out.append(self.key_at[i])
        return out

    def values(self):
        return [self._list(self.find(k)) for k in self.keys()]

    def items(self):
        return [(k, self._list(self.find(k))) for k in self.keys()]

    def __iter__(self):
        return iter(self.keys())

    def copy(self):
        """A copy with its own table and a pool of the live spans only."""
        cdef Where other = Where.__new__(Where)
        PyMem_Free(other.key_at)
        PyMem_Free(other.span)
        other.key_at = NULL
        other.span = NULL
        other._table(self.mask + 1)
        memcpy(other.key_at, self.key_at, (self.mask + 1) * sizeof(int64_t))
        memcpy(other.span, self.span, (self.mask + 1) * sizeof(uint32_t))
        other.used = self.used
        # the spans still point into this pool: repool reads them from there
        other.pool = self.pool
        other.live = self.live
        try:
            other._repool(0, False)
        except BaseException:
            other.pool = NULL
            raise
        return other

    def __eq__(self, other):
        if isinstance(other, (Where, dict)):
            mine = {k: list(v) for k, v in self.items()}
            return mine == {k: list(v) for k, v in other.items()}
        return NotImplemented

    def __reduce__(self):
        return Where, ({k: v for k, v in self.items()},)

    def __repr__(self):
        return f"Where({ {k: list(v) for k, v in self.items()}!r})"

    @property
    def nbytes(self):
        """The bytes it holds: its table and its pool."""
        return (self.mask + 1) * (sizeof(int64_t) + sizeof(uint32_t)) + self.cap * sizeof(int)

    def first(self, data, int64_t key):
        """The address of the pair's first live occurrence, or None (PairState.first)."""
        cdef Py_ssize_t at = self.find(key) if key >= 0 else -1
        cdef int[::1] narrow
        cdef long long[::1] wide
        cdef Py_ssize_t i, n
        cdef const int *nodes
        cdef int64_t a = key >> SHIFT, b = key & MASK, p
        if at < 0:
            return None
        nodes = self.pool + self.span[at] + 1
        n = nodes[-1]
        if data.typecode == "i":
            narrow = data
            for i in range(n):
                p = nodes[i]
                if narrow[p] == a and narrow[narrow[p + 1]] == b:
                    return p
        else:
            wide = data
            for i in range(n):
                p = nodes[i]
                if wide[p] == a and wide[wide[p + 1]] == b:
                    return p
        return None
