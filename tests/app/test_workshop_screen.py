"""Issue 13, a screen a workshop can use: labels, fits and follows, driven by Pilot at 80×24."""

from __future__ import annotations

from functools import partial

import pytest
from helpers import app_on, settled
from textual.widgets import Input, Label

make_app = partial(app_on, still=True)


@pytest.mark.slow
async def test_the_heldout_setting_is_labelled():
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("a")
        await pilot.press("3")
        await pilot.pause()
        screen = app.screen
        label = screen.query_one("#heldout-label", Label)
        box = screen.query_one("#heldout-setting", Input)
        assert str(label.render()) == "held out:"
        assert box.value == "10%"
        # the label sits left of the field, on its line, both inside the screen
        assert label.region.y == box.region.y and label.region.right <= box.region.x
        assert box.region.right <= 80


def test_each_sample_carries_its_examples_settings():
    from engine import Trainer
    from tui.model.samples import SETTINGS, sample, samples

    assert set(SETTINGS) == {s.name for s in samples()}
    katze = sample("die-katze.txt")
    assert katze.settings_summary() == "bytes, simple, lowest-ids, vocab 270, 5 specials"
    trainer = Trainer(katze.read_bytes().decode(), katze.config())
    trainer.train()
    assert trainer.tokenizer().encode("die katze") == [259, 264, 101]  # seed 000's claim
    low = sample("low-lower-lowest.txt")
    trainer = Trainer(low.read_bytes().decode(), low.config())
    assert [trainer.token_text(e.new_id) for e in trainer.train()] == ["lo", "low", " low", " lowe"]  # seed 001
    hat = sample("the-cat-in-the-hat.txt")
    trainer = Trainer(hat.read_bytes().decode(), hat.config())
    trainer.train()
    tok = trainer.tokenizer()
    assert [tok.decode([i]) for i in tok.encode("the hat")] == ["the", "h", "at"]  # seed 003's walkthrough
    assert sample("workshop.txt").settings_summary() == "bytes, gpt2, lowest-ids"


@pytest.mark.slow
async def test_w_toggles_wrapping_and_f_follows_the_last_merge():
    from tui.app.widgets.corpus_view import CorpusView

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        view = app.screen.query_one(CorpusView)
        assert view.wrap and view.follow  # following from the start (issue 39, item 6)
        await pilot.press("w", "f")
        assert not view.wrap and not view.follow
        await pilot.press("w", "f")
        assert view.wrap and view.follow
        seen: list[int | None] = []
        real = view.show_last_merge
        view.show_last_merge = lambda: (seen.append(view.highlight), real())[1]
        await pilot.press("n", "n")
        await pilot.pause()
        last = app.workbench.trainer.last.new_id
        assert seen and seen[-1] == last  # each refresh asks the pane to bring the new token into view


def test_corpus_rows_break_before_a_word_when_one_is_near_the_end():
    from rich.segment import Segment

    from tui.app.widgets.corpus_view import wrap_groups

    def rows(tokens: list[str], width: int) -> list[str]:
        groups = [([Segment(t)], len(t)) for t in tokens]
        return ["".join(seg.text for seg in strip) for strip in wrap_groups(groups, width)]

    # "by" + "tes" would straddle the edge: the row breaks before " by" instead, keeping the word whole
    assert rows(["It", " reads", " by", "tes"], 12) == ["It reads", " bytes"]
    # no word start in the row's last third: break between tokens as before
    assert rows(["tokenizers", "ing", "x"], 12) == ["tokenizers", "ingx"]
    # a token is still never split unless it is wider than the row
    assert all(len(r) <= 12 for r in rows(["a" * 5, " " + "b" * 7, "c" * 20], 12))
    assert rows(["abcdef"], 4) == ["abcd", "ef"]


def test_tokenized_output_never_breaks_a_token_across_lines():
    from engine import Tokenizer
    from tui.app.widgets.tokenize_pane import render_tokens

    tok = Tokenizer()  # bytes alone: every byte of an emoji or a Chinese character is its own token
    text = "Hello 你好 👩‍👩‍👧 Welt"
    ids = tok.encode(text)
    for width in (9, 13, 26):
        lines = render_tokens(tok, ids, text, width=width).plain.split("\n")
        token_lines = lines[:-2]
        assert all(len(line) <= width for line in token_lines)
        assert not any(line.endswith("[f0") or line.startswith("9f]") for line in token_lines)


@pytest.mark.slow
async def test_arrows_scroll_the_corpus_pane_when_it_does_not_wrap_and_step_elsewhere():
    from tui.app.widgets.corpus_view import CorpusView

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        view = app.screen.query_one(CorpusView)
        await pilot.press("right")  # the log has focus: → steps
        assert app.workbench.steps == 1
        view.focus()
        await pilot.press("right")  # wrapping: nothing to scroll sideways, → still steps
        assert app.workbench.steps == 2
        await pilot.press("w")
        await settled(pilot)
        assert not view.wrap and view.max_scroll_x > 0
        await pilot.press("right", "right", "left", "shift+right")
        await settled(pilot)
        assert app.workbench.steps == 2  # not stepped, undone or redone
        assert view.scroll_x > 0  # scrolled sideways instead
        await pilot.press("n")  # n still steps there
        assert app.workbench.steps == 3
