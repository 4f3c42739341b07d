"""The lesson player without textual: a small driver over a real Workbench (FakeLab) stands
for the app's Lab, and the player sees nothing else. Next, back and restart; a learner who
explores is told so, and > returns to the lesson's state first; claims ✓ and ✗, failed actions
as ✗ lines; the analysis and quiz steps; a step that is still running; the view is plain data."""

from __future__ import annotations

import asyncio
import dataclasses
import subprocess
import sys

import pytest
from helpers import ROOT

from tui.lessons.format import parse
from tui.lessons.player import LessonPlayer
from tui.model.driver import DriverError, LabDriver, LessonView
from tui.model.workbench import LoadedCorpus, Workbench

DATA = ROOT / "tests" / "data" / "lessons"
LOW = "sample:low-lower-lowest.txt"


class FakeLab:
    """A LabDriver over a bare Workbench: what the app's Lab does, without a screen."""

    def __init__(self) -> None:
        self._workbench: Workbench | None = None
        self.views: list[LessonView | None] = []
        self.said: list[str] = []
        self.tabs: list[tuple[str | None, str | None]] = []
        self.quizzes: list[tuple[str, int]] = []
        self.selected: int | None = None
        self.text: str | None = None
        self.trace: bool | None = None
        self.opened = 0
        #: While set, a move waits here (a long run the test holds).
        self.hold: asyncio.Event | None = None
        self.moving = False

    @property
    def workbench(self) -> Workbench | None:
        return self._workbench

    @property
    def busy(self) -> bool:
        return self.moving

    async def open(self, source, config, script=None, file_ids=None) -> None:
        try:
            corpus = LoadedCorpus.open(source, script.base if script else config.base)
            workbench = Workbench(corpus, config, script=script, file_ids=file_ids)
        except ValueError as exc:
            raise DriverError(str(exc)) from None
        await asyncio.sleep(0)
        self._workbench = workbench
        self.opened += 1

    async def move(self, target: int | None) -> int:
        if self._workbench is None:
            raise DriverError("no corpus")
        self.moving = True
        try:
            if self.hold is not None:
                await self.hold.wait()
            trainer = self._workbench.trainer
            if target is None:
                trainer.train()
            else:
                trainer.goto(target)
            await asyncio.sleep(0)
            return trainer.steps
        finally:
            self.moving = False

    async def idle(self, *, stop: bool = False) -> None:
        await asyncio.sleep(0)

    def select(self, token_id: int) -> None:
        self.selected = token_id

    def tokenize(self, text: str | None = None, *, trace: bool | None = None) -> None:
        if text is not None:
            self.text = text
        if trace is not None:
            self.trace = trace

    def show_tab(self, tab: str | None, *, text: str | None = None, add: tuple[str, ...] = ()) -> None:
        self.tabs.append((tab, text))

    def start_quiz(self, mode: str, rounds: int = 1) -> None:
        self.quizzes.append((mode, rounds))

    def say(self, message: str, *, timeout: float = 3.0) -> None:
        self.said.append(message)

    def marked(self) -> list[str]:
        return []

    def hand_in(self, stem: str, markdown: str) -> str:
        self.handed_in = (stem, markdown)
        return stem + ".md"

    def show_lesson(self, view: LessonView | None) -> None:
        self.views.append(view)

    # what the learner does by hand
    def explore(self, merges: int) -> None:
        for _ in range(merges):
            self._workbench.trainer.step()

    @property
    def view(self) -> LessonView | None:
        return self.views[-1]


def where(lab: FakeLab, player: LessonPlayer) -> tuple[int, str, int]:
    return player.index, lab.workbench.corpus.source, lab.workbench.steps


async def press(player: LessonPlayer, key: str) -> None:
    {">": player.next, "<": player.back, "L": player.restart}[key]()
    await player.wait()


def test_the_fake_lab_is_a_lab_driver():
    assert isinstance(FakeLab(), LabDriver)


def test_the_player_imports_no_textual():
    code = "import sys, tui.lessons.player; print('textual' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert out.strip() == "False"


async def test_next_back_restart_and_the_pane_s_view():
    lab = FakeLab()
    player = LessonPlayer(lab, parse(DATA / "001-low.en.md"))
    player.start()
    await player.wait()
    assert where(lab, player) == (0, LOW, 0)  # no corpus yet: the lesson's first opens
    assert lab.view.step_index == 0 and lab.view.step_title == "low lower lowest: the first merges"
    assert "seed 001's trace" in lab.view.prose and not lab.view.busy and lab.view.step_count == 4

    await press(player, ">")
    assert where(lab, player) == (1, LOW, 0)
    assert lab.view.step_title == "The corpus before any merge" and "Sixteen characters" in lab.view.prose
    assert [(c.ok, c.text) for c in lab.view.claims] == [
        (True, "step == 0"), (True, "tokens == 16"), (True, "candidate 1 == \"l o\""), (True, "ties == 2")]
    assert any(v is not None and v.busy for v in lab.views)  # "running the step…" while it ran

    await press(player, ">")
    assert where(lab, player) == (2, LOW, 2)
    assert lab.selected == lab.workbench.trainer.vocab.index(b"low") and lab.text == "lowest"
    await press(player, ">")
    assert where(lab, player) == (3, LOW, 4)
    await press(player, ">")
    assert where(lab, player) == (4, LOW, 3) and all(c.ok for c in lab.view.claims)
    await press(player, ">")  # the last step: it stays, and says so
    assert where(lab, player) == (4, LOW, 3) and lab.said[-1] == "this is the lesson's last step: L starts it again"

    await press(player, "<")  # back: each step's training state
    assert where(lab, player) == (3, LOW, 4)
    await press(player, "<")
    assert where(lab, player) == (2, LOW, 2)
    lab.selected = lab.text = None
    await press(player, "<")
    await press(player, ">")  # forward again: the step's actions again
    assert where(lab, player) == (2, LOW, 2) and lab.text == "lowest" and lab.selected is not None

    opened = lab.opened
    await press(player, "L")
    assert where(lab, player) == (0, LOW, 0) and set(player.marks) == {0}
    assert lab.opened == opened  # the same corpus and settings: not opened again
    await press(player, "<")
    assert lab.said[-1] == "this is the lesson's introduction"


async def test_a_learner_who_explores_is_told_so_and_returns_to_the_lesson_first():
    lab = FakeLab()
    player = LessonPlayer(lab, parse(DATA / "001-low.en.md"))
    player.start()
    await player.wait()
    for _ in range(2):
        await press(player, ">")
    assert where(lab, player) == (2, LOW, 2) and not lab.view.drifted

    lab.explore(2)  # two merges more by hand; the lab asks the pane to redraw
    player.refresh()
    assert player.drifted() and lab.view.drifted
    await press(player, ">")  # back to the lesson's state, at the same step
    assert where(lab, player) == (2, LOW, 2) and not lab.view.drifted
    await press(player, ">")  # and now on
    assert where(lab, player) == (3, LOW, 4)

    # far away: another corpus with other settings; < brings the lesson's corpus back
    await lab.open("sample:qa.txt", lab.workbench.config.with_changes(max_merges=48))
    player.refresh()
    assert lab.view.drifted
    await press(player, "<")
    assert where(lab, player) == (2, LOW, 2) and lab.workbench.config.max_merges == 4
    assert not lab.view.drifted


async def test_claims_that_fail_and_actions_that_fail_are_shown_as_such():
    lab = FakeLab()
    player = LessonPlayer(lab, parse(DATA / "002-failing.en.md"))
    player.start()
    await player.wait()
    await press(player, ">")
    view = lab.view
    assert [(c.ok, c.text, c.detail) for c in view.claims] == [(False, "tokens == 3", "7"), (True, "tokens == 7", "")]
    assert view.failures == ("✗ line 15: select: no token matches 'zz'",)
    assert not player.shown[1].ok and lab.workbench.steps == 1


SHOW = """+++
title = "show"
+++
## before a corpus
```bpe
step
expect tokens == 1
```
## analysis
```bpe
open text="aaab aaab" base=bytes pretokenizer=none max_merges=2
run 5
tokenize "aab" trace=on
analysis compare text="aaab"
```
## quiz
```bpe
quiz mode=hidden rounds=2
undo
expect step == 1
```
## replay
```bpe
replay tok.json
step 2
expect step == 2
expect merges == ["aa", "ab"]
```
"""


async def test_show_directives_quiz_and_replay(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    from engine import TrainConfig, Trainer

    trainer = Trainer("aaab aaab", TrainConfig(base="bytes", pretokenizer="none"))
    trainer.goto(2)
    trainer.tokenizer().save(tmp_path / "tok.json")
    path = tmp_path / "show.en.md"
    path.write_text(SHOW, encoding="utf-8")
    lab = FakeLab()
    player = LessonPlayer(lab, parse(path))
    player.start()
    await player.wait()
    assert lab.workbench is not None and lab.workbench.corpus.source.endswith(".txt")  # the lesson's first open

    lab._workbench = None  # as if started before any corpus: the step's move fails, as a ✗ line
    await press(player, ">")
    assert lab.view.failures == ("✗ line 6: step: no corpus is open (an open directive comes first)",)
    assert [(c.ok, c.detail) for c in lab.view.claims] == [(False, "no corpus is open (an open directive comes first)")]

    await press(player, ">")
    assert lab.tabs[-1] == ("compare", "aaab") and lab.text == "aab" and lab.trace is True
    assert lab.view.notes == ("stopped at step 2: a stop rule holds",) and lab.workbench.steps == 2

    await press(player, ">")
    assert lab.tabs[-1] == (None, None)  # the step began on the main screen
    assert lab.quizzes == [("hidden", 2)] and lab.workbench.steps == 1  # asked once the step's state is kept
    assert player.marks[3].steps == 1 and all(c.ok for c in lab.view.claims)

    await press(player, ">")
    assert lab.workbench.script is not None and lab.workbench.steps == 2
    assert all(c.ok for c in lab.view.claims) and lab.quizzes == [("hidden", 2)]


async def test_a_step_still_running_refuses_keys_and_close_cancels_it():
    lab = FakeLab()
    player = LessonPlayer(lab, parse(DATA / "001-low.en.md"))
    player.start()
    await player.wait()
    await press(player, ">")
    lab.hold = asyncio.Event()
    player.next()  # step 2 moves two merges: held
    while not lab.moving:
        await asyncio.sleep(0)
    assert player.busy and lab.view.busy and not player.drifted()
    player.next()
    player.back()
    assert lab.said[-2:] == ["the lesson's step is still running"] * 2 and player.index == 2
    player.close()
    with pytest.raises(asyncio.CancelledError):
        await player.wait()
    assert lab.views[-1] is None and not player.busy  # the pane hidden; the trainer as it was
    assert lab.workbench.steps == 0


def test_the_view_is_plain_data():
    lesson = parse(DATA / "002-failing.en.md")
    view = LessonPlayer(FakeLab(), lesson, note="a note").view()

    def plain(value) -> bool:
        if isinstance(value, (tuple, list)):
            return all(plain(v) for v in value)
        if isinstance(value, dict):
            return all(isinstance(k, str) and plain(v) for k, v in value.items())
        return value is None or isinstance(value, (str, int, bool))

    assert plain(dataclasses.asdict(view)) and view.note == "a note" and view.step_title == lesson.title
