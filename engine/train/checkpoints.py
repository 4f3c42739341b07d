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

from array import array

from engine.train.pair_state import PairState
from engine.train.pair_views import StateCopy

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

    The Trainer owns one and talks to it through four calls: :meth:`start` and :meth:`trained`
    while training, :meth:`depart` before a jump and :meth:`jump_work` to estimate one; the
    Trainer keeps its merge lists itself. The rest (:meth:`plan`, :meth:`take`,
    :meth:`worth_keeping`, :meth:`cost`) is what those are made of.
    """

    def __init__(self, limit: int, memory: int | None = None) -> None:
        self.limit = max(1, limit)  # copies besides step 0's
        self.memory = memory  # bytes all copies may hold together (None: no bound)
        self.copies: dict[int, StateCopy] = {}
        #: 64-bit ints, not a list of int objects: 0.8 MB for tang_all's 100,124 steps, not 4
        self.work: array[int] = array("q", [0])
        self.next_at = 0  # training takes its next copy once work reaches this

    def start(self, state: PairState) -> None:
        """Before training's first merge: copy step 0 (unless one copy is over the memory
        bound: then no copies are kept at all, and jumps walk)."""
        self.take(0, state)
        if 0 in self.copies:
            self.next_at = SPACING * max(self.cost(state), 1)

    def budget(self) -> tuple[int, int]:
        """The work left before the next copy is due and the work of a merge besides its nodes
        (:meth:`trained` counts it so), for a run of merges to stop there; budget -1: no copy
        will be taken (step 0's was not)."""
        if 0 not in self.copies:
            return -1, WORK_PER_MERGE
        return max(self.next_at - self.work[-1], 0), WORK_PER_MERGE

    def trained(self, step: int, absorbed: int, state: PairState) -> None:
        """After training made the merge that reached ``step`` (the furthest step so far)."""
        work = self.work
        work.append(work[-1] + absorbed + WORK_PER_MERGE)
        if work[-1] >= self.next_at and 0 in self.copies:
            cost = self.cost(state)
            self.take(step, state)
            self.next_at = work[-1] + SPACING * max(cost, 1)

    def rebase(self, step: int, absorbed: list[int]) -> None:
        """The line beyond ``step`` changed (a branch was started or switched to): drop the
        copies past it and make the known steps after it those of the new line, whose merges
        absorbed ``absorbed`` nodes each."""
        for old in [s for s in self.copies if s > step]:
            del self.copies[old]
        work = self.work[: step + 1]
        for n in absorbed:
            work.append(work[-1] + n + WORK_PER_MERGE)
        self.work = work

    def take(self, step: int, state: PairState, hand_over: bool = False) -> bool:
        """Copy the state (now at ``step``), dropping copies elsewhere while over the limit or
        the memory bound; a copy that cannot fit beside step 0's is not taken.

        ``hand_over``: the state is about to restore another copy (a jump), so the new copy
        takes its parts instead of copying them (see :meth:`PairState.hand_over`). Returns
        whether it did: the state must then be restored before anything reads it."""
        if step in self.copies:
            return False
        state.own()  # a copy lending the state its node array gets it back before any is dropped
        memory = self.memory
        # Under a memory bound (a served tab) step 0's copy keeps only its nodes: its index is
        # the first one, made again on restore (tang_all: 19 MB spared for 0.07 s a restore).
        lean = memory is not None and step == 0
        size = 0
        if memory is not None:
            size = len(state.data) * state.data.itemsize if lean else StateCopy.bytes_of(state.data, state.count, state.heap)
            if size + (self.copies[0].size if step and 0 in self.copies else 0) > memory:
                return False
        self.copies[step] = None  # type: ignore[assignment]  # a placeholder while thinning
        spare = None
        while len(self.copies) > self.limit + (0 in self.copies) or (
            memory is not None and size + sum(c.size for s, c in self.copies.items() if s != step) > memory
        ):
            spare = self._drop_one_copy(keep=step).data  # its node array takes the new copy
        if hand_over and not lean:
            self.copies[step] = state.hand_over(spare)
            return True
        self.copies[step] = state.snapshot(into=spare, lean=lean)
        return False

    def cost(self, state: PairState) -> int:
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

    def worth_keeping(self, here: int, target: int, state: PairState) -> bool:
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

    def jump_work(self, here: int, target: int) -> int:
        """Estimated work of jumping from ``here`` to ``target`` (a known step) by the cheapest
        start: walking from here, or restoring a copy and walking from there."""
        work = self.work
        start = self.plan(here, target)
        if start is None:
            return abs(work[here] - work[target])
        return self.copies[start].cost + abs(work[start] - work[target])

    def depart(self, here: int, target: int, state: PairState) -> int | None:
        """Before a jump from ``here`` to ``target`` (a known step): keep a copy of here if the
        jump leaves it far behind, then restore into ``state`` the copy that makes the walk
        cheapest. Returns the step of the copy restored (the caller moves its merge lists to
        it), or None to walk from here."""
        handed = self.worth_keeping(here, target, state) and self.take(here, state, hand_over=True)
        start = self.plan(here, target)
        if start is None or start == here:
            if not handed:
                return None
            start = here  # walking from here: on the loan of the copy that took the state's parts
        state.restore(self.copies[start])
        return start

    def _drop_one_copy(self, keep: int) -> StateCopy:
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
