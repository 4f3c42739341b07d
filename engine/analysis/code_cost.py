"""What code costs in tokens (the lecture's §20, measured): tokens per line, the share spent on
indentation and on whitespace runs, and the same file reindented (tabs, 2 and 4 spaces) and with
its names in another convention (snake_case and camelCase).

- **indentation**: the tokens the file's leading whitespace costs, as the difference between the
  file and the file with every line's indentation removed;
- **whitespace runs**: the tokens that are whitespace only (two characters or more), over all;
- **reindented**: each line's indentation level (its leading width over the file's indent unit,
  a tab counting as one unit) written again as tabs, 2 spaces or 4 spaces;
- **names**: ``snake_case`` names written ``camelCase``, and ``camelCase`` names ``snake_case``.

Example::

    cost = code_cost(tok, source)
    cost.tokens, cost.per_line, cost.indentation_share, cost.variants["tabs"]
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from engine.encode.tokenizer import Tokenizer

_INDENT = re.compile(r"^[ \t]*", re.M)
_SNAKE = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")
_CAMEL = re.compile(r"\b[a-z][a-z0-9]*(?:[A-Z][a-z0-9]+)+\b")


def indent_unit(text: str) -> int:
    """The file's indentation unit in spaces: 4, 3 or 2 when most indented lines (four in five) are
    indented by a multiple of it, else the smallest indentation (4 when no line is indented with
    spaces). Continuation lines aligned by hand do not decide it."""
    widths = [len(m.group(0)) for m in re.finditer(r"^ +(?=\S)", text, re.M)]
    if not widths:
        return 4
    for unit in (4, 3, 2):
        if sum(1 for w in widths if w % unit == 0) >= 0.8 * len(widths):
            return unit
    return min(widths)


def reindent(text: str, indent: str) -> str:
    """``text`` with each line's indentation level written as ``indent`` (a tab counts as one
    level; spaces as their count over :func:`indent_unit`, leftover spaces kept)."""
    unit = indent_unit(text)

    def again(match: re.Match[str]) -> str:
        lead = match.group(0)
        tabs = lead.count("\t")
        spaces = len(lead) - tabs
        return indent * (tabs + spaces // unit) + " " * (spaces % unit)

    return _INDENT.sub(again, text)


def dedent_all(text: str) -> str:
    """``text`` with every line's leading whitespace removed."""
    return _INDENT.sub("", text)


def camel_case(text: str) -> str:
    """``snake_case`` names written ``camelCase``."""
    return _SNAKE.sub(lambda m: re.sub(r"_([a-z0-9])", lambda p: p.group(1).upper(), m.group(0)), text)


def snake_case(text: str) -> str:
    """``camelCase`` names written ``snake_case``."""
    return _CAMEL.sub(lambda m: re.sub(r"([A-Z])", lambda p: "_" + p.group(1).lower(), m.group(0)), text)


@dataclass(frozen=True)
class CodeCost:
    """A file's cost under one tokenizer (see the module doc): its tokens and lines, the tokens
    its indentation and its whitespace runs take, and each variant's tokens (``tabs``,
    ``2 spaces``, ``4 spaces``, ``camelCase``, ``snake_case``)."""

    tokens: int
    lines: int
    indentation: int
    whitespace_runs: int
    variants: dict[str, int] = field(default_factory=dict)

    @property
    def per_line(self) -> float:
        return self.tokens / max(self.lines, 1)

    @property
    def indentation_share(self) -> float:
        return self.indentation / max(self.tokens, 1)

    @property
    def whitespace_share(self) -> float:
        return self.whitespace_runs / max(self.tokens, 1)


def code_cost(tok: Tokenizer, text: str) -> CodeCost:
    """:class:`CodeCost` of ``text`` under ``tok``."""
    ids = tok.encode(text)
    runs = sum(1 for i in ids if len(piece := bytes(tok.pieces[i]) if i < len(tok.pieces) else b"") > 1
               and not piece.strip())
    variants = {name: len(tok.encode(changed)) for name, changed in (
        ("tabs", reindent(text, "\t")), ("2 spaces", reindent(text, "  ")), ("4 spaces", reindent(text, "    ")),
        ("camelCase", camel_case(text)), ("snake_case", snake_case(text)))}
    return CodeCost(len(ids), text.count("\n") + (0 if text.endswith("\n") or not text else 1),
                    len(ids) - len(tok.encode(dedent_all(text))), runs, variants)
