"""The cyclic collector paused while training makes millions of acyclic objects (the trainer's
moves, and ``bpe-lab train`` around its whole run): a module of its own, so that commands that
do not train need not import the trainer to use it."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

#: Objects made under :func:`gc_paused` that a young collection may scan when it ends (a few
#: milliseconds' walk); more are moved out of its way.
YOUNG_SCAN = 50_000


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic collector: training allocates millions of acyclic objects, and
    collections that scan them would cost 10-45% of the run."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        # What was made meanwhile (a state's millions of node lists in a few dicts) would be
        # scanned by the first young collection once the collector is back (a tenth of a second
        # per million); freezing and unfreezing moves it to the oldest generation unscanned.
        # Only worth it when much was made: gc.get_freeze_count() walks every frozen object
        # (the app freezes what it loaded: millions), which once a short batch (a jump's 20 ms)
        # cost more than the batch.
        if gc.get_count()[0] > YOUNG_SCAN:
            if gc.get_freeze_count():  # someone else froze theirs: they stay frozen, and so do these
                gc.freeze()  # (that someone's unfreeze gives them back with theirs)
            else:
                gc.freeze()
                gc.unfreeze()
        if was_enabled:
            gc.enable()
