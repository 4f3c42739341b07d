"""The compression curve: corpus tokens and bytes per token against merges, the current step marked."""

from __future__ import annotations

from rich.cells import cell_len
from rich.console import Console, RenderableType
from rich.table import Table
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from engine.analysis import Curve
from tui.app.plot import axis_label, framed_plot
from tui.app.theme import current
from tui.i18n import _, ngettext

#: Width of the milestone table beside the plots.
TABLE_WIDTH = 44
#: Rows a framed plot takes beyond its plot rows (title, x axis, axis labels); two plots have
#: a blank row between them too.
PLOT_EXTRA = 3
PLOTS_EXTRA = 2 * PLOT_EXTRA + 1
_CONSOLE = Console(width=10_000, legacy_windows=False)
#: The fewest rows a plot is drawn with.
MIN_PLOT = 2


def summary_rows(summary: Text, width: int) -> int:
    """How many rows the summary line takes when wrapped to ``width`` cells."""
    return len(summary.wrap(_CONSOLE, max(width, 1)))


def right(text: str, width: int) -> str:
    """``text`` right-aligned in ``width`` terminal cells (a CJK character takes two)."""
    return " " * max(width - cell_len(text), 0) + text


def milestone_table(curve: Curve) -> Text:
    """Seed 001's table (merges 0/6/12/24/48 → tokens), doubling on to the end, with the tokens
    each merge saved on average since the row before: the returns diminish (seed 003 §13.6)."""
    out = Text()
    titles = (_("merges"), _("tokens"), _("B/token"), _("saved/merge"))
    out.append(" ".join(right(title, width) for title, width in zip(titles, (7, 10, 8, 12))) + "\n", style="bold")
    previous = None
    for step in curve.milestones():
        saved = f"{curve.saved_per_merge(previous, step):.1f}" if previous is not None and step > previous else ""
        line = f"{step:>7} {curve.tokens[step]:>10,} {curve.bytes_per_token(step):>8.2f} {saved:>12}"
        style = f"bold {current().accent}" if step == curve.current else (current().muted if step > curve.current else "")
        out.append(("▶" if step == curve.current else " ") + line[1:] + "\n", style=style)
        previous = step
    return out


class CurvePane(Widget):
    """Two braille plots (tokens, bytes per token) and the milestone table; ``l`` toggles a log
    scale for merges. Drawn for the pane's size on every render."""

    DEFAULT_CSS = """
    CurvePane { height: 1fr; padding: 0 1; }
    """

    log_x: reactive[bool] = reactive(False)
    """Merges on a log scale (the diminishing returns spread over orders of magnitude)."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.curve: Curve | None = None

    def show(self, curve: Curve | None) -> None:
        self.curve = curve
        self.refresh()

    def summary(self) -> Text:
        curve = self.curve
        step = curve.current
        tokens = curve.tokens[step]
        text = Text()
        text.append(_("step {step}").format(step=step), style=f"bold {current().accent}")
        text.append(": " + _("{tokens} tokens, {bpt} bytes/token, {share} of the {start} at the start").format(
            tokens=f"{tokens:,}", bpt=f"{curve.bytes_per_token(step):.2f}", share=f"{tokens / curve.tokens[0]:.0%}",
            start=f"{curve.tokens[0]:,}"))
        if curve.last > step:
            undone = curve.last - step
            text.append(" · " + ngettext("{n} undone merge dimmed", "{n} undone merges dimmed", undone).format(n=undone), style="dim")
        return text

    def render(self) -> RenderableType:
        curve = self.curve
        if curve is None:
            return Text(_("no corpus yet"), style="dim")
        width, height = self.content_size
        summary = self.summary()
        if curve.last == 0:  # one point: a flat line from 3,190 to 3,190 would say nothing
            return self._stack(summary, Text(_("Nothing to plot yet: the curve starts with the first merge "
                                               "(n makes one, space runs training)."), style="dim"))
        if width >= 2 * TABLE_WIDTH:  # the table beside the plots
            plot_width = width - TABLE_WIDTH - 2
            grid = Table.grid(padding=(0, 2))
            grid.add_column(width=plot_width, no_wrap=True)
            grid.add_column(width=TABLE_WIDTH, no_wrap=True)
            grid.add_row(self._plots(plot_width, max((height - 2 - PLOTS_EXTRA) // 2, 2)), milestone_table(curve))
            return self._stack(summary, grid)
        # Narrow (80 columns, or beside a lesson): the table first, whole, under the summary, and
        # the plots in the rows left (one, or none, when two do not fit): the numbers are never
        # cut off below the fold.
        table = milestone_table(curve)
        used = summary_rows(summary, width) + 1 + len(table.plain.rstrip("\n").split("\n")) + 1
        left = height - used
        plot_width = max(width, 20)
        if left >= 2 * MIN_PLOT + PLOTS_EXTRA:
            return self._stack(summary, table, self._plots(plot_width, (left - PLOTS_EXTRA) // 2))
        if left >= MIN_PLOT + PLOT_EXTRA:
            return self._stack(summary, table, self._plots(plot_width, left - PLOT_EXTRA, both=False))
        return self._stack(summary, table)

    def _plots(self, width: int, height: int, both: bool = True) -> Text:
        """The tokens plot and (``both``) the bytes-per-token plot under it, ``height`` rows each."""
        curve = self.curve
        values = curve.tokens
        options = dict(mark=curve.current, log_x=self.log_x, label_width=len(axis_label(values[0])))
        plots = framed_plot(_("corpus tokens"), values, width, height, **options)
        if both:
            size = curve.corpus_bytes  # curve.bytes_per_token(k) for every k, without a call each (100,000 on tang_all)
            per_token = [size / tokens if tokens else 0.0 for tokens in values]
            plots.append("\n\n")
            plots.append_text(framed_plot(_("bytes per token"), per_token, width, height, **options))
        return plots

    @staticmethod
    def _stack(*rows: RenderableType) -> Table:
        """``rows`` one under the other, a blank row between each."""
        out = Table.grid()
        for index, row in enumerate(rows):
            if index:
                out.add_row(Text(""))
            out.add_row(row)
        return out

    def watch_log_x(self) -> None:
        self.refresh()
