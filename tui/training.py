"""The app's long work in a worker thread: a training run, and long jumps.

:class:`Training` belongs to :class:`tui.app.BpeApp`, which decides when to run; the workers
pull time-bounded batches from the engine under the workbench lock, post :class:`Trained` to
the app after each, and check for cancellation between batches: pausing stops within one.
"""

from __future__ import annotations

import time
from functools import partial
from typing import TYPE_CHECKING

from textual.worker import get_current_worker

from .messages import Trained
from .workbench import Workbench

if TYPE_CHECKING:
    from textual.app import App

#: The worker group of training runs and long jumps: one at a time, the app's ``running``.
GROUP = "training"
#: Jumps into merges not made yet happen at once up to this many steps, longer ones in the worker.
JUMP_AT_ONCE = 200
#: Jumps among merges already made happen at once when their estimated work (a checkpoint
#: restored and the merges walked: see engine._checkpoints) is at most about 15-40 ms (work
#: units run from ~0.4 us on code to ~1 us on Chinese): a restore of 4.8 MB of Chinese fits.
WORK_AT_ONCE = 40_000


class Training:
    """Runs training and long jumps of one app's workbench in its worker group."""

    def __init__(self, app: App) -> None:
        self.app = app

    def start(self, workbench: Workbench) -> None:
        """Train until a stop rule holds or :meth:`stop`."""
        self.app.run_worker(partial(self._train, workbench), thread=True, exclusive=True, group=GROUP, exit_on_error=False)

    def stop(self) -> None:
        """Pause: the worker stops after its current batch."""
        self.app.workers.cancel_group(self.app, GROUP)

    @staticmethod
    def at_once(workbench: Workbench, step: int) -> bool:
        """Whether a jump to ``step`` is short enough to make on the UI thread.

        "Short" is by estimated work: a jump back to a checkpoint is short however many steps
        it spans; new merges to make are judged by their number.
        """
        work = workbench.jump_work(step)
        if work is None:
            return abs(step - workbench.steps) <= JUMP_AT_ONCE
        return work <= WORK_AT_ONCE

    def jump(self, workbench: Workbench, target: int) -> None:
        """Walk to ``target`` in the worker, a batch at a time, like a training run."""
        self.app.run_worker(
            partial(self._jump, workbench, target), thread=True, exclusive=True, group=GROUP, exit_on_error=False
        )

    def _train(self, workbench: Workbench) -> None:
        worker = get_current_worker()
        started = time.perf_counter()
        made = 0
        workbench.training = True
        try:
            while not worker.is_cancelled:
                count, done = workbench.run_batch()
                made += count
                workbench.rate = made / max(time.perf_counter() - started, 1e-6)
                self.app.post_message(Trained(done))
                if done:
                    return
                time.sleep(0.002)  # let the UI thread take the lock between batches
        finally:
            workbench.training = False
            # A cancelled worker is reported as such at once, while its last batch may still
            # be running: this message comes after that batch, so the panes end up exact.
            self.app.post_message(Trained(done=False, final=True))

    def _jump(self, workbench: Workbench, target: int) -> None:
        worker = get_current_worker()
        workbench.training = True
        try:
            while not worker.is_cancelled:
                done = workbench.goto_batch(target)
                self.app.post_message(Trained(done=False))
                if done:
                    return
                time.sleep(0.002)  # let the UI thread read between batches
        finally:
            workbench.training = False
            self.app.post_message(Trained(done=False, final=True))
