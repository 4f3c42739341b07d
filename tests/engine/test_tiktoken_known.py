"""A well-known rank file replays without a pattern (issue 39): GPT-2's, Whisper's, cl100k's,
Llama 3's and Llama 4's are told apart by their content (how many ranks, the first merged tokens),
and their own pattern is used, with a note saying so; any other rank file still needs one."""

from __future__ import annotations

import pytest

from engine.formats import load_any
from engine.formats.known_ranks import KNOWN_RANK_FILES, known_rank_file


def ranks_like(count: int, first: tuple[bytes, ...]) -> dict[bytes, int]:
    """``count`` ranks: the 256 bytes, ``first`` at 256..., then distinct filler tokens."""
    ranks = {bytes([b]): b for b in range(256)}
    for token in first:
        ranks[token] = len(ranks)
    n = 0
    while len(ranks) < count:
        ranks[b"\xff" + n.to_bytes(3, "big")] = len(ranks)
        n += 1
    return ranks


@pytest.mark.parametrize(("count", "first", "name", "pattern"), KNOWN_RANK_FILES, ids=[k[2] for k in KNOWN_RANK_FILES])
def test_each_known_file_is_told_by_its_count_and_first_tokens(count, first, name, pattern):
    assert known_rank_file(ranks_like(count, first)) == (name, pattern)
    assert known_rank_file(ranks_like(count + 1, first)) is None  # a longer file is another one
    assert known_rank_file(ranks_like(count, (b"xy", *first[1:]))) is None


def test_an_unknown_rank_file_still_asks_for_a_pattern(tmp_path):
    path = tmp_path / "t.tiktoken"
    path.write_text("YQ== 0\nYg== 1\n", encoding="utf-8")
    with pytest.raises(ValueError, match="this tiktoken rank file is not one bpe-lab knows, and holds no pattern: give"):
        load_any(path)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["whisper-gpt2.tiktoken", "whisper-multilingual.tiktoken", "llama3.tiktoken",
                                  "llama4.tiktoken"])
def test_the_real_files_replay_with_their_own_pattern_and_tiktokens_ids(name):
    """No pattern given: the library's own pattern is chosen, and the ids are tiktoken's."""
    tiktoken = pytest.importorskip("tiktoken")
    from fetch_tokenizers import load_cached, needed
    from texts import TEXTS
    from tiktoken.load import load_tiktoken_bpe

    from test_formats_real import RANK_FILES

    path = needed(name)
    imported = load_cached(path)
    pre = imported.tokenizer.pretokenizer
    assert pre.name == "gpt2" if "whisper" in name else pre.pattern == RANK_FILES[name]
    assert any("'s rank file (" in note and "text is split with its pattern" in note for note in imported.warnings)
    enc = tiktoken.Encoding(name=name, pat_str=RANK_FILES[name], mergeable_ranks=load_tiktoken_bpe(str(path)),
                            special_tokens={})
    for text in TEXTS:
        assert imported.to_file_ids(imported.tokenizer.encode(text)) == enc.encode_ordinary(text), text


@pytest.mark.slow
def test_o200ks_bare_rank_file_is_recognized(tmp_path):
    """o200k_base written as the .tiktoken file tiktoken caches (no sidecar): recognized by its
    content, split by o200k's pattern, tiktoken's ids (the ranks from npm's tiktoken package)."""
    import base64
    import json

    tiktoken = pytest.importorskip("tiktoken")
    from fetch_tokenizers import inline_ranks, needed
    from texts import TEXTS

    data = json.loads(needed("tiktoken-npm/o200k_base.json").read_text(encoding="utf-8"))
    ranks = inline_ranks(data)
    path = tmp_path / "o200k_base.tiktoken"
    path.write_text("".join(f"{base64.b64encode(t).decode()} {r}\n" for t, r in ranks.items()), encoding="utf-8")
    imported = load_any(path)
    assert any(note.startswith("o200k_base (GPT-4o)'s rank file") for note in imported.warnings)
    enc = tiktoken.Encoding("o200k", pat_str=data["pat_str"], mergeable_ranks=ranks, special_tokens={})
    for text in TEXTS:
        assert imported.encode(text) == enc.encode_ordinary(text), text
