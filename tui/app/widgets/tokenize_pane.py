"""Tokenized output: what you type, encoded live with the current vocabulary."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich.cells import cell_len
from rich.text import Text
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Input, Static

from engine import Tokenizer
from engine.encode import TRACE_LIMIT
from engine.text import inert, token_display
from tui.app.theme import current
from tui.app.widgets.field import Field
from tui.i18n import N_, _


def id_line(shown: Sequence[int | None]) -> str:
    """Ids as the pane shows and copies them: ``18435 995 0`` ("?" for a token a replayed
    tokenizer's file has no id for)."""
    return " ".join("?" if i is None else str(i) for i in shown)


def is_whole_piece(tok: Tokenizer, token: int) -> bool:
    """A token no merge makes, which only a rank file's whole-chunk lookup gives (Llama 3's
    " Belediyesi"): its id follows the merges."""
    return len(tok.pieces) <= token < len(tok.pieces) + len(tok.whole_pieces)


def normalized_line(tok: Tokenizer, text: str) -> Text | None:
    """What the tokenizer's normalizer makes of ``text`` (NFKC turns "，" into ","), when that
    differs: it is what is split and merged. None without a normalizer or a change."""
    if tok.normalizer is None:
        return None
    normalized = tok.normalize(text)
    if normalized == text:
        return None
    return Text(_("normalized: {text}").format(text=inert(normalized)), style="dim")


def render_tokens(tok: Tokenizer, ids: list[int], text: str, shown: Sequence[int | None] | None = None,
                  width: int = 0) -> Text:
    """The tokens coloured, then their ids (``shown``: as the user sees them, e.g. a replayed
    file's; default ``ids``), then counts. With a ``width``, the tokens are packed into lines of
    that many cells so that none is broken across two (``[f0 9f]`` holds a space). A normalized
    text is shown first; whole pieces are underlined, and a line says why."""
    out = Text()
    normalized = normalized_line(tok, text)
    if normalized is not None:
        out.append_text(normalized)
        out.append("\n")
    used = 0
    wholes = 0
    prefix = tok.subword_prefix
    # a prefix tokenizer whose pattern drops the spaces: a space between words, as decoding puts it
    spaced = prefix is not None and tok.end_of_word is None and tok.pretokenizer.name == "custom"
    for index, token in enumerate(ids):
        piece = token_display(tok.token_bytes(token))
        mark = ""
        if prefix is not None and tok.continues_word(token):
            mark, piece = token_display(prefix.encode("utf-8")), token_display(tok.token_bytes(token)[len(prefix.encode("utf-8")):])
        gap = " " if spaced and index and not mark else ""
        cells = cell_len(gap + mark + piece)
        if width and used and used + cells > width:
            out.append("\n")
            used = 0
            cells -= len(gap)
            gap = ""
        style = current().on_token(index)
        if is_whole_piece(tok, token):
            wholes += 1
            style = f"{style} underline"
        out.append(gap)
        if mark:
            out.append(mark, style=f"{style} dim")
        out.append(piece, style=style)
        used += cells
    out.append("\n")
    if wholes:
        out.append(_("underlined: whole pieces, tokens of the file that no merge makes; "
                     "a chunk is looked up whole first, as tiktoken does") + "\n", style="dim")
    out.append(id_line(ids if shown is None else shown), style="dim")
    chars = len(text)
    per = chars / len(ids) if ids else 0.0
    out.append("\n" + _("{tokens} tokens · {chars} characters · {per} characters/token").format(
        tokens=len(ids), chars=chars, per=f"{per:.2f}"), style="italic")
    return out


def _words(text: str) -> list[str]:
    """``text`` cut after each space that is not inside a byte group: the places a trace line
    may break (``[e4 b8]`` holds a space that must not end a line)."""
    words, start, depth = [], 0, 0
    for index, char in enumerate(text):
        if char == "[":
            depth += 1
        elif char == "]":
            depth = max(depth - 1, 0)
        elif char == " " and not depth:
            words.append(text[start:index + 1])
            start = index + 1
    if start < len(text):
        words.append(text[start:])
    return words


class _Packer:
    """Appends pieces to a Text, breaking lines of ``width`` cells only between pieces (0: never);
    a continued line is indented by two cells."""

    def __init__(self, out: Text, width: int) -> None:
        self.out, self.width, self.used = out, width, 0

    def add(self, piece: str, style: str | None = None) -> None:
        cells = cell_len(piece.rstrip(" "))
        if self.width and self.used > 2 and self.used + cells > self.width:
            self.out.append("\n  ")
            self.used = 2
        self.out.append(piece, style=style)
        self.used += cell_len(piece)

    def line(self) -> None:
        self.out.append("\n")
        self.used = 0


def render_trace(tok: Tokenizer, text: str, width: int = 0) -> Text:
    """Seed 003 §11.4: each rule that fired and the segmentation after it. With a ``width``, a
    long line wraps between tokens (after a ``|``), never inside one's ``[e4 b8]``."""
    out = Text()
    if len(text) > TRACE_LIMIT:
        out.append(_("the trace is for short texts (at most {n} characters)").format(n=TRACE_LIMIT), style="dim")
        return out
    start, steps = tok.encode_trace(text)
    normalized = normalized_line(tok, text)
    if normalized is not None:
        out.append_text(normalized)
        out.append("\n")
    pack = _Packer(out, width)

    def segmentation(ids: list[int]) -> None:
        shown = [token_display(tok.token_bytes(i), space="·") for i in ids]
        for index, piece in enumerate(shown):
            pack.add(piece + ("|" if index < len(shown) - 1 else ""))
        pack.line()

    for word in _words(_("start:") + " "):
        pack.add(word, "dim")
    segmentation(start)
    wholes = [token_display(tok.token_bytes(i), space="·") for i in start if is_whole_piece(tok, i)]
    if wholes:
        note = _("found whole, no rule makes them: {tokens}").format(tokens=" ".join(wholes))
        for word in _words(note + " "):
            pack.add(word, "dim")
        pack.line()
    for step in steps:
        a, b = step.pair
        rule = _("rule {n}: {pair}").format(
            n=step.rule, pair=f"{token_display(tok.token_bytes(a), space='·')} + {token_display(tok.token_bytes(b), space='·')}")
        for word in _words(rule + " "):
            pack.add(word, current().accent)
        pack.add(f"×{step.places} → ", "dim")
        segmentation(step.tokens)
    if not steps:
        out.append(_("no rule applies"), style="dim")
    return out


#: The input's placeholder, and a shorter one for a narrow pane.
PLACEHOLDERS = (N_("e: type text to tokenize"), N_("e: type text"))


class TokenInput(Field):
    """The tokenize pane's input line: its own keys are the ones that work while typing (the
    footer shows them; the letters of the main screen's keys type instead)."""

    BINDINGS = [
        Binding("escape", "screen.focus_log", N_("Leave"), tooltip=N_("leave the input (back to the merge log)")),
        Binding("ctrl+y", "screen.copy_ids", N_("Copy ids"), tooltip=N_("copy the ids of the text typed here")),
        Binding("ctrl+q", "quit_app", N_("Quit"), tooltip=N_("quit (asks when there is unsaved work)")),
    ]

    handles_quit = True
    """ctrl+q is bound here (the app's quit is off while typing here, or the footer would show q)."""

    def __init__(self, **kwargs) -> None:
        super().__init__(select_on_focus=False, **kwargs)  # coming back must not select the text

    def on_focus(self) -> None:
        """Focus (Tab or the main screen's ``e``) lands with the cursor after the text."""
        self.cursor_position = len(self.value)

    async def action_quit_app(self) -> None:
        """ctrl+q while typing: the app's quit is disabled here because its ``q`` would type."""
        await self.app.action_quit()


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
        yield TokenInput(placeholder=_(PLACEHOLDERS[0]), id="tokenize-input")
        # The output's height is capped (app.tcss) and scrolls, so a long text never squeezes the
        # inspector above it.
        with VerticalScroll(id="tokenize-scroll"):
            yield Static("", id="tokenize-output")

    @property
    def text(self) -> str:
        return self.query_one(Input).value

    def on_resize(self) -> None:
        """The longest placeholder that fits the input whole (beside a lesson at 80 columns the
        pane is 20 cells wide)."""
        field = self.query_one(Input)
        room = field.content_region.width or self.content_region.width - 2
        field.placeholder = next((_(p) for p in PLACEHOLDERS if cell_len(_(p)) <= room), _(PLACEHOLDERS[-1]))

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.Changed(event.value))

    def show(self, tok: Tokenizer | None, shown: Callable[[list[int]], list[int | None]] | None = None) -> list[int]:
        """Encode the current text with ``tok`` and draw it; returns the ids. ``shown`` turns
        them into the ids the user sees (a replayed file's)."""
        text = self.text
        if tok is None or not text:
            self._draw(Text(""))
            return []
        ids = tok.encode(text)
        output = self.query_one("#tokenize-output", Static)
        width = max(output.size.width - output.styles.padding.left - output.styles.padding.right, 0)
        if self.trace:
            self._draw(render_trace(tok, text, width))
        else:
            self._draw(render_tokens(tok, ids, text, shown(ids) if shown is not None else None, width))
        return ids

    def show_problem(self, message: str) -> None:
        """Say why the text could not be encoded (the pane keeps working)."""
        self._draw(Text(message, style=current().error))

    def _draw(self, content: Text) -> None:
        """Repaint the output; a layout pass only when its height may have changed."""
        if content == self._shown:
            return
        lines = str(content).count("\n")
        self.query_one("#tokenize-output", Static).update(content, layout=lines != self._shown_lines)
        self._shown, self._shown_lines = content, lines
