"""Progress of a long load, for whoever shows it (the CLI's bar, the app's loading line).

Recovering a rank file's merges the first time (:mod:`engine.formats.tiktoken_bpe`) takes
seconds on a big file; the loader says how far it is through a hook::

    with loading.reporting(lambda stage, done, total: ...):  # engine.formats.loading_progress
        load_any(path)

The hook is called in the loading thread, now and then (not for every token), with a short
stage name (:data:`STAGES`) and how many of ``total`` items are done. It is kept per thread
and per context (a ``ContextVar``), so two loads in two threads report to their own hooks;
without one, reporting costs nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import partial

#: What a load reports, in order: recovering the merges from the ranks, then checking which
#: tokens the merges do not rebuild from their own bytes.
STAGES = ("recovering merges", "checking merges")

Hook = Callable[[str, int, int], None]
_hook: ContextVar[Hook | None] = ContextVar("bpe_lab_loading_hook", default=None)


@contextmanager
def reporting(hook: Hook | None) -> Iterator[None]:
    """Loads inside this ``with`` (in this thread or context) report to ``hook(stage, done, total)``."""
    token = _hook.set(hook)
    try:
        yield
    finally:
        _hook.reset(token)


#: The name the app and the CLI import (``from engine.formats import loading_progress``).
loading_progress = reporting


def reporter(stage: str) -> Callable[[int, int], None] | None:
    """A ``progress(done, total)`` for ``stage`` when someone listens, else None."""
    hook = _hook.get()
    return None if hook is None else partial(hook, stage)
