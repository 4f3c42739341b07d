"""Small modal dialogs: a one-line prompt and a yes/no question."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label

from tui.i18n import N_, _


class PromptScreen(ModalScreen[str | None]):
    """Ask for one line of text; Enter accepts, Escape cancels (returns None)."""

    BINDINGS = [Binding("escape", "cancel", N_("Cancel"))]

    def __init__(
        self,
        title: str,
        *,
        value: str = "",
        placeholder: str = "",
        hint: str = "",
        accept: Callable[[str], str | None] | None = None,
    ) -> None:
        """``accept``, if given, acts on the answer before the dialog closes (so the screen
        beneath repaints once, already showing the result) and returns an error to show in
        the dialog instead of closing, or None."""
        super().__init__()
        self.accept = accept
        self.title_text = title
        self.value = value
        self.placeholder = placeholder
        self.hint = hint

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.title_text, classes="dialog-title", markup=False)
            yield Input(value=self.value, placeholder=self.placeholder, id="prompt-input")
            if self.hint:
                yield Label(self.hint, classes="dialog-hint", markup=False)
            yield Label("", id="prompt-error", classes="dialog-error")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.accept is not None:
            error = self.accept(event.value)
            if error is not None:
                self.show_error(error)
                return
        self.dismiss(event.value)

    def show_error(self, message: str) -> None:
        self.query_one("#prompt-error", Label).update(Text(message))

    def action_cancel(self) -> None:
        self.dismiss(None)


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question; y/Enter says yes, n/Escape says no."""

    BINDINGS = [
        Binding("y", "answer(True)", N_("Yes")),
        Binding("n,escape", "answer(False)", N_("No")),
    ]

    def __init__(self, question: str, yes: str | None = None, no: str | None = None) -> None:
        super().__init__()
        self.question = question
        self.yes = yes or _("Yes")
        self.no = no or _("No")

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.question, classes="dialog-title", markup=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button(f"{self.yes} (y)", variant="primary", id="yes")
                yield Button(f"{self.no} (n)", id="no")

    def on_mount(self) -> None:
        self.query_one("#yes", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)
