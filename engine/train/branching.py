"""Manual merges and what-if branches of a Trainer: a manual merge
(:meth:`~engine.train.trainer.Trainer.force`) where the line has a future keeps the old line as a
branch; switching walks back to where two lines part and along the other's recorded merges;
sessions save the branches and restore them by training again (the branches' book itself is
:mod:`engine.train.branches`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from time import perf_counter

from engine.config import MAX_VOCAB_BYTES
from engine.encode.pairs import SHIFT
from engine.errors import MergeError, TokenIdError
from engine.text.display import token_display
from engine.train.branches import Branch, Branches, RestoreStopped, check_data, check_work
from engine.train.checkpoints import Checkpoints
from engine.train.events import Merge
from engine.train.pair_state import MergeRecord, PairState


def _never() -> bool:
    return False


class TrainerBranches:
    """Manual merges and what-if branches (a mixin of :class:`~engine.train.trainer.Trainer`, which sets these)."""

    stop_reason: str | None
    _state: PairState
    _script: list[tuple[int, int]] | None
    _pieces: list[bytes]
    _known_bytes: int
    _history: list[tuple[Merge, MergeRecord | None]]
    _future: list[tuple[Merge, MergeRecord | None]]
    _marks: Checkpoints | None
    _leap: tuple[int, int] | None
    _book: Branches
    _gc_paused: Callable[[], AbstractContextManager[None]]

    def force(self, pair: Sequence[int]) -> Merge:
        """Make ``pair`` the next merge instead of the rule's choice: a manual merge (its event
        has ``manual=True``); later steps choose by the rule again.

        Where the line has a future (after an undo) this starts a branch: the old line is kept
        as a branch of its own (see :attr:`branches`, :meth:`switch`) unless ``pair`` is the
        merge it makes next, which is then simply redone. Raises :class:`MergeError` for a pair
        that does not occur now (or less often than ``min_frequency``: such pairs are not
        indexed), when a stop rule on the merge count holds, or in a replay;
        :class:`TokenIdError` for an id not made yet.
        """
        with self._gc_paused():
            a, b, size, count = self._check_force(pair)
            if self._future:
                if self._future[-1][0].pair == (a, b):
                    return self._redo()
                self._fork()
            self._leap = None
            return self._make(a, b, size, count, ((a, b),), 1, True)

    def _check_force(self, pair: Sequence[int]) -> tuple[int, int, int, int]:
        if self._script is not None:
            raise MergeError("a replay makes its tokenizer's merges: manual merges are for training")
        try:
            a, b = (int(x) for x in pair)
        except (TypeError, ValueError):
            raise MergeError(f"a merge is a pair of token ids, not {pair!r}") from None
        pieces = self._pieces
        for x in (a, b):
            if not 0 <= x < len(pieces):
                raise TokenIdError(f"no token {x} at step {self.steps} (ids 0 to {len(pieces) - 1})")
        shown = f"{token_display(pieces[a])!r} + {token_display(pieces[b])!r}"
        target = self.target_merges
        if target is not None and self.steps >= target:
            raise MergeError(f"cannot merge {shown}: the merge limit ({target}) is reached (undo first)")
        count = self._state.count.get(a << SHIFT | b, 0)
        if count < self._state.min_count:
            count = self._state.pair_counts().get((a, b), 0) if not count else count
            if not count:
                raise MergeError(f"cannot merge {shown}: the pair does not occur in the corpus at step {self.steps}")
            raise MergeError(f"cannot merge {shown}: its count is {count}, below the minimum pair count "
                             f"{self._state.min_count}")
        size = len(pieces[a]) + len(pieces[b])
        if self._known_bytes + size > MAX_VOCAB_BYTES:
            raise MergeError(f"cannot merge {shown}: the vocabulary would hold more than {MAX_VOCAB_BYTES:,} bytes")
        return a, b, size, count

    def _fork(self, name: str | None = None) -> str:
        """Keep the current line as its branch and go on from here on a new one (no future)."""
        here = self.steps
        name = self._book.fork(self._line(), here, here, name)
        self._future = []
        if self._marks is not None:
            self._marks.rebase(here, [])
        return name

    def _line(self) -> list[tuple[Merge, MergeRecord | None]]:
        """The current branch's whole line: applied merges, then the undone ones."""
        return self._history + self._future[::-1]

    def _lines(self) -> dict[str, tuple[list, int]]:
        lines = {name: (kept.line, kept.at) for name, kept in self._book.kept.items()}
        lines[self._book.current] = (self._line(), self.steps)
        return lines

    @property
    def branches(self) -> list[Branch]:
        """Every what-if branch, first made first (one, ``main``, until a manual merge is made
        where the line has a future)."""
        lines = self._lines()
        return [self._book.record(name, *lines[name]) for name in self._book.order]

    @property
    def branch(self) -> Branch:
        """The current branch."""
        return self._book.record(self._book.current, self._line(), self.steps)

    def branch_events(self, which: str | int) -> list[Merge]:
        """The merges of a branch's whole line (by name or index into :attr:`branches`)."""
        name = self._book.resolve(which)
        line = self._line() if name == self._book.current else self._book.kept[name].line
        return [event for event, _ in line]

    def switch(self, which: str | int, walk: bool = True) -> Branch:
        """Make another branch current (by name or index into :attr:`branches`) and move to the
        step it was left at: back to where the two lines part, then along the other's merges
        (recorded: nothing is chosen again). ``walk=False`` stops where they part (or here, if
        that is behind): the caller then goes on with :meth:`goto` or :meth:`goto_within`.
        ValueError for an unknown branch."""
        name = self._book.resolve(which)
        book = self._book
        if name == book.current:
            return self.branch
        with self._gc_paused():
            kept = book.kept[name]
            mine, here = self._line(), self.steps
            theirs = kept.line
            part = 0
            limit = min(len(mine), len(theirs))
            while part < limit and (mine[part][0] is theirs[part][0] or mine[part][0] == theirs[part][0]):
                part += 1
            self._walk(min(here, part), None)
            del book.kept[name]
            book.kept[book.current] = type(kept)(mine, here)
            book.current = name
            done = self.steps
            self._future = theirs[done:][::-1]
            if self._marks is not None:
                self._marks.rebase(part, [len(record.absorbed) for _, record in theirs[part:]])
            self._leap = None
            self.stop_reason = None
            if walk:
                self._walk(kept.at, None)
        return self.branch

    def branch_data(self) -> dict:
        """Every branch as JSON-able data (sessions save it; :meth:`restore_branches` reads it)."""
        return self._book.to_data(self._lines())

    def restore_branches(self, data: object, stop: Callable[[], bool] | None = None) -> str | None:
        """Rebuild the branches of :meth:`branch_data` on this fresh trainer (step 0, nothing
        trained) and go to the current one's step. Rule merges are trained again, so a
        version that trains differently keeps only what matches; returns a note saying what
        was cut then (None when all of it was restored). ValueError for malformed data, and
        for data whose restore would walk far more than it trains (see
        :func:`engine.train.branches.check_work`). ``stop()`` is asked between merges and walks:
        True ends the restore with :class:`RestoreStopped` (the trainer is then half restored)."""
        if self._history or self._future or len(self._book) > 1:
            raise ValueError("branches are restored into a fresh trainer")
        items = check_data(data)
        check_work(items)
        if stop is None:
            stop = _never
        book = self._book
        notes: list[str] = []
        made: list[str] = []
        with self._gc_paused():
            for k, item in enumerate(items):
                name = item["name"]
                if k == 0:
                    book.order, book.parent, book.parts_at, book.current = [name], {name: None}, {name: 0}, name
                else:
                    if item["parent"] not in made:
                        notes.append(f"branch {name} (its parent was not restored)")
                        continue
                    self.switch(item["parent"], walk=False)  # to where the lines part, not on to its step
                    if self._walk_until(item["parts_at"], stop) and self.steps != item["parts_at"]:
                        notes.append(f"branch {name} (its parent is shorter now)")
                        continue
                    self._fork(name)
                made.append(name)
                for m in item["merges"]:
                    if stop():
                        raise RestoreStopped("restoring the session's branches was stopped")
                    pair = (m[0], m[1])
                    try:
                        if len(m) == 3 and m[2]:
                            self.force(pair)
                            continue
                    except ValueError:
                        pass
                    else:
                        event = self.step()
                        if event is not None and event.pair == pair:
                            continue
                        if event is not None:
                            self._undo()
                            self._future = []
                            if self._marks is not None:
                                self._marks.rebase(self.steps, [])
                    notes.append(f"branch {name} after merge {self.steps}")
                    break
            for item in items:
                kept = book.kept.get(item["name"])
                if kept is not None:
                    kept.at = min(item["at"], len(kept.line))
            current = data["current"] if data["current"] in made else made[0]  # type: ignore[index]
            at = next(item["at"] for item in items if item["name"] == current)
            self.switch(current, walk=False)
            self._walk_until(min(at, self.branch.length), stop)  # never past what was restored
        if not notes:
            return None
        return "this version trains differently: restored up to " + "; ".join(notes)

    def _walk_until(self, step: int, stop: Callable[[], bool]) -> bool:
        """:meth:`_walk` to ``step`` in slices of 50 ms, asking ``stop()`` between them."""
        while not self._walk(step, perf_counter() + 0.05):
            if stop():
                raise RestoreStopped("restoring the session's branches was stopped")
        return True
