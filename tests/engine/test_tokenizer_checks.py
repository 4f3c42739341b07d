"""The tokenizer's merge checks run at C speed for the usual list and fall back to a loop that names
the first bad merge: differentially, against the plain loop written here, on any merge list."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import ConfigError, Tokenizer


def reference(merges: list[tuple[int, int]], base: int = 256) -> str | list[tuple[int, int]]:
    """The first merge's problem, as the tokenizer words it, or the merges when there is none."""
    last = base + len(merges) - 1
    seen: dict[tuple[int, int], int] = {}
    for k, (a, b) in enumerate(merges):
        new_id = base + k
        where = f"merge {k + 1} ({a}, {b})"
        if not (0 <= a < new_id and 0 <= b < new_id):
            if a == new_id or b == new_id:
                return f"{where} refers to the id it makes itself ({new_id})"
            bad = a if not 0 <= a < new_id else b
            if new_id < bad <= last:
                return f"{where} refers to id {bad}, which only a later merge makes"
            return f"{where} refers to id {bad}, outside the vocabulary (0-{last})"
        if (a, b) in seen:
            return f"merge {k + 1} ({a}, {b}) repeats merge {seen[(a, b)] - base + 1}"
        seen[(a, b)] = new_id
    return merges


ids = st.integers(min_value=-3, max_value=300)


@given(st.lists(st.tuples(ids, ids), max_size=40))
def test_checks_agree_with_the_plain_loop(merges):
    expected = reference(merges)
    if isinstance(expected, str):
        with pytest.raises(ConfigError) as caught:
            Tokenizer(merges)
        assert str(caught.value) == expected
    else:
        tok = Tokenizer(merges)
        assert tok.merges == merges
        assert all(tok.pieces[256 + k] == tok.pieces[a] + tok.pieces[b] for k, (a, b) in enumerate(merges))
        assert all(tok.rank(pair) == 256 + k for k, pair in enumerate(merges))


@given(st.lists(st.tuples(st.integers(0, 400), st.integers(0, 400)), min_size=1, max_size=60).map(
    lambda pairs: [(a % (256 + k), b % (256 + k)) for k, (a, b) in enumerate(pairs)]))
def test_valid_lists_build(merges):
    expected = reference(merges)
    if isinstance(expected, str):  # a repeated pair
        with pytest.raises(ConfigError, match="repeats merge"):
            Tokenizer(merges)
    else:
        assert Tokenizer(merges).merges == merges


def test_a_normalizers_growth_is_known_before_it_runs():
    """Each step's bound composes: NFKC (18) then Lowercase (3) is 54, within the bound; doublings
    are refused when the normalizer is made; a regex's replacement stops as it runs."""
    import pytest

    from engine.errors import ConfigError
    from engine.text.normalize import MAX_GROWTH, Normalizer, growth

    assert growth({"type": "Sequence", "normalizers": [{"type": "NFKC"}, {"type": "Lowercase"}]}) == (54, 0)
    assert growth({"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"}, {"type": "NFKC"}]}) == (18, 18)
    doubling = {"type": "Replace", "pattern": {"String": "a"}, "content": "aa"}
    assert Normalizer({"type": "Sequence", "normalizers": [doubling] * 6})("a") == "a" * 64
    with pytest.raises(ConfigError, match="128 times longer"):
        Normalizer({"type": "Sequence", "normalizers": [doubling] * 7})
    long = Normalizer({"type": "Replace", "pattern": {"Regex": "a"}, "content": "b" * 100})
    assert long("xa") == "x" + "b" * 100  # within 64 * 2 + 4096
    with pytest.raises(ConfigError, match="more than"):
        long("a" * 200)  # 20,000 characters from 200: past 64 * 200 + 4096
    assert MAX_GROWTH == 64
