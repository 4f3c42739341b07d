"""The compiled encoder's glue for Chinese, Japanese and Korean: tables of the borders between
three-byte characters, which let it merge such a chunk character by character first. The pure
path has none of this: it merges a chunk's bytes (:mod:`engine.encode.apply_merges`).

Why it is exact (``ChunkEncoder.set_chars`` and ``RankMerger.set_chars`` in ``encode.pxi`` read
the tables of :meth:`Borders.tables`):

- a chunk of three-byte characters is the characters' own ids in a row when no token holds the
  bytes met at any border between two of them (the last byte of one character and the first of
  the next), side by side: no merge can join across such a border (the token it made would hold
  them), so each character merges on its own, and each distinct one is merged once (a table of
  characters). GPT-2's ranks join almost no Chinese characters: 200,000 of tang_all's 220,000
  distinct chunks are read this way.
- when the tokens that hold a border's bytes are all whole characters (valid UTF-8, as Llama 3's
  and 4's words of two characters are), the characters are still merged each on its own first,
  and then the chunk of their ids is merged: a merge across the border joins two tokens of whole
  characters (a token of whole characters cut inside a character would have one part that holds
  a border without starting at a character), so every character is whole before any merge
  touches it, and every merge that does comes after the merges that made its parts (they are
  ranked earlier), as it would in one pass.
- a token cut across a border (not whole characters) can only join characters in a chunk that
  holds it: such a chunk goes through its bytes.

The borders of a vocabulary serve any vocabulary of some of its tokens (a replay's step, whose
tokens are the file's first): a border no token holds is held by none of them, one held only by
whole characters is held by whole characters or none (merging the characters first is then
exact too), and a cut token found in a chunk sends it through its bytes.

Example: ``Borders(["中".encode(), "国".encode()]).kind("中国".encode()) == APART``
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from operator import getitem

#: The last byte of a three-byte character and the first of the next.
_BORDER = re.compile(rb"[\x80-\xbf][\xe0-\xef]")
#: What a border between two three-byte characters is: held by a token that is not whole
#: characters, held only by tokens of whole characters, held by none (``encode.pxi``'s B_CUT,
#: B_WHOLE, B_APART).
CUT, WHOLE, APART = 0, 1, 2


def _whole(piece: bytes) -> bool:
    """Whether ``piece`` decodes as UTF-8 on its own (whole characters only)."""
    try:
        piece.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def holding(pieces: Sequence[bytes]) -> list[bytes]:
    """The tokens of ``pieces`` that hold a border's two bytes side by side (the compiled core's
    ``border_holders`` gives the same list in one C loop: 200,000 tokens in a few milliseconds
    against about 40 ms here)."""
    return list(filter(_BORDER.search, pieces))


def border_kinds(pieces: Sequence[bytes], holders: Sequence[bytes] | None = None,
                 cut_by: Sequence[bytes] | None = None) -> bytes:
    """What each pair of bytes ``a``, ``b`` is as the last byte of a three-byte character and the
    first of the next (a continuation byte, then E0-EF), at ``kinds[a << 8 | b]``: ``APART``
    when no token of ``pieces`` holds the two side by side, ``WHOLE`` when only tokens of whole
    characters (valid UTF-8) hold them, else ``CUT`` (and for any other pair of bytes). Only the
    tokens that hold such a pair are read (``holders``: :func:`holding` of ``pieces``; ``cut_by``:
    those of them that are not whole characters)."""
    held_by = holding(pieces) if holders is None else holders
    if cut_by is None:
        cut_by = [piece for piece in held_by if not _whole(piece)]
    held = set(_BORDER.findall(b"\0".join(held_by)))  # (the separator is neither kind)
    cut = set(_BORDER.findall(b"\0".join(cut_by)))
    kinds = bytearray(1 << 16)  # CUT
    for a in range(0x80, 0xC0):
        for b in range(0xE0, 0xF0):
            pair = bytes((a, b))
            kinds[a << 8 | b] = APART if pair not in held else CUT if pair in cut else WHOLE
    return bytes(kinds)


class Borders:
    """:func:`border_kinds` of ``pieces`` as rows by first byte, and the tokens cut across a
    border by the pair of bytes they hold there: such a token can only join characters in a
    piece that holds it, so :meth:`kind` looks for it around the border."""

    def __init__(self, pieces: Sequence[bytes], holders: Callable[[Sequence[bytes]], list[bytes]] = holding) -> None:
        held_by = holders(pieces)
        cut_by = [piece for piece in held_by if not _whole(piece)]
        self.kinds = kinds = border_kinds(pieces, held_by, cut_by)
        self._rows = [kinds[a << 8:(a + 1) << 8] for a in range(256)]
        self._cut_at: dict[bytes, list[tuple[bytes, int]]] = {}
        for piece in cut_by:
            for found in _BORDER.finditer(piece):  # (pairs of these two kinds never overlap)
                self._cut_at.setdefault(found.group(), []).append((piece, found.start()))

    def kind(self, data: bytes) -> int:
        """For the bytes of two or more three-byte characters: ``APART`` when no token holds any
        of their borders, else ``CUT`` when a token cut across a border is there, in ``data``,
        else ``WHOLE``."""
        kinds = list(map(getitem, map(self._rows.__getitem__, data[2:-1:3]), data[3::3]))
        kind = min(kinds)
        if kind != CUT:
            return kind
        cut_at = self._cut_at
        for j, k in enumerate(kinds):
            if k == CUT:
                at = 3 * j + 2
                for token, offset in cut_at[data[at:at + 2]]:
                    if at >= offset and data.startswith(token, at - offset):
                        return CUT
        return WHOLE

    def tables(self) -> tuple[bytes, list[tuple[int, bytes, int]]]:
        """What the compiled core reads: the kinds of border, and the tokens cut across one as
        ``(first byte << 8 | second byte, token, where the pair stands in it)``."""
        cut = [(pair[0] << 8 | pair[1], token, offset) for pair, held in self._cut_at.items() for token, offset in held]
        return self.kinds, cut


class SharedBorders:
    """The :class:`Borders` of ``pieces``, made at the first call (``holders``: the compiled
    core's ``border_holders``, when the compiled backend makes it) and kept: a vocabulary's, which
    the vocabularies of its first tokens (a replay's steps) take as theirs."""

    def __init__(self, pieces: Sequence[bytes], holders: Callable[[Sequence[bytes]], list[bytes]] = holding) -> None:
        self._pieces = pieces
        self._holders = holders
        self._made: Borders | None = None

    def __call__(self) -> Borders:
        if self._made is None:
            self._made = Borders(self._pieces, self._holders)
        return self._made
