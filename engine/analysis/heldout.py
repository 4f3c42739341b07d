"""Held-out evaluation (seed 002's "500 unseen poems"): encode text the tokenizer never trained on."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from engine.encode.tokenizer import Tokenizer
from engine.text.display import token_display


def hold_back(text: str, fraction: float) -> tuple[str, str]:
    """Split ``text`` into (training text, held-out text): the last ``fraction`` is held back,
    cut at a line start when the text has lines.

    Example: ``hold_back("a\\nb\\nc\\nd\\n", 0.25) -> ('a\\nb\\nc\\n', 'd\\n')``
    """
    if not 0 < fraction < 1:
        raise ValueError(f"the held-out fraction must be between 0 and 1, not {fraction}")
    cut = round(len(text) * (1 - fraction))
    if 0 < cut < len(text) and text[cut - 1] != "\n":
        before = text.rfind("\n", 0, cut) + 1
        after = text.find("\n", cut) + 1
        candidates = [c for c in (before, after) if 0 < c < len(text)]
        if candidates:
            cut = min(candidates, key=lambda c: abs(c - cut))
    if not 0 < cut < len(text):
        raise ValueError(f"the corpus is too short to hold back {fraction:.0%} of it")
    return text[:cut], text[cut:]


def segmentation(tokenizer: Tokenizer, text: str) -> list[str]:
    """Each token of ``text`` as seed 002 prints it: text, or bytes in brackets; spaces as ``·``.

    Example: ``" | ".join(segmentation(tok, "自君入城市"))`` -> ``'自 | 君 | 入 | 城 | [e5 b8] | [82]'``
    """
    return [token_display(tokenizer.token_bytes(i), space="·") for i in tokenizer.encode(text)]


@dataclass(frozen=True)
class HeldOutReport:
    """Seed 002's numbers for a held-out text at one step."""

    characters: int
    bytes: int
    tokens: int
    unknown: int  # characters outside a chars-base alphabet (always 0 for the bytes base)
    unseen: int  # character occurrences that never occur in the training text
    unseen_distinct: int
    training_distinct: int  # distinct characters in the training text
    sample: str  # the first line of the held-out text (up to a limit)
    sample_pieces: tuple[str, ...]
    roundtrip: bool  # decode(encode(text)) == text

    @property
    def chars_per_token(self) -> float:
        return self.characters / self.tokens if self.tokens else 0.0

    @property
    def unseen_share(self) -> float:
        """Share of the held-out characters never seen in training (seed 002: 1.0%)."""
        return self.unseen / self.characters if self.characters else 0.0


def first_line(text: str, limit: int) -> str:
    """The first non-empty line, without its line end, cut to ``limit`` characters."""
    for line in text.splitlines():
        if line.strip():
            return line[:limit]
    return text[:limit]


def evaluate_heldout(tokenizer: Tokenizer, heldout: str, training_text: str, *, sample_chars: int = 120) -> HeldOutReport:
    """Encode ``heldout`` and measure it against what training saw."""
    ids = tokenizer.encode(heldout, specials=False)
    seen = set(training_text)
    counts = Counter(heldout)
    unseen = {c: n for c, n in counts.items() if c not in seen}
    if tokenizer.alphabet is not None:
        known = set(tokenizer.alphabet)
        unknown = sum(n for c, n in counts.items() if c not in known)
    else:
        unknown = 0
    sample = first_line(heldout, sample_chars)
    return HeldOutReport(
        characters=len(heldout),
        bytes=len(heldout.encode("utf-8", "surrogateescape")),
        tokens=len(ids),
        unknown=unknown,
        unseen=sum(unseen.values()),
        unseen_distinct=len(unseen),
        training_distinct=len(seen),
        sample=sample,
        sample_pieces=tuple(segmentation(tokenizer, sample)),
        roundtrip=tokenizer.decode_bytes(ids) == heldout.encode("utf-8", "surrogateescape"),
    )
