"""Compare text: what you type through several tokenizers at once, each coloured, with counts (the
trained one and those added by name or file aligned by character, as ``bpe-lab compare-text``);
with nothing typed, the token tax on the bundled parallel sentences (seed 003 §18)."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

from rich.cells import cell_len
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Input, Static

from engine import Tokenizer
from engine.analysis import BpeSegmenter, Segmenter, align, languages, parse_parallel, token_tax
from engine.formats import load_any
from engine.text import token_display
from tui.app.theme import current
from tui.app.widgets.aligned_view import aligned_view
from tui.app.widgets.diff_view import diff_view
from tui.app.widgets.field import Field
from tui.i18n import N_, _, engine_message
from tui.model.cells import seal
from tui.model.confine import Confinement, confinement_of
from tui.model.samples import sample
from tui.model.tokenizer_diff import TokenizerDiff, diff_tokenizers


def unknown_style() -> str:
    """An unknown token: on a red tint of the theme's background."""
    palette = current()
    return f"{palette.text} on {palette.unknown_bg}"


def coloured(segmenter: Segmenter, text: str, width: int = 0, used: int = 0) -> Text:
    """The tokens of ``text`` on alternating backgrounds; unknown tokens in red. With a
    ``width``, lines are broken between tokens only (``used``: cells the first line already has),
    never inside one's ``[e5 88]``, which holds a space where the terminal would wrap."""
    out = Text()
    for index, piece in enumerate(segmenter.segment(text)):
        style = unknown_style() if piece.unknown else current().on_token(index)
        shown = seal(token_display(piece.data))  # a dangling joiner joins nothing
        cells = cell_len(shown)
        if width and used and used + cells > width:
            out.append("\n")
            used = 0
        out.append(shown, style=style)
        used += cells
    return out


def through_each(text: str, segmenters: Sequence[Segmenter], width: int = 0) -> RenderableType:
    """``text`` through every tokenizer: name, counts, then the coloured tokens."""
    parts: list[RenderableType] = []
    for seg in segmenters:
        tokens, unknown = seg.count(text)
        head = Text()
        head.append(f"{seg.name}", style="bold")
        head.append("  " + _("{n} tokens · {per} chars/token").format(n=tokens, per=f"{len(text) / tokens if tokens else 0:.2f}"),
                    style="dim")
        if unknown:
            head.append(" · " + _("{n} unknown").format(n=unknown), style=current().error)
        parts += [head, coloured(seg, text, width), Text("")]
    return Group(*parts)


def side_by_side(text: str, aligned: Sequence[Segmenter], others: Sequence[Segmenter], width: int = 0) -> RenderableType:
    """``text`` through the trained and the added tokenizers aligned by character (as ``bpe-lab
    compare-text``; one that normalizes the text is listed by its pieces), then through the
    baselines, each on its own lines."""
    found = align(text, [(seg.name, [piece.data for piece in seg.segment(text)]) for seg in aligned])
    parts: list[RenderableType] = [
        Text(_("aligned by character: │ where a tokenizer cuts, ^ under the cuts they disagree on"), style="dim"),
        aligned_view(found, width), Text(""),
    ]
    unaligned = [seg for seg, row in zip(aligned, found.rows) if row.cuts is None]
    return Group(*parts, through_each(text, [*unaligned, *others], width))


def tax_table(segmenters: Sequence[Segmenter], groups: Sequence[dict[str, str]]) -> Table:
    """Tokens per language over all parallel sentences, and the ratio to English."""
    langs = languages(groups)
    table = Table(box=None, padding=(0, 1), header_style="bold")
    table.add_column(_("tokenizer"), no_wrap=True)
    for lang in langs:
        table.add_column(lang, justify="right", no_wrap=True)
    for seg in segmenters:
        tax = token_tax(seg, groups)
        cells = []
        for lang in langs:
            entry = tax[lang]
            cell = Text(f"{entry.tokens}")
            if entry.ratio is not None:
                cell.append(f" {entry.ratio:.2f}×", style=f"bold {current().accent}" if entry.ratio > 1.2 else "dim")
            cells.append(cell)
        table.add_row(Text(seg.name), *cells)
        if any(tax[lang].unknown for lang in langs):  # its own row: a count with a word, no "?"
            table.add_row(Text("  " + _("unknown"), style=current().error),
                          *(Text(f"{tax[lang].unknown}", style=current().error) for lang in langs))
    return table


def tax_view(segmenters: Sequence[Segmenter], groups: Sequence[dict[str, str]], width: int = 0) -> RenderableType:
    """:func:`tax_table` where it fits ``width`` whole (0: any width); in a narrower pane (beside
    a lesson at 80 columns) each tokenizer as a list item instead, its languages packed into
    lines between entries, so that no count or header is cut."""
    table = tax_table(segmenters, groups)
    if not width or _table_cells(table) <= width:
        return table
    langs = languages(groups)
    lines: list[RenderableType] = []
    for seg in segmenters:
        tax = token_tax(seg, groups)
        lines.append(Text("▪ " + seg.name, style="bold"))
        entries = []
        for lang in langs:
            entry = tax[lang]
            item = Text(f"{lang} {entry.tokens}")
            if entry.ratio is not None:
                item.append(f" {entry.ratio:.2f}×", style=f"bold {current().accent}" if entry.ratio > 1.2 else "dim")
            if entry.unknown:
                item.append(" " + _("{n} unknown").format(n=entry.unknown), style=current().error)
            entries.append(item)
        line, used = Text("  "), 2
        for index, item in enumerate(entries):
            gap = 3 if index else 0
            if used > 2 and used + gap + item.cell_len > width:
                lines.append(line)
                line, used, gap = Text("  "), 2, 0
            if gap:
                line.append(" · ", style="dim")
            line.append_text(item)
            used += gap + item.cell_len
        lines.append(line)
    return Group(*lines)


def _table_cells(table: Table) -> int:
    """The cells ``table`` takes with every cell whole (its columns' widest cell, and padding)."""
    left, right = table.padding[3], table.padding[1]
    total = 0
    for column in table.columns:
        cells = [Text.from_markup(column.header) if isinstance(column.header, str) else column.header, *column.cells]
        total += max(cell_len(cell.plain if isinstance(cell, Text) else str(cell)) for cell in cells) + left + right
    return total


def parallel_view(segmenters: Sequence[Segmenter], groups: Sequence[dict[str, str]], index: int,
                  width: int = 0) -> RenderableType:
    """The token tax table, then one group of sentences through the first tokenizer."""
    if not groups or not segmenters:
        return Text(_("no parallel sentences"), style="dim")
    group = groups[index % len(groups)]
    first = segmenters[0]
    parts: list[RenderableType] = [
        Text(_("the token tax on the bundled parallel sentences: tokens, × English; unknown: pieces outside its vocabulary"),
             style="bold"),
        tax_view(segmenters, groups, width),
        Text("\n" + _("sentence {n} of {total} through {name} (Esc, then p: next; type above for your own text)").format(
            n=index % len(groups) + 1, total=len(groups), name=first.name),
             style="bold"),
    ]
    for lang, sentence in group.items():
        line = Text(f"{lang} {first.count(sentence)[0]:>3}  ", style="dim")
        line.append_text(coloured(first, sentence, width, line.cell_len))
        parts.append(line)
    return Group(*parts)


class ComparePane(Vertical):
    """Two input lines (text to compare; a tokenizer file to add) and the comparison.

    The screen hands down the current BPE and the baselines (:meth:`show`); tokenizer files the
    user adds are loaded here, in a thread worker, and kept in :attr:`extra`.
    """

    DEFAULT_CSS = """
    ComparePane { height: 1fr; }
    ComparePane > VerticalScroll { height: 1fr; padding: 0 1; scrollbar-gutter: stable; }
    """

    @dataclass
    class Loaded(Message):
        """A worker read a tokenizer file (or failed with ``error``)."""

        name: str
        tokenizer: Tokenizer | None
        error: str | None = None
        typed: str = ""  # what the input held: cleared once it is added, ready for the next

    @dataclass
    class Diffed(Message):
        """A worker diffed two tokenizers (``key``: which, over what; or failed with ``error``)."""

        key: tuple
        found: TokenizerDiff | None
        error: str | None = None

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.groups = parse_parallel(sample("parallel.txt").read_bytes().decode("utf-8"))
        self.sentence = 0  # which parallel group is shown segmented
        self.extra: list[BpeSegmenter] = []  # tokenizer files added here
        self._shown: tuple[list[Segmenter], str] = ([], "")
        self.corpus = ""  # the corpus's text, which the diff reads when nothing is typed
        #: Which pair of tokenizers the diff shows (None: the text through all of them).
        self.diff_pair: int | None = None
        self._diffed: tuple[tuple, TokenizerDiff | None, str | None] | None = None  # key, found, error
        self._diffing: tuple | None = None  # the key a worker is diffing (one at a time: typing waits for it)

    #: Each input's placeholders, longest first: the longest that fits is shown (beside a lesson
    #: at 80 columns the pane is narrow).
    PLACEHOLDERS = {
        "compare-text": (N_("type text to compare (empty: the parallel sentences)"), N_("text to compare")),
        "compare-tokenizer": (N_("add a tokenizer: a file in any format, or a name such as o200k (Enter)"),
                              N_("add a tokenizer file (Enter)"), N_("tokenizer file")),
    }

    def compose(self):
        for name, shown in self.PLACEHOLDERS.items():
            yield Field(placeholder=_(shown[0]), id=name)
        with VerticalScroll():
            yield Static("", id="compare-output")

    @property
    def text(self) -> str:
        return self.query_one("#compare-text", Input).value

    def on_resize(self) -> None:
        """The longest placeholders that fit, and the output packed to the new width."""
        for name, shown in self.PLACEHOLDERS.items():
            field = self.query_one(f"#{name}", Input)
            room = field.content_region.width or self.content_region.width - 4
            field.placeholder = next((_(p) for p in shown if cell_len(_(p)) <= room), _(shown[-1]))
        self.redraw()

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        if event.input.id == "compare-text":
            self.redraw()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id == "compare-tokenizer" and event.value.strip():
            path = event.value.strip()
            rules = confinement_of(self.app)
            if rules is not None:  # serve mode: only files inside the served folder (links resolved)
                try:
                    path = str(rules.readable(path))
                except ValueError as exc:
                    self.app.notify(str(exc), title=_("cannot load tokenizer"), severity="error", markup=False)
                    return
            self._load(path, rules, event.value.strip())

    @work(thread=True, group="analysis-load", exit_on_error=False)
    def _load(self, path: str, rules: Confinement | None = None, typed: str = "") -> None:
        try:
            with rules.reading() if rules is not None else nullcontext():  # serve: its files stay in the root
                tokenizer = load_any(path).tokenizer
        except (OSError, ValueError) as exc:
            self.post_message(self.Loaded(path, None, str(exc), typed))
            return
        except (Exception, MemoryError) as exc:  # a loader's bug: said, and the pane goes on
            self.post_message(self.Loaded(path, None, f"{path}: {type(exc).__name__}: {exc}", typed))
            return
        self.post_message(self.Loaded(path, tokenizer, None, typed))

    @on(Loaded)
    def _loaded(self, message: Loaded) -> None:
        message.stop()
        if message.tokenizer is None:
            self.app.notify(engine_message(message.error or _("cannot load")), title=_("cannot load tokenizer"), severity="error",
                            markup=False)  # a name not fetched yet: the one line saying bpe-lab fetch NAME
            return
        self.extra.append(BpeSegmenter(message.tokenizer, Path(message.name).name))
        field = self.query_one("#compare-tokenizer", Input)
        if message.typed and field.value.strip() == message.typed:
            field.value = ""
        self.redraw()

    def on_unmount(self) -> None:
        """The screen closed: let go of the tokenizers (a finished worker's arguments can keep
        the screen, and so this pane, alive a while: tui/app/screens/analysis.py)."""
        self.extra = []
        self._shown = ([], "")
        self._diffed = None

    def next_sentence(self) -> None:
        self.sentence += 1
        self.redraw()

    def show(self, bpe: Segmenter, baselines: Sequence[Segmenter], note: str = "", corpus: str = "") -> None:
        """Compare with the current BPE, the added tokenizers and these baselines (``corpus``:
        what the diff reads when nothing is typed)."""
        self._shown = ([bpe, *baselines], note)
        self.corpus = corpus
        self.redraw()

    def pairs(self) -> list[tuple[BpeSegmenter, BpeSegmenter]]:
        """The pairs the diff can show: the trained one with each added one, then the added ones
        with each other."""
        shown = self._shown[0]
        ours = [shown[0]] if shown and isinstance(shown[0], BpeSegmenter) else []
        both = [*ours, *self.extra]
        return [(a, b) for i, a in enumerate(both) for b in both[i + 1:]]

    def next_diff(self) -> None:
        """``d``: the diff of the next pair of tokenizers, and after the last the text again."""
        count = len(self.pairs())
        self.diff_pair = 0 if self.diff_pair is None else self.diff_pair + 1
        if self.diff_pair >= max(count, 1):
            self.diff_pair = None
        self.redraw()

    def diff_body(self, width: int) -> RenderableType:
        """The diff of the chosen pair: drawn when measured, else measured in a worker."""
        pairs = self.pairs()
        if not pairs:
            return Text(_("add a tokenizer (a name such as o200k, or a file) to diff it against the trained one; "
                          "Esc, then d: back to the text"), style="italic")
        index = (self.diff_pair or 0) % len(pairs)
        a, b = pairs[index]
        text, source = (self.text, _("the typed text")) if self.text else (self.corpus, _("the corpus"))
        key = (id(a.tokenizer), id(b.tokenizer), a.name, b.name, hash(text))
        heading = _("diff {n} of {total}: Esc, then d: the next pair (after the last, the text again)").format(
            n=index + 1, total=len(pairs))
        if self._diffed is not None and self._diffed[0] == key:
            _key, found, error = self._diffed
            if found is not None:
                return diff_view(found, width, heading)
            return Text(error or _("cannot diff"), style=current().error)
        if self._diffing is None:  # else, when it reports, the pane asks again for what it shows then
            self._diffing = key
            self._diff(key, (a.name, a.tokenizer), (b.name, b.tokenizer), text, source)
        return Group(Text(heading, style=f"italic {current().accent}"),
                     Text(_("comparing {a} and {b} …").format(a=a.name, b=b.name), style="italic dim"))

    @work(thread=True, group="analysis-diff", exit_on_error=False)
    def _diff(self, key: tuple, a: tuple[str, Tokenizer], b: tuple[str, Tokenizer], text: str, source: str) -> None:
        try:
            found = diff_tokenizers(a, b, text, source=source)
        except (Exception, MemoryError) as exc:  # said in the pane; the app goes on
            self.post_message(self.Diffed(key, None, f"{type(exc).__name__}: {exc}"))
            return
        self.post_message(self.Diffed(key, found))

    @on(Diffed)
    def _diff_done(self, message: Diffed) -> None:
        message.stop()
        self._diffing = None
        self._diffed = (message.key, message.found, message.error)
        self.redraw()

    def redraw(self) -> None:
        shown, note = self._shown
        if not shown:
            return
        segmenters = [shown[0], *self.extra, *shown[1:]]
        text = self.text
        # The output's width beside the scroll bar, whether one shows yet or not (a stable gutter):
        # rows packed to the width before the bar appeared were cut at the right edge.
        width = self.query_one(VerticalScroll).scrollable_content_region.width
        if self.diff_pair is not None:
            body = self.diff_body(width)
        elif text:
            body = side_by_side(text, [shown[0], *self.extra], shown[1:], width)
        else:
            body = parallel_view(segmenters, self.groups, self.sentence, width)
        parts: list[RenderableType] = [body]
        if note:
            parts.append(Text(note, style=f"italic {current().accent}"))
        self.query_one("#compare-output", Static).update(Group(*parts))
