"""The app in German and Chinese: the footer, the palette and the help speak the language, the
panes' titles and the status line too, everything still fits at 80×24 (Chinese labels take two
cells a character), and snapshots show it."""

from __future__ import annotations

import pytest
from rich.cells import cell_len

from tui.i18n import set_language
from tui.keys import key_rows, palette_entries
from tui.screens.help import HelpScreen
from tui.widgets.status_line import StatusLine

from test_screen_fits import assert_footer_fits, make_app
from test_snapshots import app_for

WORDS = {
    "de": {"footer": {"Lauf/Pause", "Schritt", "Rückgängig"}, "palette": "Schritt (n)", "system": "Farbschema",
           "help": "Tasten", "pane": "Merge-Log", "status": "pausiert"},
    "zh": {"footer": {"运行/暂停", "单步", "撤销", "查找"}, "palette": "单步 (n)", "system": "主题",
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
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = "".join(str(static.render()) for static in app.screen.query("Static"))
        assert words["help"] in text
        await pilot.press("escape", "a")
        await pilot.pause()
        assert_footer_fits(app, 80)  # the analysis screen's footer, its Back in the language


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
