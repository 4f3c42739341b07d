"""The engine's two hot loops behind one interface, in two implementations: pure Python (the
reference, and the default wherever no compiler was found at install) and the compiled core
``engine.native.compiled`` (Cython, built by ``pip install`` when it can be: see ``hatch_build.py``).

- :func:`chunk_encoders`: one chunk's base ids -> its ids under a tokenizer's merge ranks
  (and :func:`bytes_merger`: the same from a bytes-base chunk's bytes).
- :func:`merge`: the trainer's merge loop over the pair state's node array and the count
  changes it makes (:meth:`engine.train.pair_state.PairState.merge`).
- :func:`layout` and :func:`index_pairs`: the pair state's node array, and its first count and
  occurrence index, in one pass each (compiled: the counts in a C table, ``engine.native.compiled.Counts``,
  which also makes the lowest-ids queue, ``engine.native.compiled.Queue``).
- :func:`text_coder`: a whole text's ids under the gpt2 or gpt4 split, the split and the chunk
  cache in C (the pure twin: :meth:`engine.text.pretokenize.PreTokenizer.split` and the tokenizer's
  chunk cache).
- :func:`split_points`: where tiktoken's merging cuts each token of a rank file (recovering its
  merges, :mod:`engine.formats.tiktoken_bpe`), and :func:`rank_merger`: that merging of a piece
  (a rank file with whole pieces encodes by it).

The pure twins are :func:`engine.encode.apply_merges.apply_merges`, :mod:`engine.train.loops` and
:func:`engine.encode.tiktoken_merge.split_points`.

Both give identical results (tests/engine/test_core.py checks them against each other and the naive
references). ``BPE_LAB_PURE=1`` in the environment forces the pure path; so does a compiled
module built from another version of its source (an editable install whose ``.pyx`` changed
since: ``pip install -e .`` again builds it anew).
"""

from __future__ import annotations

import hashlib
import importlib
import os
from array import array
from collections.abc import Callable
from functools import partial
from pathlib import Path
from types import ModuleType

from engine.encode import apply_merges as _codec
from engine.encode import tiktoken_merge as _rankmerge
from engine.train import loops as _trainloops

#: The environment variable that forces the pure-Python path.
PURE_ENV = "BPE_LAB_PURE"
SOURCE = Path(__file__).with_name("compiled.pyx")


def source_digest(text: bytes) -> str:
    """What a compiled core records of the source it was built from (hatch_build.py does the same)."""
    return hashlib.sha256(text).hexdigest()[:16]


def _load() -> tuple[ModuleType | None, str]:
    """The compiled core and why not (empty when it is used)."""
    if os.environ.get(PURE_ENV, "").strip() not in ("", "0"):
        return None, f"{PURE_ENV} is set"
    try:  # a compiled module has no source for tests/test_import_hygiene.py's graph: imported by name
        _ccore = importlib.import_module(f"{__package__}.compiled")
    except ImportError:
        return None, "not built (no compiler at install, or the build failed)"
    try:
        current = source_digest(SOURCE.read_bytes())
    except OSError:
        current = None  # an installed copy ships only the compiled module
    if current is not None and current != getattr(_ccore, "BUILT_FROM", None):
        return None, "built from another version of engine/native/compiled.pyx (run pip install -e . again)"
    return _ccore, ""


_compiled, WHY_PURE = _load()
#: Whether the compiled core is in use.
COMPILED = _compiled is not None


def implementation() -> str:
    """``compiled`` or ``pure (why)``: for ``bpe-lab --version``-style reports and benchmarks."""
    return "compiled" if COMPILED else f"pure ({WHY_PURE})"


def chunk_encoders(ranks: dict[int, int], pieces: list[bytes] | None = None,
                   borders: Callable[[], _codec.Borders] | None = None) -> tuple[
        Callable[[list[int]], list[int]], Callable[[str], list[int]] | None]:
    """For ``ranks`` (``a << SHIFT | b`` -> the id the merge makes; it must not change
    afterwards): a function from one chunk's base ids to its ids (the earliest-learned merge
    first; the ids given are not changed), and, with the compiled core, one from a chunk's
    text to its ids under the bytes base (None on the pure path, where the tokenizer reads
    whole tokens off first). With the bytes base's tokens ``pieces``, the text's three-byte
    characters are merged one by one first where they can be (as
    :class:`engine.encode.apply_merges.ByteMerger` does; its :class:`engine.encode.apply_merges.Borders` are worked out
    at the first such chunk, or given by ``borders``, a longer vocabulary's)."""
    if _compiled is not None:
        encoder = _compiled.ChunkEncoder(ranks)
        if pieces is not None:
            encoder.set_chars(lambda: (borders() if borders is not None else _codec.Borders(pieces)).tables())
        return encoder.encode, encoder.encode_text
    return partial(_codec.apply_merges, ranks=ranks), None


def bytes_merger(
    ranks: dict[int, int], pieces: list[bytes], merge_chunk: Callable[[list[int]], list[int]],
    borders: Callable[[], _codec.Borders] | None = None,
) -> Callable[[str, bytes], list[int]]:
    """A bytes-base chunk's text and bytes -> its ids, for ``ranks``, the tokens' bytes
    ``pieces`` and the chunk encoder :func:`chunk_encoders` made for them: the pure path's
    :class:`engine.encode.apply_merges.ByteMerger` (a table of byte pairs, and characters that no merge can
    join merged one by one; ``borders``: see :func:`chunk_encoders`), or the compiled encoder
    over the bytes."""
    if _compiled is not None:
        return lambda chunk, data: merge_chunk(list(data))
    return _codec.ByteMerger(ranks, pieces, borders)


def _by_place(order: dict[bytes, int]) -> bool:
    """Whether each token's rank is its place in ``order`` (what the compiled merge needs)."""
    return list(order.values()) == list(range(len(order)))


def rank_merger(order: dict[bytes, int]) -> Callable[[bytes], list[bytes]]:
    """tiktoken's merging of one piece under ``order`` (bytes -> rank; it must not change
    afterwards): :func:`engine.encode.tiktoken_merge.rank_merge` bound to it, or with the compiled core
    ``engine.native.compiled.RankMerger`` (its loop in C, a C table of the tokens' bytes) when the ranks
    are the tokens' places in ``order`` (as a tokenizer's rank order makes them)."""
    pure = partial(_rankmerge.rank_merge, order=order)
    if _compiled is None or not _by_place(order):
        return pure
    merge = _compiled.RankMerger(list(order)).merge

    def merged(piece: bytes) -> list[bytes]:
        parts = merge(piece)
        return parts if parts is not None else pure(piece)  # (a piece of 16 MB or more)

    return merged


class RankIds:
    """:func:`rank_merger`'s parts as ids (``ids``: bytes -> id, holding every part merging can
    give: each byte and each token of ``order``), called with a piece. With the compiled core
    one C call (``merger.merge_ids`` with the id arrays ``ranked`` and ``single``, which
    :func:`text_coder` hands to the whole-text encoder); else, and where it gives up, the
    parts of the pure merging looked up one by one. ``analysis``: see
    :class:`engine.encode.tiktoken_merge.CharsFirst`."""

    __slots__ = ("chars_first", "ids", "merger", "pure", "ranked", "single")

    def __init__(self, order: dict[bytes, int], ids: dict[bytes, int],
                 analysis: Callable[[], object] | None = None) -> None:
        self.ids = ids
        self.pure = partial(_rankmerge.rank_merge, order=order)
        self.chars_first = _rankmerge.CharsFirst(order, analysis)  # type: ignore[arg-type]
        self.merger = _compiled.RankMerger(list(order)) if _compiled is not None and _by_place(order) else None
        if self.merger is not None:
            self.merger.set_chars(self.chars_first.tables)
        self.ranked = array("i", [ids.get(token, -1) for token in order]) if self.merger is not None else None
        self.single = array("i", [ids.get(bytes([b]), -1) for b in range(256)]) if self.merger is not None else None

    def __call__(self, piece: bytes) -> list[int]:
        if self.merger is not None:
            out = self.merger.merge_ids(piece, self.ranked, self.single)
            if out is not None:
                return out
        ids = self.ids
        parts = self.chars_first(piece)  # a piece of Chinese, say: its characters first
        return [ids[part] for part in (parts if parts is not None else self.pure(piece))]


def _layout(pairs: list) -> tuple:
    """The compiled layout, or the pure one where it gives up (a weight beyond 63 bits, symbols
    neither lists nor bytes): the pure one then builds it or says what is wrong."""
    made = _ccore_module.layout(pairs)  # type: ignore[union-attr]
    return made if made is not None else _trainloops.layout(pairs)


def text_coder(findall: Callable, mode: int, encode: Callable[[str], list[int]], ids: int, limit: int,
               by_rank: tuple[RankIds, dict[bytes, int]] | None = None) -> object | None:
    """With the compiled core: a whole text -> its ids in one C-level pass (``engine.native.compiled.TextCoder``:
    the gpt2, gpt4 or o200k split (``mode`` 0, 1, 2: ``engine.text.pretokenize.SCAN_MODES``), whose
    pattern's ``findall`` it is given, and a C table of the chunks
    met), each new chunk encoded by ``encode`` (or merged in C when ``encode`` is a compiled
    chunk encoder's ``encode_text``, or when ``by_rank`` is a :class:`RankIds` and the whole
    pieces, bytes -> id, that ``encode`` looks a chunk up in first); ``ids`` token ids,
    ``limit`` chunks kept at most. None on the pure path, whose twin is the pre-tokenizer's split
    and the tokenizer's chunk cache."""
    if _compiled is None:
        return None
    if by_rank is not None and by_rank[0].merger is not None:
        rank, whole = by_rank
        return _compiled.TextCoder(findall, mode, missing=encode, ids=ids, limit=limit, rank=rank.merger,
                                   whole=whole, ranked=rank.ranked, single=rank.single)
    merger = getattr(encode, "__self__", None)
    if isinstance(merger, _compiled.ChunkEncoder) and encode == merger.encode_text:
        return _compiled.TextCoder(findall, mode, merger=merger, ids=ids, limit=limit)
    return _compiled.TextCoder(findall, mode, missing=encode, ids=ids, limit=limit)


def select(compiled: bool) -> bool:
    """Use the compiled core (when it is here) or the pure path from now on, for tokenizers and
    pair states made after this (for tests and benchmarks that run both in one process);
    returns whether the compiled core is now in use."""
    global COMPILED, merge, layout, index_pairs, split_points
    use = _ccore_module if compiled else None
    globals()["_compiled"] = use
    COMPILED = use is not None
    merge = use.merge if use is not None else _trainloops.merge
    layout = _layout if use is not None else _trainloops.layout
    index_pairs = use.index_pairs if use is not None else _trainloops.index_pairs
    split_points = use.split_points if use is not None else _rankmerge.split_points
    return COMPILED


_ccore_module = _compiled
merge: Callable = _trainloops.merge
layout: Callable = _trainloops.layout
index_pairs: Callable = _trainloops.index_pairs
split_points: Callable = _rankmerge.split_points
select(_compiled is not None)
