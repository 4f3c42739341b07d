"""Moving along a Trainer's line: undo and redo from the merges' records (never replaying), and
jumps to any step (:meth:`~engine.train.trainer.Trainer.goto`), in slices under a deadline, starting
from the checkpoint copy that makes the walk cheapest (see :mod:`engine.train.checkpoints`)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from time import perf_counter

from engine.config import TrainConfig
from engine.train.checkpoints import Checkpoints
from engine.train.events import Merge
from engine.train.pair_state import MergeRecord, PairState


class TrainerMoves:
    """Undo, redo and jumps (a mixin of :class:`~engine.train.trainer.Trainer`, which sets these)."""

    config: TrainConfig
    base_size: int
    stop_reason: str | None
    _state: PairState
    _pieces: list[bytes]
    _cut: int
    _history: list[tuple[Merge, MergeRecord | None]]
    _future: list[tuple[Merge, MergeRecord | None]]
    _marks: Checkpoints | None
    _leap: tuple[int, int] | None
    _gc_paused: Callable[[], AbstractContextManager[None]]

    def undo(self) -> Merge | None:
        """Take back the last merge from its record (never by replaying); None at step 0."""
        with self._gc_paused():
            return self._undo()

    def _undo(self) -> Merge | None:
        if not self._history:
            return None
        event, record = self._history[-1]
        if record is None:
            raise RuntimeError("this trainer was made with record_undo=False")
        self._state.unmerge(record)
        self._history.pop()
        self._pieces.pop()
        self._future.append((event, record))
        self.stop_reason = None
        return event

    def redo(self) -> Merge | None:
        """Re-apply the last undone merge without choosing again; None if nothing to redo."""
        with self._gc_paused():
            return self._redo()

    def _redo(self) -> Merge | None:
        if not self._future:
            return None
        event, _ = self._future.pop()
        a, b = event.pair
        record = self._state.merge(a, b, event.new_id)
        self._pieces.append(self._pieces[a] + self._pieces[b][self._cut:])
        self._history.append((event, record if self.config.record_undo else None))
        return event

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
        with self._gc_paused():
            return self._walk(step, deadline)

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

    def settle(self) -> None:
        """Finish a jump's restore off the critical path: copy the pair counts it borrowed from
        a checkpoint (the next merge or undo would, but that is the user's next key)."""
        self._state.own()

    def jump_work(self, step: int) -> int | None:
        """Estimated work of jumping to ``step`` (units of
        :data:`engine.train.checkpoints.WORK_PER_MERGE`), or None when it cannot be told: no
        checkpoints kept, or the jump would train merges not made yet."""
        marks, here = self._marks, self.steps
        if marks is None or step > here + len(self._future):
            return None
        return marks.jump_work(here, step)

    def _jump_start(self, step: int) -> None:
        """Before walking to ``step``: let the checkpoints keep a copy of here and restore the
        one that makes the walk cheapest, then move the merge lists to the step restored."""
        marks, here = self._marks, self.steps
        assert marks is not None
        target = min(step, here + len(self._future))  # copies exist only of known steps
        start = marks.depart(here, target, self._state)
        if start is None:
            return
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
