"""Compare text: what you type through several tokenizers at once, each coloured, with counts (the
trained one and those added by name or file aligned by character, as ``bpe-lab compare-text``);
with nothing typed, the token tax on the bundled parallel sentences (seed 003 §18); on ``d``, the
diff of two of them. The pane holds the state and the workers; what it draws is
tui/app/widgets/compare_views.py's and diff_view.py's."""

from __future__ import annotations

import os
from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

from rich.cells import cell_len
from rich.console import Group, RenderableType
from rich.text import Text
from textual import on, work
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Input, Static

from engine import Tokenizer
from engine.analysis import BpeSegmenter, Segmenter, Table, languages, parse_parallel, token_tax
from engine.formats import by_name, fetched, load_any
from tui.app.theme import current
from tui.app.widgets.compare_views import parallel_view, side_by_side
from tui.app.widgets.diff_view import diff_view
from tui.app.widgets.field import Field
from tui.i18n import N_, _, engine_message
from tui.model.confine import Confinement, confinement_of
from tui.model.samples import sample
from tui.model.tokenizer_diff import TokenizerDiff, diff_tokenizers


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
        self._adding: set[str] = set()  # names and files being loaded (added once)
        self._asked: list[str] = []  # every name or file asked for, in order: the rows keep it
        self._rank: dict[str, int] = {}  # a row's name -> where it was asked for
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
            self.add(event.value.strip())

    def add(self, typed: str) -> None:
        """Add a tokenizer: a file in any format or a name (``o200k``), loaded in a worker; in
        serve mode only a file inside the served folder, or a fetched name's. A name already
        shown is not added again (a lesson's step shown twice)."""
        if typed in self._adding or any(seg.name == typed for seg in self.extra):
            return
        self._asked.append(typed)
        path = typed
        rules = confinement_of(self.app)
        entry = by_name(path) if not os.path.exists(path) else None
        if entry is not None:  # a name (o200k): its fetched file, kept where serve mode may read it
            found = fetched(entry)
            if found is None:  # load_any says how to fetch it
                self._load(path, None, path)
                return
            if getattr(self.app.lab, "lesson", None) is not None:  # a lesson's need loaded it once already
                self._adding.add(typed)
                self._load(typed, None, typed, shared=True)
                return
            path = str(found)
        if rules is not None:  # serve mode: only files inside the served folder (links resolved)
            try:
                path = str(rules.readable(path))
            except ValueError as exc:
                self.app.notify(str(exc), title=_("cannot load tokenizer"), severity="error", markup=False)
                return
        self._adding.add(typed)
        self._load(path, rules, typed)

    @work(thread=True, group="analysis-load", exit_on_error=False)
    def _load(self, path: str, rules: Confinement | None = None, typed: str = "", *, shared: bool = False) -> None:
        """Load a tokenizer file (``shared``: a fetched name through the lessons' one copy a
        process, tui.lessons.real, which lesson 005's ``need`` filled)."""
        try:
            if shared:
                from tui.lessons.real import named as lesson_tokenizer

                tokenizer = lesson_tokenizer(typed)
            else:
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
        self._adding.discard(message.typed)
        if message.tokenizer is None:
            self.app.notify(engine_message(message.error or _("cannot load")), title=_("cannot load tokenizer"), severity="error",
                            markup=False)  # a name not fetched yet: the one line saying bpe-lab fetch NAME
            return
        named = by_name(message.typed) is not None and not os.path.exists(message.typed)  # o200k, not a file
        shown = message.typed if named else Path(message.name).name
        asked = self._asked.index(message.typed) if message.typed in self._asked else len(self._asked)
        self._rank[shown] = asked
        self.extra.append(BpeSegmenter(message.tokenizer, shown))
        self.extra.sort(key=lambda seg: self._rank.get(seg.name, len(self._asked)))  # as asked, whichever loaded first
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

    @property
    def segmenters(self) -> list[Segmenter]:
        """What the tab compares, in its order: the trained BPE, the added tokenizers, the baselines."""
        shown, _note = self._shown
        return [shown[0], *self.extra, *shown[1:]] if shown else []

    def tax_table(self) -> Table:
        """The token tax on the bundled parallel sentences of every tokenizer compared, as
        ``bpe-lab tax --csv`` writes it (the analysis screen's ``x`` exports it)."""
        rows = []
        for seg in self.segmenters:
            tax = token_tax(seg, self.groups)
            rows += [(seg.name, lang, tax[lang].tokens, "" if tax[lang].ratio is None else round(tax[lang].ratio, 4),
                      tax[lang].unknown) for lang in languages(self.groups)]
        return Table("token_tax", ("tokenizer", "language", "tokens", "ratio_to_en", "unknown"), rows,
                     {"sentences": len(self.groups)})

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
