"""The tie-rule diff: train one corpus under two tie rules and find where the merge logs part."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine.config import TrainConfig
from engine.train.trainer import Merge, Trainer

#: How far the diff trains when no stop rule limits it.
DEFAULT_LIMIT = 10_000


@dataclass(frozen=True)
class TieDiff:
    """Two merge logs of one corpus under two tie rules.

    ``first_step`` is the 1-based step where the logs first differ (None when they never part
    within the run); ``common`` how many merges they share from the start; ``logs`` each rule's
    merges, up to ``after`` steps past the split; ``stops`` why each run stopped.

    Example: ``hello hello world`` (gpt2 chunks) parts at step 1 between ``lowest-ids`` (e + l)
    and ``first-seen`` (h + e).
    """

    rules: tuple[str, str]
    first_step: int | None
    common: int
    logs: tuple[tuple[Merge, ...], tuple[Merge, ...]]
    stops: tuple[str | None, str | None]
    vocab: tuple[tuple[bytes, ...], tuple[bytes, ...]]  # each run's tokens by id, for display

    @property
    def parted(self) -> bool:
        return self.first_step is not None

    def at_split(self) -> tuple[Merge | None, Merge | None]:
        """Each rule's merge at the first differing step (None where a run had stopped)."""
        if self.first_step is None:
            return None, None
        k = self.first_step - 1
        return tuple(log[k] if k < len(log) else None for log in self.logs)  # type: ignore[return-value]


def _same(a: Merge | None, b: Merge | None) -> bool:
    return a is not None and b is not None and a.pair == b.pair


def tie_rule_diff(
    text: str,
    config: TrainConfig,
    rules: tuple[str, str] = ("lowest-ids", "first-seen"),
    *,
    limit: int | None = None,
    after: int = 5,
    cancelled: Callable[[], bool] | None = None,
) -> TieDiff:
    """Train ``text`` with ``config`` under each rule, in lockstep, until the logs part and
    ``after`` more merges, a stop rule holds, ``limit`` merges (default: the config's target, else
    :data:`DEFAULT_LIMIT`), or ``cancelled()`` turns true. Raises ValueError for a rule the config's
    base cannot use (``hf`` needs bytes)."""
    trainers = [Trainer(text, config.with_changes(tie_rule=rule, record_undo=False)) for rule in rules]
    cap = limit if limit is not None else (trainers[0].target_merges or DEFAULT_LIMIT)
    logs: tuple[list[Merge], list[Merge]] = ([], [])
    first: int | None = None
    running = [True, True]
    step = 0
    while any(running):
        if cancelled is not None and cancelled():
            break
        step += 1
        if step > cap or (first is not None and step > first + after):
            break
        events = [trainer.step() if running[i] else None for i, trainer in enumerate(trainers)]
        for i, event in enumerate(events):
            running[i] = event is not None
            if event is not None:
                logs[i].append(event)
        if first is None and any(running) and not _same(*events):
            first = step  # a different pair, or one run stopped while the other went on
    common = (first - 1) if first is not None else min(len(logs[0]), len(logs[1]))
    return TieDiff(
        rules=tuple(rules),  # type: ignore[arg-type]
        first_step=first,
        common=common,
        logs=(tuple(logs[0]), tuple(logs[1])),
        stops=(trainers[0].stop_reason, trainers[1].stop_reason),
        vocab=(tuple(trainers[0].vocab), tuple(trainers[1].vocab)),
    )
