"""``bpe-lab vocab`` (engine.analysis.glitch): glitch-token candidates a tokenizer alone can point
at. A small tokenizer with a token no text encodes to alone and one a corpus never produces finds
both; on GPT-2's ranks, `` SolidGoldMagikarp`` is among the tokens an ordinary English text never
produces (the bundled sample)."""

from __future__ import annotations

import json

from fetch_tokenizers import needed
from helpers import ROOT
from local_index import run

from engine import Tokenizer
from engine.analysis import vocabulary_dive
from engine.formats import export_tokenizer


def test_a_known_unreachable_and_a_known_unused_token_are_found(tmp_path):
    # ab, then bc, then a + bc: "abc" merges a + b first and is never the token abc
    tok = Tokenizer([(97, 98), (98, 99), (97, 257)])
    dive = vocabulary_dive(tok, "ab ab ab")
    abc, bc = tok.pieces.index(b"abc"), tok.pieces.index(b"bc")
    assert dive.unreachable == [abc]
    assert bc in dive.unused and abc in dive.unused and tok.pieces.index(b"ab") not in dive.unused
    path = tmp_path / "t.json"
    export_tokenizer(tok, "native", path)
    corpus = tmp_path / "c.txt"
    corpus.write_text("ab ab ab", encoding="utf-8")
    code, out, err = run("vocab", "-t", str(path), "--corpus", str(corpus), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert [t["token"] for t in data["unreachable"]] == ["abc"] and "bc" in [t["token"] for t in data["unused"]]
    assert "not here" in data["what"]


def test_solidgoldmagikarp_is_never_produced_on_an_ordinary_english_text():
    path = needed("tiktoken-npm/r50k_base.json")
    code, out, err = run("vocab", "-t", str(path), "--corpus", str(ROOT / "assets" / "samples" / "the-cat-in-the-hat.txt"),
                         "--json")
    assert code == 0, err
    data = json.loads(out)
    unused = {t["token"] for t in data["unused"]}
    assert " SolidGoldMagikarp" in unused and " the" not in unused
    assert len(data["partial"]) == len(data["no_round_trip"]) > 0  # GPT-2's parts of characters
