"""The corpus as a :class:`~engine.train.trainer.Trainer` sees it: its base units (the marked twins
a word-end or continuing-subword mark makes at set-up) and, at any step, its tokens: where each
chunk occurrence sits (the layout), the spans of a stretch of text, frequencies and pair counts."""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable
from contextlib import AbstractContextManager

from engine.config import TrainConfig
from engine.encode.pairs import SHIFT
from engine.encode.tokenizer import Tokenizer
from engine.text.pretokenize import PreTokenizer
from engine.train.events import Merge
from engine.train.layout import CorpusLayout
from engine.train.pair_state import MergeRecord, PairState


def _mark_word_ends(
    seqs: list[tuple[list[int], int]], pieces: list[bytes], suffix: str,
) -> tuple[list[tuple[list[int], int]], list[bytes]]:
    """The base with each token again ending a word (``e`` and ``e</w>``), and every chunk's
    last unit as its marked twin (see :class:`~engine.encode.tokenizer.Tokenizer`'s ``end_of_word``)."""
    shift = len(pieces)
    for seq, _ in seqs:
        if seq:
            seq[-1] += shift
    mark = suffix.encode("utf-8")
    return seqs, pieces + [piece + mark for piece in pieces]


def _mark_continuations(
    seqs: list[tuple[list[int], int]], pieces: list[bytes], prefix: str,
) -> tuple[list[tuple[list[int], int]], list[bytes]]:
    """The base with each token again after a continuing-subword prefix (``b`` and ``##b``),
    and every chunk's units but the first as their prefixed twins (see
    :class:`~engine.encode.tokenizer.Tokenizer`'s ``subword_prefix``)."""
    shift = len(pieces)
    for seq, _ in seqs:
        if seq and seq[0] < 0:
            seq[0] = 0
        if len(seq) > 1:
            seq[1:] = [i + shift if i >= 0 else 0 for i in seq[1:]]
    mark = prefix.encode("utf-8")
    return seqs, pieces + [mark + piece for piece in pieces]


class TrainerCorpus:
    """The Trainer's corpus views (a mixin of :class:`~engine.train.trainer.Trainer`, which sets these)."""

    config: TrainConfig
    text: str
    pretokenizer: PreTokenizer
    base_size: int
    _state: PairState
    _pieces: list[bytes]
    _history: list[tuple[Merge, MergeRecord | None]]
    _chunks: Counter[str]
    _chunk_lengths: array
    _layout: CorpusLayout | None
    _replayed: Tokenizer | None
    _gc_paused: Callable[[], AbstractContextManager[None]]

    def pair_count(self, pair: tuple[int, int]) -> int:
        """Current weighted count of a pair (0 when absent).

        Pairs that can still be merged are looked up; rarer ones are counted afresh.
        """
        a, b = pair
        count = self._state.count.get(a << SHIFT | b)
        if count is not None:
            return count
        return self._state.pair_counts().get((a, b), 0)

    def pair_counts(self) -> dict[tuple[int, int], int]:
        """Every pair present now with its weighted count (counted afresh: O(corpus))."""
        return self._state.pair_counts()

    def sequences(self) -> list[tuple[int, ...]]:
        """The current token ids of every distinct chunk, in order of first appearance."""
        return self._state.sequences()

    def tie_count(self, count: int) -> int:
        """How many pairs that can still be merged have exactly this count now."""
        return self._state.ties(count)

    @property
    def unit(self) -> str:
        """What one base unit of the corpus is: ``bytes`` or ``chars`` (offsets below use it)."""
        return self.config.base

    def layout(self) -> CorpusLayout:
        """Where every chunk occurrence sits in the corpus (built on first use, then kept)."""
        if self._layout is None:
            if not self.text:
                raise ValueError("this trainer was given counted chunks, not the corpus text")
            with self._gc_paused():
                self._layout = CorpusLayout.build(
                    self.text, self.pretokenizer, self._chunks, self._chunk_lengths, self.config.base
                )
        return self._layout

    def listing(self, limit: int = 2000) -> str:
        """A text of the ``limit`` most frequent distinct chunks, one a line after its count
        (``      1,234 chunk``), which :meth:`spans` then reads instead of the corpus: how the
        app shows a trainer made from a chunk-count table (:meth:`from_counts`), which has no
        text. The counts and the newlines are text no chunk covers (no span)."""
        counts = list(self._chunks.values())
        chunks = list(self._chunks)
        order = sorted(range(len(chunks)), key=lambda uid: -counts[uid])[:limit]
        parts: list[str] = []
        offsets, uids = array("q"), array("i")
        unit = 0
        for uid in order:
            prefix = f"{counts[uid]:>12,} "
            own_line = chunks[uid].endswith("\n")  # the chunk ends its row itself
            parts += (prefix, chunks[uid], "" if own_line else "\n")
            offsets.append(unit + len(prefix))
            uids.append(uid)
            unit += len(prefix) + self._chunk_lengths[uid] + (0 if own_line else 1)
        self.text = "".join(parts)
        self._layout = CorpusLayout(offsets, uids, unit)
        return self.text

    def spans(self, start: int, end: int) -> list[tuple[int, int, int]]:
        """The current tokens overlapping corpus units [start, end), as (token id, start, end).

        Units are bytes (bytes base: offsets into the UTF-8 of the text) or characters. Text no
        chunk covers (a custom pattern may skip characters) has no span.

        In a replay of a file that looks a chunk up whole first (a tiktoken rank file), a chunk
        that is one of its tokens at this step is that token, as the file's library gives it:
        a merged token's id, or ``-1 - i`` for the file's whole piece ``i`` (its
        ``whole_pieces``: no merge makes those), once the step reaches its rank.
        """
        layout = self.layout()
        offsets, uids, lengths = layout.offsets, layout.uids, self._chunk_lengths
        i = max(bisect_right(offsets, start) - 1, 0)
        out: list[tuple[int, int, int]] = []
        chunk_spans = self._state.chunk_spans
        found = self._found_whole() if self._replayed is not None and self._replayed.whole_first else None
        fallback = self._replayed is not None and self._replayed.byte_fallback
        while i < len(offsets):
            base = offsets[i]
            if base >= end:
                break
            uid = uids[i]
            length = lengths[uid]
            if base + length > start:
                tid = found(uid) if found is not None and length > 1 else None
                if tid is not None:
                    out.append((tid, base, base + length))
                    i += 1
                    continue
                lo = start - base if start > base else 0
                hi = end - base if end - base < length else length
                if fallback:
                    out.extend(self._fallen_back(chunk_spans(uid, lo, hi), base))
                else:
                    out.extend((tid, base + s, base + e) for tid, s, e in chunk_spans(uid, lo, hi))
            i += 1
        return out

    def frequencies(self) -> list[int]:
        """How often each token id occurs in the corpus now (index = id; merged ids included)."""
        freq = self._state.frequencies()
        size = len(self._pieces)
        return freq[:size] + [0] * (size - len(freq[:size]))

    def frequency(self, token_id: int) -> int:
        """How often one token occurs in the corpus now."""
        freq = self._state.frequencies()
        return freq[token_id] if 0 <= token_id < min(len(freq), len(self._pieces)) else 0

    def born(self, token_id: int) -> Merge | None:
        """The merge that made this token (None for base tokens or tokens not made yet)."""
        index = token_id - self.base_size
        if 0 <= index < len(self._history):
            return self._history[index][0]
        return None

    def continues_word(self, token_id: int) -> bool:
        """Whether a token continues a word (``subword_prefix``: its left-most unit is a
        prefixed twin, so its bytes begin with the prefix as a mark); False without a prefix."""
        if self.config.subword_prefix is None or not 0 <= token_id < len(self._pieces):
            return False
        while token_id >= self.base_size:
            born = self.born(token_id)
            if born is None:
                return False
            token_id = born.pair[0]
        block = self.base_size // (2 if self.config.end_of_word is None else 4)
        return (token_id // block) % 2 == 1
