"""tiktoken's merging of one piece: join the adjacent pair whose joined bytes rank lowest (the
leftmost on a tie) until no joined pair is a token. A tokenizer read from a rank file uses it
when the file has whole-piece tokens that tiktoken can also build inside a longer piece (Llama
3's " nghiệ" in " nghiệx"): merge rules, which need a token's parts made before it, cannot.

A heap of candidate pairs keyed by (rank, start) keeps this O(n log n) in the piece's length.

:func:`split_points` runs it on a rank file's tokens, each with the tokens ranked before it,
which is how merges are recovered from ranks (:mod:`engine.formats.tiktoken_bpe`); the compiled
core has a twin (:mod:`engine._core`).
"""

from __future__ import annotations

import heapq
from array import array
from collections.abc import Callable


def rank_merge(piece: bytes, order: dict[bytes, int]) -> list[bytes]:
    """The parts tiktoken leaves of ``piece`` with tokens ranked by ``order`` (bytes -> rank)."""
    n = len(piece)
    if n < 2:
        return [piece]
    if n <= 16:  # short pieces (nearly all): the plain scan is faster
        parts = [piece[i : i + 1] for i in range(n)]
        get = order.get
        while len(parts) > 1:
            best = at = None
            for i in range(len(parts) - 1):
                r = get(parts[i] + parts[i + 1])
                if r is not None and (best is None or r < best):
                    best, at = r, i
            if at is None:
                break
            parts[at : at + 2] = [parts[at] + parts[at + 1]]
        return parts
    end = list(range(1, n + 1))  # end[s]: where the part starting at s ends (for live parts)
    prev = list(range(-1, n - 1))
    alive = [True] * n
    heap: list[tuple[int, int, int]] = []

    def push(s: int) -> None:
        e = end[s]
        if e < n:
            r = order.get(piece[s : end[e]])
            if r is not None:
                heapq.heappush(heap, (r, s, end[e]))

    for s in range(n - 1):
        push(s)
    while heap:
        r, s, stop = heapq.heappop(heap)
        if not alive[s] or end[s] >= n or end[end[s]] != stop:
            continue  # stale: one of the two parts changed since
        alive[end[s]] = False
        end[s] = stop
        if stop < n:
            prev[stop] = s
        if prev[s] >= 0:
            push(prev[s])
        push(s)
    out, s = [], 0
    while s < n:
        out.append(piece[s : end[s]])
        s = end[s]
    return out


#: How many tokens :func:`split_points` handles between two calls of its ``progress``.
PROGRESS_EVERY = 1 << 14


def split_points(tokens: list[bytes], progress: Callable[[int, int], None] | None = None) -> array:
    """For each of ``tokens`` (distinct, two bytes or more, in rank order): where
    :func:`rank_merge` with only the tokens before it cuts it when it leaves exactly two parts
    (the first part's length), else 0. ``progress(done, total)`` is called now and then.

    Example: ``list(split_points([b"ab", b"abc", b"bcd", b"abcd"])) -> [1, 2, 0, 3]``
    """
    order: dict[bytes, int] = {}  # the tokens before the current one: rank_merge's ranks
    cuts = array("i", bytes(4 * len(tokens)))
    total = len(tokens)
    for rank, token in enumerate(tokens):
        if progress is not None and not rank % PROGRESS_EVERY:
            progress(rank, total)
        parts = rank_merge(token, order)
        if len(parts) == 2:
            cuts[rank] = len(parts[0])
        order[token] = rank
    if progress is not None:
        progress(total, total)
    return cuts
