"""Issue 42 item 8, the code beside the merge: `v` shows the reference trainer's code in place of
the panes; stepping, undoing and jumping move its marked line and its values with the trainer,
and both agree with the engine's event of the step shown (read from the trainer, never typed in)."""

from __future__ import annotations

import re

import pytest
from helpers import app_on, settled
from textual.geometry import Region

from engine.train import deciding_role
from tui.app import BpeApp
from tui.app.widgets.code_pane import CodePane, CodeValues, marked_lines
from tui.i18n import set_language


def shown_lines(widget) -> list[str]:
    """The rows a widget draws now, its border included, as text (what the terminal shows of it)."""
    strips = widget.render_lines(Region(0, 0, widget.outer_size.width, widget.outer_size.height))
    return [strip.text for strip in strips]


def listing_in_view(app: BpeApp) -> list[str]:
    """The rows of the code the listing's scroll shows now."""
    scroll = app.screen.query_one("#code-scroll")
    listing = app.screen.query_one(CodePane).listing
    top = round(scroll.scroll_y)
    strips = listing.render_lines(Region(0, top, listing.size.width, scroll.scrollable_content_region.height))
    return [strip.text for strip in strips]


def marked_numbers(app: BpeApp) -> list[int]:
    """The reference.py line numbers of the rows marked ▶ in the listing's visible part."""
    return [int(m.group(1)) for row in listing_in_view(app) if (m := re.match(r"▶\s*(\d+) ", row))]


def check_made(app: BpeApp) -> None:
    """The view shows the trainer's last merge: its deciding line marked and in view, its values."""
    trainer = app.workbench.trainer
    event = trainer.last
    role = deciding_role(event, app.workbench.config.tie_rule)
    pane = app.screen.query_one(CodePane)
    assert pane.step is not None and pane.step.made and pane.step.step == event.step
    assert pane.step.marked == role
    if pane.step.stop is None:
        assert marked_numbers(app) == marked_lines(role)  # marked, and scrolled into view
    else:  # training is done: the stop line is in view, the deciding line marked above it
        assert any(row.startswith(f"■{marked_lines(pane.step.stop)[0]:>3} ") for row in listing_in_view(app))
        rows = [row.plain for row in pane.listing.rows(pane.listing.size.width)]
        assert [int(row[1:4]) for row in rows if row.startswith("▶")] == marked_lines(role)
    values = "\n".join(shown_lines(app.screen.query_one(CodeValues)))
    assert f"merge {event.step}:" in values
    assert f"line {marked_lines(role)[0]} decides" in values
    new = f"{event.new_id} {trainer.token_text(event.new_id).replace(' ', '·')}"
    assert new in values, (new, values)
    assert f"{event.tokens_before:,} → {event.tokens_after:,} tokens" in values, values
    assert f"{event.count:,}×" in values
    if event.tied:
        assert f"{event.tie_total} pairs tie at {event.count:,}" in values
    else:
        assert f"fewer than {event.count:,} times" in values
    for candidate in trainer.candidates(2):  # the next pass: the top pairs now
        assert f"{candidate.count:,}×" in values


async def test_stepping_and_undoing_move_the_marked_line_and_the_values():
    set_language("en")
    app = app_on("low-lower-lowest.txt", autosave=False, still=True)  # step 1 ties, step 2 does not
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(pilot)
        await pilot.press("v")
        await settled(pilot)
        assert app.screen.has_class("with-code") and app.screen.query_one(CodePane).display
        step = app.screen.query_one(CodePane).step
        assert step is not None and not step.made and step.step == 1 and step.after is None
        seen = set()
        for _ in range(3):
            await pilot.press("n")
            await settled(pilot)
            check_made(app)
            seen.add(app.workbench.trainer.last.tied)
        assert seen == {True, False}
        assert app.workbench.trainer.events()[0].pair == step.pair  # step 0 showed the merge step 1 made
        await pilot.press("u")
        await settled(pilot)
        assert app.workbench.steps == 2
        check_made(app)
        scroll = app.screen.query_one("#code-scroll")
        await pilot.press("down", "down")
        await settled(pilot)
        scrolled = scroll.scroll_y
        app.screen.refresh_views()  # a refresh at the same step (a run's batch, the autosave)
        await settled(pilot)
        assert scroll.scroll_y == scrolled  # leaves the reader's scrolling alone
        await pilot.press("v")
        await settled(pilot)
        assert not app.screen.query_one(CodePane).display and app.screen.query_one("#log").display


async def test_jumps_move_the_marked_line_and_the_values():
    set_language("en")
    app = app_on("low-lower-lowest.txt", autosave=False, still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(pilot)
        await pilot.press("v", "n", "n")
        await settled(pilot)
        check_made(app)
        await pilot.press("g", "1", "enter")
        await settled(pilot)
        assert app.workbench.steps == 1
        check_made(app)
        await pilot.press("right_square_bracket")  # +10: as far as training goes
        await settled(pilot)
        assert app.workbench.steps > 3
        check_made(app)
        await pilot.press("g", "0", "enter")  # back to the start: the next step redoes merge 1
        await settled(pilot)
        step = app.screen.query_one(CodePane).step
        first = app.workbench.trainer.future[0]
        assert not step.made and step.pair == first.pair and step.after == first.tokens_after
        values = "\n".join(shown_lines(app.screen.query_one(CodeValues)))
        assert "next merge, step 1:" in values and f"{first.tokens_before:,} → {first.tokens_after:,}" in values


async def test_training_to_its_end_marks_the_stop_line():
    app = app_on("low-lower-lowest.txt", autosave=False, still=True, base="chars", pretokenizer="none",
                 tie_rule="first-seen", max_merges=4)
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(pilot)
        await pilot.press("v", "n", "n", "n", "n")
        await settled(pilot)
        pane = app.screen.query_one(CodePane)
        assert pane.step.stop == "stop-merges" and pane.step.stop_text
        values = "\n".join(shown_lines(app.screen.query_one(CodeValues)))
        assert f"training stops: merge count reached (line {marked_lines('stop-merges')[0]})" in values
        rows = listing_in_view(app)
        assert any(re.match(rf"■\s*{marked_lines('stop-merges')[0]} while", row) for row in rows)


@pytest.mark.parametrize("lang", ["de", "zh"])
async def test_comments_are_said_in_the_ui_language(lang):
    from tui.model.code_step import COMMENTS, comment

    set_language(lang)
    try:
        app = app_on("low-lower-lowest.txt", autosave=False, still=True)
        async with app.run_test(size=(80, 24)) as pilot:
            await settled(pilot)
            await pilot.press("v")
            await settled(pilot)
            text = "\n".join(listing_in_view(app) + [row.plain for row in app.screen.query_one(CodePane).listing.rows(60)])
            for english in COMMENTS:  # each said in the language, and shown so (its start: comments wrap)
                said = comment(english)
                assert said != english and said.startswith("# ") and said[:8] in text, (english, said)
    finally:
        set_language("en")


async def test_the_marked_line_takes_the_themes_highlight():
    from rich.color import Color

    from tui.app.theme import current

    app = app_on("low-lower-lowest.txt", autosave=False, still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(pilot)
        await pilot.press("v", "n")
        await settled(pilot)
        for theme in ("textual-light", "textual-dark"):
            app.theme = theme
            await settled(pilot)
            scroll = app.screen.query_one("#code-scroll")
            listing = app.screen.query_one(CodePane).listing
            strips = listing.render_lines(Region(0, round(scroll.scroll_y), listing.size.width,
                                                 scroll.scrollable_content_region.height))
            marked = next(strip for strip in strips if strip.text.startswith("▶"))
            backgrounds = {seg.style.bgcolor for seg in marked if seg.style and seg.style.bgcolor and seg.text.strip()}
            assert Color.parse(current().highlight_bg) in backgrounds, (theme, backgrounds)
