"""Line breaking for prose in Chinese as well as in English and German.

Rich and Textual wrap at spaces only: a run of Chinese without spaces is one "word", so when it
does not fit after a Latin word or a piece of code it moves whole to the next line and leaves
the line before it half empty (``一个汉字在 UTF-8`` / ``里是三个字节——种子的例子``). Chinese
may break between any two characters, except before closing punctuation (，。、）…) and after
opening punctuation (（「《…), the rule the Unicode line-breaking algorithm (UAX #14) and every
CJK typesetter follow. :func:`break_offsets` finds those places, and :class:`BrokenLines` is a
Textual visual that wraps its content there (the lesson pane's Markdown uses it).
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from rich.cells import cell_len, get_character_cell_size
from textual.content import Content
from textual.css.styles import RulesMap
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual

#: Never at the start of a line: closing punctuation, Chinese and Latin (kinsoku).
NO_BREAK_BEFORE = frozenset("，。、；：？！）」』》〉】〕〗｝］…‥ー々～・’”,.;:!?)]}%—")
#: Never at the end of a line: opening punctuation.
NO_BREAK_AFTER = frozenset("（「『《〈【〔〖｛［‘“([{")


@lru_cache(maxsize=4096)
def _wide(char: str) -> bool:
    """A character that breaks like a Chinese one: wide (two cells) in a terminal."""
    return unicodedata.east_asian_width(char) in "WF"


def opportunities(text: str) -> list[int]:
    """The indices where a line may begin, in order (never 0).

    Example: ``opportunities("在 UTF-8 里是") -> [2, 8, 9]``; ``opportunities("字，字") -> [2]``
    """
    found = []
    for i in range(1, len(text)):
        before, char = text[i - 1], text[i]
        if char.isspace():
            continue  # spaces end the piece before them (and vanish at a line's end)
        if before.isspace():
            found.append(i)
        elif char in NO_BREAK_BEFORE or before in NO_BREAK_AFTER:
            continue
        elif _wide(before) or _wide(char):
            found.append(i)
        elif before == "-" and char.isalpha() and i >= 2 and text[i - 2].isalpha():
            found.append(i)  # a hyphenated German compound: Fortsetzungs-|Byte
    return found


def break_offsets(text: str, width: int, hang: int = 0) -> list[int]:
    """Indices to break one line of ``text`` at so that each piece fits ``width`` cells (spaces at
    a piece's end not counted; lines after the first ``hang`` cells fewer, for an indent); a
    piece wider than a line is cut where the line ends.

    Example: ``break_offsets("一个汉字在 UTF-8 里是三个字节", 12) -> [6, 15]``
    (``一个汉字在`` / ``UTF-8 里是三`` / ``个字节``)
    """
    first, width = max(width, 2), max(width - hang, 2)
    starts = [0, *opportunities(text), len(text)]
    breaks: list[int] = []
    used = 0
    for start, end in zip(starts, starts[1:]):
        piece = text[start:end]
        cells = cell_len(piece.rstrip())
        if used + cells <= (width if breaks else first):
            used += cell_len(piece)
            continue
        if used and start:
            breaks.append(start)
            used = 0
        if cells <= (width if breaks else first):
            used = cell_len(piece)
            continue
        for offset, char in enumerate(piece, start):  # longer than a line: cut it by cells
            size = get_character_cell_size(char)
            if used + size > (width if breaks else first) and not char.isspace():
                if offset:
                    breaks.append(offset)
                used = 0
            used += size
    return [b for b in breaks if b]


def break_lines(content: Content, width: int, hang: int = 0) -> Content:
    """``content`` with a newline at each break :func:`break_offsets` finds for ``width``, and
    ``hang`` spaces before each line a break made (a hanging indent)."""
    lines: list[Content] = []
    for line in content.split("\n", allow_blank=True):
        pieces = [piece.rstrip() for piece in line.divide(break_offsets(line.plain, width, hang))]
        lines.extend([pieces[0], *(piece.pad_left(hang) for piece in pieces[1:])])
    return Content("\n").join(lines)


class BrokenLines(Visual):
    """Content wrapped at :func:`break_offsets` (so between Chinese characters), then drawn as
    Textual draws content; for any widget: ``Static(BrokenLines(content))``."""

    def __init__(self, content: Content, hang: int = 0) -> None:
        self.content = content
        self.hang = hang  # lines a break made start this many cells in
        self._cache: tuple[int, Content] | None = None

    def __str__(self) -> str:
        return str(self.content)

    def lines(self, width: int) -> Content:
        if self._cache is None or self._cache[0] != width:
            self._cache = (width, break_lines(self.content, width, self.hang))
        return self._cache[1]

    def render_strips(self, width: int, height: int | None, style: Style, options: RenderOptions) -> list[Strip]:
        pad = options.rules.get("line_pad", 0) * 2
        return self.lines(width - pad).render_strips(width, height, style, options)

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return self.content.get_optimal_width(rules, container_width)

    def get_minimal_width(self, rules: RulesMap) -> int:
        text = self.content.plain
        starts = [0, *opportunities(text), len(text)]
        return max((cell_len(text[a:b].strip()) for a, b in zip(starts, starts[1:])), default=0)

    def get_height(self, rules: RulesMap, width: int) -> int:
        pad = rules.get("line_pad", 0) * 2
        return self.lines(width - pad).get_height(rules, width)
