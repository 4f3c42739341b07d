"""Issue 13 point 6: a bundled sample opens with its example's settings (named beside it in the
open dialog, and said once it is open), unless "keep my current settings" is ticked."""

from __future__ import annotations

from functools import partial

import pytest
from helpers import app_on, settled
from textual.widgets import Checkbox, OptionList

from engine import TrainConfig
from tui.app.screens.dialogs import ConfirmScreen
from tui.app.screens.open_corpus import OpenScreen
from tui.model.samples import sample

SIZE = (80, 24)


make_app = partial(app_on, "workshop.txt", vocab_size=600, autosave=False, still=True)


async def open_sample(app, pilot, name: str, keep: bool = False) -> None:
    """o, (tick "keep my current settings"), then the sample from the list, answering yes if asked."""
    await pilot.press("o")
    assert isinstance(app.screen, OpenScreen)
    await pilot.press("tab")  # path -> the checkbox
    assert isinstance(app.focused, Checkbox)
    if keep:
        await pilot.press("space")
    await pilot.press("tab")
    options = app.screen.query_one(OptionList)
    assert app.focused is options
    options.highlighted = [o.id for o in options._options].index(name)
    await pilot.press("enter")
    await pilot.pause()
    if isinstance(app.screen, ConfirmScreen):  # unsaved merges: the question first
        await pilot.press("y")
    await app.workers.wait_for_complete()
    await settled(pilot)
    assert app.workbench.corpus.name == name


def said(app) -> list[str]:
    return app.toasts.texts()


async def test_the_dialog_names_each_samples_settings():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("o")
        options = app.screen.query_one(OptionList)
        prompts = {o.id: str(o.prompt) for o in options._options}
        assert prompts["die-katze.txt"].endswith("opens with: bytes, simple, lowest-ids, vocab 270, 5 specials")
        assert "opens with: chars, pattern \\w+, first-seen, 3 merges" in prompts["the-cat-in-the-hat.txt"]
        keep = app.screen.query_one("#open-keep", Checkbox)
        assert keep.value is False and keep.region.bottom <= 24 and keep.region.height == 1  # visible at 80×24


@pytest.mark.slow
async def test_samples_open_with_their_examples_settings_unless_kept():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_sample(app, pilot, "die-katze.txt")
        assert app.config == sample("die-katze.txt").config() != TrainConfig(vocab_size=600)
        assert "die-katze.txt, with its example's settings: bytes, simple, lowest-ids, vocab 270, 5 specials" in said(app)
        await pilot.press("right_curly_bracket")  # train to its end: seed 000's claim holds
        await app.workers.wait_for_complete()
        await settled(pilot)
        assert app.workbench.tokenizer().encode("die katze") == [259, 264, 101]

        # after die-katze, the-cat-in-the-hat still learns seed 003's walkthrough: th, the, at
        await open_sample(app, pilot, "the-cat-in-the-hat.txt")
        assert app.config == sample("the-cat-in-the-hat.txt").config()
        await pilot.press("n", "n", "n", "n")  # its 3 merges, then a stop rule
        await pilot.pause()
        trainer = app.workbench.trainer
        assert [trainer.token_text(e.new_id) for e in trainer.history] == ["th", "the", "at"]
        cat_config = app.config

        # with "keep my current settings", opening die-katze does not change the config
        await open_sample(app, pilot, "die-katze.txt", keep=True)
        assert app.config == cat_config
        assert any(m.startswith("die-katze.txt, with your settings kept: chars, pattern \\w+") for m in said(app))
        await pilot.press("n", "n", "n", "n")
        assert app.workbench.steps == 3  # the cat's stop rule, on die-katze


@pytest.mark.slow
async def test_a_file_keeps_the_current_settings(tmp_path):
    corpus = tmp_path / "mine.txt"
    corpus.write_text("low lower lowest\n", encoding="utf-8")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_sample(app, pilot, "low-lower-lowest.txt")
        low = app.config
        assert low == sample("low-lower-lowest.txt").config()
        await pilot.press("o", *str(corpus), "enter")
        await app.workers.wait_for_complete()
        await settled(pilot)
        assert app.workbench.corpus.name == "mine.txt" and app.config == low
