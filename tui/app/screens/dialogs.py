"""Small modal dialogs: a one-line prompt and a yes/no question.

Messages write a command as Markdown code (`` `bpe-lab --resume` ``): a dialog shows it as code
(:func:`shown_code`), a toast, plain text only, without the backticks (:func:`unticked`)."""

from __future__ import annotations

import re
from collections.abc import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.color import Color
from textual.containers import Horizontal, Vertical
from textual.content import Content, Span
from textual.screen import ModalScreen
from textual.style import Style
from textual.widgets import Button, Input, Label

from tui.i18n import N_, _

#: A piece of code in a message: `...` on one line.
CODE = re.compile(r"`([^`\n]+)`")


def unticked(text: str) -> str:
    """``text`` with each `code` piece's backticks dropped (for plain text: a toast)."""
    return CODE.sub(r"\1", text)


def shown_code(text: str) -> Content:
    """``text`` as a dialog shows it: each `code` piece without its backticks, on the theme's
    code colours (as the lesson pane shows inline code); never markup."""
    from tui.app.theme import current

    palette = current()
    style = Style(background=Color.parse(palette.code_bg), foreground=Color.parse(palette.code_text))
    parts: list[str] = []
    spans: list[Span] = []
    at = 0
    for match in CODE.finditer(text):
        parts.append(text[at:match.start()])
        start = sum(len(p) for p in parts)
        parts.append(match.group(1))
        spans.append(Span(start, start + len(match.group(1)), style))
        at = match.end()
    parts.append(text[at:])
    return Content("".join(parts), spans)


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
            yield Label(shown_code(self.title_text), classes="dialog-title")
            yield Input(value=self.value, placeholder=self.placeholder, id="prompt-input")
            if self.hint:
                yield Label(shown_code(self.hint), classes="dialog-hint")
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
            yield Label(shown_code(self.question), classes="dialog-title")
            with Horizontal(classes="dialog-buttons"):
                yield Button(f"{self.yes} (y)", variant="primary", id="yes")
                yield Button(f"{self.no} (n)", id="no")

    def on_mount(self) -> None:
        self.query_one("#yes", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)
