"""Rank files with their ranks inline in JSON (js-tiktoken's ``"bpe_ranks"``, as npm's tiktoken
ships OpenAI's encodings and Anthropic's claude.json is written): read as the rank file and
sidecar they stand for, with tiktoken's ids. The reference is tiktoken itself, given the ranks
as js-tiktoken's own loader reads them (each line: a marker, the first rank, base64 tokens)."""

from __future__ import annotations

import json

import pytest
from fetch_tokenizers import inline_ranks, load_cached, needed
from hypothesis import given
from hypothesis import strategies as st
from texts import TEXTS

from engine.errors import TokenizerFileError
from engine.formats import load_any
from engine.formats.rank_json import inline_ranks as read_inline_ranks

MORE = ["<|endoftext|> and <|fim_prefix|>", "def f(x):\n\treturn x  # 12345", "Ünïcödé – 日本語のテキスト 🦙"]


@pytest.mark.parametrize("name", ["r50k_base", "p50k_base", *(pytest.param(n, marks=pytest.mark.slow)
                                                            for n in ("cl100k_base", "o200k_base"))])
def test_npm_tiktokens_encodings_give_tiktokens_ids(name):
    tiktoken = pytest.importorskip("tiktoken")
    path = needed(f"tiktoken-npm/{name}.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    theirs = tiktoken.Encoding(name, pat_str=data["pat_str"], mergeable_ranks=inline_ranks(data),
                               special_tokens=data["special_tokens"])
    ours = load_cached(path)
    for text in TEXTS + MORE:
        assert ours.encode(text) == theirs.encode(text, allowed_special="all"), text
        assert ours.decode(theirs.encode(text, allowed_special="all")) == text


def test_anthropics_claude_json_gives_tiktokens_ids():
    """npm's @anthropic-ai/tokenizer: the same format, specials at ids 0-4 before the ranks (its
    JavaScript applies NFKC first, which the file cannot say: compared here without it)."""
    tiktoken = pytest.importorskip("tiktoken")
    path = needed("anthropic-npm/claude.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    theirs = tiktoken.Encoding("claude", pat_str=data["pat_str"], mergeable_ranks=inline_ranks(data),
                               special_tokens=data["special_tokens"])
    ours = load_cached(path)
    for text in [*TEXTS, *MORE, "Human: hi\n\nAssistant: ok<EOT>"]:
        assert ours.encode(text) == theirs.encode(text, allowed_special="all"), text


@pytest.mark.parametrize("bad, words", [
    ({"pat_str": r"\S+", "bpe_ranks": 7}, "must be text"),
    ({"pat_str": r"\S+", "bpe_ranks": "! x YQ=="}, "line 1 is not a marker"),
    ({"pat_str": r"\S+", "bpe_ranks": "! 0 YQ==", "special_tokens": {"": 3}}, "special_tokens"),
    ({"bpe_ranks": "! 0 YQ=="}, "no pattern"),
])
def test_malformed_inline_ranks_get_one_line(tmp_path, bad, words):
    path = tmp_path / "enc.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    with pytest.raises(TokenizerFileError, match=words) as caught:
        load_any(path)
    assert "\n" not in str(caught.value)


#: Lines of inline ranks and what may go wrong in them: base64 with bits left over, bad padding,
#: characters outside it, empty tokens, first ranks too long or not digits, ranks going back.
RANK_PIECES = ["! 0 ", "! 3 ", "! 0000000001 ", "! 12345678901 ", "! x ", "!", " ", "  ", "\n", "\n\n", "\r",
               "YQ==", "Yg==", "YWI=", "YWJj", "YR==", "YWJ=", "Y===", "=YQ=", "YQ", "YQ==YQ==", "4pyF", "é", "-_", "AAAA"]


@given(st.lists(st.sampled_from(RANK_PIECES), max_size=30).map("".join))
def test_the_compiled_reader_of_inline_ranks_is_the_pure_ones(text):
    compiled = pytest.importorskip("engine.native.door").COMPILED
    if compiled is None:
        pytest.skip("no compiled core here")
    from engine.native.door import PURE, using

    with using(PURE):
        expected = read_inline_ranks(text)
    with using(compiled):
        got = read_inline_ranks(text)
    assert got == expected and (got is None or list(got.items()) == list(expected.items()))
