"""The rule-by-rule walkthrough of :class:`~engine.encode.tokenizer.Tokenizer` (seed 003 §11.4):
:meth:`Traces.encode_trace` and the chunks' base ids it starts from. A mixin: the state it
reads is the tokenizer's (moved out of engine/encode/tokenizer.py)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from engine.encode.pairs import SHIFT, merge

#: encode_trace refuses longer texts: the walkthrough is for reading, not for corpora.
TRACE_LIMIT = 2000


@dataclass(frozen=True)
class TraceStep:
    """One rule firing during :meth:`Tokenizer.encode_trace` (seed 003 §11.4).

    ``rule`` is the merge's 1-based position in the learned order, ``pair`` and ``new_id`` the
    rule itself, ``places`` how many times it fired, ``tokens`` the segmentation after it.
    """

    rule: int
    pair: tuple[int, int]
    new_id: int
    places: int
    tokens: tuple[int, ...]


class Traces:
    """:meth:`encode_trace` and :meth:`pieces_of` of :class:`~engine.encode.tokenizer.Tokenizer`."""

    # the tokenizer's state these methods read (set by Tokenizer.__init__)
    merges: list[tuple[int, int]]
    base_size: int
    specials: dict[str, int]
    whole_first: bool
    whole_ranks: list[int] | None
    text_ranks: list[int] | None
    pretokenizer: Any
    _special_re: Any
    _special_of: dict[int, str]
    _ranks: dict[int, int]
    _merge_chunk: Any
    _base_ids: Any  # these five are Tokenizer's or ChunkEncoders' methods
    normalize: Any
    whole_piece: Any
    _encode_whole_first: Any
    _encode_by_text: Any
    decode_bytes: Any

    def pieces_of(self, text: str) -> list[tuple[int, ...]]:
        """Base ids of each chunk of ``text`` (special tokens as one-id chunks)."""
        if self._special_re is None:
            parts = [(text, False)]
        else:
            parts, start = [], 0
            for match in self._special_re.finditer(text):
                parts.append((text[start : match.start()], False))
                parts.append((match.group(0), True))
                start = match.end()
            parts.append((text[start:], False))
        out: list[tuple[int, ...]] = []
        for part, special in parts:
            if special:
                out.append((self.specials[part],))
            else:
                part = self.normalize(part)
                out.extend(tuple(self._base_ids(c)) for c in self.pretokenizer.split(part))
        return out

    def encode_trace(self, text: str) -> tuple[tuple[int, ...], list[TraceStep]]:
        """The rule-by-rule walkthrough of seed 003 §11.4, for short texts.

        Returns the starting segmentation and one step per rule that fired, in learned order:
        each names the rule, how often it fired and the segmentation after it. The final
        segmentation always equals :meth:`encode`.
        """
        if len(text) > TRACE_LIMIT:
            raise ValueError(f"encode_trace is for short texts (at most {TRACE_LIMIT} characters)")
        chunks = [list(c) for c in self.pieces_of(text)]
        if self.whole_first:  # a chunk that is a whole token starts as it (no rule fires in it)
            for i, c in enumerate(chunks):
                if max(c, default=256) >= 256:
                    continue  # a special
                token = self.whole_piece(bytes(c))
                if token is not None:
                    chunks[i] = [token]
                elif self.whole_ranks is not None:  # merged by rank: where rules would differ, its result
                    ids = self._encode_whole_first(bytes(c).decode("utf-8", "surrogateescape"))
                    if ids != self._merge_chunk(list(c)):
                        chunks[i] = ids
        if self.text_ranks is not None:  # merged by text: where rules would differ, its result
            for i, c in enumerate(chunks):
                if len(c) == 1 and c[0] in self._special_of:
                    continue
                ids = self._encode_by_text(self.decode_bytes(c).decode("utf-8", "surrogateescape"))
                if ids != self._merge_chunk(list(c)):
                    chunks[i] = ids
        start = tuple(i for c in chunks for i in c)
        steps: list[TraceStep] = []
        while True:
            present = {r for c in chunks for r in self._chunk_ranks(c)}
            if not present:
                break
            new_id = min(present)
            pair = self.merges[new_id - self.base_size]
            places = 0
            for i, c in enumerate(chunks):
                merged = merge(c, pair, new_id)
                places += len(c) - len(merged)
                chunks[i] = merged
            tokens = tuple(i for c in chunks for i in c)
            steps.append(TraceStep(new_id - self.base_size + 1, pair, new_id, places, tokens))
        return start, steps

    def _chunk_ranks(self, chunk: list[int]) -> Iterable[int]:
        get = self._ranks.get
        for a, b in zip(chunk, chunk[1:]):
            r = get(a << SHIFT | b)
            if r is not None:
                yield r
