"""A served tab's memory budget (tui/model/budget.py): the copies of the training state and the
analysis screen's caches within it, moving still working past it, and what serve says a tab costs."""

from __future__ import annotations

from engine import TrainConfig
from tui.model.budget import TAB_BUDGET, give_back, tab_estimate
from tui.model.evaluation import BUDGET_BASELINE_CHARS, Evaluation
from tui.model.workbench import CHECKPOINT_MEMORY, LoadedCorpus, Workbench


def workbench(memory: int | None, sample: str = "workshop.txt", **config) -> Workbench:
    return Workbench(LoadedCorpus.open(f"sample:{sample}", "bytes"), TrainConfig(**config), memory=memory)


def test_the_copies_hold_what_the_budget_allows():
    assert workbench(None).trainer.timeline.checkpoints.memory == CHECKPOINT_MEMORY
    assert workbench(TAB_BUDGET).trainer.timeline.checkpoints.memory == TAB_BUDGET


def test_past_the_budget_undo_and_jumps_still_work_by_walking():
    """A budget smaller than one copy keeps none at all: every jump walks, to the same merges."""
    free, tight = workbench(None, max_merges=200), workbench(1, max_merges=200)
    for bench in (free, tight):
        bench.goto(200)
        bench.goto(0)
        bench.goto(120)
        bench.undo()
    assert tight.trainer.timeline.checkpoints.copies == {}
    assert len(free.trainer.timeline.checkpoints.copies) > 1
    assert tight.trainer.steps == free.trainer.steps == 119
    assert [e.pair for e in tight.trainer.events()] == [e.pair for e in free.trainer.events()]


def test_under_a_budget_the_held_out_trainer_keeps_no_undo_log_and_is_built_again_to_go_back():
    evaluation = Evaluation(workbench(TAB_BUDGET, max_merges=60), "25%")
    late = evaluation.evaluate(50)
    side = evaluation._side
    assert not side.config.record_undo and side.steps == 50
    early = evaluation.evaluate(20)  # back: a new trainer, not an undo
    assert evaluation._side is not side and evaluation._side.steps == early.step == 20
    free = Evaluation(workbench(None, max_merges=60), "25%")
    assert free.evaluate(20).report == early.report and free.evaluate(50).report == late.report
    assert free._side.config.record_undo
    evaluation.release()
    assert evaluation._side is None


def test_under_a_budget_the_subword_baselines_train_on_a_part_of_a_large_text():
    small = Evaluation(workbench(TAB_BUDGET), "10%")
    assert small.baseline_part is None  # the workshop's training text is far below the part
    big = Evaluation(workbench(TAB_BUDGET), "10%")
    big.split = big.split.__class__("x" * (BUDGET_BASELINE_CHARS + 1), "x", "label", 0.1)
    assert big.baseline_part == BUDGET_BASELINE_CHARS
    unbounded = Evaluation(workbench(None), "10%")
    unbounded.split = big.split
    assert unbounded.baseline_part is None


def test_the_estimate_grows_with_the_distinct_text_and_counts_characters_at_the_character_level():
    workshop = tab_estimate(LoadedCorpus.open("sample:workshop.txt", "bytes"), TrainConfig())
    assert 50 << 20 < workshop.loaded <= workshop.trained < 70 << 20
    chinese = LoadedCorpus.open("sample:chinese.txt", "chars")
    as_chars = tab_estimate(chinese, TrainConfig(base="chars"))
    as_bytes = tab_estimate(LoadedCorpus.open("sample:chinese.txt", "bytes"), TrainConfig())
    assert as_chars.loaded < as_bytes.loaded  # a character is one unit, its bytes three
    tight = tab_estimate(chinese, TrainConfig(base="chars"), budget=0)
    assert tight.loaded == as_chars.loaded and tight.trained < as_chars.trained


def test_giving_memory_back_is_harmless():
    give_back()
    give_back()
