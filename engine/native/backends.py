"""The two backends behind :mod:`engine.native.door`: :class:`PureBackend` (the pure twins in
``engine.train.loops``, ``engine.encode.apply_merges`` and ``engine.encode.tiktoken_merge``: the
reference) and :class:`CompiledBackend` (the same loops in the compiled core,
``engine.native.compiled``, built from ``compiled.pyx`` and its stages ``train.pxi``,
``encode.pxi``, ``scan.pxi`` by ``hatch_build.py``). Both give identical results
(tests/engine/test_core.py checks them against each other and the naive references).

The compiled backend's glue, which the pure path has no use for: :mod:`engine.native.borders`
(Chinese merged character by character first) and :mod:`engine.native.scan_regions` (which
stretches of a text its ASCII scanners take).
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, MutableMapping, Sequence
from functools import partial
from types import ModuleType
from typing import Any, Protocol

from engine.encode import apply_merges as _codec
from engine.encode import recovered as _recovered
from engine.encode import tiktoken_merge as _rankmerge
from engine.native import char_classes, scan_regions
from engine.native.borders import Borders, SharedBorders
from engine.native.chars_first import CharsFirst
from engine.native.scan_regions import Pattern, wide_classes
from engine.train import loops as _trainloops

#: One chunk's base ids -> its ids under a tokenizer's merge ranks.
ChunkEncode = Callable[[list[int]], list[int]]
#: One chunk's text -> its ids (the bytes base: the text's UTF-8 bytes merged).
TextEncode = Callable[[str], list[int]]
#: Gives the borders of a vocabulary's tokens (:class:`engine.native.borders.Borders`), made once.
MakeBorders = Callable[[], Borders]
#: A pattern's ``findall(text, start, end)``.
Findall = Callable[[str, int, int], list[str]]
#: What the pair state hands the merge loop with its counts: ``(key, count, first) -> entry``.
MakeEntry = Callable[[int, int, int], int]
#: A chunk's ids from a chunk list of pairs: ``(sequence, weight)``, a sequence of ids or bytes.
Chunks = Sequence[tuple[Sequence[int], int]]
#: The chars base laid out from counted chunks: ``(alphabet, data, starts, tokens, lengths)``.
CharsLayout = tuple[list[str], "array[int]", "array[int]", int, "array[int]"]
#: The bytes base laid out from counted chunks: ``(data, starts, tokens, lengths)``.
BytesLayout = tuple["array[int]", "array[int]", int, "array[int]"]


class Merges(Protocol):
    """What a chunk encoder reads of a vocabulary (:class:`engine.encode.vocabulary.Vocabulary`):
    its merges as a dict (pair key -> id: the pure path's) or as each token's two parts (the
    compiled core's, which then needs no dict)."""

    base_size: int
    left_of: list[int]
    right_of: list[int]

    @property
    def ranks(self) -> dict[int, int]: ...


class RankIds:
    """tiktoken's merging of a piece under ``order`` (bytes -> rank), its parts as ids (``ids``:
    bytes -> id, holding every part merging can give: each byte and each token of ``order``).
    With the compiled core's ``RankMerger`` (``merger``, given when the ranks are the tokens'
    places in ``order``) one C call (``merger.merge_ids`` with the id arrays ``ranked`` and
    ``single``, which the whole-text encoder takes too); else, and where it gives up, the parts
    of the pure merging looked up one by one. ``analysis``: see
    :class:`engine.native.chars_first.CharsFirst`."""

    __slots__ = ("chars_first", "ids", "merger", "pure", "ranked", "single")

    def __init__(self, order: dict[bytes, int], ids: dict[bytes, int],
                 analysis: Callable[[], object] | None = None, merger: Any = None) -> None:
        self.ids = ids
        self.pure = partial(_rankmerge.rank_merge, order=order)
        self.chars_first = CharsFirst(order, analysis)  # type: ignore[arg-type]
        self.merger = merger
        self.ranked: array[int] | None = None
        self.single: array[int] | None = None
        if merger is not None:
            merger.set_chars(self.chars_first.tables)
            self.ranked = array("i", [ids.get(token, -1) for token in order])
            self.single = array("i", [ids.get(bytes([b]), -1) for b in range(256)])

    def __call__(self, piece: bytes) -> list[int]:
        if self.merger is not None:
            out: list[int] | None = self.merger.merge_ids(piece, self.ranked, self.single)
            if out is not None:
                return out
        ids = self.ids
        parts = self.chars_first(piece)  # a piece of Chinese, say: its characters first
        return [ids[part] for part in (parts if parts is not None else self.pure(piece))]


class PureBackend:
    """The hot loops in pure Python: the readable reference."""

    name = "pure"
    compiled = False

    def layout(self, pairs: Chunks) -> tuple[array[int], array[int], int]:
        """The pair state's node array, chunk starts and token count (:func:`engine.train.loops.layout`)."""
        return _trainloops.layout(pairs)  # type: ignore[arg-type]

    def layout_chars(self, chunks: dict[str, int], alphabet: Sequence[str] | None) -> CharsLayout:
        """The chars base's alphabet and layout from the counted chunks (:func:`engine.train.loops.layout_chars`)."""
        return _trainloops.layout_chars(chunks, alphabet)

    def layout_bytes(self, chunks: dict[str, int]) -> BytesLayout:
        """The bytes base's layout from the counted chunks (:func:`engine.train.loops.layout_bytes`)."""
        return _trainloops.layout_bytes(chunks)

    def index_pairs(self, data: array[int], floor: int) -> tuple[MutableMapping[int, int], dict[int, array[int]]]:
        """The first pair index: counts and occurrence arrays (:func:`engine.train.loops.index_pairs`)."""
        return _trainloops.index_pairs(data, floor)

    def merge(self, data: array[int], plist: array[int], a: int, b: int, new_id: int, count: MutableMapping[int, int],
              hist: MutableMapping[int, int], where: dict[int, array[int]], heap: Any, floor: int, front: list[Any] | None,
              entry: MakeEntry | None) -> tuple[int, int, array[int]]:
        """One merge of the pair state (:func:`engine.train.loops.merge`)."""
        return _trainloops.merge(data, plist, a, b, new_id, count, hist, where, heap, floor, front, entry)  # type: ignore[arg-type]

    def run_steps(self, state: tuple[Any, ...], log: tuple[Any, ...], limit: int, cap: int, want: int,
                  min_frequency: int, pieces: list[bytes], mark: int, known_bytes: int, max_bytes: int, step: int,
                  kept: list[tuple[array[int], array[int], int]] | None,
                  work: tuple[int, int] = (-1, 0)) -> tuple[int, str | None, int, int, Any] | None:
        """None: the pure path's steps are the Trainer's, one at a time (the reference)."""
        return None

    def border_tables(self, pieces: Sequence[bytes]) -> MakeBorders | None:
        """None: the pure path merges a chunk's bytes as they are."""
        return None

    def chunk_encoders(self, merges: Merges,
                       borders: MakeBorders | None = None) -> tuple[ChunkEncode, TextEncode | None]:
        """:func:`engine.encode.apply_merges.apply_merges` bound to the merges' ``ranks``, and no
        encoder by text (the tokenizer reads whole tokens off first)."""
        return partial(_codec.apply_merges, ranks=merges.ranks), None

    def parts_in_order(self, lefts: list[int], rights: list[int], first: int) -> bool:
        """:func:`engine.encode.recovered.parts_in_order`."""
        return _recovered.parts_in_order(lefts, rights, first)

    def recovered_parts(self, base_ids: list[int | None], products: list[int], left_ranks: list[int],
                        right_ranks: list[int], tokens: list[bytes | None]) -> tuple[list[int], list[int], list[bytes]] | None:
        """:func:`engine.encode.recovered.recovered_parts`."""
        return _recovered.recovered_parts(base_ids, products, left_ranks, right_ranks, tokens)

    def rank_merger(self, order: dict[bytes, int]) -> Callable[[bytes], list[bytes]]:
        """:func:`engine.encode.tiktoken_merge.rank_merge` bound to ``order``."""
        return partial(_rankmerge.rank_merge, order=order)

    def rank_ids(self, order: dict[bytes, int], ids: dict[bytes, int],
                 analysis: Callable[[], object] | None = None) -> RankIds:
        """:class:`RankIds` of the pure merging."""
        return RankIds(order, ids, analysis)

    def text_coder(self, findall: Findall, mode: int, encode: TextEncode, ids: int, limit: int,
                   by_rank: tuple[RankIds, dict[bytes, int]] | None = None) -> Any:
        """None: the pure twin is the pre-tokenizer's split and the tokenizer's chunk cache."""
        return None

    def split_points(self, tokens: list[bytes], progress: Callable[[int, int], None] | None = None,
                     budget: int | None = _rankmerge.RECOVERY_BUDGET) -> Sequence[int]:
        """:func:`engine.encode.tiktoken_merge.split_points`."""
        return _rankmerge.split_points(tokens, progress, budget=budget)

    def inline_ranks(self, ranks: str) -> tuple[dict[bytes, int], int, int] | None:
        """None: ``engine.formats.rank_json.inline_ranks`` reads them line by line."""
        return None

    def split_text(self, text: str, mode: int, pattern: Pattern) -> list[str] | None:
        """None: the pure path splits with the pattern alone."""
        return None

    def split_batches(self, text: str, mode: int, pattern: Pattern) -> Iterator[list[str]] | None:
        """None: the pure path scans with the pattern alone, a piece at a time."""
        return None

    def count_text(self, counts: Counter[str], text: str, mode: int, pattern: Pattern) -> bool:
        """False: the pure path counts the pattern's chunks itself."""
        return False

    def add_counts(self, into: Counter[str], part: Mapping[str, int]) -> None:
        """``into.update(part)``."""
        into.update(part)

    def ids_text(self, ids: list[int], table: Sequence[int | None] | None) -> str | None:
        """None: the caller writes the ids out from its table of each id's text."""
        return None


def _by_place(order: dict[bytes, int]) -> bool:
    """Whether each token's rank is its place in ``order`` (what the compiled merge needs)."""
    return list(order.values()) == list(range(len(order)))


class CompiledBackend:
    """The hot loops in the compiled core ``core`` (the module ``engine.native.compiled``; tests
    of the core itself reach its classes as ``COMPILED.core``)."""

    name = "compiled"
    compiled = True

    def __init__(self, core: ModuleType) -> None:
        self.core: Any = core

    def layout(self, pairs: Chunks) -> tuple[array[int], array[int], int]:
        """The compiled layout, or the pure one where it gives up (a weight beyond 63 bits, symbols
        neither lists nor bytes): the pure one then builds it or says what is wrong."""
        made: tuple[array[int], array[int], int] | None = self.core.layout(pairs)
        return made if made is not None else _trainloops.layout(pairs)  # type: ignore[arg-type]

    def layout_chars(self, chunks: dict[str, int], alphabet: Sequence[str] | None) -> CharsLayout:
        """The chars base's layout read from the chunks' strings in C (no list of ids a chunk),
        or the pure one where it gives up (see ``layout_chars`` in layout.pxi)."""
        made: CharsLayout | None = self.core.layout_chars(chunks, alphabet)
        return made if made is not None else _trainloops.layout_chars(chunks, alphabet)

    def layout_bytes(self, chunks: dict[str, int]) -> BytesLayout:
        """The bytes base's layout read from the chunks' strings in C (no bytes object a chunk),
        or the pure one where it gives up (see ``layout_bytes`` in layout.pxi)."""
        made: BytesLayout | None = self.core.layout_bytes(chunks)
        return made if made is not None else _trainloops.layout_bytes(chunks)

    def index_pairs(self, data: array[int], floor: int) -> tuple[MutableMapping[int, int], dict[int, array[int]]]:
        """The first pair index, its counts in a C table (``Counts``, a dict's interface, which
        also makes the lowest-ids queue, ``Queue``)."""
        made: tuple[MutableMapping[int, int], dict[int, array[int]]] = self.core.index_pairs(data, floor)
        return made

    def merge(self, data: array[int], plist: array[int], a: int, b: int, new_id: int, count: MutableMapping[int, int],
              hist: MutableMapping[int, int], where: dict[int, array[int]], heap: Any, floor: int, front: list[Any] | None,
              entry: MakeEntry | None) -> tuple[int, int, array[int]]:
        """One merge of the pair state in one C pass (relink, then account)."""
        done: tuple[int, int, array[int]] = self.core.merge(data, plist, a, b, new_id, count, hist, where, heap,
                                                            floor, front, entry)
        return done

    def run_steps(self, state: tuple[Any, ...], log: tuple[Any, ...], limit: int, cap: int, want: int,
                  min_frequency: int, pieces: list[bytes], mark: int, known_bytes: int, max_bytes: int, step: int,
                  kept: list[tuple[array[int], array[int], int]] | None,
                  work: tuple[int, int] = (-1, 0)) -> tuple[int, str | None, int, int, Any] | None:
        """The steps in one C loop (engine/native/steps.pxi): ``state`` is the pair state's
        ``(data, where, count, hist, heap, floor, front, tokens)``, ``log`` the event log's
        ``(wide, narrow, ties, tokens)``, ``work`` the checkpoints' budget and a merge's work."""
        ran: tuple[int, str | None, int, int, Any] = self.core.run_steps(
            *state, limit, cap, want, min_frequency, pieces, mark, known_bytes, max_bytes, step, *log, kept, *work)
        return ran

    def border_tables(self, pieces: Sequence[bytes]) -> MakeBorders | None:
        """The borders of a bytes-base vocabulary's tokens ``pieces``, made at the first chunk
        of Chinese that needs them (:class:`engine.native.borders.SharedBorders`)."""
        return SharedBorders(pieces, self.core.border_holders)

    def chunk_encoders(self, merges: Merges,
                       borders: MakeBorders | None = None) -> tuple[ChunkEncode, TextEncode | None]:
        """A ``ChunkEncoder``'s ``encode`` (base ids -> ids) and ``encode_text`` (a bytes-base
        chunk's text -> ids). With the ``borders`` of a bytes-base vocabulary (this one's or a
        longer one's, :meth:`border_tables`), a chunk of three-byte characters is merged
        character by character first where that is exact (:mod:`engine.native.borders`)."""
        encoder = self.core.ChunkEncoder((merges.left_of, merges.right_of, merges.base_size))  # no dict of pairs
        if borders is not None:
            encoder.set_chars(lambda: borders().tables())
        return encoder.encode, encoder.encode_text

    def parts_in_order(self, lefts: list[int], rights: list[int], first: int) -> bool:
        """The core's ``parts_in_order`` (one loop in C)."""
        return bool(self.core.parts_in_order(lefts, rights, first))

    def recovered_parts(self, base_ids: list[int | None], products: list[int], left_ranks: list[int],
                        right_ranks: list[int], tokens: list[bytes | None]) -> tuple[list[int], list[int], list[bytes]] | None:
        """The core's ``recovered_parts`` (one pass in C, the joins compared with memcmp)."""
        found: tuple[list[int], list[int], list[bytes]] | None = self.core.recovered_parts(
            base_ids, products, left_ranks, right_ranks, tokens)  # the cache's lists, as they are
        return found

    def rank_merger(self, order: dict[bytes, int]) -> Callable[[bytes], list[bytes]]:
        """``RankMerger``'s merge (its loop in C, a C table of the tokens' bytes) when the ranks
        are the tokens' places in ``order`` (as a tokenizer's rank order makes them), else the
        pure merging; the pure one too for a piece of 16 MB or more."""
        pure = partial(_rankmerge.rank_merge, order=order)
        if not _by_place(order):
            return pure
        merge = self.core.RankMerger(list(order)).merge

        def merged(piece: bytes) -> list[bytes]:
            parts: list[bytes] | None = merge(piece)
            return parts if parts is not None else pure(piece)

        return merged

    def rank_ids(self, order: dict[bytes, int], ids: dict[bytes, int],
                 analysis: Callable[[], object] | None = None) -> RankIds:
        """:class:`RankIds` with a ``RankMerger`` when the ranks are places."""
        return RankIds(order, ids, analysis, self.core.RankMerger(list(order)) if _by_place(order) else None)

    def text_coder(self, findall: Findall, mode: int, encode: TextEncode, ids: int, limit: int,
                   by_rank: tuple[RankIds, dict[bytes, int]] | None = None) -> Any:
        """A whole text -> its ids in one C-level pass (``TextCoder``: the gpt2, gpt4 or o200k
        split, ``mode`` 0, 1, 2 of ``engine.text.pretokenize.SCAN_MODES``, whose pattern's
        ``findall`` it is given, and a C table of the chunks met), each new chunk encoded by
        ``encode`` (or merged in C when ``encode`` is a compiled chunk encoder's
        ``encode_text``, or when ``by_rank`` is a :class:`RankIds` and the whole pieces, bytes
        -> id, that ``encode`` looks a chunk up in first); ``ids`` token ids, ``limit`` chunks
        kept at most. Past ASCII it scans runs of Chinese and its like itself where every
        pattern surely ends their chunks (:func:`engine.native.scan_regions.wide_classes`), the
        rest with the pattern."""
        core = self.core
        if by_rank is not None and by_rank[0].merger is not None:
            rank, whole = by_rank
            return core.TextCoder(findall, mode, missing=encode, ids=ids, limit=limit, rank=rank.merger,
                                  whole=whole, ranked=rank.ranked, single=rank.single, classes=wide_classes)
        merger = getattr(encode, "__self__", None)
        if isinstance(merger, core.ChunkEncoder) and encode == merger.encode_text:
            return core.TextCoder(findall, mode, merger=merger, ids=ids, limit=limit, classes=wide_classes)
        return core.TextCoder(findall, mode, missing=encode, ids=ids, limit=limit, classes=wide_classes)

    def split_points(self, tokens: list[bytes], progress: Callable[[int, int], None] | None = None,
                     budget: int | None = _rankmerge.RECOVERY_BUDGET) -> Sequence[int]:
        """``split_points`` in C (the same cuts as the pure one, by the same steps: its shortcut's
        constants are the pure module's, and it stops where the pure one does, with TooCostly)."""
        try:
            cuts: Sequence[int] = self.core.split_points(tokens, progress, shortcut_from=_rankmerge.SHORTCUT_FROM,
                                                         walk_bytes=_rankmerge.WALK_BYTES, budget=budget)
        except self.core.OverBudget as exc:
            raise _rankmerge.TooCostly(*exc.args) from None
        return cuts

    def inline_ranks(self, ranks: str) -> tuple[dict[bytes, int], int, int] | None:
        """npm tiktoken's inline ranks in one C pass (``inline_ranks`` in ``encode.pxi``): each
        token in canonical base64; None for anything else, which the pure reader then reads."""
        read: tuple[dict[bytes, int], int, int] | None = self.core.inline_ranks(ranks)
        return read

    def split_text(self, text: str, mode: int, pattern: Pattern) -> list[str] | None:
        """The chunks of a gpt2, gpt4 or o200k text (``mode``), its ASCII regions split in C
        (``split_ascii``: one string per distinct chunk, shared by its occurrences), the rest by
        ``pattern`` (:func:`engine.native.scan_regions.scan_text`); None for a short text that
        is not all ASCII."""
        chunks: list[str] = []
        return chunks if scan_regions.scan_text(self.core.split_ascii, chunks, text, mode, pattern, list.extend) else None

    def split_batches(self, text: str, mode: int, pattern: Pattern) -> Iterator[list[str]] | None:
        """The chunks :meth:`split_text` gives, a batch at a time (an ASCII region in pieces of
        about a megabyte: :func:`engine.native.scan_regions.split_batches`)."""
        return scan_regions.split_batches(self.core.split_ascii, text, mode, pattern)

    def count_text(self, counts: Counter[str], text: str, mode: int, pattern: Pattern) -> bool:
        """The chunks of such a text counted into ``counts``, its ASCII regions in C
        (``count_ascii``: no string made per occurrence, only per distinct chunk); under gpt2 a
        text that is not all ASCII all of it in C (``count_gpt2``, with its characters' classes
        by :mod:`engine.native.char_classes`); else False, nothing counted, for a short text
        that is not all ASCII."""
        if mode == 0 and not text.isascii():
            self.core.count_gpt2(counts, text, char_classes.classes(self.core.distinct_chars(text)))
            return True
        return scan_regions.scan_text(self.core.count_ascii, counts, text, mode, pattern, Counter.update)

    def add_counts(self, into: Counter[str], part: Mapping[str, int]) -> None:
        """``into.update(part)`` in C (``add_counts`` in ``count.pxi``) when both are dicts."""
        if isinstance(part, dict):
            self.core.add_counts(into, part)
        else:
            into.update(part)

    def ids_text(self, ids: list[int], table: Sequence[int | None] | None) -> str | None:
        """``ids`` mapped through ``table`` and written out in decimal, separated by spaces, in one
        C pass; None where it cannot (an id outside the table, or mapped to None)."""
        text: str | None = self.core.ids_text(ids, table)
        return text
