"""How a long text is scanned by a named pattern, in regions and pieces (moved out of
engine/text/pretokenize.py, which uses and re-exports them): regions cut where every named pattern
ends a chunk, the ASCII ones for the pattern's standard-library twin and the rest for the
pattern itself; and pieces of a long stretch, so that the list of all its chunks never exists
at once."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

_PIECE = 1 << 20  # characters per piece when counting a large text
_MARGIN = 4096  # matches ending this close to a piece's end are scanned again with the next
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
#: A safe cut: just after a newline followed by printable ASCII (:func:`engine.corpus.reading._last_cut`
#: says why every named pattern ends a chunk there); the last one before a point, the next one.
_LAST_CUT = re.compile(r"(?s:.*)\n[\x21-\x7e]")
_NEXT_CUT = re.compile(r"\n[\x21-\x7e]")
#: The safe cuts (last before a point, next after one) of each fast path's regions: o200k's
#: ``[\r\n/]*`` carries a run of punctuation on past its newlines and slashes, so a newline
#: before ``/`` is no cut there.
CUTS = {
    "gpt2": (_LAST_CUT, _NEXT_CUT),
    "gpt4": (_LAST_CUT, _NEXT_CUT),
    "o200k": (re.compile(r"(?s:.*)\n[\x21-\x2e\x30-\x7e]"), re.compile(r"\n[\x21-\x2e\x30-\x7e]")),
}


def _regions(text: str, cuts: tuple[re.Pattern[str], re.Pattern[str]] = (_LAST_CUT, _NEXT_CUT)) -> Iterator[tuple[int, int, bool]]:
    """``(start, end, ascii)`` regions covering ``text`` in order, each ending at a safe cut (or
    the text's end): the ASCII ones hold only ASCII, the character after them included.

    Code is nearly all ASCII, with a few lines that are not (a name, a quote, an arrow): the
    ASCII regions can be scanned with a named pattern's standard-library twin, which is twice
    as fast as the ``regex`` module, and only the regions around the other characters with the
    pattern itself. Each character is looked at a bounded number of times (C-level searches).
    """
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


def _region(compiled: Any, exact: Any, text: str, start: int, end: int) -> Iterator[list[str]]:
    """The chunks of the region ``text[start:end]`` (see :func:`_regions`) by ``compiled``, a batch
    at a time. A region ending before the text's end ends at a safe cut: it is scanned with the
    character after it (the patterns look one ahead), which comes back as a chunk of its own
    and is dropped. ``exact``: the pattern itself, for what cannot happen."""
    n = len(text)
    if end == n:
        yield from _scan(compiled, text, start, n)
        return
    held = None
    for batch in _scan(compiled, text, start, end + 1):
        if held is not None:
            yield held
        held = batch
    if not held or held[-1] != text[end]:  # pragma: no cover - a safe cut always ends a chunk
        yield from _scan(exact, text, start, n)
        return
    held.pop()
    yield held


def _scan(compiled: Any, text: str, start: int, stop: int) -> Iterator[list[str]]:
    """A named pattern's chunks of ``text[start:stop]`` (scanned as if the text ended at ``stop``),
    a batch at a time: a long stretch is scanned a piece at a time, so the list of all its chunks
    (over a hundred megabytes for 10 MB of text) never exists at once. The named patterns match
    every character, and to choose a match they look past it at most one character or as far as
    the next match goes (o200k: ``ʰ`` before ``HTTP``, cut before an ``s``, is a chunk of its
    own; with the ``s`` it starts ``ʰHTTPServer``), so a match followed by another that ends well
    before a piece's end is exactly the match a whole scan makes there."""
    if stop - start <= 2 * _PIECE:
        yield compiled.findall(text, start, stop)  # the named patterns never match an empty string
        return
    pos = start
    while pos < stop:
        end = pos + _PIECE
        if end >= stop:
            yield compiled.findall(text, pos, stop)
            return
        chunks = compiled.findall(text, pos, end)
        if sum(map(len, chunks)) != end - pos:  # pragma: no cover - named patterns cover all
            yield compiled.findall(text, pos, stop)
            return
        reach = end - pos
        keep = len(chunks)
        while keep and reach > _PIECE - _MARGIN:
            keep -= 1
            reach -= len(chunks[keep])
        if keep:  # and the match before the first dropped: it may have looked as far as that one went
            keep -= 1
            reach -= len(chunks[keep])
        if keep == 0:  # one match spans the whole piece: finish in one go
            yield compiled.findall(text, pos, stop)
            return
        del chunks[keep:]
        yield chunks
        pos += reach
