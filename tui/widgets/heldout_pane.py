"""Held-out evaluation (seed 002's "500 unseen poems"): the setting, the numbers, a segmentation."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Input, Label, Static

from ..evaluation import DEFAULT_SETTING, Evaluated
from ..theme import current as palette


def render_report(result: Evaluated, label: str, current: int) -> Text:
    """Seed 002's held-out report for one step."""
    report = result.report
    text = Text()
    text.append(f"held-out: {label}", style="bold")
    if result.row.corpus_chars != report.characters:
        text.append(f" · training text {result.row.corpus_chars:,} characters", style="dim")
    text.append("\n")
    if result.step != current:
        text.append(f"bpe at step {result.step} (training on less text stops sooner than step {current})\n", style=palette().accent)
    else:
        text.append(f"bpe at step {result.step}\n", style="dim")
    text.append(f"  {report.bytes:,} bytes, {report.characters:,} characters → ")
    text.append(f"{report.tokens:,} tokens", style="bold")
    text.append(f", {report.chars_per_token:.2f} characters per token\n")
    text.append(f"  the training text has {report.training_distinct:,} distinct characters; ")
    text.append(f"{report.unseen_share:.1%}", style="bold")
    text.append(f" of the held-out characters never occur in it ({report.unseen_distinct} distinct)\n")
    if report.unknown:
        text.append(f"  {report.unknown:,} characters are outside the alphabet (id 0, U+FFFD)\n", style=palette().accent)
    text.append("\nexample: ", style="bold")
    text.append(report.sample + "\n")
    text.append("  cut into: ", style="bold")
    for index, piece in enumerate(report.sample_pieces):
        if index:
            text.append(" | ", style="dim")
        text.append(piece, style=palette().partial if piece.startswith("[") else palette().segment)
    text.append("\n\n")
    text.append("decoding gives back the held-out text exactly\n" if report.roundtrip
                else "decoding does not give back the held-out text exactly (unknown characters)\n", style="dim")
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
            yield Label("held out:", id="heldout-label")
            yield Input(value=DEFAULT_SETTING, placeholder="a file, or a share like 10% (Enter)",
                        id="heldout-setting", tooltip="a held-out text file, or the share of the corpus to hold back "
                        "(its last lines, cut at a line start); Enter measures on it")
        yield Static("", id="heldout-report")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(self.Changed(event.value))

    def show(self, text: Text) -> None:
        self.query_one("#heldout-report", Static).update(text)
