"""The app's long work in a worker thread: a training run, and long jumps.

:class:`Training` belongs to the app's :class:`tui.app.lab.Lab`, which decides when to run; the workers
pull time-bounded batches from the engine under the workbench lock, post :class:`Trained` to
the app after each, and check for cancellation between batches: pausing stops within one.
"""

from __future__ import annotations

import threading
import time
from functools import partial
from typing import TYPE_CHECKING

from textual.worker import get_current_worker

from tui.app.messages import Trained
from tui.model.budget import give_back
from tui.model.pacing import Pacer
from tui.model.workbench import Workbench

if TYPE_CHECKING:
    from textual.app import App

#: The worker group of training runs and long jumps: one at a time, the app's ``running``.
GROUP = "training"
#: Jumps into merges not made yet happen at once up to this many steps, longer ones in the worker.
JUMP_AT_ONCE = 200
#: Jumps among merges already made happen at once when their estimated work (a checkpoint
#: restored and the merges walked: see engine.train.checkpoints) is small enough not to be seen
#: (its time in docs/benchmarks.md): a restore of the 4.8 MB Chinese corpus fits.
WORK_AT_ONCE = 40_000


class Training:
    """Runs training and long jumps of one app's workbench in its worker group."""

    def __init__(self, app: App, pacer: Pacer | None = None) -> None:
        self.app = app
        #: The run speed (``pacer.speed``; None: full speed), and when the next merge is due.
        self.pacer = pacer or Pacer()
        #: Set to end a paced run's wait early: a pause, or a new speed.
        self._wake = threading.Event()
        #: Set by the worker after it posts each batch (tests wait on it instead of the clock).
        self.posted = threading.Event()
        #: A long jump is under way in the worker (not a run): nothing is made that a jump
        #: back could not make again, so the periodic autosave waits for its end.
        self.jumping = False

    @property
    def speed(self) -> float | None:
        return self.pacer.speed

    def set_speed(self, speed: float | None) -> None:
        """Change the run speed, also in the middle of a run (the worker's wait ends at once)."""
        self.pacer.speed = speed
        self.nudge()

    def nudge(self) -> None:
        """End a paced run's wait now, so it looks at the clock again (a new speed, or a test
        that moved the pacer's clock)."""
        self._wake.set()

    def start(self, workbench: Workbench, until: int | None = None, paced: bool = True) -> None:
        """Train at the run speed (``paced=False``: at full speed, as a lesson's moves do) until
        a stop rule holds, :meth:`stop`, or step ``until``."""
        self._wake.clear()
        self.app.run_worker(
            partial(self._train, workbench, until, paced), thread=True, exclusive=True, group=GROUP, exit_on_error=False
        )

    def stop(self) -> None:
        """Pause: the worker stops after its current batch (a paced run's wait ends at once)."""
        self.app.workers.cancel_group(self.app, GROUP)
        self._wake.set()

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

    def _train(self, workbench: Workbench, until: int | None = None, pace: bool = True) -> None:
        worker = get_current_worker()
        pacer = self.pacer
        pacer.restart()
        started = time.perf_counter()
        made = 0
        workbench.training = True
        try:
            while not worker.is_cancelled:
                left = None if until is None else until - workbench.steps
                if left is not None and left <= 0:
                    return
                paced = pace and pacer.paced
                if paced:
                    delay = pacer.delay()
                    if delay > 0:
                        # Wait for the beat; a pause or a new speed sets the event and ends the
                        # wait at once (cleared after waking: a set during the wait is not lost,
                        # and the loop checks again anyway).
                        self._wake.wait(delay)
                        self._wake.clear()
                        continue
                    left = 1 if left is None else min(left, 1)
                count, done = workbench.run_batch() if left is None else workbench.run_batch(limit=left)
                if paced:
                    pacer.made()
                made += count
                workbench.rate = made / max(time.perf_counter() - started, 1e-6)
                self.app.post_message(Trained(done, each=paced))
                self.posted.set()
                if done:
                    return
                if not paced:
                    time.sleep(0.002)  # let the UI thread take the lock between batches
        finally:
            workbench.training = False
            give_back()  # what the run freed (a batch's temporaries), back to the system: a class's tabs add up
            # A cancelled worker is reported as such at once, while its last batch may still
            # be running: this message comes after that batch, so the panes end up exact.
            self.app.post_message(Trained(done=False, final=True))

    def _jump(self, workbench: Workbench, target: int) -> None:
        worker = get_current_worker()
        workbench.training = True
        self.jumping = True
        try:
            while not worker.is_cancelled:
                done = workbench.goto_batch(target)
                self.app.post_message(Trained(done=False))
                if done:
                    return
                time.sleep(0.002)  # let the UI thread read between batches
        finally:
            workbench.training = False
            self.jumping = False
            give_back()
            self.app.post_message(Trained(done=False, final=True))
