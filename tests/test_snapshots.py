"""SVG snapshots of the main screen, the inspector on a partial character, and the help screen.

Update after a deliberate UI change: ``pytest tests/test_snapshots.py --snapshot-update`` (read the
report first).
"""

from __future__ import annotations

import pytest

from engine import TrainConfig
from engine.corpus import decode_corpus
from tui.app import BpeApp
from tui.workbench import LoadedCorpus, Workbench


def app_for(sample: str, **config) -> BpeApp:
    cfg = TrainConfig(**config)
    return BpeApp(workbench=Workbench(LoadedCorpus.open(f"sample:{sample}", cfg.base), cfg))


def test_main_screen_seed000(snap_compare):
    app = app_for("die-katze.txt", pretokenizer="simple", vocab_size=270,
                  specials=("<pad>", "<bos>", "<eos>", "<user>", "<assistant>"))
    assert snap_compare(app, press=["n", "n", "n"], terminal_size=(100, 30))


def test_main_screen_seed001_small_terminal(snap_compare):
    app = app_for("low-lower-lowest.txt", base="chars", pretokenizer="none", tie_break="first-seen", merges=4)
    assert snap_compare(app, press=["n", "n", "n", "n"], terminal_size=(80, 24))


def test_inspector_on_a_partial_character(snap_compare):
    corpus = LoadedCorpus.from_corpus(decode_corpus("不与世东，不与世东。\n".encode() * 8, name="zh.txt"), "bytes", None)
    app = BpeApp(workbench=Workbench(corpus, TrainConfig(pretokenizer="none", merges=20)))
    assert snap_compare(app, press=["n"], terminal_size=(100, 30))


def test_help_screen(snap_compare):
    assert snap_compare(app_for("mueller.txt", pretokenizer="none"), press=["question_mark"], terminal_size=(100, 30))
