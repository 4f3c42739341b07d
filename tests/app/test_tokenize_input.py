"""Issue 13 point 9: the tokenize input is reached by a key, left by Esc, keeps its text and
cursor, copies its ids with ctrl+y, and the footer shows only the keys that work there."""

from __future__ import annotations

from functools import partial

import pytest
from helpers import app_on, settle_until, settled
from textual.widgets import Input
from textual.widgets._footer import FooterKey

from tui.app.keys import key_rows
from tui.app.screens.dialogs import ConfirmScreen, PromptScreen
from tui.app.screens.help import HelpScreen
from tui.app.widgets.inspector import Inspector
from tui.app.widgets.merge_log import MergeLog
from tui.app.widgets.tokenize_pane import TokenInput

SIZE = (80, 24)


make_app = partial(app_on, "workshop.txt", vocab_size=600, autosave=False)


def footer(app) -> list[str]:
    """The footer's key labels, as drawn."""
    return [key.description for key in app.screen.query(FooterKey)]


@pytest.mark.slow
async def test_a_key_reaches_the_input_and_only_its_keys_show_while_typing():
    copied: list[str] = []
    app = make_app(clipboard=copied.append)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "n")  # two merges: unsaved work
        await settled(pilot)
        assert isinstance(app.focused, MergeLog)
        assert {"Step", "Undo", "Lessons", "Quit"} <= set(footer(app))  # (at 80 columns l Lessons has Find's place)
        assert "Copy ids" not in footer(app)

        await pilot.press("e")  # from the log straight into the input
        box = app.query_one("#tokenize-input", TokenInput)
        assert app.focused is box
        await pilot.press(*"cat", "space", "/", "n", "q", "question_mark")  # letters of the screen's keys type
        await settled(pilot)
        assert box.value == "cat /nq?"
        assert app.workbench.steps == 2 and app.screen is app.main_screen  # nothing stepped, found or quit
        # while typing, the footer shows the keys that work here, and no letter of the screen's
        assert set(footer(app)) == {"Leave", "Copy ids", "Quit", "palette"}, footer(app)  # ctrl+p works too

        await pilot.press("ctrl+y")  # copies the ids from inside the input
        assert copied == [" ".join(map(str, app.workbench.tokenizer().encode("cat /nq?")))]
        assert box.value == "cat /nq?"

        await pilot.press("escape")  # leaves, back to the log, with the screen's keys again
        assert isinstance(app.focused, MergeLog)
        assert {"Step", "Lessons", "Quit"} <= set(footer(app)) and "Copy ids" not in footer(app)
        await pilot.press("slash")
        assert isinstance(app.screen, PromptScreen)
        await pilot.press("escape")
        await pilot.pause()

        # Tab from the log: the inspector, then the input; the text kept, not selected, the
        # cursor at its end, so the next key adds to it
        await pilot.press("tab")
        assert isinstance(app.focused, Inspector)
        await pilot.press("tab")
        assert app.focused is box
        assert box.selection.is_empty and box.cursor_position == len(box.value)
        await pilot.press("x")
        assert box.value == "cat /nq?x"
        await pilot.press("home", "escape", "e")  # e brings the cursor back to the end too
        assert box.cursor_position == len(box.value)

        await pilot.press("ctrl+q")  # quits from the input too, asking first (unsaved merges)
        await settled(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await settled(pilot)
        assert app.is_running


@pytest.mark.slow
async def test_ctrl_y_with_nothing_typed_says_so_and_c_still_copies_the_token():
    copied: list[str] = []
    app = make_app(clipboard=copied.append)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "e", "ctrl+y")
        assert copied == []
        await pilot.press("escape", "c")
        token = app.workbench.trainer.last.new_id
        assert copied == [f"{token}\t{app.workbench.trainer.token_bytes(token).hex(' ')}"]


async def test_ctrl_q_still_quits_from_a_dialogs_input():
    app = make_app(clipboard=[].append)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("g")
        assert isinstance(app.screen, PromptScreen) and isinstance(app.focused, Input)
        await pilot.press("ctrl+q")  # nothing unsaved: it quits at once
        await settle_until(pilot, lambda: not app.is_running, "the app quit")
        assert not app.is_running


async def test_the_help_names_the_key_and_the_tab_cycle():
    rows = dict(key_rows())
    assert "tokenize input" in rows["`e`"] and "ctrl+y" in rows["`e`"]
    assert rows["tab"].startswith("move focus: merge log, inspector, tokenize input, corpus")
    app = make_app(clipboard=[].append)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
