"""A wide character that a pane border cuts stays whole (a Textual bug, open upstream at
https://github.com/Textualize/textual/issues/6357).

Textual's compositor paints the screen in "chops": each line is cut at the left and right edge of
every widget on it, and each widget's line is divided at those cuts (``Strip.divide``). A toast
over the corpus pane and the pane beside it is divided at the border underneath, and a
double-width character straddling that cut is split into two spaces: ``训练已  束：…``.

:func:`install` replaces ``Compositor._render_chops`` with a copy that, where one widget paints
both chops either side of a cut and the cut falls inside a double-width character, moves that
cut one cell right for that line: the whole character goes to the left chop, and the right chop
starts one cell later. The chops of that line are then keyed by where they really start, and
``Compositor.render_partial_update`` (replaced too) takes each chop's end from the next chop's
start instead of from the cut list, and a span of the update that ended at a moved cut (a
widget's dirty region ends at its edge) ends one cell later, so the crop to the span does not
split the character again. The consumers are unchanged: a full update and
``render_strips`` join a line's chops in order (the SVG export is a full update), and a partial
update (``ChopsUpdate``, both ``render_segments`` and ``__rich_console__``) writes each chop at its
key and crops it to its end. A cut where another widget paints one side is left alone: there the
half of the character that shows is covered, and a space is right. (Textual still splits a
character where a dirty region ends inside one, away from any widget edge; nothing here needed
that, and it is left alone.)

The copies are of Textual 8.2.8's code. :func:`install` applies them only to Textual 8.x, and only
while the source of every function the patch replaces or relies on is the one it was written
against (:data:`FINGERPRINTS`); otherwise it does nothing and says why (:func:`install` returns
the reason, ``tests/app/test_wide_cuts.py``'s canary names the function that changed).
"""

from __future__ import annotations

import hashlib
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import textual
from textual import _compositor
from textual._compositor import ChopsUpdate, Compositor
from textual.geometry import Region
from textual.strip import Strip

#: The Textual major versions the patch was tested with.
TESTED_MAJOR = 8

#: sha256 of the source (``inspect.getsource``) of each function the patch replaces or whose
#: handling of the chops it relies on, as in Textual 8.2.8.
FINGERPRINTS: dict[str, str] = {
    "Compositor._render_chops": "ca8c3359d7afd0171bda158ab5b846fec5144539e438de5113d76f11eb357f0f",
    "Compositor.render_partial_update": "888dccc892d8ecc28bab71d9bf3a2983109bf88252471634214a586416d5dbc5",
    "Compositor.render_full_update": "ce99ccda4d2449b76cdcd3dc312f65d46f5df900704ca8bf89365ab24ccfae08",
    "Compositor.render_strips": "061fb81ef37c720cdb81901ccaaf81974aa3342860a343e3e142fdf5f81972e3",
    "ChopsUpdate.__rich_console__": "c45d5804ef810b783d2ca82c6c04a1a0621cc4fc0c3bd4fa55c72693e3cee317",
    "ChopsUpdate.render_segments": "4c1cdb567e0b8354bd70cb129da78a42314c39eb8aacd5bf21951cbd5aaba0ef",
    "LayoutUpdate.__rich_console__": "ea13f674300a5c3b1036b6c595d18a0c33892870874e78d1c91b77a6a0290a42",
    "LayoutUpdate.render_segments": "ff329c722506c98374a1801a33e197fe5daf16df1e192fbfbedefc50a81cd2e5",
    "Strip.divide": "f6764f25c39e144b942b4358ca8d3d7afe98dd01c23514ac55b2b6b9bc57ad3a",
}

_ORIGINALS: dict[str, Callable[..., Any]] = {
    "_render_chops": Compositor._render_chops,
    "render_partial_update": Compositor.render_partial_update,
}
_installed = False


def _function(name: str) -> Callable[..., Any]:
    owner, attribute = name.split(".")
    function = getattr(getattr(_compositor, owner), attribute)
    return _ORIGINALS.get(attribute, function) if owner == "Compositor" else function


def fingerprint(name: str) -> str | None:
    """The sha256 of the installed Textual's source of ``name`` ("Class.method"); None when the
    source cannot be read (a frozen build)."""
    try:
        source = inspect.getsource(_function(name))
    except (OSError, TypeError):
        return None
    return hashlib.sha256(source.encode()).hexdigest()


def changed() -> list[str]:
    """The functions in :data:`FINGERPRINTS` whose installed source is not the one the patch was
    written against (a source that cannot be read counts as changed)."""
    return [name for name, expected in FINGERPRINTS.items() if fingerprint(name) != expected]


def install() -> str | None:
    """Apply the patch once (later calls do nothing). Returns None when it is applied, or the
    reason it was not: another Textual major version, or a function that changed."""
    global _installed
    if _installed:
        return None
    version = textual.__version__
    if version.split(".")[0] != str(TESTED_MAJOR):
        return f"textual {version}: the wide-character patch is for textual {TESTED_MAJOR}.x"
    if names := changed():
        return f"textual {version}: {', '.join(names)} changed since the wide-character patch was written"
    Compositor._render_chops = _render_chops  # type: ignore[method-assign]
    Compositor.render_partial_update = _render_partial_update  # type: ignore[method-assign]
    _installed = True
    return None


def uninstall() -> None:
    """Put Textual's own functions back (for tests)."""
    global _installed
    for name, function in _ORIGINALS.items():
        setattr(Compositor, name, function)
    _installed = False


def installed() -> bool:
    return _installed


class _Chops(list):
    """The chops of a screen, one dict per line, and the cuts moved on each line that has any."""

    moved: dict[int, set[int]]


def _splits(strip: Strip, cut: int) -> bool:
    """Would dividing ``strip`` at cell ``cut`` split a character (turn it into spaces)?"""
    position = 0
    for segment in strip._segments:
        end = position + segment.cell_length
        if end > cut:
            if position == cut or segment.text.isascii():
                return False
            before, after = segment.split_cells(cut - position)
            return before.text + after.text != segment.text
        position = end
    return False


def _whole_cuts(strip: Strip, cuts: list[int], pairs: list[int]) -> list[int]:
    """Where to divide ``strip`` (cell offsets ``cuts``, the last one its end): each inner cut
    ``cuts[index]`` with ``index`` in ``pairs`` (this strip paints the chops either side) that
    splits a character moves one cell right."""
    moved = cuts
    for index in pairs:
        cut = cuts[index]
        if _splits(strip, cut) and cut + 1 <= cuts[index + 1] and not _splits(strip, cut + 1):
            if moved is cuts:
                moved = list(cuts)
            moved[index] = cut + 1
    return moved


def _render_chops(
    self: Compositor,
    crop: Region,
    is_rendered_line: Callable[[int], bool],
) -> Sequence[Mapping[int, Strip]]:
    """Textual 8.2.8's ``Compositor._render_chops``, and a cut inside a double-width character
    moves right when both its chops are this render's (see the module's docstring)."""
    cuts = self.cuts
    fromkeys = dict.fromkeys
    chops: _Chops = _Chops(fromkeys(cut_set[:-1]) for cut_set in cuts)
    #: Per line, the cuts moved one cell right: each such chop's content starts after its key.
    chops.moved = {}

    renders = self._get_renders(crop)
    intersection = Region.intersection

    for region, clip, strips in renders:
        render_region = intersection(region, clip)
        render_x = render_region.x
        first_cut, last_cut = render_region.column_span

        for y, strip in zip(render_region.line_range, strips):
            if not is_rendered_line(y):
                continue

            chops_line = chops[y]
            final_cuts = [cut for cut in cuts[y] if (last_cut >= cut >= first_cut)]
            divide_at = [cut - render_x for cut in final_cuts[1:]]
            get_chops_line = chops_line.get
            if len(divide_at) > 1:
                # Inner cuts with both chops still free: this strip paints both sides.
                free = [get_chops_line(cut) is None for cut in final_cuts[:-1]]
                pairs = [index for index in range(len(free) - 1) if free[index] and free[index + 1]]
                divided = _whole_cuts(strip, divide_at, pairs) if pairs else divide_at
                if divided is not divide_at:
                    for index, (cut, at) in enumerate(zip(divide_at, divided)):
                        if at != cut:
                            chops.moved.setdefault(y, set()).add(final_cuts[index + 1])
                    divide_at = divided
            cut_strips = strip.divide(divide_at)

            # Since we are painting front to back, the first segments for a cut "wins"
            for cut, strip in zip(final_cuts, cut_strips):
                if get_chops_line(cut) is None:
                    chops_line[cut] = strip

    for y, late in chops.moved.items():
        # Key each chop by where its content starts; an emptied one (the next cut was one cell
        # on) goes. Done after painting: lower renders look the chops up by the cut positions.
        chops[y] = {
            (cut + 1 if cut in late else cut): strip
            for cut, strip in chops[y].items()
            if not (cut in late and strip is not None and not strip.cell_length)
        }
    return chops


def _render_partial_update(self: Compositor) -> ChopsUpdate | None:
    """Textual 8.2.8's ``Compositor.render_partial_update``, and on a line with a moved cut each
    chop ends where the next starts, and a span that ended at the cut ends one cell later (a
    widget's dirty region ends at its edge: cropped there, the whole character would be split
    again)."""
    screen_region = self.size.region
    update_regions = self._dirty_regions.copy()
    self._dirty_regions.clear()
    if update_regions:
        crop = Region.from_union(update_regions).intersection(screen_region)
        spans = list(self._regions_to_spans(update_regions))
        is_rendered_line = {y for y, _, _ in spans}.__contains__
    else:
        return None
    chops = self._render_chops(crop, is_rendered_line)
    cuts = self.cuts
    chop_ends = [cut_set[1:] for cut_set in cuts]
    moved: dict[int, set[int]] = getattr(chops, "moved", {})
    for y in moved:
        chop_ends[y] = [*list(chops[y])[1:], cuts[y][-1]]
    if moved:
        spans = [(y, x1, x2 + 1 if x2 in moved.get(y, ()) else x2) for y, x1, x2 in spans]
    return ChopsUpdate(chops, spans, chop_ends)
