"""The compiled backend's glue for counting a text that is not all ASCII under the gpt2 pattern
(``count_gpt2`` in ``count.pxi``): each character's class as the pattern tells them apart
(``\\p{L}``, ``\\p{N}``, ``\\s``, the rest), read off the ``regex`` module itself, which runs the
pattern on the pure path, so that both split by the same Unicode tables. The pure path has none
of this: it runs the pattern over the text (:class:`engine.text.pretokenize.PreTokenizer`).

Only the characters a text holds are asked (a few thousand for Chinese, one C pass finds them:
``distinct_chars``), and each is asked once in a process.

Example: ``classes("a1 ,")`` is 1 (letter) at ``ord("a")``, 2 (digit) at ``ord("1")``, 3 (space)
at 32 and 4 (the rest) at ``ord(",")``, 0 elsewhere.
"""

from __future__ import annotations

from functools import cache
from typing import Any


@cache
def _class_pattern() -> Any:
    """One character's class: the number of the group that matches it (compiled on first use:
    ``bpe-lab encode`` on the compiled path never imports ``regex``)."""
    import regex

    return regex.compile(r"(\p{L})|(\p{N})|(\s)|(.)", regex.DOTALL)


#: Each code point's class once asked (0: not asked yet), up to the largest asked.
_known = bytearray()


def classes(chars: str) -> bytes:
    """The class of every character of ``chars`` (1 letter, 2 digit, 3 space, 4 the rest) by
    code point, a table as long as the largest of them plus one (0 for those not in ``chars``
    and not asked before)."""
    known = _known
    top = max(map(ord, chars), default=-1)
    if top >= len(known):
        known.extend(bytes(top + 1 - len(known)))
    new = "".join(c for c in chars if not known[ord(c)])
    for match in _class_pattern().finditer(new):
        known[ord(match.group())] = match.lastindex or 4
    return bytes(known[: top + 1])
