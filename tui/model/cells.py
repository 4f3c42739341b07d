"""Text measured in terminal cells, for every table: 天 and 👍 take two cells, a combining
accent none, and a cut never leaves half a wide character.

Rich (and so Textual) counts a character that follows a zero-width joiner as part of the joined
sequence, zero cells wide; a terminal draws a space there. A token that ends in a joiner (BPE
learns "👩\u200d" on the way to "👩\u200d👩\u200d👧") would make everything after it on the line one
cell off, so :func:`seal` ends such text with a zero-width space, which nothing joins across.
"""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size

ZWJ, ZWSP = "\u200d", "\u200b"


def seal(text: str) -> str:
    """``text``, ended with a zero-width space if it ends in a joiner (see the module's note).

    Example: ``seal("👩\\u200d") -> '👩\\u200d\\u200b'``; ``seal("ab") -> 'ab'``
    """
    return text + ZWSP if text.endswith(ZWJ) else text


def fit_parts(text: str, width: int) -> tuple[str, str]:
    """:func:`fit`, as the text kept and what follows it: ``"…"`` and padding when cut, padding
    alone when whole, so a pane can draw the cut unlike any text ("…" is also a token: GPT-2's
    merge 49993 makes "…" + ".").

    Example: ``fit_parts("abcdef", 4) -> ('abc', '…')``; ``fit_parts("ab", 4) -> ('ab', '  ')``
    """
    fitted = fit(text, width)
    kept = seal(text)
    if fitted.startswith(kept) and fitted[len(kept):].strip() == "":
        return kept, fitted[len(kept):]
    at = fitted.rfind("…")
    return fitted[:at], fitted[at:]


def fit(text: str, width: int) -> str:
    """``text`` in exactly ``width`` terminal cells: padded, or cut with "…". A cut never splits a
    wide character (it becomes a space) or a byte group: a token's ``[f0 9f 91]`` is shown whole
    or not at all, and the inspector shows the whole token.

    Example: ``fit("abcdef", 4) -> 'abc…'``; ``fit("ab", 4) -> 'ab  '``; ``fit("天长安", 4) -> '天 …'``;
    ``fit("·[f0 9f 91]x", 8) -> '·…      '``
    """
    text = seal(text)
    cells = cell_len(text)
    if cells <= width:
        return text + " " * (width - cells)
    if width <= 0:
        return ""
    cut = set_cell_size(text, width - 1)
    opened = cut.rfind("[")
    if opened > cut.rfind("]") and "]" in text[opened:]:  # inside a byte group: cut before it
        cut = cut[:opened]
    cut = seal(cut)
    return cut + "…" + " " * (width - 1 - cell_len(cut))
