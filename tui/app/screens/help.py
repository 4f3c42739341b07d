"""The help screen: every key (from tui.app.keys), what it does, and what the panes show."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from tui.app.keys import key_rows
from tui.app.theme import current
from tui.i18n import N_, _

PANES = [
    (N_("corpus"), N_("the text cut into the current tokens; the last merged token stands out")),
    (N_("candidates"), N_("the pairs that could merge next, with counts; = marks a tie (a replay: the file's next merge first)")),
    (N_("merge log"), N_("every merge: left + right → new, its count, corpus tokens after (* = tie, not in a replay)")),
    (N_("inspector"), N_("a token's bytes, their UTF-8 roles, how it was built, its frequency")),
    (N_("tokenize"), N_("e, then type text to see it encoded with the vocabulary of this step (ctrl+y copies the ids)")),
    (N_("code"), N_("v: the reference trainer's code in place of the panes, the line that decides this step marked ▶ "
                    "(the line that stops training ■), and the step's values: the top pairs, why this pair, the new id, "
                    "the corpus length before and after")),
]


class HelpScreen(ModalScreen[None]):
    """Keys and panes; any of escape, q or ? closes it."""

    BINDINGS = [Binding("escape,q,question_mark", "close", N_("Close"))]

    def compose(self) -> ComposeResult:
        keys = Table(box=None, show_header=False, padding=(0, 2))
        keys.add_column(style=f"bold {current().accent}", no_wrap=True)
        keys.add_column()
        for key, what in key_rows():  # Text: "[hex bytes]" is not markup
            keys.add_row(Text(key.replace("`", "")), Text(what.replace("`", "")))
        panes = Table(box=None, show_header=False, padding=(0, 2))
        panes.add_column(style="bold", no_wrap=True)
        panes.add_column()
        for name, what in PANES:
            panes.add_row(Text(_(name)), Text(_(what)))
        with VerticalScroll(classes="dialog help"):
            title = Text(_("bpe-lab — keys"), style="bold")
            title.append("   " + _("escape (or ?) closes this help"), style="dim")
            yield Static(title, id="help-title")
            yield Static(keys)
            yield Static(Text("\n" + _("panes"), style="bold"))
            yield Static(panes)
            yield Static(Text("\n" + _("escape closes this help"), style="dim"))

    def action_close(self) -> None:
        self.dismiss(None)
