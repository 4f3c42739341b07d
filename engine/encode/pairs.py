"""Pairs of token ids: how the fast paths pack one into an int (the seeds' merge helper, the
reference the fast paths must agree with, is :func:`engine.encode.reference.merge`)."""

from __future__ import annotations

#: A pair (a, b) is packed into one int as ``a << SHIFT | b`` (dict keys and queue entries of the
#: pair state, merge ranks of the tokenizer): ids fit in SHIFT bits (``engine.config.MAX_VOCAB``).
SHIFT = 20
#: ``key & MASK`` is the right id of a packed pair, ``key >> SHIFT`` the left one.
MASK = (1 << SHIFT) - 1

