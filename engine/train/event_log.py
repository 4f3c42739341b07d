"""The event log: every merge a Trainer has made, kept in flat arrays, its events made on demand.

A merge's event (:class:`~engine.train.events.Merge`) and its undo record
(:class:`~engine.train.pair_views.MergeRecord`) are a dozen numbers, a tie set and the nodes
the merge absorbed. Kept as objects, a tuple and a record a merge, 100,000 merges on tang_all
took about 55 MB, most of it object headers and boxed ints, and the records' node arrays (an
array object each) 12 MB more. The log keeps the same numbers in two stdlib arrays (a *row* of
numbers a merge; the tie sets in one flat array, the records' nodes in another), and builds the
event or the record when it is asked for: ``log.event(row)`` is a fresh ``Merge`` equal to the
one training returned, ``log.record(row)`` a ``MergeRecord`` that undoes it.

Rows are only ever added (a redo reuses its row): the timeline's lines, and the branches kept
aside, are arrays of rows, so lines that share merges share rows.

Example::

    log = EventLog()
    row = log.add(1, 1, 2, 3, b"ab", count=5, ties=((1, 2),), tie_total=1, tokens_after=10, removed=5,
                  manual=False, record=None)
    log.event(row)  # Merge(step=1, pair=(1, 2), new_id=3, token=b'ab', count=5, ...)
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from typing import overload

from engine.train.events import Merge
from engine.train.pair_views import MergeRecord

#: A row's numbers that may pass 2³¹ (counts, token totals, offsets), in ``EventLog.wide``.
COUNT, TIE_TOTAL, TOKENS_AFTER, REMOVED, TIE_START, NODES, SPLIT, COUNT_BEFORE = range(8)
#: A row's ids and small numbers, in ``EventLog.narrow`` (a token id is below 2²⁰).
STEP, A, B, NEW_ID, TIES, MANUAL, SIZE = range(7)
WIDE, NARROW = 8, 7
#: ``SIZE`` of a row that keeps no undo record.
NO_RECORD = -1


class EventLog:
    """Every merge made, a row each, in arrays: the event's fields and the undo record's.

    Row ``i``'s numbers are ``wide[8i:8i + 8]`` (64-bit: the fields ``COUNT`` ... ``COUNT_BEFORE``
    above) and ``narrow[7i:7i + 7]`` (32-bit: ``STEP`` ... ``SIZE``); its tied pairs are
    ``ties[start:start + 2 * n]`` (two ids a pair), ``start`` its ``TIE_START`` and ``n`` its
    ``TIES``; its undo record's nodes (the pair's occurrence list, then the nodes absorbed,
    split at ``SPLIT``) are ``pool[start:start + size]``, ``start`` its ``NODES`` and ``size``
    its ``SIZE``. One ``extend`` a row and array: logging a merge costs about a microsecond.
    """

    __slots__ = ("wide", "narrow", "ties", "tokens", "pool")

    def __init__(self) -> None:
        self.wide = array("q")
        self.narrow = array("i")
        self.ties = array("i")
        #: Each merge's token (the same bytes object as the vocabulary's while it is applied).
        self.tokens: list[bytes] = []
        #: Every undo record's nodes, one after another (the pair state's node type: made by
        #: the first record kept).
        self.pool: array[int] | None = None

    def __len__(self) -> int:
        return len(self.tokens)

    def add(self, step: int, a: int, b: int, new_id: int, token: bytes, count: int,
            ties: tuple[tuple[int, int], ...], tie_total: int, tokens_after: int, removed: int,
            manual: bool, record: MergeRecord | None) -> int:
        """Log a merge just made (``record``: what it changed, or None to keep no undo record);
        returns its row."""
        start = len(self.ties)
        for pair in ties:
            self.ties.extend(pair)
        self.wide.extend((count, tie_total, tokens_after, removed, start, 0, 0, 0))
        self.narrow.extend((step, a, b, new_id, len(ties), manual, NO_RECORD))
        self.tokens.append(token)
        row = len(self.tokens) - 1
        if record is not None:
            self.keep(row, record)
        return row

    def keep(self, row: int, record: MergeRecord | None) -> None:
        """Keep ``record`` as the row's undo record (a redo makes the merge again: its record
        replaces the old one, which was as valid); None drops it.

        A record as long as the one it replaces takes its place in the pool (a redo from the
        same state lists the same nodes); another is added at the pool's end, the old place
        left unused (a checkpoint restored may list a pair's occurrences otherwise)."""
        at = NARROW * row + SIZE
        if record is None:
            self.narrow[at] = NO_RECORD
            return
        nodes, pool = record.nodes, self.pool
        if pool is None or pool.typecode != nodes.typecode:
            pool = self.pool = array(nodes.typecode, pool or ())
        size = len(nodes)
        wide = self.wide
        if self.narrow[at] == size:
            start = wide[WIDE * row + NODES]
            pool[start:start + size] = nodes
        else:
            start = len(pool)
            pool.extend(nodes)
        self.narrow[at] = size
        wide[WIDE * row + NODES:WIDE * row + COUNT_BEFORE + 1] = array("q", (start, record.split, record.count))

    # -- reading a row ----------------------------------------------------------------------

    def pair(self, row: int) -> tuple[int, int]:
        """The row's merged pair."""
        at = NARROW * row
        return self.narrow[at + A], self.narrow[at + B]

    def new_id(self, row: int) -> int:
        """The id of the row's token."""
        return self.narrow[NARROW * row + NEW_ID]

    def is_manual(self, row: int) -> bool:
        """Whether the row's merge was manual."""
        return bool(self.narrow[NARROW * row + MANUAL])

    def event(self, row: int) -> Merge:
        """The row's event, made now (equal to the one the merge returned)."""
        count, tie_total, tokens_after, removed, start = self.wide[WIDE * row:WIDE * row + NODES]
        step, a, b, new_id, n, manual = self.narrow[NARROW * row:NARROW * row + SIZE]
        flat = self.ties[start:start + 2 * n]
        ties = tuple(zip(flat[0::2], flat[1::2]))
        pair = ties[0] if ties and ties[0] == (a, b) else (a, b)  # the chosen pair leads its tie set
        return Merge(step, pair, new_id, self.tokens[row], count, ties, tie_total, tokens_after, removed,
                     bool(manual))

    def record(self, row: int) -> MergeRecord | None:
        """The row's undo record, made now (None when undo records are not kept)."""
        at = NARROW * row
        a, b, new_id = self.narrow[at + A:at + NEW_ID + 1]
        size = self.narrow[at + SIZE]
        if size == NO_RECORD or self.pool is None:
            return None
        wide, at = self.wide, WIDE * row
        start = wide[at + NODES]
        return MergeRecord(a, b, new_id, wide[at + COUNT_BEFORE], wide[at + REMOVED],
                           self.pool[start:start + size], wide[at + SPLIT])

    def moved(self, row: int) -> int:
        """How many nodes the row's merge absorbed (0 without its record)."""
        size = self.narrow[NARROW * row + SIZE]
        return 0 if size == NO_RECORD else size - self.wide[WIDE * row + SPLIT]

    def same(self, row: int, other: int) -> bool:
        """Whether two rows are the same merge (one row, or two equal events)."""
        return row == other or self.event(row) == self.event(other)

    def pairs(self, rows: Iterable[int]) -> list[tuple[int, int]]:
        """These rows' pairs, straight from the array (no event made: a session's merges)."""
        narrow = self.narrow
        return [(narrow[NARROW * row + A], narrow[NARROW * row + B]) for row in rows]

    def tokens_after(self, rows: Iterable[int]) -> list[int]:
        """These rows' corpus sizes after their merges, straight from the array (a curve's)."""
        wide = self.wide
        return [wide[WIDE * row + TOKENS_AFTER] for row in rows]

    def saved(self, rows: Iterable[int]) -> list[list[int]]:
        """These rows' merges as sessions save them: ``[left, right]``, ``[left, right, 1]`` when manual."""
        narrow = self.narrow
        return [narrow[at + A:at + B + 1].tolist() + ([1] if narrow[at + MANUAL] else [])
                for at in (NARROW * row for row in rows)]

    def manual_count(self, rows: Iterable[int]) -> int:
        """How many of these rows' merges were manual."""
        narrow = self.narrow
        return sum(narrow[NARROW * row + MANUAL] for row in rows)

    def nbytes(self) -> int:
        """Roughly the bytes the log holds besides the tokens and the records' nodes (which the
        vocabulary and undo need whatever holds them): its arrays and the tokens' list slots."""
        numbers = sum(a.itemsize * len(a) for a in (self.wide, self.narrow, self.ties))
        return numbers + 8 * len(self.tokens)


class Events(Sequence[Merge]):
    """A read-only sequence of merge events, rows of an :class:`EventLog`, each event made as it
    is read. It compares equal to any sequence of equal events (a list of them, say).

    The rows are its own copy (4 bytes a merge): what the trainer does later does not change it.
    """

    __slots__ = ("log", "rows")

    def __init__(self, log: EventLog, rows: array[int]) -> None:
        self.log = log
        self.rows = rows

    def __len__(self) -> int:
        return len(self.rows)

    @overload
    def __getitem__(self, index: int) -> Merge: ...

    @overload
    def __getitem__(self, index: slice) -> Events: ...

    def __getitem__(self, index: int | slice) -> Merge | Events:
        if isinstance(index, slice):
            return Events(self.log, self.rows[index])
        return self.log.event(self.rows[index])

    def __iter__(self) -> Iterator[Merge]:
        return map(self.log.event, self.rows)

    def pairs(self) -> list[tuple[int, int]]:
        """Each event's pair, without making the events (``[e.pair for e in self]``, faster)."""
        return self.log.pairs(self.rows)

    def tokens_after(self) -> list[int]:
        """Each event's ``tokens_after``, without making the events (a curve of 100,000 steps
        reads them in milliseconds; making each event takes about 3 µs)."""
        return self.log.tokens_after(self.rows)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Events) and other.log is self.log and other.rows == self.rows:
            return True
        if not isinstance(other, Sequence) or isinstance(other, (str, bytes)) or len(other) != len(self):
            return False
        return all(mine == theirs for mine, theirs in zip(self, other))

    __hash__ = None  # type: ignore[assignment]  # mutable-looking like a list: never a key

    def __add__(self, other: Sequence[Merge]) -> list[Merge]:
        return [*self, *other]

    def __radd__(self, other: Sequence[Merge]) -> list[Merge]:
        return [*other, *self]

    def __repr__(self) -> str:
        return repr(list(self))


def rows(values: Iterable[int] = ()) -> array[int]:
    """An array of rows (what a line is)."""
    return array("i", values)

