"""One text through several tokenizers, aligned by character: ``bpe-lab compare-text`` and the
app's compare tab both draw this, so the two cannot drift.

Each tokenizer's pieces become the character offsets where it cuts (:func:`cuts_of`). The columns
are the text's characters and, between two characters, a cut column wherever any tokenizer cuts:
a row shows ``│`` there when it cuts and a blank when it does not, and a cut is *differing* when
some rows cut there and others do not. A piece that ends inside a character (byte-level
tokenizers cut a character's bytes) cuts after that character. A tokenizer whose pieces do not
spell the text (it normalizes it first: SentencePiece's ``▁``, NFKC) has no cuts and is not
aligned. Widths are the caller's to measure (``cells``: the terminal's cells, where Chinese and
emoji take two); the engine draws nothing.

Example::

    found = align("the hat", [("a", [b"the", b" hat"]), ("b", [b"th", b"e", b" hat"])])
    [found.line(row, band) for band in found.bands(80, len) for row in found.aligned]
    # ['the│·hat', 'th│e│·hat'] (spaces as ·), found.differing == 1
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

#: How spaces (·, so that a blank column is always "no cut here") and unseen characters are shown.
SHOWN = {" ": "·", "\n": "↵", "\t": "→", "\r": "␍"}


def cuts_of(pieces: Sequence[bytes], text: str) -> list[int] | None:
    """The character offsets where ``pieces`` end (the last is ``len(text)``), or None when they
    do not spell ``text``. A piece that ends inside a character cuts after it.

    Example: ``cuts_of([b"ab", b"c"], "abc") -> [2, 3]``; ``cuts_of([b"\\xe4", b"\\xbd\\xa0"], "你") -> [1]``
    """
    encoded = text.encode("utf-8", "surrogatepass")
    ends, joined = [], 0
    for piece in pieces:
        joined += len(piece)
        ends.append(joined)
    if joined != len(encoded) or b"".join(pieces) != encoded:
        return None
    char_ends, at = {}, 0
    for k, ch in enumerate(text):
        at += len(ch.encode("utf-8", "surrogatepass"))
        char_ends[at] = k + 1
    out: list[int] = []
    for cut in ends:
        while cut not in char_ends and cut < len(encoded):
            cut += 1
        if cut in char_ends and (not out or char_ends[cut] != out[-1]):
            out.append(char_ends[cut])
    return out


@dataclass(frozen=True)
class Column:
    """A character of the text (``at`` its index), or with ``cut`` the place before character
    ``at`` where some tokenizer cuts."""

    at: int
    cut: bool = False


@dataclass(frozen=True)
class AlignedRow:
    """One tokenizer: its ``name``, its ``pieces`` (bytes, in order) and their cut offsets (None:
    they do not spell the text)."""

    name: str
    pieces: tuple[bytes, ...]
    cuts: tuple[int, ...] | None

    @property
    def count(self) -> int:
        return len(self.pieces)

    @cached_property
    def cut_set(self) -> frozenset[int]:
        """:attr:`cuts` as a set, for asking about one column at a time."""
        return frozenset(self.cuts or ())

    def cuts_at(self, offset: int) -> bool:
        return offset in self.cut_set

    def piece_of(self, k: int) -> int:
        """The index of the (shown) piece character ``k`` is in: colours alternate by it."""
        return bisect_right(self.cuts or (), k)


@dataclass(frozen=True)
class Alignment:
    """What :func:`align` finds: the rows, the columns, and which cut columns differ."""

    text: str
    rows: tuple[AlignedRow, ...]
    columns: tuple[Column, ...]
    #: The offsets of the cuts some aligned rows make and others do not.
    disputed: frozenset[int] = field(default=frozenset())

    @property
    def aligned(self) -> list[AlignedRow]:
        """The rows whose pieces spell the text, in order."""
        return [row for row in self.rows if row.cuts is not None]

    def differs(self, column: Column) -> bool:
        """A cut column where some aligned rows cut and others do not."""
        return column.cut and column.at in self.disputed

    @property
    def differing(self) -> int:
        """How many cuts the aligned rows disagree on."""
        return len(self.disputed)

    @property
    def cut_count(self) -> int:
        """How many places inside the text any aligned row cuts."""
        return sum(1 for column in self.columns if column.cut)

    def glyph(self, column: Column) -> str:
        """A character column as shown (spaces as ``·``, a newline as ``↵``)."""
        ch = self.text[column.at]
        return SHOWN.get(ch, ch)

    def cell(self, row: AlignedRow, column: Column) -> str:
        """What ``row`` shows in ``column``: its character, or at a cut column ``│`` or a blank."""
        if column.cut:
            return "│" if row.cuts_at(column.at) else " "
        return self.glyph(column)

    def width(self, column: Column, cells: Callable[[str], int]) -> int:
        return 1 if column.cut else cells(self.glyph(column))

    def bands(self, room: int, cells: Callable[[str], int]) -> list[list[Column]]:
        """The columns wrapped into bands of at most ``room`` cells (a wider character alone)."""
        bands: list[list[Column]] = []
        current: list[Column] = []
        used = 0
        for column in self.columns:
            w = self.width(column, cells)
            if used + w > room and current:
                bands.append(current)
                current, used = [], 0
            current.append(column)
            used += w
        if current:
            bands.append(current)
        return bands

    def line(self, row: AlignedRow, band: Sequence[Column]) -> str:
        """``row``'s cells in ``band``, as plain text."""
        return "".join(self.cell(row, column) for column in band)

    def marks(self, band: Sequence[Column], cells: Callable[[str], int]) -> str:
        """The line under ``band``: ``^`` under each differing cut, blanks elsewhere (trailing
        blanks dropped)."""
        return "".join(("^" if self.differs(c) else " ") * self.width(c, cells) for c in band).rstrip()


def align(text: str, rows: Iterable[tuple[str, Sequence[bytes]]]) -> Alignment:
    """:class:`Alignment` of ``text`` for each ``(name, pieces)``."""
    made = tuple(AlignedRow(name, tuple(bytes(p) for p in pieces), _tuple(cuts_of(pieces, text)))
                 for name, pieces in rows)
    sets = [row.cut_set for row in made if row.cuts is not None]
    union = sorted(set().union(*sets))
    everyone = frozenset.intersection(*sets) if sets else frozenset()
    disputed = frozenset(cut for cut in union if cut < len(text) and cut not in everyone)
    columns: list[Column] = []
    start = 0
    for cut in union:
        columns += [Column(k) for k in range(start, cut)]
        if cut < len(text):
            columns.append(Column(cut, cut=True))
        start = cut  # (the last cut is the text's end: no columns without an aligned row)
    return Alignment(text, made, tuple(columns), disputed)


def _tuple(cuts: list[int] | None) -> tuple[int, ...] | None:
    return None if cuts is None else tuple(cuts)
