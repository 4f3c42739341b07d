"""One key table (tui/app/keys.py): the README, the help, the palette and the bindings all come from
it, and every way to quit asks about unsaved merges and saves the session last."""

from __future__ import annotations

import json
from functools import partial

import pytest
from helpers import ROOT, app_on, run_from_palette, settle_until

from tui.app.keys import KEYS, app_bindings, key_rows, markdown_table, palette_entries, same_action
from tui.app.screens.dialogs import ConfirmScreen
from tui.app.screens.main import MainScreen

SIZE = (100, 30)


make_app = partial(app_on, "workshop.txt", vocab_size=600)


def readme_key_table() -> str:
    """The table after the README's keys marker, exactly as written."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    after = text.split("<!-- keys:", 1)[1].split("\n", 1)[1]
    lines = []
    for line in after.splitlines():
        if not line.startswith("|"):
            break
        lines.append(line)
    return "\n".join(lines)


def test_readme_key_table_is_the_code():
    assert readme_key_table() == markdown_table()


def test_each_key_is_bound_once_and_documented():
    keys = [key.key for key in KEYS]
    assert len(keys) == len(set(keys))
    assert all(key.description and key.tooltip for key in KEYS)
    assert MainScreen.BINDINGS is KEYS  # the main screen binds them all, in the footer's order
    assert all(key.action.startswith("app.") for key in app_bindings())
    documented = {row for row, _ in key_rows()}
    assert {"`q` or ctrl+q", "`n` or →", "space", "`/`"} <= documented


def test_the_palette_lists_each_action_once():
    titles = [title for title, _, _ in palette_entries()]
    assert len(titles) == len(set(titles))
    actions = [action for _, _, action in palette_entries()]
    assert len(actions) == len(set(actions))
    assert set(actions) >= {same_action(key.action) for key in KEYS} - {"app.analysis"}


async def test_the_palette_has_one_quit(tmp_path):
    app = make_app(session_file=tmp_path / "s.json")
    async with app.run_test(size=SIZE):
        titles = [command.title for command in app.get_system_commands(app.screen)]
        assert [title for title in titles if "Quit" in title] == ["Quit (q)"]
        assert "Find token (/)" in titles and "Theme" in titles


@pytest.mark.slow
async def test_ctrl_q_with_unsaved_merges_asks_first(tmp_path):
    session = tmp_path / "s.json"
    app = make_app(session_file=session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "ctrl+q")
        assert isinstance(app.screen, ConfirmScreen) and app.is_running
        await pilot.press("ctrl+q")  # again while asking: still one question
        assert len([s for s in app.screen_stack if isinstance(s, ConfirmScreen)]) == 1
        await pilot.press("n")
        assert not isinstance(app.screen, ConfirmScreen) and app.is_running
        await pilot.press("n", "ctrl+q", "y")  # a merge made just before: only the quit saves it
        await settle_until(pilot, lambda: not app.is_running, "the app quit")
        assert not app.is_running
    assert json.loads(session.read_text(encoding="utf-8"))["step"] == 2  # saved on the way out


async def test_ctrl_q_with_nothing_unsaved_quits_at_once(tmp_path):
    session = tmp_path / "s.json"
    app = make_app(session_file=session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+q")
        await settle_until(pilot, lambda: not app.is_running, "the app quit")
        assert not app.is_running
    assert json.loads(session.read_text(encoding="utf-8"))["step"] == 0


@pytest.mark.slow
async def test_the_palettes_quit_asks_too(tmp_path):
    app = make_app(session_file=tmp_path / "s.json")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n")
        await run_from_palette(pilot, "Quit (q)")
        assert isinstance(app.screen, ConfirmScreen) and app.is_running
        await pilot.press("y")
        await settle_until(pilot, lambda: not app.is_running or not isinstance(app.screen, ConfirmScreen), "answered")
        assert not app.is_running


async def test_the_help_screen_shows_every_row(tmp_path):
    from textual.widgets import Static

    from tui.app.screens.help import HelpScreen

    app = make_app(session_file=tmp_path / "s.json")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        table = app.screen.query(Static)[1].content  # the keys: a rich Table
        shown = [(keys.plain, what.plain) for keys, what in zip(table.columns[0].cells, table.columns[1].cells)]
        assert shown == [(keys.replace("`", ""), what.replace("`", "")) for keys, what in key_rows()]
