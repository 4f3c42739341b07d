"""The compiled backend's glue for splitting text: how its ASCII scanners (``count_ascii`` and
``split_ascii`` in ``scan.pxi``) are put to work on a gpt2, gpt4 or o200k text that may not be
all ASCII. The pure path has none of this: it runs the pattern over the text
(:class:`engine.text.pretokenize.PreTokenizer`).

The scanners read ASCII only. Code is nearly all ASCII, with a few lines that are not (a name,
a quote, an arrow), so such a text is cut into regions (:func:`regions`), each ending at a safe
cut, where every named pattern ends a chunk: the ASCII regions go to a scanner, the others to
the pattern itself (:func:`scan_text`, or a batch at a time, :func:`split_batches`). Each
character is looked at a bounded number of times (C-level searches).

Example: ``list(regions("ab\\ncd\\né\\nb", CUTS[0]))`` is ``[(0, 3, True), (3, 8, False), (8, 9, True)]``:
``ab\\n`` to a scanner, ``cd\\né\\n`` to the pattern, ``b`` to a scanner.
"""

from __future__ import annotations

import re
import sys
from array import array
from collections.abc import Callable, Iterable, Iterator
from functools import cache
from typing import TypeVar

#: A text that is not all ASCII, at least this long, is scanned in regions; a shorter one is
#: left to the pattern as a whole. An ASCII text goes to the scanners whatever its length (from
#: a few characters on they are faster than the pattern, and the ``regex`` module is not even
#: imported).
REGIONS_MIN = 1 << 12
#: :func:`split_batches` cuts an ASCII region longer than this at safe cuts, where it has them,
#: so that it holds the chunks of about this many characters at a time.
PIECE = 1 << 20

_NON_ASCII = re.compile(r"[^\x00-\x7f]")
#: A safe cut: just after a newline followed by printable ASCII (:func:`engine.corpus.reading._last_cut`
#: says why every named pattern ends a chunk there); the last one before a point, the next one.
_LAST_CUT = re.compile(r"(?s:.*)\n[\x21-\x7e]")
_NEXT_CUT = re.compile(r"\n[\x21-\x7e]")
#: The safe cuts (last before a point, next after one) by scan mode
#: (``engine.text.pretokenize.SCAN_MODES``: 0 gpt2, 1 gpt4, 2 o200k): o200k's ``[\r\n/]*``
#: carries a run of punctuation on past its newlines and slashes, so a newline before ``/`` is
#: no cut there.
CUTS = {
    0: (_LAST_CUT, _NEXT_CUT),
    1: (_LAST_CUT, _NEXT_CUT),
    2: (re.compile(r"(?s:.*)\n[\x21-\x2e\x30-\x7e]"), re.compile(r"\n[\x21-\x2e\x30-\x7e]")),
}

#: The pattern's chunks of ``text[start:stop]``, scanned as if the text ended at ``stop``, a
#: batch at a time (:func:`engine.text.pretokenize.scan_pieces` bound to the pattern).
Pattern = Callable[[str, int, int], Iterable[list[str]]]
Into = TypeVar("Into")
#: A compiled scanner: ``(into, text, start, stop, mode, drop_last) -> chunks, or -1`` (see scan.pxi).
Scanner = Callable[[Into, str, int, int, int, bool], int]


def regions(text: str, cuts: tuple[re.Pattern[str], re.Pattern[str]]) -> Iterator[tuple[int, int, bool]]:
    """``(start, end, ascii)`` regions covering ``text`` in order, each ending at a safe cut of
    ``cuts`` (or the text's end): the ASCII ones hold only ASCII, the character after them
    included (the patterns look one character ahead)."""
    n, pos = len(text), 0
    last_cut, next_cut = cuts
    while pos < n:
        found = _NON_ASCII.search(text, pos)
        if found is None:
            yield pos, n, True
            return
        back = last_cut.match(text, pos, found.start())
        if back is not None:  # the ASCII before it, to the last safe cut (its next character is ASCII)
            cut = back.end() - 1
            yield pos, cut, True
            pos = cut
        ahead = next_cut.search(text, found.end())
        end = n if ahead is None else ahead.start() + 1
        yield pos, end, False
        pos = end


def region(pattern: Pattern, text: str, start: int, end: int) -> Iterator[list[str]]:
    """The chunks of the region ``text[start:end]`` by ``pattern``, a batch at a time. A region
    ending before the text's end ends at a safe cut: it is scanned with the character after it
    (the patterns look one ahead), which comes back as a chunk of its own and is dropped."""
    n = len(text)
    if end == n:
        yield from pattern(text, start, n)
        return
    held: list[str] | None = None
    for batch in pattern(text, start, end + 1):
        if held is not None:
            yield held
        held = batch
    if not held or held[-1] != text[end]:  # a safe cut always ends a chunk: other cuts are a bug
        raise AssertionError(f"no chunk ends at the safe cut {end}")
    held.pop()
    yield held


def _plan(text: str, mode: int) -> Iterable[tuple[int, int, bool]] | None:
    """The regions of ``text`` (:func:`regions`; one, when it is all ASCII), or None for a text
    that is not all ASCII and shorter than :data:`REGIONS_MIN`."""
    if text.isascii():
        return ((0, len(text), True),)
    if len(text) < REGIONS_MIN:
        return None
    return regions(text, CUTS[mode])


def scan_text(scanner: Scanner[Into], into: Into, text: str, mode: int, pattern: Pattern,
              add: Callable[[Into, list[str]], object]) -> bool:
    """The pattern's chunks of ``text`` into ``into``: the ASCII regions by the compiled
    ``scanner`` (scan mode ``mode``), the rest (and an ASCII region it gives back, -1) by
    ``pattern``, each batch handed to ``add(into, batch)``. False, and nothing done, for a text
    that is not all ASCII and shorter than :data:`REGIONS_MIN`: the pattern's alone."""
    parts = _plan(text, mode)
    if parts is None:
        return False
    n = len(text)
    for start, end, ascii in parts:
        if ascii and scanner(into, text, start, n if end == n else end + 1, mode, end != n) >= 0:
            continue
        for batch in region(pattern, text, start, end):
            add(into, batch)
    return True


def split_batches(split_ascii: Scanner[list[str]], text: str, mode: int,
                  pattern: Pattern) -> Iterator[list[str]] | None:
    """The pattern's chunks of ``text`` a batch at a time, as :func:`scan_text` finds them with
    ``split_ascii``, an ASCII region in pieces of about :data:`PIECE` characters cut at safe
    cuts; None where :func:`scan_text` does nothing."""
    parts = _plan(text, mode)
    return None if parts is None else _batches(split_ascii, text, mode, parts, pattern)


def _batches(split_ascii: Scanner[list[str]], text: str, mode: int, parts: Iterable[tuple[int, int, bool]],
             pattern: Pattern) -> Iterator[list[str]]:
    n, last_cut = len(text), CUTS[mode][0]
    for start, end, ascii in parts:
        if not ascii:
            yield from region(pattern, text, start, end)
            continue
        while start < end:
            back = last_cut.match(text, start, start + PIECE) if end - start > PIECE else None
            stop = back.end() - 1 if back is not None else end  # (a safe cut, or the region's end)
            chunks: list[str] = []
            if split_ascii(chunks, text, start, n if stop == n else stop + 1, mode, stop != n) >= 0:
                yield chunks
            else:
                yield from region(pattern, text, start, stop)
            start = stop


#: What :func:`wide_classes` says a character past ASCII is (``scan.pxi``'s _K_LETTER, _K_OTHER,
#: _K_UNKNOWN).
WIDE_LETTER, WIDE_OTHER, WIDE_UNKNOWN = 1, 2, 8


@cache
def wide_classes() -> bytes:
    """The whole-text encoder's table for its wide scan (``TextCoder._cjk`` in ``scan.pxi``), a
    byte for each character below U+10000: :data:`WIDE_LETTER` for a letter of ``\\p{Lo}`` or
    ``\\p{Lm}``, :data:`WIDE_OTHER` for a character of none of ``\\s \\p{L} \\p{N} \\p{M}``,
    else (ASCII and surrogates too) :data:`WIDE_UNKNOWN`. Made once (a few milliseconds) by the
    ``regex`` module, which runs the named patterns: its Unicode version is theirs.

    Example: ``wide_classes()[ord("中")] == WIDE_LETTER``, ``wide_classes()[ord("，")] == WIDE_OTHER``
    """
    import regex

    codes = array("I", range(0x10000))  # every character but the surrogates, in one string (2 ms;
    codes[0xD800:0xE000] = array("I", [0]) * 0x800  # chr() one by one took 8-20 ms)
    chars = codes.tobytes().decode("utf-32-le" if sys.byteorder == "little" else "utf-32-be")
    table = bytearray([WIDE_UNKNOWN]) * 0x10000
    for kind, found in ((WIDE_LETTER, r"[\p{Lo}\p{Lm}]+"), (WIDE_OTHER, r"[^\s\p{L}\p{N}\p{M}]+")):
        for match in regex.finditer(found, chars):
            table[match.start():match.end()] = bytes([kind]) * (match.end() - match.start())
    table[:128] = bytes([WIDE_UNKNOWN]) * 128
    table[0xD800:0xE000] = bytes([WIDE_UNKNOWN]) * 0x800
    return bytes(table)
