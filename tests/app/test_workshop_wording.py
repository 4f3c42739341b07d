"""Issue 13 point 13: screenshots name their file, the Open dialog checks a path before asking,
and the small wordings (samples, merges in common, unknown tokens, the help, tab 5's input)."""

from __future__ import annotations

import io
from functools import partial

import pytest
from helpers import app_on, settled
from rich.console import Console
from textual.widgets import Input, Label, Static

from engine import TrainConfig
from engine.analysis import parse_parallel, tie_rule_diff
from tui.app.screens.analysis import AnalysisScreen
from tui.app.screens.dialogs import ConfirmScreen
from tui.app.screens.help import HelpScreen
from tui.app.screens.open_corpus import OpenScreen
from tui.app.widgets.compare_views import tax_table
from tui.app.widgets.tiediff_pane import render_diff
from tui.model.samples import sample

SIZE = (80, 24)


make_app = partial(app_on, vocab_size=600, still=True)


def plain(renderable, width: int = 160) -> str:
    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    console.print(renderable)
    return console.export_text()


def notes(app) -> list[str]:
    return app.toasts.texts()


async def test_a_screenshot_goes_to_the_working_folder_and_names_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # no ~/Downloads
    app = make_app(session_file=tmp_path / "s.json")
    async with app.run_test(size=SIZE) as pilot:
        app.action_screenshot()  # what the palette's Screenshot calls
        await pilot.pause()
        svgs = list(tmp_path.glob("*.svg"))
        assert len(svgs) == 1 and svgs[0].read_text(encoding="utf-8").startswith("<svg")
        assert f"saved {svgs[0].resolve()}" in notes(app)


@pytest.mark.slow
async def test_a_screenshot_to_a_configured_folder_or_a_failure_says_where(tmp_path, monkeypatch):
    shots = tmp_path / "shots"
    shots.mkdir()
    monkeypatch.setenv("BPE_LAB_SCREENSHOTS", str(shots))
    app = make_app(session_file=tmp_path / "s.json")
    async with app.run_test(size=SIZE) as pilot:
        app.deliver_screenshot()
        await settled(pilot)
        assert len(list(shots.glob("*.svg"))) == 1
        monkeypatch.setenv("BPE_LAB_SCREENSHOTS", str(tmp_path / "missing"))
        app.deliver_screenshot()
        await settled(pilot)
        assert any(n.startswith(f"screenshot not saved: {tmp_path / 'missing'}") for n in notes(app))


@pytest.mark.slow
async def test_open_checks_the_path_before_asking(tmp_path):
    app = make_app(session_file=tmp_path / "s.json")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "o")
        await pilot.pause()
        missing = tmp_path / "nowhere.txt"
        await pilot.press(*str(missing), "enter")
        await settled(pilot)
        assert isinstance(app.screen, OpenScreen)  # stays open, says why
        assert f"no such file: {missing}" in str(app.screen.query_one("#open-error", Label).render())
        box = app.screen.query_one("#open-path", Input)
        box.value = str(tmp_path)
        await pilot.press("enter")
        await settled(pilot)
        assert "is a folder" in str(app.screen.query_one("#open-error", Label).render())
        real = tmp_path / "real.txt"
        real.write_text("hello hello world\n", encoding="utf-8")
        box.value = str(real)
        await pilot.press("enter")
        await settled(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.question.startswith(f"Open {real}?\n")


@pytest.mark.slow
async def test_opening_a_sample_names_it_in_words(tmp_path):
    app = make_app(session_file=tmp_path / "s.json")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "o")
        await pilot.pause()
        app.screen.dismiss("sample:die-katze.txt")
        await settled(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.question.startswith("Open the bundled sample die-katze.txt?\n")


def test_merges_in_common_agree_in_number():
    config = TrainConfig(pretokenizer="gpt2")
    one = plain(render_diff(tie_rule_diff("zz zz zz hello hello world", config), "t.txt"))
    assert "part at step 2 after 1 merge in common" in one
    none = plain(render_diff(tie_rule_diff("hello hello world", config), "t.txt"))
    assert "part at step 1, at the first merge" in none and "0 merges" not in none


def test_the_token_tax_says_unknown_in_words():
    from engine.analysis.baselines import WordTokenizer

    groups = parse_parallel(sample("parallel.txt").read_bytes().decode("utf-8"))
    word = WordTokenizer(sample("workshop.txt").read_bytes().decode("utf-8"))  # knows little Russian
    shown = plain(tax_table([word], groups))
    assert "?" not in shown
    unknown = [line.split() for line in shown.splitlines() if line.strip().startswith("unknown")]
    assert len(unknown) == 1 and all(count.isdigit() for count in unknown[0][1:])
    assert int(unknown[0][-1]) > 0  # Russian: words the workshop corpus never had


@pytest.mark.slow
async def test_the_help_lists_each_key_once_and_says_escape_closes_it(tmp_path):
    app = make_app(session_file=tmp_path / "s.json")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        title = plain(app.screen.query_one("#help-title", Static).content)
        assert "escape" in title and "closes this help" in title
        table = app.screen.query(Static)[1].content
        keys = [cell.plain for cell in table.columns[0].cells]
        assert keys.count("?") == 1 and len(keys) == len(set(keys))
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


@pytest.mark.slow
async def test_typing_on_tab_5_goes_to_its_input_and_escape_leaves_only_the_input(tmp_path):
    app = make_app(session_file=tmp_path / "s.json")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("a", "5")
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, AnalysisScreen) and screen.active_tab == "compare"
        await pilot.press(*"one two")  # o and n would open a dialog and step
        await settled(pilot)
        assert screen.query_one("#compare-text", Input).value == "one two"
        assert app.screen is screen and app.workbench.steps == 0
        await pilot.press("escape")  # leaves the input, not the screen
        await settled(pilot)
        assert app.screen is screen and not isinstance(screen.focused, Input)
        await pilot.press("3")  # the screen's keys work again
        await settled(pilot)
        assert screen.active_tab == "heldout"
        await pilot.press("escape")
        await settled(pilot)
        assert app.screen is app.main_screen


@pytest.mark.slow
async def test_escape_in_the_held_out_input_leaves_the_input(tmp_path):
    app = make_app(session_file=tmp_path / "s.json")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("a", "3")
        await pilot.pause()
        screen = app.screen
        screen.query_one("#heldout-setting", Input).focus()
        await pilot.pause()
        await pilot.press("escape")
        await settled(pilot)
        assert app.screen is screen and screen.focused is None


@pytest.mark.slow
@pytest.mark.parametrize("stop, reason", [({"vocab_size": 265}, "vocabulary size reached"),
                                          ({"max_merges": 3}, "merge count reached")])
@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_one_stop_has_one_wording_in_the_next_merge_pane_and_the_status_line(stop, reason, lang, tmp_path):
    """Issue 22 point 10: the next-merge pane said "the merge target is reached" where the status
    line said "vocabulary size reached"; both say the status line's reason now."""
    from helpers import settle_until

    from tui.app.widgets.candidates import Candidates
    from tui.app.widgets.status_line import StatusLine
    from tui.i18n import _, set_language

    set_language(lang)
    config = TrainConfig(**stop)
    app = app_on("die-katze.txt", config, session_file=tmp_path / "s.json", autosave=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"nnnnnnnnnn")
        await settle_until(pilot, lambda: app.workbench.done, "trained to the target")
        said = _("done: {reason}").format(reason=_(reason))
        candidates = plain(app.main_screen.query_one(Candidates).render())
        status = plain(app.main_screen.query_one(StatusLine).render())
        assert said in candidates.replace("\n", "") and said in status, (candidates, status)
