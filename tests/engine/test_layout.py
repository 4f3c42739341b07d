"""The pure node layout and first index (engine.train.loops) against simpler builds: chunks of
bytes take a layout that writes the array's fields through byte views, lists the general one,
and both must give what one loop over the nodes gives; a large layout's index is gathered in
two processes and must be the one gathered in one."""

from __future__ import annotations

import os
from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.train import loops as _trainloops
from engine.train.pair_views import SEP


def naive_layout(pairs):
    """SEP, then each chunk's symbols and a SEP; node i is [symbol, 4i + 4, 4i - 4, weight]."""
    nodes = [(SEP, 0)]
    starts = []
    for seq, weight in pairs:
        starts.append(4 * len(nodes))
        nodes.extend((symbol, weight) for symbol in seq)
        nodes.append((SEP, weight))
    flat = []
    for i, (symbol, weight) in enumerate(nodes):
        flat.extend((symbol, 4 * i + 4, 4 * i - 4, weight))
    return flat, starts, sum(len(seq) * weight for seq, weight in pairs)


weights = st.one_of(st.just(1), st.integers(1, 3), st.integers(1, (1 << 31) - 1), st.integers(1 << 31, 1 << 40))
chunks = st.lists(st.tuples(st.binary(min_size=1, max_size=40), weights), max_size=30)
# long enough to cross the 2**14-node period of the links' low halves, several times
long_chunks = st.lists(st.tuples(st.binary(min_size=2000, max_size=9000), st.sampled_from([1, 1, 1, 5])),
                       min_size=1, max_size=8)


@given(st.one_of(chunks, long_chunks))
@settings(max_examples=150, deadline=None)
def test_the_layout_of_bytes_and_of_lists_is_the_nodes_one_by_one(pairs):
    flat, starts, tokens = naive_layout(pairs)
    for given_as in (pairs, [(list(seq), weight) for seq, weight in pairs]):
        data, got_starts, got_tokens = _trainloops.layout(given_as)
        assert (list(data), list(got_starts), got_tokens) == (flat, starts, tokens)
        wide = max((weight for _, weight in pairs), default=0) > (1 << 31) - 1
        assert data.typecode == ("q" if wide else "i")


def test_the_bytes_layout_writes_weights_both_ways():
    """Few chunks counted more than once (written over 1s) and many (packed and repeated)."""
    few = [(bytes([i % 256, 7]), 1) for i in range(40)] + [(b"\xfe\x00\xff", 9)]
    many = [(bytes([i % 256]) * 3, 2 + i % 5) for i in range(40)] + [(b"\x00", 1)]
    for pairs in (few, many):
        data, starts, tokens = _trainloops.layout(pairs)
        assert (list(data), list(starts), tokens) == naive_layout(pairs)


@given(st.lists(st.tuples(st.lists(st.integers(0, 5), min_size=1, max_size=30), st.sampled_from([1, 1, 2, 9])),
                min_size=1, max_size=40), st.sampled_from([1, 2, 3]))
@pytest.mark.slow
@settings(max_examples=60, deadline=None)
def test_the_first_index_gathered_in_two_processes_is_the_one_gathered_in_one(pairs, floor):
    """A large layout's second half is gathered in a forked child: the counts, the address
    lists and their order of first occurrence are those of one loop over the nodes."""
    data = _trainloops.layout(pairs)[0]
    alone = _trainloops.index_pairs(data, floor)
    forked = []
    real = _trainloops._gather_in_two
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_trainloops, "INDEX_SPLIT", 1)
        patch.setattr(_trainloops, "_may_fork", lambda: True)
        patch.setattr(_trainloops, "_gather_in_two", lambda d: forked.append(1) or real(d))
        split = _trainloops.index_pairs(data, floor)
    assert forked
    for made, want in zip(split, alone):
        assert list(made.items()) == list(want.items())


def test_a_failed_child_leaves_the_index_to_the_parent(monkeypatch):
    """Should the forked child fail, the parent gathers the second half itself."""
    pairs = [(bytes([i % 7, i % 5, 3]), 1 + i % 3) for i in range(200)]
    data = _trainloops.layout(pairs)[0]
    alone = _trainloops.index_pairs(data, 1)
    parent = os.getpid()
    real = _trainloops._gather

    def gather(d, lo, hi):
        if os.getpid() != parent:
            raise MemoryError("the child's gather fails")
        return real(d, lo, hi)

    monkeypatch.setattr(_trainloops, "_gather", gather)
    assert list(_trainloops._gather_in_two(data).items()) == list(real(data, 0, len(data)).items())
    monkeypatch.setattr(_trainloops, "INDEX_SPLIT", 1)
    monkeypatch.setattr(_trainloops, "_may_fork", lambda: True)
    assert [list(part.items()) for part in _trainloops.index_pairs(data, 1)] == [list(part.items()) for part in alone]


def test_a_child_answer_cut_short_is_refused():
    """A payload the child did not finish (stopped mid-write) is no answer: the parent gathers."""
    pairs = [(bytes([i % 7, i % 5, 3]), 1) for i in range(50)]
    data = _trainloops.layout(pairs)[0]
    gathered = _trainloops._gather(data, 0, len(data))
    keys = array("q", gathered)
    sizes = array("q", map(len, gathered.values()))
    whole = b"".join((array("q", [len(keys)]).tobytes(), keys.tobytes(), sizes.tobytes(),
                      *map(bytes, gathered.values())))
    assert list(_trainloops._answer(whole).items()) == list(gathered.items())
    for cut in (0, 5, 8, 8 + 8 * len(keys), len(whole) - 4):
        assert _trainloops._answer(whole[:cut]) is None
