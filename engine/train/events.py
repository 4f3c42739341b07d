"""The events training produces: one immutable record per merge, and next-merge candidates."""

from __future__ import annotations

from typing import NamedTuple

#: How many tied pairs a merge event lists (the total is always given).
TIE_CAP = 5


class Merge(NamedTuple):
    """One training step: ``pair`` became token ``new_id`` (immutable).

    ``count`` is the pair's weighted count when it was chosen; ``ties`` lists the pairs that
    shared that count (the chosen one first, in tie-rule order, at most ``TIE_CAP``) and
    ``tie_total`` says how many there were in all; ``tokens_after`` is the corpus length in
    tokens after the merge; ``removed`` is how many tokens it saved (occurrences replaced).

    A NamedTuple rather than a frozen dataclass: training makes one per merge, and a frozen
    dataclass costs a few microseconds more to build each time.
    """

    step: int
    pair: tuple[int, int]
    new_id: int
    token: bytes
    count: int  # type: ignore[assignment]  # a field named like tuple.count, which it hides
    ties: tuple[tuple[int, int], ...]
    tie_total: int
    tokens_after: int
    removed: int
    manual: bool = False

    @property
    def tokens_before(self) -> int:
        """Corpus length in tokens before this merge."""
        return self.tokens_after + self.removed

    @property
    def tied(self) -> bool:
        """Whether the tie rule had to decide this step."""
        return self.tie_total > 1


class Candidate(NamedTuple):
    """A pair that could be merged next, with its weighted count."""

    pair: tuple[int, int]
    count: int  # type: ignore[assignment]  # a field named like tuple.count, which it hides
