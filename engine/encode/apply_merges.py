"""Rank-based encoding of one chunk: the earliest-learned merge present fires first (seed 000).

These paths give identical results (and the compiled core, :mod:`engine.native.door`, too):

- short chunks (most of them): a list of the chunk's ids and a list of its pairs' ranks, built
  with C-level maps; each step finds the lowest rank with the C-level ``min`` and
  ``list.index`` (the leftmost), merges there and looks up only the two pairs beside it. The
  Python work is constant per merge; the C-level scans are over a few dozen ints.
- long chunks (pre-tokenizer ``none`` makes a whole text one chunk): a heap of candidate merges,
  ``rank << 32 | position``, over a linked list of parts, as HuggingFace's ``Word.merge_all``
  does, O(n log n).
- a bytes-base chunk (:class:`ByteMerger`, from its text and bytes): its first pair ranks off a
  table of byte pairs, and a chunk of three-byte characters merged character by character
  first (a table of characters), then across them only where a token can join them.

Merging the leftmost lowest-rank pair one at a time equals the seeds' "merge every occurrence left
to right" because a merge never creates a pair of lower rank than its own.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import partial
from heapq import heapify, heappop, heappush
from itertools import chain, repeat
from operator import getitem, lshift, or_

from engine.encode.pairs import SHIFT
from engine.text.display import is_complete_utf8

#: Chunks longer than this use the heap path (below it the list scans, all C-level, cost less
#: than the heap's Python-level pushes and pops; docs/benchmarks.md has the crossing point).
LONG_CHUNK = 16
#: The rank of a pair no merge covers: above every real one.
_NO_RANK = 1 << 62
#: The last byte of a three-byte character and the first of the next (:class:`ByteMerger`).
_BORDER = re.compile(rb"[\x80-\xbf][\xe0-\xef]")
#: What a border between two three-byte characters is (:meth:`ByteMerger._border_rows`): held by
#: a token that is not whole characters, held only by tokens of whole characters, held by none.
_CUT, _WHOLE, _APART = 0, 1, 2


def apply_merges(ids: list[int], ranks: dict[int, int]) -> list[int]:
    """Encode one chunk's base ids; ``ranks`` maps ``a << SHIFT | b`` to the id the merge made.
    ``ids`` is not changed.

    Example: with ranks {(1,2)->4, (4,3)->5}: ``apply_merges([1, 2, 3, 1, 2], ranks) -> [5, 4]``
    """
    if len(ids) > LONG_CHUNK:
        return _apply_long(ids, ranks)
    return _apply_short(list(ids), ranks)


class ByteMerger:
    """:func:`apply_merges` for a bytes-base chunk, given as its text and its bytes (each byte
    its base id), with two shortcuts, both exact (``ranks`` and ``pieces`` must not change
    afterwards):

    - the ranks of the chunk's pairs are read off a table of the 65,536 byte pairs (a list of
      rows: two C-level lookups a pair and no arithmetic, half the cost of hashing packed pairs),
      built at the first call;
    - a chunk of three-byte characters (Chinese, Japanese, Korean, their punctuation) is the
      characters' own ids in a row when no token holds the bytes met at any border between two
      of them side by side: no merge can join across such a border (the token it made would
      hold them), so each character merges on its own, and each distinct one is merged once (a
      table of characters). GPT-2's ranks join almost no Chinese characters: 200,000 of
      tang_all's 220,000 distinct chunks are read this way.
    - when the tokens that hold a border's bytes are all whole characters (valid UTF-8, as
      Llama 3's and 4's words of two characters are), the characters are still merged each on
      its own first, and then the chunk of their ids is merged: a merge across the border joins
      two tokens of whole characters (a token of whole characters cut inside a character would
      have one part that holds a border without starting at a character), so every character
      is whole before any merge touches it, and every merge that does comes after the merges
      that made its parts (they are ranked earlier), as it would in one pass.

    The table of borders is built at the first such chunk, from one C-level scan of the tokens'
    bytes.

    Example: with ranks {(104,105)->256}: ``ByteMerger(ranks, pieces)("hi!", b"hi!") -> [256, 33]``
    """

    def __init__(self, ranks: dict[int, int], pieces: Sequence[bytes],
                 borders: Callable[[], Borders] | None = None) -> None:
        self._ranks = ranks
        self._pieces = pieces
        self._rows: list[list[int]] | None = None
        self._borders: Borders | None = None
        #: Makes the borders at the first chunk that needs them: a longer vocabulary's may be
        #: given (see Borders), else this one's are worked out.
        self._make_borders = borders if borders is not None else partial(Borders, pieces)
        self._chars = _Chars(self._merge)

    def _rank_rows(self) -> list[list[int]]:
        """Each byte pair's rank (``_NO_RANK`` where no merge makes it), row by first byte."""
        get, none = self._ranks.get, _NO_RANK
        self._rows = [[get(a << SHIFT | b, none) for b in range(256)] for a in range(256)]
        return self._rows

    def __call__(self, chunk: str, data: bytes) -> list[int]:
        n = len(data)
        if n < 2:
            return list(data)
        if n == 3 * len(chunk) and max(data) < 0xF0:
            # no character of four bytes, so three bytes each (a lone surrogate's escape is
            # one byte, another character at most three): the borders are at 2-3, 5-6, ...
            borders = self._borders
            if borders is None:
                borders = self._borders = self._make_borders()
            kind = borders.kind(data) if n > 3 else _APART
            if kind == _APART:
                return list(chain.from_iterable(map(self._chars.__getitem__, chunk)))
            if kind == _WHOLE:  # each character first, then across the borders
                return apply_merges(list(chain.from_iterable(map(self._chars.__getitem__, chunk))), self._ranks)
        if n > LONG_CHUNK:
            return _apply_long(list(data), self._ranks)
        rows = self._rows or self._rank_rows()
        return _apply_short(list(data), self._ranks, list(map(getitem, map(rows.__getitem__, data[:-1]), data[1:])))

    def _merge(self, char: str) -> list[int]:
        """One character's ids (a table miss)."""
        return _apply_short(list(char.encode("utf-8", "surrogateescape")), self._ranks)


def border_kinds(pieces: Sequence[bytes]) -> bytes:
    """What each pair of bytes ``a``, ``b`` is as the last byte of a three-byte character and the
    first of the next (a continuation byte, then E0-EF), at ``kinds[a << 8 | b]``: ``_APART``
    when no token of ``pieces`` holds the two side by side, ``_WHOLE`` when only tokens of whole
    characters (valid UTF-8) hold them, else ``_CUT`` (and for any other pair of bytes). One
    C-level scan of the tokens' bytes; the compiled encoder reads the same table."""
    held = set(_BORDER.findall(b"\0".join(pieces)))  # (the separator is neither kind)
    cut = set(_BORDER.findall(b"\0".join(piece for piece in pieces if not is_complete_utf8(piece))))
    kinds = bytearray(1 << 16)  # _CUT
    for a in range(0x80, 0xC0):
        for b in range(0xE0, 0xF0):
            pair = bytes((a, b))
            kinds[a << 8 | b] = _APART if pair not in held else _CUT if pair in cut else _WHOLE
    return bytes(kinds)


class Borders:
    """:func:`border_kinds` of ``pieces`` as rows by first byte, and the tokens cut across a
    border by the pair of bytes they hold there: such a token can only join characters in a
    piece that holds it, so :meth:`kind` looks for it around the border.

    The borders of a vocabulary serve any vocabulary of some of its tokens (a replay's step, whose
    tokens are the file's first): a border no token holds is held by none of them, one held only
    by whole characters is held by whole characters or none (merging the characters first is
    then exact too), and a cut token found in a piece sends it through its bytes."""

    def __init__(self, pieces: Sequence[bytes]) -> None:
        self.kinds = kinds = border_kinds(pieces)
        self._rows = [kinds[a << 8:(a + 1) << 8] for a in range(256)]
        self._cut_at: dict[bytes, list[tuple[bytes, int]]] = {}
        for piece in pieces:
            if _BORDER.search(piece) and not is_complete_utf8(piece):
                for found in _BORDER.finditer(piece):  # (pairs of these two kinds never overlap)
                    self._cut_at.setdefault(found.group(), []).append((piece, found.start()))

    def kind(self, data: bytes) -> int:
        """For the bytes of two or more three-byte characters: ``_APART`` when no token holds any
        of their borders, else ``_CUT`` when a token cut across a border is there, in ``data``,
        else ``_WHOLE``."""
        kinds = list(map(getitem, map(self._rows.__getitem__, data[2:-1:3]), data[3::3]))
        kind = min(kinds)
        if kind != _CUT:
            return kind
        cut_at = self._cut_at
        for j, k in enumerate(kinds):
            if k == _CUT:
                at = 3 * j + 2
                for token, offset in cut_at[data[at:at + 2]]:
                    if at >= offset and data.startswith(token, at - offset):
                        return _CUT
        return _WHOLE

    def tables(self) -> tuple[bytes, list[tuple[int, bytes, int]]]:
        """What the compiled core reads: the kinds of border, and the tokens cut across one as
        ``(first byte << 8 | second byte, token, where the pair stands in it)``."""
        cut = [(pair[0] << 8 | pair[1], token, offset) for pair, held in self._cut_at.items() for token, offset in held]
        return self.kinds, cut


class _Chars(dict[str, list[int]]):
    """A character -> its ids; one not in the table yet is merged (``merge``) and kept (a few
    thousand at most: the three-byte characters)."""

    def __init__(self, merge: Callable[[str], list[int]]) -> None:
        super().__init__()
        self._merge = merge

    def __missing__(self, char: str) -> list[int]:
        ids = self[char] = self._merge(char)
        return ids


def _apply_short(ids: list[int], ranks: dict[int, int], pair_ranks: list[int] | None = None) -> list[int]:
    """The list-scan path (see the module doc); changes and returns ``ids``. ``pair_ranks``,
    when given (``ids`` then holds two or more), are the ranks of its pairs, ``_NO_RANK`` where
    no merge covers one."""
    get = ranks.get
    none = _NO_RANK
    if pair_ranks is None:
        if len(ids) < 2:
            return ids
        pair_ranks = list(map(get, map(or_, map(lshift, ids[:-1], repeat(SHIFT)), ids[1:]), repeat(none)))
    lowest, index = min, pair_ranks.index
    while True:
        r = lowest(pair_ranks)
        if r == none:
            return ids
        i = index(r)  # the leftmost pair of that rank
        del ids[i + 1]
        del pair_ranks[i]
        ids[i] = r
        if i:
            pair_ranks[i - 1] = get(ids[i - 1] << SHIFT | r, none)
        if i < len(pair_ranks):
            pair_ranks[i] = get(r << SHIFT | ids[i + 1], none)
        elif not pair_ranks:
            return ids


def _apply_long(ids: list[int], ranks: dict[int, int]) -> list[int]:
    """Heap of packed ``rank << 32 | position`` ints over a linked list (see the module doc)."""
    get = ranks.get
    n = len(ids)
    sym = list(ids)
    nxt = list(range(1, n + 1))
    prv = list(range(-1, n - 1))
    heap: list[int] = []
    push = heap.append
    prev = sym[0] if n else 0
    for i in range(1, n):
        cur = sym[i]
        r = get(prev << SHIFT | cur)
        if r is not None:
            push(r << 32 | (i - 1))
        prev = cur
    heapify(heap)
    mask = (1 << 32) - 1
    while heap:
        entry = heappop(heap)
        i = entry & mask
        a = sym[i]
        if a < 0:
            continue
        j = nxt[i]
        r = entry >> 32
        if j >= n or get(a << SHIFT | sym[j]) != r:
            continue  # stale: a neighbour merged since this entry was pushed
        sym[i] = r
        sym[j] = -1
        k = nxt[j]
        nxt[i] = k
        if k < n:
            prv[k] = i
            rr = get(r << SHIFT | sym[k])
            if rr is not None:
                heappush(heap, rr << 32 | i)
        o = prv[i]
        if o >= 0:
            rr = get(sym[o] << SHIFT | r)
            if rr is not None:
                heappush(heap, rr << 32 | o)
    return [s for s in sym if s >= 0]
