"""Training: the :class:`Trainer` and its parts, each a module of its own.

- ``trainer.py``: the Trainer, which sets the parts up and delegates to them;
- ``events.py``: what training yields (a :class:`Merge` a step, :class:`Candidate` pairs);
- ``event_log.py``: every merge made, kept in arrays, its events and undo records made on demand;
- ``pair_state.py``: the algorithm's state, the pairs' counts and the lazy queue of the best
  (its hot loops in pure Python in ``loops.py``, its views and copies in ``pair_views.py``);
- ``choosing.py``: choosing the next pair, every tie rule and a replayed file's script behind
  one protocol, each answer a ``Choice``;
- ``timeline.py``: the merges applied and undone, undo, redo and jumps, with the state copies
  of ``checkpoints.py``;
- ``branching.py``: what-if branches (their tree of names and lines in ``branches.py``);
- ``corpus_view.py``: the corpus as tokens for the app (``layout.py``: where each chunk sits);
- ``replay.py``: a tokenizer file replayed on a corpus;
- ``reference.py``: the algorithm as the course texts teach it (the tests' oracle), and
  ``reference_code.py``: its code as the app shows it beside a step, the deciding line marked;
- ``gc_pause.py``: the collector paused while training makes millions of objects.

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
    from engine.train.reference_code import STOP_ROLES, CodeLine, deciding_role, reference_excerpt
    from engine.train.trainer import Trainer

__all__, __getattr__, __dir__ = exports(__name__, {
    "engine.train.trainer": ("Trainer",),
    "engine.train.events": ("Candidate", "Merge"),
    "engine.train.branches": ("Branch", "check_branch_data:check_data"),
    "engine.train.gc_pause": ("gc_paused",),
    "engine.train.reference_code": ("CodeLine", "STOP_ROLES", "deciding_role", "reference_excerpt"),
})
