"""The reference trainer's code as the app shows it: the excerpt is reference.py's own lines, each
role marks the statement it names, and the deciding role of a step follows the trainer's event."""

from __future__ import annotations

import inspect

import pytest

from engine import TrainConfig, Trainer
from engine.train import reference
from engine.train.reference_code import ROLES, STOP_ROLES, deciding_role, reference_excerpt


def test_the_excerpt_is_reference_py_line_for_line():
    source = inspect.getsource(reference).splitlines()
    excerpt = reference_excerpt()
    assert [line.part for line in excerpt if line.number is None] == ["best_pair", "train"]  # two part breaks
    for line in excerpt:
        if line.number is not None:
            original = source[line.number - 1]
            assert original.rstrip().endswith(line.text.strip()), line
            assert line.text == original[4 if line.part == "train" else 0:].rstrip(), line


def test_docstrings_are_left_out_and_the_loop_is_in():
    text = "\n".join(line.text for line in reference_excerpt())
    assert '"""' not in text
    assert text.startswith("def count_pairs(")
    for statement in ("def best_pair(", "def apply(pair: Pair) -> None:", "apply(pair)"):
        assert statement in text


def test_every_role_marks_its_statement():
    excerpt = reference_excerpt()
    for role, (part, start) in ROLES.items():
        marked = [line for line in excerpt if role in line.roles]
        assert marked and all(line.part == part for line in marked), role
        assert marked[0].text.strip().startswith(start.lstrip("=")), role
        numbers = [line.number for line in marked]
        assert numbers == list(range(numbers[0], numbers[0] + len(numbers))), role  # one run of lines
    assert [line.text.strip() for line in excerpt if "stop-min-frequency" in line.roles] == ["if count < min_frequency:", "break"]
    assert len([line for line in excerpt if "tie-lowest-ids" in line.roles]) == 2  # its key on the next line
    assert set(STOP_ROLES.values()) <= set(ROLES)


def test_comments_are_found_where_they_start():
    commented = [line for line in reference_excerpt() if line.comment is not None]
    assert len(commented) >= 5
    for line in commented:
        assert line.text[line.comment:].startswith("# "), line
        assert line.text[:line.comment].strip() == "", line  # own-line comments: the app wraps them


@pytest.mark.parametrize("rule", ["lowest-ids", "first-seen", "hf"])
def test_the_deciding_role_follows_the_event(rule):
    trainer = Trainer("aaab aaab abab", TrainConfig(pretokenizer="simple", tie_rule=rule, max_merges=4))
    events = trainer.train()
    assert any(e.tied for e in events) and any(not e.tied for e in events)
    for event in events:
        role = deciding_role(event, rule)
        if not event.tied:
            assert role == "count"
        else:
            assert role == {"lowest-ids": "tie-lowest-ids", "first-seen": "tie-first-seen", "hf": "best"}[rule]
    assert deciding_role(events[0], rule, replay=True) == "apply"
    assert deciding_role(events[0]._replace(manual=True), rule) == "forced"
