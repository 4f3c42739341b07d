"""Vocabulary composition (seed 002): of the learned tokens, how many are one complete character,
two or more characters, or partial UTF-8 (half a character, or crossing a character boundary)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

#: The three kinds, in the order seed 002 reports them.
KINDS = ("char", "multi", "partial")
LABELS = {
    "char": "exactly one complete character",
    "multi": "two or more characters",
    "partial": "partial UTF-8 (part of a character, or across a boundary)",
}


def classify(data: bytes) -> str:
    """``char``, ``multi`` or ``partial``.

    Example: ``classify("。".encode()) -> 'char'``; ``classify("。\\n".encode()) -> 'multi'``;
    ``classify(b"\\xe4\\xb8") -> 'partial'``
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return "partial"
    return "char" if len(text) == 1 else "multi"


@dataclass(frozen=True)
class Composition:
    """What the learned tokens (ids from ``base_size`` on) are made of.

    ``counts`` maps each kind to how many learned tokens are of it; ``earliest`` each kind to its
    first token ids in merge order; ``longest`` the ids of the longest tokens (most bytes first).
    """

    learned: int
    counts: dict[str, int]
    earliest: dict[str, list[int]] = field(default_factory=dict)
    longest: list[int] = field(default_factory=list)

    def share(self, kind: str) -> float:
        """The fraction of learned tokens of this kind."""
        return self.counts[kind] / self.learned if self.learned else 0.0


def composition(vocab: Sequence[bytes], base_size: int, *, earliest: int = 30, longest: int = 12) -> Composition:
    """Classify every learned token of ``vocab`` (bytes by id; ids below ``base_size`` are bases).

    Example (seed 002, Tang poems, no pre-tokenizer): the first learned tokens are ``[80 82]`` and
    ``[ef bc]``, both partial.
    """
    counts = dict.fromkeys(KINDS, 0)
    first: dict[str, list[int]] = {kind: [] for kind in KINDS}
    for token_id in range(base_size, len(vocab)):
        kind = classify(vocab[token_id])
        counts[kind] += 1
        if len(first[kind]) < earliest:
            first[kind].append(token_id)
    learned = range(base_size, len(vocab))
    top = sorted(learned, key=lambda i: (-len(vocab[i]), i))[:longest]
    return Composition(len(learned), counts, first, top)
