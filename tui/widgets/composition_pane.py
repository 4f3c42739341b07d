"""Vocabulary composition (seed 002): complete characters, multi-character tokens, partial UTF-8."""

from __future__ import annotations

from typing import Sequence

from rich.text import Text
from textual.widgets import Static

from engine import token_display
from engine.analysis import KINDS, LABELS, Composition

from .corpus_view import PALETTE

BAR = 24


def token_row(text: Text, title: str, ids: Sequence[int], vocab: Sequence[bytes]) -> None:
    """A titled row of tokens on alternating backgrounds (whitespace visible)."""
    text.append(f"\n{title}\n", style="bold")
    if not ids:
        text.append("none yet\n", style="dim")
        return
    for index, token in enumerate(ids):
        text.append(token_display(vocab[token], space="·"), style=f"on {PALETTE[index % len(PALETTE)]}")
        text.append(" ")
    text.append("\n")


class CompositionPane(Static):
    """How many learned tokens are one character, several, or partial UTF-8; the earliest of each
    kind and the longest tokens."""

    DEFAULT_CSS = """
    CompositionPane { padding: 0 1; }
    """

    def show(self, comp: Composition | None, vocab: Sequence[bytes] = (), step: int = 0) -> None:
        if comp is None:
            self.update(Text("no corpus yet", style="dim"))
            return
        text = Text()
        text.append(f"{comp.learned} learned tokens", style="bold")
        text.append(f" (merges 1–{step})\n" if step else " — make some merges (n, or space to run)\n", style="dim")
        for kind in KINDS:
            count = comp.counts[kind]
            share = comp.share(kind)
            text.append(f"{count:>7} {share:>6.1%} ")
            text.append("█" * round(BAR * share), style="#e9c46a" if kind == "partial" else "#6c8ebf")
            text.append(" " * (BAR - round(BAR * share) + 1) + LABELS[kind] + "\n")
        token_row(text, "earliest tokens of two or more characters", comp.earliest["multi"], vocab)
        token_row(text, "earliest partial UTF-8 tokens (bytes in brackets)", comp.earliest["partial"], vocab)
        token_row(text, "earliest single characters", comp.earliest["char"], vocab)
        token_row(text, "longest tokens", comp.longest, vocab)
        self.update(text)
