"""The app in German and Chinese: the footer, the palette and the help speak the language, the
panes' titles and the status line too, everything still fits at 80×24 (Chinese labels take two
cells a character), and snapshots show it."""

from __future__ import annotations

import pytest
from helpers import settle_until, settled
from rich.cells import cell_len
from textual.widgets import Label

from tui.app.keys import key_rows, palette_entries
from tui.app.screens.help import HelpScreen
from tui.app.widgets.status_line import StatusLine
from tui.i18n import set_language

from test_screen_fits import assert_footer_fits, assert_placeholders_fit, make_app
from test_snapshots import app_for

WORDS = {
    "de": {"footer": {"Lauf/Pause", "Schritt", "Rückgängig"}, "palette": "Schritt (n)", "system": "Farbschema",
           "help": "Tasten", "pane": "Merge-Log", "status": "pausiert"},
    "zh": {"footer": {"运行/暂停", "单步", "撤销", "课程"}, "palette": "单步 (n)", "system": "主题",
           "help": "按键", "pane": "合并日志", "status": "已暂停"},
}


def test_the_key_table_translates_where_shown():
    """KEYS hold English (N_): the help's rows and the palette's entries translate when built."""
    english = dict(key_rows())
    set_language("zh")
    rows = dict(key_rows())
    assert rows["`n` 或 →"] == "单步：做一次合并"
    assert len(rows) == len(english)
    titles = [title for title, _help, _action in palette_entries()]
    assert "单步 (n)" in titles and "分析：压缩曲线 (a)" in titles


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["de", "zh"])
async def test_footer_palette_help_and_panes_speak_the_language(lang):
    set_language(lang)
    words = WORDS[lang]
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        shown = assert_footer_fits(app, 80)
        assert words["footer"] <= set(shown), shown
        assert words["pane"] == app.screen.query_one("#log").border_title
        status = app.screen.query_one(StatusLine).render().plain
        assert status.startswith(words["status"]) and cell_len(status) <= 78, status
        commands = [c.title for c in app.get_system_commands(app.screen)]
        assert any(title.startswith(words["palette"]) for title in commands), commands
        assert words["system"] in commands
        await pilot.press("question_mark")
        await settled(pilot)
        assert isinstance(app.screen, HelpScreen)
        text = "".join(str(static.render()) for static in app.screen.query("Static"))
        assert words["help"] in text
        await pilot.press("escape", "a")
        await settled(pilot)
        assert_footer_fits(app, 80)  # the analysis screen's footer, its Back in the language


def assert_labels_fit(screen) -> int:
    """Every line of every label lies inside the dialog or pane that holds it; how many were checked."""
    checked = 0
    for label in screen.query(Label):
        if not label.region.width:
            continue
        holder = label.parent
        while holder is not None and not (holder.has_class("dialog") or holder.id in ("heldout-pane", "tiediff-pane")):
            holder = holder.parent
        right = holder.content_region.right if holder is not None else screen.size.width
        for line in str(label.render()).splitlines():
            assert label.content_region.x + cell_len(line) <= right, (line, label.content_region, right)
        checked += 1
    return checked


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["de", "zh"])
async def test_dialogs_labels_and_placeholders_fit_80x24(lang):
    set_language(lang)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(pilot)
        assert assert_placeholders_fit(app.screen) == 1  # the tokenize input
        for key in ("g", "slash", "o", "comma"):  # go to, find, open, settings
            await pilot.press(key)
            await settled(pilot)
            assert assert_placeholders_fit(app.screen) >= 1, key
            assert assert_labels_fit(app.screen) >= 1, key
            await pilot.press("escape")
            await pilot.pause()
        await pilot.press("n", "q")  # a merge to lose: the quit question
        await settled(pilot)
        assert assert_labels_fit(app.screen) == 1
        await pilot.press("escape", "a", "3")
        await settled(pilot)
        assert assert_placeholders_fit(app.screen) >= 1 and assert_labels_fit(app.screen) >= 1  # the held-out setting
        await pilot.press("5")
        await settled(pilot)
        assert assert_placeholders_fit(app.screen) >= 2  # the compare text and tokenizer


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["de", "zh"])
def test_main_screen_in_language_80x24(snap_compare, lang):
    set_language(lang)
    app = app_for("workshop.txt")
    assert snap_compare(app, press=["n", "n", "n"], terminal_size=(80, 24))


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["de", "zh"])
def test_help_screen_in_language_80x24(snap_compare, lang):
    set_language(lang)
    app = app_for("workshop.txt")
    assert snap_compare(app, press=["n", "question_mark"], terminal_size=(80, 24))


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["de", "zh"])
def test_analysis_screen_in_language_80x24(snap_compare, lang):
    set_language(lang)
    app = app_for("workshop.txt")
    assert snap_compare(app, press=["n", "n", "a", "2"], terminal_size=(80, 24))


@pytest.mark.parametrize(("lang", "said"), [("de", "{path}: keine solche Datei"), ("zh", "{path}：没有这个文件")])
async def test_the_main_screen_says_engine_messages_in_the_language(lang, said, monkeypatch, tmp_path):
    """MainScreen.say goes through engine_message, as the app's own say does."""
    from tui.app.screens.main import MainScreen

    set_language(lang)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle_until(pilot, lambda: isinstance(app.screen, MainScreen), "the main screen")
        heard = []
        monkeypatch.setattr(app.screen, "notify", lambda message, **kwargs: heard.append(message))
        missing = tmp_path / "gone.txt"
        app.screen.say(f"{missing}: no such file")
        app.screen.say("a message the app does not translate")
        assert heard == [said.format(path=missing), "a message the app does not translate"]
