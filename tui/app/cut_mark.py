"""A value cut to fit a column ends in "…" drawn in reverse video: "…" is also a token (GPT-2's
merge 49993 makes "…" + "."), and a cut must never be read as one."""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from rich.text import Text

from tui.model.cells import fit_parts

#: How a cut's "…" is drawn over the style of its cell.
CUT = Style(reverse=True)


def fit_segments(text: str, width: int, style: Style) -> list[Segment]:
    """``text`` in exactly ``width`` cells, as segments: the cut mark, if any, in :data:`CUT`."""
    kept, tail = fit_parts(text, width)
    if not tail.startswith("…"):
        return [Segment(kept + tail, style)]
    return [Segment(kept, style), Segment("…", style + CUT), Segment(tail[1:], style)]


def fit_text(text: str, width: int, style: str | Style = "") -> Text:
    """:func:`fit_segments` as a Rich ``Text`` (for a pane that builds one)."""
    kept, tail = fit_parts(text, width)
    out = Text(kept, style=style)
    if tail.startswith("…"):
        out.append("…", style=Style.parse(style) + CUT if isinstance(style, str) else style + CUT)
        tail = tail[1:]
    out.append(tail, style=style)
    return out
