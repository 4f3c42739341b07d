"""The analysis screen's model: the held-out setting, the BPE it measures, and the baselines.

No UI code, so tests can drive it directly. Everything slow here (reading a file, a trainer on the
training part, the baselines) runs in the screen's thread workers; ``lock`` keeps two of them
from moving the side trainer at once.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from engine import Tokenizer, Trainer, read_corpus
from engine.analysis import (
    Baseline,
    BpeSegmenter,
    HeldOutReport,
    Row,
    build_baselines,
    evaluate_heldout,
    hold_back,
    measure,
    trainer_counts,
)
from tui.i18n import _
from tui.model.workbench import Busy, LoadedCorpus, Workbench, refuse_standard_input

#: What the held-out field starts with: seed 002 held back a fifth (500 of 2500 poems); 10% keeps
#: more for training on small corpora.
DEFAULT_SETTING = "10%"
#: Under a memory budget (a served tab), WordPiece and Unigram train on at most this many
#: characters of the training text: the tokenizers library's trainers took ~540 MB that a tab
#: kept on tang_all's 4.3 million, ~65 MB on 100,000 (docs/classroom.md).
BUDGET_BASELINE_CHARS = 100_000


@contextmanager
def reading(workbench: Workbench) -> Iterator[bool]:
    """:meth:`Workbench.reading` as a flag: yields False (holding nothing) when the training
    worker keeps the trainer longer than the UI may wait, so the screen keeps what it shows."""
    held = workbench.reading()
    try:
        held.__enter__()
    except Busy:
        yield False
        return
    try:
        yield True
    finally:
        held.__exit__(None, None, None)


def parse_setting(setting: str) -> float | None:
    """A share of the corpus (``10%`` or ``0.1``), or None when the setting names a file.

    Example: ``parse_setting("20%") -> 0.2``; ``parse_setting("held.txt") -> None``
    """
    text = setting.strip()
    try:
        value = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        return None
    if not 0 < value < 1:
        raise ValueError(_("hold back between 0% and 100% of the corpus, not {text}").format(text=text))
    return value


@dataclass(frozen=True)
class Split:
    """Training text and held-out text, and how they were made."""

    train: str
    heldout: str
    label: str  # e.g. "last 10% of workshop.txt"
    fraction: float | None  # None: a separate file, training uses the whole corpus


def make_split(corpus: LoadedCorpus, setting: str) -> Split:
    """Hold back part of the corpus, or read a held-out file (``sample:NAME`` works too)."""
    fraction = parse_setting(setting)
    if fraction is not None:
        train, heldout = hold_back(corpus.text, fraction)
        return Split(train, heldout, _("last {share} of {name}").format(share=f"{fraction:.0%}", name=corpus.name), fraction)
    source = setting.strip()
    if not source:
        raise ValueError(_("give a held-out file, or a share of the corpus like 10%"))
    if source.startswith("sample:"):
        text = LoadedCorpus.open(source, "chars").text
    else:
        refuse_standard_input(source, "the held-out text")
        text = read_corpus(source).text
    return Split(corpus.text, text, source, None)


@dataclass(frozen=True)
class Evaluated:
    """The BPE side of an evaluation at one step."""

    step: int  # the step the BPE was measured at
    report: HeldOutReport
    row: Row
    tokenizer: Tokenizer


class Evaluation:
    """One held-out setting for one workbench: the split, the BPE measured on it, the baselines."""

    def __init__(self, workbench: Workbench, setting: str = DEFAULT_SETTING) -> None:
        """Make the split (ValueError, one line, for a bad setting or file). Under the
        workbench's memory budget (a served tab) the side trainer keeps no undo log (a step back
        builds it again) and the subword baselines train on a part of the text."""
        self.workbench = workbench
        self.budgeted = workbench.memory is not None
        self.setting = setting
        self.split = make_split(workbench.corpus, setting)
        self.lock = threading.Lock()
        self._side: Trainer | None = None  # trained on the training part when the corpus is held back
        self._baselines: tuple[int, list[Baseline]] | None = None

    @property
    def label(self) -> str:
        return self.split.label

    @property
    def baseline_part(self) -> int | None:
        """The characters WordPiece and Unigram train on, when a budget bounds them to fewer
        than the training text's (None: all of it)."""
        if self.budgeted and len(self.split.train) > BUDGET_BASELINE_CHARS:
            return BUDGET_BASELINE_CHARS
        return None

    def _side_trainer(self, step: int) -> Trainer:
        """The trainer on the training part, made anew when it must go back to ``step`` and
        keeps no undo log (under a budget)."""
        side = self._side
        if side is not None and step < side.steps and not side.config.record_undo:
            side = None
        if side is None:
            script = self.workbench.script
            if script is not None:
                side = Trainer.replaying(self.split.train, script)
            else:
                side = Trainer(self.split.train, self.workbench.config.with_changes(record_undo=not self.budgeted))
            self._side = side
        return side

    def evaluate(self, step: int) -> Evaluated:
        """Measure the BPE at ``step``: the app's trainer for a held-out file; for a held-back
        share, a trainer of its own on the training part, moved to the same step (or as near as
        its stop rules allow). Slow: call it from a worker."""
        with self.lock:
            if self.split.fraction is None:
                with self.workbench.lock:  # the app's own tokenizer, cached for the step
                    trainer = self.workbench.trainer
                    tokenizer, counts, reached = self.workbench.tokenizer(), trainer_counts(trainer), trainer.steps
            else:
                trainer = self._side_trainer(step)
                reached = trainer.goto(step)
                tokenizer, counts = trainer.tokenizer(), trainer_counts(trainer)
        split = self.split
        report = evaluate_heldout(tokenizer, split.heldout, split.train)
        row = measure(BpeSegmenter(tokenizer), split.train, split.heldout, corpus_counts=counts)
        return Evaluated(reached, report, row, tokenizer)

    def release(self) -> None:
        """Let go of the side trainer and the baselines (the screen closed): a worker that still
        holds this evaluation then holds little (a finished one's arguments can outlive it).
        Never waits for the lock: a worker moving the side trainer keeps its own reference."""
        self._side = None
        self._baselines = None

    def baselines(self, vocab_size: int) -> list[Baseline]:
        """The baselines trained on the training text at ``vocab_size`` (kept until it changes)."""
        with self.lock:
            cached = self._baselines
        if cached is not None and cached[0] == vocab_size:
            return cached[1]
        text = self.split.train
        part = self.baseline_part
        if part is None:
            built = build_baselines(text, vocab_size)
        else:  # the subword trainers' memory grows with the text: a part of it
            built = [*build_baselines(text, vocab_size, names=("char", "word")),
                     *build_baselines(text[:part], vocab_size, names=("wordpiece", "unigram"))]
        with self.lock:
            self._baselines = (vocab_size, built)
        return built
