# The encoding stage of the compiled core (included by compiled.pyx): a chunk's ids,
# tiktoken's rank merging, and writing ids out.


#: engine.native.borders's kinds of border between two three-byte characters (held by a token cut there,
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


def border_holders(pieces):
    """The tokens of ``pieces`` (bytes) that hold the last byte of a three-byte character and the
    first of the next side by side (a continuation byte, then E0-EF), in order: the pure glue's
    ``engine.native.borders.holding``, in one C loop."""
    cdef list out = []
    cdef const unsigned char *p
    cdef Py_ssize_t j, n
    for piece in pieces:
        if type(piece) is not bytes:
            raise TypeError("tokens are bytes")
        p = <bytes>piece
        n = len(<bytes>piece)
        for j in range(n - 1):
            if 0x80 <= p[j] <= 0xBF and 0xE0 <= p[j + 1] <= 0xEF:
                out.append(piece)
                break
    return out


cdef class _Wide:
    """Three-byte characters merged one by one first: ``source()`` gives, at the first piece of
    them (:meth:`ready`), the tables of ``engine.native.borders.Borders.tables`` (the 65,536 kinds of
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
    chunk's bytes that are all three-byte characters no cut token stands across are merged
    each character alone (once: a table of characters), then across the borders when a token of
    whole characters holds one: the same ids, for the reasons engine/native/borders.py gives."""

    cdef uint64_t *keys
    cdef int64_t *values
    cdef uint64_t mask
    cdef _Wide wide                    # three-byte characters first (set_chars), or None

    def __cinit__(self, ranks):
        """``ranks``: a dict (pair key ``a << SHIFT | b`` -> the id it makes), or the merges as
        ``(left_of, right_of, first)``: id ``i`` from ``first`` on joins ``left_of[i]`` and
        ``right_of[i]`` (a vocabulary's lists; no dict of pairs is made for them)."""
        cdef bint by_dict = isinstance(ranks, dict)
        cdef list lefts, rights
        cdef Py_ssize_t first = 0, i
        if by_dict:
            count = len(ranks)
        else:
            lefts, rights, first = ranks
            if len(lefts) != len(rights) or not 0 <= first <= len(lefts):
                raise ValueError("a merge's two parts are two lists of one length, from the first merge's id")
            count = len(lefts) - first
        cdef uint64_t size = 16
        while size < 2 * <uint64_t>count + 16:
            size <<= 1
        self.mask = size - 1
        self.keys = <uint64_t *>PyMem_Malloc(size * sizeof(uint64_t))
        self.values = <int64_t *>PyMem_Malloc(size * sizeof(int64_t))
        if self.keys == NULL or self.values == NULL:
            raise MemoryError()
        cdef uint64_t j
        for j in range(size):
            self.keys[j] = EMPTY
        if by_dict:
            for k, v in ranks.items():
                self._put(<uint64_t>k, <int64_t>v)
        else:
            for i in range(first, len(lefts)):
                self._put((<uint64_t><int64_t>lefts[i] << SHIFT) | <uint64_t><int64_t>rights[i], i)

    cdef inline void _put(self, uint64_t key, int64_t value) noexcept:
        cdef uint64_t slot = _mix(key) & self.mask
        while self.keys[slot] != EMPTY and self.keys[slot] != key:
            slot = (slot + 1) & self.mask
        self.keys[slot] = key
        self.values[slot] = value

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


# -- (npm tiktoken's inline ranks are read in load.pxi) ---------------------------------------

from cpython.long cimport PyLong_AsLongLongAndOverflow

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize

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


cdef bint _rank_merge(_TokenTable table, const unsigned char *p, Py_ssize_t n, Py_ssize_t *end,
                      Py_ssize_t *prev, int64_t *current, uint64_t *heap, bint parts=False,
                      uint64_t *spent=NULL, uint64_t room=0) noexcept nogil:
    """tiktoken's merging of the ``n`` bytes at ``p`` under ``table``'s ranks (the tokens'
    places): afterwards the parts start at 0, ``end[0]``, ``end[end[0]]``, ... A heap of
    ``rank << 24 | start`` over the parts (arrays of n + 1, the heap of 3n + 3). With ``parts``,
    it starts from the parts ``end`` holds already (from 0, as it leaves them), not the bytes.
    With ``spent``, the bytes of each pair looked up are added to it, as ``_merge_counted`` of
    engine/encode/tiktoken_merge.py counts them, and it stops (returning False) once they pass
    ``room``."""
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
            if spent != NULL:
                spent[0] += <uint64_t>(end[e] - s)
            current[s] = r
            if r >= 0:
                size = _push(heap, size, (<uint64_t>r << 24) | <uint64_t>s)
        o, s = s, e
    if spent != NULL and spent[0] > room:
        return False
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
            if spent != NULL:
                spent[0] += <uint64_t>(end[stop] - s)
            current[s] = r
            if r >= 0:
                size = _push(heap, size, (<uint64_t>r << 24) | <uint64_t>s)
        else:
            current[s] = -1
        o = prev[s]
        if o >= 0:
            r = table.find(p + o, stop - o)
            if spent != NULL:
                spent[0] += <uint64_t>(stop - o)
            current[o] = r
            if r >= 0:
                size = _push(heap, size, (<uint64_t>r << 24) | <uint64_t>o)
        if spent != NULL and spent[0] > room:
            return False
    return True


cdef struct _Spines:
    # scratch for _walk, longest + 1 each: the left part's right spine (starts, places) and the
    # right part's left spine (ends, places), top down
    Py_ssize_t *xs
    int32_t *xp
    Py_ssize_t *ye
    int32_t *yp


cdef Py_ssize_t _walk(_TokenTable table, const unsigned char *p, Py_ssize_t cut, int32_t left, int32_t right,
                      const int *cuts, const int32_t *lefts, const int32_t *rights, _Spines *sp,
                      Py_ssize_t room, bint *proved) noexcept nogil:
    """``_walk`` of engine/encode/tiktoken_merge.py: whether tiktoken's merging of the token at ``p``
    leaves its bytes before ``cut`` and from it (regular tokens ``left`` and ``right``, -1 a
    byte), in ``proved``; returns ``room`` less the bytes looked up, or -1 past it."""
    cdef Py_ssize_t i = 0, j = 0, s = 0, start, stop
    cdef int32_t q = left
    cdef int64_t joined
    cdef uint64_t x_next, y_next, none = (<uint64_t>1) << 62
    while q >= 0:
        sp.xs[i] = s
        sp.xp[i] = q
        i += 1
        s += cuts[q]
        q = rights[q]
    q = right
    while q >= 0:
        sp.ye[j] = cut + table.length[q]
        sp.yp[j] = q
        j += 1
        q = lefts[q]
    start, stop = cut - 1, cut + 1
    while True:
        room -= stop - start
        if room < 0:
            return -1
        joined = table.find(p + start, stop - start)
        x_next = (<uint64_t>sp.xp[i - 1] << 24 | <uint64_t>sp.xs[i - 1]) if i else none
        y_next = (<uint64_t>sp.yp[j - 1] << 24 | <uint64_t>cut) if j else none
        if joined >= 0 and (<uint64_t>joined << 24 | <uint64_t>start) < (x_next if x_next < y_next else y_next):
            proved[0] = False
            return room
        if i == 0 and j == 0:
            proved[0] = True
            return room
        if x_next < y_next:
            i -= 1
            start = sp.xs[i]
        else:
            j -= 1
            stop = sp.ye[j]


cdef struct _Trees:
    # the pure twin's _Trees: each token's parts (places, -1 a byte, -2 not looked up yet), its
    # state (1 regular, 2 not, 0 not known yet), and a stack for finding it (a path down a tree)
    const int *cuts
    int32_t *lefts
    int32_t *rights
    unsigned char *state
    int32_t *stack


cdef bint _is_regular(_TokenTable table, _Trees *tr, int64_t place) noexcept nogil:
    """``_Trees.__getitem__`` of engine/encode/tiktoken_merge.py: whether the token at ``place``
    (ranked before the current one) is regular, found at first need."""
    cdef Py_ssize_t top, n
    cdef int32_t q, left, right
    cdef int c
    if tr.state[place]:
        return tr.state[place] == 1
    tr.stack[0] = <int32_t>place
    top = 1
    while top > 0:
        q = tr.stack[top - 1]
        if tr.state[q]:
            top -= 1
            continue
        c = tr.cuts[q]
        if c == 0:
            tr.state[q] = 2
            top -= 1
            continue
        if tr.lefts[q] == -2:  # its parts are tokens ranked before it, or bytes
            n = table.length[q]
            tr.lefts[q] = -1 if c == 1 else <int32_t>table.find(table.data[q], c)
            tr.rights[q] = -1 if n - c == 1 else <int32_t>table.find(table.data[q] + c, n - c)
        left = tr.lefts[q]
        right = tr.rights[q]
        if left >= 0 and not tr.state[left]:
            tr.stack[top] = left
            top += 1
        elif right >= 0 and not tr.state[right]:
            tr.stack[top] = right
            top += 1
        else:
            tr.state[q] = 1 if (left < 0 or tr.state[left] == 1) and (right < 0 or tr.state[right] == 1) else 2
            top -= 1
    return tr.state[place] == 1


cdef inline int32_t _regular_at(_TokenTable table, const unsigned char *p, Py_ssize_t n, _Trees *tr) noexcept nogil:
    """The place of the token of these ``n`` bytes when it is regular (-1 for one byte), else -2."""
    cdef int64_t q
    if n == 1:
        return -1
    q = table.find(p, n)
    return <int32_t>q if q >= 0 and _is_regular(table, tr, q) else -2


cdef bint _two_tokens(_TokenTable table, Py_ssize_t rank, _Trees *tr, _Spines *sp, Py_ssize_t walk_bytes,
                      int *cut_out, int32_t *left_out, int32_t *right_out) noexcept nogil:
    """``_two_tokens`` of engine/encode/tiktoken_merge.py: the same likely cuts, in the same order."""
    cdef const int *cuts = tr.cuts
    cdef const int32_t *lefts = tr.lefts
    cdef const int32_t *rights = tr.rights
    cdef const unsigned char *p = table.data[rank]
    cdef Py_ssize_t n = table.length[rank], s, k, c, room = walk_bytes * n, count = 0, m
    cdef int64_t q
    cdef Py_ssize_t b
    cdef const unsigned char *before
    cdef int32_t left, right
    cdef bint proved, seen
    cdef Py_ssize_t likely_cut[40]
    cdef int32_t likely_left[40]
    cdef int32_t likely_right[40]
    cdef Py_ssize_t tried[40]
    cdef Py_ssize_t tried_count = 0
    for s in range(1, 5):
        if n - s < 2:
            break
        q = table.find(p, n - s)
        if q >= 0 and _is_regular(table, tr, q):
            likely_cut[count] = n - s; likely_left[count] = <int32_t>q; likely_right[count] = -2; count += 1
            likely_cut[count] = cuts[q]; likely_left[count] = lefts[q]; likely_right[count] = -2; count += 1
        q = table.find(p + s, n - s)
        if q >= 0 and _is_regular(table, tr, q):
            likely_cut[count] = s; likely_left[count] = -2; likely_right[count] = <int32_t>q; count += 1
            likely_cut[count] = s + cuts[q]; likely_left[count] = -2; likely_right[count] = rights[q]; count += 1
    b = rank - 1
    while b >= 0 and b > rank - 5:
        before = table.data[b]
        k = table.length[b]
        if k < n and _is_regular(table, tr, b):
            if memcmp(p, before, k) == 0:
                likely_cut[count] = k; likely_left[count] = <int32_t>b; likely_right[count] = -2; count += 1
                likely_cut[count] = cuts[b]; likely_left[count] = lefts[b]; likely_right[count] = -2; count += 1
            if memcmp(p + n - k, before, k) == 0:
                likely_cut[count] = n - k; likely_left[count] = -2; likely_right[count] = <int32_t>b; count += 1
                likely_cut[count] = n - k + cuts[b]; likely_left[count] = -2; likely_right[count] = rights[b]; count += 1
        b -= 1
    likely_cut[count] = n // 2; likely_left[count] = -2; likely_right[count] = -2; count += 1
    for m in range(count):
        c = likely_cut[m]
        seen = False
        for k in range(tried_count):
            if tried[k] == c:
                seen = True
                break
        if seen:
            continue
        tried[tried_count] = c
        tried_count += 1
        left = likely_left[m]
        right = likely_right[m]
        if left == -2:
            left = _regular_at(table, p, c, tr)
        if right == -2:
            right = _regular_at(table, p + c, n - c, tr)
        if left == -2 or right == -2:
            continue
        room = _walk(table, p, c, left, right, cuts, lefts, rights, sp, room, &proved)
        if room < 0:
            return False
        if proved:
            cut_out[0] = <int>c
            left_out[0] = left
            right_out[0] = right
            return True
    return False


class OverBudget(ValueError):
    """``split_points`` passed its ``budget``: ``args`` are the token's place and the bytes looked up."""


def split_points(list tokens, progress=None, Py_ssize_t shortcut_from=32, Py_ssize_t walk_bytes=64,
                 budget=None):
    """For each token, in rank order (distinct, two bytes or more), where tiktoken's merging of
    its bytes with only the tokens before it cuts it when exactly two parts are left (the
    length of the first), else 0: see ``split_points`` in engine/encode/tiktoken_merge.py, which returns
    exactly what this does, trying a token of ``shortcut_from`` bytes or more as two tokens first
    (``walk_bytes``: its WALK_BYTES), and raises :class:`OverBudget` where it raises TooCostly
    (``budget``: bytes that merging tokens of more than 16 bytes byte by byte may look up; None:
    no bound). ``progress(done, total)`` is called now and then."""
    cdef Py_ssize_t count = len(tokens), longest = 2, t, n, s, parts
    cdef uint64_t spent = 0, room = <uint64_t>-1
    cdef bint within = True
    if budget is not None:
        room = <uint64_t>max(budget, 0)
    cdef bytes token
    for token in tokens:
        if len(token) > longest:
            longest = len(token)
    if longest >= (1 << 24):
        raise ValueError("a token of 16 MB or more")
    if count >= (1 << 31):
        raise ValueError("too many tokens")
    cdef _TokenTable table = _TokenTable(tokens)
    out = _ints(count)
    cdef int *cut = out.data.as_ints
    cdef Py_ssize_t *end = <Py_ssize_t *>PyMem_Malloc((longest + 1) * sizeof(Py_ssize_t))
    cdef Py_ssize_t *prev = <Py_ssize_t *>PyMem_Malloc((longest + 1) * sizeof(Py_ssize_t))
    cdef int64_t *current = <int64_t *>PyMem_Malloc((longest + 1) * sizeof(int64_t))
    cdef uint64_t *heap = <uint64_t *>PyMem_Malloc(3 * (longest + 1) * sizeof(uint64_t))
    # each token's parts and whether it is regular, found at first need (see the pure twin)
    cdef _Trees tr
    tr.cuts = cut
    tr.lefts = <int32_t *>PyMem_Malloc((count + 1) * sizeof(int32_t))
    tr.rights = <int32_t *>PyMem_Malloc((count + 1) * sizeof(int32_t))
    tr.state = <unsigned char *>PyMem_Malloc(count + 1)
    tr.stack = <int32_t *>PyMem_Malloc((count + 1) * sizeof(int32_t))
    # the lengths of the tokens so far, and 1 (the pure twin's _Sums): have[k], and whether 2 is one
    cdef unsigned char *have = <unsigned char *>PyMem_Malloc(longest + 1)
    cdef bint twos = False, fits
    cdef Py_ssize_t c
    cdef _Spines sp
    sp.xs = <Py_ssize_t *>PyMem_Malloc((longest + 1) * sizeof(Py_ssize_t))
    sp.xp = <int32_t *>PyMem_Malloc((longest + 1) * sizeof(int32_t))
    sp.ye = <Py_ssize_t *>PyMem_Malloc((longest + 1) * sizeof(Py_ssize_t))
    sp.yp = <int32_t *>PyMem_Malloc((longest + 1) * sizeof(int32_t))
    cdef const unsigned char *p
    cdef int found_cut
    cdef int32_t found_left, found_right
    try:
        if (end == NULL or prev == NULL or current == NULL or heap == NULL or tr.lefts == NULL or tr.rights == NULL
                or tr.state == NULL or tr.stack == NULL or have == NULL or sp.xs == NULL or sp.xp == NULL
                or sp.ye == NULL or sp.yp == NULL):
            raise MemoryError()
        memset(have, 0, longest + 1)
        have[1] = 1
        memset(tr.state, 0, count + 1)
        for t in range(count):
            tr.lefts[t] = -2
            tr.rights[t] = -2
        for t in range(count):
            if progress is not None and not t & 0x3FFF:
                progress(t, count)
            p = table.data[t]
            n = table.length[t]
            with nogil:
                fits = True
                if n >= shortcut_from:
                    fits = False
                    if twos or n == 2:
                        c = 1
                        while c <= n - c:
                            if have[c] and have[n - c]:
                                fits = True
                                break
                            c += 1
                if not fits:  # it stays in pieces: cut 0, not regular
                    cut[t] = 0
                elif n >= shortcut_from and _two_tokens(table, t, &tr, &sp, walk_bytes,
                                                        &found_cut, &found_left, &found_right):
                    cut[t] = found_cut
                    tr.lefts[t] = found_left
                    tr.rights[t] = found_right
                    tr.state[t] = 1
                else:
                    if n > 16:  # the pure twin's heap path, where it counts
                        within = _rank_merge(table, p, n, end, prev, current, heap, False, &spent, room)
                    else:
                        _rank_merge(table, p, n, end, prev, current, heap)
                    parts, s = 0, 0
                    while s < n:
                        parts += 1
                        s = end[s]
                    cut[t] = <int>end[0] if parts == 2 else 0
                table.add(t)
                have[n] = 1
                twos = twos or n == 2
            if not within:
                raise OverBudget(t, spent)
        if progress is not None:
            progress(count, count)
        return out
    finally:
        PyMem_Free(end)
        PyMem_Free(prev)
        PyMem_Free(current)
        PyMem_Free(heap)
        PyMem_Free(tr.lefts)
        PyMem_Free(tr.rights)
        PyMem_Free(tr.state)
        PyMem_Free(tr.stack)
        PyMem_Free(have)
        PyMem_Free(sp.xs)
        PyMem_Free(sp.xp)
        PyMem_Free(sp.ye)
        PyMem_Free(sp.yp)


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
    cdef _Wide wide                   # characters first (engine.native.chars_first.CharsFirst), or None

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
        engine.native.chars_first.CharsFirst.tables, None where it does not hold); None turns it off."""
        self.wide = _Wide(source) if source is not None else None

    cdef int _chars_first(self, const unsigned char *p, Py_ssize_t n) except -1:
        """Merge the ``n`` bytes at ``p`` character by character first, as
        engine.native.chars_first.CharsFirst does, when they are three-byte characters and it holds
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


# -- writing ids out ---------------------------------------------------------------------------


cdef inline int64_t _small_id(object item) noexcept:
    """An int object's value when it is an id (0 to INT32_MAX), else -1."""
    cdef int overflow = 0
    cdef long long v = PyLong_AsLongLongAndOverflow(item, &overflow)
    if overflow or v < 0 or v > INT32_MAX:
        return -1
    return <int64_t>v


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
            tab[i] = _small_id(item) if type(item) is int else -1
        for i in range(n):
            item = ids[i]
            if type(item) is not int:
                return None
            v = _small_id(item)  # (read in C: comparing each int object with Python's ints took most of the time)
            if v < 0:
                return None
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
