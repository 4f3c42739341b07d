"""tiktoken's merging (:func:`engine.encode.tiktoken_merge.rank_merge`) of a piece of Chinese,
character by character first: the compiled core's trick for long runs of three-byte characters
(its RankMerger takes :meth:`CharsFirst.tables`). The pure path merges such a piece byte by byte,
as tiktoken does; tests/engine/test_chars_first.py proves both give the same parts.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial
from itertools import accumulate, chain

from engine.encode.tiktoken_merge import rank_merge
from engine.native.borders import APART, CUT, Borders

#: A piece of three-byte characters only (E0 A0-BF, E1-EC, ED 80-9F, EE-EF: valid UTF-8).
_THREE = re.compile(rb"(?:[\xe1-\xec\xee\xef][\x80-\xbf]{2}|\xe0[\xa0-\xbf][\x80-\xbf]|\xed[\x80-\x9f][\x80-\xbf])+")
#: Bytes that can only be in three-byte characters (continuation bytes and E0-EF).
_THREE_MATERIAL = re.compile(rb"[\x80-\xbf\xe0-\xef]+")


class CharsFirst:
    """:func:`rank_merge` of a piece of three-byte characters, character by character first: each
    character's parts as tiktoken leaves them alone (once for each character), then the piece
    from those parts. Called with a piece, it gives its parts, or None where it does not apply
    (then :func:`rank_merge` of the bytes gives them).

    It gives tiktoken's parts when (1) every token that holds the last byte of a character and
    the first of the next is whole characters (valid UTF-8), for the borders of the piece, or
    is not in the piece at all (:class:`engine.native.borders.Borders`), and (2) every token of such bytes has two parts, each a
    token ranked before it (as training makes them; Llama 3's 8,860 such tokens all do). By (1)
    a merge across a border joins two parts of whole characters, so a character is whole, as
    it ends alone, before any merge across its borders. By (2) a merge that a whole character
    would allow ranks after that character's own merges, which rank after the merges pending
    inside it: so no merge across borders can be passed over, or taken first, because another
    character was not whole yet. Where (2) fails the whole vocabulary takes the bytes' path.

    ``analysis``: makes :func:`chars_first_analysis` of an order this one is the start of (its tokens of the
    lowest ranks, in the same order: a replay's rank file cut at a step), at first need, in
    place of this order's own. It holds here too: (2) holds for every token of the start, whose
    parts rank before it; and the borders' kinds are the longer order's, so a border it finds no
    token across may be taken as it is, and one it finds held is merged from the characters'
    parts by this order (where (1) holds too: its tokens are some of the longer order's), or
    bytes by bytes."""

    def __init__(self, order: dict[bytes, int], analysis: Callable[[], Borders | bool] | None = None) -> None:
        self._order = order
        self._borders: Borders | bool | None = None  # False: (2) does not hold
        self._analyse = analysis if analysis is not None else partial(chars_first_analysis, order)
        self._chars = _Lengths(order)

    def analysis(self) -> Borders | bool:
        """:func:`chars_first_analysis` of the order (or the longer one's given), made once."""
        if self._borders is None:
            self._borders = self._analyse()
        return self._borders

    def tables(self) -> tuple[bytes, list[tuple[int, bytes, int]]] | None:
        """What the compiled core's RankMerger needs to do the same: the kinds of border and
        the cut tokens (:class:`engine.native.borders.Borders`), or None where (2) does not hold."""
        borders = self.analysis()
        return borders.tables() if isinstance(borders, Borders) else None

    def __call__(self, piece: bytes) -> list[bytes] | None:
        n = len(piece)
        if n < 6 or n % 3 or not _THREE.fullmatch(piece):
            return None
        borders = self._borders if self._borders is not None else self.analysis()
        if not isinstance(borders, Borders):  # rule (2) does not hold
            return None
        kind = borders.kind(piece)
        if kind == CUT:
            return None
        lengths = list(chain.from_iterable(map(self._chars.__getitem__, piece.decode("utf-8"))))
        cuts = list(accumulate(lengths, initial=0))[:-1]
        if kind == APART:  # no token joins two of them: each as it is alone
            return [piece[s:s + k] for s, k in zip(cuts, lengths)]
        return rank_merge(piece, self._order, cuts)



def chars_first_analysis(order: dict[bytes, int]) -> Borders | bool:
    """The borders of ``order``'s tokens (:class:`engine.native.borders.Borders`) where rule (2) of
    :class:`CharsFirst` holds for them, else False."""
    return Borders(list(order)) if _chars_first_holds(order) else False


def _chars_first_holds(order: dict[bytes, int]) -> bool:
    """Rule (2) of :class:`CharsFirst`, over the tokens of three-byte characters' bytes (a single
    byte, which ``order`` leaves out, ranks before every token)."""
    get = order.get
    none = 1 << 62

    def before(part: bytes, rank: int) -> bool:
        return len(part) == 1 or get(part, none) < rank

    for token, rank in order.items():
        if len(token) > 1 and _THREE_MATERIAL.fullmatch(token):
            if not any(before(token[:i], rank) and before(token[i:], rank) for i in range(1, len(token))):
                return False
    return True


class _Lengths(dict[str, list[int]]):
    """A character -> the lengths in bytes of the parts tiktoken leaves of it alone, merged at
    its first use (a few thousand characters at most)."""

    def __init__(self, order: dict[bytes, int]) -> None:
        super().__init__()
        self._order = order

    def __missing__(self, char: str) -> list[int]:
        lengths = self[char] = list(map(len, rank_merge(char.encode("utf-8"), self._order)))
        return lengths
