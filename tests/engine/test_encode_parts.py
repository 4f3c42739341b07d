"""The Tokenizer's parts, each on its own: base units, the vocabulary (and its cut), each model
(merge rules, whole pieces first, tiktoken's merging by rank, SentencePiece's by score) and each
decoder (byte-level, byte fallback, end of word, subword prefix); then their composition, and
combinations that cannot be built."""

from __future__ import annotations

import pytest

from engine import ConfigError, Tokenizer
from engine.encode.decoders import ByteFallback, ByteLevel, EndOfWord, SubwordPrefix, decoder_for
from engine.encode.models import MergeRules, RankMerging, ScoreMerging, WholeFirst
from engine.encode.reference import merge
from engine.encode.vocabulary import BYTE_CHARS, BaseUnits, Vocabulary
from engine.text.pretokenize import PreTokenizer

A, B, C = ord("a"), ord("b"), ord("c")


def naive(vocab: Vocabulary, ids: list[int]) -> list[int]:
    """Each merge over the whole chunk, in learned order (seed 000)."""
    for k, pair in enumerate(vocab.merges):
        ids = merge(ids, pair, vocab.base_size + k)
    return ids


# -- base units and the vocabulary ------------------------------------------------------------


def test_base_units_mark_their_twins():
    assert BaseUnits().ids("ab") == [A, B]
    assert BaseUnits(subword_prefix="##").ids("ab") == [A, 256 + B]
    assert BaseUnits(end_of_word="</w>").ids("ab") == [A, 256 + B]
    both = BaseUnits(subword_prefix="##", end_of_word="</w>")
    assert both.size == 4 * 256 and both.ids("ab") == [A, 3 * 256 + B]
    assert both.pieces[3 * 256 + B] == b"##b</w>"
    chars = BaseUnits("chars", ["\ufffd", "a"])
    assert chars.ids("ab") == [1, 0]  # b is not in the alphabet: the unknown id
    fallback = BaseUnits("chars", ["\ufffd", *BYTE_CHARS, "a"], byte_fallback=True)
    assert fallback.ids("aé") == [257, 1 + 0xC3, 1 + 0xA9]  # é is its UTF-8 bytes' ids


def test_a_vocabulary_numbers_units_merges_whole_pieces_then_specials():
    vocab = Vocabulary(BaseUnits(), [(A, B), (256, C)], whole_pieces=[b"xyz"], specials=["<s>"])
    assert vocab.pieces[256:] == [b"ab", b"abc"]
    assert vocab.whole_pieces == [b"xyz"] and vocab.specials == {"<s>": 259} and vocab.size == 260
    assert vocab.rank((256, C)) == 257 and vocab.rank((B, C)) is None
    assert (vocab.left_of[257], vocab.right_of[257]) == (256, C)
    assert vocab.token_bytes(258) == b"xyz" and vocab.token_bytes(259) == b"<s>"


def test_a_prefix_vocabulary_joins_without_the_right_parts_prefix():
    vocab = Vocabulary(BaseUnits(subword_prefix="##"), [(A, 256 + B), (256 + A, 256 + B)])
    assert vocab.pieces[512:] == [b"ab", b"##ab"]
    assert [vocab.continues_word(t) for t in (A, 256 + A, 512, 513)] == [False, True, False, True]
    with pytest.raises(ConfigError, match="starts a word"):
        Vocabulary(BaseUnits(subword_prefix="##"), [(A, B)])


def test_a_cut_vocabulary_is_the_vocabulary_of_its_first_merges():
    merges = [(A, B), (256, C), (C, C), (257, 258)]
    whole = Vocabulary(BaseUnits(), merges, specials=["<s>"])
    for steps in range(len(merges) + 1):
        cut, fresh = whole.cut(steps), Vocabulary(BaseUnits(), merges[:steps], specials=["<s>"])
        assert (cut.pieces, cut.merges, cut.specials) == (fresh.pieces, fresh.merges, fresh.specials)
        assert list(cut.ranks.items()) == list(fresh.ranks.items())
        assert (cut.left_of, cut.right_of) == (fresh.left_of, fresh.right_of)
    with pytest.raises(ValueError):
        whole.cut(len(merges) + 1)


def test_from_parts_takes_the_callers_tokens_and_still_checks_the_merges():
    tokens = [bytes([b]) for b in range(256)] + [b"ab"]
    vocab = Vocabulary.from_parts(BaseUnits(), [A], [B], tokens=tokens)
    assert vocab.pieces == tokens and vocab.merges == [(A, B)]
    with pytest.raises(ConfigError, match="repeats merge 1"):
        Vocabulary.from_parts(BaseUnits(), [A, A], [B, B])


# -- models -----------------------------------------------------------------------------------


def test_merge_rules_apply_the_merges_in_learned_order():
    vocab = Vocabulary(BaseUnits(), [(B, C), (A, B), (256, C)])
    model = MergeRules(vocab)
    for chunk in ["abc", "abcabc", "bcab", "aabbcc", "abcbcbcbcbcbcbcbcbcbcabc"]:  # (long: the heap path)
        assert model.encode_chunk(chunk) == naive(vocab, list(chunk.encode())), chunk
        assert model.merge_ids(list(chunk.encode())) == naive(vocab, list(chunk.encode()))


def test_merge_rules_know_which_tokens_rebuild_themselves():
    # ab, then bc; "abc" merged from its bytes is ab + c, never a + bc: token a+bc does not rebuild
    vocab = Vocabulary(BaseUnits(), [(A, B), (B, C), (A, 257)])
    model = MergeRules(vocab)
    assert model.self_encodes(256) and model.self_encodes(257) and not model.self_encodes(258)
    judged = MergeRules(vocab)
    judged.judge_all()
    assert judged.known == model.known


def test_whole_first_looks_a_chunk_up_before_merging():
    vocab = Vocabulary(BaseUnits(), [(A, B)], whole_pieces=[b"xyz"])
    model = WholeFirst(vocab)
    assert model.encode_chunk("xyz") == [257] and model.encode_chunk("xyzx") == list(b"xyzx")
    assert model.encode_chunk("ab") == [256] and model.whole_piece(b"ab") == 256
    assert model.trace_start(list(b"xyz")) == [257] and model.trace_start(list(b"ba")) == list(b"ba")
    assert model.whole_kept(0) == [] and model.whole_kept(1) == [0]


def test_rank_merging_joins_the_lowest_ranked_pair_as_tiktoken_does():
    # the whole piece bc ranks below merge ab: tiktoken joins b and c first in "abc", which
    # merge rules (bc is no merge) cannot
    vocab = Vocabulary(BaseUnits(), [(A, B)], whole_pieces=[b"bc"])
    model = RankMerging(vocab, [0])
    assert model.encode_chunk("abc") == [A, 257]
    assert WholeFirst(vocab).encode_chunk("abc") == [256, C]
    assert model.order() == {b"bc": 0, b"ab": 1}
    assert model.trace_start(list(b"abc")) == [A, 257]
    cut = model.cut(vocab.cut(0, whole_pieces=[b"bc"]), 0, model.whole_kept(0))
    assert cut.ranked_from is model and cut.order() == {b"bc": 0}
    with pytest.raises(ConfigError, match="whole_ranks"):
        RankMerging(vocab, [2])


def test_score_merging_joins_the_best_scored_text():
    alphabet = ["\ufffd", "a", "b", "c"]
    vocab = Vocabulary(BaseUnits("chars", alphabet), [(1, 2), (2, 3)])  # ab (id 4), bc (id 5)
    assert MergeRules(vocab).encode_chunk("abc") == [4, 3]  # learned order: ab first
    model = ScoreMerging(vocab, [1, 0])  # bc scores best
    assert model.encode_chunk("abc") == [1, 5]
    assert model.encode_chunk("xya") == [0, 1]  # unknown characters in a row: one unknown token
    assert model.trace_start([1, 2, 3]) == [1, 5]
    assert model.cut(vocab.cut(1), 1, []).text_ranks == [1]
    fallback = Vocabulary(BaseUnits("chars", ["\ufffd", *BYTE_CHARS, "a"], byte_fallback=True), [(257, 257)])
    assert ScoreMerging(fallback, [0]).encode_chunk("aaé") == [258, 1 + 0xC3, 1 + 0xA9]


# -- decoders ---------------------------------------------------------------------------------


def test_byte_level_reads_the_joined_bytes_as_utf8():
    vocab = Vocabulary(BaseUnits(), [(0xE4, 0xB8)], specials=["<s>"])
    assert ByteLevel().decode(vocab, [256, 0xAD, 257]) == "中<s>"
    assert ByteLevel().decode(vocab, [0xE4]) == "\ufffd"


def test_byte_fallback_joins_byte_tokens_into_characters():
    vocab = Vocabulary(BaseUnits("chars", ["\ufffd", *BYTE_CHARS, "a"], byte_fallback=True))
    assert ByteFallback().decode(vocab, [257, 1 + 0xE4, 1 + 0xB8, 1 + 0xAD]) == "a中"


def test_end_of_word_drops_its_suffix_or_makes_it_a_space():
    vocab = Vocabulary(BaseUnits(end_of_word="</w>"), [(A, 256 + B)])  # ab</w>
    assert EndOfWord("</w>", spaced=True).decode(vocab, [512, 512, 256 + C]) == "ab ab c"
    assert EndOfWord("</w>", spaced=False).decode(vocab, [512, 32, 512]) == "ab ab"


def test_subword_prefix_drops_its_prefix_and_spaces_words():
    vocab = Vocabulary(BaseUnits(subword_prefix="##"), [(A, 256 + B)])  # ab
    assert SubwordPrefix("##", spaced=True).decode(vocab, [512, 256 + C, A]) == "abc a"
    assert SubwordPrefix("##", spaced=False).decode(vocab, [512, 256 + C, A]) == "abca"
    both = Vocabulary(BaseUnits(subword_prefix="##", end_of_word="</w>"))
    then = EndOfWord("</w>", spaced=True)
    assert SubwordPrefix("##", spaced=True, then=then).decode(both, [A, 3 * 256 + B, C]) == "ab c"


def test_a_vocabularys_marks_choose_its_decoder():
    assert isinstance(decoder_for(Vocabulary(BaseUnits()), False), ByteLevel)
    assert isinstance(decoder_for(Vocabulary(BaseUnits(end_of_word="</w>")), True), EndOfWord)
    assert isinstance(decoder_for(Vocabulary(BaseUnits(subword_prefix="##", end_of_word="</w>")), True), SubwordPrefix)
    fallback = BaseUnits("chars", ["\ufffd", *BYTE_CHARS], byte_fallback=True)
    assert isinstance(decoder_for(Vocabulary(fallback), False), ByteFallback)


# -- the composition --------------------------------------------------------------------------


def test_named_constructors_compose_the_parts_people_use():
    merges = Tokenizer([(A, B)])
    assert isinstance(merges.model, MergeRules) and not merges.whole_first and isinstance(merges.decoder, ByteLevel)
    ranks = Tokenizer.from_ranks([(A, B)], whole_pieces=[b"bc"], whole_ranks=[0])
    assert isinstance(ranks.model, RankMerging) and ranks.whole_ranks == [0] and ranks.encode("abc") == [A, 257]
    spm = Tokenizer.from_sentencepiece([(1, 2)], alphabet=["\ufffd", "a", "b"], text_ranks=[0])
    assert isinstance(spm.model, ScoreMerging) and spm.text_ranks == [0] and spm.encode("ab") == [3]
    clip = Tokenizer([(A, 256 + B)], end_of_word="</w>", pretokenizer=PreTokenizer("custom", r"\w+"))
    assert clip.encode("ab ab") == [512, 512] and clip.decode([512, 512]) == "ab ab"


def test_compose_takes_any_model_and_decoder():
    vocab = Vocabulary(BaseUnits(), [(A, B)])
    tok = Tokenizer.compose(WholeFirst(vocab), decoder=EndOfWord("b", spaced=False), pretokenizer=PreTokenizer("gpt2"))
    assert tok.vocab is vocab and tok.encode("ab ab") == [256, 32, 256]
    assert tok.decode([256, 32, 256]) == "a a"  # (a made-up decoder: "b" as a suffix)


def test_a_tokenizer_cut_is_the_tokenizer_of_its_first_merges():
    tok = Tokenizer.from_ranks([(A, B), (256, C)], whole_pieces=[b"bc"], whole_ranks=[1], specials=["<s>"])
    for steps, whole in ((0, []), (1, [b"bc"]), (2, [b"bc"])):
        cut = tok.cut(steps)
        assert cut.merges == tok.merges[:steps] and cut.whole_pieces == whole and cut.specials == {"<s>": 256 + steps + len(whole)}
        fresh = Tokenizer.from_ranks(tok.merges[:steps], whole_pieces=whole, whole_ranks=[1] * len(whole), specials=["<s>"])
        for text in ("abc", "abcabc<s>bc", "cab"):
            assert cut.encode(text) == fresh.encode(text), (steps, text)


def test_combinations_that_cannot_exist_cannot_be_built():
    with pytest.raises(TypeError):
        Tokenizer.from_ranks(end_of_word="</w>")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Tokenizer(whole_first=True)  # type: ignore[call-arg]
    with pytest.raises(ConfigError, match="whole-piece lookup"):
        WholeFirst(Vocabulary(BaseUnits(subword_prefix="##")))
    with pytest.raises(ConfigError, match="chars base"):
        ScoreMerging(Vocabulary(BaseUnits()), [])
    with pytest.raises(ConfigError, match="byte fallback"):
        BaseUnits(byte_fallback=True)
    with pytest.raises(ConfigError, match="do not go together"):
        BaseUnits("chars", ["\ufffd", *BYTE_CHARS], end_of_word="</w>", byte_fallback=True)
