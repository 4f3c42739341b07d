"""A tokenizer's vocabulary: what its ids stand for, and nothing about how text becomes them.

A vocabulary is built in layers, each numbered after the one before:

1. **Base units** (:class:`BaseUnits`): the 256 bytes, or an alphabet of characters (id 0 then
   stands for any character not in it). A unit may be marked: ``subword_prefix`` (``"##"``,
   HuggingFace's ``continuing_subword_prefix``) doubles the base with each unit after the prefix
   (``b``, then ``##b``), and ``end_of_word`` (``"</w>"``, CLIP and subword-nmt) with each unit
   ending a word (``b``, then ``b</w>``); both make four blocks. SentencePiece's byte fallback
   reads entries 1-256 of the alphabet as the 256 bytes (:data:`BYTE_CHARS`).
2. **Merges**: merge k joins two earlier ids into id ``base size + k``; its token is its parts'
   bytes joined (without the right part's prefix: ``a`` + ``##b`` = ``ab``).
3. **Whole pieces**: tokens no merge makes, which only a whole-chunk lookup gives (a tiktoken
   rank file's; Llama 3's has 695).
4. **Specials**: text found in the input before anything else, each one id.

Example::

    >>> v = Vocabulary(BaseUnits(), [(104, 105)], specials=["<eos>"])
    >>> v.pieces[256], v.specials, v.size
    (b'hi', {'<eos>': 257}, 258)

A vocabulary is checked when it is built (a merge of a part made after it, a pair twice, too
many tokens or bytes: :class:`~engine.errors.ConfigError`, one line). :meth:`Vocabulary.cut`
gives the vocabulary of its first merges from the checked lists, as slices: a replay's step.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Iterable, Iterator, Sequence
from functools import cached_property
from itertools import islice, repeat
from typing import Any, Protocol

from engine.config import (
    MAX_VOCAB,
    MAX_VOCAB_BYTES,
    end_of_word_problem,
    special_text_problem,
    subword_prefix_problem,
)
from engine.encode.pairs import SHIFT
from engine.errors import ConfigError, TokenIdError, size_text

#: The alphabet entries of the 256 bytes for byte fallback (entries 1-256): a byte below 128 is
#: its character, one from 128 on the surrogate escape of the byte (``chr(0xDC00 + b)``).
BYTE_CHARS = [chr(b) if b < 128 else chr(0xDC00 + b) for b in range(256)]

#: Up to this many special tokens are found with one regex alternation, longest first (the
#: standard ``re`` module's compile time grows with each special: docs/benchmarks.md); more (files
#: can hold as many as their size allows) are looked up in a set by :class:`SpecialFinder`.
ALTERNATION_LIMIT = 1000


# -- base units -------------------------------------------------------------------------------


class BaseUnits:
    """The first ids of a vocabulary: bytes or characters, maybe marked (see the module doc).

    ``ids(chunk)`` gives a chunk's units: its bytes, or its characters' ids (0 for one outside
    the alphabet, or its bytes' ids with ``byte_fallback``); with a prefix every unit but the
    first is its prefixed twin, with a suffix the last is its marked twin.

    Example: ``BaseUnits(subword_prefix="##").ids("ab") -> [97, 354]`` (354 = 256 + 98: ``##b``)
    """

    def __init__(self, base: str = "bytes", alphabet: Sequence[str] | None = None, *,
                 end_of_word: str | None = None, subword_prefix: str | None = None,
                 byte_fallback: bool = False) -> None:
        self.alphabet: list[str] | None
        self.char_ids: dict[str, int] = {}
        if base == "chars":
            if not alphabet:
                raise ConfigError("the chars base needs an alphabet")
            self.alphabet = list(alphabet)
            self.char_ids = {c: i for i, c in enumerate(self.alphabet)}
            try:
                pieces = [c.encode("utf-8", "surrogateescape") for c in self.alphabet]
            except (UnicodeEncodeError, AttributeError):
                raise ConfigError("the alphabet holds something that is not a character with UTF-8 bytes") from None
        elif base == "bytes":
            self.alphabet = None
            pieces = [bytes([i]) for i in range(256)]
        else:
            raise ConfigError(f"unknown base {base!r} (choose bytes or chars)")
        if byte_fallback and (self.alphabet is None or len(self.alphabet) < 257 or self.alphabet[1:257] != BYTE_CHARS):
            raise ConfigError("byte fallback needs the 256 bytes as the alphabet's entries 1-256 (the chars base)")
        self.base = base
        self.byte_fallback = bool(byte_fallback)
        self.subword_prefix = subword_prefix
        if subword_prefix is not None:
            problem = subword_prefix_problem(subword_prefix)
            if problem:
                raise ConfigError(problem)
            mark = subword_prefix.encode("utf-8")
            pieces = pieces + [mark + piece for piece in pieces]
        self.end_of_word = end_of_word
        if end_of_word is not None:
            problem = end_of_word_problem(end_of_word)
            if problem:
                raise ConfigError(problem)
            mark = end_of_word.encode("utf-8")
            pieces = pieces + [piece + mark for piece in pieces]
        if (subword_prefix is not None or end_of_word is not None) and byte_fallback:
            raise ConfigError("marked units and SentencePiece's byte fallback do not go together")
        self.pieces: list[bytes] = pieces
        self.size = len(pieces)
        #: With a prefix: how many units a block holds (a unit's prefixed twin is that many ids
        #: on), and per unit whether it continues a word (it is prefixed).
        self.block = 0
        self.continues: list[int] | None = None
        if subword_prefix is not None:
            block = self.block = len(pieces) // (2 if end_of_word is None else 4)
            self.continues = ([0] * block + [1] * block) * (1 if end_of_word is None else 2)

    @property
    def marked(self) -> bool:
        """Whether units carry a prefix or suffix: a token's bytes are then not its chunk's."""
        return self.subword_prefix is not None or self.end_of_word is not None

    def same(self, other: BaseUnits) -> bool:
        """Whether ``other`` numbers the same units the same way."""
        return (self.base, self.alphabet, self.end_of_word, self.subword_prefix, self.byte_fallback) == (
            other.base, other.alphabet, other.end_of_word, other.subword_prefix, other.byte_fallback)

    def ids(self, chunk: str) -> list[int]:
        """The units of one chunk (see the class doc)."""
        if self.alphabet is None:
            ids = list(chunk.encode("utf-8", "surrogateescape"))
        else:
            get = self.char_ids.get
            if not self.byte_fallback:
                ids = [get(c, 0) for c in chunk]
            else:
                ids = [get(c, -1) for c in chunk]
                if -1 in ids:  # byte fallback: a character outside the alphabet is its bytes' ids
                    out: list[int] = []
                    for c, i in zip(chunk, ids):
                        if i < 0:
                            out.extend(1 + b for b in c.encode("utf-8", "surrogateescape"))
                        else:
                            out.append(i)
                    ids = out
        if self.subword_prefix is not None and len(ids) > 1:
            block = self.block  # every unit but the first continues the word: its prefixed twin
            if self.alphabet is None:
                ids[1:] = [i + block for i in ids[1:]]
            else:  # (a character outside the alphabet stays id 0, as tokenizers' unk_token)
                get = self.char_ids.get
                ids[1:] = [0 if get(c) is None else i + block for c, i in zip(chunk[1:], ids[1:])]
        if self.end_of_word is not None and ids and not (ids[-1] == 0 and self.block and self.alphabet is not None
                                                         and chunk[-1] not in self.char_ids):
            ids[-1] += self.size // 2  # the chunk's last unit ends a word: its marked twin
        return ids


# -- specials ---------------------------------------------------------------------------------


class Match(Protocol):
    """What a finder of specials yields: where one starts and ends, and its text."""

    def start(self) -> int: ...
    def end(self) -> int: ...
    def group(self, index: int = 0) -> str: ...


class Finder(Protocol):
    """Finds special tokens in a text, as a compiled alternation's ``finditer`` does."""

    def finditer(self, text: str) -> Iterator[Any]: ...


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


class SpecialFinder:
    """Finds special tokens where a regex alternation of them, longest first, would (the leftmost
    one, and there the longest), but set up in time linear in their number: a character class of
    their first characters finds where one may start, then a set lookup per distinct length."""

    def __init__(self, specials: Iterable[str]) -> None:
        self._specials = frozenset(specials)
        self._lengths = sorted({len(t) for t in self._specials}, reverse=True)
        self._starts = re.compile("[" + "".join(re.escape(c) for c in sorted({t[0] for t in self._specials})) + "]")

    def finditer(self, text: str) -> Iterator[_Found]:
        found, search, lengths = self._specials, self._starts.search, self._lengths
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


def special_finder(specials: Iterable[str]) -> Finder | None:
    """A finder of ``specials`` (None for none): one alternation, longest first, or for very many
    a :class:`SpecialFinder`."""
    texts = list(specials)
    if not texts:
        return None
    if len(texts) > ALTERNATION_LIMIT:
        return SpecialFinder(texts)
    return re.compile("|".join(re.escape(t) for t in sorted(texts, key=len, reverse=True)))


# -- merges -----------------------------------------------------------------------------------


def grow(items: list[Any], lefts: Sequence[int], rights: Sequence[int]) -> None:
    """Append ``items[a] + items[b]`` for each merge ``(a, b)``, in order (each merge's parts are
    made before it: checked by the caller). Example: ``grow(x := [1, 2], [0, 2], [1, 1])`` makes
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


def too_many_bytes(merge_number: int, size: int) -> ConfigError:
    """The error for merge ``merge_number`` (1-based), whose token of ``size`` bytes takes the
    bytes of all tokens together past :data:`~engine.config.MAX_VOCAB_BYTES`."""
    return ConfigError(
        f"merge {merge_number} makes the tokens hold more than {size_text(MAX_VOCAB_BYTES)} in all, the most a "
        f"tokenizer may hold (that merge's token alone is {size_text(size)})"
    )


class Vocabulary:
    """Base units, merges, whole pieces and specials (see the module doc), checked.

    ``pieces`` is every unit's and merge's token's bytes, by id; ``whole_pieces`` follow them,
    then ``specials`` (text -> id). ``ranks`` maps a merge's pair, packed ``a << SHIFT | b``, to
    the id it makes (in the merges' order); ``left_of`` and ``right_of`` give each token's two
    parts (-1 for a unit).
    """

    def __init__(self, units: BaseUnits, merges: Iterable[Sequence[int]] = (), *,
                 whole_pieces: Sequence[bytes] = (), specials: Sequence[str] = ()) -> None:
        merges = list(merges)
        self._build(units, [a for a, _ in merges], [b for _, b in merges], None)
        self._finish(whole_pieces, specials)

    @classmethod
    def from_parts(cls, units: BaseUnits, lefts: list[int], rights: list[int], *, tokens: list[bytes] | None = None,
                   whole_pieces: Sequence[bytes] = (), specials: Sequence[str] = ()) -> Vocabulary:
        """The vocabulary of merges given as a list of left and a list of right ids (a file
        loader's). ``tokens``, every token's bytes, units first, spares building them: from a
        caller that checked each merge's token is its two parts joined (the merges themselves
        are checked all the same)."""
        vocab = cls.__new__(cls)
        vocab._build(units, lefts, rights, tokens)
        vocab._finish(whole_pieces, specials)
        return vocab

    def cut(self, steps: int, *, whole_pieces: Sequence[bytes] = (), specials: Sequence[str] | None = None) -> Vocabulary:
        """This vocabulary after its first ``steps`` merges (a replay's step): its lists, already
        checked, cut as slices (its rank dict was filled in the merges' order), with the whole
        pieces given (those ranked among the first merges) and its specials or those given."""
        if not 0 <= steps <= len(self.merges):
            raise ValueError(f"a vocabulary of {len(self.merges)} merges is cut after 0 to {len(self.merges)} of them")
        vocab = Vocabulary.__new__(Vocabulary)
        vocab.units = units = self.units
        first = units.size
        vocab.base_size = first
        vocab.ranks = dict(islice(self.ranks.items(), steps))
        vocab.merges = self.merges[:steps]
        vocab.left_of = self.left_of[:first + steps]
        vocab.right_of = self.right_of[:first + steps]
        vocab.continues = self.continues[:first + steps] if self.continues is not None else None
        vocab.pieces = self.pieces[:first + steps]
        vocab._finish(whole_pieces, list(self.specials) if specials is None else specials)
        return vocab

    # -- building ----------------------------------------------------------------------------

    def _build(self, units: BaseUnits, lefts: list[int], rights: list[int], tokens: list[bytes] | None) -> None:
        """The merges checked, ranked and their tokens built after the units: ConfigError (one
        line) for a merge that cannot be (a part made after it, a pair twice, tokens too many or
        too long)."""
        self.units = units
        pieces = list(units.pieces)
        first = self.base_size = len(pieces)
        count = len(lefts)
        last = first + count - 1  # the id the last merge makes
        if last >= MAX_VOCAB:
            raise ConfigError(f"too many tokens: {last + 1} base tokens and merges (at most {MAX_VOCAB})")
        # First the merges are checked and their tokens' lengths added up (integers only), so
        # that a file whose tokens would take gigabytes is refused before any token is built.
        made_by = range(first, first + count)
        # The usual case checked with C-level maps: ids that are ints, each made before the merge
        # that uses it, no pair twice. Anything else goes through the loop, which names the merge.
        from engine.native.door import backend  # (the door imports this room)

        usual = backend().parts_in_order(lefts, rights, first)
        if not (usual and tokens is not None and len(tokens) == first + count and len(set(tokens)) == len(tokens)):
            ranks: dict[int, int] = {}
            self.ranks = ranks
            if usual:
                ranks.update(zip(map(operator.or_, map(operator.lshift, lefts, repeat(SHIFT)), rights), made_by))
            if len(ranks) != count:
                ranks.clear()
                for k, (a, b) in enumerate(zip(lefts, rights)):
                    new_id = first + k
                    key = a << SHIFT | b
                    if not (0 <= a < new_id and 0 <= b < new_id) or key in ranks:
                        self._refuse(k, a, b, new_id, last)
                    ranks[key] = new_id
        # Else the caller's tokens (from_parts), each its merge's two parts joined, are distinct:
        # so are the pairs. The dict of pairs is then made at first need (:attr:`ranks`); the
        # compiled core's encoder reads the parts' lists instead, and a load spares its making.
        self.continues = None if units.continues is None else self._continues_after(units.continues, lefts, rights)
        prefix = units.subword_prefix
        cut = len(prefix.encode("utf-8")) if prefix is not None else 0
        if tokens is not None and len(tokens) == first + count:
            lengths = list(map(len, tokens))  # the caller's tokens, every one already built
        elif prefix is not None:
            tokens = None
            lengths = list(map(len, pieces))
            for a, b in zip(lefts, rights):
                lengths.append(lengths[a] + lengths[b] - cut)
        else:
            tokens = None
            lengths = list(map(len, pieces))
            grow(lengths, lefts, rights)
        if sum(lengths) > MAX_VOCAB_BYTES:
            total = 0
            for k, size in enumerate(lengths):
                total += size
                if total > MAX_VOCAB_BYTES:
                    raise too_many_bytes(k - first + 1, size)
        #: Each token's two parts by id (-1 for a unit): the merge-rule model's walks read them.
        self.left_of: list[int] = [-1] * first + lefts
        self.right_of: list[int] = [-1] * first + rights
        if tokens is not None:
            pieces = list(tokens)
        elif prefix is not None:
            for a, b in zip(lefts, rights):  # the right part continues a word: its prefix goes
                pieces.append(pieces[a] + pieces[b][cut:])
        else:
            grow(pieces, lefts, rights)
        self.pieces: list[bytes] = pieces

    def _refuse(self, k: int, a: int, b: int, new_id: int, last: int) -> None:
        """Raise the error for merge ``k`` (0-based), ``(a, b)``, which refers to an id it may not
        use or repeats an earlier merge."""
        where = f"merge {k + 1} ({a}, {b})"
        if not (0 <= a < new_id and 0 <= b < new_id):
            if a == new_id or b == new_id:
                raise ConfigError(f"{where} refers to the id it makes itself ({new_id})")
            bad = a if not 0 <= a < new_id else b
            if new_id < bad <= last:
                raise ConfigError(f"{where} refers to id {bad}, which only a later merge makes")
            raise ConfigError(f"{where} refers to id {bad}, outside the vocabulary (0-{last})")
        earlier = self.ranks[a << SHIFT | b] - self.base_size + 1
        raise ConfigError(f"merge {k + 1} ({a}, {b}) repeats merge {earlier}")

    def _continues_after(self, units: list[int], lefts: Sequence[int], rights: Sequence[int]) -> list[int]:
        """Whether each token continues a word (its left part does); a merge whose right part
        starts a word is refused: no text puts it after another token, and tokenizers would
        build its token by cutting the prefix's bytes off it anyway."""
        continues = list(units)
        for k, (a, b) in enumerate(zip(lefts, rights)):
            if not continues[b]:
                raise ConfigError(f"merge {k + 1} ({a}, {b}): its right part starts a word (it has no subword "
                                  f"prefix {self.units.subword_prefix!r}), so no text puts it after another token")
            continues.append(continues[a])
        return continues

    def _finish(self, whole_pieces: Sequence[bytes], specials: Sequence[str]) -> None:
        """The whole pieces and specials, checked, after the merges."""
        pieces = list(whole_pieces)
        if pieces:
            if self.units.base != "bytes" or self.units.marked:
                raise ConfigError("whole pieces are for the bytes base without marks")
            if not all(isinstance(p, bytes) and len(p) > 1 for p in pieces):
                raise ConfigError("a whole piece is the bytes of a token of at least two bytes")
            if len(set(pieces)) != len(pieces):
                raise ConfigError("a whole piece is given twice")
            if len(self.pieces) + len(pieces) > MAX_VOCAB:
                raise ConfigError(f"too many tokens: {len(self.pieces)} base tokens and merges and {len(pieces)} "
                                  f"whole pieces (at most {MAX_VOCAB})")
        self.whole_pieces: list[bytes] = pieces
        first_special = len(self.pieces) + len(pieces)
        self.specials: dict[str, int] = {}
        for token in specials:
            if not isinstance(token, str) or not token:
                raise ConfigError("a special token must be non-empty text")
            if token in self.specials:
                raise ConfigError(f"special token {token!r} is given twice")
            problem = special_text_problem(token)  # decode and every file write it as UTF-8
            if problem:
                raise ConfigError(problem)
            self.specials[token] = first_special + len(self.specials)
        if first_special + len(self.specials) > MAX_VOCAB:
            raise ConfigError(f"too many tokens: {len(self.pieces)} base tokens and merges and "
                              f"{len(self.specials)} specials (at most {MAX_VOCAB})")
        self.special_of: dict[int, str] = {i: t for t, i in self.specials.items()}
        self.finder: Finder | None = special_finder(self.specials)

    @cached_property
    def merges(self) -> list[tuple[int, int]]:
        """Each merge's two parts, in order (made at first need)."""
        first = self.base_size
        return list(zip(self.left_of[first:], self.right_of[first:]))

    @cached_property
    def ranks(self) -> dict[int, int]:
        """Each merge's pair, packed ``a << SHIFT | b``, -> the id it makes, in the merges' order
        (made here at first need when the build could spare it, see :meth:`_build`)."""
        first = self.base_size
        lefts, rights = self.left_of[first:], self.right_of[first:]
        return dict(zip(map(operator.or_, map(operator.lshift, lefts, repeat(SHIFT)), rights),
                        range(first, first + len(lefts))))

    # -- reading -----------------------------------------------------------------------------

    @property
    def size(self) -> int:
        """Units + merges + whole pieces + specials."""
        return len(self.pieces) + len(self.whole_pieces) + len(self.specials)

    def token_bytes(self, token_id: int) -> bytes:
        """The bytes of a token (a special's text as UTF-8)."""
        if 0 <= token_id < len(self.pieces):
            return self.pieces[token_id]
        if 0 <= token_id - len(self.pieces) < len(self.whole_pieces):
            return self.whole_pieces[token_id - len(self.pieces)]
        if token_id in self.special_of:
            return self.special_of[token_id].encode("utf-8")
        raise TokenIdError(f"token id {token_id} is out of range (vocabulary size {self.size})")

    def rank(self, pair: tuple[int, int]) -> int | None:
        """The id a merge of ``pair`` makes, or None when no merge rule covers it."""
        return self.ranks.get(pair[0] << SHIFT | pair[1])

    def continues_word(self, token_id: int) -> bool:
        """Whether token ``token_id`` continues a word (a prefix vocabulary's ``##ab``)."""
        continues = self.continues
        return continues is not None and 0 <= token_id < len(continues) and bool(continues[token_id])
