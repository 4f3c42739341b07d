"""Open a corpus: type a path, or pick one of the bundled samples.

A sample opens with its example's settings (seed 000's die-katze with vocabulary 270 and five
specials, seed 003's the-cat-in-the-hat with \\w+ chunks and first-seen ties, ...), each named
beside it, unless "keep my current settings" is ticked; a file always keeps them.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Checkbox, Input, Label, OptionList
from textual.widgets.option_list import Option

from tui.i18n import N_, _
from tui.model.confine import confinement_of
from tui.model.samples import Sample, samples


def sample_option(sample: Sample) -> Text:
    """A sample as the dialog lists it: its name and what it is for, then the settings it opens with."""
    text = Text()
    text.append(sample.name, style="bold")
    text.append(f" — {_(sample.description)}\n")
    text.append("  " + _("opens with: {settings}").format(settings=sample.settings_summary()), style="dim")
    return text


class OpenScreen(ModalScreen[str | None]):
    """Returns a path, ``sample:NAME``, or None when cancelled; :attr:`keep_settings` says
    whether a sample should keep the current settings instead of its own."""

    BINDINGS = [Binding("escape", "cancel", N_("Cancel"))]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="open-dialog"):
            yield Label(_("Open a corpus file"), classes="dialog-title")
            yield Input(placeholder=_("path to a text file, then Enter"), id="open-path")
            yield Label("", id="open-error", classes="dialog-error")
            yield Label(_("…or a bundled sample (↑↓, Enter), with its example's settings:"), classes="dialog-hint")
            yield Checkbox(_("keep my current settings instead"), id="open-keep", compact=True)
            yield OptionList(*[Option(sample_option(s), id=s.name) for s in samples()], id="open-samples")

    keep_settings = False
    """Open a sample with the current settings, not its example's (the checkbox; still readable
    after the dialog closes)."""

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        event.stop()
        self.keep_settings = event.value

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """A path that is no file is said here, and the dialog stays open to correct it."""
        event.stop()
        typed = event.value.strip()
        if not typed:
            return
        if typed.startswith("sample:"):
            self.dismiss(typed)
            return
        path, problem = self._checked(typed)
        if problem is None and not path.exists():
            problem = _("no such file: {path}").format(path=typed)
        elif problem is None and path.is_dir():
            problem = _("{path} is a folder: name a text file in it").format(path=typed)
        if problem:
            self.query_one("#open-error", Label).update(Text(problem))
            return
        self.dismiss(str(path))

    def _checked(self, typed: str) -> tuple[Path, str | None]:
        """The path typed, and why it cannot be opened in serve mode (outside the served folder,
        links resolved); None when it may be."""
        rules = confinement_of(self.app)
        if rules is None:
            return Path(typed).expanduser(), None
        try:
            return rules.readable(typed), None
        except ValueError as exc:
            return Path(typed), str(exc)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(f"sample:{event.option.id}")

    def action_cancel(self) -> None:
        self.dismiss(None)
