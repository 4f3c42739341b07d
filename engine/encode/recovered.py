"""A rank file's merges as the merge cache keeps them (by rank), read back into bpe-lab's ids
and checked: the pure twin of the compiled core's ``recovered_parts`` (``engine/native/load.pxi``),
which :func:`engine.formats.tiktoken_bpe.ranked_tokenizer` asks for through the door.

An entry is never trusted blindly (``engine/formats/merge_cache.py``): its products must grow
and be tokens' ranks, each merge's parts bytes or products made before it, and each merge's token
its two parts' bytes joined. What fails is rebuilt by recovering the merges again.
"""

from __future__ import annotations

import operator


def parts_in_order(lefts: list[int], rights: list[int], first: int) -> bool:
    """Whether merge ``k`` of ``(lefts[k], rights[k])`` uses only ids made before it (``first +
    k``): every id an int and at least 0 (C-level maps; the compiled twin is one loop).
    Example: ``parts_in_order([0, 2], [1, 0], 2) -> True`` (the second uses id 2, made by the first)."""
    made_by = range(first, first + len(lefts))
    return (len(lefts) == len(rights) and set(map(type, lefts)) | set(map(type, rights)) <= {int}
            and min(lefts, default=0) >= 0 and min(rights, default=0) >= 0
            and all(map(operator.lt, lefts, made_by)) and all(map(operator.lt, rights, made_by)))


def recovered_parts(base_ids: list[int | None], products: list[int], left_ranks: list[int], right_ranks: list[int],
                    tokens: list[bytes | None]) -> tuple[list[int], list[int], list[bytes]] | None:
    """The entry's merges in our ids and their tokens, ``(lefts, rights, made)``, checked against
    the rank file's ``tokens`` (by rank: 0, 1, 2, ...; None where no token has a rank); None
    unless it is exactly a recovery.
    ``base_ids[b]`` is the rank of byte ``b``'s token (None for none); our id of byte ``b`` is
    ``b``, of the k-th product ``len(base_ids) + k``.

    Example: bytes a, b (ranks 0, 1), a product "ab" (rank 2):
    ``recovered_parts([0, 1], [2], [0], [1], [b"a", b"b", b"ab"]) -> ([0], [1], [b"ab"])``."""
    first, n, top = len(base_ids), len(products), len(tokens)
    if len(left_ranks) != n or len(right_ranks) != n or first > 256:
        return None
    if products and not (0 <= products[0] and products[-1] < top):
        return None
    if not all(map(operator.lt, products, products[1:])):  # growing: none twice either
        return None
    base_ranks = {rank for rank in base_ids if rank is not None}
    if not all(0 <= rank < top for rank in base_ranks) or not base_ranks.isdisjoint(products):
        return None
    lefts, rights = our_ids(base_ids, products, left_ranks, right_ranks)
    made_by = range(first, first + n)
    if None in lefts or None in rights:
        return None
    if not (all(map(operator.lt, lefts, made_by)) and all(map(operator.lt, rights, made_by))):  # type: ignore[arg-type]
        return None
    made = list(map(tokens.__getitem__, products))
    if None in made:  # (a file with gaps in its ranks)
        return None
    pieces = [bytes([b]) for b in range(first)] + made
    part = pieces.__getitem__
    if any(map(operator.ne, map(operator.add, map(part, lefts), map(part, rights)), made)):  # type: ignore[arg-type]
        return None  # a merge whose two parts do not join into the token of its rank
    return lefts, rights, made  # type: ignore[return-value]


def our_ids(base_ids: list[int | None], products: list[int], *wanted: list[int]) -> list[list[int | None]]:
    """Our id of each rank in each of ``wanted`` (None where no token has that rank), for the
    strictly growing ``products`` ranks of a cache entry. Dense ranks (every real file's) are
    looked up in a list, where GPT-2's merges' ranks are their ids; sparse ones in a dict."""
    first = len(base_ids)
    known = [r for r in base_ids if r is not None]
    top = max([-1, *products[-1:], *known])
    if top >= 2 * (first + len(products)) + 1024 or any(r < 0 for r in known):
        ours_of = {rank: i for i, rank in enumerate(base_ids) if rank is not None}
        ours_of.update(zip(products, range(first, first + len(products))))
        return [list(map(ours_of.get, ranks)) for ranks in wanted]
    ours: list[int | None] = [None] * (top + 1)
    for i, rank in enumerate(base_ids):
        if rank is not None:
            ours[rank] = i
    if products[:1] == [first] and products[-1:] == [first + len(products) - 1]:
        ours[first : first + len(products)] = range(first, first + len(products))  # growing: first, first + 1, ...
    else:
        for i, rank in enumerate(products, first):
            ours[rank] = i
    out: list[list[int | None]] = []
    for ranks in wanted:
        if ranks and not (0 <= min(ranks) and max(ranks) <= top):
            out.append([None])  # a rank no token has
        else:
            out.append(list(map(ours.__getitem__, ranks)))
    return out
