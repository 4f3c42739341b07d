"""The corpus as tokens: what the app shows of a Trainer's corpus at any step, read only.

Training never keeps the corpus as text: it keeps each *distinct* chunk once, with its count
(the pair state's node array, :mod:`engine.train.pair_state`). To show a stretch of the corpus
as tokens, :class:`CorpusTokens` needs one more thing, the *layout*
(:class:`~engine.train.layout.CorpusLayout`): where every occurrence of every chunk sits in the
text. It is built on first use by running the pre-tokenizer over the text once more. A span
lookup then finds the occurrences that overlap the stretch (a binary search) and asks the pair
state for each one's tokens now (:meth:`PairState.chunk_spans`). Frequencies, pair counts and
the chunks' token sequences come from the pair state as they are at the current step.

The view changes nothing the training reads. It also holds the set-up of the base units when a
word-end or continuing-subword mark is used (:func:`mark_word_ends`, :func:`mark_continuations`):
each base unit gets a marked twin, and the chunks' units are rewritten to the twins where the
mark applies, before the pair state is built.

Example::

    view = trainer.corpus
    view.spans(0, 10)      # [(token id, start, end), ...] over the first ten units
    view.frequencies()[5]  # how often token 5 occurs now
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections import Counter

from engine.encode.pairs import SHIFT
from engine.text.pretokenize import PreTokenizer
from engine.train.gc_pause import gc_paused
from engine.train.layout import CorpusLayout
from engine.train.pair_state import PairState
from engine.train.replay import ReplayedFile
from engine.train.timeline import Timeline


def mark_word_ends(
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


def mark_continuations(
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


class CorpusTokens:
    """A Trainer's corpus at its current step, as tokens. Its own state is the text (or the
    listing that stands for it), the layout once built, and the replayed file, if any."""

    def __init__(self, text: str, pretokenizer: PreTokenizer, chunks: Counter[str] | None, chunk_lengths: array[int],
                 base: str, state: PairState, timeline: Timeline) -> None:
        self.text = text
        self.pretokenizer = pretokenizer
        #: distinct chunk -> count, in layout order; let go once the layout is built from the
        #: text (the layout and the text then tell every chunk: tang_all's take 25 MB)
        self.chunks: Counter[str] | None = chunks
        self.chunk_lengths = chunk_lengths  # each distinct chunk's length in base units
        self.base = base
        self.state = state
        #: The merges applied now and the vocabulary they make (read here, never changed).
        self.timeline = timeline
        self.built_layout: CorpusLayout | None = None
        #: In a replay, the file (its whole-chunk lookup and byte fallback change the spans).
        self.replayed: ReplayedFile | None = None
        self.chunk_list: list[str] | None = None  # the distinct chunks by uid, for the lookup

    def pair_count(self, pair: tuple[int, int]) -> int:
        """Current weighted count of a pair (0 when absent).

        Pairs that can still be merged are looked up; rarer ones are counted afresh.
        """
        a, b = pair
        count = self.state.count.get(a << SHIFT | b)
        if count is not None:
            return count
        return self.state.pair_counts().get((a, b), 0)

    def layout(self) -> CorpusLayout:
        """Where every chunk occurrence sits in the corpus (built on first use, then kept)."""
        if self.built_layout is None:
            if not self.text:
                raise ValueError("this trainer was given counted chunks, not the corpus text")
            if self.chunks is None:  # (let go only once a layout was built)
                raise ValueError("the distinct chunks are gone and no layout was built")
            with gc_paused():
                self.built_layout = CorpusLayout.build(
                    self.text, self.pretokenizer, self.chunks, self.chunk_lengths, self.base
                )
            self.chunks = None
        return self.built_layout

    def chunk_texts(self) -> list[str]:
        """The distinct chunks by uid: the kept chunk table's, or (once the layout is built from
        the text) each read from the text where it first occurs."""
        if self.chunks is not None:
            return list(self.chunks)
        layout = self.layout()
        first: dict[int, int] = {}
        for offset, uid in zip(layout.offsets, layout.uids):
            if uid not in first:
                first[uid] = offset
        lengths = self.chunk_lengths
        if self.base != "bytes":
            text = self.text
            return [text[first[uid]:first[uid] + lengths[uid]] for uid in range(len(lengths))]
        raw = self.text.encode("utf-8", "surrogateescape")
        return [raw[first[uid]:first[uid] + lengths[uid]].decode("utf-8", "surrogateescape")
                for uid in range(len(lengths))]

    def listing(self, limit: int = 2000) -> str:
        """A text of the ``limit`` most frequent distinct chunks, one a line after its count,
        which :meth:`spans` then reads instead of the corpus (see
        :meth:`engine.train.trainer.Trainer.listing`)."""
        if self.chunks is None:
            raise ValueError("a listing stands for a chunk table, not a text whose layout is built")
        counts = list(self.chunks.values())
        chunks = list(self.chunks)
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
            unit += len(prefix) + self.chunk_lengths[uid] + (0 if own_line else 1)
        self.text = "".join(parts)
        self.built_layout = CorpusLayout(offsets, uids, unit)
        return self.text

    def spans(self, start: int, end: int) -> list[tuple[int, int, int]]:
        """The current tokens overlapping corpus units [start, end), as (token id, start, end)
        (see :meth:`engine.train.trainer.Trainer.spans`)."""
        layout = self.layout()
        offsets, uids, lengths = layout.offsets, layout.uids, self.chunk_lengths
        i = max(bisect_right(offsets, start) - 1, 0)
        out: list[tuple[int, int, int]] = []
        chunk_spans = self.state.chunk_spans
        replayed = self.replayed
        found = None
        if replayed is not None and replayed.tokenizer.whole_first:
            if self.chunk_list is None:
                self.chunk_list = self.chunk_texts()
            found = replayed.whole_chunk_lookup(self.timeline.steps, self.chunk_list)
        fallback = replayed is not None and replayed.tokenizer.byte_fallback
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
                if fallback and replayed is not None:
                    out.extend(replayed.byte_fallback_spans(chunk_spans(uid, lo, hi), base, self.text))
                else:
                    out.extend((tid, base + s, base + e) for tid, s, e in chunk_spans(uid, lo, hi))
            i += 1
        return out

    def frequencies(self) -> list[int]:
        """How often each token id occurs in the corpus now (index = id; merged ids included)."""
        freq = self.state.frequencies()
        size = len(self.timeline.pieces)
        return freq[:size] + [0] * (size - len(freq[:size]))

    def frequency(self, token_id: int) -> int:
        """How often one token occurs in the corpus now."""
        freq = self.state.frequencies()
        return freq[token_id] if 0 <= token_id < min(len(freq), len(self.timeline.pieces)) else 0
