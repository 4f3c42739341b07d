"""Run speeds: how fast a training run makes merges, so that a class can watch it.

At full speed a run makes merges in time-bounded batches; at a chosen speed (one merge every 10,
5 or 2 seconds, or 1, 2, 5 or 20 merges a second) the worker makes one merge, then waits until
the :class:`Pacer` says the next is due. The pacer only does arithmetic on a clock it is given,
so tests drive it by hand.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from tui.i18n import _, ngettext

#: The speeds `+` and `-` step through, slowest first, in merges a second; None is full speed.
#: Below 1 a class can talk about each merge before the next (space pauses at any time).
SPEEDS: tuple[float | None, ...] = (0.1, 0.2, 0.5, 1, 2, 5, 20, None)
#: What the command line's ``--speed`` accepts, by name.
SPEED_NAMES = {"0.1": 0.1, "0.2": 0.2, "0.5": 0.5, "1": 1, "2": 2, "5": 5, "20": 20, "max": None}


def seconds_apart(speed: float) -> int:
    """The seconds between two merges of a slow speed. Example: ``seconds_apart(0.2) -> 5``"""
    return round(1 / speed)


def speed_label(speed: float | None) -> str:
    """Example: ``speed_label(1) -> '1 merge/s'``; ``speed_label(0.2) -> '1 merge every 5 s'``;
    ``speed_label(None) -> 'full speed'``"""
    if speed is None:
        return _("full speed")
    if speed < 1:
        return _("1 merge every {n} s").format(n=seconds_apart(speed))
    return ngettext("{n} merge/s", "{n} merges/s", int(speed)).format(n=int(speed))


def faster(speed: float | None) -> float | None:
    """The next speed up (full speed stays full speed)."""
    index = SPEEDS.index(speed)
    return SPEEDS[min(index + 1, len(SPEEDS) - 1)]


def slower(speed: float | None) -> float | None:
    """The next speed down (the slowest stays the slowest)."""
    index = SPEEDS.index(speed)
    return SPEEDS[max(index - 1, 0)]


class Pacer:
    """When the next merge of a paced run is due.

    The first merge of a run is due at once; each next one ``1/speed`` seconds after the one
    before was due, so the beat stays steady while merges take a little time, but a late merge
    (a slow merge, a busy machine) never makes the following ones hurry to catch up. A new speed
    counts from the last merge, so going faster while waiting shortens the wait at once.
    """

    def __init__(self, speed: float | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.speed = speed
        self.clock = clock
        self._last: float | None = None  # when the last merge was due (or made, if late)

    @property
    def paced(self) -> bool:
        return self.speed is not None

    def restart(self) -> None:
        """A new run: its first merge is due at once."""
        self._last = None

    def delay(self) -> float:
        """Seconds until the next merge is due (0: now; always 0 at full speed)."""
        if self.speed is None or self._last is None:
            return 0.0
        return max(0.0, self._last + 1.0 / self.speed - self.clock())

    def made(self) -> None:
        """A merge was just made."""
        now = self.clock()
        if self.speed is None or self._last is None:
            self._last = now
            return
        due = self._last + 1.0 / self.speed
        self._last = due if 0.0 <= now - due < 1.0 / self.speed else now
