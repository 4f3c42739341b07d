"""What-if branches in the app: the manual-merge picker (``m``) and the branches screen (``b``):
the list of branches, switching between them, and two of them compared side by side."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Label, OptionList, Static
from textual.widgets.option_list import Option

from engine.text import token_display
from tui.i18n import N_, _
from tui.model.cells import fit
from tui.model.workbench import Workbench

if TYPE_CHECKING:
    from tui.app.lab import Lab


class ManualMergeScreen(ModalScreen[tuple[int, int] | None]):
    """The candidates to pick the next merge from; enter merges the highlighted pair, escape
    cancels. The rule's choice is first and marked; the runner-up is highlighted."""

    BINDINGS = [Binding("escape", "cancel", N_("Cancel"))]

    DEFAULT_CSS = """
    ManualMergeScreen .dialog-hint { width: 100%; }
    ManualMergeScreen OptionList { height: auto; max-height: 10; }
    """

    def __init__(self, rows: list[tuple[tuple[int, int], str, str, int]]) -> None:
        """``rows``: (pair, left as shown, right as shown, count), in the rule's order."""
        super().__init__()
        self.rows = rows

    def compose(self) -> ComposeResult:
        width = max((len(str(row[3])) for row in self.rows), default=1)
        label_width = min(max((cell_len(f"{row[1]} + {row[2]}") for row in self.rows), default=5), 30)
        options = []
        for index, (_pair, left, right, count) in enumerate(self.rows):
            label = Text(fit(f"{left} + {right}", label_width))
            label.append(f" {count:>{width}}")
            if index == 0:
                label.append("  " + _("the rule's choice"), style="dim")
            options.append(Option(label, id=str(index)))
        with Vertical(classes="dialog"):
            yield Label(_("Manual merge: which pair merges next?"), classes="dialog-title", markup=False)
            yield OptionList(*options, id="manual-options")
            yield Label(_("Enter merges the highlighted pair instead of the rule's choice; training then goes on "
                          "by the rule. After an undo this starts a what-if branch (b lists them). Escape cancels."),
                        classes="dialog-hint", markup=False)

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = 1 if len(self.rows) > 1 else 0
        options.focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.rows[int(event.option.id or 0)][0])

    def action_cancel(self) -> None:
        self.dismiss(None)


class BranchesScreen(Screen[None]):
    """Every branch (name, where it parts from its parent, its length, its manual merges);
    enter switches to the highlighted one, ``c`` compares it with the current one."""

    BINDINGS = [
        Binding("escape,b", "close", N_("Back")),
        Binding("c", "compare", N_("Compare")),
    ]

    DEFAULT_CSS = """
    BranchesScreen { layout: vertical; }
    #branch-table { height: auto; max-height: 8; }
    #branch-compare { height: 1fr; padding: 0 1; }
    #branch-title, #branch-hint { padding: 0 1; }
    #branch-hint { color: $text-muted; }
    """

    def __init__(self, lab: Lab, heldout: tuple[str, str, bool] | None = None) -> None:
        """``heldout``: (text, label, whether it is part of the training corpus) that comparisons
        encode: the analysis screen's held-out setting (a file, a sample, or a share of the corpus)."""
        super().__init__()
        self.lab = lab
        self.workbench: Workbench = lab.workbench
        self.heldout = heldout
        self.names: list[str] = []

    def compose(self) -> ComposeResult:
        yield Static(_("What-if branches"), id="branch-title")
        yield DataTable(id="branch-table", cursor_type="row", zebra_stripes=True)
        yield Static("", id="branch-compare")
        yield Static(_("enter: switch to it · c: compare it with the current branch · escape: back"),
                     id="branch-hint")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("", _("branch"), _("from"), _("parts at"), _("merges"), _("manual"), _("step"))
        self.fill()
        table.focus()

    def fill(self) -> None:
        """(Re)read the branches into the table, the cursor on the current one."""
        with self.workbench.lock:
            branches = self.workbench.trainer.branches
        table = self.query_one(DataTable)
        table.clear()
        self.names = [b.name for b in branches]
        current = 0
        for index, b in enumerate(branches):
            if b.current:
                current = index
            table.add_row("▶" if b.current else "", b.name, b.parent or "—", str(b.parts_at) if b.parent else "—",
                          str(b.length), str(b.manual), str(b.at), key=b.name)
        table.move_cursor(row=current)
        if len(branches) < 2:
            self.query_one("#branch-compare", Static).update(Text(
                _("One branch so far. Undo a few steps, then press m in the main screen and pick another pair: "
                  "the old future is kept as a branch of its own."), style="dim"))

    def highlighted(self) -> str | None:
        table = self.query_one(DataTable)
        return self.names[table.cursor_row] if 0 <= table.cursor_row < len(self.names) else None

    @on(DataTable.RowSelected)
    def _switch(self, event: DataTable.RowSelected) -> None:
        event.stop()
        name = self.highlighted()
        if name is None:
            return
        if self.lab.running:
            self.notify(_("Pause first: training or a jump is running."), markup=False)
            return
        try:
            with self.workbench.lock:
                trainer = self.workbench.trainer
                at = next(b.at for b in trainer.branches if b.name == name)
                trainer.switch(name, walk=False)  # back to where the lines part (a copy, or a short walk)
        except ValueError as exc:
            self.notify(str(exc), severity="error", markup=False)
            return
        self.lab.go(at)  # a long walk along the branch runs in the worker
        self.fill()
        self.notify(_("Switched to branch {name}; going to step {step}.").format(name=name, step=at), markup=False)

    def action_compare(self) -> None:
        """Compare the highlighted branch with the current one (or, on the current one, with
        the branch it parts from, else the first other)."""
        name = self.highlighted()
        with self.workbench.lock:
            branches = self.workbench.trainer.branches
        if name is None or len(branches) < 2:
            self.notify(_("There is only one branch: nothing to compare yet."), markup=False)
            return
        current = next(b for b in branches if b.current)
        if name == current.name:
            others = [b.name for b in branches if b.name != name]
            other = current.parent if current.parent in others else others[0]
            pair = (name, other)
        else:
            pair = (current.name, name)
        self.query_one("#branch-compare", Static).update(Text(_("Comparing…"), style="dim"))
        self.run_worker(lambda: self._compare(*pair), thread=True, exclusive=True, group="compare", exit_on_error=False)

    def _compare(self, a: str, b: str) -> None:
        from engine.analysis import compare_branches

        heldout = self.heldout[0] if self.heldout else None
        try:
            with self.workbench.lock:
                result = compare_branches(self.workbench.trainer, a, b, corpus_bytes=self.workbench.corpus.size,
                                          heldout=heldout, points=5)
        except (Exception, MemoryError) as exc:  # said in the pane, never "Comparing…" for ever
            self.app.call_from_thread(self.show_problem, f"{type(exc).__name__}: {exc}")
            return
        self.app.call_from_thread(self.show_comparison, result)

    def show_problem(self, problem: str) -> None:
        self.query_one("#branch-compare", Static).update(Text(problem, style="red"))

    def show_comparison(self, result) -> None:
        width = max(self.query_one("#branch-compare").content_region.width, 40)
        self.query_one("#branch-compare", Static).update(render_comparison(result, width, self.heldout))

    def action_close(self) -> None:
        self.dismiss(None)


def right(text: str, width: int) -> str:
    """``text`` right-aligned in ``width`` cells (cut with "…" when longer)."""
    shown = fit(text, width).rstrip()
    return " " * (width - cell_len(shown)) + shown


def render_comparison(result, width: int, heldout: tuple[str, ...] | None) -> Text:
    """The comparison for ``width`` cells: a legend, where they part, a table of steps (corpus
    and held-out tokens, bytes per token, for A and B) and the tokens each lacks."""
    text = Text()
    text.append(fit(_("A = {a}, B = {b}: they part after step {step}.").format(
        a=result.a, b=result.b, step=result.parts_at), width) + "\n", style="bold")
    inside = bool(heldout) and (len(heldout) < 3 or heldout[2])  # a share of the corpus: trained on too
    if heldout:
        # not "held-out" for a share of the corpus the branches trained on (it said both at once)
        said = (_("part: {label} (trained on too, not held out)") if inside
                else _("held-out: {label}"))
        text.append(fit(said.format(label=heldout[1]), width) + "\n", style="dim")
    groups = [_("corpus A"), _("corpus B")]
    if heldout:
        groups += [_("part A"), _("part B")] if inside else [_("held-out A"), _("held-out B")]
    per_token = _("b/tok")  # TRANSLATORS: bytes per token, a column header of at most 5 cells
    numbers = [list(row.tokens) for row in result.rows]
    if heldout:
        numbers = [n + list(row.heldout or [None, None]) for n, row in zip(numbers, result.rows)]
    # each group as wide as its widest number, and its title with a space before it (at 80
    # columns "│held-out A b/tok" ran into the bar)
    widths = [max([cell_len(g) + 1, 6] + [len(str(n[i])) for n in numbers if i < len(n) and n[i] is not None])
              for i, g in enumerate(groups)]
    cols = [right(_("step"), 5) + " "] + [f"{right(g, w)} {right(per_token, 5)} " for g, w in zip(groups, widths)]
    text.append(fit("│".join(cols), width) + "\n", style="bold")

    def cell(size: int | None, tokens: int | None, w: int) -> str:
        if tokens is None:
            return f"{right('—', w)} {'':5} "
        ratio = result.per_token(size, tokens)
        return f"{tokens:>{w}} " + (f"{ratio:5.2f}" if ratio is not None else " " * 5) + " "

    for row in result.rows:
        cells = [f"{row.step:>5} "] + [cell(result.corpus_bytes, t, w) for t, w in zip(row.tokens, widths)]
        if heldout and row.heldout is not None:
            cells += [cell(result.heldout_bytes, t, w) for t, w in zip(row.heldout, widths[2:])]
        text.append(fit("│".join(cells), width) + "\n")
    for label, tokens in ((_("only in A ({n}):"), result.only_a), (_("only in B ({n}):"), result.only_b)):
        shown = "  ".join(token_display(t, space="·") for t in tokens) or "—"
        text.append(fit(label.format(n=len(tokens)) + " " + shown, width) + "\n")
    return text
