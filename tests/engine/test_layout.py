"""The pure node layout and first index (engine.train.loops) against simpler builds: chunks of
bytes and lists of ids must give what one loop over the nodes gives (the pure path, the
readable reference, with no byte views of the array), and the first index the one counted node
by node."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.encode.pairs import SHIFT
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
# long chunks, past 2**16 addresses (links beyond 16 bits), a few of them repeated
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


def test_the_pure_layout_of_bytes_has_no_byte_views():
    """The pure layout builds chunks of bytes as it builds lists of ids (the byte, 16-bit and
    32-bit views that wrote a bytes layout's fields are the compiled core's kind of trick), with
    few chunks counted more than once and many."""
    import inspect

    assert not hasattr(_trainloops, "_layout_bytes")
    source = inspect.getsource(_trainloops)
    assert "memoryview(" not in source and "from struct" not in source and "import struct" not in source
    few = [(bytes([i % 256, 7]), 1) for i in range(40)] + [(b"\xfe\x00\xff", 9)]
    many = [(bytes([i % 256]) * 3, 2 + i % 5) for i in range(40)] + [(b"\x00", 1)]
    for pairs in (few, many):
        data, starts, tokens = _trainloops.layout(pairs)
        assert (list(data), list(starts), tokens) == naive_layout(pairs)


def naive_index(data, floor):
    """The first index node by node: each pair's weight summed, its left nodes' addresses in
    order, pairs in order of first occurrence, those under ``floor`` left out."""
    count, where = {}, {}
    for address in range(0, len(data) - 4, 4):
        x, y = data[address], data[address + 4]
        if x >= 0 and y >= 0:
            key = x << SHIFT | y
            count[key] = count.get(key, 0) + data[address + 3]
            where.setdefault(key, []).append(address)
    kept = [k for k, c in count.items() if c >= floor]
    return [(k, count[k]) for k in kept], [(k, where[k]) for k in kept]


@given(st.lists(st.tuples(st.lists(st.integers(0, 5), min_size=1, max_size=30), st.sampled_from([1, 1, 2, 9])),
                min_size=1, max_size=40), st.sampled_from([1, 2, 3]))
@settings(max_examples=60, deadline=None)
def test_the_first_index_is_the_one_counted_node_by_node(pairs, floor):
    """The first index (one loop gathering addresses, then the extra weight of chunks counted
    more than once) gives each pair's weighted count, its addresses ascending, and the pairs
    in order of first occurrence, as a walk over the nodes one by one does."""
    data = _trainloops.layout(pairs)[0]
    count, where = _trainloops.index_pairs(data, floor)
    assert (list(count.items()), [(k, list(v)) for k, v in where.items()]) == naive_index(data, floor)


@given(st.text(alphabet="ab \n\u00e9\u4e2d\U0001f600\udcc3.1", max_size=80), st.sampled_from(["bytes", "chars"]),
       st.sampled_from(["gpt2", "none", "simple"]))
@settings(max_examples=60, deadline=None)
def test_the_chunks_read_back_from_the_text_are_the_counted_ones(text, base, pattern):
    """Once the corpus layout is built the trainer lets its chunk table go (issue 39: 25 MB on
    tang_all); the distinct chunks read back from the text by the layout are the table's."""
    from engine import TrainConfig, Trainer
    from engine.errors import CorpusError

    try:
        trainer = Trainer(text, TrainConfig(base=base, pretokenizer=pattern, max_merges=3))
    except CorpusError:  # nothing to train on
        return
    counted = list(trainer.corpus.chunks or ())
    trainer.corpus.layout()
    assert trainer.corpus.chunks is None
    assert trainer.corpus.chunk_texts() == counted
