"""The compare tab's diff of two tokenizers, drawn to the pane's width: the tokens both have, each
one's own by script with the longest examples, where the merge orders part, the rank
correlation, the tokens per character by script over the typed text or the corpus, and the words
they split differently. Numbers are never cut: names and examples give way (cut with …)."""

from __future__ import annotations

from rich.cells import cell_len
from rich.console import Group, RenderableType
from rich.text import Text

from engine.text import token_display
from tui.app.theme import current
from tui.i18n import _
from tui.model.cells import fit
from tui.model.tokenizer_diff import TokenizerDiff

#: Script groups and examples a side shows.
GROUPS, EXAMPLES = 4, 4


def shown(token: bytes | None) -> str:
    """A token as the diff shows it: spaces as ·, control characters escaped."""
    if token is None:
        return "-"
    return repr(token_display(token, space="·"))[1:-1] if token else "''"


def vocabulary_lines(found: TokenizerDiff, width: int) -> list[Text]:
    """Shared, and each side's own tokens by script with examples."""
    diff = found.vocab
    sides = ((found.a, diff.only_a, found.groups_a), (found.b, diff.only_b, found.groups_b))
    numbers = [diff.shared, len(diff.only_a), len(diff.only_b),
               *(len(v) for _, _, groups in sides for v in list(groups.values())[:GROUPS])]
    numw = max(len(f"{n:,}") for n in numbers)
    namew = min(max(cell_len(_("shared")), cell_len(found.a), cell_len(found.b)), max(width // 3, 8))
    shared = _("shared")
    lines = [Text(f"  {fit(shared, namew)}  {diff.shared:>{numw},}")]
    for name, only, groups in sides:
        line = Text(f"  {fit(name, namew)}  {len(only):>{numw},}  ")
        line.append(_("only here"), style="dim")
        lines.append(line)
        for script, tokens in list(groups.items())[:GROUPS]:
            head = f"      {fit(script, 13)} {len(tokens):>{numw},}  "
            room = width - cell_len(head)
            examples = "  ".join(shown(t) for t in tokens[:EXAMPLES])
            line = Text(head)
            if room >= 6:
                line.append(fit(examples, room).rstrip(), style=current().accent)
            lines.append(line)
    return lines


def order_lines(found: TokenizerDiff) -> list[Text]:
    """Where the merge orders part, and how well they agree."""
    diff = found.vocab
    if diff.first_parting is None:
        order = _("merge order: one is the other's start") if diff.merges_a != diff.merges_b else _(
            "merge order: the same merges")
    else:
        order = _("merge order: they part at merge {k} ({a} against {b})").format(
            k=f"{diff.first_parting + 1:,}", a=shown(found.parting[0]), b=shown(found.parting[1]))
    lines = [Text("  " + order)]
    if diff.rank_correlation is not None:
        lines.append(Text("  " + _("rank correlation over the shared tokens (Spearman): {r}").format(
            r=f"{diff.rank_correlation:.3f}")))
    return lines


def script_lines(found: TokenizerDiff, width: int) -> list[Text]:
    """Tokens per character by script over the text, a row a script."""
    text = found.text
    head = (_("tokens per character on the first {n} characters of {source}") if found.cut
            else _("tokens per character on {source} ({n} characters)"))
    lines = [Text(head.format(source=found.source, n=f"{text.chars:,}"), style="bold")]
    lines.append(Text("  " + _("{a}: {ta} tokens ({pa} a character) · {b}: {tb} ({pb})").format(
        a=found.a, ta=f"{text.tokens_a:,}", pa=f"{text.tokens_a / max(text.chars, 1):.3f}",
        b=found.b, tb=f"{text.tokens_b:,}", pb=f"{text.tokens_b / max(text.chars, 1):.3f}")))
    if not text.scripts:
        return lines
    charw = max(cell_len(_("chars")), *(len(f"{s.chars:,}") for s in text.scripts))
    colw = min(max(cell_len(found.a), cell_len(found.b), 6), max((width - 2 - 13 - 1 - charw - 4) // 2, 6))
    def right(name: str, cells: int) -> str:
        kept = fit(name, cells).rstrip()
        return " " * (cells - cell_len(kept)) + kept

    script, chars = _("script"), _("chars")
    title = Text(f"  {fit(script, 13)} {right(chars, charw)}  {right(found.a, colw)}  {right(found.b, colw)}", style="dim")
    lines.append(title)

    def cell(value: float | None) -> str:
        return f"{'-' if value is None else f'{value:.3f}':>{colw}}"

    for share in text.scripts:
        lines.append(Text(f"  {fit(share.script, 13)} {share.chars:>{charw},}  {cell(share.per_char(0))}  "
                          f"{cell(share.per_char(1))}"))
    lines.append(Text("  " + _("(each character with its letters' script; spaces and punctuation with the letters "
                               "before them)"), style="dim"))
    return lines


def word_lines(found: TokenizerDiff, width: int) -> list[Text]:
    """The words the two split differently, most frequent first, with both splits."""
    if not found.text.differing:
        return [Text(_("no word is split differently"), style="dim")]
    lines = [Text(_("words split differently, most frequent first:"), style="bold")]
    for word, n, pa, pb in found.text.differing:
        line = Text(f"  {n:>6,}×  ")
        line.append(fit(word, max(width - 11, 4)).rstrip())
        lines.append(line)
        for name, pieces in ((found.a, pa), (found.b, pb)):
            split = f"{name}: {' | '.join(shown(t) for t in pieces)}"
            lines.append(Text("           " + fit(split, max(width - 11, 4)).rstrip(), style="dim"))
    return lines


def diff_view(found: TokenizerDiff, width: int, heading: str = "") -> RenderableType:
    """All of it, each part under the one before (``heading``: which pair, and the keys)."""
    width = width or 100
    parts: list[RenderableType] = []
    if heading:
        parts.append(Text(heading, style=f"italic {current().accent}"))
    diff = found.vocab
    parts.append(Text(_("{a} ({na} tokens) and {b} ({nb} tokens), by their bytes").format(
        a=found.a, na=f"{diff.size_a:,}", b=found.b, nb=f"{diff.size_b:,}"), style="bold"))
    parts += [*vocabulary_lines(found, width), *order_lines(found), Text("")]
    parts += [*script_lines(found, width), Text(""), *word_lines(found, width)]
    return Group(*parts)
