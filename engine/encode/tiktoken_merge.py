"""tiktoken's merging of one piece: join the adjacent pair whose joined bytes rank lowest (the
leftmost on a tie) until no joined pair is a token. A tokenizer read from a rank file uses it
when the file has whole-piece tokens that tiktoken can also build inside a longer piece (Llama
3's " nghiệ" in " nghiệx"): merge rules, which need a token's parts made before it, cannot.

A heap of candidate pairs keyed by (rank, start) keeps this O(n log n) in the piece's length.

:func:`split_points` runs it on a rank file's tokens, each with the tokens ranked before it,
which is how merges are recovered from ranks (:mod:`engine.formats.tiktoken_bpe`); the compiled
core has a twin (:mod:`engine.native.door`).
"""

from __future__ import annotations

import heapq
from array import array
from collections.abc import Callable, Sequence


def rank_merge(piece: bytes, order: dict[bytes, int], cuts: Sequence[int] | None = None) -> list[bytes]:
    """The parts tiktoken leaves of ``piece`` with tokens ranked by ``order`` (bytes -> rank),
    starting from its bytes, or from the parts that start at ``cuts`` (ascending, the first 0)."""
    n = len(piece)
    if cuts is None:
        if n < 2:
            return [piece]
        cuts = range(n)
    if len(cuts) <= 16:  # short pieces (nearly all): the plain scan is faster
        bounds = [*cuts, n]
        parts = [piece[s:e] for s, e in zip(bounds, bounds[1:])]
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
    return _heap_merge(piece, order, cuts)[0]  # type: ignore[return-value]  # no budget: parts


#: How many tokens :func:`split_points` handles between two calls of its ``progress``.
PROGRESS_EVERY = 1 << 14

#: Tokens at least this long are first tried as two tokens made before them (:func:`_walk`):
#: real rank files have a few hundred such tokens (runs of spaces or dashes), made of two
#: parts that are easy to name; shorter ones are merged byte by byte at once.
SHORTCUT_FROM = 32
#: How many bytes the walks of one token may look up, per byte of it, before it is merged
#: byte by byte instead (a walk looks up about two pairs per level of its parts' merge trees).
WALK_BYTES = 64
#: How many bytes merging tokens of more than 16 bytes byte by byte may look up in all (each
#: pair looked up counts its bytes), for one rank file: past it, :class:`TooCostly`. Tokens the
#: shortcut settles cost nothing here; real files look up about 1 MB (o200k-like Llama 4 1.2 MB
#: before the shortcut). A pair can be as long as its token, so a token that grows byte by byte
#: costs its length squared over two: this bounds that, at about a quarter second of hashing.
RECOVERY_BUDGET = 1 << 28


#: How many bytes :func:`any_formable` may look up merging whole pieces of more than 16 bytes
#: byte by byte (each pair looked up counts its bytes), and how many bytes of such pieces it
#: may merge (a step a byte, in Python on both paths: about a quarter second), before it
#: answers yes without knowing.
FORMABLE_BUDGET = 1 << 22
FORMABLE_PIECES = 1 << 18


class TooCostly(ValueError):
    """Recovering merges passed :data:`RECOVERY_BUDGET`: at the token of place ``place`` in the
    list, ``spent`` bytes had been looked up."""

    def __init__(self, place: int, spent: int) -> None:
        super().__init__(place, spent)
        self.place, self.spent = place, spent


def split_points(tokens: list[bytes], progress: Callable[[int, int], None] | None = None,
                 shortcut_from: int = SHORTCUT_FROM, budget: int | None = RECOVERY_BUDGET) -> array[int]:
    """For each of ``tokens`` (distinct, two bytes or more, in rank order): where
    :func:`rank_merge` with only the tokens before it cuts it when it leaves exactly two parts
    (the first part's length), else 0. ``progress(done, total)`` is called now and then.
    Merging tokens of more than 16 bytes byte by byte may look up ``budget`` bytes (None: no
    bound), else :class:`TooCostly`.

    A token of ``shortcut_from`` bytes or more is first tried as two tokens made before it,
    each reached by merging (``regular`` below): a few likely cuts (the token less its last or
    first bytes, the tokens just before it, their own cuts, the middle), each checked by
    :func:`_walk`, which proves or refutes it in a few steps per level of the two parts' merge
    trees instead of a merge of each byte. So ``a`` x 5000 with every shorter run of ``a``
    ranked before it (12.5 MB of tokens) takes well under a second instead of minutes: the
    byte-by-byte merge costs a heap step for every byte of every token. Before that, two
    exact tests leave it in pieces (cut 0) at once: no token of two bytes ranks before it (so
    no pair of its bytes merges), or no two lengths of the tokens before it (or 1, a byte) add
    up to its own (so it cannot end in two parts). A token none of this settles is merged byte
    by byte, as every shorter one is.

    Example: ``list(split_points([b"ab", b"abc", b"bcd", b"abcd"])) -> [1, 2, 0, 3]``
    """
    order: dict[bytes, int] = {}  # the tokens before the current one: rank_merge's ranks
    get = order.get
    total = len(tokens)
    cuts = array("i", bytes(4 * total))
    regular = _Trees(tokens, order, cuts)
    lefts, rights = regular.lefts, regular.rights
    spent, room = 0, budget if budget is not None else 1 << 62
    lengths = _Sums(max(map(len, tokens), default=2))
    for rank, token in enumerate(tokens):
        if progress is not None and not rank % PROGRESS_EVERY:
            progress(rank, total)
        n = len(token)
        found = None
        if n not in lengths.seen:  # (its own length changes neither test below)
            lengths.add(n)
        if n >= shortcut_from:
            if (n > 2 and not lengths.twos) or not lengths.fit(n):
                order[token] = rank
                continue  # it stays in pieces: cut 0, not regular
            found = _two_tokens(token, rank, tokens, get, cuts, lefts, rights, regular)
        if found is not None:
            cuts[rank], lefts[rank], rights[rank] = found
            regular.state[rank] = 1
        else:
            if n > 16:  # rank_merge's heap path, counted
                parts, spent = _merge_counted(token, order, spent, room)
                if parts is None:
                    raise TooCostly(rank, spent)
            else:
                parts = rank_merge(token, order)
            if len(parts) == 2:
                cuts[rank] = len(parts[0])
        order[token] = rank
    if progress is not None:
        progress(total, total)
    return cuts


class _Trees:
    """Each token's two parts (places in ``tokens``, -1 a byte; -2 not looked up yet) and
    whether it is regular: its merging leaves two parts, each a byte or itself a regular token
    (the tokens a load reaches); ``state`` 1 regular, 2 not, 0 not known yet. Found at first
    need (a long token's likely cuts, :func:`_two_tokens`): most tokens are never asked about,
    and looking their parts up costs a real file's load a few percent."""

    __slots__ = ("cuts", "lefts", "order", "rights", "state", "tokens")

    def __init__(self, tokens: list[bytes], order: dict[bytes, int], cuts: array[int]) -> None:
        self.tokens, self.order, self.cuts = tokens, order, cuts
        self.lefts = array("i", [-2]) * len(tokens)
        self.rights = array("i", [-2]) * len(tokens)
        self.state = bytearray(len(tokens))

    def __getitem__(self, place: int) -> bool:
        """Whether the token at ``place`` (ranked before the current one) is regular."""
        state = self.state
        if state[place]:
            return state[place] == 1
        tokens, order, cuts, lefts, rights = self.tokens, self.order, self.cuts, self.lefts, self.rights
        stack = [place]  # a path down the tree (ranks fall along it, so no place twice)
        while stack:
            q = stack[-1]
            if state[q]:
                stack.pop()
                continue
            cut = cuts[q]
            if not cut:
                state[q] = 2
                stack.pop()
                continue
            if lefts[q] == -2:  # its parts are tokens ranked before it, or bytes
                token = tokens[q]
                lefts[q] = -1 if cut == 1 else order[token[:cut]]
                rights[q] = -1 if len(token) - cut == 1 else order[token[cut:]]
            left, right = lefts[q], rights[q]
            if left >= 0 and not state[left]:
                stack.append(left)
            elif right >= 0 and not state[right]:
                stack.append(right)
            else:
                state[q] = 1 if (left < 0 or state[left] == 1) and (right < 0 or state[right] == 1) else 2
                stack.pop()
        return state[place] == 1


class _Sums:
    """The lengths of the tokens so far, and 1 (a byte), for :func:`split_points`: whether a
    token of ``n`` bytes could be two of them (:meth:`fit`), and whether one of two bytes is
    among them (``twos``). Bit L of ``ahead`` is set for each length L, bit ``top`` - L of
    ``behind`` (``top``: the longest token's length), so one shift and one ``and`` answer."""

    def __init__(self, top: int) -> None:
        self.top = top
        self.seen = {1}
        self.ahead = 1 << 1
        self.behind = 1 << (top - 1)
        self.twos = False

    def add(self, k: int) -> None:
        if k not in self.seen:
            self.seen.add(k)
            self.ahead |= 1 << k
            self.behind |= 1 << (self.top - k)
            self.twos = self.twos or k == 2

    def fit(self, n: int) -> bool:
        """Whether some c in 1 .. n - 1 has both c and n - c among the lengths (bit c of the
        shifted ``behind`` is set where n - c is)."""
        return bool((self.behind >> (self.top - n)) & self.ahead)


def any_formable(pieces: Sequence[bytes], order: dict[bytes, int], budget: int = FORMABLE_BUDGET,
                 piece_budget: int = FORMABLE_PIECES) -> bool:
    """Whether :func:`rank_merge` of some of ``pieces`` (each three bytes or more) with every
    token of ``order`` ends in that piece, by merging each in turn; but true at once when
    merging pieces of more than 16 bytes passes ``budget`` bytes looked up or ``piece_budget``
    bytes of such pieces (a file of thousands of long whole pieces would take a step a byte of
    each). Its caller then merges by rank, as tiktoken does, which is right either way: only
    slower to encode than merge rules.

    A piece merges into itself only through two tokens that make it up, so a piece of more
    than 16 bytes whose length is no sum of two tokens' lengths (or 1, a byte), or any when no
    token has two bytes (no pair of bytes merges), is not merged to find out."""
    lengths: _Sums | None = None  # made at the first long piece
    spent = merged = 0
    for piece in pieces:
        if len(piece) > 16:
            if lengths is None:
                lengths = _Sums(max(max(map(len, order), default=2), max(map(len, pieces))))
                for token in order:
                    lengths.add(len(token))
            if not lengths.twos or not lengths.fit(len(piece)):
                continue
            merged += len(piece)
            if merged > piece_budget:
                return True
            parts, spent = _merge_counted(piece, order, spent, budget)
            if parts is None:
                return True
        else:
            parts = rank_merge(piece, order)
        if parts == [piece]:
            return True
    return False


def _merge_counted(piece: bytes, order: dict[bytes, int], spent: int, room: int) -> tuple[list[bytes] | None, int]:
    """``rank_merge(piece, order)`` by its heap, with ``spent`` plus the bytes of each pair it
    looks up; no parts (None) once those pass ``room`` (the compiled ``_rank_merge`` counts
    the same)."""
    return _heap_merge(piece, order, range(len(piece)), spent, room)


def _heap_merge(piece: bytes, order: dict[bytes, int], cuts: Sequence[int], spent: int = 0,
                room: int = -1) -> tuple[list[bytes] | None, int]:
    """:func:`rank_merge` of the parts of ``piece`` that start at ``cuts`` by a heap of
    ``(rank, start, stop)``, and ``spent`` plus the bytes of each pair looked up; with a
    ``room`` (>= 0), no parts (None) once those pass it."""
    n = len(piece)
    end = list(range(1, n + 1))  # end[s]: where the part starting at s ends (for live parts)
    prev = list(range(-1, n - 1))
    alive = [True] * n
    if len(cuts) < n:  # parts given
        alive = [False] * n
        bounds = [*cuts, n]
        for i, s in enumerate(cuts):
            end[s] = bounds[i + 1]
            prev[s] = bounds[i - 1] if i else -1
            alive[s] = True
    heap: list[tuple[int, int, int]] = []
    get = order.get
    for s in cuts:
        e = end[s]
        if e < n:
            stop = end[e]
            spent += stop - s
            r = get(piece[s:stop])
            if r is not None:
                heap.append((r, s, stop))
    if 0 <= room < spent:
        return None, spent
    heapq.heapify(heap)
    while heap:
        r, s, stop = heapq.heappop(heap)
        if not alive[s] or end[s] >= n or end[end[s]] != stop:
            continue  # stale: one of the two parts changed since
        alive[end[s]] = False
        end[s] = stop
        if stop < n:
            prev[stop] = s
            after = end[stop]
            spent += after - s
            r = get(piece[s:after])
            if r is not None:
                heapq.heappush(heap, (r, s, after))
        o = prev[s]
        if o >= 0:
            spent += stop - o
            r = get(piece[o:stop])
            if r is not None:
                heapq.heappush(heap, (r, o, stop))
        if 0 <= room < spent:
            return None, spent
    out, s = [], 0
    while s < n:
        out.append(piece[s : end[s]])
        s = end[s]
    return out, spent


def _two_tokens(token: bytes, rank: int, tokens: list[bytes], get: Callable[[bytes], int | None], cuts: array[int],
                lefts: array[int], rights: array[int], regular: _Trees) -> tuple[int, int, int] | None:
    """``(cut, left, right)`` when :func:`rank_merge` with the tokens before ``token`` (its
    place is ``rank``) leaves two regular tokens (places; -1 a byte) cut at one of a few likely
    cuts, proved by :func:`_walk`; None when none of them is proved (then merge it byte by byte).

    The likely cuts, tried in this order (the compiled twin tries the same): for s = 1 to 4,
    the token less its last s bytes, when that is a regular token, cut there or at its own cut,
    and the token less its first s bytes likewise; then each of the four tokens ranked just
    before it that begins or ends it, cut there or at its own cut; then the middle."""
    n = len(token)
    likely: list[tuple[int, int, int]] = []  # (cut, left, right), -2: look the part up
    for s in range(1, 5):
        if n - s < 2:
            break
        p = get(token[:-s])
        if p is not None and regular[p]:
            likely.append((n - s, p, -2))
            likely.append((cuts[p], lefts[p], -2))
        p = get(token[s:])
        if p is not None and regular[p]:
            likely.append((s, -2, p))
            likely.append((s + cuts[p], -2, rights[p]))
    for p in range(rank - 1, max(rank - 5, -1), -1):
        before = tokens[p]
        k = len(before)
        if k < n and regular[p]:
            if token.startswith(before):
                likely.append((k, p, -2))
                likely.append((cuts[p], lefts[p], -2))
            if token.endswith(before):
                likely.append((n - k, -2, p))
                likely.append((n - k + cuts[p], -2, rights[p]))
    likely.append((n // 2, -2, -2))
    tried: set[int] = set()
    room = WALK_BYTES * n
    for cut, left, right in likely:
        if cut in tried:
            continue
        tried.add(cut)
        if left == -2:
            left = -1 if cut == 1 else _regular(get(token[:cut]), regular)
        if right == -2:
            right = -1 if n - cut == 1 else _regular(get(token[cut:]), regular)
        if left == -2 or right == -2:
            continue
        left_over = _walk(token, cut, left, right, tokens, get, cuts, lefts, rights, room)
        if left_over is None:  # out of room: merge it byte by byte
            return None
        if left_over >= 0:
            return cut, left, right
        room = ~left_over
    return None


def _regular(place: int | None, regular: _Trees) -> int:
    """``place`` when it is a regular token's, else -2."""
    return place if place is not None and regular[place] else -2


def _walk(token: bytes, cut: int, left: int, right: int, tokens: list[bytes], get: Callable[[bytes], int | None],
          cuts: array[int], lefts: array[int], rights: array[int], room: int) -> int | None:
    """Whether :func:`rank_merge` of ``token`` with the tokens before it leaves ``token[:cut]``
    and ``token[cut:]``, regular tokens of places ``left`` and ``right`` (-1: a byte): ``room``
    less the bytes looked up when it does, ``~`` that (below 0) when it does not, None when the
    bytes looked up would pass ``room``.

    Why this decides it. A regular token's own merging joins the nodes of its merge tree (each
    a regular token: its two parts, down to bytes) in the order of their keys, (rank, start):
    both parts' mergings run side by side and none of their pairs joins across the border, so
    the lowest key each step is the lowest of either's next node, and the last step joins the
    two. So does the merging of ``token`` on each side of ``cut``, as long as no pair joins
    across it; the only such pair is the left side's last part with the right side's first.
    The left side's last part rises through its tree's right spine (the byte before the cut,
    then each node up to ``token[:cut]``, each formed at its own key), and the right side's
    first part through its left spine. A pair (x, y) across is the lowest candidate, and joins,
    exactly when it is a token ranked before ``token`` whose key (its rank, x's start) is below
    the key of the next node of either spine (which replaces x or y): until then that node, or
    a node below it on the same side, is always waiting with a key no higher. Walking both
    spines up in key order, checking each pair met, is the whole proof; the top pair is
    ``token`` itself, which ranks after everything looked up."""
    shift = 24  # a start is below 1 << 24 (tokens are at most MAX_RECOVERED_TOKEN bytes)
    xs: list[int] = []  # the left part's right spine, top down: starts and places
    xp: list[int] = []
    s, p = 0, left
    while p >= 0:
        xs.append(s)
        xp.append(p)
        s += cuts[p]
        p = rights[p]
    ye: list[int] = []  # the right part's left spine, top down: ends and places
    yp: list[int] = []
    p = right
    while p >= 0:
        ye.append(cut + len(tokens[p]))
        yp.append(p)
        p = lefts[p]
    i, j = len(xp), len(yp)  # the current parts: xp[i], yp[j], or the byte beside the cut at len
    start, stop = cut - 1, cut + 1
    none = 1 << 62
    while True:
        room -= stop - start
        if room < 0:
            return None
        joined = get(token[start:stop])
        x_next = xp[i - 1] << shift | xs[i - 1] if i else none
        y_next = yp[j - 1] << shift | cut if j else none
        if joined is not None and (joined << shift | start) < min(x_next, y_next):
            return ~room  # this pair joins across the cut first
        if not i and not j:
            return room
        if x_next < y_next:
            i -= 1
            start = xs[i]
        else:
            j -= 1
            stop = ye[j]
