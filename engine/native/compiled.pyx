# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The compiled core: the engine's hot loops in Cython, behind :mod:`engine.native.backend` (read it
first). Every function here has a pure-Python twin that is the reference: chunk encoding
(``engine.encode.apply_merges.apply_merges``), the trainer's merge, node layout and first pair index
(``merge``, ``layout``, ``index_pairs`` in ``engine.train.loops``). tests/engine/test_core.py holds them to
identical results."""

from cpython cimport array as carray
from cpython.dict cimport PyDict_GetItem, PyDict_SetItem
from cpython.mem cimport PyMem_Free, PyMem_Malloc, PyMem_Realloc
from cpython.ref cimport PyObject
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from libc.string cimport memcmp, memcpy, memset

#: The digest of this file's source, written in by hatch_build.py at build time: engine.native.backend
#: uses this module only when it matches the .pyx beside it (an editable install edited since
#: falls back to pure Python).
BUILT_FROM = None

cdef int SHIFT = 20
cdef int64_t MASK = (1 << 20) - 1
#: engine.train.pairs.SHIFT, as this module packs pairs (tests/test_core.py checks they agree).
SHIFT_BITS = SHIFT
cdef uint64_t EMPTY = <uint64_t>-1
cdef int64_t NO_RANK = (<int64_t>1) << 62
cdef uint64_t LOW32 = 0xFFFFFFFF
#: Chunks up to this many ids use the C-level scan (quadratic, but in C); longer ones a heap.
cdef Py_ssize_t SCAN_LIMIT = 256


cdef inline uint64_t _mix(uint64_t key) nogil:
    key ^= key >> 29
    key *= <uint64_t>0xBF58476D1CE4E5B9
    key ^= key >> 32
    return key


cdef inline Py_ssize_t _push(uint64_t *heap, Py_ssize_t size, uint64_t entry) noexcept nogil:
    # At most n - 1 entries at first, and each merge (at most n - 1) pushes at most two while
    # popping one: the heap never holds more than 3n.
    cdef Py_ssize_t i = size, parent
    while i > 0:
        parent = (i - 1) >> 1
        if heap[parent] <= entry:
            break
        heap[i] = heap[parent]
        i = parent
    heap[i] = entry
    return size + 1


cdef inline Py_ssize_t _pop(uint64_t *heap, Py_ssize_t size) noexcept nogil:
    size -= 1
    cdef uint64_t last = heap[size]
    cdef Py_ssize_t i = 0, child
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and heap[child + 1] < heap[child]:
            child += 1
        if heap[child] >= last:
            break
        heap[i] = heap[child]
        i = child
    if size > 0:
        heap[i] = last
    return size


#: engine.encode.apply_merges's kinds of border between two three-byte characters (held by a token cut there,
#: only by tokens of whole characters, by none).
cdef unsigned char B_CUT = 0, B_WHOLE = 1, B_APART = 2


cdef inline bint _three_byte_chars(const unsigned char *p, Py_ssize_t n) noexcept nogil:
    """Whether ``p[:n]`` is two or more three-byte characters, each valid UTF-8 (E0 A0-BF,
    E1-EC, ED 80-9F, EE-EF)."""
    cdef Py_ssize_t k
    if n < 6 or n % 3:
        return False
    for k in range(0, n, 3):
        if not (0xE0 <= p[k] <= 0xEF and 0x80 <= p[k + 1] <= 0xBF and 0x80 <= p[k + 2] <= 0xBF):
            return False
        if (p[k] == 0xE0 and p[k + 1] < 0xA0) or (p[k] == 0xED and p[k + 1] > 0x9F):
            return False
    return True


cdef class _Wide:
    """Three-byte characters merged one by one first: ``source()`` gives, at the first piece of
    them (:meth:`ready`), the tables of ``engine.encode.apply_merges.Borders.tables`` (the 65,536 kinds of
    border, and the tokens cut across a border as ``(first byte << 8 | second byte, token,
    where the pair stands in it)``), or None where characters first does not hold. It keeps a
    table of characters with four ints each, which the encoder that holds it fills:
    ChunkEncoder's ids, RankMerger's parts."""

    cdef object source                # None once asked
    cdef bytes kinds                  # None: no tables
    cdef int32_t *cut_head            # by pair of bytes: the first of its cut tokens, or -1
    cdef int32_t *cut_next
    cdef const unsigned char **cut_data
    cdef Py_ssize_t *cut_length
    cdef Py_ssize_t *cut_offset       # where the pair stands in the token
    cdef list cut_keep
    cdef uint32_t *char_keys          # a character's three bytes | 1 << 24; 0: an empty slot
    cdef int32_t *char_vals           # four a slot
    cdef Py_ssize_t char_cap, char_used

    def __cinit__(self, source):
        self.source = source

    cdef bint ready(self) except -1:
        """Whether there are tables (asked for the first time here)."""
        if self.source is not None:
            tables, self.source = self.source(), None
            if tables is not None:
                self._load(tables)
        return self.kinds is not None

    cdef int _load(self, tables) except -1:
        cdef Py_ssize_t k, count, code
        kinds, cuts = tables
        if not isinstance(kinds, bytes) or len(<bytes>kinds) != 65536:
            raise ValueError("the border kinds are 65,536 bytes")
        count = len(cuts)
        self.cut_head = <int32_t *>PyMem_Malloc(65536 * sizeof(int32_t))
        self.cut_next = <int32_t *>PyMem_Malloc(max(count, 1) * sizeof(int32_t))
        self.cut_data = <const unsigned char **>PyMem_Malloc(max(count, 1) * sizeof(unsigned char *))
        self.cut_length = <Py_ssize_t *>PyMem_Malloc(max(count, 1) * sizeof(Py_ssize_t))
        self.cut_offset = <Py_ssize_t *>PyMem_Malloc(max(count, 1) * sizeof(Py_ssize_t))
        if not (self.cut_head and self.cut_next and self.cut_data and self.cut_length and self.cut_offset):
            raise MemoryError()
        for k in range(65536):
            self.cut_head[k] = -1
        self.cut_keep = []
        for k in range(count):
            code, token, offset = cuts[k]
            if not (0 <= code < 65536 and isinstance(token, bytes) and 0 <= offset < len(token) - 1):
                raise ValueError("a cut token is (pair, bytes, offset of the pair)")
            self.cut_keep.append(token)
            self.cut_data[k] = <bytes>token
            self.cut_length[k] = len(<bytes>token)
            self.cut_offset[k] = offset
            self.cut_next[k] = self.cut_head[code]
            self.cut_head[code] = <int32_t>k
        self.kinds = kinds
        return 0

    def __dealloc__(self):
        PyMem_Free(self.cut_head)
        PyMem_Free(self.cut_next)
        PyMem_Free(self.cut_data)
        PyMem_Free(self.cut_length)
        PyMem_Free(self.cut_offset)
        PyMem_Free(self.char_keys)
        PyMem_Free(self.char_vals)

    cdef unsigned char kind(self, const unsigned char *p, Py_ssize_t n) noexcept:
        """The least kind of the borders of ``p[:n]`` (three-byte characters: see
        _three_byte_chars), a border held by a cut token counting as whole where that token
        does not stand around it."""
        cdef const unsigned char *kinds = self.kinds
        cdef unsigned char kind = B_APART, border
        cdef Py_ssize_t k, start
        cdef int32_t c
        for k in range(3, n, 3):
            border = kinds[p[k - 1] << 8 | p[k]]
            if border == B_CUT:
                c = self.cut_head[p[k - 1] << 8 | p[k]]
                while c >= 0:
                    start = k - 1 - self.cut_offset[c]
                    if start >= 0 and start + self.cut_length[c] <= n and memcmp(p + start, self.cut_data[c], self.cut_length[c]) == 0:
                        return B_CUT
                    c = self.cut_next[c]
                border = B_WHOLE
            if border < kind:
                kind = border
        return kind

    cdef int32_t *slot(self, const unsigned char *b, bint *fresh) except NULL:
        """The four ints kept for the character ``b[0:3]``; ``fresh`` says they were just made
        (for the caller to fill)."""
        cdef uint32_t key = (<uint32_t>b[0] << 16 | <uint32_t>b[1] << 8 | <uint32_t>b[2]) | (<uint32_t>1 << 24)
        cdef Py_ssize_t at, k, cap
        cdef uint32_t *keys
        cdef int32_t *vals
        if self.char_cap == 0 or 2 * (self.char_used + 1) > self.char_cap:
            cap = self.char_cap * 2 if self.char_cap else 1024
            keys = <uint32_t *>PyMem_Malloc(cap * sizeof(uint32_t))
            vals = <int32_t *>PyMem_Malloc(4 * cap * sizeof(int32_t))
            if keys == NULL or vals == NULL:
                PyMem_Free(keys)
                PyMem_Free(vals)
                raise MemoryError()
            memset(keys, 0, cap * sizeof(uint32_t))
            for k in range(self.char_cap):
                if self.char_keys[k]:
                    at = <Py_ssize_t>(_mix(self.char_keys[k]) & <uint64_t>(cap - 1))
                    while keys[at]:
                        at = (at + 1) & (cap - 1)
                    keys[at] = self.char_keys[k]
                    memcpy(vals + 4 * at, self.char_vals + 4 * k, 4 * sizeof(int32_t))
            PyMem_Free(self.char_keys)
            PyMem_Free(self.char_vals)
            self.char_keys, self.char_vals, self.char_cap = keys, vals, cap
        at = <Py_ssize_t>(_mix(key) & <uint64_t>(self.char_cap - 1))
        while self.char_keys[at] and self.char_keys[at] != key:
            at = (at + 1) & (self.char_cap - 1)
        fresh[0] = not self.char_keys[at]
        if fresh[0]:
            self.char_keys[at] = key
            self.char_used += 1
        return self.char_vals + 4 * at



cdef class ChunkEncoder:
    """A tokenizer's merge ranks in an open-addressing table of C ints, and the chunk encoder
    over it: ``encode(ids)`` is ``engine.encode.apply_merges.apply_merges(ids, ranks)``.

    Given the tables of three-byte characters first (:meth:`set_chars`: :class:`_Wide`), a
    chunk's bytes that are all three-byte characters no cut token stands across are merged as
    ``engine.encode.apply_merges.ByteMerger`` merges them: each character alone (once: a table of
    characters), then across the borders when a token of whole characters holds one."""

    cdef uint64_t *keys
    cdef int64_t *values
    cdef uint64_t mask
    cdef _Wide wide                    # three-byte characters first (set_chars), or None

    def __cinit__(self, dict ranks):
        cdef uint64_t size = 16
        while size < 2 * <uint64_t>len(ranks) + 16:
            size <<= 1
        self.mask = size - 1
        self.keys = <uint64_t *>PyMem_Malloc(size * sizeof(uint64_t))
        self.values = <int64_t *>PyMem_Malloc(size * sizeof(int64_t))
        if self.keys == NULL or self.values == NULL:
            raise MemoryError()
        cdef uint64_t i
        for i in range(size):
            self.keys[i] = EMPTY
        cdef uint64_t key, slot
        for k, v in ranks.items():
            key = <uint64_t>k
            slot = _mix(key) & self.mask
            while self.keys[slot] != EMPTY and self.keys[slot] != key:
                slot = (slot + 1) & self.mask
            self.keys[slot] = key
            self.values[slot] = <int64_t>v

    def __dealloc__(self):
        PyMem_Free(self.keys)
        PyMem_Free(self.values)

    def set_chars(self, source):
        """Three-byte characters first, with the tables ``source()`` gives (see :class:`_Wide`);
        None turns it off."""
        self.wide = _Wide(source) if source is not None else None

    cdef Py_ssize_t _wide(self, int64_t *sym, Py_ssize_t n, const unsigned char *raw) except -2:
        """The bytes ``raw[:n]`` (also in ``sym``) merged character by character first into
        ``sym`` when they are three-byte characters no cut token stands across (then the new
        length), else -1 and ``sym`` unchanged."""
        cdef Py_ssize_t k, j, m = 0
        cdef unsigned char kind
        cdef int64_t one[3]
        cdef int32_t *ids
        cdef bint fresh
        cdef _Wide wide = self.wide
        if wide is None or raw == NULL or not _three_byte_chars(raw, n) or not wide.ready():
            return -1
        kind = wide.kind(raw, n)
        if kind == B_CUT:
            return -1
        for k in range(0, n, 3):  # each character's ids, merged once (the ids never outrun the bytes)
            ids = wide.slot(raw + k, &fresh)
            if fresh:  # how many ids, then the ids
                one[0], one[1], one[2] = raw[k], raw[k + 1], raw[k + 2]
                ids[0] = <int32_t>self._scan(one, 3)
                for j in range(ids[0]):
                    ids[1 + j] = <int32_t>one[j]
            for j in range(ids[0]):
                sym[m + j] = ids[1 + j]
            m += ids[0]
        if kind == B_WHOLE and m >= 2:
            m = self._scan(sym, m) if m <= SCAN_LIMIT else self._heap(sym, m)
        return m

    cdef Py_ssize_t _bytes(self, int64_t *sym, Py_ssize_t n, const unsigned char *raw) except -1:
        """A bytes-base chunk's ``n`` bytes in ``sym`` (and ``raw``, or NULL) merged; returns the
        new length."""
        cdef Py_ssize_t m
        if n < 2:
            return n
        m = self._wide(sym, n, raw)
        if m >= 0:
            return m
        return self._scan(sym, n) if n <= SCAN_LIMIT else self._heap(sym, n)

    cdef inline int64_t rank(self, int64_t a, int64_t b) noexcept nogil:
        cdef uint64_t key = (<uint64_t>a << SHIFT) | <uint64_t>b
        cdef uint64_t slot = _mix(key) & self.mask
        cdef uint64_t found
        while True:
            found = self.keys[slot]
            if found == key:
                return self.values[slot]
            if found == EMPTY:
                return NO_RANK
            slot = (slot + 1) & self.mask

    def encode(self, list ids):
        """One chunk's base ids -> its ids (``ids`` is not changed)."""
        cdef Py_ssize_t n = len(ids)
        if n < 2:
            return list(ids)
        cdef int64_t *sym = <int64_t *>PyMem_Malloc(n * sizeof(int64_t))
        if sym == NULL:
            raise MemoryError()
        cdef Py_ssize_t i
        cdef int64_t x
        try:
            for i in range(n):
                x = ids[i]
                if x < 0 or x >= (1 << SHIFT):
                    raise ValueError(f"id {x} outside the ids a tokenizer can have")
                sym[i] = x
            if n <= SCAN_LIMIT:
                n = self._scan(sym, n)
            else:
                n = self._heap(sym, n)
            return [sym[i] for i in range(n)]
        finally:
            PyMem_Free(sym)

    def encode_text(self, str chunk):
        """One chunk's text -> its ids under the bytes base (its UTF-8 bytes, lone surrogates as
        the bytes they escape): ``encode(list(chunk.encode("utf-8", "surrogateescape")))``."""
        cdef bytes raw = chunk.encode("utf-8", "surrogateescape")
        cdef Py_ssize_t n = len(raw)
        if n < 2:
            return list(raw)
        cdef const unsigned char *data = raw
        cdef int64_t *sym = <int64_t *>PyMem_Malloc(n * sizeof(int64_t))
        if sym == NULL:
            raise MemoryError()
        cdef Py_ssize_t i
        try:
            for i in range(n):
                sym[i] = data[i]
            n = self._bytes(sym, n, data)
            return [sym[i] for i in range(n)]
        finally:
            PyMem_Free(sym)

    cdef Py_ssize_t _scan(self, int64_t *sym, Py_ssize_t n) except -1:
        """The leftmost lowest-ranked pair merged, again and again; returns the new length."""
        cdef int64_t *rs = <int64_t *>PyMem_Malloc(n * sizeof(int64_t))
        if rs == NULL:
            raise MemoryError()
        cdef Py_ssize_t i, at, m = n - 1
        cdef int64_t best
        with nogil:
            for i in range(m):
                rs[i] = self.rank(sym[i], sym[i + 1])
            while m > 0:
                best = NO_RANK
                at = -1
                for i in range(m):
                    if rs[i] < best:
                        best = rs[i]
                        at = i
                if at < 0:
                    break
                sym[at] = best
                for i in range(at + 1, m):
                    sym[i] = sym[i + 1]
                    rs[i - 1] = rs[i]
                m -= 1  # m pairs left, m + 1 symbols
                if at > 0:
                    rs[at - 1] = self.rank(sym[at - 1], best)
                if at < m:
                    rs[at] = self.rank(best, sym[at + 1])
        PyMem_Free(rs)
        return m + 1

    cdef Py_ssize_t _heap(self, int64_t *sym, Py_ssize_t n) except -1:
        """A heap of ``rank << 32 | position`` over a linked list (engine.encode.apply_merges._apply_long)."""
        cdef Py_ssize_t *nxt = <Py_ssize_t *>PyMem_Malloc(n * sizeof(Py_ssize_t))
        cdef Py_ssize_t *prv = <Py_ssize_t *>PyMem_Malloc(n * sizeof(Py_ssize_t))
        cdef uint64_t *heap = <uint64_t *>PyMem_Malloc(3 * n * sizeof(uint64_t))
        if nxt == NULL or prv == NULL or heap == NULL:
            PyMem_Free(nxt)
            PyMem_Free(prv)
            PyMem_Free(heap)
            raise MemoryError()
        cdef Py_ssize_t i, j, k, o, size = 0, out
        cdef int64_t r, rr
        cdef uint64_t entry
        with nogil:
            for i in range(n):
                nxt[i] = i + 1
                prv[i] = i - 1
            for i in range(n - 1):
                r = self.rank(sym[i], sym[i + 1])
                if r != NO_RANK:
                    size = _push(heap, size, (<uint64_t>r << 32) | <uint64_t>i)
            while size > 0:
                entry = heap[0]
                size = _pop(heap, size)
                i = <Py_ssize_t>(entry & LOW32)
                r = <int64_t>(entry >> 32)
                if sym[i] < 0:
                    continue
                j = nxt[i]
                if j >= n or self.rank(sym[i], sym[j]) != r:
                    continue  # stale
                sym[i] = r
                sym[j] = -1
                k = nxt[j]
                nxt[i] = k
                if k < n:
                    prv[k] = i
                    rr = self.rank(r, sym[k])
                    if rr != NO_RANK:
                        size = _push(heap, size, (<uint64_t>rr << 32) | <uint64_t>i)
                o = prv[i]
                if o >= 0:
                    rr = self.rank(sym[o], r)
                    if rr != NO_RANK:
                        size = _push(heap, size, (<uint64_t>rr << 32) | <uint64_t>o)
            out = 0
            for i in range(n):
                if sym[i] >= 0:
                    sym[out] = sym[i]
                    out += 1
        PyMem_Free(nxt)
        PyMem_Free(prv)
        PyMem_Free(heap)
        return out


# -- recovering a rank file's merges ----------------------------------------------------------

cdef inline uint64_t _bytes_hash(const unsigned char *p, Py_ssize_t n) noexcept nogil:
    cdef uint64_t h = <uint64_t>0xCBF29CE484222325
    cdef Py_ssize_t i
    for i in range(n):
        h = (h ^ p[i]) * <uint64_t>0x100000001B3
    return _mix(h ^ <uint64_t>n)


ctypedef struct _Slot:
    uint64_t hash
    const unsigned char *data
    int64_t place  # -1: empty
    Py_ssize_t length


cdef class _TokenTable:
    """The tokens given so far (by their place in the list), found by their bytes: an
    open-addressing table whose slots hold each token's hash, length and buffer (one cache
    line read for most lookups)."""

    cdef const unsigned char **data
    cdef Py_ssize_t *length
    cdef _Slot *slots
    cdef uint64_t mask
    cdef list keep

    def __cinit__(self, list tokens):
        cdef Py_ssize_t n = len(tokens), i
        cdef uint64_t size = 16
        while size < 2 * <uint64_t>n + 16:
            size <<= 1
        self.mask = size - 1
        self.keep = tokens
        self.data = <const unsigned char **>PyMem_Malloc((n + 1) * sizeof(unsigned char *))
        self.length = <Py_ssize_t *>PyMem_Malloc((n + 1) * sizeof(Py_ssize_t))
        self.slots = <_Slot *>PyMem_Malloc(size * sizeof(_Slot))
        if self.data == NULL or self.length == NULL or self.slots == NULL:
            raise MemoryError()
        for i in range(<Py_ssize_t>size):
            self.slots[i].place = -1
        cdef bytes token
        for i in range(n):
            token = tokens[i]
            self.data[i] = token
            self.length[i] = len(token)

    def __dealloc__(self):
        PyMem_Free(self.data)
        PyMem_Free(self.length)
        PyMem_Free(self.slots)

    cdef inline void add(self, int64_t place) noexcept nogil:
        cdef uint64_t h = _bytes_hash(self.data[place], self.length[place])
        cdef uint64_t slot = h & self.mask
        while self.slots[slot].place >= 0:
            slot = (slot + 1) & self.mask
        self.slots[slot].hash = h
        self.slots[slot].data = self.data[place]
        self.slots[slot].length = self.length[place]
        self.slots[slot].place = place

    cdef inline int64_t find(self, const unsigned char *p, Py_ssize_t n) noexcept nogil:
        """The place of the token with these bytes, or -1."""
        cdef uint64_t h = _bytes_hash(p, n)
        cdef uint64_t slot = h & self.mask
        cdef _Slot *at
        cdef Py_ssize_t i
        while True:
            at = &self.slots[slot]
            if at.place < 0:
                return -1
            if at.hash == h and at.length == n:
                i = 0
                while i < n and at.data[i] == p[i]:
                    i += 1
                if i == n:
                    return at.place
            slot = (slot + 1) & self.mask


cdef void _rank_merge(_TokenTable table, const unsigned char *p, Py_ssize_t n, Py_ssize_t *end,
                      Py_ssize_t *prev, int64_t *current, uint64_t *heap, bint parts=False) noexcept nogil:
    """tiktoken's merging of the ``n`` bytes at ``p`` under ``table``'s ranks (the tokens'
    places): afterwards the parts start at 0, ``end[0]``, ``end[end[0]]``, ... A heap of
    ``rank << 24 | start`` over the parts (arrays of n + 1, the heap of 3n + 3). With ``parts``,
    it starts from the parts ``end`` holds already (from 0, as it leaves them), not the bytes."""
    cdef Py_ssize_t s, e, stop, o, size = 0
    cdef int64_t r
    cdef uint64_t entry
    if not parts:
        for s in range(n):  # every byte a part
            end[s] = s + 1
    for s in range(n):
        current[s] = -1
    s, o = 0, -1
    while s < n:  # the candidate pairs in a heap
        prev[s] = o
        e = end[s]
        if e < n:
            r = table.find(p + s, end[e] - s)
            current[s] = r
            if r >= 0:
                size = _push(heap, size, (<uint64_t>r << 24) | <uint64_t>s)
        o, s = s, e
    while size > 0:
        entry = heap[0]
        size = _pop(heap, size)
        s = <Py_ssize_t>(entry & 0xFFFFFF)
        r = <int64_t>(entry >> 24)
        if current[s] != r:
            continue  # stale: one of the two parts changed since
        e = end[s]
        stop = end[e]
        current[e] = -1  # the right part is absorbed
        end[s] = stop
        if stop < n:
            prev[stop] = s
            r = table.find(p + s, end[stop] - s)
            current[s] = r
            if r >= 0:
                size = _push(heap, size, (<uint64_t>r << 24) | <uint64_t>s)
        else:
            current[s] = -1
        o = prev[s]
        if o >= 0:
            r = table.find(p + o, stop - o)
            current[o] = r
            if r >= 0:
                size = _push(heap, size, (<uint64_t>r << 24) | <uint64_t>o)


def split_points(list tokens, progress=None):
    """For each token, in rank order (distinct, two bytes or more), where tiktoken's merging of
    its bytes with only the tokens before it cuts it when exactly two parts are left (the
    length of the first), else 0: see ``split_points`` in engine/encode/tiktoken_merge.py, which returns
    exactly what this does. ``progress(done, total)`` is called now and then."""
    cdef Py_ssize_t count = len(tokens), longest = 2, t, n, s, parts
    cdef bytes token
    for token in tokens:
        if len(token) > longest:
            longest = len(token)
    if longest >= (1 << 24):
        raise ValueError("a token of 16 MB or more")
    cdef _TokenTable table = _TokenTable(tokens)
    out = _ints(count)
    cdef int *cut = out.data.as_ints
    cdef Py_ssize_t *end = <Py_ssize_t *>PyMem_Malloc((longest + 1) * sizeof(Py_ssize_t))
    cdef Py_ssize_t *prev = <Py_ssize_t *>PyMem_Malloc((longest + 1) * sizeof(Py_ssize_t))
    cdef int64_t *current = <int64_t *>PyMem_Malloc((longest + 1) * sizeof(int64_t))
    cdef uint64_t *heap = <uint64_t *>PyMem_Malloc(3 * (longest + 1) * sizeof(uint64_t))
    cdef const unsigned char *p
    try:
        if end == NULL or prev == NULL or current == NULL or heap == NULL:
            raise MemoryError()
        for t in range(count):
            if progress is not None and not t & 0x3FFF:
                progress(t, count)
            p = table.data[t]
            n = table.length[t]
            with nogil:
                _rank_merge(table, p, n, end, prev, current, heap)
                parts, s = 0, 0
                while s < n:
                    parts += 1
                    s = end[s]
                cut[t] = <int>end[0] if parts == 2 else 0
                table.add(t)
        if progress is not None:
            progress(count, count)
        return out
    finally:
        PyMem_Free(end)
        PyMem_Free(prev)
        PyMem_Free(current)
        PyMem_Free(heap)


cdef class RankMerger:
    """tiktoken's merging of one piece under a fixed rank order, in C: ``merge(piece)`` returns
    the parts ``rank_merge(piece, order)`` of engine/encode/tiktoken_merge.py returns, for ``tokens`` the
    keys of ``order`` in rank order (each token's rank its place in the list). The loop is
    split_points's (``_rank_merge``), each pair looked up in a C table of the tokens' bytes; ``merge`` returns None for a piece of 16 MB or more."""

    cdef _TokenTable table
    cdef Py_ssize_t room
    cdef Py_ssize_t *end
    cdef Py_ssize_t *prev
    cdef int64_t *current
    cdef uint64_t *heap
    cdef _Wide wide                   # characters first (engine.encode.tiktoken_merge.CharsFirst), or None

    def __cinit__(self, list tokens):
        cdef Py_ssize_t t
        if len(tokens) >= (<Py_ssize_t>1 << 39):
            raise ValueError("too many tokens")
        self.table = _TokenTable(tokens)
        for t in range(len(tokens)):
            self.table.add(t)
        self.room = 0

    def __dealloc__(self):
        PyMem_Free(self.end)
        PyMem_Free(self.prev)
        PyMem_Free(self.current)
        PyMem_Free(self.heap)

    def set_chars(self, source):
        """Three-byte characters first, with the tables ``source()`` gives (see :class:`_Wide`;
        engine.encode.tiktoken_merge.CharsFirst.tables, None where it does not hold); None turns it off."""
        self.wide = _Wide(source) if source is not None else None

    cdef int _chars_first(self, const unsigned char *p, Py_ssize_t n) except -1:
        """Merge the ``n`` bytes at ``p`` character by character first, as
        engine.encode.tiktoken_merge.CharsFirst does, when they are three-byte characters and it holds
        (room made for ``n``; the parts end at ``self.end``): 1, else 0."""
        cdef Py_ssize_t k, j, s, start, count
        cdef unsigned char kind
        cdef int32_t *ends
        cdef bint fresh
        cdef Py_ssize_t end3[4]
        cdef Py_ssize_t prev3[4]
        cdef int64_t current3[4]
        cdef uint64_t heap3[12]
        cdef _Wide wide = self.wide
        if wide is None or not _three_byte_chars(p, n) or not wide.ready():
            return 0
        kind = wide.kind(p, n)
        if kind == B_CUT:
            return 0
        for k in range(0, n, 3):  # each character's parts (its table holds where they end)
            ends = wide.slot(p + k, &fresh)
            if fresh:  # how many parts, then where each ends (merged alone: not in self.end)
                _rank_merge(self.table, p + k, 3, end3, prev3, current3, heap3)
                count, s = 0, 0
                while s < 3:
                    s = end3[s]
                    count += 1
                    ends[count] = <int32_t>s
                ends[0] = <int32_t>count
            start = k
            for j in range(ends[0]):
                self.end[start] = k + ends[1 + j]
                start = k + ends[1 + j]
        if kind == B_WHOLE:
            _rank_merge(self.table, p, n, self.end, self.prev, self.current, self.heap, True)
        return 1

    cdef int _make_room(self, Py_ssize_t n) except -1:
        if n <= self.room:
            return 0
        PyMem_Free(self.end)
        PyMem_Free(self.prev)
        PyMem_Free(self.current)
        PyMem_Free(self.heap)
        self.room = 0
        self.end = <Py_ssize_t *>PyMem_Malloc((n + 1) * sizeof(Py_ssize_t))
        self.prev = <Py_ssize_t *>PyMem_Malloc((n + 1) * sizeof(Py_ssize_t))
        self.current = <int64_t *>PyMem_Malloc((n + 1) * sizeof(int64_t))
        self.heap = <uint64_t *>PyMem_Malloc(3 * (n + 1) * sizeof(uint64_t))
        if self.end == NULL or self.prev == NULL or self.current == NULL or self.heap == NULL:
            raise MemoryError()
        self.room = n
        return 0

    cdef void _cut(self, const unsigned char *p, Py_ssize_t n) noexcept nogil:
        """Merge the ``n`` bytes at ``p`` (2 or more, room made): the parts end at ``self.end``."""
        _rank_merge(self.table, p, n, self.end, self.prev, self.current, self.heap)

    cdef int _cut_text(self, const unsigned char *p, Py_ssize_t n) except -1:
        """:meth:`_cut`, characters first where they can be (:meth:`_chars_first`)."""
        if self.wide is not None and self._chars_first(p, n):
            return 0
        with nogil:
            self._cut(p, n)
        return 0

    def merge(self, bytes piece):
        cdef Py_ssize_t n = len(piece), s
        if n < 2:
            return [piece]
        if n >= (1 << 24):
            return None
        self._make_room(n)
        cdef const unsigned char *p = piece
        with nogil:
            self._cut(p, n)
        cdef Py_ssize_t *end = self.end
        out = []
        s = 0
        while s < n:
            out.append(piece[s:end[s]])
            s = end[s]
        return out

    def merge_ids(self, bytes piece, carray.array ranked, carray.array single):
        """``merge(piece)``'s parts as ids: a part of two bytes or more is ``ranked[its rank]``,
        a byte ``single[its value]`` (arrays of ints, typecode ``i``); None where one is below 0
        (no id given), for an empty piece, or for one of 16 MB or more."""
        cdef Py_ssize_t n = len(piece), s, e
        cdef int64_t r
        cdef int token
        if ranked.typecode != "i" or single.typecode != "i":
            raise TypeError("the ids by rank and by byte are arrays of typecode 'i'")
        if n == 0 or n >= (1 << 24) or len(single) < 256:
            return None
        self._make_room(n)
        cdef const unsigned char *p = piece
        cdef const int *by_rank = ranked.data.as_ints
        cdef const int *by_byte = single.data.as_ints
        cdef Py_ssize_t rank_count = len(ranked)
        cdef Py_ssize_t *end = self.end
        cdef _TokenTable table = self.table
        if n >= 2:
            self._cut_text(p, n)
        else:
            end[0] = n
        out = []
        s = 0
        while s < n:
            e = end[s]
            if e - s == 1:
                token = by_byte[p[s]]
            else:
                r = table.find(p + s, e - s)
                if r < 0 or r >= rank_count:
                    return None
                token = by_rank[r]
            if token < 0:
                return None
            out.append(token)
            s = e
        return out


# -- training ---------------------------------------------------------------------------------

ctypedef fused node_t:
    int
    long long

cdef carray.array _INTS = carray.array("i")
cdef int64_t INT32_MAX = 2147483647
cdef int64_t SEP = -2  # engine.train.pair_views.SEP
cdef int64_t DEAD = -1  # engine.train.pair_views.DEAD


cdef carray.array _ints(Py_ssize_t n):
    return carray.clone(_INTS, n, zero=False)


cdef inline int _address(int64_t x) except -1:
    if x > INT32_MAX:
        raise OverflowError("a node address above 2**31 - 1 does not fit the occurrence lists")
    return <int>x


cdef int _lay(node_t[::1] data, list pairs, int64_t *starts) except -1:
    """Fill ``data`` with the layout of :func:`layout` (SEP, then each chunk's symbols and a SEP,
    every node linked to its neighbours and weighing its chunk's count)."""
    cdef Py_ssize_t i, j, length, node = 1, chunks = len(pairs)
    cdef int64_t w
    cdef const unsigned char *raw
    data[0] = <node_t>SEP
    data[1] = 4
    data[2] = -4
    data[3] = 0
    for i in range(chunks):
        pair = <tuple>pairs[i]
        seq = pair[0]
        w = pair[1]
        starts[i] = 4 * node
        if type(seq) is bytes:  # the bytes base: the symbols are the bytes
            length = len(<bytes>seq)
            raw = <const unsigned char *>(<bytes>seq)
            for j in range(length):
                data[4 * node] = <node_t>raw[j]
                data[4 * node + 1] = <node_t>(4 * node + 4)
                data[4 * node + 2] = <node_t>(4 * node - 4)
                data[4 * node + 3] = <node_t>w
                node += 1
        else:
            length = len(<list>seq)
            for j in range(length):
                data[4 * node] = <node_t>(<int64_t>(<list>seq)[j])
                data[4 * node + 1] = <node_t>(4 * node + 4)
                data[4 * node + 2] = <node_t>(4 * node - 4)
                data[4 * node + 3] = <node_t>w
                node += 1
        data[4 * node] = <node_t>SEP
        data[4 * node + 1] = <node_t>(4 * node + 4)
        data[4 * node + 2] = <node_t>(4 * node - 4)
        data[4 * node + 3] = <node_t>w
        node += 1
    return 0


def layout(list pairs):
    """The pair state's node array for ``pairs`` (non-empty symbol lists, or bytes, with their weights), as
    ``(data, starts, tokens)``: see ``layout`` in engine/train/loops.py, which returns exactly
    what this does. None when a weight or a symbol does not fit 63 bits (the pure twin then
    says what is wrong)."""
    cdef Py_ssize_t i, chunks = len(pairs), n = 1
    cdef int64_t w, maxw = 0, length
    cdef object tokens = 0
    for i in range(chunks):
        pair = pairs[i]
        if type(pair) is not tuple or len(<tuple>pair) != 2 or type((<tuple>pair)[0]) not in (list, bytes):
            return None
        try:
            w = (<tuple>pair)[1]
        except (OverflowError, TypeError):
            return None
        length = len((<tuple>pair)[0])
        n += length + 1
        if w > maxw:
            maxw = w
        tokens += (<object>w) * length
    code = "i" if maxw <= INT32_MAX and 4 * n + 4 <= INT32_MAX else "q"
    data = carray.clone(carray.array(code), 4 * n, zero=False)
    starts = carray.clone(carray.array("q"), chunks, zero=False)
    cdef long long *at = (<carray.array>starts).data.as_longlongs
    cdef int[::1] narrow
    cdef long long[::1] wide
    try:
        if code == "i":
            narrow = data
            _lay(narrow, pairs, <int64_t *>at)
        else:
            wide = data
            _lay(wide, pairs, <int64_t *>at)
    except (OverflowError, TypeError):
        return None
    return data, starts, tokens


cdef int _index(node_t[::1] data, Py_ssize_t n, int *gid, list order, list totals) except -1:
    """Number the pairs of the layout in order of first occurrence (``gid`` per node: the pair
    it starts, or -1), appending each pair's key to ``order``; ``totals`` gets the weighted counts."""
    cdef uint64_t size = 1 << 12, mask, slot, i
    cdef uint64_t *keys = <uint64_t *>PyMem_Malloc(size * sizeof(uint64_t))
    cdef int *group = <int *>PyMem_Malloc(size * sizeof(int))
    cdef int64_t *total = <int64_t *>PyMem_Malloc((n + 1) * sizeof(int64_t))
    cdef uint64_t *keys2
    cdef int *group2
    cdef Py_ssize_t node, count = 0, j
    cdef int64_t prev = SEP, s
    cdef uint64_t key
    cdef int g
    try:
        if keys == NULL or group == NULL or total == NULL:
            raise MemoryError()
        memset(keys, 0xFF, size * sizeof(uint64_t))
        mask = size - 1
        for node in range(n):
            s = data[4 * node]
            gid[node] = -1
            if prev >= 0 and s >= 0:
                key = (<uint64_t>prev << SHIFT) | <uint64_t>s
                slot = _mix(key) & mask
                while True:
                    if keys[slot] == EMPTY:
                        g = <int>count
                        keys[slot] = key
                        group[slot] = g
                        order.append(<int64_t>key)
                        total[g] = 0
                        count += 1
                        if 2 * <uint64_t>count > size:  # grow: rehash into twice the slots
                            keys2 = <uint64_t *>PyMem_Malloc(2 * size * sizeof(uint64_t))
                            group2 = <int *>PyMem_Malloc(2 * size * sizeof(int))
                            if keys2 == NULL or group2 == NULL:
                                PyMem_Free(keys2)
                                PyMem_Free(group2)
                                raise MemoryError()
                            memset(keys2, 0xFF, 2 * size * sizeof(uint64_t))
                            mask = 2 * size - 1
                            for i in range(size):
                                if keys[i] != EMPTY:
                                    slot = _mix(keys[i]) & mask
                                    while keys2[slot] != EMPTY:
                                        slot = (slot + 1) & mask
                                    keys2[slot] = keys[i]
                                    group2[slot] = group[i]
                            PyMem_Free(keys)
                            PyMem_Free(group)
                            keys, group, size = keys2, group2, 2 * size
                        break
                    if keys[slot] == key:
                        g = group[slot]
                        break
                    slot = (slot + 1) & mask
                gid[node - 1] = g  # the pair starts at the node before
                total[g] += data[4 * node + 3]
            prev = s
        for j in range(count):
            totals.append(total[j])
    finally:
        PyMem_Free(keys)
        PyMem_Free(group)
        PyMem_Free(total)
    return 0


def index_pairs(data, int64_t floor):
    """The first count and occurrence index of a layout: see ``index_pairs`` in
    engine/train/loops.py, which returns exactly what this does."""
    cdef Py_ssize_t n = len(data) // 4, i, j, count, kept = 0
    cdef int *gid = <int *>PyMem_Malloc((n + 1) * sizeof(int))
    cdef int *size = NULL
    cdef int **into = NULL
    cdef list order = [], totals = []
    cdef int[::1] narrow
    cdef long long[::1] wide
    cdef int g
    if gid == NULL:
        raise MemoryError()
    try:
        if data.typecode == "i":
            narrow = data
            _index(narrow, n, gid, order, totals)
        else:
            wide = data
            _index(wide, n, gid, order, totals)
        count = len(order)
        size = <int *>PyMem_Malloc((count + 1) * sizeof(int))
        into = <int **>PyMem_Malloc((count + 1) * sizeof(int *))
        if size == NULL or into == NULL:
            raise MemoryError()
        for j in range(count):
            size[j] = 0
        for i in range(n):
            if gid[i] >= 0:
                size[gid[i]] += 1
        counts = Counts()
        where = {}
        for j in range(count):
            if <int64_t>totals[j] < floor:
                into[j] = NULL
                continue
            arr = _ints(size[j])
            into[j] = (<carray.array>arr).data.as_ints
            counts.put(order[j], totals[j])
            where[order[j]] = arr
            size[j] = 0
        for i in range(n):
            g = gid[i]
            if g >= 0 and into[g] != NULL:
                into[g][size[g]] = _address(4 * i)
                size[g] += 1
        return counts, where
    finally:
        PyMem_Free(gid)
        PyMem_Free(size)
        PyMem_Free(into)


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
                  object hist, dict where, object heap, int64_t floor, object front, object entry):
    cdef Py_ssize_t m = plist.shape[0]
    cdef Py_ssize_t i, j, done = 0, nl = 0, nr = 0, fresh = 0, g, size
    cdef int64_t p, q, o, r, w, extra = 0, k, wt, so, sr, c
    cdef int64_t key = (a << SHIFT) | b
    cdef int src
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
            so = lsym[g]
            wt = lwt[g]
            k = (so << SHIFT) | a
            if so == new_id:  # an adjacent earlier occurrence: (new, a) becomes (new, new)
                _add(table, mask, nkey, ncount, nsrc, &fresh, k, -wt, -1)
            elif k != key:
                _lose(count, &tally, k, wt)
            _add(table, mask, nkey, ncount, nsrc, &fresh, (so << SHIFT) | new_id, wt, <int>g)
        for g in range(nr):
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
            c = ncount[j]
            if c < floor:  # counts never grow: born below the floor (or gone), never merged
                continue
            src = nsrc[j]
            if src < 0:
                raise RuntimeError("a new pair with a count but no nodes")
            if src < nl:
                size = lsize[src]
                nodes = _ints(size)
                memcpy((<carray.array>nodes).data.as_ints, lflat + lstart[src], size * sizeof(int))
            else:
                size = rsize[src - nl]
                nodes = _ints(size)
                memcpy((<carray.array>nodes).data.as_ints, rflat + rstart[src - nl], size * sizeof(int))
            count.put(nkey[j], c)
            k_obj = nkey[j]
            c_obj = c
            _tally(&tally, c, 1)
            where[k_obj] = nodes
            if entry is not None:
                heappush(heap, entry(k_obj, c_obj, (<carray.array>nodes).data.as_ints[0]))
            elif queue is not None:
                qe.field = C_CMAX - <uint64_t>c
                qe.key = <uint64_t>nkey[j]
                queue.push(qe)
                if bound >= 0 and (qe.field < bfield or (qe.field == bfield and qe.key <= bkey)):
                    e = ((CMAX - c_obj) << 40) | k_obj
                    ahead = front[2]
                    at = bisect_left(ahead, e)
                    if at == len(ahead) or ahead[at] != e:
                        ahead.insert(at, e)
            else:
                e = ((CMAX - c_obj) << 40) | k_obj
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


def merge(data, plist, int64_t a, int64_t b, int64_t new_id, Counts count, hist, dict where, heap,
          int64_t floor, front, entry):
    """One merge of the pair state: ``engine.train.loops.merge`` (relink, then account) in one
    C pass, which returns exactly what this does. Only the pairs that can ever win get an
    occurrence array; the others' groups stay C buffers."""
    cdef int[::1] narrow
    cdef long long[::1] wide
    cdef const int[::1] at = plist
    if data.typecode == "i":  # not a fused def: its dispatch would import numpy
        narrow = data
        return _merge(narrow, at, a, b, new_id, count, hist, where, heap, floor, front, entry)
    wide = data
    return _merge(wide, at, a, b, new_id, count, hist, where, heap, floor, front, entry)


# -- writing ids out; counting ASCII chunks (h-count, issue 24's third round) -------------------

from cpython.unicode cimport (PyUnicode_DATA, PyUnicode_DecodeASCII, PyUnicode_KIND, PyUnicode_READ,
                              PyUnicode_Substring)


def ids_text(list ids, table=None):
    """``" ".join(map(str, ids))``, each id first mapped through ``table`` (a list: our id -> the
    file's; None: the ids as they are), in one C-level pass. None when an id is out of the
    table's range, negative, not an int, or maps to None: the caller's pure path then says why.
    Twin: ``engine.formats.common.Imported.ids_text`` on the pure path."""
    cdef Py_ssize_t n = len(ids), m = 0, i, at = 0, size
    cdef int64_t *tab = NULL
    cdef int64_t v, x
    cdef char *buf
    cdef char digits[24]
    cdef char *grown
    cdef int d
    if n == 0:
        return ""
    if table is not None:
        m = len(table)
        tab = <int64_t *>PyMem_Malloc(max(m, 1) * sizeof(int64_t))
        if tab == NULL:
            raise MemoryError
    size = n * 8 + 32
    buf = <char *>PyMem_Malloc(size)
    if buf == NULL:
        PyMem_Free(tab)
        raise MemoryError
    try:
        for i in range(m):
            item = table[i]
            if type(item) is not int or item < 0 or item > INT32_MAX:
                tab[i] = -1
            else:
                tab[i] = <int64_t>item
        for i in range(n):
            item = ids[i]
            if type(item) is not int or item < 0 or item > INT32_MAX:
                return None
            v = <int64_t>item
            if tab != NULL:
                if v >= m or tab[v] < 0:
                    return None
                v = tab[v]
            if at + 24 > size:
                size *= 2
                grown = <char *>PyMem_Realloc(buf, size)
                if grown == NULL:
                    raise MemoryError
                buf = grown
            if i:
                buf[at] = 32
                at += 1
            d = 0
            x = v
            while True:
                digits[d] = <char>(48 + x % 10)
                d += 1
                x //= 10
                if x == 0:
                    break
            while d:
                d -= 1
                buf[at] = digits[d]
                at += 1
        return PyUnicode_DecodeASCII(buf, at, NULL)
    finally:
        PyMem_Free(buf)
        PyMem_Free(tab)


# The classes of ASCII characters the named patterns tell apart (engine.text.pretokenize.ASCII_PATTERNS):
# letters, digits, space (\t \n \v \f \r and the space; not \x1c-\x1f) and the rest.
cdef enum:
    _LET = 1
    _DIG = 2
    _WSP = 3
    _OTH = 4

cdef unsigned char _CLASS[128]
for _c in range(128):
    _CLASS[_c] = (_LET if (65 <= _c <= 90 or 97 <= _c <= 122) else _DIG if 48 <= _c <= 57
                  else _WSP if _c in (9, 10, 11, 12, 13, 32) else _OTH)


cdef inline Py_ssize_t _run(int kind, void *data, Py_ssize_t i, Py_ssize_t n, unsigned char cls) noexcept:
    """The end of the run of characters of class ``cls`` from ``i``."""
    while i < n and _CLASS[PyUnicode_READ(kind, data, i)] == cls:
        i += 1
    return i


cdef inline bint _contraction_tail(unsigned int a, unsigned int b, bint fold) noexcept:
    if fold:
        a |= 32
        b |= 32
    return (a == 108 and b == 108) or (a == 118 and b == 101) or (a == 114 and b == 101)  # ll ve re


cdef inline bint _upper(unsigned int c) noexcept:
    return 65 <= c <= 90


cdef inline bint _lower(unsigned int c) noexcept:
    return 97 <= c <= 122


cdef Py_ssize_t _o200k_letters(int kind, void *data, Py_ssize_t s, Py_ssize_t n) noexcept:
    """o200k's letters from ``s`` (a letter) on ASCII text ending at ``n``: its two first
    alternatives are capitals then small letters, one run of each (``HTTPServer`` is one chunk,
    ``fooBar`` two), then a contraction in any case."""
    cdef Py_ssize_t j = s
    cdef unsigned int c1
    while j < n and _upper(PyUnicode_READ(kind, data, j)):
        j += 1
    while j < n and _lower(PyUnicode_READ(kind, data, j)):
        j += 1
    if j + 1 < n and <unsigned int>PyUnicode_READ(kind, data, j) == 39:
        c1 = <unsigned int>PyUnicode_READ(kind, data, j + 1)
        c1 |= 32
        if c1 == 115 or c1 == 116 or c1 == 109 or c1 == 100:  # 's 't 'm 'd
            return j + 2
        if j + 2 < n and _contraction_tail(PyUnicode_READ(kind, data, j + 1), PyUnicode_READ(kind, data, j + 2), True):
            return j + 3
    return j


cdef Py_ssize_t _chunk_end(int kind, void *data, Py_ssize_t i, Py_ssize_t n, int mode) noexcept:
    """Where the chunk starting at ``i`` ends, for the gpt2 (mode 0), gpt4 (1) or o200k (2)
    pattern on ASCII text that ends at ``n`` (the patterns' alternatives in order; see
    ASCII_PATTERNS)."""
    cdef unsigned int c = PyUnicode_READ(kind, data, i), c1, low
    cdef unsigned char k = _CLASS[c], k1 = 0
    cdef Py_ssize_t j, p
    cdef bint gpt4 = mode != 0  # gpt4 and o200k: the same alternatives but for letters and '/'
    if i + 1 < n:
        c1 = PyUnicode_READ(kind, data, i + 1)
        k1 = _CLASS[c1]
        if c == 39 and mode != 2:  # an apostrophe: 's 'd 'm 't 'll 've 're (any case in gpt4)
            low = (c1 | 32) if gpt4 else c1
            if low == 115 or low == 100 or low == 109 or low == 116:
                return i + 2
            if i + 2 < n and _contraction_tail(c1, PyUnicode_READ(kind, data, i + 2), gpt4):
                return i + 3
    if not gpt4:
        if c == 32 and k1 != 0 and k1 != _WSP:  # " ?" before letters, digits or the rest
            return _run(kind, data, i + 1, n, k1)
        if k != _WSP:
            return _run(kind, data, i, n, k)
    else:
        if k == _LET or (c != 10 and c != 13 and k != _DIG and k1 == _LET):  # [^\r\n L N]?+ L+
            j = i if k == _LET else i + 1
            return _o200k_letters(kind, data, j, n) if mode == 2 else _run(kind, data, j, n, _LET)
        if k == _DIG:  # N{1,3}
            j = i + 1
            while j < n and j < i + 3 and _CLASS[PyUnicode_READ(kind, data, j)] == _DIG:
                j += 1
            return j
        if k == _OTH or (c == 32 and k1 == _OTH):  # " ?[^\s L N]++[\r\n]*" (o200k: [\r\n/]*)
            j = _run(kind, data, i + 1 if k != _OTH else i, n, _OTH)
            while j < n:
                c1 = PyUnicode_READ(kind, data, j)
                if c1 != 10 and c1 != 13 and (mode != 2 or c1 != 47):
                    break
                j += 1
            return j
    # space: the whole run, but a run before a non-space keeps its last character for the next
    # chunk (\s+(?!\S)); gpt4 first ends a run at its last \r or \n (\s*[\r\n])
    j = _run(kind, data, i, n, _WSP)
    if gpt4:
        p = j
        while p > i:
            c1 = PyUnicode_READ(kind, data, p - 1)
            if c1 == 10 or c1 == 13:
                return p
            p -= 1
    if j == n or j - i < 2:
        return j
    return j - 1


cdef inline uint64_t _span_hash(const unsigned char *p, Py_ssize_t n) noexcept:
    cdef uint64_t h = 14695981039346656037ULL
    cdef Py_ssize_t i
    for i in range(n):
        h = (h ^ p[i]) * 1099511628211ULL
    return h ^ (h >> 29)


def count_ascii(counts, str text, Py_ssize_t start, Py_ssize_t stop, int mode, bint drop_last):
    """Count the gpt2 (mode 0), gpt4 (1) or o200k (2) pattern's chunks of ``text[start:stop]``,
    scanned as if the text ended at ``stop``, into ``counts`` (a dict: each new chunk after its
    keys, in order of first appearance), without the last chunk when ``drop_last`` (a lookahead
    character). Every
    character there must be ASCII. Returns the number of chunks counted, or -1 (nothing counted)
    when a character is not ASCII or ``drop_last`` finds a last chunk longer than one character:
    the caller scans with the pattern then. Twin: ``Counter(re.findall(ASCII_PATTERNS[...]))``."""
    return _ascii_chunks(text, start, stop, mode, drop_last, counts, None)


def split_ascii(list out, str text, Py_ssize_t start, Py_ssize_t stop, int mode, bint drop_last):
    """Append the chunks :func:`count_ascii` would count to ``out``, in order: one string object
    per distinct chunk, shared by its occurrences (its hash computed once, so the chunk cache's
    lookups are identity hits). Returns their number, or -1 (nothing appended) as count_ascii.
    Twin: ``re.findall(ASCII_PATTERNS[...])``."""
    return _ascii_chunks(text, start, stop, mode, drop_last, None, out)


cdef Py_ssize_t _ascii_chunks(str text, Py_ssize_t start, Py_ssize_t stop, int mode, bint drop_last, counts,
                              list out) except -2:
    cdef int kind = PyUnicode_KIND(text)
    cdef void *data = PyUnicode_DATA(text)
    cdef const unsigned char *raw = <const unsigned char *>data
    cdef Py_ssize_t i, end, cap = 1 << 12, used = 0, room = 1 << 10, slot, e, total = 0, mark
    cdef Py_ssize_t *slots
    cdef Py_ssize_t *at
    cdef Py_ssize_t *size
    cdef Py_ssize_t *many
    cdef uint64_t *hashes
    cdef uint64_t h
    cdef void *grown
    cdef PyObject *old
    cdef list strs = [] if out is not None else None
    if start < 0 or stop > len(text) or start >= stop:
        return 0 if start >= stop else -1
    for i in range(start, stop):
        if PyUnicode_READ(kind, data, i) >= 128:
            return -1
    mark = len(out) if out is not None else 0
    slots = <Py_ssize_t *>PyMem_Malloc(cap * sizeof(Py_ssize_t))
    at = <Py_ssize_t *>PyMem_Malloc(room * sizeof(Py_ssize_t))
    size = <Py_ssize_t *>PyMem_Malloc(room * sizeof(Py_ssize_t))
    many = <Py_ssize_t *>PyMem_Malloc(room * sizeof(Py_ssize_t))
    hashes = <uint64_t *>PyMem_Malloc(room * sizeof(uint64_t))
    try:
        if not (slots and at and size and many and hashes):
            raise MemoryError
        for i in range(cap):
            slots[i] = -1
        i = start
        while i < stop:
            end = _chunk_end(kind, data, i, stop, mode)
            if drop_last and end == stop:
                if end - i != 1:
                    if out is not None:
                        del out[mark:]
                    return -1
                break
            h = _span_hash(raw + i * kind, (end - i) * kind)
            slot = <Py_ssize_t>(h & <uint64_t>(cap - 1))
            while True:
                e = slots[slot]
                if e < 0:
                    break
                if (hashes[e] == h and size[e] == end - i
                        and memcmp(raw + at[e] * kind, raw + i * kind, (end - i) * kind) == 0):
                    break
                slot = (slot + 1) & (cap - 1)
            if e >= 0:
                many[e] += 1
                if out is not None:
                    out.append(strs[e])
            else:
                if used == room:
                    room *= 2
                    grown = PyMem_Realloc(at, room * sizeof(Py_ssize_t))
                    if grown == NULL:
                        raise MemoryError
                    at = <Py_ssize_t *>grown
                    grown = PyMem_Realloc(size, room * sizeof(Py_ssize_t))
                    if grown == NULL:
                        raise MemoryError
                    size = <Py_ssize_t *>grown
                    grown = PyMem_Realloc(many, room * sizeof(Py_ssize_t))
                    if grown == NULL:
                        raise MemoryError
                    many = <Py_ssize_t *>grown
                    grown = PyMem_Realloc(hashes, room * sizeof(uint64_t))
                    if grown == NULL:
                        raise MemoryError
                    hashes = <uint64_t *>grown
                at[used] = i
                size[used] = end - i
                many[used] = 1
                hashes[used] = h
                slots[slot] = used
                used += 1
                if out is not None:
                    key = PyUnicode_Substring(text, i, end)
                    strs.append(key)
                    out.append(key)
                if used * 2 > cap:  # keep the table at most half full
                    PyMem_Free(slots)
                    cap *= 2
                    slots = <Py_ssize_t *>PyMem_Malloc(cap * sizeof(Py_ssize_t))
                    if slots == NULL:
                        raise MemoryError
                    for slot in range(cap):
                        slots[slot] = -1
                    for e in range(used):
                        slot = <Py_ssize_t>(hashes[e] & <uint64_t>(cap - 1))
                        while slots[slot] >= 0:
                            slot = (slot + 1) & (cap - 1)
                        slots[slot] = e
            total += 1
            i = end
        if counts is None:
            return total
        for e in range(used):
            key = PyUnicode_Substring(text, at[e], at[e] + size[e])
            old = PyDict_GetItem(counts, key)
            if old == NULL:
                PyDict_SetItem(counts, key, many[e])
            else:
                PyDict_SetItem(counts, key, <object>old + many[e])
        return total
    finally:
        PyMem_Free(slots)
        PyMem_Free(at)
        PyMem_Free(size)
        PyMem_Free(many)
        PyMem_Free(hashes)


# -- encoding a whole text: the split and the chunk cache in C (h-encode, issue 24) ------------

from cpython.list cimport PyList_GET_ITEM, PyList_New, PyList_SET_ITEM
from cpython.ref cimport Py_INCREF
from cpython.unicode cimport Py_UNICODE_ISALPHA
from libc.stdint cimport int32_t, uint32_t

ctypedef struct _Kept:  # a slot of the chunk table: a chunk's hash and where it is kept
    uint64_t hash
    Py_ssize_t at      # in the arena: its length, its number of ids, its code points, its ids; -1: empty

ctypedef struct _Ids:  # the ids of the text being encoded (one per call: a chunk encoder may run
    int32_t *v         # Python code, and another thread encode meanwhile)
    Py_ssize_t used
    Py_ssize_t room

#: After a character that is not ASCII, the pattern itself scans on to this many ASCII characters
#: in a row (a window it can end in: TextCoder._wide); the widest window it scans at once where
#: no such run comes. (TextCoder's ascii_run and widest: tests make them small.)
ASCII_RUN = 24
WIDEST = 1 << 20
#: Chunks longer than this are encoded each time they come, not kept; the table starts again
#: before its arena would pass this many code points and ids (256 MB).
cdef Py_ssize_t _KEEP_SIZE = 1 << 10
cdef Py_ssize_t _ARENA_LIMIT = 1 << 26


cdef inline uint64_t _text_hash(int kind, const void *data, Py_ssize_t i, Py_ssize_t n) noexcept:
    """FNV-1a of the code points of ``[i, n)``: the same for a chunk in a text of any kind."""
    cdef uint64_t h = 14695981039346656037ULL
    cdef Py_ssize_t k
    cdef const unsigned char *raw = <const unsigned char *>data
    if kind == 1:
        for k in range(i, n):
            h = (h ^ raw[k]) * 1099511628211ULL
    else:
        for k in range(i, n):
            h = (h ^ <uint64_t>PyUnicode_READ(kind, data, k)) * 1099511628211ULL
    return _mix(h)


cdef inline Py_ssize_t _reach(int kind, void *data, Py_ssize_t i, Py_ssize_t e, Py_ssize_t x, int mode) noexcept:
    """The farthest character the gpt2, gpt4 and o200k patterns (and _chunk_end) look at to find
    the chunk ``[i, e)`` of ASCII text ending at ``x``: the one after it (where a run stops), the
    two after an apostrophe (the contractions: at a chunk's start in gpt2 and gpt4, after its
    letters in o200k), and a whitespace run's end (``\\s+(?!\\S)``, gpt4's ``\\s*[\\r\\n]``).
    A chunk whose reach is below ``x`` is the pattern's chunk there whatever follows ``x``."""
    cdef Py_ssize_t r = e if e > i + 1 else i + 1, j
    cdef unsigned int c = PyUnicode_READ(kind, data, i)
    if c == 39 and r < i + 2:
        r = i + 2
    if mode == 2 and e < x and <unsigned int>PyUnicode_READ(kind, data, e) == 39 and r < e + 2:
        r = e + 2
    if _CLASS[c] == _WSP:
        j = _run(kind, data, i, x, _WSP)
        if j > r:
            r = j
    return r


cdef inline bint _surely_not_space(unsigned int c) noexcept:
    """Whether the pattern's ``\\s`` never matches ``c`` (ASCII: its class; any other: a letter,
    which no Unicode version counts as space)."""
    if c < 128:
        return _CLASS[c] != _WSP
    return Py_UNICODE_ISALPHA(c)


cdef int _more(_Ids *out, Py_ssize_t more) except -1:
    cdef Py_ssize_t room = out.room if out.room else 1 << 12
    cdef void *grown
    while out.used + more > room:
        room *= 2
    grown = PyMem_Realloc(out.v, room * sizeof(int32_t))
    if grown == NULL:
        raise MemoryError
    out.v = <int32_t *>grown
    out.room = room
    return 0


cdef class TextCoder:
    """A whole text -> its ids under a tokenizer with the gpt2, gpt4 or o200k pattern, in one
    C-level pass: the ASCII stretches split by ``_chunk_end`` (as :func:`split_ascii`), the rest
    by the pattern's ``findall``, and each chunk's ids looked up in a C hash table of the chunks
    met before (code points -> ids); a chunk not in it is encoded once, by ``merger`` (its UTF-8
    bytes merged in C: the bytes base), by ``rank`` (a rank file with whole pieces: the chunk's
    token in ``whole``, bytes -> id, else ``RankMerger.merge_ids`` with ``ranked`` and ``single``)
    or by ``missing`` (the tokenizer's own chunk encoder, also where ``rank`` gives up).

    Twin: ``Tokenizer.encode_ordinary`` on the pure path (pre-tokenizer split, then the chunk
    cache). The split is the pattern's: a chunk found in an ASCII stretch is kept only when
    everything the pattern looks at to find it (``_reach``) lies before the next other
    character; from there the pattern itself scans a window that ends after a run of ASCII
    (``_wide``), and only the chunks it surely finds whatever follows the window are kept."""

    cdef ChunkEncoder merger
    cdef object missing
    cdef object findall
    cdef object rank, whole, ranked, single
    cdef int mode
    cdef list ints
    cdef Py_ssize_t limit, ascii_run, widest
    cdef _Kept *slots
    cdef Py_ssize_t cap, used  # slots (a power of two, at most half of them used)
    cdef uint32_t *arena       # every kept chunk's block, one after the other
    cdef Py_ssize_t arena_used, arena_room

    def __cinit__(self, findall, int mode, missing=None, ChunkEncoder merger=None, Py_ssize_t ids=0,
                  Py_ssize_t limit=200000, Py_ssize_t ascii_run=ASCII_RUN, Py_ssize_t widest=WIDEST,
                  RankMerger rank=None, dict whole=None, carray.array ranked=None, carray.array single=None):
        if merger is None and missing is None:
            raise ValueError("a TextCoder needs a merger or a chunk encoder")
        if rank is not None and (missing is None or whole is None or ranked is None or single is None):
            raise ValueError("merging by rank needs the whole pieces, the ids by rank and by byte, and a chunk encoder")
        self.findall = findall
        self.rank, self.whole, self.ranked, self.single = rank, whole, ranked, single
        if not 0 <= mode <= 2:
            raise ValueError("mode is 0 (gpt2), 1 (gpt4) or 2 (o200k)")
        self.mode = mode
        self.missing = missing
        self.merger = merger
        self.ints = [None] * max(ids, 256)  # the int objects of the ids met, made as they come
        self.limit = max(limit, 1)
        self.ascii_run = max(ascii_run, 1)
        self.widest = max(widest, 1)
        self.cap = 1 << 11
        self.arena_room = 1 << 15
        self.slots = <_Kept *>PyMem_Malloc(self.cap * sizeof(_Kept))
        self.arena = <uint32_t *>PyMem_Malloc(self.arena_room * sizeof(uint32_t))
        if not (self.slots and self.arena):
            raise MemoryError
        self._clear()

    def __dealloc__(self):
        PyMem_Free(self.slots)
        PyMem_Free(self.arena)

    @property
    def kept_chunks(self):
        """How many chunks the table holds now."""
        return self.used

    cdef void _clear(self) noexcept:
        cdef Py_ssize_t s
        self.used = self.arena_used = 0
        for s in range(self.cap):
            self.slots[s].at = -1

    cdef inline int _emit(self, _Ids *out, Py_ssize_t at) except -1:
        """Append the ids of the chunk kept at ``at`` in the arena."""
        cdef Py_ssize_t k, count = self.arena[at + 1]
        cdef const uint32_t *ids = self.arena + at + 2 + self.arena[at]
        if out.used + count > out.room:
            _more(out, count)
        for k in range(count):
            out.v[out.used + k] = <int32_t>ids[k]
        out.used += count
        return 0

    cdef inline Py_ssize_t _slot(self, int kind, const void *data, Py_ssize_t i, Py_ssize_t n,
                                 uint64_t h) noexcept:
        """The slot holding the chunk ``[i, n)`` of ``data``, or the empty slot it would go in."""
        cdef Py_ssize_t mask = self.cap - 1, slot = <Py_ssize_t>(h & <uint64_t>mask), at, k
        cdef const unsigned char *raw = <const unsigned char *>data
        cdef const uint32_t *key
        cdef bint same
        while True:
            at = self.slots[slot].at
            if at < 0:
                return slot
            if self.slots[slot].hash == h and self.arena[at] == <uint32_t>(n - i):
                key = self.arena + at + 2
                same = True
                if kind == 1:
                    for k in range(n - i):
                        if key[k] != raw[i + k]:
                            same = False
                            break
                else:
                    for k in range(n - i):
                        if key[k] != <uint32_t>PyUnicode_READ(kind, <void *>data, i + k):
                            same = False
                            break
                if same:
                    return slot
            slot = (slot + 1) & mask

    cdef int _chunk(self, _Ids *out, str text, int kind, const void *data, Py_ssize_t i, Py_ssize_t n, object chunk) except -1:
        """Append the ids of the chunk ``[i, n)`` of ``data`` (the characters of ``text``, or of
        ``chunk`` when that is not None: the chunk as a string)."""
        cdef uint64_t h = _text_hash(kind, data, i, n)
        cdef Py_ssize_t slot = self._slot(kind, data, i, n, h)
        cdef Py_ssize_t at = self.slots[slot].at
        if at >= 0:
            return self._emit(out, at)
        return self._new(out, text, kind, data, i, n, h, chunk)

    cdef int _new(self, _Ids *out, str text, int kind, const void *data, Py_ssize_t i, Py_ssize_t n, uint64_t h,
                  object chunk) except -1:
        """Encode a chunk not kept yet (see _chunk), keep it (unless it is long) and append its ids."""
        cdef Py_ssize_t m, k, slot, at, need, size = n - i
        cdef int64_t *sym = NULL
        cdef int64_t x
        cdef bytes raw
        cdef const unsigned char *b
        cdef list ids
        cdef void *grown
        try:
            if self.merger is not None:
                if chunk is None:  # an ASCII chunk of the text: its characters are its bytes
                    m = size
                    sym = <int64_t *>PyMem_Malloc(max(m, 1) * sizeof(int64_t))
                    if sym == NULL:
                        raise MemoryError
                    for k in range(m):
                        sym[k] = <int64_t>PyUnicode_READ(kind, <void *>data, i + k)
                else:
                    raw = (<str>chunk).encode("utf-8", "surrogateescape")
                    m = len(raw)
                    b = raw
                    sym = <int64_t *>PyMem_Malloc(max(m, 1) * sizeof(int64_t))
                    if sym == NULL:
                        raise MemoryError
                    for k in range(m):
                        sym[k] = b[k]
                m = self.merger._bytes(sym, m, b if chunk is not None else NULL)
            else:
                if chunk is None:
                    chunk = PyUnicode_Substring(text, i, n)
                ids = None
                if self.rank is not None:  # a whole piece first, else merged by rank, in C
                    raw = (<str>chunk).encode("utf-8", "surrogateescape")
                    item = self.whole.get(raw)
                    ids = [item] if item is not None else (<RankMerger>self.rank).merge_ids(raw, self.ranked, self.single)
                if ids is None:
                    ids = self.missing(chunk)
                m = len(ids)
                sym = <int64_t *>PyMem_Malloc(max(m, 1) * sizeof(int64_t))
                if sym == NULL:
                    raise MemoryError
                for k in range(m):
                    item = ids[k]
                    if type(item) is not int or item < 0 or item > INT32_MAX:
                        raise ValueError(f"the chunk encoder gave {item!r}, not a token id")
                    sym[k] = <int64_t>item
            for k in range(m):
                x = sym[k]
                if x >= len(self.ints):
                    self.ints.extend([None] * (x + 1 - len(self.ints)))
                if PyList_GET_ITEM(self.ints, x) == <PyObject *>None:
                    self.ints[x] = x
            if size > _KEEP_SIZE:  # encoded each time it comes
                if out.used + m > out.room:
                    _more(out, m)
                for k in range(m):
                    out.v[out.used + k] = <int32_t>sym[k]
                out.used += m
                return 0
            need = 2 + size + m
            if self.used >= self.limit or self.arena_used + need > _ARENA_LIMIT:
                self._clear()  # start again (ids handed out are copies)
            slot = self._slot(kind, data, i, n, h)
            if self.arena_used + need > self.arena_room:
                k = self.arena_room
                while self.arena_used + need > k:
                    k *= 2
                grown = PyMem_Realloc(self.arena, k * sizeof(uint32_t))
                if grown == NULL:
                    raise MemoryError
                self.arena = <uint32_t *>grown
                self.arena_room = k
            at = self.arena_used
            self.arena[at] = <uint32_t>size
            self.arena[at + 1] = <uint32_t>m
            for k in range(size):
                self.arena[at + 2 + k] = <uint32_t>PyUnicode_READ(kind, <void *>data, i + k)
            for k in range(m):
                self.arena[at + 2 + size + k] = <uint32_t>sym[k]
            self.arena_used += need
            self.slots[slot].hash = h
            self.slots[slot].at = at
            self.used += 1
            if 2 * self.used > self.cap:
                self._rehash()
            return self._emit(out, at)
        finally:
            PyMem_Free(sym)

    cdef int _rehash(self) except -1:
        cdef Py_ssize_t cap = 2 * self.cap, s, slot
        cdef _Kept *slots = <_Kept *>PyMem_Malloc(cap * sizeof(_Kept))
        if slots == NULL:
            raise MemoryError
        for slot in range(cap):
            slots[slot].at = -1
        for s in range(self.cap):
            if self.slots[s].at < 0:
                continue
            slot = <Py_ssize_t>(self.slots[s].hash & <uint64_t>(cap - 1))
            while slots[slot].at >= 0:
                slot = (slot + 1) & (cap - 1)
            slots[slot] = self.slots[s]
        PyMem_Free(self.slots)
        self.slots = slots
        self.cap = cap
        return 0

    cdef Py_ssize_t _wide(self, _Ids *out, str text, int kind, void *data, Py_ssize_t i, Py_ssize_t x,
                          Py_ssize_t n) except -1:
        """Encode from ``i`` (where a chunk starts; ``x``, at or after it, is not ASCII) with the
        pattern, up to a point where the ASCII scan can go on; returns that point.

        The pattern scans a window ``[i, w)`` that ends after a run of ASCII (or at the widest).
        ``findall`` takes ``w`` for the text's end, so a chunk near it may differ from the
        whole text's; but a chunk whose last character is surely not space, ending before
        ``w - 1``, is found from no further than the character after it (see _reach), and every
        chunk before it from no further than it (a whitespace run before it stops there): those
        chunks are the whole text's, and the ASCII scan goes on after the last of them. A window
        with none of those is widened, up to the whole rest of the text."""
        cdef Py_ssize_t q = x, run = 0, w, pos, best, best_end, j, total
        cdef Py_ssize_t ahead = 3 if self.mode == 2 else 1  # o200k's letters look 3 on (\'re)
        cdef list chunks
        cdef str c
        cdef int ckind
        while q < n and q - i < self.widest:
            if <unsigned int>PyUnicode_READ(kind, data, q) < 128:
                run += 1
                if run == self.ascii_run:
                    q += 1
                    break
            else:
                run = 0
            q += 1
        w = q if q < n else n
        while True:
            chunks = self.findall(text, i, w)
            best = -1
            best_end = i
            pos = i
            total = len(chunks)
            for j in range(total):
                pos += len(<str>chunks[j])
                if w == n or (pos + ahead < w and _surely_not_space(<unsigned int>PyUnicode_READ(kind, data, pos - 1))):
                    best = j
                    best_end = pos
            if pos != w:
                raise RuntimeError("the pattern left characters out")  # never: named patterns cover all
            if best >= 0:
                for j in range(best + 1):
                    c = <str>chunks[j]
                    ckind = PyUnicode_KIND(c)
                    self._chunk(out, text, ckind, PyUnicode_DATA(c), 0, len(c), c)
                return best_end
            w = min(n, i + 2 * (w - i) + 2)

    def encode(self, str text):
        """``text``'s ids: its chunks' ids in order (see the class doc)."""
        cdef int kind = PyUnicode_KIND(text)
        cdef void *data = PyUnicode_DATA(text)
        cdef const unsigned char *raw = <const unsigned char *>data
        cdef Py_ssize_t n = len(text), i = 0, x, e, k
        cdef int mode = self.mode
        cdef list result
        cdef object item
        cdef _Ids out
        out.v = NULL
        out.used = out.room = 0
        try:
            while i < n:
                x = i  # the next character that is not ASCII (or the end)
                if kind == 1:
                    while x < n and raw[x] < 128:
                        x += 1
                else:
                    while x < n and <unsigned int>PyUnicode_READ(kind, data, x) < 128:
                        x += 1
                while i < x:
                    e = _chunk_end(kind, data, i, x, mode)
                    if x < n and _reach(kind, data, i, e, x, mode) >= x:
                        break  # what the pattern finds here depends on what follows x
                    self._chunk(&out, text, kind, data, i, e, None)
                    i = e
                if i < n:
                    i = self._wide(&out, text, kind, data, i, x, n)
            result = PyList_New(out.used)
            for k in range(out.used):
                item = <object>PyList_GET_ITEM(self.ints, out.v[k])
                Py_INCREF(item)
                PyList_SET_ITEM(result, k, item)
            return result
        finally:
            PyMem_Free(out.v)
