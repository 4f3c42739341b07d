"""The first encoding of a chunk whose bytes are a token: the token itself, when the token
encodes to itself (Tokenizer._self_encodes), checked against seed 002's encode on random merge
lists (where many tokens do not encode to themselves) and on a trained tokenizer."""

from __future__ import annotations

from helpers import sample_text
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import PreTokenizer, Tokenizer, TrainConfig, Trainer

from test_tokenizer import seed_encode


@st.composite
def merge_lists(draw, base_ids=(97, 98, 99), base_size=256):
    """Merges over a few base ids, each pair new, each id made before it is used."""
    ids = list(base_ids)
    merges: list[tuple[int, int]] = []
    seen = set()
    for _ in range(draw(st.integers(0, 40))):
        pair = (draw(st.sampled_from(ids)), draw(st.sampled_from(ids)))
        if pair in seen:
            continue
        seen.add(pair)
        merges.append(pair)
        ids.append(base_size + len(merges) - 1)
    return merges


@settings(max_examples=200)
@given(merge_lists())
def test_self_encoding_matches_the_seed(merges):
    tok = Tokenizer(merges)
    for token in range(256, tok.vocab_size):
        expected = seed_encode(tok, list(tok.pieces[token])) == [token]
        assert tok.model.self_encodes(token) == expected, (token, tok.pieces[token])


@settings(max_examples=200)
@given(merge_lists(), st.lists(st.text(alphabet="abc", min_size=1, max_size=12), max_size=30))
def test_first_encoding_matches_the_seed(merges, chunks):
    tok = Tokenizer(merges, pretokenizer=PreTokenizer("simple"))
    text = " ".join(chunks)
    expected = [i for chunk in tok.pretokenizer.split(text) for i in seed_encode(tok, list(chunk.encode()))]
    assert tok.encode(text) == expected  # cold: every chunk new
    assert tok.encode(text) == expected  # warm: from the cache
    fresh = Tokenizer(merges, pretokenizer=PreTokenizer("simple"))
    assert [i for c in fresh.pretokenizer.split(text) for i in fresh.encode_chunk(c)] == expected
    table_at_once = Tokenizer(merges, pretokenizer=PreTokenizer("simple"))
    table_at_once._before_whole = 0  # the first chunks too go through the table of whole tokens
    assert table_at_once.encode(text) == expected


@settings(max_examples=150)
@given(merge_lists(base_ids=(0, 1, 2, 3), base_size=4), st.text(alphabet="ab\u00e9\udcc3\udca9z", max_size=40))
def test_chars_base_first_encoding_matches_the_seed(merges, text):
    # "\udcc3\udca9" (surrogate escapes) has the bytes of "\u00e9"; z is outside the alphabet.
    tok = Tokenizer(merges, base="chars", alphabet=["a", "\u00e9", "\udcc3", "\udca9"])
    expected = seed_encode(tok, tok.vocab.units.ids(text)) if text else []
    assert tok.encode(text) == expected
    table_at_once = Tokenizer(merges, base="chars", alphabet=["a", "\u00e9", "\udcc3", "\udca9"])
    table_at_once._before_whole = 0
    assert table_at_once.encode(text) == expected


def test_trained_tokens_encode_to_themselves_as_the_seed_says():
    trainer = Trainer(sample_text("workshop.txt"), TrainConfig(vocab_size=700))
    trainer.train()
    tok = trainer.tokenizer()
    flags = [tok.model.self_encodes(t) for t in range(tok.vocab_size)]
    assert flags == [seed_encode(tok, list(tok.pieces[t])) == [t] for t in range(tok.vocab_size)]
    assert all(flags)  # a trained tokenizer's tokens all encode to themselves


def test_a_token_that_does_not_encode_to_itself_is_not_taken_whole():
    # ab, bc, then (a, bc): the bytes "abc" encode to ab + c, never to the third token.
    tok = Tokenizer([(97, 98), (98, 99), (97, 257)])
    assert not tok.model.self_encodes(258)
    assert tok.encode("abc") == [256, 99]


def test_a_longest_first_reading_that_is_not_the_encoding_is_not_taken():
    # bc first, then ab: "abc" read longest first is ab + c, but b + c is joined first.
    tok = Tokenizer([(98, 99), (97, 98)])
    assert tok.encode("abc") == [97, 256]
    assert tok.encode("abab") == [257, 257]


def test_chars_base_tokens_are_found_by_text_not_bytes():
    # Surrogate escapes stand for raw bytes: "\udcc3\udca9" has the bytes of "é".
    tok = Tokenizer([(1, 2)], base="chars", alphabet=["\ufffd", "\udcc3", "\udca9", "é"])
    assert tok.encode("é") == [3]
    assert tok.encode("\udcc3\udca9") == [4]
    assert tok.encode("é\udcc3\udca9é") == [3, 4, 3]


@settings(max_examples=200)
@given(merge_lists())
def test_judging_all_tokens_at_once_agrees_with_one_at_a_time(merges):
    one_by_one, all_at_once = Tokenizer(merges), Tokenizer(merges)
    all_at_once.model.judge_all()
    assert [all_at_once.model.known[t] for t in range(256, len(all_at_once.pieces))] == [
        1 if one_by_one.model.self_encodes(t) else 2 for t in range(256, len(one_by_one.pieces))
    ]
    some_first = Tokenizer(merges)  # some judged one at a time first, the rest at once
    for t in range(256, len(some_first.pieces), 3):
        some_first.model.self_encodes(t)
    some_first.model.judge_all()
    assert some_first.model.known == all_at_once.model.known


def test_a_long_text_judges_all_tokens_and_encodes_the_same():
    trainer = Trainer(sample_text("workshop.txt"), TrainConfig(vocab_size=300))
    trainer.train()
    tok = trainer.tokenizer()
    text = sample_text("workshop.txt") * 4
    fresh = Tokenizer(tok.merges, pretokenizer=tok.pretokenizer)
    assert len(fresh.pretokenizer.split(text)) >= 8 * len(fresh.pieces)  # long enough to judge all at once
    assert fresh.encode(text) == tok.encode(text) == [i for c in tok.pretokenizer.split(text) for i in seed_encode(tok, list(c.encode()))]
    assert fresh.model.judged != fresh.model.by_text  # the compiled core's bytes path reads no whole tokens: nothing to judge
