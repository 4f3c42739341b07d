"""The analysis screen's export (``x``) holds the compare tab's token tax: every tokenizer
compared, the added real ones counted as their own library counts (GPT-2's r50k as npm's
tiktoken ships it, against tiktoken), as ``bpe-lab tax --csv`` writes it."""

from __future__ import annotations

import csv

import pytest
from fetch_tokenizers import named_folder, npm_encoding
from helpers import ROOT, app_on, settle_until
from textual.widgets import Input

from engine.analysis import parse_parallel
from tui.app.widgets.compare_pane import ComparePane

from test_analysis_app import settle


@pytest.mark.slow  # the app, its baselines and GPT-2's ranks: about 3 s
async def test_the_export_holds_the_token_tax_of_every_tokenizer_compared(tmp_path, monkeypatch):
    enc = npm_encoding("r50k_base")
    monkeypatch.setenv("BPE_LAB_TOKENIZERS", str(named_folder(tmp_path / "cache", ["gpt2"])))
    monkeypatch.setenv("BPE_LAB_EXPORTS", str(tmp_path / "exports"))
    groups = parse_parallel((ROOT / "assets" / "samples" / "parallel.txt").read_text(encoding="utf-8"))
    app = app_on("workshop.txt")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("a", "5")
        await settle(pilot)
        box = app.screen.query_one("#compare-tokenizer", Input)
        box.value = "gpt2"
        box.focus()
        await pilot.press("enter")
        pane = app.screen.query_one(ComparePane)
        await settle_until(pilot, lambda: [s.name for s in pane.extra] == ["gpt2"], "gpt2 added")
        await pilot.press("tab", "x")
        await settle_until(pilot, lambda: list((tmp_path / "exports").glob("*/token_tax.csv")), "the export")
    (table,) = (tmp_path / "exports").glob("*/token_tax.csv")
    rows = list(csv.DictReader(table.open(encoding="utf-8")))
    names = list(dict.fromkeys(r["tokenizer"] for r in rows))
    assert names[0].startswith("bpe") and names[1] == "gpt2" and "char" in names  # trained, added, baselines
    gpt2 = {r["language"]: r for r in rows if r["tokenizer"] == "gpt2"}
    want = {lang: sum(len(enc.encode(g[lang])) for g in groups) for lang in gpt2}
    assert {lang: int(r["tokens"]) for lang, r in gpt2.items()} == want
    assert float(gpt2["de"]["ratio_to_en"]) == pytest.approx(want["de"] / want["en"], abs=1e-4)
