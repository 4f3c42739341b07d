"""How :class:`~engine.encode.tokenizer.Tokenizer` makes its merges and their tokens: checked, ranked
and built from the merges given (a file's, a trainer's), or cut from a longer tokenizer's (a
replay's step). A mixin: the state it sets is the tokenizer's (moved out of engine/encode/tokenizer.py)."""

from __future__ import annotations

import operator
from collections.abc import Iterable, Sequence
from itertools import islice, repeat

from engine.config import MAX_VOCAB, MAX_VOCAB_BYTES
from engine.encode.pairs import SHIFT
from engine.encode.parts import _grow
from engine.errors import ConfigError, size_text


def too_many_bytes(merge_number: int, size: int) -> ConfigError:
    """The error for merge ``merge_number`` (1-based), whose token of ``size`` bytes takes the
    bytes of all tokens together past :data:`~engine.config.MAX_VOCAB_BYTES`."""
    return ConfigError(
        f"merge {merge_number} makes the tokens hold more than {size_text(MAX_VOCAB_BYTES)} in all, the most a "
        f"tokenizer may hold (that merge's token alone is {size_text(size)})"
    )


class TokenizerMerges:
    """The merges' part of :class:`~engine.encode.tokenizer.Tokenizer`: what __init__ calls to fill
    ``merges``, ``_ranks``, ``_left_of``, ``_right_of`` (and ``_continues``) and to get the tokens."""

    base: str
    base_size: int
    merges: list[tuple[int, int]]
    subword_prefix: str | None
    pieces: list[bytes]
    _ranks: dict[int, int]
    _left_of: list[int]
    _right_of: list[int]
    _continues: list[int] | None

    def _cut(self, longer: TokenizerMerges, count: int, base: str) -> tuple[list[bytes], int]:
        """``_cut_from``: the tokens and merges of ``longer``'s first ``count`` merges, already
        checked there, as slices of its own (its rank dict was filled in the merges' order)."""
        first = self.base_size
        if longer.base != base or longer.base_size != first:
            raise ValueError("a tokenizer is cut only from one with the same base")
        self._ranks.update(islice(longer._ranks.items(), count))
        self.merges = longer.merges[:count]
        self._left_of = longer._left_of[:first + count]
        self._right_of = longer._right_of[:first + count]
        if self._continues is not None and longer._continues is not None:
            self._continues = longer._continues[:first + count]
        return longer.pieces[:first + count], count

    def _built(self, pieces: list[bytes], merges: Iterable[Sequence[int]], _parts: tuple[list[int], list[int]] | None,
               _pieces: list[bytes] | None) -> tuple[list[bytes], int]:
        """The merges checked, ranked and their tokens built after the base ``pieces``:
        (every token's bytes, the number of merges); ConfigError (one line) for a merge that
        cannot be (a part made after it, a pair twice, tokens too many or too long)."""
        first = len(pieces)
        ranks = self._ranks
        if _parts is None:
            merges = list(merges)
            lefts = [a for a, _ in merges]
            rights = [b for _, b in merges]
        else:
            lefts, rights = _parts
        count = len(lefts)
        last = len(pieces) + count - 1  # the id the last merge makes
        if last >= MAX_VOCAB:
            raise ConfigError(f"too many tokens: {last + 1} base tokens and merges (at most {MAX_VOCAB})")
        # First the merges are checked and their tokens' lengths added up (integers only), so
        # that a file whose tokens would take gigabytes is refused before any token is built.
        made_by = range(first, first + count)
        # The usual case checked with C-level maps: ids that are ints, each made before the merge
        # that uses it, no pair twice. Anything else goes through the loop, which names the merge.
        if (set(map(type, lefts)) | set(map(type, rights)) <= {int} and min(lefts, default=0) >= 0
                and min(rights, default=0) >= 0 and all(map(operator.lt, lefts, made_by))
                and all(map(operator.lt, rights, made_by))):
            ranks.update(zip(map(operator.or_, map(operator.lshift, lefts, repeat(SHIFT)), rights), made_by))
        if len(ranks) != count:
            ranks.clear()
            for k, (a, b) in enumerate(zip(lefts, rights)):
                new_id = first + k
                key = a << SHIFT | b
                if not (0 <= a < new_id and 0 <= b < new_id) or key in ranks:
                    self._refuse(k, a, b, new_id, last)
                ranks[key] = new_id
        if self._continues is not None:
            self._continues_after(lefts, rights, first)
        if _pieces is not None and len(_pieces) == len(pieces) + count:
            lengths = list(map(len, _pieces))  # the caller's tokens, every one already built
        elif self.subword_prefix is not None:
            _pieces = None
            cut = len(self.subword_prefix.encode("utf-8"))
            lengths = list(map(len, pieces))
            for a, b in zip(lefts, rights):
                lengths.append(lengths[a] + lengths[b] - cut)
        else:
            _pieces = None
            lengths = list(map(len, pieces))
            _grow(lengths, lefts, rights)
        if sum(lengths) > MAX_VOCAB_BYTES:
            total = 0
            for k, size in enumerate(lengths):
                total += size
                if total > MAX_VOCAB_BYTES:
                    raise too_many_bytes(k - first + 1, size)
        self.merges = list(zip(lefts, rights))
        #: Each token's two parts by id (-1 for a base token): the walks of :meth:`_apart` and
        #: :meth:`_self_encodes` read them once a step.
        self._left_of = [-1] * first + lefts
        self._right_of = [-1] * first + rights
        if _pieces is not None:
            pieces = list(_pieces)
        elif self.subword_prefix is not None:
            cut = len(self.subword_prefix.encode("utf-8"))
            for a, b in zip(lefts, rights):  # the right part continues a word: its prefix goes
                pieces.append(pieces[a] + pieces[b][cut:])
        else:
            _grow(pieces, lefts, rights)
        return pieces, count

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
        earlier = self._ranks[a << SHIFT | b] - self.base_size + 1
        raise ConfigError(f"merge {k + 1} ({a}, {b}) repeats merge {earlier}")

    def _continues_after(self, lefts: Sequence[int], rights: Sequence[int], first: int) -> None:
        """Extend ``_continues`` over the merges (a token continues a word when its left part
        does); a merge whose right part starts a word is refused: no text puts it after another
        token, and tokenizers would build its token by cutting the prefix's bytes off it anyway."""
        continues = self._continues
        assert continues is not None and self.subword_prefix is not None
        for k, (a, b) in enumerate(zip(lefts, rights)):
            if not continues[b]:
                raise ConfigError(f"merge {k + 1} ({a}, {b}): its right part starts a word (it has no subword "
                                  f"prefix {self.subword_prefix!r}), so no text puts it after another token")
            continues.append(continues[a])
