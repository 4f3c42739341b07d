# The trainer's steps in one C loop, for the lowest-ids rule (engine.train.timeline.Timeline.run).
#
# Each step is exactly what the Trainer's step does one Python call at a time: the queue's
# top pair and its tie set (PairState.choose and _read_front), the stop rules that come after
# the choice (min-frequency, vocab-bytes), the merge (PairState.merge: ``_merge`` above) and
# the event's row in the log (EventLog.add, no undo record). The pure path has no twin: it
# steps one at a time, which is the reference; tests/engine/test_steps.py holds the two to
# the same log and state.

from cpython.object cimport Py_SIZE

cdef int64_t NO_RECORD_ROW = -1  # engine.train.event_log.NO_RECORD


cdef inline long long *_grow_q(carray.array a, Py_ssize_t more) except NULL:
    """Room for ``more`` items at the end of an array of 'q' (its new items: to be written)."""
    cdef Py_ssize_t n = Py_SIZE(a)
    carray.resize_smart(a, n + more)
    return a.data.as_longlongs + n


cdef inline int *_grow_i(carray.array a, Py_ssize_t more) except NULL:
    """Room for ``more`` items at the end of an array of 'i'."""
    cdef Py_ssize_t n = Py_SIZE(a)
    carray.resize_smart(a, n + more)
    return a.data.as_ints + n


cdef Py_ssize_t _front_ties(list ahead, Counts count, int64_t c, Py_ssize_t k, uint64_t *ties) except -1:
    """PairState.choose's reading of a kept front: the first ``k`` keys of count ``c`` in
    ``ahead`` (entries whose count fell are dropped once at its head); returns how many."""
    cdef Py_ssize_t n = 0, gone = 0, at
    cdef uint64_t other
    for e in ahead:
        other = <uint64_t>(e & M40)
        at = count.find(<int64_t>other)
        if at >= 0 and count.slots[at].value == c:
            ties[n] = other
            n += 1
            if n == k:
                break
        elif n == 0:
            gone += 1
    if gone:
        del ahead[:gone]
    return n


def run_steps(data, Where where, Counts count, hist, Queue heap, int64_t floor, front, int64_t tokens,
              Py_ssize_t limit, Py_ssize_t cap, Py_ssize_t want, int64_t min_frequency, list pieces,
              Py_ssize_t mark, int64_t known_bytes, int64_t max_bytes, int64_t step,
              carray.array wide_rows, carray.array narrow_rows, carray.array tie_pairs, list log_tokens,
              list kept, int64_t work_budget, int64_t work_per_merge):
    """Up to ``limit`` steps of a lowest-ids pair state (``data`` ... ``tokens``: its parts,
    ``front`` its read-ahead), each logged as EventLog.add logs it; ``kept`` (a list, or None)
    gets each step's ``(plist, absorbed, old)`` for its undo record. ``work_budget`` (-1: none)
    ends the run after the step whose work (nodes absorbed + ``work_per_merge`` a step, as
    engine.train.checkpoints counts it) reaches it: a checkpoint is due there. Returns
    ``(steps made, the stop reason or None, known bytes, tokens, front)``."""
    cdef Py_ssize_t done = 0, k, n, i, size
    cdef int64_t c, total, a, b, new_id, old, extra, removed, work = 0
    cdef uint64_t key, field
    cdef uint64_t ties[8]
    cdef QEntry e
    cdef bint narrow_nodes = data.typecode == "i"
    cdef int[::1] narrow
    cdef long long[::1] wide
    cdef object reason = None
    cdef object found
    cdef carray.array plist, absorbed
    cdef const int[::1] at
    cdef long long *row
    cdef int *small
    cdef int *pair
    cdef Py_ssize_t tie_at
    if cap > 8:
        raise ValueError("a tie set of at most 8 pairs")
    if narrow_nodes:
        narrow = data
    else:
        wide = data
    while done < limit:
        # -- choose (PairState.choose, RuleChooser.choose) --
        if not heap._settle(count, floor):
            reason = "no-pairs"
            break
        e = heap.heap[0]
        key = e.key
        field = e.field
        c = <int64_t>(C_CMAX - field)
        a = <int64_t>(key >> SHIFT)
        b = <int64_t>(key & MASK)
        found = hist.get(c, 0)
        total = found
        ties[0] = key
        n = 1
        if total > 1:
            k = total if total < cap else cap
            if k <= 1:
                n = k
            else:
                n = 0
                if front is not None and front[0] is heap and front[1] == field:
                    n = _front_ties(front[2], count, c, k, ties)
                if n != k or ties[0] != key:
                    ahead, got, complete = heap.read_front(count, floor, c, k, want if want > k else k)
                    front = [heap, field, ahead, ((<object>field + 1) << 40) - 1 if complete else ahead[len(ahead) - 1]]
                    n = 0
                    for x, y in got:
                        ties[n] = (<uint64_t>x << SHIFT) | <uint64_t>y
                        n += 1
        if c < min_frequency:
            reason = "min-frequency"
            break
        # -- the Trainer's bound on the vocabulary's bytes --
        size = len(<bytes>pieces[a]) + len(<bytes>pieces[b])
        if known_bytes + size > max_bytes:
            reason = "vocab-bytes"
            break
        known_bytes += size
        # -- merge (PairState.merge) --
        new_id = len(pieces)
        plist = where.pop(<int64_t>key, _INTS)
        at = plist
        if narrow_nodes:
            old, extra, absorbed = _merge(narrow, at, a, b, new_id, count, hist, where, heap, floor, front, None)
        else:
            old, extra, absorbed = _merge(wide, at, a, b, new_id, count, hist, where, heap, floor, front, None)
        removed = len(absorbed) + extra
        tokens -= removed
        token = (<bytes>pieces[a]) + (<bytes>pieces[b])[mark:]
        pieces.append(token)
        step += 1
        # -- the log's row (EventLog.add: its layout) --
        tie_at = Py_SIZE(tie_pairs)
        row = _grow_q(wide_rows, 8)
        row[0] = c
        row[1] = total
        row[2] = tokens
        row[3] = removed
        row[4] = tie_at
        row[5] = row[6] = row[7] = 0
        pair = _grow_i(tie_pairs, 2 * n)
        for i in range(n):
            pair[2 * i] = <int>(ties[i] >> SHIFT)
            pair[2 * i + 1] = <int>(ties[i] & MASK)
        small = _grow_i(narrow_rows, 7)
        small[0] = <int>step
        small[1] = <int>a
        small[2] = <int>b
        small[3] = <int>new_id
        small[4] = <int>n
        small[5] = 0
        small[6] = <int>NO_RECORD_ROW
        log_tokens.append(token)
        if kept is not None:
            kept.append((plist, absorbed, old))
        done += 1
        if work_budget >= 0:
            work += len(absorbed) + work_per_merge
            if work >= work_budget:
                break
    return done, reason, known_bytes, tokens, front
