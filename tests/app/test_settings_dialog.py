"""The settings dialog (`,`) fits small terminals: its fields scroll, Apply and Cancel stay put.

Issue 13, defect 2: at 100x30 the last fields and the buttons were off-screen, at 80x24 the
dialog ended at "vocabulary size", so a user typed blind into invisible fields.
"""

from __future__ import annotations

from functools import partial

import pytest
from helpers import app_on, settled
from textual.geometry import Region
from textual.widgets import Button, Checkbox, Input, Select

from tui.app.screens.settings import SettingsScreen

FIELDS = ("base", "pretokenizer", "pattern", "tie_rule", "vocab_size", "merges", "min_frequency", "specials", "speed",
          "end_of_word",
          "split_digits", "no_merge_newline")


make_app = partial(app_on, "workshop.txt", vocab_size=300, autosave=False)


def inside(inner: Region, outer: Region) -> bool:
    return outer.contains_region(inner)


async def settle(pilot) -> None:
    """Focus scrolls the field into view with an animation: wait for it, then for the layout."""
    await pilot.pause()
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


@pytest.mark.slow
@pytest.mark.parametrize("size", [(80, 24), (100, 30)])
async def test_every_field_can_be_focused_and_is_in_view(size):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await pilot.press("comma")
        assert isinstance(app.screen, SettingsScreen)
        screen = app.screen
        scroll = screen.query_one("#settings-fields")
        screen_region = Region(0, 0, *size)
        for name in ("apply", "cancel"):
            button = screen.query_one(f"#{name}", Button)
            assert inside(button.region, screen_region), (name, button.region)
            assert button.region.height > 0
        # Tab walks the fields in order, from the first to the last, then to the buttons.
        screen.query_one("#base", Select).focus()
        await settle(pilot)
        seen = []
        for _ in range(len(FIELDS) + 2):
            focused = app.focused
            seen.append(focused.id)
            if focused.id in FIELDS:
                # the field is inside the scrolled area's visible part, which is on screen
                assert inside(focused.region, scroll.region), (focused.id, focused.region, scroll.region)
                assert inside(scroll.region, screen_region)
            await pilot.press("tab")
            await settle(pilot)
        assert [f for f in seen if f in FIELDS] == list(FIELDS)
        assert "apply" in seen and "cancel" in seen
        # the buttons never moved while the fields scrolled
        for name in ("apply", "cancel"):
            assert inside(screen.query_one(f"#{name}", Button).region, screen_region)


@pytest.mark.slow
async def test_a_field_at_the_bottom_can_be_edited_and_applied_at_80x24():
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("comma")
        screen = app.screen
        specials = screen.query_one("#specials", Input)
        specials.focus()
        await settle(pilot)
        assert inside(specials.region, screen.query_one("#settings-fields").region)
        await pilot.press(*"<pad>")
        screen.query_one("#split_digits", Checkbox).focus()
        await settle(pilot)
        await pilot.press("space")  # tick it, as a user would
        assert screen.query_one("#split_digits", Checkbox).value is True
        config = screen.read()
        assert config.specials == ("<pad>",) and config.split_digits


@pytest.mark.slow
async def test_an_error_is_shown_next_to_the_buttons():
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("comma")
        screen = app.screen
        screen.query_one("#merges", Input).value = "x"
        await pilot.click("#apply")
        await settled(pilot)
        assert isinstance(app.screen, SettingsScreen)  # not applied
        error = screen.query_one("#settings-error")
        assert "whole number" in str(error.render())
        assert inside(error.region, Region(0, 0, 80, 24)) and error.region.height >= 1


@pytest.mark.parametrize("typed", ["0", "-3"])
async def test_a_minimum_pair_count_below_one_is_refused_not_made_two(typed):
    """0 became 2 without a word (``or 2``); the command line refuses it: so does the dialog."""
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("comma")
        screen = app.screen
        screen.query_one("#min_frequency", Input).value = typed
        await pilot.click("#apply")
        await settled(pilot)
        assert isinstance(app.screen, SettingsScreen)  # not applied
        assert str(screen.query_one("#settings-error").render()) == f"the minimum pair count must be 1 or more, not {typed}"
        assert app.workbench.config.min_frequency == 2


async def test_a_minimum_pair_count_past_the_range_is_said_in_the_dialog():
    """Issue 40: 2**63 was applied, and reached the compiled core's int64_t when training began
    again ("cannot train on this corpus / OverflowError ..."); the pure path trained. Now the
    config refuses it on either path, in the dialog's one line, and the training stays as it was."""
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("comma")
        screen = app.screen
        screen.query_one("#min_frequency", Input).value = str(2**63)
        await pilot.click("#apply")
        await settled(pilot)
        assert isinstance(app.screen, SettingsScreen)  # not applied
        shown = str(screen.query_one("#settings-error").render())
        assert shown == f"minimum pair count {2**63} is too large (at most {2**63 - 1})"
        assert app.workbench.config.min_frequency == 2


@pytest.mark.slow
@pytest.mark.parametrize("size", [(80, 24), (100, 30)], ids=["80x24", "100x30"])
def test_snapshot(snap_compare, size):
    assert snap_compare(make_app(), press=["comma"], terminal_size=size)
