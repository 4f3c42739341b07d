"""SVG snapshots of the main screen, the inspector on a partial character, and the help screen.

Update after a deliberate UI change: ``pytest tests/app/test_snapshots.py --snapshot-update`` (read the
report first).
"""

from __future__ import annotations

import sys
from functools import partial

import pytest
from helpers import app_on

from engine import TrainConfig
from engine.corpus.reading import decode_corpus
from tui.app import BpeApp
from tui.model.workbench import LoadedCorpus, Workbench


def still(app: BpeApp) -> BpeApp:
    """The app as a snapshot wants it: no animation, and no autosave (a timer that writes the
    session in a worker, which nothing on screen needs)."""
    app.animation_level = "none"
    return app


#: A sample as a snapshot wants it: no animation, no autosave.
app_for = partial(app_on, autosave=False, still=True)


@pytest.mark.slow
def test_main_screen_seed000(snap_compare):
    app = app_for("die-katze.txt", pretokenizer="simple", vocab_size=270,
                  specials=("<pad>", "<bos>", "<eos>", "<user>", "<assistant>"))
    assert snap_compare(app, press=["n", "n", "n"], terminal_size=(100, 30))


@pytest.mark.slow
def test_main_screen_seed001_small_terminal(snap_compare):
    app = app_for("low-lower-lowest.txt", base="chars", pretokenizer="none", tie_rule="first-seen", max_merges=4)
    assert snap_compare(app, press=["n", "n", "n", "n"], terminal_size=(80, 24))


@pytest.mark.slow
def test_inspector_on_a_partial_character(snap_compare):
    corpus = LoadedCorpus.from_corpus(decode_corpus("不与世东，不与世东。\n".encode() * 8, name="zh.txt"), "bytes", None)
    app = still(app_on(Workbench(corpus, TrainConfig(pretokenizer="none", max_merges=20)), autosave=False))
    assert snap_compare(app, press=["n"], terminal_size=(100, 30))


@pytest.mark.slow
def test_help_screen(snap_compare):
    assert snap_compare(app_for("mueller.txt", pretokenizer="none"), press=["question_mark"], terminal_size=(100, 30))


async def settle_analysis(pilot) -> None:
    """Wait for the analysis screen's workers (baselines, held-out, tie rules) and redraw."""
    for _ in range(3):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
    await pilot.pause()


@pytest.mark.slow
def test_analysis_curve(snap_compare):
    """Seed 001's experiment on the bundled Q/A corpus: 48 merges, back at step 28, the rest dimmed."""
    app = app_for("qa.txt", base="chars", pretokenizer="none", tie_rule="first-seen", no_merge_newline=True, max_merges=48)

    async def run_before(pilot) -> None:
        await pilot.press("g", "4", "8", "enter", "g", "2", "8", "enter", "a")
        await settle_analysis(pilot)

    assert snap_compare(app, run_before=run_before, terminal_size=(100, 30))


@pytest.mark.slow
def test_analysis_compare_view(snap_compare, monkeypatch):
    """The token tax on the parallel sentences, for a BPE trained on English Q/A lines only.

    WordPiece and Unigram are simulated missing: their trainers break ties differently from run to
    run, and the missing-library rows are part of what this view must show."""
    monkeypatch.setitem(sys.modules, "tokenizers", None)
    app = app_for("qa.txt", vocab_size=400)

    async def run_before(pilot) -> None:
        await pilot.press("right_curly_bracket", "a", "5")
        await settle_analysis(pilot)

    assert snap_compare(app, run_before=run_before, terminal_size=(100, 30))
