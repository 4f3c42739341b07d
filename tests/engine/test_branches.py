"""Manual merges and what-if branches in the engine (issue 14, part 3)."""

from __future__ import annotations

import pytest
from hypothesis import given, note
from hypothesis import strategies as st

from engine import Merge, MergeError, TokenIdError, Tokenizer, TrainConfig, Trainer
from engine.train import Branch
from engine.train.reference import train as reference_train

from test_engine_differential import configs, corpora
from test_engine_undo import snapshot


def eligible(trainer: Trainer, floor: int) -> list[tuple[int, int]]:
    return sorted(p for p, c in trainer.pair_counts().items() if c >= floor)


@given(corpora(), configs(), st.data())
def test_forced_merges_then_the_rule_match_the_reference(text, kw, data):
    """Forcing m1..mk and then training by the rule makes exactly the merges of the naive
    trainer that starts by applying m1..mk (both tie rules the reference knows)."""
    trainer = Trainer(text, TrainConfig(**kw))
    forced = []
    for _ in range(data.draw(st.integers(0, 4))):
        pairs = eligible(trainer, kw["min_frequency"])
        if not pairs or len(forced) >= kw["max_merges"]:
            break
        pair = data.draw(st.sampled_from(pairs))
        event = trainer.force(pair)
        assert event.manual and event.pair == pair and event.step == len(forced) + 1
        forced.append(pair)
    note(f"forced {forced}")
    rest = trainer.train()
    assert not any(e.manual for e in rest)
    expected, sizes = reference_train(text, **kw, forced=forced)
    assert [e.pair for e in trainer.history] == expected
    assert [e.tokens_after for e in trainer.history] == sizes
    trainer._state.verify()


@given(corpora(), configs(), st.data())
def test_a_manual_merge_in_the_middle_then_undo_redo_goto(text, kw, data):
    """A manual merge after k rule steps: undo, redo and goto (with checkpoints) keep it."""
    config = TrainConfig(**kw)
    trainer = Trainer(text, config, checkpoints=2)
    trainer.goto(data.draw(st.integers(0, 5)))
    pairs = eligible(trainer, kw["min_frequency"])
    if not pairs or trainer.steps >= kw["max_merges"]:
        return
    pair = data.draw(st.sampled_from(pairs))
    forced = [e.pair for e in trainer.history] + [pair]
    trainer.force(pair)
    trainer.train()
    line = trainer.history
    expected, _ = reference_train(text, **kw, forced=forced)
    assert [e.pair for e in line] == expected
    for target in data.draw(st.lists(st.integers(0, len(line)), max_size=6)) + [len(line)]:
        trainer.goto(target)
        assert trainer.history == line[:target]
    assert trainer.step() is None
    trainer._state.verify()


def test_force_refuses_bad_pairs():
    trainer = Trainer("abab cd", TrainConfig(pretokenizer="none", max_merges=1))
    with pytest.raises(MergeError, match="does not occur"):
        trainer.force((ord("d"), ord("a")))
    with pytest.raises(MergeError, match="its count is 1, below the minimum pair count 2"):
        trainer.force((ord("c"), ord("d")))
    with pytest.raises(TokenIdError, match="no token 300"):
        trainer.force((300, 1))
    with pytest.raises(MergeError, match="pair of token ids"):
        trainer.force(("x",))
    trainer.train()
    with pytest.raises(MergeError, match=r"merge limit \(1\) is reached"):
        trainer.force((ord("a"), ord("b")))
    assert trainer.steps == 1


def test_a_replay_refuses_manual_merges():
    tok = Trainer("abab abab", TrainConfig(pretokenizer="none", max_merges=2)).tokenizer()
    trainer = Trainer.replaying("abab", tok)
    with pytest.raises(MergeError, match="replay"):
        trainer.force((ord("a"), ord("b")))


def test_the_merge_field_is_last_and_optional():
    event = Merge(1, (97, 98), 256, b"ab", 2, ((97, 98),), 1, 3, 2)
    assert event.manual is False and event._fields[-1] == "manual"
    step, pair, *_ = event
    assert (step, pair) == (1, (97, 98))


TEXT = "low lower lowest newest widest low"


def two_branches() -> tuple[Trainer, list[Merge], list[Merge]]:
    trainer = Trainer(TEXT, TrainConfig(base="chars", pretokenizer="none", max_merges=6), checkpoints=3)
    main = trainer.train()
    trainer.goto(2)
    pair = trainer.candidates(4)[3].pair
    assert pair != main[2].pair
    manual = trainer.force(pair)
    assert manual.manual and manual.step == 3
    trainer.train()
    return trainer, main, trainer.history


def test_forcing_after_an_undo_keeps_the_old_future_as_a_branch():
    trainer, main, other = two_branches()
    assert [b.name for b in trainer.branches] == ["main", "b1"]
    first, second = trainer.branches
    assert first == Branch("main", None, 0, 6, 0, 2, False)
    assert second == Branch("b1", "main", 2, 6, 1, 6, True)
    assert trainer.branch.name == "b1"
    assert other[:2] == main[:2] and other[2].manual
    assert trainer.branch_events("main") == main


def test_switching_walks_back_to_where_they_part_and_along_the_other():
    trainer, main, other = two_branches()
    assert trainer.switch("main").at == 2
    assert trainer.history == main[:2] and trainer.future == main[2:]
    trainer.goto(6)
    assert trainer.history == main
    trainer.goto(1)
    branch = trainer.switch(1)
    assert branch.name == "b1" and trainer.history == other
    assert snapshot(trainer) == snapshot(_fresh_line(other))
    assert trainer.branches[0].at == 1
    trainer.switch("main")
    assert trainer.history == main[:1]
    with pytest.raises(ValueError, match="no branch named 'x'"):
        trainer.switch("x")


def _fresh_line(events: list[Merge]) -> Trainer:
    trainer = Trainer(TEXT, TrainConfig(base="chars", pretokenizer="none", max_merges=6))
    for event in events:
        if event.manual:
            trainer.force(event.pair)
        else:
            assert trainer.step() == event
    return trainer


def test_forcing_the_recorded_next_merge_just_redoes_it():
    trainer = Trainer(TEXT, TrainConfig(base="chars", pretokenizer="none", max_merges=4))
    events = trainer.train()
    trainer.goto(1)
    assert trainer.force(events[1].pair) == events[1]
    assert len(trainer.branches) == 1 and len(trainer.timeline.log) == len(events)  # redone, not made anew


def test_branches_restore_from_their_data():
    trainer, main, other = two_branches()
    trainer.goto(4)
    data = trainer.branch_data()
    fresh = Trainer(TEXT, TrainConfig(base="chars", pretokenizer="none", max_merges=6), checkpoints=3)
    assert fresh.restore_branches(data) is None
    assert fresh.branches == trainer.branches and fresh.steps == 4
    assert fresh.branch_data() == data
    assert fresh.history == other[:4] and fresh.future == other[4:]
    fresh.switch("main")
    assert fresh.history == main[:2]
    with pytest.raises(ValueError, match="fresh trainer"):
        fresh.restore_branches(data)


@pytest.mark.parametrize("data, message", [
    ({}, "\"branches\" list"),
    ({"branches": []}, "1 to 64 branches"),
    ({"branches": [{"name": "a", "parent": None, "parts_at": 0, "at": 3, "merges": []}], "current": "a"}, "from 0 to 0"),
    ({"branches": [{"name": "a", "parent": None, "parts_at": 0, "at": 0, "merges": [["x", 1]]}], "current": "a"}, "merges must be"),
    ({"branches": [{"name": "a", "parent": None, "parts_at": 0, "at": 0, "merges": []},
                   {"name": "b", "parent": "c", "parts_at": 0, "at": 0, "merges": []}], "current": "a"}, "listed before"),
    ({"branches": [{"name": "a", "parent": None, "parts_at": 0, "at": 0, "merges": []}], "current": "z"}, "\"current\""),
])
def test_malformed_branch_data_is_one_line(data, message):
    trainer = Trainer(TEXT, TrainConfig(base="chars", pretokenizer="none"))
    with pytest.raises(ValueError, match=message) as info:
        trainer.restore_branches(data)
    assert "\n" not in str(info.value)


def test_a_tokenizer_with_manual_merges_saves_and_loads(tmp_path):
    trainer, _, other = two_branches()
    path = tmp_path / "t.json"
    trainer.tokenizer().save(path)
    loaded = Tokenizer.load(path)
    assert loaded.merges == [e.pair for e in other]
    assert loaded.decode(loaded.encode(TEXT)) == TEXT


def test_compare_branches_reads_both_lines():
    from engine.analysis import compare_branches
    from engine.analysis.branches import steps_to_show

    trainer, main, other = two_branches()
    heldout = "lowest wider newest"
    result = compare_branches(trainer, "main", 1, corpus_bytes=len(TEXT), heldout=heldout)
    assert (result.a, result.b, result.parts_at, result.lengths) == ("main", "b1", 2, (6, 6))
    assert [r.step for r in result.rows] == steps_to_show(2, (6, 6), 5) == [2, 3, 4, 5, 6]
    for row in result.rows:
        assert row.tokens == (main[row.step - 1].tokens_after, other[row.step - 1].tokens_after)
        fresh = [trainer.tokenizer_of([e.pair for e in line[: row.step]]) for line in (main, other)]
        assert row.heldout == tuple(len(t.encode(heldout)) for t in fresh)
    made_main, made_other = {e.token for e in main}, {e.token for e in other}
    assert set(result.only_a) == made_main - made_other and set(result.only_b) == made_other - made_main
    assert result.only_b[0] == other[2].token  # the manual merge's token comes first
    assert result.per_token(result.corpus_bytes, result.rows[-1].tokens[0]) == len(TEXT) / main[-1].tokens_after
    assert steps_to_show(2, (6, 9), 4) == [2, 4, 6, 7, 9]


@given(corpora(), st.data())
def test_forced_merges_under_the_hf_rule_keep_the_state_exact(text, data):
    """The reference knows no hf rule: after forced merges, the incremental counts still equal a
    recount (verify) and every rule step takes a pair of the highest count, as hf ranks them."""
    kw = {"base": "bytes", "pretokenizer": "gpt2", "tie_rule": "hf", "min_frequency": 1, "max_merges": 30}
    trainer = Trainer(text, TrainConfig(**kw))
    for _ in range(data.draw(st.integers(1, 3))):
        pairs = eligible(trainer, 1)
        if not pairs:
            return
        trainer.force(data.draw(st.sampled_from(pairs)))
    while True:
        counts = trainer.pair_counts()
        top = trainer.candidates(1)
        event = trainer.step()
        if event is None:
            break
        assert event.count == max(counts.values()) == counts[event.pair] and top[0].pair == event.pair
    trainer._state.verify()


def test_switch_without_walking_stops_where_the_lines_part():
    trainer, main, other = two_branches()
    branch = trainer.switch("main", walk=False)
    assert branch.name == "main" and trainer.steps == 2 and trainer.future == main[2:]
    trainer.goto(5)
    assert trainer.history == main[:5]
    trainer.switch("b1", walk=False)
    assert trainer.steps == 2 and trainer.future == other[2:]
    assert trainer.branches[0].at == 5


def test_restoring_keeps_what_matches_and_says_where_it_stopped():
    trainer, main, other = two_branches()
    data = trainer.branch_data()
    data["branches"][1]["merges"][1] = [0, 0, 1]  # a manual merge of a pair that never occurs
    fresh = Trainer(TEXT, TrainConfig(base="chars", pretokenizer="none", max_merges=6))
    note = fresh.restore_branches(data)
    assert note == "this version trains differently: restored up to branch b1 after merge 3"
    assert fresh.branch_events("b1") == other[:3] and fresh.branch_events("main") == main
