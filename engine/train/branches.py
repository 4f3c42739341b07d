"""What-if branches: the lines of merges a trainer has followed, kept so the user can go back.

A *line* is the list of merges from step 0 (rows of the Trainer's event log, see
:mod:`engine.train.event_log`). The current line is the Trainer's own (applied merges, then the
undone ones); every other branch keeps its line here. A manual merge made where the current line
has a future (after an undo) forks: the old line keeps its branch and name, the new one gets a
new name, and both share their rows up to where they part (a branch costs an array of rows, not
copies of events).

Lines only ever grow at their end (a fork makes a new line instead of changing one), so a branch
is fully described by its parent, where it parts from it and the merges after that: what
sessions save (:meth:`Branches.to_data`).
"""

from __future__ import annotations

from array import array
from typing import Any, NamedTuple

#: The first branch's name; later ones are ``b1``, ``b2``, ...
FIRST = "main"
#: At most this many branches (a session holds each one's merges).
MAX_BRANCHES = 64
#: Restoring branches trains each one's own merges once and walks (undoes, redoes) between
#: them; a session is refused when the walking would come to more than this many times the
#: merges trained, plus :data:`RESTORE_SLACK` steps. Sessions the app writes stay well below
#: (a walk goes back to where a branch parts and on to where the next one does); 64 branches
#: crafted to part alternately at 0 and at the end walked 48 times what they trained.
RESTORE_FACTOR = 8
RESTORE_SLACK = 20_000


class RestoreStopped(ValueError):
    """A restore of branches that its caller stopped (the app closing while it loads)."""


class Branch(NamedTuple):
    """One what-if branch: a line of merges from step 0.

    ``parts_at`` is how many merges it shares with ``parent`` (its first own merge is step
    ``parts_at + 1``; 0 and no parent for the first branch); ``length`` is how many merges its
    line holds; ``manual`` how many of them were manual; ``at`` the step it is at (the
    trainer's step for the current branch, the step it was left at for the others).
    """

    name: str
    parent: str | None
    parts_at: int
    length: int
    manual: int
    at: int
    current: bool


class KeptLine:
    """A branch other than the current one: its whole line and the step it was left at."""

    __slots__ = ("line", "at")

    def __init__(self, line: array[int], at: int) -> None:
        self.line = line
        self.at = at


class Branches:
    """The branch book of one Trainer: names, parents, fork points, and the lines kept aside."""

    def __init__(self) -> None:
        self.current = FIRST
        self.order: list[str] = [FIRST]
        self.parent: dict[str, str | None] = {FIRST: None}
        self.parts_at: dict[str, int] = {FIRST: 0}
        self.kept: dict[str, KeptLine] = {}
        self._serial = 0

    def __len__(self) -> int:
        return len(self.order)

    def new_name(self) -> str:
        while True:
            self._serial += 1
            name = f"b{self._serial}"
            if name not in self.parent:
                return name

    def fork(self, line: array[int], at: int, parts_at: int, name: str | None = None) -> str:
        """Keep the current line (``line``, left at step ``at``) under its name and make a new
        current branch that parts from it after ``parts_at`` merges; returns the new name."""
        if len(self.order) >= MAX_BRANCHES:
            from engine.errors import ConfigError

            raise ConfigError(f"at most {MAX_BRANCHES} branches: this merge would start one more")
        name = name or self.new_name()
        self.kept[self.current] = KeptLine(line, at)
        self.parent[name] = self.current
        self.parts_at[name] = parts_at
        self.order.append(name)
        self.current = name
        return name

    def resolve(self, which: str | int) -> str:
        """A branch name from a name or an index into :attr:`order`; ValueError when none."""
        if isinstance(which, int) and not isinstance(which, bool):
            if 0 <= which < len(self.order):
                return self.order[which]
            raise ValueError(f"no branch {which}: there are {len(self.order)} (0 to {len(self.order) - 1})")
        if which in self.parent:
            return str(which)
        raise ValueError(f"no branch named {which!r} (branches: {', '.join(self.order)})")

    def record(self, name: str, length: int, manual: int, at: int) -> Branch:
        """The branch ``name``, its line ``length`` merges long, ``manual`` of them manual."""
        return Branch(name, self.parent[name], self.parts_at[name], length, manual, at, name == self.current)

    # -- sessions ---------------------------------------------------------------------------

    def to_data(self, own: dict[str, tuple[list[list[int]], int]]) -> dict[str, Any]:
        """A JSON-able description: every branch's parent, fork point, step and own merges
        (``own``: each branch's merges past its fork point, ``[left, right]`` with a third
        element ``1`` for a manual merge, and its step)."""
        out = []
        for name in self.order:
            merges, at = own[name]
            out.append({
                "name": name,
                "parent": self.parent[name],
                "parts_at": self.parts_at[name],
                "at": at,
                "merges": merges,
            })
        return {"current": self.current, "branches": out}


def check_data(data: Any, where: str = "branches") -> list[dict[str, Any]]:
    """The branches of :meth:`Branches.to_data`'s output, checked for shape (names, parents
    before children, numbers in range); ValueError (one line) otherwise. Ids are checked when
    the merges are made."""
    from engine.config import MAX_VOCAB
    from engine.errors import ConfigError

    def need(ok: bool, message: str) -> None:
        if not ok:
            raise ConfigError(f"{where}: {message}")

    need(isinstance(data, dict) and isinstance(data.get("branches"), list), "must be an object with a \"branches\" list")
    items = data["branches"]
    need(0 < len(items) <= MAX_BRANCHES, f"must hold 1 to {MAX_BRANCHES} branches, not {len(items)}")
    seen: dict[str, int] = {}  # name -> length of its line
    for k, item in enumerate(items):
        need(isinstance(item, dict), f"branch {k + 1} must be an object")
        name, parent, start, at, merges = (item.get(f) for f in ("name", "parent", "parts_at", "at", "merges"))
        need(isinstance(name, str) and 0 < len(name) <= 40 and name.isprintable() and name not in seen,
             f"branch {k + 1} needs a new name of 1 to 40 printable characters")
        if k == 0:
            need(parent is None and start == 0, f"the first branch ({name}) has no parent and parts at 0")
        else:
            need(parent in seen, f"branch {name}'s parent must be a branch listed before it")
            need(type(start) is int and 0 <= start <= seen[parent], f"branch {name}'s \"parts_at\" is out of range")
        need(isinstance(merges, list) and len(merges) <= MAX_VOCAB, f"branch {name}'s \"merges\" must be a list")
        for m in merges:
            need(isinstance(m, list) and len(m) in (2, 3) and all(type(x) is int and 0 <= x < MAX_VOCAB for x in m[:2])
                 and (len(m) == 2 or m[2] in (0, 1)), f"branch {name}'s merges must be [left, right] or [left, right, 1]")
        length = start + len(merges)
        need(type(at) is int and 0 <= at <= length, f"branch {name}'s \"at\" must be a step from 0 to {length}")
        seen[name] = length
    need(data.get("current") in seen, "\"current\" must name one of the branches")
    return items


def restore_work(items: list[dict[str, Any]]) -> tuple[int, int]:
    """(merges trained, steps walked) to restore ``items`` (checked by :func:`check_data`) the
    way :meth:`engine.train.trainer.Trainer.restore_branches` does: each branch is reached by going
    back along the current line to where it shares the parent's, then along the parent's to
    where the branch parts; its own merges are then trained. Lines are taken to share no more
    than their fork points say (an upper bound on the walk)."""
    parent: dict[str, str | None] = {}
    parts: dict[str, int] = {}
    length: dict[str, int] = {}

    def shares(a: str, b: str) -> int:
        """How many merges the lines of branches ``a`` and ``b`` share (at most)."""
        up: dict[str, int] = {}
        x: str | None
        limit, x = length[a], a
        while x is not None:
            up[x] = limit
            if parent[x] is not None:
                limit = min(limit, parts[x])
            x = parent[x]
        limit, y = length[b], b
        while y not in up:
            limit = min(limit, parts[y])
            above = parent[y]
            assert above is not None  # every line goes up to the first branch, which is a's too
            y = above
        return min(limit, up[y])

    trained = walked = 0
    current, here = None, 0
    for item in items:
        name = item["name"]
        parent[name], parts[name] = item["parent"], item["parts_at"]
        if current is not None:
            above = item["parent"]
            back = min(here, shares(current, above))
            walked += here - back + abs(back - item["parts_at"])
            here = item["parts_at"]
        length[name] = item["parts_at"] + len(item["merges"])
        trained += len(item["merges"])
        here += len(item["merges"])
        current = name
    return trained, walked


def check_work(items: list[dict[str, Any]], where: str = "branches") -> None:
    """Refuse (one line) branches whose restore would walk far more than it trains (see
    :data:`RESTORE_FACTOR`): crafted data, not a session the app wrote."""
    from engine.errors import ConfigError

    trained, walked = restore_work(items)
    if walked > RESTORE_FACTOR * trained + RESTORE_SLACK:
        raise ConfigError(f"{where}: restoring them would walk {walked:,} merges back and forth, more than "
                          f"{RESTORE_FACTOR} times the {trained:,} they train (plus {RESTORE_SLACK:,}): refused")
