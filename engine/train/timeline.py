"""The timeline: the line of merges a Trainer has made, and moving along it (undo, redo, goto).

A *line* is the list of merges from step 0. The timeline keeps it in two parts: ``applied``
(the merges in force, step 1 first) and ``undone`` (merges taken back, the next to redo last).
Each is an array of rows of the :class:`~engine.train.event_log.EventLog`, where a merge's
event (:class:`~engine.train.events.Merge`) and its record
(:class:`~engine.train.pair_views.MergeRecord`: which nodes the merge absorbed, the pair's
count and position list before it) are kept as numbers and made again when asked for. The
record is what makes moving cheap:

- **undo** puts back exactly what the record says the merge changed (see
  :meth:`engine.train.pair_state.PairState.unmerge`); nothing is counted or trained again, so
  an undo costs about what its merge did;
- **redo** merges the same pair again from the same state, so it makes the same event: it is
  re-applied without asking the chooser, and its record stays valid;
- **goto** walks step by step, undoing or redoing, in slices that stop at a deadline so the app
  stays responsive (the same target again carries on the walk). With checkpoints (whole copies
  of the state, :mod:`engine.train.checkpoints`) a long jump first restores the copy that makes
  the walk shortest.

The timeline also keeps the vocabulary (``pieces``): the base tokens' bytes, then one token per
applied merge, the left part's bytes joined to the right part's (the right part's
continuing-subword mark cut off: it always continues a word). A token exists exactly while its
merge is applied, so undo drops the last piece and redo adds it back.

What the timeline does not do is choose: walking forward past the known line trains new
merges, which only the Trainer can (it asks its chooser). A walk is handed the Trainer's own
step and undo for that (:meth:`Timeline.walk`).

Example::

    line = Timeline(state, pieces, mark_bytes=0, keep_records=True, checkpoints=None)
    line.apply(1, 2, count=3, ties=((1, 2),), tie_total=1, manual=False)  # Merge(step=1, ...)
    line.applied  # array('i', [0]): row 0 of line.log
    line.undo()  # the same Merge; line.steps == 0, line.undone holds it
    line.redo()  # step 1 again
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from time import perf_counter

from engine.train.checkpoints import Checkpoints
from engine.train.event_log import REMOVED, WIDE, EventLog, rows
from engine.train.events import Merge
from engine.train.pair_state import PairState
from engine.train.pair_views import MergeRecord

#: New merges a walk makes between two looks at its deadline (a few milliseconds of merges at
#: most, on tang_all's bytes).
WALK_BATCH = 32


class Timeline:
    """The applied and undone merges of one line, the vocabulary they make, and the moves
    between steps. The pair state is shared with the Trainer; only merges and undos change it."""

    def __init__(self, state: PairState, pieces: list[bytes], mark_bytes: int, keep_records: bool,
                 checkpoints: Checkpoints | None) -> None:
        self.state = state
        #: Bytes of every token now, by id: the base, then one per applied merge.
        self.pieces = pieces
        self.base_size = len(pieces)
        #: Bytes of the continuing-subword mark cut off a merge's right part (0 without one).
        self.mark_bytes = mark_bytes
        #: Whether entries keep their records (``TrainConfig.record_undo``): without, no undo.
        self.keep_records = keep_records
        #: Copies of the state for long jumps, or None (jumps walk all the way).
        self.checkpoints = checkpoints
        #: Every merge made on any line: the rows the lines below are made of.
        self.log = EventLog()
        self.applied: array[int] = rows()
        #: Merges taken back, the next to redo last; their records stay valid (the state they
        #: lead from is always the same), so restoring a later checkpoint can re-apply them.
        self.undone: array[int] = rows()
        #: A walk cut short by its deadline: (its target, the step where it stopped). The next
        #: walk to the same target from there carries it on instead of planning it again.
        self.unfinished_jump: tuple[int, int] | None = None

    @property
    def steps(self) -> int:
        """How many merges are applied now."""
        return len(self.applied)

    @property
    def last_record(self) -> MergeRecord | None:
        """What the latest applied merge changed (None at step 0, or without records)."""
        return self.log.record(self.applied[-1]) if self.applied else None

    def line(self) -> array[int]:
        """The whole line (rows of the log): applied merges, then the undone ones in the order
        they were made."""
        return self.applied + self.undone[::-1]

    def made_by(self, token_id: int) -> Merge | None:
        """The merge that made this token (None for a base token or one not made now)."""
        index = token_id - self.base_size
        if 0 <= index < len(self.applied):
            return self.log.event(self.applied[index])
        return None

    # -- merging, undo, redo ----------------------------------------------------------------

    def apply(self, a: int, b: int, count: int, ties: tuple[tuple[int, int], ...], tie_total: int,
              manual: bool) -> Merge:
        """Merge (a, b) into a new token at the end of the vocabulary and record the event."""
        state, pieces = self.state, self.pieces
        new_id = len(pieces)
        if self.checkpoints is not None and not self.applied:
            self.checkpoints.start(state)
        record = state.merge(a, b, new_id)
        pieces.append(pieces[a] + pieces[b][self.mark_bytes:])
        step, token = len(self.applied) + 1, pieces[new_id]
        self.applied.append(self.log.add(step, a, b, new_id, token, count, ties, tie_total, state.tokens,
                                         record.removed, manual, record if self.keep_records else None))
        if self.checkpoints is not None:
            self.checkpoints.trained(step, record.moved, state)
        # the event as the log gives it back (made here from the same numbers: it is quicker)
        pair = ties[0] if ties and ties[0] == (a, b) else (a, b)  # the chosen pair leads its tie set
        return Merge(step, pair, new_id, token, count, ties, tie_total, state.tokens, record.removed, manual)

    def run(self, limit: int, cap: int, min_frequency: int, known_bytes: int, max_bytes: int) -> tuple[int, str | None, int] | None:
        """Up to ``limit`` new merges in the pair state's one loop (:meth:`PairState.run`), each
        logged and applied as :meth:`apply` does it, without making events; None where that
        loop does not run (or with merges to redo, or checkpoints without undo records): then
        a step at a time. With checkpoints the loop stops where the next copy is due, so that
        it is taken where :meth:`apply` would take it. Returns (merges made, the stop reason or
        None, the vocabulary's bytes)."""
        checkpoints, state = self.checkpoints, self.state
        if self.undone or (checkpoints is not None and (not self.keep_records or not self.applied)):
            return None  # (the first merge copies step 0 first, in apply)
        work = (-1, 0) if checkpoints is None else checkpoints.budget()
        log = self.log
        first, step = len(log), len(self.applied)
        ran = state.run(limit, cap, min_frequency, self.pieces, self.mark_bytes, known_bytes, max_bytes, step,
                        (log.wide, log.narrow, log.ties, log.tokens), self.keep_records, work)
        if ran is None:
            return None
        done, reason, known_bytes, kept = ran
        self.applied.extend(range(first, first + done))
        for row, (plist, absorbed, old) in enumerate(kept or (), first):
            a, b = log.pair(row)
            removed = log.wide[WIDE * row + REMOVED]
            log.keep(row, MergeRecord(a, b, log.new_id(row), old, removed, plist + absorbed, len(plist)))
            step += 1
            if checkpoints is not None:
                checkpoints.trained(step, len(absorbed), state)
        return done, reason, known_bytes

    def undo(self) -> Merge | None:
        """Take back the last applied merge from its record; None at step 0."""
        row = self.take_back()
        return None if row is None else self.log.event(row)

    def take_back(self) -> int | None:
        """:meth:`undo`, returning the merge's row instead of its event (a walk needs none)."""
        if not self.applied:
            return None
        row = self.applied[-1]
        record = self.log.record(row)
        if record is None:
            raise RuntimeError("this trainer was made with record_undo=False")
        self.state.unmerge(record)
        self.applied.pop()
        self.pieces.pop()
        self.undone.append(row)
        return row

    def redo(self) -> Merge | None:
        """Re-apply the last undone merge (the same event: nothing is chosen); None if none."""
        row = self.reapply()
        return None if row is None else self.log.event(row)

    def reapply(self) -> int | None:
        """:meth:`redo`, returning the merge's row instead of its event (a walk needs none)."""
        if not self.undone:
            return None
        row = self.undone.pop()
        log = self.log
        a, b = log.pair(row)
        record = self.state.merge(a, b, log.new_id(row))
        self.pieces.append(log.tokens[row])  # the same bytes as when it was made: one object, not two
        log.keep(row, record if self.keep_records else None)
        self.applied.append(row)
        return row

    # -- jumps ------------------------------------------------------------------------------

    def walk(self, step: int, deadline: float | None, forward: Callable[[int], int],
             back: Callable[[], object]) -> bool:
        """Move toward ``step`` until ``deadline`` (a ``time.perf_counter()`` value, or None);
        True once there, or once ``forward(n)`` (the Trainer's advance, past the known merges:
        up to ``n`` new merges, :data:`WALK_BATCH` at most between two looks at the clock)
        makes none; ``back`` is the Trainer's undo. Known merges are redone here. A new jump
        (not the rest of one cut short) first lets the checkpoints restore the copy that makes
        it cheapest."""
        applied = self.applied
        if self.checkpoints is not None and self.unfinished_jump != (step, len(applied)):
            self.start_jump(step)
        self.unfinished_jump = None
        while len(applied) != step:
            if len(applied) > step:
                back()
            elif self.undone:
                self.reapply()
            elif not forward(min(step - len(applied), WALK_BATCH)):  # a stop rule ends a forward jump
                break
            if deadline is not None and len(applied) != step and perf_counter() >= deadline:
                self.unfinished_jump = (step, len(applied))
                return False
        return True

    def start_jump(self, step: int) -> None:
        """Before walking to ``step``: let the checkpoints keep a copy of here and restore the
        one that makes the walk cheapest, then move the merge lists to the step restored."""
        checkpoints, here = self.checkpoints, self.steps
        assert checkpoints is not None
        target = min(step, here + len(self.undone))  # copies exist only of known steps
        start = checkpoints.depart(here, target, self.state)
        if start is None:
            return
        applied, undone, pieces = self.applied, self.undone, self.pieces
        if start < here:
            undone.extend(reversed(applied[start:]))
            del applied[start:]
            del pieces[self.base_size + start:]
        else:
            tokens = self.log.tokens
            for _ in range(start - here):
                row = undone.pop()
                applied.append(row)
                pieces.append(tokens[row])

    def jump_work(self, step: int) -> int | None:
        """Estimated work of jumping to ``step`` (units of
        :data:`engine.train.checkpoints.WORK_PER_MERGE`), or None when it cannot be told: no
        checkpoints kept, or the jump would train merges not made yet."""
        checkpoints, here = self.checkpoints, self.steps
        if checkpoints is None or step > here + len(self.undone):
            return None
        return checkpoints.jump_work(here, step)

    def settle(self) -> None:
        """Finish a jump's restore off the critical path: copy the pair counts it borrowed from
        a checkpoint (the next merge or undo would, but that is the user's next key)."""
        self.state.own()

    # -- where lines part -------------------------------------------------------------------

    def forget_undone(self) -> None:
        """Drop the undone merges: the line ends here (a branch starts, or a restore refused
        what it redid). Checkpoints past here go with them."""
        self.undone = rows()
        if self.checkpoints is not None:
            self.checkpoints.rebase(self.steps, [])

    def follow(self, line: array[int], part: int) -> None:
        """Make ``line`` (another branch's, sharing the first ``part`` merges and the applied
        ones) this line: its merges past here become the ones to redo."""
        self.undone = line[self.steps:][::-1]
        if self.checkpoints is not None:
            self.checkpoints.rebase(part, [self.log.moved(row) for row in line[part:]])
        self.unfinished_jump = None
