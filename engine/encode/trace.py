"""The rule-by-rule walkthrough of an encoding (seed 003 §11.4), for reading: a text's chunks
start as their units (or where the model's result differs from the rules', as that result),
then each rule that fires is one step, in learned order, with how often it fired and the
segmentation after it. The last segmentation is always what :meth:`Tokenizer.encode` gives.

Example: with the one merge (104, 105), ``trace`` of the chunks ``[[104, 105, 33]]`` starts at
``(104, 105, 33)`` and has one step, ``TraceStep(1, (104, 105), 256, 1, (256, 33))``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.encode.pairs import SHIFT
from engine.encode.reference import merge

if TYPE_CHECKING:
    from engine.encode.models import Model
    from engine.encode.vocabulary import Vocabulary

#: encode_trace refuses longer texts: the walkthrough is for reading, not for corpora.
TRACE_LIMIT = 2000


@dataclass(frozen=True)
class TraceStep:
    """One rule firing during :meth:`Tokenizer.encode_trace` (seed 003 §11.4).

    ``rule`` is the merge's 1-based position in the learned order, ``pair`` and ``new_id`` the
    rule itself, ``places`` how many times it fired, ``tokens`` the segmentation after it.
    """

    rule: int
    pair: tuple[int, int]
    new_id: int
    places: int
    tokens: tuple[int, ...]


def trace(vocab: Vocabulary, model: Model, chunks: list[list[int]]) -> tuple[tuple[int, ...], list[TraceStep]]:
    """The walkthrough of ``chunks`` (each chunk's units, or a special's one id): each chunk
    starts where the model says (:meth:`~engine.encode.models.MergeRules.trace_start`), then the
    rules fire in learned order, each over every chunk at once, until none applies."""
    specials = vocab.special_of
    chunks = [c if not c or (len(c) == 1 and c[0] in specials) else model.trace_start(c) for c in chunks]
    start = tuple(i for c in chunks for i in c)
    steps: list[TraceStep] = []
    base_size, merges, get = vocab.base_size, vocab.merges, vocab.ranks.get
    while True:
        present = {r for c in chunks for a, b in zip(c, c[1:]) if (r := get(a << SHIFT | b)) is not None}
        if not present:
            break
        new_id = min(present)
        pair = merges[new_id - base_size]
        places = 0
        for i, c in enumerate(chunks):
            merged = merge(c, pair, new_id)
            places += len(c) - len(merged)
            chunks[i] = merged
        tokens = tuple(i for c in chunks for i in c)
        steps.append(TraceStep(new_id - base_size + 1, pair, new_id, places, tokens))
    return start, steps
