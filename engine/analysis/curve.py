"""The compression curve: corpus tokens and bytes per token after every merge (seed 001's table,
seed 003 §13.6's diminishing returns). Built from the merge events, which carry ``tokens_after``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.train.trainer import Trainer


@dataclass(frozen=True)
class Curve:
    """``tokens[k]`` is the corpus length in tokens after k merges (k = 0: before any merge).

    ``current`` is the trainer's step; entries after it are undone merges that redo would re-apply.
    ``corpus_bytes`` is the corpus size in UTF-8 bytes (for bytes per token).

    Example: seed 001's ``low lower lowest`` gives ``tokens == (16, 13, 10, 8, 6)``.
    """

    tokens: tuple[int, ...]
    corpus_bytes: int
    current: int

    @property
    def last(self) -> int:
        """The last step the curve knows (applied or undone)."""
        return len(self.tokens) - 1

    def bytes_per_token(self, step: int) -> float:
        """Corpus bytes per token after ``step`` merges."""
        tokens = self.tokens[step]
        return self.corpus_bytes / tokens if tokens else 0.0

    def saved_per_merge(self, start: int, end: int) -> float:
        """Tokens saved per merge between two steps: how the returns diminish."""
        if end <= start:
            return 0.0
        return (self.tokens[start] - self.tokens[end]) / (end - start)

    def milestones(self, first: int = 6) -> list[int]:
        """Steps worth a table row: 0, then ``first`` doubling (seed 001: 0, 6, 12, 24, 48), the
        current step and the last one.

        Example: ``Curve(tuple(range(100, 0, -1)), 100, 30).milestones() -> [0, 6, 12, 24, 30, 48, 96, 99]``
        """
        steps = {0, self.current, self.last}
        step = max(first, 1)
        while step <= self.last:
            steps.add(step)
            step *= 2
        return sorted(s for s in steps if 0 <= s <= self.last)


def compression_curve(trainer: Trainer, corpus_bytes: int | None = None) -> Curve:
    """The curve of a trainer's applied and undone merges (call it under the workbench lock).

    ``corpus_bytes`` saves encoding a large text again when the caller knows its size.
    """
    tokens = [trainer.initial_tokens]
    tokens.extend(trainer.events().tokens_after())
    tokens.extend(trainer.future.tokens_after())
    if corpus_bytes is None:
        corpus_bytes = len(trainer.text.encode("utf-8", "surrogateescape"))
    return Curve(tuple(tokens), corpus_bytes, trainer.steps)
