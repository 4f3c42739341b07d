"""Open a corpus: type a path, or pick one of the bundled samples."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from ..samples import samples


class OpenScreen(ModalScreen[str | None]):
    """Returns a path, ``sample:NAME``, or None when cancelled."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Open a corpus file", classes="dialog-title")
            yield Input(placeholder="path to a text file, then Enter", id="open-path")
            yield Label("", id="open-error", classes="dialog-error")
            yield Label("…or a bundled sample (↑↓, Enter):", classes="dialog-hint")
            yield OptionList(
                *[Option(f"{s.name} — {s.description}", id=s.name) for s in samples()],
                id="open-samples",
            )

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """A path that is no file is said here, and the dialog stays open to correct it."""
        event.stop()
        typed = event.value.strip()
        if not typed:
            return
        if typed.startswith("sample:"):
            self.dismiss(typed)
            return
        path = Path(typed).expanduser()
        problem = None
        if not path.exists():
            problem = f"no such file: {typed}"
        elif path.is_dir():
            problem = f"{typed} is a folder: name a text file in it"
        if problem:
            self.query_one("#open-error", Label).update(Text(problem))
            return
        self.dismiss(str(path))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(f"sample:{event.option.id}")

    def action_cancel(self) -> None:
        self.dismiss(None)
