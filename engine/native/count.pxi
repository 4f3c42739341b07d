# The counting stage of the compiled core (included by compiled.pyx, after train.pxi): any text
# counted under the gpt2 pattern in C, the chunks hashed as spans and a string made per distinct
# chunk only (count_gpt2), its characters' classes given (engine/native/char_classes.py).

# -- counting any text under the gpt2 pattern: the chunks hashed in C, one string a distinct chunk --

# The classes the gpt2 pattern tells characters apart by (0: no character, past the text's end).
cdef enum:
    _C_LET = 1  # \p{L}
    _C_DIG = 2  # \p{N}
    _C_WSP = 3  # \s
    _C_OTH = 4  # the rest


def distinct_chars(str text):
    """The distinct characters of ``text``, in code point order, as one string."""
    cdef Py_ssize_t i, n = len(text)
    cdef int kind = PyUnicode_KIND(text)
    cdef void *raw = PyUnicode_DATA(text)
    cdef uint32_t cp, top = 0
    cdef unsigned char *seen = <unsigned char *>PyMem_Malloc(0x110000)
    if seen == NULL:
        raise MemoryError()
    try:
        memset(seen, 0, 0x110000)
        for i in range(n):
            cp = PyUnicode_READ(kind, raw, i)
            seen[cp] = 1
            if cp > top:
                top = cp
        return "".join([chr(cp) for cp in range(top + 1) if seen[cp]]) if n else ""
    finally:
        PyMem_Free(seen)


cdef inline Py_ssize_t _gpt2_end(int kind, void *data, Py_ssize_t i, Py_ssize_t n, const unsigned char *cls) noexcept:
    """Where the gpt2 pattern's chunk starting at ``i`` ends, on a text ending at ``n`` whose
    characters' classes are ``cls`` (by code point): its alternatives in order,
    ``'(?:[sdmt]|ll|ve|re)| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+``."""
    cdef uint32_t c = PyUnicode_READ(kind, data, i), c1 = 0, c2
    cdef unsigned char k = cls[c], k1 = 0
    cdef Py_ssize_t j
    if i + 1 < n:
        c1 = PyUnicode_READ(kind, data, i + 1)
        k1 = cls[c1]
        if c == 39:  # an apostrophe: 's 'd 'm 't, 'll 've 're
            if c1 == 115 or c1 == 100 or c1 == 109 or c1 == 116:
                return i + 2
            if i + 2 < n:
                c2 = PyUnicode_READ(kind, data, i + 2)
                if (c1 == 108 and c2 == 108) or (c1 == 118 and c2 == 101) or (c1 == 114 and c2 == 101):
                    return i + 3
    if c == 32 and k1 != 0 and k1 != _C_WSP:  # " ?" before letters, digits or the rest
        k = k1
        i += 1
    if k != _C_WSP:  # a run of one class
        j = i + 1
        while j < n and cls[PyUnicode_READ(kind, data, j)] == k:
            j += 1
        return j
    # space: the whole run, but a run before a non-space keeps its last character for the next
    # chunk (\s+(?!\S))
    j = i + 1
    while j < n and cls[PyUnicode_READ(kind, data, j)] == _C_WSP:
        j += 1
    if j == n or j - i < 2:
        return j
    return j - 1


cdef inline uint64_t _fnv(const unsigned char *p, Py_ssize_t n) noexcept:
    cdef uint64_t h = 14695981039346656037ULL
    cdef Py_ssize_t i
    for i in range(n):
        h = (h ^ p[i]) * 1099511628211ULL
    return h


cdef struct _Seen:  # a distinct chunk of the text being counted
    Py_ssize_t at  # where it first occurs
    Py_ssize_t size  # its length
    Py_ssize_t many  # its occurrences
    uint64_t hash


def count_gpt2(counts, str text, const unsigned char[::1] classes):
    """Count the gpt2 pattern's chunks of ``text`` into ``counts`` (a dict: each new chunk after
    its keys, in order of first appearance), ``classes`` giving each code point's class (1
    letter, 2 digit, 3 space, 4 the rest: engine/native/char_classes.py reads them off the
    ``regex`` module), indexed up to the text's largest code point. Returns the number of
    chunks counted. Twin: ``Counter(regex.findall(GPT2_PATTERN, text))``; a string is made per
    distinct chunk only."""
    cdef Py_ssize_t n = len(text), i, end, total = 0, used = 0, room = 1 << 10, e
    cdef int kind = PyUnicode_KIND(text)
    cdef void *data = PyUnicode_DATA(text)
    cdef const unsigned char *raw = <const unsigned char *>data
    cdef const unsigned char *cls = &classes[0] if classes.shape[0] else NULL
    cdef uint64_t cap = 1 << 12, slot, h
    cdef Py_ssize_t *slots = NULL
    cdef _Seen *seen = NULL
    cdef void *grown
    cdef PyObject *old
    cdef uint32_t cp
    if not n:
        return 0
    for i in range(n):  # every class known (a caller's bug otherwise, not a reason to read past the table)
        cp = PyUnicode_READ(kind, data, i)
        if cp >= <uint32_t>classes.shape[0] or not 1 <= cls[cp] <= 4:
            raise ValueError(f"no class for U+{cp:04X}")
    try:
        slots = <Py_ssize_t *>PyMem_Malloc(cap * sizeof(Py_ssize_t))
        seen = <_Seen *>PyMem_Malloc(room * sizeof(_Seen))
        if slots == NULL or seen == NULL:
            raise MemoryError()
        memset(slots, 0xFF, cap * sizeof(Py_ssize_t))  # every slot -1
        i = 0
        while i < n:
            end = _gpt2_end(kind, data, i, n, cls)
            h = _mix(_fnv(raw + i * kind, (end - i) * kind))
            slot = h & (cap - 1)
            while True:
                e = slots[slot]
                if e < 0:
                    break
                if (seen[e].hash == h and seen[e].size == end - i
                        and memcmp(raw + seen[e].at * kind, raw + i * kind, (end - i) * kind) == 0):
                    break
                slot = (slot + 1) & (cap - 1)
            if e >= 0:
                seen[e].many += 1
            else:
                if used == room:
                    room *= 2
                    grown = PyMem_Realloc(seen, room * sizeof(_Seen))
                    if grown == NULL:
                        raise MemoryError()
                    seen = <_Seen *>grown
                seen[used].at = i
                seen[used].size = end - i
                seen[used].many = 1
                seen[used].hash = h
                slots[slot] = used
                used += 1
                if <uint64_t>used * 2 > cap:  # keep the table at most half full
                    cap *= 2
                    grown = PyMem_Realloc(slots, cap * sizeof(Py_ssize_t))
                    if grown == NULL:
                        raise MemoryError()
                    slots = <Py_ssize_t *>grown
                    memset(slots, 0xFF, cap * sizeof(Py_ssize_t))
                    for e in range(used):
                        slot = seen[e].hash & (cap - 1)
                        while slots[slot] >= 0:
                            slot = (slot + 1) & (cap - 1)
                        slots[slot] = e
            total += 1
            i = end
        for e in range(used):
            key = PyUnicode_Substring(text, seen[e].at, seen[e].at + seen[e].size)
            old = PyDict_GetItem(counts, key)
            if old == NULL:
                PyDict_SetItem(counts, key, seen[e].many)
            else:
                PyDict_SetItem(counts, key, <object>old + seen[e].many)
        return total
    finally:
        PyMem_Free(slots)
        PyMem_Free(seen)



def add_counts(into, part):
    """Add the counts of ``part`` into ``into`` (chunk -> count dicts: a Counter), a chunk new to
    ``into`` after its keys, in ``part``'s order: ``Counter.update``'s twin, in C (its loop over
    a mapping is Python's: adding the partial tables of a large corpus took seconds)."""
    cdef PyObject *old
    if not isinstance(into, dict) or not isinstance(part, dict):
        raise TypeError("add_counts adds a dict into a dict")
    for key, n in (<dict>part).items():
        old = PyDict_GetItem(into, key)
        if old == NULL:
            PyDict_SetItem(into, key, n)
        else:
            PyDict_SetItem(into, key, <object>old + n)
