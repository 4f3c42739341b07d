"""BPE beside the baselines: vocabulary, tokens on the training text and held-out text, unknowns,
characters per token (seed 002's char tokenizer, seed 004's word level, WordPiece, Unigram)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rich.cells import cell_len, set_cell_size
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from engine.analysis import Row
from tui.app.cut_mark import fit_text
from tui.app.theme import current
from tui.i18n import N_, _


def _number(value: int | None) -> str:
    return "–" if value is None else f"{value:,}"


TITLES = (N_("tokenizer"), N_("vocab"), N_("training text"), N_("held-out"), N_("unknown"), N_("chars/token"))
#: Cells between two columns.
GAP = 2
#: The least a tokenizer's name keeps before the table becomes a list.
LEAST_NAME = 6


def title_lines(title: str, width: int) -> list[str]:
    """A column title broken at spaces and between Chinese characters (then folded) into lines
    of at most ``width`` cells.

    Example: ``title_lines("training text", 8) -> ['training', 'text']``; ``title_lines("训练文本", 4)
    -> ['训练', '文本']``
    """
    lines: list[str] = []
    for word in pieces(title):
        while cell_len(word) > width:  # a word longer than the column: folded
            cut = set_cell_size(word, width).rstrip()
            lines.append(cut)
            word = word[len(cut):]
        joint = "" if lines and (lines[-1][-1:] in "/-" or _wide(lines[-1][-1:]) or _wide(word[:1])) else " "
        if lines and cell_len(lines[-1]) + len(joint) + cell_len(word) <= width:
            lines[-1] += joint + word
        elif word:
            lines.append(word)
    return lines or [""]


#: A character a line may break before or after with no space: CJK writing (its titles have no
#: spaces: "训练文本" took eight cells a column where the numbers need five, and the tokenizer's
#: name was cut to "bpe（ …" beside a lesson at 80 columns).
_CJK = "\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef"


def _wide(ch: str) -> bool:
    return bool(ch) and bool(re.match(f"[{_CJK}]", ch))


def two_lines(title: str) -> int:
    """The narrowest column a title fits in on at most two lines (a Chinese title broken to one
    character a line stood four lines high).

    Example: ``two_lines("training text") -> 8``; ``two_lines("留出文本") -> 4``
    """
    width = max(cell_len(word) for word in pieces(title))
    while len(title_lines(title, width)) > 2:
        width += 1
    return width


def pieces(title: str) -> list[str]:
    """A title's words, broken after "/" and "-" too, and each CJK character a piece of its own.

    Example: ``pieces("chars/token") -> ['chars/', 'token']``; ``pieces("字符/词元") -> ['字', '符/', '词', '元']``
    """
    return re.findall(f"[{_CJK}][/-]?|[^\\s/{_CJK}-]+[/-]?|[/-]", title)


class RowsTable:
    """One row per tokenizer, sized to the pane: numbers are never cut. Where the pane is narrow
    (beside a lesson at 80 columns) the titles wrap and the names give way (cut, with the cut
    mark), and where even that does not fit each tokenizer becomes a line of its own."""

    def __init__(self, rows: Sequence[Row]) -> None:
        self.rows = list(rows)
        self.values = [
            None if row.note is not None else
            [_number(row.vocab_size), _number(row.corpus_tokens), _number(row.heldout_tokens), _number(row.unknown),
             "–" if row.chars_per_token is None else f"{row.chars_per_token:.3f}"]
            for row in self.rows
        ]

    def _name_style(self, row: Row) -> str:
        return f"bold {current().accent}" if row.name.startswith("bpe") else ""

    def __rich_console__(self, console, options):
        width = options.max_width
        titles = [_(t) for t in TITLES]
        numbers = [max([cell_len(v[i]) for v in self.values if v is not None], default=1) for i in range(5)]
        words = [two_lines(titles[i + 1]) for i in range(5)]
        name = max([cell_len(r.name) for r in self.rows] + [cell_len(titles[0])])
        layouts = ([max(n, cell_len(t)) for n, t in zip(numbers, titles[1:])],  # whole titles
                   [max(n, w) for n, w in zip(numbers, words)])  # titles wrapped at spaces (CJK: anywhere)
        for least in (name, min(name, LEAST_NAME)):  # whole names if some layout has room, else cut ones
            for columns in layouts:
                room = width - sum(columns) - GAP * 5
                if room >= least:
                    yield from self._table(titles, min(name, room), columns)
                    return
        yield from self._list(titles, width)

    def _table(self, titles: list[str], name: int, columns: list[int]):
        heads = [title_lines(t, w) for t, w in zip(titles, [name, *columns])]
        height = max(map(len, heads))
        for line in range(height):
            text = Text(style="bold")
            for index, (head, w) in enumerate(zip(heads, [name, *columns])):
                part = head[line - (height - len(head))] if line >= height - len(head) else ""  # titles sit on the rows
                pad = " " * (w - cell_len(part))
                text.append((part + pad) if index == 0 else (" " * GAP + pad + part))
            yield text
        for row, values in zip(self.rows, self.values):
            text = fit_text(row.name, name, self._name_style(row))
            if values is None:
                text.append(" " * GAP)
                text.append(row.note, style=current().accent)
            else:
                for index, (value, w) in enumerate(zip(values, columns)):
                    style = current().error if index == 3 and row.unknown else ""
                    text.append(" " * (GAP + w - cell_len(value)) + value, style=style)
            yield text

    def _list(self, titles: list[str], width: int):
        for row, values in zip(self.rows, self.values):
            text = Text(row.name, style=self._name_style(row))
            if values is None:
                text.append(": " + row.note, style=current().accent)
            else:
                text.append(": " + " · ".join(f"{t} {v}" for t, v in zip(titles[1:], values)))
            yield text


def rows_table(rows: Sequence[Row]) -> RowsTable:
    """One row per tokenizer; a tokenizer that could not be built shows why instead."""
    return RowsTable(rows)


class BaselinesPane(Static):
    """The comparison table with a line on what was trained on what."""

    DEFAULT_CSS = """
    BaselinesPane { padding: 0 1; }
    """

    def show(self, rows: Sequence[Row], label: str, vocab_size: int | None, pending: str | None = None,
             part: int | None = None) -> None:
        """``part``: the characters WordPiece and Unigram trained on, when a served tab's memory
        budget bounded them (None: the whole training text)."""
        grid = Table.grid()
        grid.add_column(overflow="fold")  # a line of Chinese has no space to wrap at: folded, never cut
        head = Text()
        head.append(_("held-out: {label}").format(label=label), style="bold")
        if vocab_size is not None:
            head.append(" · " + _("baselines trained on the training text at vocabulary {n} "
                                  "(b: retrain at the current one)").format(n=f"{vocab_size:,}"), style="dim")
        grid.add_row(head)
        grid.add_row(Text(""))
        grid.add_row(rows_table(rows))
        if pending:
            grid.add_row(Text("\n" + pending, style=f"italic {current().accent}"))
        grid.add_row(Text("\n" + _("unknown and chars/token are measured on the held-out text; the word tokenizer "
                                 "drops whitespace, WordPiece splits on it, Unigram and BPE keep it"), style="dim"))
        if part is not None:
            grid.add_row(Text(_("WordPiece and Unigram trained on the first {n} characters of the training text: "
                                "a browser tab's memory is bounded (in a terminal they train on all of it)").format(
                n=f"{part:,}"), style="dim"))
        self.update(grid)
