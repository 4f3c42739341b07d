"""The status line: corpus, config, step/target, vocabulary, corpus tokens, state, speed."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from ..workbench import Busy, Workbench


def human_size(n: int) -> str:
    """Example: ``human_size(3190) -> '3.1 KB'``"""
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"  # pragma: no cover


class StatusLine(Static):
    """One line of facts about the session."""

    DEFAULT_CSS = """
    StatusLine { height: 1; background: $boost; padding: 0 1; }
    """

    def show(self, workbench: Workbench | None, state: str) -> None:
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
        text = Text()
        text.append(f"{state}", style="bold #e9c46a" if state == "running" else "bold")
        if state == "running" and workbench.rate:
            text.append(f" {workbench.rate:,.0f} merges/s")
        text.append(f" │ step {steps}" + (f"/{target}" if target is not None else ""))
        if redo:
            text.append(f" (+{redo} redo)", style="dim")
        text.append(f" │ vocab {vocab} │ {tokens} tokens")
        if tokens:
            text.append(f" │ {corpus.size / tokens:.2f} B/token")
        rule = f"replaying {len(workbench.replay.merges)} merges" if workbench.replay is not None else config.tie_rule
        text.append(f" │ {config.base} {pre} {rule}")
        text.append(f" │ {corpus.name} {human_size(corpus.size)}", style="bold")
        self.update(text, layout=False)
