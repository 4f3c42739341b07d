"""Soak: random key presses (and resizes) against a training run; nothing breaks or leaks.

Slow: CI runs it in the second pass (``pytest -m slow``), pressing a few hundred keys;
``SOAK_PRESSES=5000 pytest -m slow tests/app/test_soak.py`` soaks longer.
"""

from __future__ import annotations

import os
import random
import resource

import pytest
from helpers import app_on
from textual.widgets import Input

from engine import TrainConfig
from tui.app.widgets.merge_log import MergeLog
from tui.model.workbench import LoadedCorpus, Workbench

KEYS = [
    "space", "n", "u", "r", "right", "left", "shift+right", "right_square_bracket", "left_square_bracket",
    "right_curly_bracket", "left_curly_bracket", "i", "t", "question_mark", "escape", "tab", "up", "down",
    "pageup", "pagedown", "home", "end", "enter", "a", "1", "2", "3", "4", "5", "6", "g", "slash", "c",
    "s", "o", "comma", "x", "7", "backspace", "y", "p", "v",
]
SIZES = [(100, 30), (80, 24), (120, 40), (60, 20)]

pytestmark = pytest.mark.slow


async def test_random_keys_against_a_training_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # "s" + Enter saves a tokenizer in the current folder
    rng = random.Random(int(os.environ.get("SOAK_SEED", "7")))
    presses = int(os.environ.get("SOAK_PRESSES", "200"))
    config = TrainConfig(vocab_size=3000)
    workbench = Workbench(LoadedCorpus.open("sample:workshop.txt", "bytes"), config)
    copied: list[str] = []
    app = app_on(workbench, clipboard=copied.append, session_file=tmp_path / "session.json")
    rss_start = None
    async with app.run_test(size=SIZES[0]) as pilot:
        for i in range(presses):
            if rng.random() < 0.03:
                await pilot.resize_terminal(*rng.choice(SIZES))
            key = rng.choice(KEYS)
            if isinstance(app.focused, Input) and rng.random() < 0.5:
                key = "escape"  # don't spend the whole run typing into one input
            await pilot.press(key)
            if i == presses // 4:
                rss_start = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        while len(app.screen_stack) > 1:  # close whatever dialog is open
            await pilot.press("escape")
        app.workers.cancel_group(app, "training")
        await app.workers.wait_for_complete()
        await pilot.pause()
        wb = app.workbench
        trainer = wb.trainer
        trainer._state.verify()  # incremental counts equal a fresh count
        assert app.query_one(MergeLog).row_count == trainer.steps
        tok = trainer.tokenizer()
        assert tok.decode(tok.encode(wb.corpus.text)) == wb.corpus.text
        assert [s[0] for s in trainer.spans(0, trainer.layout().size)] == tok.encode(wb.corpus.text)
        rss_end = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert rss_end - rss_start < 200_000  # KB: no runaway growth while soaking
