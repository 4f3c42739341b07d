"""What the compare tab draws for a text (no state; the pane, tui/app/widgets/compare_pane.py,
holds that): each tokenizer's pieces coloured with its counts, the trained and added ones aligned
by character (tui/app/widgets/aligned_view.py), and with nothing typed the token tax on the
bundled parallel sentences (seed 003 §18)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from engine.analysis import Segmenter, Tax, align, languages, token_tax
from engine.text import token_display
from tui.app.theme import current
from tui.app.widgets.aligned_view import aligned_view
from tui.i18n import _
from tui.model.cells import seal


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


def _tax_cell(count: str, entry: Tax) -> Text:
    """A language's token count and its ratio to English (marked above 1.2×)."""
    cell = Text(count)
    if entry.ratio is not None:
        cell.append(f" {entry.ratio:.2f}×", style=f"bold {current().accent}" if entry.ratio > 1.2 else "dim")
    return cell


def tax_table(segmenters: Sequence[Segmenter], groups: Sequence[dict[str, str]], taxes: Sequence[dict[str, Tax]] | None = None) -> Table:
    """Tokens per language over all parallel sentences, and the ratio to English (``taxes``: each
    segmenter's :func:`token_tax`, when measured already)."""
    langs = languages(groups)
    taxes = [token_tax(seg, groups) for seg in segmenters] if taxes is None else taxes
    table = Table(box=None, padding=(0, 1), header_style="bold")
    table.add_column(_("tokenizer"), no_wrap=True)
    for lang in langs:
        table.add_column(lang, justify="right", no_wrap=True)
    for seg, tax in zip(segmenters, taxes):
        cells = []
        for lang in langs:
            entry = tax[lang]
            cells.append(_tax_cell(f"{entry.tokens}", entry))
        table.add_row(Text(seg.name), *cells)
        if any(tax[lang].unknown for lang in langs):  # its own row: a count with a word, no "?"
            table.add_row(Text("  " + _("unknown"), style=current().error),
                          *(Text(f"{tax[lang].unknown}", style=current().error) for lang in langs))
    return table


def tax_view(segmenters: Sequence[Segmenter], groups: Sequence[dict[str, str]], width: int = 0) -> RenderableType:
    """:func:`tax_table` where it fits ``width`` whole (0: any width); in a narrower pane (beside
    a lesson at 80 columns) each tokenizer as a list item instead, its languages packed into
    lines between entries, so that no count or header is cut."""
    taxes = [token_tax(seg, groups) for seg in segmenters]  # measured once, for the table or the list
    table = tax_table(segmenters, groups, taxes)
    if not width or _table_cells(table) <= width:
        return table
    langs = languages(groups)
    lines: list[RenderableType] = []
    for seg, tax in zip(segmenters, taxes):
        lines.append(Text("▪ " + seg.name, style="bold"))
        entries = []
        for lang in langs:
            entry = tax[lang]
            item = _tax_cell(f"{lang} {entry.tokens}", entry)
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
