"""Issue 42 item 2 in the app: ``d`` on the analysis screen shows, in the compare tab, the diff of
two tokenizers (the trained one and an added one) with the figures ``bpe-lab diff A B --text
--json`` gives for them, in a pane of 80 columns with no number cut; ``d`` after the last pair
goes back to the text."""

from __future__ import annotations

import io
import json
import sys

from helpers import app_on, settle_until
from rich.cells import cell_len
from rich.console import Console
from textual.widgets import Input

from engine import TrainConfig, Trainer
from engine.formats import export_tokenizer
from tui.app.widgets.compare_pane import ComparePane


def output_lines(pane: ComparePane) -> list[str]:
    output = pane.query_one("#compare-output")
    console = Console(width=output.size.width, color_system=None, file=io.StringIO(), legacy_windows=False)
    return ["".join(s.text for s in line).rstrip() for line in console.render_lines(output.content, pad=False)]


def cli_json(*args: str) -> dict:
    from tui.cli.commands import main as cli

    out = io.StringIO()
    assert cli(["diff", *args, "--json"], out=out, err=sys.stderr) == 0
    return json.loads(out.getvalue())


async def test_d_shows_the_diff_bpe_lab_diff_gives(tmp_path):
    trainer = Trainer("Tokenisierung ist spannend. 你好你好，世界世界。" * 4, TrainConfig(max_merges=30))
    list(trainer.run())
    export_tokenizer(trainer.tokenizer(), "native", tmp_path / "zh.json")
    app = app_on(vocab_size=300, still=True, autosave=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("a", "5")
        await settle_until(pilot, lambda: bool(app.screen.query(ComparePane)), "the compare tab")
        pane = app.screen.query_one(ComparePane)
        box = pane.query_one("#compare-tokenizer", Input)
        box.value = str(tmp_path / "zh.json")
        box.focus()
        await pilot.press("enter")
        await settle_until(pilot, lambda: len(pane.extra) == 1, "added")
        pane.query_one("#compare-text", Input).value = text = "Die Katze 你好，世界。 tokens"
        await pilot.press("escape", "d")
        await settle_until(pilot, lambda: pane._diffed is not None, "the diff")
        found = pane._diffed[1]
        lines = output_lines(pane)
        width = pane.query_one("#compare-output").size.width
        export_tokenizer(app.workbench.tokenizer(), "native", tmp_path / "bpe.json")
        await pilot.press("d")  # one pair: back to the text
        await settle_until(pilot, lambda: pane.diff_pair is None, "the text again")
        assert any("cuts differ" in line for line in output_lines(pane))
    want = cli_json(str(tmp_path / "bpe.json"), str(tmp_path / "zh.json"), "--text", text)
    assert (found.vocab.shared, len(found.vocab.only_a), len(found.vocab.only_b)) == (
        want["shared"], want["a"]["only"], want["b"]["only"])
    assert [(s.script, s.chars, s.per_char(0), s.per_char(1)) for s in found.text.scripts] == [
        (row["script"], row["chars"], row["per_char_a"], row["per_char_b"]) for row in want["text"]["by_script"]]
    assert all(cell_len(line) <= width for line in lines), lines
    shown = "\n".join(lines)
    for number in (want["shared"], want["a"]["only"], want["b"]["only"]):
        assert f"{number:,}" in shown
    for row in want["text"]["by_script"]:  # each script's row whole: its name, characters and figures
        assert any(line.split() == [row["script"], f"{row['chars']:,}", f"{row['per_char_a']:.3f}",
                                    f"{row['per_char_b']:.3f}"] for line in lines), (row, lines)


async def test_d_without_an_added_tokenizer_says_to_add_one():
    app = app_on(vocab_size=300, still=True, autosave=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("a", "d")
        await settle_until(pilot, lambda: bool(app.screen.query(ComparePane)), "the compare tab")
        pane = app.screen.query_one(ComparePane)
        await settle_until(pilot, lambda: any("to diff it" in line for line in output_lines(pane)), "the hint")
        assert app.screen.active_tab == "compare"


def test_the_diff_fits_a_narrow_pane_with_every_number_whole():
    from engine import Tokenizer
    from tui.app.widgets.diff_view import diff_view
    from tui.model.tokenizer_diff import diff_tokenizers

    trainer = Trainer("Tokenisierung ist spannend. 你好你好，世界世界。" * 4, TrainConfig(max_merges=30))
    list(trainer.run())
    text = "Die Katze 你好，世界。 tokens Привет"
    found = diff_tokenizers(("a tokenizer with a long name.json", trainer.tokenizer()),
                            ("b", Tokenizer([(104, 105)])), text, source="the typed text")
    for width in (40, 76):
        console = Console(width=width, color_system=None, file=io.StringIO(), legacy_windows=False)
        lines = ["".join(s.text for s in line).rstrip() for line in console.render_lines(diff_view(found, width), pad=False)]
        assert all(cell_len(line) <= width for line in lines), lines
        words = " ".join(lines).split()
        for number in (found.vocab.shared, len(found.vocab.only_a), len(found.vocab.only_b)):
            assert f"{number:,}" in words
        for share in found.text.scripts:
            assert f"{share.chars:,}" in words and f"{share.per_char(0):.3f}" in words and f"{share.per_char(1):.3f}" in words
