"""Tokenized output: what you type, encoded live with the current vocabulary."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Input, Static

from engine import TRACE_LIMIT, Tokenizer, token_display

from .corpus_view import PALETTE


def render_tokens(tok: Tokenizer, ids: list[int], text: str) -> Text:
    out = Text()
    for index, token in enumerate(ids):
        out.append(token_display(tok.token_bytes(token)), style=f"on {PALETTE[index % len(PALETTE)]}")
    out.append("\n")
    out.append(" ".join(map(str, ids)), style="dim")
    chars = len(text)
    per = chars / len(ids) if ids else 0.0
    out.append(f"\n{len(ids)} tokens · {chars} characters · {per:.2f} characters/token", style="italic")
    return out


def render_trace(tok: Tokenizer, text: str) -> Text:
    """Seed 003 §11.4: each rule that fired and the segmentation after it."""
    out = Text()
    if len(text) > TRACE_LIMIT:
        out.append(f"the trace is for short texts (at most {TRACE_LIMIT} characters)", style="dim")
        return out
    start, steps = tok.encode_trace(text)
    show = lambda ids: "|".join(token_display(tok.token_bytes(i), space="·") for i in ids)  # noqa: E731
    out.append("start: ", style="dim")
    out.append(show(start) + "\n")
    for step in steps:
        a, b = step.pair
        rule = f"rule {step.rule}: {token_display(tok.token_bytes(a), space='·')} + {token_display(tok.token_bytes(b), space='·')}"
        out.append(rule, style="#e9c46a")
        out.append(f" ×{step.places} → ", style="dim")
        out.append(show(step.tokens) + "\n")
    if not steps:
        out.append("no rule applies", style="dim")
    return out


class TokenizePane(Vertical):
    """An input line and its tokens (coloured), ids, counts; ``trace`` shows rule by rule."""

    DEFAULT_CSS = """
    TokenizePane { height: auto; }
    TokenizePane > Input { margin: 0; }
    """

    trace: reactive[bool] = reactive(False)
    """Show the rule-by-rule encoding instead of the result."""

    @dataclass
    class Changed(Message):
        """The text to tokenize changed."""

        text: str

    _shown: Text | None = None
    _shown_lines = -1

    def compose(self):
        yield Input(placeholder="type text to tokenize", id="tokenize-input")
        # The output's height is capped (app.tcss) and scrolls, so a long text never squeezes the
        # inspector above it.
        with VerticalScroll(id="tokenize-scroll"):
            yield Static("", id="tokenize-output")

    @property
    def text(self) -> str:
        return self.query_one(Input).value

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.Changed(event.value))

    def show(self, tok: Tokenizer | None) -> list[int]:
        """Encode the current text with ``tok`` and draw it; returns the ids."""
        text = self.text
        if tok is None or not text:
            self._draw(Text(""))
            return []
        ids = tok.encode(text)
        self._draw(render_trace(tok, text) if self.trace else render_tokens(tok, ids, text))
        return ids

    def show_problem(self, message: str) -> None:
        """Say why the text could not be encoded (the pane keeps working)."""
        self._draw(Text(message, style="#e07a5f"))

    def _draw(self, content: Text) -> None:
        """Repaint the output; a layout pass only when its height may have changed."""
        if content == self._shown:
            return
        lines = str(content).count("\n")
        self.query_one("#tokenize-output", Static).update(content, layout=lines != self._shown_lines)
        self._shown, self._shown_lines = content, lines
