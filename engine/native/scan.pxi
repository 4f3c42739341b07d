# The scanning stage of the compiled core (included by compiled.pyx): the named patterns'
# ASCII scanner, and the whole-text encoder (the split and the chunk table in C).


# -- counting ASCII chunks (h-count in docs/benchmarks-log.md) ---------------------------------


# The classes of ASCII characters the named patterns tell apart: on ASCII, \p{L} is [A-Za-z], \p{N}
# [0-9], \s the space and \t \n \v \f \r (the regex module's \s, not re's: not \x1c-\x1f), and the rest.
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
    engine.text.pretokenize's patterns)."""
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
    the caller scans with the pattern then. Twin: ``Counter(pattern.findall(text, start, stop))``."""
    return _ascii_chunks(text, start, stop, mode, drop_last, counts, None)


def split_ascii(list out, str text, Py_ssize_t start, Py_ssize_t stop, int mode, bint drop_last):
    """Append the chunks :func:`count_ascii` would count to ``out``, in order: one string object
    per distinct chunk, shared by its occurrences (its hash computed once, so the chunk cache's
    lookups are identity hits). Returns their number, or -1 (nothing appended) as count_ascii.
    Twin: ``pattern.findall(text, start, stop)``."""
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


# -- encoding a whole text: the split and the chunk cache in C (h-encode in docs/benchmarks-log.md) --

from cpython.list cimport PyList_GET_ITEM, PyList_New, PyList_SET_ITEM
from cpython.ref cimport Py_INCREF
from cpython.unicode cimport Py_UNICODE_ISALPHA, Py_UNICODE_ISSPACE
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


cdef inline bint _maybe_letter(unsigned int c) noexcept:
    """Whether ``c`` may be a letter or a mark to o200k's pattern: an ASCII letter, and past
    ASCII anything but a space or the punctuation of Chinese text (``_wide_punct``)."""
    if c < 128:
        return (65 <= c <= 90) or (97 <= c <= 122)
    return Py_UNICODE_ISALPHA(c) or not (Py_UNICODE_ISSPACE(c) or _wide_punct(c))


cdef inline bint _wide_punct(unsigned int c) noexcept:
    """CJK and general punctuation that is surely no letter or mark: U+2010-U+2027, U+3001-U+3003,
    U+3008-U+3011, U+FF01-U+FF0F, U+FF1A-U+FF20 (the commas, stops, brackets and quotes of
    Chinese text)."""
    return ((0x2010 <= c <= 0x2027) or (0x3001 <= c <= 0x3003) or (0x3008 <= c <= 0x3011)
            or (0xFF01 <= c <= 0xFF0F) or (0xFF1A <= c <= 0xFF20))


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


# -- Chinese and its like without the pattern: the wide scan ------------------------------------

# What the wide scan tells apart, a character at a time: past ASCII, by the table the pattern's own
# module makes (engine.native.scan_regions.wide_classes): a letter of \p{Lo} or \p{Lm} (in every
# letter class of the three patterns: gpt2's and gpt4's \p{L}, both of o200k's), a character of
# none of \s \p{L} \p{N} \p{M} ([^\s\p{L}\p{N}] in each pattern, and no mark, which o200k counts
# with letters), anything else unknown (as is a character past the table); in ASCII, the newline,
# letters, digits, the other spaces and the rest, but for \r, ' and / (which end chunks
# differently from pattern to pattern: unknown).
cdef enum:
    _K_END = 0
    _K_LETTER = 1
    _K_OTHER = 2
    _K_NL = 3
    _K_ALET = 4
    _K_ADIG = 5
    _K_AWSP = 6
    _K_AOTH = 7
    _K_UNKNOWN = 8

cdef unsigned char _W_ASCII[128]
for _c in range(128):
    _W_ASCII[_c] = (_K_NL if _c == 10 else _K_UNKNOWN if _c in (13, 39, 47) else
                    {_LET: _K_ALET, _DIG: _K_ADIG, _WSP: _K_AWSP, _OTH: _K_AOTH}[_CLASS[_c]])


cdef inline int _wkind(int kind, void *data, const unsigned char *classes, Py_ssize_t p, Py_ssize_t n) noexcept:
    """What the character at ``p`` is to the wide scan (_K_END at ``n``)."""
    cdef unsigned int c
    if p >= n:
        return _K_END
    c = PyUnicode_READ(kind, data, p)
    if c < 128:
        return _W_ASCII[c]
    if c < 65536:
        return classes[c]
    return _K_UNKNOWN


cdef inline Py_ssize_t _wrun(int kind, void *data, const unsigned char *classes, Py_ssize_t p, Py_ssize_t n,
                             int a, int b) noexcept:
    """The end of the run of characters of kind ``a`` or ``b`` from ``p``."""
    cdef int k
    while p < n:
        k = _wkind(kind, data, classes, p, n)
        if k != a and k != b:
            break
        p += 1
    return p


cdef inline bint _ends_letters(int t) noexcept:
    """Whether a run of wide letters surely ends before a character of kind ``t``, in every
    pattern: no letter or mark, no apostrophe (o200k's contractions follow letters)."""
    return t == _K_END or t == _K_OTHER or t == _K_NL or t == _K_ADIG or t == _K_AWSP or t == _K_AOTH


cdef inline bint _ends_others(int t) noexcept:
    """Whether a run of [^\\s\\p{L}\\p{N}] surely ends before a character of kind ``t``."""
    return t == _K_END or t == _K_LETTER or t == _K_NL or t == _K_ALET or t == _K_ADIG or t == _K_AWSP


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
    cdef bytes classes         # the wide scan's table (wide_classes), or None: the pattern alone
    cdef object classes_source # what gives that table, at the first character past ASCII
    cdef int mode
    cdef list ints
    cdef Py_ssize_t limit, ascii_run, widest
    cdef _Kept *slots
    cdef Py_ssize_t cap, used  # slots (a power of two, at most half of them used)
    cdef uint32_t *arena       # every kept chunk's block, one after the other
    cdef Py_ssize_t arena_used, arena_room

    def __cinit__(self, findall, int mode, missing=None, ChunkEncoder merger=None, Py_ssize_t ids=0,
                  Py_ssize_t limit=200000, Py_ssize_t ascii_run=ASCII_RUN, Py_ssize_t widest=WIDEST,
                  RankMerger rank=None, dict whole=None, carray.array ranked=None, carray.array single=None,
                  object classes=None):
        if merger is None and missing is None:
            raise ValueError("a TextCoder needs a merger or a chunk encoder")
        if rank is not None and (missing is None or whole is None or ranked is None or single is None):
            raise ValueError("merging by rank needs the whole pieces, the ids by rank and by byte, and a chunk encoder")
        self.classes_source = classes
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
        cdef unsigned char *u8
        cdef unsigned int c
        cdef Py_ssize_t j
        cdef list ids
        cdef void *grown
        try:
            if self.merger is not None:
                if chunk is None:  # a chunk of the text (ASCII, or the wide scan's): its UTF-8 length
                    m = 0
                    for k in range(i, n):
                        c = PyUnicode_READ(kind, <void *>data, k)
                        if c < 0x80:
                            m += 1
                        elif c < 0x800:
                            m += 2
                        elif 0xD800 <= c < 0xE000:  # a lone surrogate: as a string, escaped
                            chunk = PyUnicode_Substring(text, i, n)
                            break
                        else:
                            m += 3 if c < 0x10000 else 4
                if chunk is None:  # its characters written as UTF-8 here (ASCII: they are its bytes)
                    sym = <int64_t *>PyMem_Malloc(max(m, 1) * (sizeof(int64_t) + 1))
                    if sym == NULL:
                        raise MemoryError
                    u8 = <unsigned char *>(sym + max(m, 1))
                    j = 0
                    for k in range(i, n):
                        c = PyUnicode_READ(kind, <void *>data, k)
                        if c < 0x80:
                            u8[j] = <unsigned char>c
                            j += 1
                        elif c < 0x800:
                            u8[j] = <unsigned char>(0xC0 | (c >> 6))
                            u8[j + 1] = <unsigned char>(0x80 | (c & 0x3F))
                            j += 2
                        elif c < 0x10000:
                            u8[j] = <unsigned char>(0xE0 | (c >> 12))
                            u8[j + 1] = <unsigned char>(0x80 | ((c >> 6) & 0x3F))
                            u8[j + 2] = <unsigned char>(0x80 | (c & 0x3F))
                            j += 3
                        else:
                            u8[j] = <unsigned char>(0xF0 | (c >> 18))
                            u8[j + 1] = <unsigned char>(0x80 | ((c >> 12) & 0x3F))
                            u8[j + 2] = <unsigned char>(0x80 | ((c >> 6) & 0x3F))
                            u8[j + 3] = <unsigned char>(0x80 | (c & 0x3F))
                            j += 4
                    for k in range(m):
                        sym[k] = u8[k]
                    b = u8 if m != size else NULL
                else:
                    raw = (<str>chunk).encode("utf-8", "surrogateescape")
                    m = len(raw)
                    b = raw
                    sym = <int64_t *>PyMem_Malloc(max(m, 1) * sizeof(int64_t))
                    if sym == NULL:
                        raise MemoryError
                    for k in range(m):
                        sym[k] = b[k]
                m = self.merger._bytes(sym, m, b)
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

    cdef int _classes(self) except -1:
        """The wide scan's table, from ``classes`` (the table, or what gives it), at first need."""
        source, self.classes_source = self.classes_source, None
        table = source if isinstance(source, bytes) else source()
        if not isinstance(table, bytes) or len(<bytes>table) != 65536:
            raise ValueError("the wide classes are 65,536 bytes")
        self.classes = table
        return 0

    cdef Py_ssize_t _cjk(self, _Ids *out, str text, int kind, void *data, Py_ssize_t i, Py_ssize_t n) except -1:
        """Encode from ``i`` (where a chunk starts) the chunks of wide letters, of other wide
        characters and of newlines that every pattern surely finds there whatever follows, as
        long as it meets them; returns where it stopped (``i``: none there).

        The three patterns agree there (see the kinds above): a run of wide letters is a chunk,
        with the character before it when that is one of [^\\s\\p{L}\\p{N}] in gpt4 and o200k
        (``[^\\r\\n\\p{L}\\p{N}]?\\p{L}+``); a run of other characters is a chunk, with the
        newlines after it in gpt4 and o200k (``[\\r\\n]*``); a run of newlines is a chunk, but
        for gpt2's last newline before what is not a space (``\\s+(?!\\S)``). A chunk is taken
        only when the character that ends its run surely ends it in every pattern; else the
        pattern takes over there (_wide)."""
        cdef const unsigned char *classes = self.classes
        cdef bint gpt2 = self.mode == 0
        cdef Py_ssize_t p = i, r
        cdef int k, t
        while p < n:
            k = _wkind(kind, data, classes, p, n)
            if k == _K_LETTER:
                r = _wrun(kind, data, classes, p + 1, n, _K_LETTER, _K_LETTER)
                if not _ends_letters(_wkind(kind, data, classes, r, n)):
                    break
            elif k == _K_OTHER:
                t = _wkind(kind, data, classes, p + 1, n)
                if not gpt2 and t == _K_LETTER:  # the letters' one character before
                    r = _wrun(kind, data, classes, p + 2, n, _K_LETTER, _K_LETTER)
                    if not _ends_letters(_wkind(kind, data, classes, r, n)):
                        break
                else:
                    if not gpt2 and (t == _K_ALET or t == _K_UNKNOWN):
                        break  # perhaps a letter after it
                    r = _wrun(kind, data, classes, p + 1, n, _K_OTHER, _K_AOTH)
                    if not _ends_others(_wkind(kind, data, classes, r, n)):
                        break
                    if not gpt2:
                        r = _wrun(kind, data, classes, r, n, _K_NL, _K_NL)
                        t = _wkind(kind, data, classes, r, n)
                        if t == _K_UNKNOWN:  # \r, or o200k's /
                            break
            elif k == _K_NL:
                r = _wrun(kind, data, classes, p + 1, n, _K_NL, _K_NL)
                t = _wkind(kind, data, classes, r, n)
                if t == _K_AWSP or t == _K_UNKNOWN:
                    break  # more spaces, perhaps
                if gpt2 and t != _K_END and r - p >= 2:
                    self._chunk(out, text, kind, data, p, r - 1, None)
                    p = r - 1
            else:
                break
            self._chunk(out, text, kind, data, p, r, None)
            p = r
        return p

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
        with none of those is widened, up to the whole rest of the text.

        In o200k a letter after a chunk keeps it open: its first branch takes letters of \\p{Lo}
        (Chinese) into its upper-case part, so "国人HTTP" is two chunks and "国人HTTP中" one; what
        follows the window decides. There a chunk is sure only before a character that is no letter."""
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
                if w == n or (pos + ahead < w and _surely_not_space(<unsigned int>PyUnicode_READ(kind, data, pos - 1))
                              and not (self.mode == 2 and _maybe_letter(<unsigned int>PyUnicode_READ(kind, data, pos)))):
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
                    if self.classes_source is not None:
                        self._classes()
                    e = self._cjk(&out, text, kind, data, i, n) if self.classes is not None else i
                    i = e if e > i else self._wide(&out, text, kind, data, i, x, n)
            result = PyList_New(out.used)
            for k in range(out.used):
                item = <object>PyList_GET_ITEM(self.ints, out.v[k])
                Py_INCREF(item)
                PyList_SET_ITEM(result, k, item)
            return result
        finally:
            PyMem_Free(out.v)
