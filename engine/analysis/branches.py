"""Two what-if branches side by side: where they part, tokens and bytes per token at a few steps
on the corpus and on a held-out text, and the tokens each has that the other lacks."""

from __future__ import annotations

from dataclasses import dataclass

from engine.train.trainer import Trainer

#: Held-out text beyond this many characters is not encoded (each row encodes it twice).
HELDOUT_LIMIT = 200_000


@dataclass(frozen=True)
class BranchRow:
    """Corpus and held-out tokens of both branches after ``step`` merges (None: the branch has
    no such step; held-out None: no held-out text)."""

    step: int
    tokens: tuple[int | None, int | None]
    heldout: tuple[int | None, int | None] | None


@dataclass(frozen=True)
class BranchComparison:
    """What :func:`compare_branches` finds; ``a`` and ``b`` are branch names."""

    a: str
    b: str
    parts_at: int  # merges the two share (their lines part after this step)
    lengths: tuple[int, int]
    corpus_bytes: int
    heldout_bytes: int | None
    rows: tuple[BranchRow, ...]
    only_a: tuple[bytes, ...]  # tokens of a's line that b's never makes, in the order made
    only_b: tuple[bytes, ...]

    @staticmethod
    def per_token(size: int | None, tokens: int | None) -> float | None:
        """Bytes per token, or None when either is unknown."""
        return size / tokens if size and tokens else None


def steps_to_show(parts_at: int, lengths: tuple[int, int], points: int) -> list[int]:
    """Where the part starts, each branch's end, and evenly spread steps between.

    Example: ``steps_to_show(2, (6, 9), 4) -> [2, 4, 6, 7, 9]``
    """
    end = max(lengths)
    chosen = {parts_at, *lengths}
    if end > parts_at and points > 1:
        for k in range(1, points):
            chosen.add(parts_at + round((end - parts_at) * k / (points - 1)))
    return sorted(s for s in chosen if s >= parts_at)


def compare_branches(trainer: Trainer, a: str | int, b: str | int, *, corpus_bytes: int,
                     heldout: str | None = None, points: int = 5) -> BranchComparison:
    """Compare branches ``a`` and ``b`` of ``trainer`` (names or indexes): corpus tokens at
    about ``points`` steps from where they part to their ends (read from the merge events, no
    training), and, given a ``heldout`` text, its tokens with each branch's tokenizer there
    (encodes it twice per row: call it from a worker on big texts)."""
    names = [trainer.branches[i].name if isinstance(i, int) else i for i in (a, b)]
    lines = [trainer.branch_events(name) for name in names]
    part = 0
    while part < min(map(len, lines)) and lines[0][part] == lines[1][part]:
        part += 1
    lengths = (len(lines[0]), len(lines[1]))
    text = heldout[:HELDOUT_LIMIT] if heldout else None
    rows = []
    for step in steps_to_show(part, lengths, points):
        tokens = tuple(
            (trainer.initial_tokens if step == 0 else line[step - 1].tokens_after) if step <= len(line) else None
            for line in lines
        )
        held = None
        if text is not None:
            held = tuple(
                len(trainer.tokenizer_of([e.pair for e in line[:step]]).encode(text, specials=False))
                if step <= len(line) else None
                for line in lines
            )
        rows.append(BranchRow(step, tokens, held))  # type: ignore[arg-type]
    made = [[e.token for e in line] for line in lines]
    known = [set(m) for m in made]
    return BranchComparison(
        names[0], names[1], part, lengths, corpus_bytes,
        len(text.encode("utf-8", "surrogateescape")) if text is not None else None,
        tuple(rows),
        tuple(t for t in made[0][part:] if t not in known[1]),
        tuple(t for t in made[1][part:] if t not in known[0]),
    )
