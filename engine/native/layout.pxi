# The pair state's node layout of the compiled core (included by compiled.pyx, after train.pxi,
# whose node type and constants it uses): the distinct chunks laid out as one array of nodes,
# from (symbols, count) pairs (``layout``), or read straight from the counted chunks' strings,
# as characters (``layout_chars``) or as their UTF-8 bytes (``layout_bytes``).


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


cdef int _lay_chars(node_t[::1] data, list keys, list weights, const int32_t *table, int64_t *starts) except -1:
    """:func:`_lay` for the chars base, reading each chunk's characters straight from the string
    (``table``: each code point's id): no list of ids is made per chunk."""
    cdef Py_ssize_t i, j, length, node = 1, chunks = len(keys), kept = 0
    cdef int64_t w
    cdef int kind
    cdef void *raw
    data[0] = <node_t>SEP
    data[1] = 4
    data[2] = -4
    data[3] = 0
    for i in range(chunks):
        seq = keys[i]
        length = len(<str>seq)
        if not length:  # (the pair state lays out only chunks with units)
            continue
        w = weights[i]
        starts[kept] = 4 * node
        kept += 1
        kind = PyUnicode_KIND(seq)
        raw = PyUnicode_DATA(seq)
        for j in range(length):
            data[4 * node] = <node_t>table[PyUnicode_READ(kind, raw, j)]
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


def layout_chars(chunks, alphabet):
    """The chars base's alphabet and layout straight from the distinct chunks (a dict: chunk ->
    count, in order), as ``(alphabet, data, starts, tokens, lengths)``: see ``layout_chars`` in
    engine/train/loops.py, which returns exactly what this does. ``alphabet`` None: the chunks'
    own characters, U+FFFD first, then by code point. None where it gives up (a chunk that is
    not a str, a count that is not an int from 1 to 2**50, an alphabet entry that is not one
    character, tokens reaching 2**50): the pure twin then builds it or says what is wrong."""
    cdef list keys = list(chunks), weights = list(chunks.values())
    cdef Py_ssize_t i, j, length, chunks_kept = 0, n = 1, count = len(keys)
    cdef int64_t w, maxw = 0, tokens = 0
    cdef int kind
    cdef void *raw
    cdef uint32_t cp, top = 0xFFFD
    cdef unsigned char *seen = NULL
    cdef int32_t *table = NULL
    cdef int32_t next_id
    cdef int[::1] narrow
    cdef long long[::1] wide
    lengths = carray.clone(carray.array("i"), count, zero=False)
    cdef int *at_length = (<carray.array>lengths).data.as_ints
    try:
        if alphabet is None:
            seen = <unsigned char *>PyMem_Malloc(0x110000)
            if seen == NULL:
                raise MemoryError()
            memset(seen, 0, 0x110000)
        for i in range(count):
            seq = keys[i]
            if type(seq) is not str or type(weights[i]) is not int:
                return None
            if weights[i] < 1 or weights[i] > <object>C_CMAX:
                return None
            w = weights[i]
            length = len(<str>seq)
            if length > INT32_MAX:
                return None
            at_length[i] = <int>length
            if not length:
                continue
            chunks_kept += 1
            n += length + 1
            if w > maxw:
                maxw = w
            if w > (<int64_t>C_CMAX - tokens) // length:
                return None  # tokens would reach CMAX: the pure twin and the pair state say so
            tokens += w * length
            kind = PyUnicode_KIND(seq)
            raw = PyUnicode_DATA(seq)
            for j in range(length):
                cp = PyUnicode_READ(kind, raw, j)
                if cp > top:
                    top = cp
                if seen != NULL:
                    seen[cp] = 1
        table = <int32_t *>PyMem_Malloc((top + 1) * sizeof(int32_t))
        if table == NULL:
            raise MemoryError()
        memset(table, 0, (top + 1) * sizeof(int32_t))  # a character outside the alphabet: id 0
        if seen != NULL:
            made = ["\ufffd"]
            next_id = 1
            for cp in range(top + 1):
                if seen[cp] and cp != 0xFFFD:
                    table[cp] = next_id
                    next_id += 1
                    made.append(chr(cp))
        else:
            made = list(alphabet)
            for i in range(len(made)):
                c = made[i]
                if type(c) is not str or len(<str>c) != 1:
                    return None
                cp = ord(c)
                if cp <= top:
                    table[cp] = <int32_t>i  # a repeated character: its last place, as a dict keeps it
        code = "i" if maxw <= INT32_MAX and 4 * n + 4 <= INT32_MAX else "q"
        data = carray.clone(carray.array(code), 4 * n, zero=False)
        starts = carray.clone(carray.array("q"), chunks_kept, zero=False)
        if code == "i":
            narrow = data
            _lay_chars(narrow, keys, weights, table, <int64_t *>(<carray.array>starts).data.as_longlongs)
        else:
            wide = data
            _lay_chars(wide, keys, weights, table, <int64_t *>(<carray.array>starts).data.as_longlongs)
        return made, data, starts, tokens, lengths
    finally:
        PyMem_Free(seen)
        PyMem_Free(table)


cdef inline int _utf8_size(uint32_t cp) noexcept:
    """A code point's bytes in UTF-8 under ``surrogateescape`` (U+DC80..U+DCFF: the one raw
    byte it stands for); 0: no encoding (any other lone surrogate)."""
    if cp < 0x80:
        return 1
    if cp < 0x800:
        return 2
    if 0xD800 <= cp <= 0xDFFF:
        return 1 if 0xDC80 <= cp <= 0xDCFF else 0
    if cp < 0x10000:
        return 3
    return 4


cdef inline Py_ssize_t _put_byte(node_t[::1] data, Py_ssize_t node, int byte, int64_t w) noexcept:
    data[4 * node] = <node_t>byte
    data[4 * node + 1] = <node_t>(4 * node + 4)
    data[4 * node + 2] = <node_t>(4 * node - 4)
    data[4 * node + 3] = <node_t>w
    return node + 1


cdef int _lay_bytes(node_t[::1] data, list keys, list weights, int64_t *starts) except -1:
    """:func:`_lay` for the bytes base, reading each chunk's UTF-8 bytes (``surrogateescape``)
    straight from the string: no bytes object is made per chunk."""
    cdef Py_ssize_t i, j, length, node = 1, chunks = len(keys), kept = 0
    cdef int64_t w
    cdef int kind
    cdef void *raw
    cdef uint32_t cp
    data[0] = <node_t>SEP
    data[1] = 4
    data[2] = -4
    data[3] = 0
    for i in range(chunks):
        seq = keys[i]
        length = len(<str>seq)
        if not length:  # (the pair state lays out only chunks with units)
            continue
        w = weights[i]
        starts[kept] = 4 * node
        kept += 1
        kind = PyUnicode_KIND(seq)
        raw = PyUnicode_DATA(seq)
        for j in range(length):
            cp = PyUnicode_READ(kind, raw, j)
            if cp < 0x80:
                node = _put_byte(data, node, <int>cp, w)
            elif cp < 0x800:
                node = _put_byte(data, node, <int>(0xC0 | (cp >> 6)), w)
                node = _put_byte(data, node, <int>(0x80 | (cp & 0x3F)), w)
            elif 0xDC80 <= cp <= 0xDCFF:  # an escaped byte (the caller checked there is no other surrogate)
                node = _put_byte(data, node, <int>(cp - 0xDC00), w)
            elif cp < 0x10000:
                node = _put_byte(data, node, <int>(0xE0 | (cp >> 12)), w)
                node = _put_byte(data, node, <int>(0x80 | ((cp >> 6) & 0x3F)), w)
                node = _put_byte(data, node, <int>(0x80 | (cp & 0x3F)), w)
            else:
                node = _put_byte(data, node, <int>(0xF0 | (cp >> 18)), w)
                node = _put_byte(data, node, <int>(0x80 | ((cp >> 12) & 0x3F)), w)
                node = _put_byte(data, node, <int>(0x80 | ((cp >> 6) & 0x3F)), w)
                node = _put_byte(data, node, <int>(0x80 | (cp & 0x3F)), w)
        node = _put_byte(data, node, <int>SEP, w)
    return 0


def layout_bytes(chunks):
    """The bytes base's layout straight from the distinct chunks (a dict: chunk -> count, in
    order; bytes beyond UTF-8 as lone surrogates U+DC80..U+DCFF), as ``(data, starts, tokens,
    lengths)``: see ``layout_bytes`` in engine/train/loops.py, which returns exactly what this
    does. No bytes object is made per chunk. None where it gives up (a chunk that is not a str or
    holds another lone surrogate, a count that is not an int from 1 to 2**50, tokens reaching
    2**50): the pure twin then builds it or says what is wrong."""
    cdef list keys = list(chunks), weights = list(chunks.values())
    cdef Py_ssize_t i, j, length, size, chunks_kept = 0, n = 1, count = len(keys)
    cdef int64_t w, maxw = 0, tokens = 0
    cdef int kind, one
    cdef void *raw
    cdef int[::1] narrow
    cdef long long[::1] wide
    lengths = carray.clone(carray.array("i"), count, zero=False)
    cdef int *at_length = (<carray.array>lengths).data.as_ints
    for i in range(count):
        seq = keys[i]
        if type(seq) is not str or type(weights[i]) is not int:
            return None
        if weights[i] < 1 or weights[i] > <object>C_CMAX:
            return None
        w = weights[i]
        length = len(<str>seq)
        kind = PyUnicode_KIND(seq)
        raw = PyUnicode_DATA(seq)
        size = 0
        for j in range(length):
            one = _utf8_size(PyUnicode_READ(kind, raw, j))
            if one == 0:
                return None
            size += one
        if size > INT32_MAX:
            return None
        at_length[i] = <int>size
        if not size:
            continue
        chunks_kept += 1
        n += size + 1
        if w > maxw:
            maxw = w
        if w > (<int64_t>C_CMAX - tokens) // size:
            return None  # tokens would reach CMAX: the pure twin and the pair state say so
        tokens += w * size
    code = "i" if maxw <= INT32_MAX and 4 * n + 4 <= INT32_MAX else "q"
    data = carray.clone(carray.array(code), 4 * n, zero=False)
    starts = carray.clone(carray.array("q"), chunks_kept, zero=False)
    if code == "i":
        narrow = data
        _lay_bytes(narrow, keys, weights, <int64_t *>(<carray.array>starts).data.as_longlongs)
    else:
        wide = data
        _lay_bytes(wide, keys, weights, <int64_t *>(<carray.array>starts).data.as_longlongs)
    return data, starts, tokens, lengths
