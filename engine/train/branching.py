"""What-if branches of a Trainer: keeping a line aside when a manual merge changes the future,
switching between lines, and saving and restoring them.

A manual merge (:meth:`~engine.train.trainer.Trainer.force`) made where the line has a future
(after an undo) would throw that future away; instead the old line is kept as a branch of its
own and the new merge starts another. Lines share their merges up to where they part (the same
rows of the timeline's event log), so a branch costs an array of rows, 4 bytes a merge. Switching walks back to where the two lines
part and along the other's recorded merges: nothing is chosen again. Sessions save every
branch as its parent, its fork point and its own merges (:meth:`Branching.to_data`) and restore
them by training again (:meth:`Branching.restore`), keeping what this version still makes.

The bookkeeping of names, parents and kept lines is :class:`engine.train.branches.Branches`
(the *tree*); this module moves the Trainer between them. It reads and cuts the Trainer's
:class:`~engine.train.timeline.Timeline`, and what moves need besides (a step, a manual merge, a
walk) it asks of the Trainer, handed to each such call as the small :class:`Host` it is. It
keeps no reference to the Trainer: a trainer and its parts form no cycle, so reference counting
frees a trainer the app replaces, even one frozen out of the collector's walks.

Example::

    t.goto(3); t.force((5, 7))  # the line past step 3 is kept as branch "main"; now on "b1"
    t.switch("main")            # back to step 3, then along main's merges to where it was left
    # (Trainer.switch is self.branching.switch(self, "main"): the Trainer hands itself over)
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from time import perf_counter
from typing import Any, Protocol

from engine.train.branches import Branch, Branches, KeptLine, RestoreStopped, check_data, check_work
from engine.train.event_log import Events
from engine.train.events import Merge
from engine.train.gc_pause import gc_paused
from engine.train.timeline import Timeline


class Host(Protocol):
    """What branches need of the Trainer."""

    stop_reason: str | None

    def step(self) -> Merge | None:
        """Redo the next merge, or train one by the rule."""
        ...

    def force(self, pair: Sequence[int]) -> Merge:
        """Make ``pair`` the next merge (a manual merge)."""
        ...

    def walk(self, step: int, deadline: float | None) -> bool:
        """Walk toward ``step`` until ``deadline``, under the collector pause already held."""
        ...



def _never_stop() -> bool:
    return False


class Branching:
    """The branches of one Trainer: the tree of kept lines, and the moves between them."""

    def __init__(self, timeline: Timeline) -> None:
        self.timeline = timeline
        self.tree = Branches()

    def fork(self, name: str | None = None) -> str:
        """Keep the current line as its branch and go on from here on a new one (no future)."""
        timeline = self.timeline
        here = timeline.steps
        name = self.tree.fork(timeline.line(), here, here, name)
        timeline.forget_undone()
        return name

    def lines_by_name(self) -> dict[str, tuple[array[int], int]]:
        """Every branch's whole line and the step it is at (the current one's: the timeline's)."""
        lines = {name: (kept.line, kept.at) for name, kept in self.tree.kept.items()}
        timeline = self.timeline
        lines[self.tree.current] = (timeline.line(), timeline.steps)
        return lines

    def branches(self) -> list[Branch]:
        """Every branch, first made first."""
        lines = self.lines_by_name()
        return [self.record(name, *lines[name]) for name in self.tree.order]

    def current(self) -> Branch:
        """The current branch."""
        timeline = self.timeline
        return self.record(self.tree.current, timeline.line(), timeline.steps)

    def record(self, name: str, line: array[int], at: int) -> Branch:
        """The branch ``name``, whose line is ``line``, at step ``at``."""
        return self.tree.record(name, len(line), self.timeline.log.manual_count(line), at)

    def events(self, which: str | int) -> Events:
        """The merges of a branch's whole line (by name or index into :meth:`branches`)."""
        name = self.tree.resolve(which)
        line = self.timeline.line() if name == self.tree.current else self.tree.kept[name].line
        return Events(self.timeline.log, line)

    def switch(self, host: Host, which: str | int, walk: bool = True) -> Branch:
        """Make another branch current and move ``host`` to the step it was left at (see
        :meth:`engine.train.trainer.Trainer.switch`)."""
        tree = self.tree
        name = tree.resolve(which)
        if name == tree.current:
            return self.current()
        timeline = self.timeline
        with gc_paused():
            kept = tree.kept[name]
            mine, here = timeline.line(), timeline.steps
            theirs = kept.line
            part = 0
            limit = min(len(mine), len(theirs))
            same = timeline.log.same
            while part < limit and same(mine[part], theirs[part]):
                part += 1
            host.walk(min(here, part), None)
            del tree.kept[name]
            tree.kept[tree.current] = KeptLine(mine, here)
            tree.current = name
            timeline.follow(theirs, part)
            host.stop_reason = None
            if walk:
                host.walk(kept.at, None)
        return self.current()

    def to_data(self) -> dict[str, Any]:
        """Every branch as JSON-able data (sessions save it; :meth:`restore` reads it)."""
        saved, parts_at = self.timeline.log.saved, self.tree.parts_at
        return self.tree.to_data({name: (saved(line[parts_at[name]:]), at)
                                  for name, (line, at) in self.lines_by_name().items()})

    def restore(self, host: Host, data: object, stop: Callable[[], bool] | None = None) -> str | None:
        """Rebuild the branches of :meth:`to_data` on a fresh trainer (see
        :meth:`engine.train.trainer.Trainer.restore_branches`); returns a note of what was cut."""
        tree, timeline = self.tree, self.timeline
        if timeline.applied or timeline.undone or len(tree) > 1:
            raise ValueError("branches are restored into a fresh trainer")
        items = check_data(data)
        check_work(items)
        if stop is None:
            stop = _never_stop
        notes: list[str] = []
        made: list[str] = []
        with gc_paused():
            for k, item in enumerate(items):
                name = item["name"]
                if k == 0:
                    tree.order, tree.parent, tree.parts_at, tree.current = [name], {name: None}, {name: 0}, name
                else:
                    if item["parent"] not in made:
                        notes.append(f"branch {name} (its parent was not restored)")
                        continue
                    self.switch(host, item["parent"], walk=False)  # to where the lines part, not on to its step
                    if self.walk_stoppably(host, item["parts_at"], stop) and timeline.steps != item["parts_at"]:
                        notes.append(f"branch {name} (its parent is shorter now)")
                        continue
                    self.fork(name)
                made.append(name)
                for m in item["merges"]:
                    if stop():
                        raise RestoreStopped("restoring the session's branches was stopped")
                    pair = (m[0], m[1])
                    try:
                        if len(m) == 3 and m[2]:
                            host.force(pair)
                            continue
                    except ValueError:
                        pass
                    else:
                        event = host.step()
                        if event is not None and event.pair == pair:
                            continue
                        if event is not None:
                            timeline.undo()
                            host.stop_reason = None
                            timeline.forget_undone()
                    notes.append(f"branch {name} after merge {timeline.steps}")
                    break
            for item in items:
                kept = tree.kept.get(item["name"])
                if kept is not None:
                    kept.at = min(item["at"], len(kept.line))
            current = data["current"] if data["current"] in made else made[0]  # type: ignore[index]
            at = next(item["at"] for item in items if item["name"] == current)
            self.switch(host, current, walk=False)
            self.walk_stoppably(host, min(at, self.current().length), stop)  # never past what was restored
        if not notes:
            return None
        return "this version trains differently: restored up to " + "; ".join(notes)

    @staticmethod
    def walk_stoppably(host: Host, step: int, stop: Callable[[], bool]) -> bool:
        """Walk ``host`` to ``step`` in slices of 50 ms, asking ``stop()`` between them."""
        while not host.walk(step, perf_counter() + 0.05):
            if stop():
                raise RestoreStopped("restoring the session's branches was stopped")
        return True
