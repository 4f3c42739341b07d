"""The cyclic garbage collector, kept out of the moments the user waits for.

A trainer holds hundreds of thousands of long-lived objects the collector tracks (position
arrays, merge records, the pair dicts and queues of its checkpoints); a full collection walks
them all (a visible pause on a large corpus: docs/benchmarks.md), and the young collections that a jump's
repaint sets off walk the queue the jump restored. Two things keep that off the screen:

- :func:`freeze_loaded`: once a workbench is shown, what exists then (the corpus, the trainer,
  the app) is frozen, so later full collections walk only what came after. The trainer is freed
  by reference counting when another replaces it, frozen or not; :func:`thaw` gives the rest
  back to the collector when the app ends.
- :func:`hold_until_drawn`: a move of the trainer (a step, an undo, a jump) holds the collector
  until the screen has been drawn with its result; collections that fell due run just after.
- :func:`settle_run`: a run or a long jump made or moved a great many objects (tang_all to the
  end: a hundred thousand merges' events and records). Once its last frame is drawn, one full
  collection runs and what is left is frozen too. Else the next full collection falls due a
  little later, at any moment, and walks them all: 130 ms, under the next key's frame.

The engine pauses the collector the same way while it trains (``engine.train.trainer``): a pause
either side starts is ended only by the side that started it.
"""

from __future__ import annotations

import gc

from textual.app import App

_held = False


def hold_until_drawn(app: App) -> None:
    """Pause the collector until ``app``'s next screen refresh has been drawn."""
    global _held
    if _held or not gc.isenabled():
        return
    gc.disable()
    _held = True
    if not app.call_after_refresh(release):
        release()


def release() -> None:
    """End :func:`hold_until_drawn`'s pause (nothing if none is on)."""
    global _held
    if _held:
        _held = False
        gc.enable()


def freeze_loaded() -> None:
    """Leave everything alive now out of future collections (see the module's docstring).

    A second workbench's load first gives back what the first one froze and collects once (a
    moment the user waits for anyway), so garbage frozen with it can go."""
    if gc.get_freeze_count():
        gc.unfreeze()
        gc.collect()
    gc.freeze()


def settle_run() -> None:
    """After a run or a long jump has been drawn: collect once, then freeze what is left (see
    the module's docstring); the next load's :func:`freeze_loaded` gives it back."""
    gc.collect()
    gc.freeze()


def thaw() -> None:
    """Give what :func:`freeze_loaded` froze back to the collector."""
    gc.unfreeze()
