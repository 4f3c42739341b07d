"""Encoding as the course texts teach it, in the fewest lines: the oracle the tests compare the
real tokenizer's encoders with.

- :func:`merge`: replace every occurrence of a pair, left to right (seed 000's ``merge``).
- :func:`encode`: apply the merges in the order they were learned, each everywhere (seed 000).
- :func:`tiktoken_parts`: tiktoken's merging of one piece, as its docs say: join the adjacent
  parts whose joined bytes rank lowest (the leftmost of equal ranks), until no joined pair is a
  token.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

Pair = tuple[int, int]


def merge(ids: Sequence[int], pair: Pair, new_id: int) -> list[int]:
    """Replace every occurrence of ``pair`` in ``ids``, left to right, by ``new_id`` (seed 000's merge).

    >>> merge([1, 2, 2, 1, 2], (1, 2), 9)
    [9, 2, 9]
    """
    out, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def encode(ids: Sequence[int], merges: Sequence[tuple[int, int]], first_id: int = 256) -> list[int]:
    """``ids`` after every merge, in learned order (merge k makes id ``first_id + k``).

    >>> encode([1, 2, 1, 2, 3], [(1, 2), (256, 256)], first_id=256)
    [257, 3]
    """
    out = list(ids)
    for k, pair in enumerate(merges):
        out = merge(out, pair, first_id + k)
    return out


def tiktoken_parts(piece: bytes, ranks: Mapping[bytes, int]) -> list[bytes]:
    """The tokens tiktoken makes of ``piece``: rescan every pair, join the lowest-ranked one.

    >>> tiktoken_parts(b"abc", {b"a": 0, b"b": 1, b"c": 2, b"bc": 3, b"ab": 4})
    [b'a', b'bc']
    """
    parts = [piece[i:i + 1] for i in range(len(piece))]
    while len(parts) > 1:
        best = at = None
        for i in range(len(parts) - 1):
            rank = ranks.get(parts[i] + parts[i + 1])
            if rank is not None and (best is None or rank < best):
                best, at = rank, i
        if at is None:
            break
        parts[at:at + 2] = [parts[at] + parts[at + 1]]
    return parts
