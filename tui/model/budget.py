"""How much memory a browser tab may spend on speed (``bpe-lab serve``), and what a tab costs.

In a terminal the app keeps up to :data:`tui.model.workbench.CHECKPOINT_MEMORY` of copies of
the training state, so that a long jump is a copy and a short walk. Served to a class, every
tab is an app process of its own, and 30 of those copies on a large corpus do not fit an
instructor's laptop: there each tab's copies and caches share :data:`TAB_BUDGET` (serve mode
passes it, ``LaunchOptions.memory``). Past the budget nothing stops working; a long jump walks
merge by merge instead (slower), and the held-out tab's trainer keeps no undo log.

What a tab costs besides is the corpus's own training state, which no budget can shrink: it
grows with the corpus's units (bytes, or characters for a mostly-CJK text) and, once trained,
with the merges' undo log. :func:`tab_estimate` tells it from the corpus, by the figures of
docs/classroom.md (tests/bench/bench_tab_memory.py measures them).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import TrainConfig
from tui.model.loaded_corpus import LoadedCorpus

#: A served tab's copies of the training state and its caches hold at most this many bytes
#: together (docs/classroom.md has the figures behind it: on tang_all at the character level
#: step 0's copy is 23 MB, its nodes only under a budget, and a copy of a later step ~42 MB;
#: so step 0's fits and no other, as with 64 MB before step 0's copy kept only its nodes).
TAB_BUDGET = 32 << 20

#: What the app takes with the bundled workshop sample loaded (Python, Textual, the engine).
APP_BYTES = 52 << 20
#: The training state, bytes per unit of the text (a byte, or a character at the character
#: level: the corpus pane's layout) and per unit of its distinct chunks (the pair state: nodes,
#: position lists, counts); and the undo log of a run to the end, per distinct unit. Fitted to
#: tests/bench/bench_tab_memory.py on tang_all (docs/classroom.md): refitted after the position
#: lists were pooled (147 bytes a distinct unit before, 100 now), and the log again after it kept
#: the merges in arrays (engine/train/event_log.py: 48 bytes a distinct unit before, 10 now), so
#: that a tab trained to the end is told about its peak, 20-25 % above its steady memory.
PER_UNIT, PER_DISTINCT_UNIT, LOG_PER_DISTINCT_UNIT = 4, 100, 10
#: A copy of the state holds about this share of it (tang_all: 42 of 158 MB).
COPY_SHARE = 0.27
#: What moving about adds besides (jumps, undos, redos: freed memory the process keeps).
MOVES_BYTES = 6 << 20


@dataclass(frozen=True)
class TabCost:
    """What one app process holds on a corpus, in bytes: once it has loaded, and at most once
    trained to the end (its copies within ``budget``)."""

    loaded: int
    trained: int


def tab_estimate(corpus: LoadedCorpus, config: TrainConfig, budget: int = TAB_BUDGET) -> TabCost:
    """The memory of a tab on ``corpus`` trained with ``config`` (the base it opens with), told
    from its size and its distinct chunks (counted: ~0.5 s on tang_all's 4.8 MB).

    Example: tang_all.txt at the character level -> about 182 MB loaded, 232 MB trained (measured:
    140 MB loaded, its peak 221; 187 MB trained and moved about, its peak 229).
    """
    from engine.text import pretokenizer_for
    from tui.model.workbench import CHECKPOINTS

    chars = config.base == "chars"
    text = corpus.text
    units = len(text) if chars else len(text.encode("utf-8", "surrogateescape"))
    chunks = pretokenizer_for(config).count(text) if text else {}
    distinct = sum(len(c) if chars else len(c.encode("utf-8", "surrogateescape")) for c in chunks)
    state = PER_UNIT * units + PER_DISTINCT_UNIT * distinct
    copies = min(budget, int((CHECKPOINTS + 1) * COPY_SHARE * state))
    return TabCost(APP_BYTES + state, APP_BYTES + state + LOG_PER_DISTINCT_UNIT * distinct + copies + MOVES_BYTES)


def give_back() -> None:
    """Hand the memory freed so far back to the system (glibc's ``malloc_trim``; nothing
    elsewhere). A served tab calls it when it lets go of something large (the analysis screen
    closed): freed memory otherwise stays with the process, which a class of tabs adds up.
    Takes about a millisecond."""
    global _trim
    if _trim is None:
        import ctypes

        try:
            _trim = ctypes.CDLL(None).malloc_trim  # the process's own symbols: glibc's, when it is glibc
        except (OSError, AttributeError):  # not glibc: its allocator decides
            _trim = False
    if _trim:
        _trim(0)


_trim = None  # glibc's malloc_trim once looked up (False: there is none)
