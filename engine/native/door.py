"""The one door to the engine's hot loops: a :class:`Backend`, pure Python or the compiled core,
chosen once, when this module is first imported, and asked for with :func:`backend` where a loop
is needed (a pair state, a tokenizer, a pre-tokenizer's scan, a rank file's recovery).

- ``BPE_LAB_PURE=1`` in the environment chooses the pure path; so does a compiled module built
  from another version of its source (an editable install whose ``.pyx`` changed since:
  ``pip install -e .`` again builds it anew), and a missing one (no C compiler at install).
- :data:`PURE` is always here; :data:`COMPILED` is the compiled backend, or None (:data:`WHY_PURE`
  says why); :data:`BACKEND` is the one chosen.
- :func:`using` hands out another backend for a ``with`` block (tests and benchmarks that run
  both paths in one process): what is made in it (a tokenizer's chunk encoders, a pair state's
  loops) keeps that backend. Nothing is rewritten: the choice is a context variable.

The method set, by stage (:class:`Backend`): training (``layout``, ``layout_chars``, ``layout_bytes``, ``index_pairs``,
``merge``), encoding (``border_tables``, ``chunk_encoders``, ``rank_merger``, ``rank_ids``,
``text_coder``, ``split_points``, ``inline_ranks``), loading (``parts_in_order``, ``recovered_parts``), splitting and
writing (``split_text``, ``split_batches``, ``count_text``, ``ids_text``). The two implementations
are in :mod:`engine.native.backends`; the compiled one's glue in
:mod:`engine.native.borders` (Chinese merged character by character first) and
:mod:`engine.native.scan_regions` (which stretches of a text its scanners take).
"""

from __future__ import annotations

import importlib
import os
from array import array
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, MutableMapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Protocol

from engine.native import sources
from engine.native.backends import (
    BytesLayout,
    CharsLayout,
    ChunkEncode,
    Chunks,
    CompiledBackend,
    Findall,
    MakeBorders,
    MakeEntry,
    Merges,
    PureBackend,
    RankIds,
    TextEncode,
)
from engine.native.scan_regions import Pattern

#: The environment variable that forces the pure-Python path.
PURE_ENV = "BPE_LAB_PURE"


class Backend(Protocol):
    """The hot loops, by stage, as the engine asks for them (see the module doc)."""

    @property
    def name(self) -> str:
        """``compiled`` or ``pure``."""

    @property
    def compiled(self) -> bool:
        """Whether this is the compiled core."""

    # -- training (engine.train.pair_state) ------------------------------------------------------

    def layout(self, pairs: Chunks) -> tuple[array[int], array[int], int]:
        """The pair state's node array, chunk starts and token count, from ``(ids, weight)`` chunks."""

    def layout_chars(self, chunks: dict[str, int], alphabet: Sequence[str] | None) -> CharsLayout:
        """The chars base's alphabet, layout and chunk lengths, from the counted chunks themselves."""

    def layout_bytes(self, chunks: dict[str, int]) -> BytesLayout:
        """The bytes base's layout and chunk lengths, from the counted chunks themselves."""

    def index_pairs(self, data: array[int], floor: int) -> tuple[MutableMapping[int, int], dict[int, array[int]]]:
        """The first pair index of a layout: {pair key: count}, {pair key: addresses} (counts >= ``floor``)."""

    def merge(self, data: array[int], plist: array[int], a: int, b: int, new_id: int, count: MutableMapping[int, int],
              hist: MutableMapping[int, int], where: dict[int, array[int]], heap: Any, floor: int, front: list[Any] | None,
              entry: MakeEntry | None) -> tuple[int, int, array[int]]:
        """One merge of (a, b) into ``new_id``: (the pair's count before, extra weight, absorbed nodes)."""

    def run_steps(self, state: tuple[Any, ...], log: tuple[Any, ...], limit: int, cap: int, want: int,
                  min_frequency: int, pieces: list[bytes], mark: int, known_bytes: int, max_bytes: int, step: int,
                  kept: list[tuple[array[int], array[int], int]] | None,
                  work: tuple[int, int] = (-1, 0)) -> tuple[int, str | None, int, int, Any] | None:
        """Up to ``limit`` lowest-ids steps in one loop (:meth:`engine.train.pair_state.PairState.run`),
        or None on a path without one (the pure path steps one at a time)."""

    # -- encoding (engine.encode, engine.formats) ------------------------------------------------

    def border_tables(self, pieces: Sequence[bytes]) -> MakeBorders | None:
        """What the backend reads of a bytes-base vocabulary's tokens to merge Chinese character
        by character first, made at first need and shared with a replay's steps; or None."""

    def chunk_encoders(self, merges: Merges,
                       borders: MakeBorders | None = None) -> tuple[ChunkEncode, TextEncode | None]:
        """A chunk's base ids -> its ids under the ``merges`` (a vocabulary), and a bytes-base
        chunk's text -> its ids (or None); ``borders``: :meth:`border_tables` of its vocabulary or
        a longer one."""

    def parts_in_order(self, lefts: list[int], rights: list[int], first: int) -> bool:
        """Whether merge ``k`` of ``(lefts[k], rights[k])`` uses only ids made before it (``first + k``):
        ints, at least 0 (a vocabulary's usual case, checked at once)."""

    def recovered_parts(self, base_ids: list[int | None], products: list[int], left_ranks: list[int],
                        right_ranks: list[int], tokens: list[bytes | None]) -> tuple[list[int], list[int], list[bytes]] | None:
        """A merge cache entry in bpe-lab's ids, checked against the rank file's tokens by rank
        (:func:`engine.encode.recovered.recovered_parts`), or None."""

    def rank_merger(self, order: dict[bytes, int]) -> Callable[[bytes], list[bytes]]:
        """tiktoken's merging of one piece under ``order`` (bytes -> rank): its parts."""

    def rank_ids(self, order: dict[bytes, int], ids: dict[bytes, int],
                 analysis: Callable[[], object] | None = None) -> RankIds:
        """tiktoken's merging of one piece under ``order``, its parts as ``ids``."""

    def text_coder(self, findall: Findall, mode: int, encode: TextEncode, ids: int, limit: int,
                   by_rank: tuple[RankIds, dict[bytes, int]] | None = None) -> Any:
        """A whole text's encoder (``.encode(text) -> ids``), split and chunk cache in one pass, or None."""

    def split_points(self, tokens: list[bytes], progress: Callable[[int, int], None] | None = None,
                     budget: int | None = ...) -> Sequence[int]:
        """Where tiktoken's merging with the tokens before it cuts each of a rank file's ``tokens``
        (TooCostly past ``budget`` bytes looked up: engine.encode.tiktoken_merge.RECOVERY_BUDGET)."""

    def inline_ranks(self, ranks: str) -> tuple[dict[bytes, int], int, int] | None:
        """npm tiktoken's inline ranks read in one pass, as (tokens -> rank, tokens read, the last
        rank: the highest, no rank twice; or -1), before
        ``engine.formats.rank_json.inline_ranks``'s checks; None: that reader reads them."""

    # -- splitting and writing (engine.text, engine.formats) ------------------------------------

    def split_text(self, text: str, mode: int, pattern: Pattern) -> list[str] | None:
        """A gpt2, gpt4 or o200k text's chunks (``mode``: ``engine.text.pretokenize.SCAN_MODES``),
        ``pattern`` scanning what the backend leaves to it; None: split it with the pattern."""

    def split_batches(self, text: str, mode: int, pattern: Pattern) -> Iterator[list[str]] | None:
        """:meth:`split_text`'s chunks a batch at a time (bounded memory); None: scan with the pattern."""

    def count_text(self, counts: Counter[str], text: str, mode: int, pattern: Pattern) -> bool:
        """Such a text's chunks counted into ``counts``; False (nothing counted): count them with the pattern."""

    def add_counts(self, into: Counter[str], part: Mapping[str, int]) -> None:
        """``into.update(part)``: counts added, a new chunk after ``into``'s, in ``part``'s order."""

    def ids_text(self, ids: list[int], table: Sequence[int | None] | None) -> str | None:
        """``ids`` through ``table``, in decimal, separated by spaces; None where the caller must."""


def load(folder: Path = sources.FOLDER) -> tuple[CompiledBackend | None, str]:
    """The compiled backend and why not (empty when it is used): None under ``BPE_LAB_PURE``,
    without a built module, or with one built from other sources than those in ``folder``
    (:func:`engine.native.sources.digest`: compiled.pyx and every stage it includes)."""
    if os.environ.get(PURE_ENV, "").strip() not in ("", "0"):
        return None, f"{PURE_ENV} is set"
    try:  # a compiled module has no source for tests/test_import_hygiene.py's graph: imported by name
        core = importlib.import_module(f"{__package__}.compiled")
    except ImportError:
        return None, "not built (no compiler at install, or the build failed)"
    try:
        current = sources.digest(folder)
    except OSError:
        current = None
    if current is not None and current != getattr(core, "BUILT_FROM", None):  # (None: no sources here)
        return None, "built from other versions of engine/native's .pyx and .pxi files (run pip install -e . again)"
    return CompiledBackend(core), ""


#: The pure path, always here.
PURE: Backend = PureBackend()
#: The compiled backend, when it is built, current and not refused (else None: see WHY_PURE).
COMPILED: CompiledBackend | None
COMPILED, WHY_PURE = load()
#: The backend chosen once: the compiled one when it is here.
BACKEND: Backend = COMPILED if COMPILED is not None else PURE
_IN_USE: ContextVar[Backend] = ContextVar("bpe_lab_backend", default=BACKEND)


def backend() -> Backend:
    """The backend in use: :data:`BACKEND`, or the one a :func:`using` block hands out."""
    return _IN_USE.get()


@contextmanager
def using(chosen: Backend) -> Iterator[Backend]:
    """Use ``chosen`` for what is made inside the ``with`` block (then the backend before)."""
    token = _IN_USE.set(chosen)
    try:
        yield chosen
    finally:
        _IN_USE.reset(token)


def implementation() -> str:
    """The backend in use, ``compiled`` or ``pure (why)``: for ``bpe-lab --version``-style reports and benchmarks."""
    return "compiled" if backend().compiled else f"pure ({WHY_PURE or 'chosen by using()'})"
