"""CLIP's real merges (from the open_clip_torch wheel, tests/clip_files.py) as a tokenizer.json
and as a vocab.json + merges.txt pair, read by bpe-lab and by ``tokenizers``: the same ids for
every token on its own and for text in many languages. Skips, saying why, when the file cannot
be had."""

from __future__ import annotations

import functools

import pytest
from clip_files import CLIP_PATTERN, clip_json, clip_merges, clip_pair, clip_tokenizer, why
from hypothesis import given, settings
from hypothesis import strategies as st
from texts import TEXTS as ACCEPTANCE_TEXTS

from engine.formats import load_any

tokenizers = pytest.importorskip("tokenizers")

#: The acceptance texts, and CLIP's own: a caption, and its two special tokens in text.
TEXTS = [*ACCEPTANCE_TEXTS, "A photo of a cat.", "c \t\t d <|endoftext|> x<|startoftext|>y"]


@functools.cache
def _merges():
    return clip_merges()


@pytest.fixture(scope="module")
def merges():
    found = _merges()
    if found is None:
        pytest.skip(why())
    return found


@pytest.fixture(scope="module")
def clip(merges, tmp_path_factory):
    """(bpe-lab's import of CLIP's tokenizer.json, tokenizers' own)."""
    path = clip_json(tmp_path_factory.mktemp("clip") / "tokenizer.json", merges)
    return load_any(path), tokenizers.Tokenizer.from_file(str(path))


def test_clip_json_reads_with_the_suffix_and_no_notes(clip):
    ours, _ = clip
    assert ours.warnings == []
    tok = ours.tokenizer
    assert tok.end_of_word == "</w>" and tok.base == "bytes" and tok.base_size == 512
    assert len(tok.merges) == 48894 and tok.vocab_size == 49408


@pytest.mark.parametrize("text", TEXTS)
def test_clip_texts_give_tokenizers_ids(clip, text):
    ours, theirs = clip
    assert ours.encode(text) == theirs.encode(text).ids


@pytest.mark.slow  # (49,408 tokens one by one: 1.8-2.0 s of processor on the pure path)
def test_every_clip_token_on_its_own_gives_tokenizers_ids(clip):
    ours, theirs = clip
    vocab = theirs.get_vocab()
    # a token's text, without the suffix: a word-final token is the whole word, any other the
    # start of one (the word then ends in another token, the same in both)
    texts = [tok.removesuffix("</w>") for tok in sorted(vocab, key=vocab.get)]
    texts = [bytes(_byte_level_to_bytes(t)).decode("utf-8", "replace") for t in texts]
    encoded = theirs.encode_batch(texts)
    wrong = [(t, ours.encode(t), e.ids) for t, e in zip(texts, encoded) if ours.encode(t) != e.ids]
    assert not wrong, f"{len(wrong)} of {len(texts)} differ, first {wrong[:3]}"


def _byte_level_to_bytes(name: str) -> list[int]:
    from engine.text.bytelevel import unicode_to_token

    try:
        return list(unicode_to_token(name))
    except ValueError:
        return list(name.encode())  # a special token


def test_clip_decodes_words_with_spaces(clip):
    ours, _ = clip
    assert ours.decode(ours.encode("A photo of a cat!")) == "a photo of a cat !"


def test_clip_pair_gives_tokenizers_ids(merges, tmp_path):
    folder = clip_pair(tmp_path / "clip", merges)
    ours = load_any(folder)
    assert ours.tokenizer.end_of_word == "</w>"
    assert len(ours.warnings) == 1 and "</w>" in ours.warnings[0]  # the pair holds no pattern: GPT-2's
    from tokenizers import pre_tokenizers
    from tokenizers.models import BPE

    theirs = tokenizers.Tokenizer(BPE.from_file(str(folder / "vocab.json"), str(folder / "merges.txt"),
                                                end_of_word_suffix="</w>", continuing_subword_prefix="",
                                                unk_token="<|endoftext|>"))
    theirs.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    theirs.add_special_tokens(["<|startoftext|>", "<|endoftext|>"])
    for text in TEXTS:
        assert ours.encode(text) == theirs.encode(text).ids, text


def test_clip_export_to_hf_reloads_in_tokenizers_with_the_same_ids(clip, tmp_path):
    from engine.formats import export_tokenizer

    ours, theirs = clip
    path = tmp_path / "again.json"
    export_tokenizer(ours.tokenizer, "hf", path, ids=ours.file_ids)
    again = tokenizers.Tokenizer.from_file(str(path))
    for text in TEXTS:
        assert again.encode(text).ids == theirs.encode(text).ids


@settings(max_examples=200, deadline=None)
@given(st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40))
def test_byte_levels_own_regex_leaves_clips_pieces_whole(text):
    """hfpre reads CLIP's Split then ByteLevel(use_regex=True) as the Split alone: GPT-2's regex
    splits none of CLIP's pieces further. Checked against tokenizers' own pre-tokenizers."""
    from tokenizers import Regex, pre_tokenizers

    split = pre_tokenizers.Split(Regex(CLIP_PATTERN), behavior="removed", invert=True)
    both = pre_tokenizers.Sequence([split, pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)])
    alone = pre_tokenizers.Sequence([split, pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    assert both.pre_tokenize_str(text) == alone.pre_tokenize_str(text)


def test_clip_tokenizer_is_what_the_helper_makes(merges):
    # OpenAI CLIP's own ids for this text (49406 and 49407 around them are its start and end)
    assert clip_tokenizer(merges).encode("a photo of a cat").ids == [320, 1125, 539, 320, 2368]
