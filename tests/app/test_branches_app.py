"""What-if branches in the app (issue 14, part 3): m makes a manual merge from the candidates,
b lists the branches, switches (enter) and compares two (c); a resumed session has them back."""

from __future__ import annotations

from functools import partial

import pytest
from helpers import ROOT, app_on, settled
from textual.widgets import DataTable, OptionList, Static

from engine import TrainConfig
from tui.app.launch import resumed
from tui.app.screens.branches import BranchesScreen, ManualMergeScreen
from tui.app.widgets.merge_log import MergeLog
from tui.model.workbench import LoadedCorpus, Workbench

SIZE = (80, 24)


make_app = partial(app_on, "workshop.txt", pretokenizer="gpt2", vocab_size=400)


async def manual_merge(pilot, down: int = 0) -> None:
    """m, move the highlight ``down`` rows past the runner-up, enter."""
    await pilot.press("m")
    await settled(pilot)
    assert isinstance(pilot.app.screen, ManualMergeScreen)
    await pilot.press(*["down"] * down, "enter")
    await pilot.pause()


async def two_branches(pilot) -> tuple[list, list]:
    """Five steps, two back, a manual merge of the runner-up, three rule steps."""
    app = pilot.app
    trainer = app.workbench.trainer
    await pilot.press("n", "n", "n", "n", "n", "u", "u")
    main = trainer.history + trainer.future
    runner_up = trainer.candidates(2)[1].pair
    await manual_merge(pilot)
    assert trainer.history[-1].pair == runner_up and trainer.history[-1].manual
    await pilot.press("n", "n", "n")
    return main, trainer.history


@pytest.mark.slow
async def test_a_manual_merge_starts_a_branch_and_shows_in_the_log():
    app = make_app(autosave=False)
    async with app.run_test(size=SIZE) as pilot:
        main, other = await two_branches(pilot)
        trainer = app.workbench.trainer
        assert [b.name for b in trainer.branches] == ["main", "b1"] and trainer.branch.name == "b1"
        assert trainer.branch_events("main") == main
        log = app.query_one(MergeLog)
        await settled(pilot)
        assert log._texts[3][4].endswith("✋") and not log._texts[4][4].endswith("✋")
        # escape leaves the picker without a merge
        await pilot.press("m")
        await pilot.pause()
        await pilot.press("escape")
        await settled(pilot)
        assert trainer.history == other


@pytest.mark.slow
async def test_the_branches_screen_switches_and_compares():
    app = make_app(autosave=False)
    async with app.run_test(size=SIZE) as pilot:
        main, other = await two_branches(pilot)
        trainer = app.workbench.trainer
        await pilot.press("b")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, BranchesScreen)
        table = screen.query_one(DataTable)
        assert table.row_count == 2 and table.cursor_row == 1  # on the current branch, b1
        await pilot.press("c")  # on the current branch: compared with the one it parts from
        await app.workers.wait_for_complete()
        await pilot.pause()
        shown = str(screen.query_one("#branch-compare", Static).render())
        assert "A = b1, B = main: they part after step 3." in shown
        assert "only in A (" in shown and "only in B (" in shown
        await pilot.press("up", "enter")  # switch to main: back to where it was left (step 3)
        await settled(pilot)
        assert trainer.branch.name == "main" and trainer.history == main[:3] and trainer.future == main[3:]
        assert app.query_one(MergeLog).row_count == 3
        await pilot.press("escape")
        await settled(pilot)
        assert not isinstance(app.screen, BranchesScreen)
        await pilot.press("b")
        await pilot.pause()
        await pilot.press("down", "enter")
        await settled(pilot)
        assert trainer.branch.name == "b1" and trainer.history == other


@pytest.mark.slow
async def test_save_and_resume_restores_the_branches(tmp_path):
    corpus_file = tmp_path / "c.txt"
    corpus_file.write_text((ROOT / "assets" / "samples" / "workshop.txt").read_text(encoding="utf-8"), encoding="utf-8")
    session_file = tmp_path / "session.json"
    config = TrainConfig(pretokenizer="gpt2", vocab_size=400)
    app = app_on(Workbench(LoadedCorpus.open(corpus_file, "bytes"), config), session_file=session_file)
    async with app.run_test(size=SIZE) as pilot:
        main, other = await two_branches(pilot)
        await pilot.press("u")
        app.autosave(now=True)
        branches = app.workbench.trainer.branches
    session, corpus = resumed(None, session_file)
    app = app_on(corpus, session.config, resume=session, session_file=session_file)
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        trainer = app.workbench.trainer
        assert trainer.branches == branches
        assert trainer.history == other[:-1] and trainer.future == other[-1:]
        assert app.query_one(MergeLog).row_count == len(other) - 1
        await pilot.press("b")
        await pilot.pause()
        await pilot.press("up", "enter")
        await settled(pilot)
        assert trainer.history == main[:3] and trainer.future == main[3:]


@pytest.mark.slow
async def test_the_picker_lists_the_candidates_with_the_rules_choice_first():
    app = make_app(autosave=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("m")
        await pilot.pause()
        options = app.screen.query_one(OptionList)
        top = app.workbench.trainer.candidates(8)
        assert options.option_count == len(top) and options.highlighted == 1
        assert "the rule's choice" in str(options.get_option_at_index(0).prompt)
