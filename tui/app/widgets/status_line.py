"""The status line: corpus, config, step/target, vocabulary, corpus tokens, state, speed."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from engine.errors import size_text
from engine.text import inert
from tui.app.theme import current
from tui.i18n import _
from tui.model.pacing import seconds_apart, speed_label
from tui.model.workbench import Busy, Workbench

#: The status line's fields, most important first: when the line is too narrow, fields are
#: dropped from the end of this list until it fits.
PRIORITY = ("state", "pace", "step", "corpus", "tokens", "speed", "rule", "vocab", "redo", "config", "bpt", "size", "rate")
#: Fields that follow another one after a space, not a separator, when that one is shown.
ATTACHED = {"rate": "state", "pace": "state", "redo": "step", "rule": "config", "size": "corpus"}


def fit_fields(fields: dict[str, Text], width: int, separator: str = " │ ") -> Text:
    """Join the fields in their display order, leaving out the least important ones
    (``PRIORITY``) until the line fits ``width`` cells."""
    kept = list(fields)

    def joined(names: list[str]) -> Text:
        line = Text()
        for i, name in enumerate(names):
            if i:
                line.append(" " if ATTACHED.get(name) == names[i - 1] else separator)
            line.append_text(fields[name])
        return line

    line = joined(kept)
    for name in reversed(PRIORITY):
        if line.cell_len <= width:
            break
        if name in kept and name != "state":
            kept.remove(name)
            line = joined(kept)
    if line.cell_len > width:
        line.truncate(width, overflow="ellipsis")
    return line


class StatusLine(Static):
    """One line of facts about the session; the least important fields give way first."""

    DEFAULT_CSS = """
    StatusLine { height: 1; width: 1fr; background: $boost; padding: 0 1; }
    """

    _last: tuple[Workbench | None, str, int | None] | None = None

    def on_resize(self) -> None:
        if self._last is not None:
            self.show(*self._last)

    def show(self, workbench: Workbench | None, state: str, speed: float | None = None) -> None:
        """``speed``: the run speed in merges a second (None: full speed)."""
        self._last = (workbench, state, speed)
        if workbench is None:
            self.update(Text(f"{state}", style="italic"))
            return
        try:
            with workbench.reading():
                trainer = workbench.trainer
                steps = trainer.steps
                target = trainer.target_merges
                tokens = trainer.corpus_tokens
                vocab = trainer.vocab_size
                redo = len(trainer.future)
        except Busy:
            return  # the worker holds the trainer: keep the line until the next refresh
        corpus = workbench.corpus
        config = workbench.config
        pre = config.pretokenizer if config.pretokenizer != "custom" else "custom"
        fields: dict[str, Text] = {}
        running = state == _("running")  # the screen's state, in the app's language
        fields["state"] = Text(state, style=f"bold {current().accent}" if running else "bold")
        if running and speed is not None:
            fields["pace"] = Text(_("at {speed} (+/-)").format(speed=speed_label(speed)), style=current().accent)
        elif running and workbench.rate:
            fields["rate"] = Text(_("{rate} merges/s").format(rate=f"{workbench.rate:,.0f}"))
        elif speed is not None and speed < 1:
            fields["speed"] = Text(_("runs 1 merge every {n} s").format(n=seconds_apart(speed)))
        elif speed is not None:
            fields["speed"] = Text(_("runs at {speed}/s").format(speed=int(speed)))
        fields["step"] = Text(_("step {step}").format(step=f"{steps}" + (f"/{target}" if target is not None else "")))
        if redo:
            fields["redo"] = Text(_("(+{n} redo)").format(n=redo), style="dim")
        fields["vocab"] = Text(_("vocab {size}").format(size=vocab))
        fields["tokens"] = Text(_("{n} tokens").format(n=tokens))
        if tokens:
            fields["bpt"] = Text(_("{value} B/token").format(value=f"{corpus.size / tokens:.2f}"))
        script = workbench.script
        fields["config"] = Text(f"{config.base} {pre}")
        fields["rule"] = Text(_("replaying {n} merges").format(n=len(script.merges)) if script is not None else config.tie_rule)
        fields["corpus"] = Text(inert(corpus.name), style="bold")  # a file name may hold escapes
        fields["size"] = Text(size_text(corpus.size), style="bold")  # the unit of every message
        width = max(self.size.width - 2, 10) if self.size.width else 10_000
        self.update(fit_fields(fields, width), layout=False)
