"""Lesson 005's last step in the app: ``!`` keeps the tokenize pane's text as a surprise, and a
lesson's ``handin`` writes the findings where a save goes, with each surprise through each
tokenizer the lesson needed (GPT-2's r50k as npm's tiktoken ships it, against tiktoken)."""

from __future__ import annotations

import pytest
from fetch_tokenizers import named_folder, npm_encoding
from helpers import app_on, settle_until, settled

from tui.lessons.format import parse

LESSON = """+++
title = "lab"
lang = "en"
+++

Mark a surprise, then hand in.

## open

```bpe
need gpt2
open sample=workshop
```

## hand in

```bpe
handin model=gpt-2
```
"""


@pytest.mark.slow  # the app, a corpus and GPT-2's ranks: 3 s
async def test_a_marked_surprise_is_in_the_handin(tmp_path, monkeypatch):
    enc = npm_encoding("r50k_base")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("BPE_LAB_TOKENIZERS", str(named_folder(tmp_path / "cache", ["gpt2"])))
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "lab.en.md"
    path.write_text(LESSON, encoding="utf-8")
    app = app_on(None, autosave=False, lesson=parse(path))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle_until(pilot, lambda: app.lesson is not None and app.lab.workbench is not None, "the lesson")
        await pilot.press("greater_than_sign")
        await settle_until(pilot, lambda: app.lesson.index == 1 and not app.lesson.busy, "step 1")
        await pilot.press("exclamation_mark")  # nothing typed yet: it says how
        await settled(pilot)
        assert app.lab.surprises == [] and any("type a text in the tokenize pane" in t for t in app.toasts.texts())
        await pilot.press("e", *" Solid", "G", *"old", "M", *"agikarp", "escape")
        await pilot.press("exclamation_mark", "exclamation_mark")  # twice: kept once
        await settled(pilot)
        assert app.lab.surprises == [" SolidGoldMagikarp"]
        await pilot.press("greater_than_sign")
        await settle_until(pilot, lambda: app.lesson.index == 2 and not app.lesson.busy, "the hand-in")
        assert app.lesson.shown[2].ok
    handin = (tmp_path / "handin-lab.md").read_text(encoding="utf-8")
    assert "1. ` SolidGoldMagikarp`" in handin and f"   - gpt2, {len(enc.encode(' SolidGoldMagikarp'))}: `·SolidGoldMagikarp`" in handin
