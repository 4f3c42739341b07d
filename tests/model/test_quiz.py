"""The quiz's rules (tui/model/quiz.py), without the app: reading a typed pick, judging, the score, and
the tie explanation checked against the engine's choices and a naive scan of the text."""

from __future__ import annotations

import re

import pytest
from helpers import ROOT
from hypothesis import given
from hypothesis import strategies as st

from engine import TrainConfig, Trainer
from engine.encode.reference import merge
from engine.train.reference import split
from tui.model.quiz import (
    Outcome,
    PickError,
    Score,
    explain_tie,
    first_occurrences,
    hf_key,
    judge,
    part_bytes,
    read_pick,
    reveal_lines,
    show_pair,
    split_parts,
    tie_reason,
)
from tui.model.samples import sample

LOW = TrainConfig(base="chars", pretokenizer="none", tie_rule="first-seen", max_merges=4)


def low() -> Trainer:
    return Trainer("low lower lowest", LOW)


def ids(trainer: Trainer, *tokens: str) -> tuple[int, ...]:
    vocab = trainer.vocab
    return tuple(vocab.index(t.encode()) for t in tokens)


# -- reading a typed pick ----------------------------------------------------------------------


def test_split_parts_keeps_bytes_in_brackets_together():
    assert split_parts("l o") == ["l", "o"]
    assert split_parts("[e4 b8]   [e4 b8] ") == ["[e4 b8]", "[e4 b8]"]
    assert split_parts("   ") == []


def test_spaces_typed_first_are_text_of_the_first_token():
    """Issue 39 item 2: with the gpt2 pre-tokenizer half the early merges are `· + x`; a learner
    types the space, not the `·` the panes draw it with."""
    assert split_parts(" t") == [" t"]
    assert split_parts("  [e4 b8] 天") == ["  [e4 b8]", "天"]
    trainer = low()
    space_l = ids(trainer, " ", "l")
    assert read_pick(trainer, " l") == space_l  # the merged text, led by a typed space
    assert read_pick(trainer, "·l") == space_l
    assert read_pick(trainer, "· l") == space_l
    with pytest.raises(PickError, match="No token ·l in the vocabulary now"):
        read_pick(trainer, " l o")  # the space led the first token: the message shows it as ·
    gpt2 = Trainer("the cat sat at the mat", TrainConfig(pretokenizer="gpt2"))
    assert read_pick(gpt2, " t") == (ord(" "), ord("t"))  # the workshop's step 3, typed naturally
    assert split_parts("，[e5] 天") == ["，[e5]", "天"]


def test_part_bytes_reads_the_panes_spelling():
    assert part_bytes("·lo") == b" lo"
    assert part_bytes("。↵") == "。\n".encode()
    assert part_bytes("[e4 b8]") == b"\xe4\xb8"
    assert part_bytes("，[e5]") == "，".encode() + b"\xe5"


def test_read_pick_by_tokens_ids_plus_or_merged_text():
    trainer = low()
    l_o = ids(trainer, "l", "o")
    assert read_pick(trainer, "l o") == l_o
    assert read_pick(trainer, "l + o") == l_o
    assert read_pick(trainer, f"#{l_o[0]} #{l_o[1]}") == l_o
    assert read_pick(trainer, "lo") == l_o  # one pair makes "lo"
    assert read_pick(trainer, "·l") == ids(trainer, " ", "l")


def test_read_pick_on_partial_utf8_bytes():
    trainer = Trainer("天天天天", TrainConfig(pretokenizer="none"))  # 天 is e5 a4 a9
    assert read_pick(trainer, "[e5] [a4]") == (0xE5, 0xA4)
    assert read_pick(trainer, "[e5 a4]") == (0xE5, 0xA4)  # the merged bytes: one pair makes them
    made = trainer.step()  # half a character: a4 + a9 (the lower left id wins the tie)
    assert made.pair == (0xA4, 0xA9)
    assert read_pick(trainer, "[e5] [a4 a9]") == (0xE5, made.new_id)
    assert read_pick(trainer, "天") == (0xE5, made.new_id)  # the merged text, as a character


def quiz_rows() -> list[tuple[str, str]]:
    """The pick rows of docs/bad-input.md's quiz table: (typed, the exact sentence)."""
    rows = []
    for line in (ROOT / "docs" / "bad-input.md").read_text(encoding="utf-8").splitlines():
        match = re.fullmatch(r"\| pick (nothing|`(.*?)`) \| .* \| `(.*)` \|", line)
        if match:
            rows.append((match.group(2) or "", match.group(3)))
    return rows


def test_the_docs_table_has_the_quiz_rows():
    assert len(quiz_rows()) == 11


@pytest.mark.parametrize(("typed", "says"), quiz_rows())
def test_bad_picks_get_the_documented_sentence(typed, says):
    with pytest.raises(PickError) as caught:
        read_pick(low(), typed)
    assert str(caught.value) == says


@given(st.text(max_size=20))
def test_any_typed_text_is_a_pair_that_occurs_or_one_sentence(typed):
    trainer = low()
    try:
        pair = read_pick(trainer, typed)
    except PickError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    assert trainer.pair_count(pair) > 0


# -- judging, scoring, revealing ---------------------------------------------------------------


def test_judge_and_score():
    assert judge((1, 2), 5, (1, 2), 5) == "right"
    assert judge((3, 4), 5, (1, 2), 5) == "tied"
    assert judge((3, 4), 4, (1, 2), 5) == "wrong"
    score = Score()
    for verdict in ("right", "tied", "wrong", "wrong"):
        score.add(verdict)
    assert (score.right, score.tied, score.wrong, score.rounds) == (1, 1, 2, 4)
    assert score.text() == "right 1 · tied 1 · wrong 2"


def test_reveal_says_the_merge_its_count_and_the_runner_up():
    shown = {(1, 2): "l + o", (3, 4): "o + w", (5, 6): "e + r"}.get
    wrong = reveal_lines(Outcome((5, 6), 1, (1, 2), 3, ((3, 4), 3), 2), shown)
    assert wrong[0] == "Wrong: e + r occurs 1 times; l + o merges, 3 times."
    assert "Runner-up: o + w, 3 times." in wrong
    right = reveal_lines(Outcome((1, 2), 3, (1, 2), 3, ((3, 4), 3), 2), shown)
    assert right[0] == "Right: l + o merges, 3 times."
    assert "2 pairs tied at 3; the tie rule chose this one." in right
    tied = reveal_lines(Outcome((3, 4), 3, (1, 2), 3, ((3, 4), 3), 2), shown, "Tied: because.")
    assert tied[:2] == ["Tied: because.", "The merge: l + o, 3 times."]
    alone = reveal_lines(Outcome((1, 2), 3, (1, 2), 3, None, 1, by_rule=False), shown)
    assert "No runner-up: no other pair can merge now." in alone
    assert alone[-1].startswith("This step redid a merge")


# -- the tie explanation agrees with what the engine chose -------------------------------------


def test_seed001_tie_explained_first_seen():
    trainer = low()
    winner, pick = ids(trainer, "l", "o"), ids(trainer, "o", "w")
    assert trainer.candidates(2)[0].count == trainer.pair_count(pick) == 3
    where = first_occurrences(trainer.sequences(), [winner, pick])
    text = explain_tie("first-seen", winner, pick, lambda p: show_pair(trainer, p), where)
    assert text == ("Tied: right count, and the tie rule (first-seen) chose l + o because it occurs first in the "
                    "corpus: at token 1, o + w only at token 2.")
    assert trainer.step().pair == winner


def test_seed003_ties_name_the_words_where_they_first_occur():
    trainer = Trainer("the cat in the hat", sample("the-cat-in-the-hat.txt").config())  # \w+ chunks, first-seen
    t_h, h_e, a_t = (ids(trainer, *pair) for pair in (("t", "h"), ("h", "e"), ("a", "t")))
    assert [c.pair for c in trainer.candidates(3)] == [t_h, h_e, a_t]  # all three at 2
    assert tie_reason(trainer, t_h, a_t).endswith(
        "because it occurs first in the corpus: t + h first in “the”, a + t only later, in “cat”.")
    assert tie_reason(trainer, t_h, h_e).endswith(
        "because it occurs first in the corpus: both first occur in “the”, t + h at token 1, h + e at token 2.")


def test_lowest_ids_explanation():
    shown = lambda p: f"{p[0]} + {p[1]}"  # noqa: E731
    assert "its left id 3 is lower than 7 + 1's 7" in explain_tie("lowest-ids", (3, 9), (7, 1), shown)
    assert "same left token, its right id 2 is lower than 3 + 5's 5" in explain_tie("lowest-ids", (3, 2), (3, 5), shown)


def test_first_seen_across_chunks_names_the_chunks():
    shown = lambda p: f"{p[0]} + {p[1]}"  # noqa: E731
    where = first_occurrences([(1, 2), (3, 4, 3, 4), (1, 2)], [(1, 2), (3, 4)])
    assert where == {(1, 2): (0, 0), (3, 4): (1, 0)}
    text = explain_tie("first-seen", (1, 2), (3, 4), shown, where, lambda c: f"“chunk{c}”")
    assert text.endswith("occurs first in the corpus: 1 + 2 first in “chunk0”, 3 + 4 only later, in “chunk1”.")


def naive_first(text: str, config: TrainConfig, merges: list[tuple[int, int]], base: int) -> dict:
    """Each pair's first occurrence scanning the text's chunks in order (no deduplication)."""
    seqs = [list(c.encode("utf-8")) for c in split(text, config.pretokenizer)]
    for k, pair in enumerate(merges):
        seqs = [merge(s, pair, base + k) for s in seqs]
    first: dict = {}
    for n, s in enumerate(seqs):
        for i, pair in enumerate(zip(s, s[1:])):
            first.setdefault(pair, (n, i))
    return first


@given(st.text(alphabet="abcd \n", min_size=2, max_size=60), st.integers(0, 6),
       st.sampled_from(["lowest-ids", "first-seen", "hf"]), st.sampled_from(["none", "simple"]))
def test_every_tie_the_engine_breaks_is_explained_by_its_rule(text, steps, rule, pretokenizer):
    config = TrainConfig(pretokenizer=pretokenizer, tie_rule=rule, min_frequency=1)
    trainer = Trainer(text, config)
    for _ in range(steps):
        if trainer.step() is None:
            return
    top = trainer.candidates(8)
    if len(top) < 2:
        return
    winner = top[0].pair
    tied = [c.pair for c in top[1:] if c.count == top[0].count]
    naive = naive_first(text, config, [m.pair for m in trainer.history], 256)
    for pick in tied:
        if rule == "lowest-ids":
            assert winner < pick
        elif rule == "hf":
            assert hf_key(winner) < hf_key(pick)
        else:
            where = first_occurrences(trainer.sequences(), [winner, pick])
            assert where[winner] < where[pick]
            assert naive[winner] < naive[pick]  # the text's own order agrees
        text_said = explain_tie(rule, winner, pick, lambda p: show_pair(trainer, p),
                                first_occurrences(trainer.sequences(), [winner, pick]))
        assert text_said.startswith(f"Tied: right count, and the tie rule ({rule}) chose")
    assert trainer.step().pair == winner
