"""GPT-2's real ranks against tiktoken on Chinese, on both paths of the hot loops (engine/native/door.py):
a fresh tokenizer of its merges, and the rank file as loaded (every token rebuilds itself, so new
chunks skip the whole-piece lookup). Skips when gpt2.tiktoken cannot be had."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import sample_text
from hypothesis import given
from hypothesis import strategies as st

from engine import PreTokenizer, Tokenizer
from engine.native.door import BACKEND, PURE, using


def gpt2_ranks() -> Path | None:
    """GPT-2's ``gpt2.tiktoken`` when it is on this machine: ``$BPE_LAB_GPT2_TIKTOKEN``, or in
    ``$BPE_LAB_WHISPER_ASSETS`` (``whisper/assets`` of the sdist ``pip download --no-deps
    --no-binary :all: openai-whisper`` fetches), or from an installed openai-whisper, or the
    interop tests' copy from that sdist (tests/fetch_tokenizers.py, fetched when need be)."""
    import importlib.metadata

    from fetch_tokenizers import real_file

    candidates = [os.environ.get("BPE_LAB_GPT2_TIKTOKEN", "")]
    if os.environ.get("BPE_LAB_WHISPER_ASSETS"):
        candidates.append(str(Path(os.environ["BPE_LAB_WHISPER_ASSETS"]) / "gpt2.tiktoken"))
    try:
        candidates.append(str(importlib.metadata.distribution("openai-whisper").locate_file("whisper/assets/gpt2.tiktoken")))
    except importlib.metadata.PackageNotFoundError:
        pass
    found = next((Path(c) for c in candidates if c and Path(c).is_file()), None)
    return found if found is not None else real_file("whisper-gpt2.tiktoken")


@pytest.fixture(scope="module")
def gpt2_pair():
    path = gpt2_ranks()
    if path is None:
        pytest.skip("GPT-2's gpt2.tiktoken is not here (see gpt2_ranks)")
    import tiktoken
    from tiktoken.load import load_tiktoken_bpe

    from engine.formats import load_any
    from engine.text.pretokenize import GPT2_PATTERN

    imported = load_any(path, pretokenizer=PreTokenizer("gpt2"))
    enc = tiktoken.Encoding(name="gpt2", pat_str=GPT2_PATTERN, mergeable_ranks=load_tiktoken_bpe(str(path)), special_tokens={})
    return imported, enc


CJK = "床前明月光疑是地上霜举头望低思故乡，。！？「」\n 的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年"


@pytest.mark.slow
@given(st.text(alphabet=CJK + "abc 1é😀\t", max_size=300))
def test_gpt2_ranks_encode_chinese_as_tiktoken_does_on_both_paths(gpt2_pair, text):
    imported, enc = gpt2_pair
    expected = enc.encode_ordinary(text)
    for native in {PURE, BACKEND}:
        with using(native):
            fresh = Tokenizer(imported.tokenizer.merges, pretokenizer=imported.tokenizer.pretokenizer)
            assert imported.to_file_ids(fresh.encode_ordinary(text)) == expected


@pytest.fixture(scope="module")
def gpt2_loaded(gpt2_pair):
    """GPT-2's rank file loaded on each path there is here: {compiled?: Imported}."""
    from engine.formats import load_any

    loaded = {}
    for native in {PURE, BACKEND}:
        with using(native):
            loaded[native.compiled] = load_any(gpt2_pair[0].path, pretokenizer=PreTokenizer("gpt2"))
    return loaded


@given(st.text(alphabet=CJK + "abc 1é😀\t", min_size=64, max_size=400))
def test_a_rank_file_whose_tokens_all_rebuild_themselves_merges_new_chunks_directly(gpt2_pair, gpt2_loaded, text):
    """GPT-2's rank file has no whole pieces and every token is what the merges make of its
    bytes (the loader finds it, or reads it from its cache): the loaded tokenizer knows every
    token's self-encoding, its new chunks skip the whole-piece lookup (in C when compiled), and
    it still encodes as tiktoken does, on both paths."""
    enc = gpt2_pair[1]
    for loaded in gpt2_loaded.values():
        tok = loaded.tokenizer
        assert tok.whole_first and tok.model.judged and tok.model.known.count(1) == len(tok.pieces)
        assert tok.model.encode_chunk == tok.model._rules_chunk  # straight to the merges
        assert loaded.encode(text) == enc.encode_ordinary(text)


def test_gpt2_ranks_encode_the_chinese_sample_as_tiktoken_does(gpt2_pair):
    imported, enc = gpt2_pair
    text = sample_text("chinese.txt")
    assert imported.encode(text) == enc.encode_ordinary(text)
