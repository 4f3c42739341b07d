"""Whole-piece lookup (``Tokenizer.from_ranks``): a chunk that is a token is that token,
as tiktoken and HuggingFace's ``ignore_merges`` do; tokens no merge makes (``whole_pieces``) are
given only that way. Checked against tiktoken on random rank files."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import Tokenizer
from engine.encode.models import MergeRules, WholeFirst
from engine.encode.tokenizer import tokenizer_from_dict, tokenizer_to_dict
from engine.encode.vocabulary import BaseUnits, Vocabulary
from engine.errors import ConfigError
from engine.formats import load_any
from engine.text.pretokenize import PreTokenizer

tiktoken = pytest.importorskip("tiktoken")


def whole(merges=((97, 98),), pieces=(b"xyz",), **options) -> Tokenizer:
    return Tokenizer.from_ranks(list(merges), whole_pieces=list(pieces), **options)


def test_a_whole_piece_is_given_only_for_a_whole_chunk():
    tok = whole(specials=["<eos>"], pretokenizer=PreTokenizer("gpt2"))
    xyz = 257
    assert tok.vocab_size == 256 + 1 + 1 + 1 and tok.specials == {"<eos>": 258}
    assert tok.token_bytes(xyz) == b"xyz"
    assert tok.encode("xyz") == [xyz]
    assert tok.encode(" xyz") == [32, 120, 121, 122]  # " xyz" is not a token: merged, and no merge makes xyz
    assert tok.encode("xyz xyz<eos>") == [xyz, 32, 120, 121, 122, 258]
    assert tok.encode("xyzw") == [120, 121, 122, 119]
    assert tok.decode([xyz, 256]) == "xyzab"
    start, steps = tok.encode_trace("xyz ab")
    assert start[:1] == (xyz,) and steps[-1].tokens == tuple(tok.encode("xyz ab"))


def test_whole_pieces_survive_the_native_format():
    tok = whole(specials=["<eos>"])
    data = tokenizer_to_dict(tok)
    assert data["version"] == 2 and data["whole_pieces"] == ["78797a"]
    back = tokenizer_from_dict(data)
    assert back.whole_first and back.whole_pieces == [b"xyz"] and back.specials == tok.specials
    assert tokenizer_to_dict(Tokenizer([(97, 98)]))["version"] == 1  # files without them stay version 1


@pytest.mark.parametrize("make,message", [
    (lambda: MergeRules(Vocabulary(BaseUnits(), whole_pieces=[b"xy"])), "need whole_first"),
    (lambda: Tokenizer.from_ranks(whole_pieces=[b"x"]), "at least two bytes"),
    (lambda: Tokenizer.from_ranks(whole_pieces=[b"xy", b"xy"]), "given twice"),
    (lambda: WholeFirst(Vocabulary(BaseUnits("chars", ["\ufffd", "a"]))), "bytes base"),
    (lambda: Vocabulary(BaseUnits("chars", ["\ufffd", "a"]), whole_pieces=[b"xy"]), "bytes base"),
])
def test_malformed_whole_pieces_are_refused(make, message):
    with pytest.raises(ConfigError, match=message):
        make()


LETTERS = "abc d"


@given(
    tokens=st.lists(st.text(LETTERS, min_size=2, max_size=5), unique=True, max_size=30),
    texts=st.lists(st.text(LETTERS + "e", max_size=24), min_size=1, max_size=8),
    pattern=st.sampled_from(["none", "gpt2"]),
)
def test_random_rank_files_encode_as_tiktoken_does(tmp_path_factory, tokens, texts, pattern):
    """Any rank file (tokens in any order, reachable by merges or not) encodes as tiktoken."""
    folder = tmp_path_factory.mktemp("ranks")
    ranked = [bytes([b]) for b in range(256)] + [t.encode() for t in tokens]
    path = folder / "r.tiktoken"
    path.write_text("".join(f"{base64.b64encode(t).decode()} {i}\n" for i, t in enumerate(ranked)), encoding="ascii")
    imported = load_any(path, pretokenizer=PreTokenizer(pattern))
    pat = r"[\s\S]+" if pattern == "none" else PreTokenizer("gpt2").pattern
    enc = tiktoken.Encoding(name="r", pat_str=pat, mergeable_ranks=dict(zip(ranked, range(len(ranked)))), special_tokens={})
    for text in texts + tokens:
        assert imported.encode(text) == enc.encode_ordinary(text), (tokens, text)


def test_a_replay_shows_the_files_ids_for_specials_after_whole_pieces(tmp_path):
    """The app's replay makes merges only: a whole-piece token is made by no step, and the
    file's specials (after the whole pieces) still show their own ids."""
    import json

    from engine import Trainer
    from tui.model.workbench import LoadedCorpus, Workbench

    ranked = [bytes([b]) for b in range(256)] + [b"ab", b"xyz"]
    path = tmp_path / "r.tiktoken"
    path.write_text("".join(f"{base64.b64encode(t).decode()} {i}\n" for i, t in enumerate(ranked)), encoding="ascii")
    (tmp_path / "r.tiktoken.json").write_text(json.dumps({"pat_str": r"[\s\S]+", "special_tokens": {"<eos>": 300}}))
    imported = load_any(path)
    tok = imported.tokenizer
    assert tok.whole_pieces == [b"xyz"] and tok.specials == {"<eos>": 258}
    (tmp_path / "c.txt").write_text("ab ab xyz<eos>", encoding="utf-8")
    corpus = LoadedCorpus.open(tmp_path / "c.txt", tok.base)
    config = Trainer.replaying(corpus.text, tok).config
    bench = Workbench(corpus, config, script=tok, file_ids=imported.file_ids)
    special = bench.trainer.vocab_size - 1  # the trainer's <eos>, after the merges made so far
    assert bench.shown_id(special) == 300
    assert bench.our_id(300) == special
    assert bench.our_id(257) is None  # xyz: a whole-piece token, made by no replayed merge
