"""The checked options and small pieces of :class:`~engine.encode.tokenizer.Tokenizer`: the specials'
finder, the merge tokens' builder, and the checks of byte fallback, whole pieces, the end-of-word
suffix and the subword prefix (moved out of engine/encode/tokenizer.py, which re-exports them)."""

from __future__ import annotations

import operator
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from engine.config import MAX_VOCAB, end_of_word_problem, subword_prefix_problem
from engine.errors import ConfigError

#: Up to this many special tokens are found with one regex alternation, longest first (the
#: standard ``re`` module's compile time grows with each special: docs/benchmarks.md); more (files
#: can hold as many as their size allows) are looked up in a set by :class:`_SpecialFinder`.
_ALTERNATION_LIMIT = 1000


class _Found:
    """One special token found in a text, answering as an ``re.Match`` does."""

    __slots__ = ("_start", "_end", "_text")

    def __init__(self, start: int, end: int, text: str) -> None:
        self._start, self._end, self._text = start, end, text

    def start(self) -> int:
        return self._start

    def end(self) -> int:
        return self._end

    def group(self, index: int = 0) -> str:
        return self._text


class _SpecialFinder:
    """Finds special tokens where a regex alternation of them, longest first, would (the leftmost
    one, and there the longest), but set up in time linear in their number: a character class of
    their first characters finds where one may start, then a set lookup per distinct length."""

    def __init__(self, specials: Iterable[str]) -> None:
        self._set = frozenset(specials)
        self._lengths = sorted({len(t) for t in self._set}, reverse=True)
        self._starts = re.compile("[" + "".join(re.escape(c) for c in sorted({t[0] for t in self._set})) + "]")

    def finditer(self, text: str) -> Iterator[_Found]:
        found, search, lengths = self._set, self._starts.search, self._lengths
        pos = 0
        while (start := search(text, pos)) is not None:
            at = start.start()
            for n in lengths:
                piece = text[at : at + n]  # shorter near the end: then the longest that fits
                if piece in found:
                    pos = at + len(piece)
                    yield _Found(at, pos, piece)
                    break
            else:
                pos = at + 1


def _grow(items: list[Any], lefts: Sequence[int], rights: Sequence[int]) -> None:
    """Append ``items[a] + items[b]`` for each merge ``(a, b)``, in order (each merge's parts are
    made before it: checked by the caller). Example: ``_grow(x := [1, 2], [0, 2], [1, 1])`` makes
    ``x == [1, 2, 3, 5]``.

    One C-level ``extend``: it adds each sum as the map yields it, so a later merge reads the
    sums before it (CPython's ``list.extend``). Where a list would not grow that way, a part is
    missing when read, and the plain loop does the work."""
    start = len(items)
    try:
        items.extend(map(operator.add, map(items.__getitem__, lefts), map(items.__getitem__, rights)))
    except IndexError:
        del items[start:]
        for a, b in zip(lefts, rights):
            items.append(items[a] + items[b])


def _by_text_options(alphabet: list[str] | None, byte_fallback: bool, text_ranks: Sequence[int] | None,
                     merges: int) -> tuple[bool, list[int] | None]:
    """The checked ``byte_fallback`` and ``text_ranks`` (chars base only)."""
    if not (byte_fallback or text_ranks is not None):
        return False, None
    if alphabet is None:
        raise ConfigError("byte fallback and merging by text are for the chars base")
    if byte_fallback and (len(alphabet) < 257 or alphabet[1:257] != BYTE_CHARS):
        raise ConfigError("byte fallback needs the 256 bytes as the alphabet's entries 1-256")
    if text_ranks is None:
        return bool(byte_fallback), None
    ranks = list(text_ranks)
    if len(ranks) != merges or not all(type(r) is int and r >= 0 for r in ranks):
        raise ConfigError("text_ranks gives each merge a rank (a whole number)")
    return bool(byte_fallback), ranks


#: The alphabet entries of the 256 bytes for ``byte_fallback`` (entries 1-256).
BYTE_CHARS = [chr(b) if b < 128 else chr(0xDC00 + b) for b in range(256)]
def _prefixed_base(prefix: str | None, pieces: list[bytes], whole: bool) -> tuple[str | None, list[bytes]]:
    """The checked ``subword_prefix`` and the base with it: each base token, then each again
    after the prefix."""
    if prefix is None:
        return None, pieces
    problem = subword_prefix_problem(prefix)
    if problem:
        raise ConfigError(problem)
    if whole:
        raise ConfigError("whole-piece lookup and a subword prefix do not go together")
    mark = prefix.encode("utf-8")
    return prefix, pieces + [mark + piece for piece in pieces]


def _marked_base(suffix: str | None, pieces: list[bytes], whole: bool) -> tuple[str | None, list[bytes]]:
    """The checked ``end_of_word`` suffix and the base with it: each base token, then each again
    with the suffix."""
    if suffix is None:
        return None, pieces
    problem = end_of_word_problem(suffix)
    if problem:
        raise ConfigError(problem)
    if whole:
        raise ConfigError("whole-piece lookup and an end-of-word suffix do not go together")
    mark = suffix.encode("utf-8")
    return suffix, pieces + [piece + mark for piece in pieces]


def unmark(text: str, suffix: str) -> str:
    """Decoded text with each end-of-word ``suffix`` made a space between words: none before
    whitespace or at the end. Example: ``unmark("a</w>photo</w> of</w>", "</w>") -> "a photo of"``"""
    marked = re.compile(re.escape(suffix) + r"(?=\s|\Z)")
    return marked.sub("", text).replace(suffix, " ")


def _whole_ranks(ranks: Sequence[int] | None, whole_pieces: list[bytes], merges: int) -> list[int] | None:
    """The checked ``whole_ranks``: one count of merges (0 to ``merges``) a whole piece."""
    if ranks is None:
        return None
    ranks = list(ranks)
    if len(ranks) != len(whole_pieces) or not all(type(r) is int and 0 <= r <= merges for r in ranks):
        raise ConfigError("whole_ranks gives each whole piece how many merges rank below it")
    return ranks


def _whole_pieces(base: str, whole_first: bool, whole_pieces: Sequence[bytes], first: int) -> tuple[bool, list[bytes]]:
    """The checked ``whole_first`` and ``whole_pieces`` of a tokenizer whose merges end before
    id ``first``."""
    pieces = list(whole_pieces)
    if not (whole_first or pieces):
        return False, []
    if base != "bytes":
        raise ConfigError("whole-piece lookup is for the bytes base")
    if not whole_first:
        raise ConfigError("whole pieces are tokens only the whole-piece lookup gives: they need whole_first")
    if not all(isinstance(p, bytes) and len(p) > 1 for p in pieces):
        raise ConfigError("a whole piece is the bytes of a token of at least two bytes")
    if len(set(pieces)) != len(pieces):
        raise ConfigError("a whole piece is given twice")
    if first + len(pieces) > MAX_VOCAB:
        raise ConfigError(f"too many tokens: {first} base tokens and merges and {len(pieces)} whole pieces (at most {MAX_VOCAB})")
    return True, pieces
