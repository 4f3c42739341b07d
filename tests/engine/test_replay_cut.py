"""A replay's tokenizer at a step is cut from the replayed one (``engine.Tokenizer.cut``:
its merges, tokens and ranks, not built again at each step): it is the tokenizer
that the first merges alone make, field by field and id by id, whatever the base, marks and
specials; and a step of a real rank file's replay is checked against tiktoken in
tests/model/test_replay_as_file.py."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Tokenizer, TrainConfig, Trainer

ALPHABET = "ab cd,中国人大\n"
texts = st.text(alphabet=ALPHABET, min_size=1, max_size=60)
options = st.sampled_from([
    {},
    {"base": "chars"},
    {"pretokenizer": "none", "specials": ("<s>",)},
    {"subword_prefix": "##"},
    {"end_of_word": "</w>"},
    {"base": "chars", "subword_prefix": "##", "end_of_word": "</w>"},
])


@settings(deadline=None, max_examples=60)
@given(texts, texts, options, st.lists(st.integers(0, 60), min_size=1, max_size=4), st.lists(texts, max_size=3))
def test_a_replay_step_is_the_tokenizer_of_its_first_merges(trained_on, corpus, option, steps, typed):
    tok = _trained(trained_on, option)
    replay = Trainer.replaying(corpus, tok)
    for step in sorted({min(s, len(tok.merges)) for s in steps}):
        cut = replay.tokenizer_of(tok.merges[:step])
        fresh = Tokenizer(tok.merges[:step], base=tok.base, alphabet=tok.alphabet, specials=tok.specials,
                          pretokenizer=tok.pretokenizer, end_of_word=tok.end_of_word,
                          subword_prefix=replay.config.subword_prefix)
        assert cut.merges == fresh.merges
        assert cut.pieces == fresh.pieces
        assert list(cut.vocab.ranks.items()) == list(fresh.vocab.ranks.items())
        assert (cut.vocab.left_of, cut.vocab.right_of) == (fresh.vocab.left_of, fresh.vocab.right_of)
        for text in [corpus, *typed]:
            assert cut.encode(text) == fresh.encode(text), (step, text)


def _trained(text: str, option: dict) -> Tokenizer:
    trainer = Trainer(text, TrainConfig(max_merges=60, min_frequency=1, **option))
    trainer.train()
    return trainer.tokenizer()
