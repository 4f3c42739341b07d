"""Sessions keep what-if branches and manual merges (issue 14, part 3): resume restores them."""

from __future__ import annotations

import json

import pytest

from engine import TrainConfig
from tui.model.session import Session, SessionError
from tui.model.workbench import LoadedCorpus, Workbench

CONFIG = TrainConfig(pretokenizer="gpt2", max_merges=8)


def workbench() -> Workbench:
    return Workbench(LoadedCorpus.open("sample:workshop.txt", "bytes"), CONFIG)


def branched() -> Workbench:
    bench = workbench()
    trainer = bench.trainer
    trainer.train()
    trainer.goto(2)
    trainer.force(trainer.candidates(3)[2].pair)
    trainer.train()
    trainer.goto(5)
    return bench


def test_a_session_saves_and_restores_the_branches(tmp_path):
    bench = branched()
    before = bench.trainer.branches
    session = bench.session()
    path = session.save(tmp_path / "s.json")
    assert "branches" in json.loads(path.read_text(encoding="utf-8"))
    loaded = Session.load(path)
    fresh = workbench()
    assert fresh.restore(loaded) is None
    assert fresh.trainer.branches == before
    assert fresh.trainer.history == bench.trainer.history and fresh.trainer.future == bench.trainer.future
    fresh.trainer.switch("main")
    bench.trainer.switch("main")
    assert fresh.trainer.history == bench.trainer.history


def test_a_session_without_manual_merges_has_no_branches_field():
    bench = workbench()
    bench.trainer.goto(3)
    assert bench.session().branches is None
    assert "branches" not in bench.session().to_json()


def test_damaged_branches_are_one_line(tmp_path):
    data = json.loads(branched().session().to_json())
    data["branches"]["current"] = "nowhere"
    path = tmp_path / "s.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(SessionError, match="\"current\" must name one of the branches") as info:
        Session.load(path)
    assert "\n" not in str(info.value)
