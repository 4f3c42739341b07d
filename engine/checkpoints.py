"""Checkpoints: whole copies of the pair state at a few steps, so a long jump is a copy plus a
short walk instead of thousands of undos or redos.

Undo and redo are local (each costs about what its merge cost), so walking from step 30000 to
step 0 costs about as much as training did. A copy of the state costs a fraction of that: the
node array copies at memory speed and the dicts at C speed. The Trainer keeps a copy of step 0,
a few taken while training (spaced so that they cost it about 5%), and of each place a long jump
leaves; :meth:`Checkpoints.plan` picks whichever start (here, or a copy) makes a jump cheapest.

Work is measured in the units of a merge's cost: one per node it absorbed plus
:data:`WORK_PER_MERGE`. Copies cost memory (about the node array and the pair dicts each), so
there are at most ``limit`` of them besides step 0's; when one more is taken, the one whose loss
widens the gaps between copies least goes.
"""

from __future__ import annotations

import gc
from time import perf_counter
from typing import TYPE_CHECKING

from .pairviews import PairViews, StateCopy

if TYPE_CHECKING:
    from .events import Merge
    from .pairstate import MergeRecord, PairState

#: The fixed part of a merge's (or undo's) cost, in absorbed nodes.
WORK_PER_MERGE = 12
#: Training takes a copy once this many times a copy's (restore) cost has been trained since
#: the last one: taking one costs about twice restoring it, so copies then cost training about
#: 2/SPACING of its time (5%).
SPACING = 40


class Checkpoints:
    """Copies of the state by step, and the cumulative work of every known step.

    ``work[k]`` is the work of walking from step 0 to step k (known for every step trained,
    whether applied now or undone): the cost of walking between steps i and j is
    ``abs(work[i] - work[j])`` in either direction.
    """

    def __init__(self, limit: int, memory: int | None = None) -> None:
        self.limit = max(1, limit)  # copies besides step 0's
        self.memory = memory  # bytes all copies may hold together (None: no bound)
        self.copies: dict[int, StateCopy] = {}
        self.work: list[int] = [0]
        self.next_at = 0  # training takes its next copy once work reaches this

    def start(self, state: PairViews) -> None:
        """Before training's first merge: copy step 0 (unless one copy is over the memory
        bound: then no copies are kept at all, and jumps walk)."""
        self.take(0, state)
        if 0 in self.copies:
            self.next_at = SPACING * max(self.copies[0].cost, 1)

    def trained(self, step: int, absorbed: int, state: PairViews) -> None:
        """After training made the merge that reached ``step`` (the furthest step so far)."""
        work = self.work
        work.append(work[-1] + absorbed + WORK_PER_MERGE)
        if work[-1] >= self.next_at and 0 in self.copies:
            cost = self.cost(state)
            self.take(step, state)
            self.next_at = work[-1] + SPACING * max(cost, 1)

    def take(self, step: int, state: PairViews) -> None:
        """Copy the state (now at ``step``), dropping copies elsewhere while over the limit or
        the memory bound; a copy that cannot fit beside step 0's is not taken."""
        if step in self.copies:
            return
        memory = self.memory
        if memory is not None:
            size = StateCopy.bytes_of(state.data, state.count, state.heap)
            if size + (self.copies[0].size if step and 0 in self.copies else 0) > memory:
                return
        self.copies[step] = None  # type: ignore[assignment]  # a placeholder while thinning
        spare = None
        while len(self.copies) > self.limit + (0 in self.copies):
            spare = self._thin(keep=step).data  # its node array takes the new copy
        self.copies[step] = state.snapshot(into=spare)
        while memory is not None and sum(c.size for c in self.copies.values()) > memory:
            self._thin(keep=step)

    def cost(self, state: PairViews) -> int:
        """What a copy of ``state`` would cost to take or restore (in work units)."""
        return StateCopy.estimate(state.data, state.count, state.heap)

    def plan(self, here: int, target: int) -> int | None:
        """The copy to restore before walking to ``target`` (None: walk from ``here``)."""
        work = self.work
        best, best_cost = None, abs(work[here] - work[target])
        for step, copy in self.copies.items():
            cost = copy.cost + abs(work[step] - work[target])
            if cost < best_cost:
                best, best_cost = step, cost
        return best

    def worth_keeping(self, here: int, target: int, state: PairViews) -> bool:
        """Whether to copy the state at ``here`` before walking to ``target``: when the walk is
        longer than twice what a copy costs and no copy already comes that close to ``here``,
        coming back would then be a copy instead. So the places a user jumps between become
        cheap (each when it is left: a place jumped to and never left costs no copy)."""
        if here in self.copies or 0 not in self.copies:
            return False
        work, cost = self.work, self.cost(state)
        if abs(work[here] - work[target]) <= 2 * cost:
            return False
        reach = min(copy.cost + abs(work[step] - work[here]) for step, copy in self.copies.items())
        return reach > 3 * cost  # taking a copy costs ~2x restoring it: it must save more

    def _thin(self, keep: int) -> StateCopy:
        """Drop the copy whose loss widens the gaps between copies least. Step 0's, ``keep``
        and the furthest one are kept while any other can go: the start and the end of
        training are where jumps most often go (the end is where training carries on).
        Returns the copy dropped."""
        steps = sorted(self.copies)
        end = len(self.work) - 1
        last = steps[-1]
        best, best_gap = None, None
        for i, step in enumerate(steps):
            if step in (0, keep, last):
                continue
            before = steps[i - 1] if i else 0
            after = steps[i + 1] if i + 1 < len(steps) else end
            gap = self.work[after] - self.work[before]
            if best_gap is None or gap < best_gap:
                best, best_gap = step, gap
        if best is None:  # only step 0's, keep and the furthest are left: the furthest goes
            best = last
        return self.copies.pop(best)


class Jumps:
    """The Trainer's moves to any step: :meth:`goto`, or a time-boxed :meth:`goto_within`."""

    _marks: Checkpoints | None
    _leap: tuple[int, int] | None
    _history: list[tuple[Merge, MergeRecord | None]]
    _future: list[tuple[Merge, MergeRecord | None]]
    _pieces: list[bytes]
    _state: PairState
    base_size: int
    steps: int

    if TYPE_CHECKING:  # provided by the Trainer

        def _undo(self) -> Merge | None: ...
        def step(self) -> Merge | None: ...

    def goto(self, step: int) -> int:
        """Move to merge ``step`` (forward or back); returns the step reached.

        Going forward stops early when a stop rule holds.
        """
        self.goto_within(step, None)
        return self.steps

    def goto_within(self, step: int, deadline: float | None) -> bool:
        """Move toward ``step`` until ``deadline`` (a ``time.perf_counter()`` value, or None
        for no limit); True once there, or once a stop rule ends a forward jump. Calls with the
        same target carry on one jump (one plan, one copy restored) unless something else moved
        the trainer in between."""
        if step < 0:
            raise ValueError(f"step must be 0 or more, not {step}")
        was_enabled = gc.isenabled()
        gc.disable()  # see trainer._gc_paused
        try:
            return self._walk(step, deadline)
        finally:
            if was_enabled:
                gc.enable()

    def _walk(self, step: int, deadline: float | None) -> bool:
        history = self._history
        if self._marks is not None and self._leap != (step, len(history)):
            self._jump_start(step)  # a new jump (not the rest of one cut short)
        self._leap = None
        while len(history) != step:
            if len(history) > step:
                self._undo()
            elif self.step() is None:  # a stop rule ends a forward jump
                break
            if deadline is not None and len(history) != step and perf_counter() >= deadline:
                self._leap = (step, len(history))
                return False
        return True

    def jump_work(self, step: int) -> int | None:
        """Estimated work of jumping to ``step`` (units of :data:`WORK_PER_MERGE`), or None when
        it cannot be told: no checkpoints kept, or the jump would train merges not made yet."""
        marks, here = self._marks, self.steps
        if marks is None or step > here + len(self._future):
            return None
        start = marks.plan(here, step)
        work = marks.work
        if start is None:
            return abs(work[here] - work[step])
        return marks.copies[start].cost + abs(work[start] - work[step])

    def _jump_start(self, step: int) -> None:
        """Before walking to ``step``: keep a copy of here if leaving it far behind, and start
        from the copy that makes the walk cheapest."""
        marks, here = self._marks, self.steps
        assert marks is not None
        target = min(step, here + len(self._future))  # copies exist only of known steps
        if marks.worth_keeping(here, target, self._state):
            marks.take(here, self._state)
        start = marks.plan(here, target)
        if start is None or start == here:
            return
        self._state.restore(marks.copies[start])
        history, future, pieces = self._history, self._future, self._pieces
        if start < here:
            future.extend(reversed(history[start:]))
            del history[start:]
            del pieces[self.base_size + start :]
        else:
            for _ in range(start - here):
                event, record = future.pop()
                history.append((event, record))
                pieces.append(event.token)
