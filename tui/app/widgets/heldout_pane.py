"""Held-out evaluation (seed 002's "500 unseen poems"): the setting, the numbers, a segmentation."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Input, Label, Static

from tui.app.theme import current as palette
from tui.app.widgets.field import Field
from tui.i18n import _
from tui.model.evaluation import DEFAULT_SETTING, Evaluated


def render_report(result: Evaluated, label: str, current: int) -> Text:
    """Seed 002's held-out report for one step."""
    report = result.report
    text = Text()
    text.append(_("held-out: {label}").format(label=label), style="bold")
    if result.row.corpus_chars != report.characters:
        text.append(" · " + _("training text {n} characters").format(n=f"{result.row.corpus_chars:,}"), style="dim")
    text.append("\n")
    if result.step != current:
        text.append(_("bpe at step {step} (training on less text stops sooner than step {current})").format(
            step=result.step, current=current) + "\n", style=palette().accent)
    else:
        text.append(_("bpe at step {step}").format(step=result.step) + "\n", style="dim")
    text.append("  " + _("{bytes} bytes, {chars} characters → {tokens} tokens, {per} characters per token").format(
        bytes=f"{report.bytes:,}", chars=f"{report.characters:,}", tokens=f"{report.tokens:,}", per=f"{report.chars_per_token:.2f}")
        + "\n")
    text.append("  " + _("the training text has {n} distinct characters; {share} of the held-out characters never occur "
                         "in it ({unseen} distinct)").format(n=f"{report.training_distinct:,}", share=f"{report.unseen_share:.1%}",
                                                             unseen=report.unseen_distinct) + "\n")
    if report.unknown:
        text.append("  " + _("{n} characters are outside the alphabet (id 0, U+FFFD)").format(n=f"{report.unknown:,}") + "\n",
                    style=palette().accent)
    text.append("\n" + _("example:") + " ", style="bold")
    text.append(report.sample + "\n")
    text.append("  " + _("cut into:") + " ", style="bold")
    for index, piece in enumerate(report.sample_pieces):
        if index:
            text.append(" | ", style="dim")
        text.append(piece, style=palette().partial if piece.startswith("[") else palette().segment)
    text.append("\n\n")
    text.append((_("decoding gives back the held-out text exactly") if report.roundtrip
                 else _("decoding does not give back the held-out text exactly (unknown characters)")) + "\n", style="dim")
    return text


class HeldOutPane(Vertical):
    """A line for the held-out setting (a file, or a share of the corpus) and the report."""

    DEFAULT_CSS = """
    HeldOutPane { height: 1fr; }
    HeldOutPane > Static { padding: 0 1; }
    HeldOutPane > Horizontal { height: auto; }
    HeldOutPane Label { padding: 0 0 0 1; width: auto; }
    HeldOutPane Horizontal > Input { width: 1fr; }
    """

    @dataclass
    class Changed(Message):
        """Enter in the setting line: evaluate on this held-out text."""

        setting: str

    def compose(self):
        with Horizontal():
            yield Label(_("held out:"), id="heldout-label")
            yield Field(value=DEFAULT_SETTING, placeholder=_("a file, or a share like 10% (Enter)"),
                        id="heldout-setting", tooltip=_("a held-out text file, or the share of the corpus to hold back "
                                                        "(its last lines, cut at a line start); Enter measures on it"))
        yield Static("", id="heldout-report")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(self.Changed(event.value))

    def show(self, text: Text) -> None:
        self.query_one("#heldout-report", Static).update(text)
