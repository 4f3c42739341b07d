"""The app's long work in a worker thread: a training run, and long jumps."""

from __future__ import annotations

import time

from textual import work
from textual.worker import get_current_worker

from .messages import Trained
from .screens.dialogs import PromptScreen

#: Jumps of more steps than this run in the worker, so the screen never freezes.
#: Jumps into merges not made yet happen at once up to this many steps, longer ones in the worker.
JUMP_AT_ONCE = 200
#: Jumps among merges already made happen at once when their estimated work (a checkpoint
#: restored and the merges walked: see engine.checkpoints) is at most about 15-40 ms (work
#: units run from ~0.4 us on code to ~1 us on Chinese): a restore of 4.8 MB of Chinese fits.
WORK_AT_ONCE = 40_000


class RunMixin:
    """Run/pause, stepping by tens and hundreds, go to a step, for :class:`tui.app.BpeApp`.

    The worker pulls time-bounded batches from the engine under the workbench lock, posts a
    message after each, and checks for cancellation between batches: pausing stops within one.
    """

    @work(thread=True, exclusive=True, group="training", exit_on_error=False)
    def _train(self) -> None:
        worker = get_current_worker()
        workbench = self.workbench
        if workbench is None:
            return
        started = time.perf_counter()
        made = 0
        workbench.training = True
        try:
            while not worker.is_cancelled:
                count, done = workbench.run_batch()
                made += count
                workbench.rate = made / max(time.perf_counter() - started, 1e-6)
                self.post_message(Trained(done))
                if done:
                    return
                time.sleep(0.002)  # let the UI thread take the lock between batches
        finally:
            workbench.training = False
            # A cancelled worker is reported as such at once, while its last batch may still
            # be running: this message comes after that batch, so the panes end up exact.
            self.post_message(Trained(done=False, final=True))

    def action_toggle_run(self) -> None:
        if self.running:
            self.workers.cancel_group(self, "training")
        elif self.workbench is not None and not self.loading:
            if self.workbench.done:
                self.say("training is done: a stop rule holds")
                return
            self.running = True
            self._train()

    def action_jump(self, delta: int) -> None:
        self.go(self.workbench.steps + delta)

    def go(self, step: int) -> None:
        """Jump to a step (undo/redo under the hood, new merges if needed).

        Short jumps happen at once; long ones run in the worker, a batch at a time, like a
        training run (space stops them), so the screen never freezes. "Short" is by estimated
        work: a jump back to a checkpoint is short however many steps it spans.
        """
        step = max(step, 0)
        work = self.workbench.jump_work(step)
        if work is None:  # new merges to make: judge by their number
            at_once = abs(step - self.workbench.steps) <= JUMP_AT_ONCE
        else:
            at_once = work <= WORK_AT_ONCE
        if at_once:
            reached = self.workbench.goto(step)
            if reached < step:
                self.say(f"stopped at step {reached}: a stop rule holds", timeout=3)
            self.selected = None
            self.refresh_views()
            return
        self.selected = None
        self.running = True
        self._run_jump(step)

    @work(thread=True, exclusive=True, group="training", exit_on_error=False)
    def _run_jump(self, target: int) -> None:
        worker = get_current_worker()
        workbench = self.workbench
        workbench.training = True
        try:
            while not worker.is_cancelled:
                done = workbench.goto_batch(target)
                self.post_message(Trained(done=False))
                if done:
                    return
                time.sleep(0.002)  # let the UI thread read between batches
        finally:
            workbench.training = False
            self.post_message(Trained(done=False, final=True))

    def action_goto(self) -> None:
        def accept(answer: str) -> str | None:
            """Jump before the dialog closes: the screen beneath then repaints once."""
            if not answer.strip():
                return None
            try:
                step = int(answer.strip())
            except ValueError:
                return f"not a step number: {answer.strip()!r}"
            if step < 0:
                return "a step is 0 or more"
            self.go(step)
            return None

        target = self.workbench.trainer.target_merges
        hint = f"0 … {target}" if target is not None else "0 or more"
        self.push_screen(PromptScreen("Go to step", placeholder=hint, accept=accept))

