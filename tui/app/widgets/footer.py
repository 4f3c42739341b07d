"""The footer, fitted to the terminal: it shows as many of the shown keys as fit in one line
beside ``^p palette``, in the app's language, dropping the least important first (``tui.app.keys.FOOTER_PRIORITY``), so no
label is ever cut. Every key stays in the palette (ctrl+p) and the help (?)."""

from __future__ import annotations

from rich.cells import cell_len
from textual import events
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

from tui.app.keys import FOOTER_PRIORITY
from tui.i18n import _


def key_width(key: FooterKey, compact: bool) -> int:
    """Cells a footer key takes: its key, its description and their padding (Textual's Footer CSS)."""
    shown = cell_len(key.key_display)
    if not key.description:
        return shown + (0 if compact else 2)
    if compact:
        return shown + 1 + cell_len(key.description) + 1  # "n Step" and a margin
    return 1 + shown + 1 + cell_len(key.description) + 1  # " n Step "


def palette_width(key: FooterKey, compact: bool) -> int:
    """The command palette's key, docked right: a border, the key, and its padding."""
    return 1 + key_width(key, compact) + (0 if compact else 1)


def rank(action: str) -> int:
    """How important a key is in the footer: a focused widget's or a screen's own keys (not in the
    list) first, then :data:`FOOTER_PRIORITY`'s order."""
    return FOOTER_PRIORITY.index(action) if action in FOOTER_PRIORITY else -1


class FittingFooter(Footer):
    """A :class:`~textual.widgets.Footer` that never runs past the screen's right edge."""

    _fitted_for = -1
    #: The footer has shown keys once (a blurred app recomposes it only until then).
    _shown_keys = False

    def compose(self):
        widgets = list(super().compose())
        for widget in widgets:  # bindings hold English (N_): shown in the app's language, measured as shown
            if isinstance(widget, FooterKey):
                if _(widget.description) != widget.description:
                    widget.description = _(widget.description)
                if widget.action == "app.resume_found":  # offered: which session R brings back
                    found = getattr(getattr(self.app, "lab", None), "keeper", None)
                    if found is not None and found.found is not None:
                        widget.description = _("Resume step {step}").format(step=found.found[1].step)
                if isinstance(widget.tooltip, str) and _(widget.tooltip) != widget.tooltip:
                    widget.tooltip = _(widget.tooltip)
        width = self.app.size.width
        self._fitted_for = width
        palette = [w for w in widgets if isinstance(w, FooterKey) and w.has_class("-command-palette")]
        keys = [w for w in widgets if isinstance(w, FooterKey) and w not in palette]
        room = width - sum(palette_width(key, self.compact) for key in palette)
        keep: set[int] = set()
        for index in sorted(range(len(keys)), key=lambda i: rank(keys[i].action)):
            room -= key_width(keys[index], self.compact)
            if room < 0:
                break  # a prefix of the priority list: which keys show is predictable
            keep.add(index)
        kept = {id(keys[i]) for i in keep}
        self._shown_keys = self._shown_keys or bool(kept)
        for widget in widgets:
            if not isinstance(widget, FooterKey) or widget in palette or id(widget) in kept:
                yield widget

    def bindings_changed(self, screen) -> None:
        """Textual's, but the keys show on the first frame even when the app starts without focus:
        in a browser (textual-serve) the app starts blurred until the page is clicked, and
        Textual's footer stayed empty until then. Once shown, a blurred app keeps its keys."""
        if screen.app.app_focus or self._shown_keys:
            super().bindings_changed(screen)
            return
        self._bindings_ready = True
        if self.is_attached and screen is self.screen:
            self.call_after_refresh(self.recompose)

    def on_resize(self, event: events.Resize) -> None:
        if self.app.size.width != self._fitted_for and self._bindings_ready:
            self.call_after_refresh(self.recompose)
