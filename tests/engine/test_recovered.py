"""A merge cache entry read back into bpe-lab's ids (engine/encode/recovered.py and its compiled
twin in engine/native/load.pxi): the two give one verdict on every entry, a real one and every
damage hypothesis makes of it, and on a vocabulary's merges in order or not."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import TrainConfig, Trainer
from engine.encode.recovered import parts_in_order, recovered_parts
from engine.formats import export_tokenizer, load_any, merge_cache
from engine.formats.common import byte_alphabet
from engine.formats.tiktoken_bpe import _tokens_by_rank, read_ranks
from engine.native.door import COMPILED, WHY_PURE

compiled = COMPILED.core if COMPILED is not None else None
needs_compiled = pytest.mark.skipif(compiled is None, reason=f"no compiled core here: {WHY_PURE}")

TEXT = "the cat in the hat sat on the mat; the hat is a cat's hat. " * 20 + "Müller grüßt 東京 🙂 " * 5


@pytest.fixture(scope="module")
def entry(tmp_path_factory):
    """A real entry: a tokenizer trained here, exported as a .tiktoken file, loaded once (which
    recovers its merges and keeps them), and what the loader hands the check."""
    folder = tmp_path_factory.mktemp("recovered")
    trainer = Trainer(TEXT, TrainConfig(vocab_size=400, pretokenizer="gpt2"))
    trainer.train()
    path = folder / "tok.tiktoken"
    export_tokenizer(trainer.tokenizer(), "tiktoken", path)
    mp = pytest.MonkeyPatch()
    mp.setenv("BPE_LAB_CACHE", str(folder / "cache"))
    try:
        load_any(path)
        text = path.read_text(encoding="utf-8")
        ranks = read_ranks(path, text, [])
        cached = merge_cache.load(merge_cache.key_of(text), ranks)
    finally:
        mp.undo()
    assert cached is not None
    _, base_ids = byte_alphabet(ranks, "the ranks lack", [])
    tokens = _tokens_by_rank(ranks)
    assert tokens is not None
    return base_ids, cached, tokens


def both(base_ids, products, lefts, rights, tokens):
    pure = recovered_parts(base_ids, products, lefts, rights, tokens)
    fast = compiled.recovered_parts(base_ids, products, lefts, rights, tokens)
    assert pure == fast
    return pure


@needs_compiled
def test_a_real_entry_reads_back_the_same_on_both_paths(entry):
    base_ids, cached, tokens = entry
    found = both(base_ids, cached.product, cached.left, cached.right, tokens)
    assert found is not None
    lefts, rights, made = found
    first = len(base_ids)
    pieces = [bytes([b]) for b in range(first)] + made
    assert all(pieces[a] + pieces[b] == pieces[first + k] for k, (a, b) in enumerate(zip(lefts, rights)))
    assert made == [tokens[rank] for rank in cached.product]


values = st.one_of(st.integers(-3, 420), st.sampled_from([2**31, 2**63, -(2**63) - 1, 2**100]))


@needs_compiled
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_every_damage_gets_one_verdict(entry, data):
    base_ids, cached, tokens = entry
    lists = {"product": list(cached.product), "left": list(cached.left), "right": list(cached.right)}
    for _ in range(data.draw(st.integers(1, 3))):
        name = data.draw(st.sampled_from(sorted(lists)))
        if lists[name]:
            at = data.draw(st.integers(0, len(lists[name]) - 1))
            lists[name][at] = data.draw(values)
    if data.draw(st.booleans()):
        name = data.draw(st.sampled_from(sorted(lists)))
        lists[name] = lists[name][:-1]  # one list shorter than the others
    both(base_ids, lists["product"], lists["left"], lists["right"], tokens)


@needs_compiled
def test_a_token_not_its_parts_joined_is_refused(entry):
    base_ids, cached, tokens = entry
    k = len(cached.product) // 2
    broken = list(tokens)
    broken[cached.product[k]] = broken[cached.product[k]][::-1] + b"!"
    assert both(base_ids, cached.product, cached.left, cached.right, broken) is None


ids = st.one_of(st.integers(-2, 40), st.booleans(), st.sampled_from([2**63, 2**100, 1.0, None]))


@needs_compiled
@settings(max_examples=300, deadline=None)
@given(lefts=st.lists(ids, max_size=12), rights=st.lists(ids, max_size=12), first=st.integers(0, 20))
def test_parts_in_order_one_verdict(lefts, rights, first):
    assert parts_in_order(lefts, rights, first) == bool(compiled.parts_in_order(lefts, rights, first))


def test_parts_in_order_examples():
    assert parts_in_order([0, 2], [1, 0], 2)
    assert not parts_in_order([0, 3], [1, 0], 2)  # the second merge uses id 3, which it makes itself
    assert not parts_in_order([True], [0], 2)  # a bool is not an id
    assert not parts_in_order([0], [0, 1], 2)
