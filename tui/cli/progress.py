"""Progress bars for long commands (count, train, compare) on stderr, only when it is a terminal.

A rich ``Progress`` with the bytes read, the distinct chunks, the merges made and an ETA; silent
(and rich never imported) when stderr is not a terminal, or with ``--quiet``, but for a large
input (:data:`LARGE`): its size is said first, and then a plain line at each tenth of it, so
that a script or a log never waits silently on a terabyte. Loading a
tokenizer file (:func:`loading_bar`) shows a bar only while a slow stage runs (the first use of
a ``.tiktoken`` file recovers its merges), and imports rich only then.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

#: Inputs at least this large are told of in plain lines when no bar is shown.
LARGE = 1 << 30


class Bar:
    """``with Bar(err, quiet=..., what="count") as bar: ...`` then ``bar.bytes(done, total, chunks)``
    while counting and ``bar.merges(done, total)`` while training; both do nothing when silent."""

    def __init__(self, err: TextIO, *, quiet: bool = False, what: str = "") -> None:
        isatty = getattr(err, "isatty", None)
        self.live = not quiet and bool(isatty and isatty())
        self.err = err
        self.what = what
        self.quiet = quiet
        self._progress = None
        self._tasks: dict[str, int] = {}
        self._told: dict[str, int] = {}  # stage -> the last tenth told in a plain line

    def _tell(self, stage: str, done: int, total: int, extra: str = "") -> None:
        """A plain line for a large input when no bar is shown: at the start, and at each tenth."""
        if self.live or self.quiet or total < LARGE:
            return
        from engine.errors import size_text

        tenth = done * 10 // total
        if stage not in self._told:
            print(f"bpe-lab: {stage} {size_text(total)} of input (a line at each tenth; --quiet for none)", file=self.err,
                  flush=True)
            self._told[stage] = 0
        if self._told[stage] >= tenth:
            return
        self._told[stage] = tenth
        line = f"{stage}: {size_text(done)} of {size_text(total)}{extra}"
        print(f"bpe-lab: {line}", file=self.err, flush=True)

    def __enter__(self) -> Bar:
        if self.live:
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

            self._progress = Progress(
                TextColumn("{task.description}"), BarColumn(), _size_column(), TextColumn("{task.fields[extra]}"),
                TimeRemainingColumn(), console=Console(file=self.err), transient=True,
            )
            self._progress.start()
        return self

    def __exit__(self, *exc) -> None:
        if self._progress is not None:
            self._progress.stop()

    def _task(self, name: str, total: int | None) -> int:
        if name not in self._tasks:
            self._tasks[name] = self._progress.add_task(name, total=total, extra="")
        return self._tasks[name]

    def hashing(self, done: int, total: int) -> None:
        """Before counting: ``done`` of ``total`` bytes hashed (each input is read once for its
        SHA-256, which the table records)."""
        self._tell("hashing", done, total)
        if self._progress is not None:
            task = self._task("hashing", total)
            self._progress.update(task, completed=done, total=total)

    def bytes(self, done: int, total: int, chunks: int) -> None:
        """Counting: ``done`` of ``total`` bytes read, ``chunks`` distinct so far."""
        self._tell("counting", done, total, f", {chunks:,} distinct chunks")
        if self._progress is not None:
            task = self._task("reading", total)
            self._progress.update(task, completed=done, total=total, extra=f"{chunks:,} chunks")

    def merges(self, done: int, total: int | None) -> None:
        """Training: ``done`` merges made of ``total`` (None: until a pair is too rare)."""
        if self._progress is not None:
            if "merging" not in self._tasks:
                from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeRemainingColumn

                self._progress.columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                          TextColumn("merges"), TimeRemainingColumn())
            task = self._task("merging", total)
            self._progress.update(task, completed=done, total=total)


def sizes(done: int, total: int | None) -> str:
    """The bar's bytes, in the unit every message uses (:func:`engine.errors.size_text`; rich's
    own column counted in thousands, so a bar said 4.8 MB and the summary after it 4.6 MB).

    Example: ``sizes(1 << 20, 3 << 20) -> '1 MB/3 MB'``
    """
    from engine.errors import size_text

    return f"{size_text(done)}/{size_text(total)}" if total is not None else size_text(done)


def _size_column():
    """A rich progress column of :func:`sizes`."""
    from rich.progress import ProgressColumn
    from rich.text import Text

    class SizeColumn(ProgressColumn):
        def render(self, task) -> Text:
            total = int(task.total) if task.total is not None else None
            return Text(sizes(int(task.completed), total), style="progress.download")

    return SizeColumn()


def train_with_bar(trainer, err: TextIO, quiet: bool) -> None:
    """Train to the stop rule, showing merges made on a terminal (the collector paused, as
    :meth:`engine.Trainer.train` does)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        with Bar(err, quiet=quiet) as bar:
            for event in trainer.run():
                if not event.step & 63:
                    bar.merges(event.step, trainer.target_merges)
    finally:
        if collecting:
            gc.enable()


class _LoadingBar:
    """The stages a load reports (engine/formats/loading.py), as a bar started at the first report."""

    def __init__(self, err: TextIO) -> None:
        self.err = err
        self._progress = None
        self._tasks: dict[str, int] = {}

    def report(self, stage: str, done: int, total: int) -> None:
        if self._progress is None:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self._progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                      TextColumn("tokens"), TimeRemainingColumn(), console=Console(file=self.err),
                                      transient=True)
            self._progress.start()
        if stage not in self._tasks:
            self._tasks[stage] = self._progress.add_task(stage, total=total)
        self._progress.update(self._tasks[stage], completed=done, total=total)

    def stop(self) -> None:
        if self._progress is not None:
            self._progress.stop()


@contextmanager
def loading_bar(err: TextIO, *, quiet: bool = False) -> Iterator[None]:
    """``with loading_bar(err): load_any(...)``: the load's slow stages as a bar on ``err`` when
    it is a terminal (and not ``quiet``); nothing otherwise."""
    from engine.formats import loading_progress

    isatty = getattr(err, "isatty", None)
    if quiet or not (isatty and isatty()):
        yield
        return
    bar = _LoadingBar(err)
    try:
        with loading_progress(bar.report):
            yield
    finally:
        bar.stop()
