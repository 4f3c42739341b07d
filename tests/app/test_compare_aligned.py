"""Issue 42 item 1 in the app: the compare tab adds tokenizers by name (through the catalog, from
``$BPE_LAB_TOKENIZERS``) and shows the trained one and the added ones aligned by character, row
for row what ``bpe-lab compare-text`` prints for the same tokenizers; a name not fetched yet is
one line saying how to fetch it."""

from __future__ import annotations

import io
import sys

import pytest
from helpers import app_on, settle_until
from rich.cells import cell_len
from rich.console import Console
from textual.widgets import Input

from engine import Tokenizer, TrainConfig, Trainer
from engine.formats import export_tokenizer
from tui.app.widgets.compare_pane import ComparePane

TEXT = "Tokenisierung ist spannend. 你好，世界！ 🦙🦙 naïve"
SIZE = (100, 30)


def small_tokenizer() -> Tokenizer:
    """A byte-level BPE of a few merges on German and Chinese: it cuts 你 and 🦙 inside their bytes."""
    trainer = Trainer("Tokenisierung ist spannend. 你好你好，世界世界。" * 4, TrainConfig(max_merges=30))
    list(trainer.run())
    return trainer.tokenizer()


def catalog_folder(tmp_path, monkeypatch):
    """An empty ``$BPE_LAB_TOKENIZERS``, and gpt2 in it: our small tokenizer as a catalog file name."""
    folder = tmp_path / "tokenizers"
    folder.mkdir()
    monkeypatch.setenv("BPE_LAB_TOKENIZERS", str(folder))
    export_tokenizer(small_tokenizer(), "native", folder / "gpt2.json")
    return folder


def output_lines(pane: ComparePane) -> list[str]:
    """The output as the pane draws it, line by line (trailing cells kept)."""
    output = pane.query_one("#compare-output")
    console = Console(width=output.size.width, color_system=None, file=io.StringIO(), legacy_windows=False)
    return ["".join(s.text for s in line) for line in console.render_lines(output.content, pad=False)]


def rows_of(lines: list[str], names: list[str]) -> dict[str, str]:
    """Each named row's cells over all its bands, its label (``name  count``, padded) dropped."""
    heads = {name: [line for line in lines if line.startswith(name + "  ")] for name in names}
    label = max(cell_len(f"{name}  {found[0][len(name) + 2:].split()[0]}") for name, found in heads.items()) + 2
    return {name: "".join(line[label:] for line in found) for name, found in heads.items()}


async def compare_tab(pilot) -> ComparePane:
    await pilot.press("a", "5")
    await settle_until(pilot, lambda: bool(pilot.app.screen.query(ComparePane)), "the compare tab")
    return pilot.app.screen.query_one(ComparePane)


async def add(pilot, pane: ComparePane, name: str) -> None:
    box = pane.query_one("#compare-tokenizer", Input)
    box.value = name
    box.focus()
    await pilot.press("enter")
    await settle_until(pilot, lambda: True, "the load")


def cli_lines(names: list[str]) -> list[str]:
    """compare-text's lines for ``names``, in one band."""
    from tui.cli.commands import main as cli

    out = io.StringIO()
    code = cli(["compare-text", *(a for n in names for a in ("-t", n)), TEXT, "--width", "400"], out=out, err=sys.stderr)
    assert code == 0
    return out.getvalue().splitlines()


async def test_a_name_is_added_and_its_row_is_aligned_as_compare_text_aligns_it(tmp_path, monkeypatch):
    folder = catalog_folder(tmp_path, monkeypatch)
    app = app_on(vocab_size=300, still=True, autosave=False)
    async with app.run_test(size=SIZE) as pilot:
        pane = await compare_tab(pilot)
        await add(pilot, pane, "gpt2")
        await settle_until(pilot, lambda: [s.name for s in pane.extra] == ["gpt2"], "gpt2 added")
        assert pane.query_one("#compare-tokenizer", Input).value == ""  # ready for the next name
        pane.query_one("#compare-text", Input).value = TEXT
        await settle_until(pilot, lambda: any("cuts differ" in line for line in output_lines(pane)), "the rows")
        trained = folder / "trained.json"
        export_tokenizer(app.workbench.tokenizer(), "native", trained)
        step = app.workbench.trainer.steps
        lines = output_lines(pane)
    cli = cli_lines([str(trained), "gpt2"])
    want = rows_of(cli, ["trained.json", "gpt2"])
    got = rows_of(lines, [f"bpe (step {step})", "gpt2"])
    assert got[f"bpe (step {step})"] == want["trained.json"] and got["gpt2"] == want["gpt2"]
    assert "│" in want["gpt2"] and cli[-1] in [line.rstrip() for line in lines]  # "N of M cuts differ"


async def test_a_name_not_fetched_is_one_line_saying_how(tmp_path, monkeypatch):
    monkeypatch.setenv("BPE_LAB_TOKENIZERS", str(tmp_path))
    app = app_on(vocab_size=300, still=True, autosave=False)
    async with app.run_test(size=SIZE) as pilot:
        pane = await compare_tab(pilot)
        await add(pilot, pane, "o200k")
        await settle_until(pilot, lambda: any("bpe-lab fetch o200k" in t for t in app.toasts.texts()), "the message")
        (said,) = [t for t in app.toasts.texts() if "bpe-lab fetch o200k" in t]
        assert "\n" not in said and pane.extra == []
        assert pane.query_one("#compare-tokenizer", Input).value == "o200k"  # kept, to fetch and try again


def wide_app(tmp_path):
    """The workshop sample, a small BPE, and a Chinese-trained tokenizer added from a file; the
    trainable baselines left out (their trainers break ties differently from run to run)."""
    path = tmp_path / "zh.json"
    export_tokenizer(small_tokenizer(), "native", path)
    return app_on(vocab_size=300, still=True, autosave=False), path


@pytest.mark.slow
@pytest.mark.parametrize("size", [(80, 24), (100, 30)])
def test_aligned_rows_with_chinese_and_emoji(snap_compare, tmp_path, monkeypatch, size):
    monkeypatch.setitem(sys.modules, "tokenizers", None)
    monkeypatch.chdir(tmp_path)  # the input shows "zh.json", the same in every run
    app, _ = wide_app(tmp_path)

    async def run_before(pilot) -> None:
        await pilot.press("right_curly_bracket")  # trained to its 300 tokens
        await settle_until(pilot, lambda: app.workbench.trainer.vocab_size == 300, "trained")
        app.clear_notifications()  # "stopped at step 44", which could go before the shot or not
        pane = await compare_tab(pilot)
        await add(pilot, pane, "zh.json")
        await settle_until(pilot, lambda: len(pane.extra) == 1, "added")
        pane.query_one("#compare-text", Input).value = TEXT + " 今天天气很好。"
        await settle_until(pilot, lambda: any("cuts differ" in line for line in output_lines(pane)), "the rows")

    assert snap_compare(app, run_before=run_before, terminal_size=size)


def test_aligned_bands_fit_a_narrow_pane_in_cells():
    """Beside a lesson the pane is 30 to 40 cells wide: every line fits, names give way (…), and
    each row's cells over its bands spell the text."""
    from engine.analysis import align
    from tui.app.widgets.aligned_view import aligned_view

    text = TEXT + " 今天天气很好。👩\u200d👩\u200d👧"
    tok = small_tokenizer()
    pieces = [tok.token_bytes(i) for i in tok.encode(text)]
    found = align(text, [("a long name for a tokenizer file.json", pieces), ("chars", [c.encode() for c in text])])
    for width in (30, 40, 80):
        console = Console(width=width, color_system=None, file=io.StringIO(), legacy_windows=False)
        lines = ["".join(s.text for s in line) for line in console.render_lines(aligned_view(found, width), pad=False)]
        assert all(cell_len(line) <= width for line in lines), (width, lines)
        rows = [line for line in lines if line.startswith("chars  ")]
        assert width == 80 or any(line.startswith("a long") and "…  " in line for line in lines)  # cut, not its count
        label = rows[0].index("T")  # (the label is ASCII)
        spelled = "".join(line[label:] for line in rows).replace("│", "").replace("·", " ").replace("\u200b", "")
        assert spelled == text


async def test_tokenizers_added_together_keep_the_order_asked(tmp_path, monkeypatch):
    """A lesson adds several at once (add="gpt2 cl100k o200k llama3"): the rows follow the order
    asked, whichever load finishes first (here the second, by hand)."""
    tok = small_tokenizer()
    paths = [str(tmp_path / name) for name in ("first.json", "second.json")]
    for path in paths:
        export_tokenizer(tok, "native", path)
    monkeypatch.setattr(ComparePane, "_load", lambda self, path, rules=None, typed="", *, shared=False: None)
    app = app_on("workshop.txt")
    async with app.run_test(size=SIZE) as pilot:
        pane = await compare_tab(pilot)
        for path in paths:
            pane.add(path)
        for path in reversed(paths):  # the second load finishes first
            pane.post_message(ComparePane.Loaded(path, tok, None, path))
        await settle_until(pilot, lambda: len(pane.extra) == 2, "both added")
        assert [seg.name for seg in pane.extra] == ["first.json", "second.json"]
