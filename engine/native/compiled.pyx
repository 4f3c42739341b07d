# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The compiled core: the engine's hot loops in Cython, behind :mod:`engine.native.door` (read it
first). Every function here has a pure-Python twin that is the reference: chunk encoding
(``engine.encode.apply_merges.apply_merges``), the trainer's merge, node layout and first pair index
(``merge``, ``layout``, ``index_pairs`` in ``engine.train.loops``). tests/engine/test_core.py holds them to
identical results.

One extension module, its source by stage (Cython's ``include``, so that the stages call each
other's C functions directly, as one file did):

- ``encode.pxi``: a chunk's ids (``ChunkEncoder``), tiktoken's rank merging (``split_points``,
  ``RankMerger``) and writing ids out (``ids_text``);
- ``positions.pxi``: the pair state's occurrence index (``Where``: every position list in one pool);
- ``train.pxi``: the pair state's first index, counts, queue and merge;
- ``layout.pxi``: the pair state's node layout, from symbol lists or straight from the counted
  chunks' strings (characters, or their UTF-8 bytes);
- ``steps.pxi``: the trainer's steps under lowest-ids in one loop (``run_steps``: choose, merge,
  log), where the pure path steps one call at a time;
- ``count.pxi``: any text's chunks counted under the gpt2 pattern (``count_gpt2``), the
  characters' classes given;
- ``scan.pxi``: the named patterns' ASCII scanner (``count_ascii``, ``split_ascii``) and the
  whole-text encoder (``TextCoder``: the split and the chunk table in C);
- ``load.pxi``: a loaded vocabulary's checks (``parts_in_order``), a merge cache entry read
  back into bpe-lab's ids (``recovered_parts``) and npm tiktoken's inline ranks (``inline_ranks``).

hatch_build.py's digest (``BUILT_FROM``) covers this file and every ``.pxi`` beside it
(``engine/native/sources.py``)."""

from cpython cimport array as carray
from cpython.dict cimport PyDict_GetItem, PyDict_SetItem
from cpython.mem cimport PyMem_Free, PyMem_Malloc, PyMem_Realloc
from cpython.ref cimport PyObject
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from libc.string cimport memcmp, memcpy, memmove, memset
from cpython.unicode cimport (PyUnicode_DATA, PyUnicode_DecodeASCII, PyUnicode_KIND, PyUnicode_READ,
                              PyUnicode_Substring)

#: The digest of the core's source (engine/native/sources.py), written in by hatch_build.py at build
#: time: engine.native.door uses this module only when it matches the sources beside it (an
#: editable install edited since falls back to pure Python).
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


cdef carray.array _INTS = carray.array("i")
cdef int64_t INT32_MAX = 2147483647


cdef carray.array _ints(Py_ssize_t n):
    return carray.clone(_INTS, n, zero=False)


include "encode.pxi"
include "positions.pxi"
include "train.pxi"
include "layout.pxi"
include "steps.pxi"
include "count.pxi"
include "scan.pxi"
include "load.pxi"
