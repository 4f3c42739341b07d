"""The merge log: step, left, right, new token, count, corpus tokens after (seed 002's log)."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.message import Message
from textual.widgets import DataTable

from engine import Merge, token_display

from ..workbench import Workbench

COLUMNS = ("step", "left", "right", "new", "count", "tokens")


class MergeLog(DataTable):
    """One row per applied merge. Moving the cursor inspects that row's token; Enter jumps there."""

    @dataclass
    class Inspect(Message):
        """The cursor is on a merge: show the token it made."""

        token_id: int

    @dataclass
    class Jump(Message):
        """Enter on a row: go to that step."""

        step: int

    def __init__(self, **kwargs) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)
        self._rows = 0
        self._new_ids: list[int] = []

    def on_mount(self) -> None:
        for name in COLUMNS:
            self.add_column(name, key=name)

    def sync(self, workbench: Workbench | None) -> None:
        """Make the rows match the trainer's applied merges (append or drop at the end)."""
        if workbench is None:
            self.clear()
            self._rows = 0
            self._new_ids.clear()
            return
        with workbench.lock:
            trainer = workbench.trainer
            steps = trainer.steps
            fresh = trainer.events(self._rows, steps) if steps > self._rows else []
            rows = [self._row(trainer, e) for e in fresh]
        follow = self._rows == 0 or self.cursor_row >= self._rows - 1
        while self._rows > steps:
            self.remove_row(str(self._rows))
            self._rows -= 1
            self._new_ids.pop()
        for event, row in zip(fresh, rows):
            self.add_row(*row, key=str(event.step))
            self._new_ids.append(event.new_id)
        self._rows = steps
        if follow and steps:
            self.move_cursor(row=steps - 1, animate=False)

    @staticmethod
    def _row(trainer, event: Merge) -> tuple:
        # Text, not str: DataTable reads strings as markup, and "[e4 b8]" would vanish as a tag.
        show = lambda i: Text(token_display(trainer.token_bytes(i), space="·"))  # noqa: E731
        a, b = event.pair
        count = Text(f"{event.count}" + ("*" if event.tied else ""), style="#e9c46a" if event.tied else "")
        return (event.step, show(a), show(b), Text(token_display(event.token, space="·"), style="bold"), count, event.tokens_after)

    def token_at(self, row: int) -> int | None:
        """The new token of a row, if there is one."""
        return self._new_ids[row] if 0 <= row < len(self._new_ids) else None

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        token = self.token_at(event.cursor_row)
        if token is not None:
            self.post_message(self.Inspect(token))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.post_message(self.Jump(event.cursor_row + 1))
