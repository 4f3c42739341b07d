"""The quick reading of a byte-level tokenizer.json (its tokens as text, never turned into bytes
one by one) gives what the careful reading gives: the same tokens, merges, file ids and notes,
on random merge lists, shuffled file ids, merges as strings or as lists, specials, bytes left out
of the vocabulary, and files the quick reading must leave to the careful one."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import PreTokenizer, Tokenizer
from engine.encode.vocabulary import grow
from engine.formats import hf
from engine.formats.hf import load_hf, tokenizer_json

from test_encode_fast import merge_lists


def careful(path, data):
    """load_hf with the quick reading turned off."""
    quick = hf._byte_level_quickly
    hf._byte_level_quickly = lambda *args: None
    try:
        return load_hf(path, data)
    finally:
        hf._byte_level_quickly = quick


def same(path, data) -> None:
    calls = []
    quick = hf._byte_level_quickly

    def spy(*args):
        calls.append(result := quick(*args))
        return result

    hf._byte_level_quickly = spy
    try:
        fast = load_hf(path, json.loads(json.dumps(data)))
    finally:
        hf._byte_level_quickly = quick
    slow = careful(path, json.loads(json.dumps(data)))
    assert fast.tokenizer.pieces == slow.tokenizer.pieces
    assert fast.tokenizer.merges == slow.tokenizer.merges
    assert fast.tokenizer.specials == slow.tokenizer.specials
    assert fast.tokenizer.pretokenizer == slow.tokenizer.pretokenizer
    assert fast.file_ids == slow.file_ids
    assert fast.warnings == slow.warnings
    return calls[0] is not None


@settings(max_examples=100, deadline=None)
@given(merge_lists(base_ids=(32, 97, 98, 0xE4, 0xB8)), st.randoms(use_true_random=False), st.booleans(),
       st.sampled_from([(), ("<eos>",), ("<|endoftext|>", "[PAD]")]), st.integers(0, 3))
def test_the_quick_reading_is_the_careful_one(tmp_path_factory, merges, rng: random.Random, as_lists, specials, drop):
    tok = Tokenizer(merges, specials=specials, pretokenizer=PreTokenizer("gpt2"))
    data = tokenizer_json(tok)
    model = data["model"]
    ids = list(model["vocab"].values()) + [t["id"] for t in data["added_tokens"]]
    shuffled = ids[:]
    rng.shuffle(shuffled)
    renumber = dict(zip(ids, shuffled))
    model["vocab"] = {name: renumber[i] for name, i in model["vocab"].items()}
    for added in data["added_tokens"]:
        added["id"] = renumber[added["id"]]
    for name in rng.sample(sorted(model["vocab"])[:256], drop):  # bytes the vocabulary lacks
        if len(name) == 1 and name not in "Ġab":
            del model["vocab"][name]
    if as_lists:
        model["merges"] = [m.split(" ") for m in model["merges"]]
    path = tmp_path_factory.mktemp("hf") / "tokenizer.json"
    same(path, data)  # quickly, unless two merges make one token (then carefully)


def test_files_the_quick_reading_leaves_to_the_careful_one(tmp_path):
    tok = Tokenizer([(97, 98), (256, 99)], specials=["<eos>"], pretokenizer=PreTokenizer("gpt2"))
    path = tmp_path / "tokenizer.json"
    plain = tokenizer_json(tok)
    assert same(path, plain)
    spaced = json.loads(json.dumps(plain))  # a special spelled outside the byte-level characters
    spaced["model"]["vocab"]["<end of text>"] = 900
    spaced["added_tokens"].append({**spaced["added_tokens"][0], "id": 900, "content": "<end of text>"})
    assert not same(path, spaced)
    mixed = json.loads(json.dumps(plain))  # one merge a string, one a list
    mixed["model"]["merges"][1] = mixed["model"]["merges"][1].split(" ")
    assert not same(path, mixed)
    twice = json.loads(json.dumps(plain))  # a product made twice: both merges kept, one file id
    twice["model"]["merges"] += ["b c", "a bc"]
    twice["model"]["vocab"]["bc"] = 901
    assert not same(path, twice)


def test_grow_reads_the_sums_it_made():
    items = [b"a", b"b"]
    grow(items, [0, 2, 3], [1, 0, 2])
    assert items == [b"a", b"b", b"ab", b"aba", b"abaab"]
    plain = [1, 1]
    grow(plain, list(range(0, 30)), list(range(1, 31)))
    assert plain[:10] == [1, 1, 2, 3, 5, 8, 13, 21, 34, 55]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.binary(min_size=1, max_size=6), min_size=1, max_size=30, unique=True),
       st.sampled_from(["{t} {r}\n", "{t} {r}\r\n", "{t}\t{r}\n", " {t}  {r} \n", "{t} {r}\n\n"]), st.booleans())
def test_rank_lines_read_in_bulk_as_line_by_line(tmp_path_factory, tokens, layout, cut_last_newline):
    import base64

    from engine.formats.tiktoken_bpe import read_ranks

    text = "".join(layout.format(t=base64.b64encode(tok).decode(), r=rank * 3) for rank, tok in enumerate(tokens))
    if cut_last_newline:
        text = text.rstrip("\n")
    path = tmp_path_factory.mktemp("ranks") / "t.tiktoken"
    assert read_ranks(path, text) == {tok: rank * 3 for rank, tok in enumerate(tokens)}
