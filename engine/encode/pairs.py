"""Pairs of token ids: how the fast paths pack one into an int, and the seeds' merge helper, kept
naive on purpose: the reference the fast paths must agree with."""

from __future__ import annotations

from collections.abc import Sequence

#: A pair (a, b) is packed into one int as ``a << SHIFT | b`` (dict keys and queue entries of the
#: pair state, merge ranks of the tokenizer): ids fit in SHIFT bits (``engine.config.MAX_VOCAB``).
SHIFT = 20
#: ``key & MASK`` is the right id of a packed pair, ``key >> SHIFT`` the left one.
MASK = (1 << SHIFT) - 1


def merge(ids: Sequence[int], pair: tuple[int, int], new_id: int) -> list[int]:
    """Replace every occurrence of ``pair`` by ``new_id``, left to right, without overlap.

    Example: ``merge([1, 2, 3, 1, 2], (1, 2), 4) -> [4, 3, 4]``; ``merge([5, 5, 5], (5, 5), 6) -> [6, 5]``
    """
    out: list[int] = []
    i = 0
    n = len(ids)
    a, b = pair
    while i < n:
        if i + 1 < n and ids[i] == a and ids[i + 1] == b:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out
