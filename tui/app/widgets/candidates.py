"""The next-merge candidates: top pairs with count bars, the tie set marked, the deciding rule."""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size
from rich.text import Text
from textual.widgets import Static

from engine.text import token_display
from tui.app.cut_mark import fit_text
from tui.app.theme import current
from tui.i18n import N_, _
from tui.model.workbench import Busy, Workbench

RULES = {
    "lowest-ids": N_("tie rule: lowest-ids"),
    "first-seen": N_("tie rule: first-seen"),
    "hf": N_("tie rule: hf"),
}
#: The shortest count bar: a narrow pane keeps the pair whole and shortens the bars.
MIN_BAR = 3
STOPS = {
    "vocab-size": N_("vocabulary size reached"),
    "merges": N_("merge count reached"),
    "min-frequency": N_("no pair occurs often enough"),
    "no-pairs": N_("no pairs left"),
    "vocab-bytes": N_("the tokens reached the most bytes a tokenizer may hold"),
}


class Candidates(Static):
    """Seed 001's picture: candidate blocks with bars of different heights, one chosen."""

    DEFAULT_CSS = """
    Candidates { height: 12; }
    """

    def show(self, workbench: Workbench | None, k: int = 8) -> None:
        """Read the top pairs from the trainer and draw them."""
        if workbench is None:
            self._draw(Text)
            return
        if workbench.script is not None:
            self.show_replay(workbench, k)
            return
        try:
            with workbench.reading():
                trainer = workbench.trainer
                top = trainer.candidates(k)
                ties = trainer.tie_count(top[0].count) if top else 0
                target = trainer.target_merges
                at_target = target is not None and trainer.steps >= target and not trainer.future
                # why, as the status line says it ("vocabulary size reached"): one wording for one stop
                done = workbench.stop_reason() if at_target else None
                show = lambda i: token_display(trainer.token_bytes(i), space="·")  # noqa: E731
                rows = [(show(c.pair[0]), show(c.pair[1]), c.count) for c in top]
        except Busy:
            return  # the worker holds the trainer: keep the last picture
        config = workbench.config
        self._draw(lambda: self.render_rows(rows, ties, config.tie_rule, config.min_frequency, done))

    def _draw(self, picture) -> None:
        """Show ``picture()``, drawn for the pane's width when it is painted: a pane that was
        not on screen when training moved (under the quiz, in a narrower layout) has no width
        yet, and bars drawn for a guessed one would wrap."""
        self._picture = picture
        self.refresh()  # fixed height (app.tcss): no layout pass per step

    def render(self):
        picture = getattr(self, "_picture", None)
        return picture() if picture is not None else super().render()

    def render_rows(
        self, rows: list[tuple[str, str, int]], ties: int, rule: str, floor: int, done: str | None, width: int | None = None
    ) -> Text:
        """The picture for ``width`` cells (default: the pane's content width); ``done``: why the
        merge target stops training, when it does."""
        width = width or self.content_region.width or 24  # never wider than the pane: a row would wrap
        text = Text()
        text.append(_(RULES.get(rule, rule)), style="italic dim")
        text.append("\n")
        at_target = bool(done)
        if at_target:
            text.append(_("done: {reason}").format(reason=done) + "\n", style="bold")
            if not rows:
                return text
        if not rows:
            text.append(_("no pair occurs {n} times or more: training is done").format(n=floor), style="bold")
            return text
        best = rows[0][2]
        digits = len(str(best))
        # Widths in terminal cells: 天 and emoji take two, a combining accent none.
        label = max(cell_len(a) + cell_len(b) for a, b, _ in rows) + 4  # " + " and a space
        # The pair gets what the mark, the count and a short bar leave (a narrow pane beside a
        # lesson): cut only when a pair is longer than that.
        label = min(label, max(width // 2, width - 3 - digits - MIN_BAR))
        bar_room = max(width - 6 - label - digits, MIN_BAR)
        for index, (a, b, count) in enumerate(rows):
            tied = count == best
            mark = "▶ " if index == 0 and not at_target else ("= " if tied else "  ")
            bar = "█" * max(1, round(bar_room * count / best))
            style = f"bold {current().accent}" if index == 0 else (current().accent if tied else "")
            text.append(mark, style=style)
            text.append_text(fit_text(f"{a} + {b}", label - 1, style))
            text.append(" ", style=style)
            text.append(f"{count:>{digits}} ", style=style)
            text.append(bar + "\n", style=current().accent if tied else current().bar)
        if ties > 1:
            text.append(_("{n} pairs tie at {count}").format(n=ties, count=best), style=current().accent)
        return text

    # -- a replay: the next merge is the file's, not the top pair -------------------------------

    def show_replay(self, workbench: Workbench, k: int = 8) -> None:
        """A replay steps through the file's merges: its next merge first, with its count and
        where that count ranks on this corpus, then the pairs this corpus counts most."""
        try:
            with workbench.reading():
                trainer = workbench.trainer
                nxt = trainer.scripted_next()
                top = trainer.candidates(k - 3)
                total = len(workbench.script.merges)
                show = lambda i: workbench.token_name(i, space="·")  # noqa: E731  # byte pieces as the corpus pane names them
                scripted = (show(nxt[0][0]), show(nxt[0][1]), nxt[1], nxt[2], trainer.steps + 1) if nxt else None
                rows = [(show(c.pair[0]), show(c.pair[1]), c.count, nxt is not None and c.pair == nxt[0]) for c in top]
        except Busy:
            return
        self._draw(lambda: self.render_replay(scripted, rows, total))

    def render_replay(
        self, scripted: tuple[str, str, int, int, int] | None, rows: list[tuple[str, str, int, bool]], total: int,
        width: int | None = None,
    ) -> Text:
        """``scripted``: (left, right, count here, rank by count, step) of the file's next merge;
        ``width``: cells to draw in (default: the pane's content width)."""
        width = max(width or self.content_region.width, 24)
        text = Text()
        if scripted is None:
            text.append(fit_cells(_("done: all {n} merges made").format(n=total), width) + "\n", style="bold")
        else:
            a, b, count, rank, step = scripted
            text.append(fit_cells(_("replay: merge {step} of {total}").format(step=step, total=total), width) + "\n", style="italic dim")
            text.append("▶ ", style=f"bold {current().accent}")
            text.append(fit_cells(f"{a} + {b}", width - 2) + "\n", style=f"bold {current().accent}")
            if count:
                text.append(fit_cells("  " + _("{count}× here, #{rank} by count").format(count=count, rank=rank), width) + "\n")
            else:
                text.append(fit_cells("  " + _("not in this corpus (0×)"), width) + "\n")
        if not rows:
            return text
        text.append(_("by count here:") + "\n", style="dim")
        digits = len(str(rows[0][2]))
        # in cells (天 takes two); the +1 is the space before the count, kept when the pair is cut
        label = min(max(cell_len(f"{a} + {b}") for a, b, _, _ in rows) + 1, width // 2)
        bar_room = max(width - 2 - label - digits - 2, 3)
        best = rows[0][2] or 1
        for a, b, count, is_next in rows:
            style = f"bold {current().accent}" if is_next else ""
            text.append("▶ " if is_next else "  ", style=style)
            text.append_text(fit_text(f"{a} + {b}", label - 1, style))
            text.append(" ", style=style)  # cut or not, a cell before the count
            text.append(f"{count:>{digits}} ", style=style)
            text.append("█" * max(1, round(bar_room * count / best)) + "\n", style=current().bar)
        return text


def fit_cells(text: str, width: int) -> str:
    """``text`` padded or cut (with "…") to exactly ``width`` terminal cells."""
    if cell_len(text) <= width:
        return text + " " * (width - cell_len(text))
    return set_cell_size(text, max(width - 1, 0)) + "…"
