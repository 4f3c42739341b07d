"""Training: the :class:`Trainer` and its parts. The events it yields (``events.py``), the pair
state and its lazy queue (``pair_state.py``, the algorithm; ``loops.py``, its hot loops in pure
Python), choosing the next pair by a tie rule (``pair_state.py``'s ``choose``, subword-nmt's in
``ties.py``, a replayed file's script in ``replay.py``), the timeline (undo, redo, goto and
checkpoints: ``timeline.py``, ``checkpoints.py``), what-if branches (``branches.py``,
``branching.py``) and the corpus as tokens for the app (``corpus_view.py``, ``layout.py``,
``pair_views.py``).

The data flow: text -> chunks -> counts -> **merges** -> ids -> files.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.lazy import exports

if TYPE_CHECKING:
    from engine.train.branches import Branch
    from engine.train.branches import check_data as check_branch_data
    from engine.train.events import Candidate, Merge
    from engine.train.gc_pause import gc_paused
    from engine.train.trainer import Trainer

__all__, __getattr__, __dir__ = exports(__name__, {
    "engine.train.trainer": ("Trainer",),
    "engine.train.events": ("Candidate", "Merge"),
    "engine.train.branches": ("Branch", "check_branch_data:check_data"),
    "engine.train.gc_pause": ("gc_paused",),
})
