"""The Chinese and emoji samples hold what their descriptions promise, and open with their settings."""

from __future__ import annotations

import unicodedata
from dataclasses import replace

from helpers import sample_text
from rich.cells import cell_len

from engine import Trainer
from tui.model.samples import SAMPLES, SETTINGS, sample


def test_the_chinese_sample_is_chinese_and_learns_its_punctuation_first():
    text = sample_text("chinese.txt")
    assert 1000 <= len(text.encode()) <= 2500
    han = sum(1 for ch in text if "CJK UNIFIED" in unicodedata.name(ch, ""))
    assert han > 400
    # from characters (issue 39: a class sees words form, not hex), the first merges are words
    assert sample("chinese.txt").settings_summary() == "chars, none, lowest-ids"
    trainer = Trainer(text, sample("chinese.txt").config())
    learned = [trainer.token_text(event.new_id) for event in trainer.train()]
    assert learned[0] == "。\n" and {"字节", "词元"} <= set(learned[:4])
    # at the bytes base, seed 002's way, the first whole characters are its punctuation
    trainer = Trainer(text, replace(sample("chinese.txt").config(), base="bytes"))
    learned = [trainer.token_text(event.new_id) for event in trainer.train()]
    assert {"，", "。", "。\n"} <= set(learned[:8])


def test_the_emoji_sample_holds_every_kind_of_cluster():
    text = sample_text("emoji.txt")
    assert "\U0001F469\u200D\U0001F469\u200D\U0001F467" in text  # a ZWJ family
    assert "\U0001F1E9\U0001F1EA" in text  # a flag: two regional indicators
    assert "\U0001F44B\U0001F3FD" in text  # a skin tone modifier
    assert "e\u0301" in text and "\u00e9" in text  # combining and precomposed é
    assert any("\u0900" <= ch <= "\u097F" for ch in text)  # Devanagari
    assert cell_len("\U0001F1E9\U0001F1EA") == 2
    trainer = Trainer(text, sample("emoji.txt").config())
    learned = [trainer.token_text(event.new_id) for event in trainer.train()]
    assert "e\u0301" in learned  # without a pre-tokenizer the accent joins its letter


def test_the_new_samples_are_listed_with_settings():
    assert {"chinese.txt", "emoji.txt"} <= set(SAMPLES) and set(SAMPLES) == set(SETTINGS)


def test_docs_samples_table_is_the_code():
    from helpers import ROOT

    from tui.model.samples import markdown_table

    text = (ROOT / "docs" / "app.md").read_text(encoding="utf-8")
    after = text.split("<!-- samples:", 1)[1].split("\n", 1)[1]
    table = "\n".join(line for line in after.split("\n\n", 1)[0].splitlines() if line.startswith("|"))
    assert table == markdown_table()
