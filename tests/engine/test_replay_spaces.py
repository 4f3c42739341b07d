"""A SentencePiece replay's corpus segmentation (Trainer.spans after all the file's merges)
against sentencepiece's own, on indented code.

Llama 2's and Mistral's runs of ``▁`` (2-16) all have one score, and sentencepiece joins such
pieces leftmost first: four spaces before ``if`` are ``▁▁▁`` + ``▁if``. Made in the file's order,
each split as the converter splits it, a replay left ``▁▁`` + ``▁``. The reader now orders and
splits such runs by a plan (engine.formats.spm_merges._run_plan) checked against that rule;
here the plan is checked against a naive reference of the rule, and the replay against
sentencepiece itself on random indented code."""

from __future__ import annotations

import itertools
from functools import cache

import pytest
from fetch_tokenizers import needed
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Trainer
from engine.formats import load_any
from engine.formats.spm_merges import _run_plan

CODE = "def f(x):\n    if x:\n        return  x   + 1\n    return 0\n"
MODELS = ["mistral-v1.model", "llama2-rebuilt.model"]


def leftmost(m: int, lengths: set[int]) -> list[int]:
    """Reference: sentencepiece on a run of m of one character whose runs of ``lengths`` are
    tied pieces: join the leftmost adjacent pair whose joined run is a piece, until none is."""
    parts = [1] * m
    while True:
        for i in range(len(parts) - 1):
            if parts[i] + parts[i + 1] in lengths:
                parts[i : i + 2] = [parts[i] + parts[i + 1]]
                break
        else:
            return parts


def pair_after_pair(m: int, plan: list[tuple[int, int]]) -> list[int]:
    """Reference: a replay's steps on a run of m, each merge (x, y) joining x + y wherever
    they stand side by side, left to right."""
    text = "a" * m
    tokens = list(text)
    for x, y in plan:
        out, i = [], 0
        while i < len(tokens):
            if i + 1 < len(tokens) and (len(tokens[i]), len(tokens[i + 1])) == (x, y):
                out.append(tokens[i] + tokens[i + 1])
                i += 2
            else:
                out.append(tokens[i])
                i += 1
        tokens = out
    return [len(t) for t in tokens]


@cache
def tokenizer_of(path):
    return load_any(path).tokenizer


@cache
def processor(path):
    spm = pytest.importorskip("sentencepiece")
    return spm.SentencePieceProcessor(model_file=str(path))


def replayed(path, text: str) -> list[str]:
    tokenizer = tokenizer_of(path)
    trainer = Trainer.replaying(text, tokenizer)
    trainer.goto(len(tokenizer.merges))
    shown = trainer.text
    return [shown[s:e] for _, s, e in trainer.spans(0, trainer.layout().size) if e > s]


def theirs(path, text: str) -> list[str]:
    pieces = processor(path).encode(text, out_type=str)
    return ["\n" if piece == "<0x0A>" else "\t" if piece == "<0x09>" else piece for piece in pieces]


@pytest.mark.parametrize("name", MODELS)
def test_a_sentencepiece_replay_segments_indented_code_as_sentencepiece_does(name):
    path = needed(name)
    assert replayed(path, CODE) == theirs(path, CODE)


SPACES = st.integers(0, 40).map(" ".__mul__)
WORDS = st.sampled_from(["if", "x", "return", "+", "1", "def", "(", "):", "y = 2", "\t", "#"])
LINES = st.lists(st.lists(st.tuples(SPACES, WORDS).map("".join), max_size=5).map("".join), min_size=1, max_size=10)


@pytest.mark.parametrize("name", MODELS)
@settings(max_examples=8, deadline=None)
@given(lines=LINES)
def test_random_indented_code_replays_as_sentencepiece_segments_it(name, lines):
    path = needed(name)
    text = "\n".join(lines) + "\n"
    assert replayed(path, text) == theirs(path, text)


def test_the_plan_for_llama_2s_runs_agrees_with_the_leftmost_rule_on_long_runs():
    for lengths in (set(range(2, 17)) - {15}, set(range(2, 17))):  # Mistral's, Llama 2's
        plan = _run_plan(frozenset(lengths))
        assert plan is not None
        assert sorted(x + y for x, y in plan) == sorted(lengths)  # each run made once
        made = {1}
        for x, y in plan:  # each from runs made before it
            assert x in made and y in made
            made.add(x + y)
        for m in range(1, 400):
            assert pair_after_pair(m, plan) == leftmost(m, lengths), m


def test_every_plan_found_agrees_and_some_sets_have_none():
    """Every set of run lengths 2-11: a plan, when one is given, agrees with the rule on runs
    up to ten times the longest (the reader checks up to four times); {2, 3} has none (a run
    of four is ▁▁▁ + ▁ by the rule, two ▁▁ pair after pair)."""
    assert _run_plan(frozenset({2, 3})) is None
    found = 0
    for size in range(1, 11):
        for lengths in itertools.combinations(range(2, 12), size):
            plan = _run_plan(frozenset(lengths))
            if plan is None:
                continue
            found += 1
            for m in range(1, 10 * max(lengths)):
                assert pair_after_pair(m, plan) == leftmost(m, set(lengths)), (lengths, m)
    assert found >= 5
