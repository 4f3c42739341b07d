"""Where every chunk occurrence sits in the corpus, so any stretch of it can be shown as tokens."""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine.text.pretokenize import PreTokenizer


@dataclass(frozen=True)
class CorpusLayout:
    """Chunk occurrences in text order: ``offsets[i]`` is where occurrence i starts (in base
    units: bytes of the UTF-8 text, or characters) and ``uids[i]`` which distinct chunk it is.

    ``size`` is the corpus length in base units. Built once per trainer, on first use: for a
    5 MB corpus it is two arrays of about a million entries.
    """

    offsets: array
    uids: array
    size: int

    @classmethod
    def build(
        cls, text: str, pretokenizer: PreTokenizer, chunks: Iterable[str], lengths: Sequence[int], base: str
    ) -> CorpusLayout:
        """Walk the corpus's chunks once more, in order, matching each to its distinct chunk."""
        index = {chunk: uid for uid, chunk in enumerate(chunks)}
        offsets = array("q")
        uids = array("i")
        add_offset, add_uid = offsets.append, uids.append
        unit = 0  # base units before the current chunk
        chars = 0  # characters before the current chunk
        for start, chunk in pretokenizer.positioned(text):
            if start != chars:  # characters no chunk covers (custom patterns may skip some)
                unit += _units(text[chars:start], base)
            uid = index[chunk]
            add_offset(unit)
            add_uid(uid)
            unit += lengths[uid]
            chars = start + len(chunk)
        unit += _units(text[chars:], base)
        return cls(offsets, uids, unit)

    def __len__(self) -> int:
        return len(self.offsets)


def _units(text: str, base: str) -> int:
    return len(text.encode("utf-8", "surrogateescape")) if base == "bytes" else len(text)
