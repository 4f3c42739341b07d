# The load stage: a rank file's merges, read back from the merge cache, checked and put in
# bpe-lab's ids in one pass each (engine/formats/tiktoken_bpe.py's _from_cache; its pure twin
# is engine.encode.recovered), and npm tiktoken's inline ranks read in one pass.


def parts_in_order(list lefts, list rights, Py_ssize_t first):
    """Whether merge ``k`` of ``(lefts[k], rights[k])`` only uses ids made before it (``first +
    k``): every id an int, at least 0, below its merge's. The twin of the map-chain check in
    ``engine.encode.vocabulary.Vocabulary._build``."""
    cdef Py_ssize_t k, n = len(lefts)
    cdef object a, b
    cdef long long x, y
    if len(rights) != n:
        return False
    for k in range(n):
        a = lefts[k]
        b = rights[k]
        if type(a) is not int or type(b) is not int:
            return False
        try:
            x = a
            y = b
        except OverflowError:  # past a C long: no id is
            return False
        if x < 0 or y < 0 or x >= first + k or y >= first + k:
            return False
    return True


def recovered_parts(list base_ids, list products, list left_ranks, list right_ranks, list tokens):
    """A merge cache entry in bpe-lab's ids, checked against the rank file's ``tokens`` (its
    tokens by rank, 0, 1, 2, ...): ``(lefts, rights, made)``, or None unless the entry is
    exactly a recovery: products growing, each the rank of a token of two bytes or more; each
    part a byte (``base_ids[b]``: the rank of byte ``b``'s token, or None) or a product made
    before it; each merge's token its two parts' bytes joined. The twin of what
    ``engine.formats.tiktoken_bpe._from_cache`` checks in Python (tests/engine/test_merge_cache.py
    holds them to one verdict)."""
    cdef Py_ssize_t first = len(base_ids), n = len(products), top = len(tokens)
    cdef int32_t *ours
    if len(left_ranks) != n or len(right_ranks) != n or first > 256:
        return None
    ours = <int32_t *>PyMem_Malloc((top + 1) * sizeof(int32_t))
    if ours == NULL:
        raise MemoryError()
    try:
        return _recovered(ours, first, n, top, base_ids, products, left_ranks, right_ranks, tokens)
    except (OverflowError, TypeError):  # a rank past a C long, or not an int: not a recovery
        return None
    finally:
        PyMem_Free(ours)


cdef object _recovered(int32_t *ours, Py_ssize_t first, Py_ssize_t n, Py_ssize_t top, list base_ids, list products,
                       list left_ranks, list right_ranks, list tokens):
    """:func:`recovered_parts` with its table of our ids by rank, ``ours``."""
    cdef Py_ssize_t k, r, lo, la, lb, size_a, size_b, size
    cdef list lefts, rights, made
    cdef object token, base
    cdef unsigned char byte_a, byte_b
    cdef const unsigned char *pa
    cdef const unsigned char *pb
    cdef const unsigned char *pm
    for r in range(top + 1):
        ours[r] = -1
    for k in range(first):
        base = base_ids[k]
        if base is not None:
            r = base
            if r < 0 or r >= top:
                return None
            ours[r] = <int32_t>k
    lo = -1
    for k in range(n):
        r = products[k]
        if r <= lo or r >= top or ours[r] != -1:  # growing (so none twice), a token's, not a byte's
            return None
        ours[r] = <int32_t>(first + k)
        lo = r
    lefts = [None] * n
    rights = [None] * n
    made = [None] * n
    for k in range(n):
        r = left_ranks[k]
        la = ours[r] if 0 <= r < top else -1
        r = right_ranks[k]
        lb = ours[r] if 0 <= r < top else -1
        if la < 0 or lb < 0 or la >= first + k or lb >= first + k:
            return None
        token = tokens[products[k]]
        if type(token) is not bytes:
            return None
        lefts[k] = la
        rights[k] = lb
        made[k] = token
        if la < first:
            byte_a = <unsigned char>la
            pa, size_a = &byte_a, 1
        else:
            pa, size_a = <const unsigned char *>(<bytes>made[la - first]), len(<bytes>made[la - first])
        if lb < first:
            byte_b = <unsigned char>lb
            pb, size_b = &byte_b, 1
        else:
            pb, size_b = <const unsigned char *>(<bytes>made[lb - first]), len(<bytes>made[lb - first])
        size = len(<bytes>token)
        pm = <const unsigned char *>(<bytes>token)
        if size_a + size_b != size or memcmp(pm, pa, size_a) != 0 or memcmp(pm + size_a, pb, size_b) != 0:
            return None
    return lefts, rights, made


# -- reading npm tiktoken's inline ranks ------------------------------------------------------

cdef signed char _B64[256]
for _c in range(256):
    _B64[_c] = -1
for _c, _ch in enumerate(list(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")):
    _B64[_ch] = _c


cdef object _b64_token(const unsigned char *p, Py_ssize_t n):
    """The bytes of one base64 token ``p[:n]`` in canonical form (groups of four, padded with at
    most two ``=`` at its end, no bits left over), else None."""
    cdef Py_ssize_t pad = 0, size, k, j = 0
    cdef unsigned int v
    cdef bytes out
    cdef unsigned char *o
    if n < 4 or n % 4:
        return None
    if p[n - 1] == 61:
        pad = 2 if p[n - 2] == 61 else 1
    size = n // 4 * 3 - pad
    out = PyBytes_FromStringAndSize(NULL, size)
    o = <unsigned char *>PyBytes_AS_STRING(out)
    for k in range(0, n, 4):
        if k + 4 == n and pad:
            if _B64[p[k]] < 0 or _B64[p[k + 1]] < 0 or (pad == 1 and _B64[p[k + 2]] < 0):
                return None
            v = (<unsigned int>_B64[p[k]] << 18) | (<unsigned int>_B64[p[k + 1]] << 12)
            if pad == 1:
                v |= <unsigned int>_B64[p[k + 2]] << 6
                if v & 0xFF:
                    return None  # bits left over
                o[j] = <unsigned char>(v >> 16)
                o[j + 1] = <unsigned char>(v >> 8)
            else:
                if v & 0xFFFF:
                    return None
                o[j] = <unsigned char>(v >> 16)
            break
        if _B64[p[k]] < 0 or _B64[p[k + 1]] < 0 or _B64[p[k + 2]] < 0 or _B64[p[k + 3]] < 0:
            return None
        v = ((<unsigned int>_B64[p[k]] << 18) | (<unsigned int>_B64[p[k + 1]] << 12)
             | (<unsigned int>_B64[p[k + 2]] << 6) | <unsigned int>_B64[p[k + 3]])
        o[j] = <unsigned char>(v >> 16)
        o[j + 1] = <unsigned char>(v >> 8)
        o[j + 2] = <unsigned char>v
        j += 3
    return out


def inline_ranks(str ranks):
    """npm tiktoken's inline ranks (lines of a marker, the first rank, then base64 tokens of
    consecutive ranks) as ``(tokens -> rank, how many tokens were read, the last rank)``, each
    line's tokens added in order (a token met again takes its later rank), as
    ``engine.formats.rank_json.inline_ranks`` reads them before its checks; None for anything
    it does not take in one pass (text past ASCII, a first rank that is not 1 to 10 digits, a
    token not in canonical base64, an empty one): that reader then decides. The last rank is
    the highest, and no two tokens share a rank, when each line's first rank comes after the
    ranks before it; else it is -1."""
    cdef const unsigned char *data
    cdef Py_ssize_t n, pos = 0, end, field, start, k, count = 0
    cdef long long rank, last = -1
    cdef bint growing = True
    cdef dict out = {}
    if not ranks.isascii():
        return None
    data = <const unsigned char *>PyUnicode_DATA(ranks)
    n = len(ranks)
    while pos < n:
        end = pos
        while end < n and data[end] != 10:
            end += 1
        if end > pos:  # a line: the marker, the first rank, the tokens
            k = pos
            while k < end and data[k] != 32:
                k += 1
            if k == end:
                return None
            start = k + 1
            k = start
            rank = 0
            while k < end and data[k] != 32:
                if not 48 <= data[k] <= 57 or k - start >= 10:
                    return None
                rank = rank * 10 + (data[k] - 48)
                k += 1
            if k == start:
                return None
            if rank <= last:
                growing = False
            while k < end:  # k is at a space: a token follows
                field = k + 1
                k = field
                while k < end and data[k] != 32:
                    k += 1
                token = _b64_token(data + field, k - field)
                if token is None or not token:
                    return None
                PyDict_SetItem(out, token, rank)
                last = rank
                rank += 1
                count += 1
        pos = end + 1
    return out, count, last if growing else -1
