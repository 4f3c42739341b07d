"""Recovering a rank file's merges (engine/encode/tiktoken_merge.split_points and its compiled twin in
engine/native/compiled.pyx): both give what tiktoken's plain merging gives each token with only the
tokens ranked before it, and a load reports its progress to the hook of engine/formats/loading.py."""

from __future__ import annotations

import base64
import random
import threading
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.encode import tiktoken_merge as _rankmerge
from engine.encode.reference import tiktoken_parts
from engine.formats import load_any, loading, merge_cache, tiktoken_bpe
from engine.native.door import COMPILED, PURE, WHY_PURE
from engine.text.pretokenize import PreTokenizer

compiled = COMPILED.core if COMPILED is not None else None


def naive_cut(token: bytes, earlier: dict[bytes, int]) -> int:
    """tiktoken's merging as written in its docs (rescan every pair each step): the first
    part's length when two parts are left, else 0."""
    parts = tiktoken_parts(token, earlier)
    return len(parts[0]) if len(parts) == 2 else 0


def naive_cuts(tokens: list[bytes]) -> list[int]:
    return [naive_cut(token, {t: r for r, t in enumerate(tokens[:k])}) for k, token in enumerate(tokens)]


#: Distinct tokens of two bytes or more over a small alphabet (so that they overlap and nest),
#: in a random rank order; some long ones take the heaps.
token_lists = st.lists(
    st.one_of(st.binary(min_size=2, max_size=6).map(lambda b: bytes(97 + x % 3 for x in b)),
              st.binary(min_size=17, max_size=60).map(lambda b: bytes(97 + x % 2 for x in b))),
    unique=True, max_size=60,
)


@given(token_lists)
def test_pure_split_points_are_tiktokens_merging(tokens):
    assert list(_rankmerge.split_points(tokens)) == naive_cuts(tokens)


@pytest.mark.skipif(compiled is None, reason=f"no compiled core here: {WHY_PURE}")
@given(token_lists)
def test_compiled_split_points_equal_the_pure_ones(tokens):
    assert list(compiled.split_points(tokens)) == list(_rankmerge.split_points(tokens))


#: Rank orders that build long tokens from shorter ones (one or two letters, ranked by length
#: with a little shuffle), so that most tokens are regular and the shortcut's cuts are met.
built_up = st.lists(
    st.one_of(st.integers(2, 70).map(lambda k: b"a" * k),
              st.binary(min_size=2, max_size=40).map(lambda b: bytes(97 + x % 2 for x in b))),
    unique=True, max_size=70,
).flatmap(lambda ts: st.permutations(ts).map(lambda shuffled: sorted(shuffled, key=lambda t: len(t) // 3)))


@given(built_up)
def test_the_shortcut_gives_tiktokens_cuts(tokens):
    # every token of two bytes or more tried as two tokens first (_two_tokens and _walk)
    assert list(_rankmerge.split_points(tokens, shortcut_from=2)) == naive_cuts(tokens)


@pytest.mark.skipif(compiled is None, reason=f"no compiled core here: {WHY_PURE}")
@given(st.one_of(built_up, token_lists), st.sampled_from([2, 3, 17]), st.sampled_from([1, 4, 64]))
def test_the_compiled_shortcut_equals_the_pure_one(tokens, shortcut_from, walk_bytes):
    expected = list(_rankmerge.split_points(tokens))
    assert list(compiled.split_points(tokens, shortcut_from=shortcut_from, walk_bytes=walk_bytes)) == expected


def cuts_or_stop(split, tokens: list[bytes], budget: int | None):
    try:
        return list(split(tokens, budget=budget))
    except _rankmerge.TooCostly as exc:
        return ("stopped", exc.place, exc.spent)


@pytest.mark.skipif(compiled is None, reason=f"no compiled core here: {WHY_PURE}")
@given(st.one_of(built_up, token_lists), st.sampled_from([None, 0, 40, 300, 3000]))
def test_both_paths_count_the_same_bytes_and_stop_at_the_same_token(tokens, budget):
    # RECOVERY_BUDGET bounds the byte-by-byte merging of tokens of more than 16 bytes: both
    # paths count each pair looked up alike, so a file is refused on both or neither
    assert COMPILED is not None
    assert cuts_or_stop(COMPILED.split_points, tokens, budget) == cuts_or_stop(PURE.split_points, tokens, budget)


def test_a_token_that_grows_byte_by_byte_is_stopped_by_the_budget():
    # every prefix of one long token, then long tokens that start with it but that no two
    # earlier tokens make up: merging each grows a part byte by byte, its length squared over two
    prefix = random.Random(5).randbytes(1000)
    tokens = [prefix[:k] for k in range(2, len(prefix) + 1)] + [prefix + bytes([7, 9, k]) for k in range(40)]
    expected = rank_merge_cuts(tokens)
    splitters = [_rankmerge.split_points] + ([compiled.split_points] if compiled is not None else [])
    for split in splitters:
        assert list(split(tokens, budget=None)) == expected
        with pytest.raises((_rankmerge.TooCostly, ValueError)) as caught:
            split(tokens, budget=10 << 20)
        assert caught.value.args[0] >= len(prefix) - 1  # among the long ones


@given(st.one_of(built_up, token_lists))
def test_any_formable_is_any_piece_merging_into_itself(tokens):
    # the length and two-byte filters of any_formable never change its answer
    order = {t: r for r, t in enumerate(tokens)}
    pieces = [t for t in tokens if len(t) >= 3]
    naive = any(_rankmerge.rank_merge(p, order) == [p] for p in pieces)
    assert _rankmerge.any_formable(pieces, order, budget=1 << 40) == naive


def test_any_formable_says_yes_past_its_budget():
    # long pieces that merge but never into themselves: no, unless merging them costs too much
    order = {b"a" * k: k for k in (2, 3, 5, 8, 35)}
    pieces = [b"a" * 40, b"a" * 43]  # 35 + 5, 35 + 8: lengths that two tokens' add up to
    assert _rankmerge.any_formable(pieces, order) is False
    assert _rankmerge.any_formable(pieces, order, budget=50) is True
    assert _rankmerge.any_formable(pieces, order, piece_budget=60) is True  # 40 merged, then 43 more
    assert _rankmerge.any_formable(pieces, {b"ab": 1}) is False  # no two-byte token of a's: not merged


def rank_merge_cuts(tokens: list[bytes]) -> list[int]:
    """Each token merged byte by byte with the tokens before it (split_points without its shortcut)."""
    order: dict[bytes, int] = {}
    cuts = []
    for rank, token in enumerate(tokens):
        parts = _rankmerge.rank_merge(token, order)
        cuts.append(len(parts[0]) if len(parts) == 2 else 0)
        order[token] = rank
    return cuts


@pytest.mark.parametrize("tokens", [
    [b"a" * k for k in range(2, 400)],  # issue 40's bomb, smaller: every run ranked by length
    [b"a" * (1 << j) for j in range(1, 12)],  # doublings
    [("\u00e9" * k).encode() for k in range(1, 150)],  # a two-byte character repeated
    [x for k in range(2, 150) for x in (b"a" * k, b"b" * k)],  # two families, interleaved
    [bytes(range(40, 240))[:k] for k in range(2, 200)],  # every prefix of one long token
    [bytes(range(40, 240))[-k:] for k in range(2, 200)],  # every suffix
], ids=["runs", "doublings", "two-byte-runs", "interleaved", "prefixes", "suffixes"])
def test_the_shortcut_on_families_of_long_tokens(tokens):
    expected = rank_merge_cuts(tokens)
    assert list(_rankmerge.split_points(tokens)) == expected
    if compiled is not None:
        assert list(compiled.split_points(tokens)) == expected


@given(built_up)
def test_every_merged_token_rebuilds_itself_as_the_check_assumes(tokens):
    # _ambiguous skips tokens of SHORTCUT_FROM bytes or more: every merged token, long or
    # short, is what the pair merges make of its own bytes
    ranks = {bytes([b]): b for b in range(256)} | {t: 256 + r for r, t in enumerate(tokens)}
    tok, _, _ = tiktoken_bpe.ranked_tokenizer(Path("t.tiktoken"), ranks, merge_cache.key_of(repr(tokens)), [],
                                              PreTokenizer("none"), [])
    assert all(tok.model.merge_ids(list(piece)) == [i] for i, piece in enumerate(tok.pieces) if i >= 256)


def test_split_points_report_progress_up_to_the_total():
    tokens = [bytes([97 + a, 97 + b, 97 + c]) for a in range(26) for b in range(26) for c in range(26)]
    splitters = [_rankmerge.split_points] + ([compiled.split_points] if compiled is not None else [])
    for split in splitters:
        seen: list[tuple[int, int]] = []
        split(tokens, lambda done, total: seen.append((done, total)))
        assert seen[0] == (0, len(tokens)) and seen[-1] == (len(tokens), len(tokens))
        assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def write_ranks(path, tokens: list[bytes]) -> None:
    path.write_text("".join(f"{base64.b64encode(t).decode()} {r}\n" for r, t in enumerate(tokens)))


def test_a_load_reports_both_stages_to_its_own_threads_hook(tmp_path, monkeypatch):
    monkeypatch.setenv("BPE_LAB_CACHE", "off")
    tokens = [bytes([b]) for b in range(256)] + [b"ab", b"abc", b"cd", b"abcd", b" the"[:2], b"th"]
    path = tmp_path / "r.tiktoken"
    write_ranks(path, tokens)
    heard: list[tuple[str, int, int]] = []
    other: list[tuple[str, int, int]] = []

    def elsewhere():  # a load in another thread reports to that thread's hook only
        with loading.reporting(lambda *report: other.append(report)):
            load_any(path, need_pattern=False)

    with loading.reporting(lambda *report: heard.append(report)):
        thread = threading.Thread(target=elsewhere)
        thread.start()
        thread.join()
        load_any(path, need_pattern=False)
    load_any(path, need_pattern=False)  # outside the with: nobody listens
    stages = [stage for stage, _, _ in heard]
    assert stages[0] == loading.STAGES[0] and stages[-1] == loading.STAGES[1]
    assert set(stages) == set(loading.STAGES) and len(heard) == 4  # start and end of each stage
    assert all(0 <= done <= total for _, done, total in heard)
    assert sorted(other) == sorted(heard)  # the same load, heard once by each
