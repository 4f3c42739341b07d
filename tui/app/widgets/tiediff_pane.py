"""The tie-rule diff: one corpus, two tie rules, where the merge logs part and which pairs tied."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Label, Select, Static
from textual.worker import get_current_worker

from engine import TIE_RULES, Merge
from engine.analysis import TieDiff, tie_rule_diff
from engine.text import token_display
from tui.app.theme import current
from tui.i18n import _, ngettext
from tui.model.cells import seal
from tui.model.workbench import Workbench

#: Merges shown before the split.
BEFORE = 3


def _merge_cell(event: Merge | None, vocab: Sequence[bytes]) -> Text:
    if event is None:
        return Text(_("(stopped)"), style="dim")
    show = lambda i: seal(token_display(vocab[i], space="·"))  # noqa: E731
    a, b = event.pair
    cell = Text(f"{show(a)} + {show(b)} → {show(event.new_id)} ")
    cell.append(_("({count}, tie of {n})").format(count=event.count, n=event.tie_total) if event.tied else f"({event.count})",
                style="dim")
    return cell


def render_diff(diff: TieDiff, corpus: str) -> RenderableType:
    """The verdict, the logs side by side around the split, and the tie set at the split."""
    a_rule, b_rule = diff.rules
    head = Text()
    head.append(_("{a} vs {b} on {corpus}:").format(a=a_rule, b=b_rule, corpus=corpus) + " ", style="bold")
    if diff.parted:
        head.append(_("the merge logs part at step {step}").format(step=diff.first_step), style=f"bold {current().accent}")
        head.append(" " + ngettext("after {n} merge in common", "after {n} merges in common", diff.common).format(n=diff.common)
                    if diff.common else _(", at the first merge"))
    else:
        head.append(_("the logs agree for all {n} merges").format(n=diff.common), style="bold")
        head.append(" " + _("(stopped: {reason})").format(reason=diff.stops[0] or _("limit")), style="dim")
    table = Table(box=None, padding=(0, 1), header_style="bold")
    table.add_column(_("step"), justify="right")
    table.add_column(a_rule, no_wrap=True)
    table.add_column(b_rule, no_wrap=True)
    for k in range(max(diff.common - BEFORE, 0), max(len(diff.logs[0]), len(diff.logs[1]))):
        events = [log[k] if k < len(log) else None for log in diff.logs]
        split = diff.first_step is not None and k + 1 == diff.first_step
        step = Text(("▶ " if split else "") + str(k + 1), style=f"bold {current().accent}" if split else "")
        table.add_row(step, _merge_cell(events[0], diff.vocab[0]), _merge_cell(events[1], diff.vocab[1]))
    parts: list[RenderableType] = [head, Text(""), table]
    for rule, event, vocab in zip(diff.rules, diff.at_split(), diff.vocab):
        if event is not None and event.tied:
            show = lambda i, vocab=vocab: seal(token_display(vocab[i], space="·"))  # noqa: E731
            ties = ", ".join(f"{show(x)} + {show(y)}" for x, y in event.ties)
            more = " " + _("(+{n} more)").format(n=event.tie_total - len(event.ties)) if event.tie_total > len(event.ties) else ""
            parts.append(Text("\n" + _("{rule} chose the first of the {n} pairs tied at {count}: {ties}").format(
                rule=rule, n=event.tie_total, count=event.count, ties=ties) + more))
    return Group(*parts)


def other_rule(rule: str) -> str:
    """The rule to compare a config's rule with by default."""
    return "first-seen" if rule != "first-seen" else "lowest-ids"


class TieDiffPane(Vertical):
    """Two rule pickers and the diff, trained in a thread worker whenever the rules or the corpus
    change (the screen sets :attr:`workbench` and calls :meth:`follow`)."""

    DEFAULT_CSS = """
    TieDiffPane { height: 1fr; }
    TieDiffPane > Horizontal { height: auto; }
    TieDiffPane Select { width: 24; }
    TieDiffPane Label { padding: 1 1 0 1; }
    TieDiffPane > VerticalScroll { height: 1fr; padding: 0 1; }
    """

    @dataclass
    class Done(Message):
        """A worker finished the diff for ``key`` (or failed with ``error``)."""

        key: tuple
        diff: TieDiff | None
        error: str | None = None

    def __init__(self, workbench: Workbench, **kwargs) -> None:
        super().__init__(**kwargs)
        self.workbench = workbench
        self.result: tuple[tuple, TieDiff | None, str | None] | None = None
        #: The key a worker is training now. (Not ``_running``: that is Textual's own, true once
        #: the widget runs, and a pane that shadowed it trained both rules whenever the analysis
        #: screen opened, on any tab: two trainers on the corpus, 500 MB more on tang_all.)
        self._pending: tuple | None = None

    def compose(self):
        config = self.workbench.config
        rules = [(r, r) for r in TIE_RULES if r != "hf" or config.base == "bytes"]
        with Horizontal():
            yield Label(_("train under"))
            yield Select(rules, value=config.tie_rule, allow_blank=False, id="tie-a")
            yield Label(_("and"))
            yield Select(rules, value=other_rule(config.tie_rule), allow_blank=False, id="tie-b")
        with VerticalScroll():
            yield Static("", id="tiediff-output")

    @property
    def rules(self) -> tuple[str, str]:
        return str(self.query_one("#tie-a", Select).value), str(self.query_one("#tie-b", Select).value)

    @property
    def diff(self) -> TieDiff | None:
        """The diff shown now, if it is done."""
        return self.result[1] if self.result is not None and self.result[0] == self.key() else None

    def key(self) -> tuple:
        return (id(self.workbench), self.rules)

    def follow(self, workbench: Workbench) -> None:
        """Show the diff for this workbench and the chosen rules, training it if needed."""
        self.workbench = workbench
        key = self.key()
        if (self.result is None or self.result[0] != key) and self._pending != key:
            self._pending = key
            self._run(key, workbench)
        self.render_result()

    @work(thread=True, exclusive=True, group="analysis-tiediff", exit_on_error=False)
    def _run(self, key: tuple, workbench: Workbench) -> None:
        worker = get_current_worker()
        try:
            diff = tie_rule_diff(workbench.corpus.text, workbench.config, key[1], cancelled=lambda: worker.is_cancelled)
        except ValueError as exc:
            self.post_message(self.Done(key, None, str(exc)))
            return
        except (Exception, MemoryError) as exc:  # never "training under both rules …" for ever
            self.post_message(self.Done(key, None, f"{type(exc).__name__}: {exc}"))
            return
        if not worker.is_cancelled:
            self.post_message(self.Done(key, diff))

    @on(Done)
    def _done(self, message: Done) -> None:
        message.stop()
        if self._pending == message.key:
            self._pending = None
        self.result = (message.key, message.diff, message.error)
        self.render_result()

    def render_result(self) -> None:
        output = self.query_one("#tiediff-output", Static)
        if self.result is None or self.result[0] != self.key():
            output.update(Text(_("training under both rules …"), style="italic dim"))
        elif self.result[1] is None:
            output.update(Text(self.result[2] or "", style=current().error))
        else:
            output.update(render_diff(self.result[1], self.workbench.corpus.name))

    def on_unmount(self) -> None:
        """The screen closed: let go of the diff (two runs' logs and vocabularies)."""
        self.result = None

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        if self.result is not None or self._pending is not None:  # shown at least once
            self.follow(self.workbench)
