"""The seeds' worked examples, reproduced exactly (acceptance material)."""

from __future__ import annotations

import pytest
from helpers import sample_text, shared_corpus

from engine import Tokenizer, TrainConfig, Trainer
from engine.text import token_display

SEED000_SPECIALS = ("<pad>", "<bos>", "<eos>", "<user>", "<assistant>")


def test_seed000_die_katze():
    """Seed 000: 256 bytes + 9 merges + 5 specials = 270; "die katze" -> [259, 264, 101]."""
    config = TrainConfig(
        base="bytes", pretokenizer="simple", tie_rule="lowest-ids", vocab_size=270, specials=SEED000_SPECIALS
    )
    trainer = Trainer(sample_text("die-katze.txt"), config)
    events = trainer.train()
    tok = trainer.tokenizer()
    assert len(events) == 9
    assert tok.vocab_size == 270
    ids = tok.encode("die katze")
    assert ids == [259, 264, 101]
    assert [tok.decode([i]) for i in ids] == ["die", " katz", "e"]
    assert tok.decode(ids) == "die katze"
    assert tok.specials == {name: 265 + i for i, name in enumerate(SEED000_SPECIALS)}


def test_seed000_272_makes_katze_one_token():
    """Seed 000: "Probier 272 statt 270: Dann wird auch ' katze' zu einem einzigen Token."""
    config = TrainConfig(pretokenizer="simple", vocab_size=272, specials=SEED000_SPECIALS)
    trainer = Trainer(sample_text("die-katze.txt"), config)
    trainer.train()
    tok = trainer.tokenizer()
    assert [tok.decode([i]) for i in tok.encode("die katze")] == ["die", " katze"]


def test_seed001_low_lower_lowest_trace():
    """Seed 001: merges lo, low, ' low', ' lowe'; token counts 16 -> 13 -> 10 -> 8 -> 6."""
    config = TrainConfig(base="chars", pretokenizer="none", tie_rule="first-seen", max_merges=4)
    trainer = Trainer(sample_text("low-lower-lowest.txt"), config)
    assert trainer.corpus_tokens == 16
    events = trainer.train()
    assert [trainer.token_text(e.new_id) for e in events] == ["lo", "low", " low", " lowe"]
    assert [e.tokens_after for e in events] == [13, 10, 8, 6]
    # The seed prints each merge as 'left' + 'right'.
    assert [(trainer.token_text(e.pair[0]), trainer.token_text(e.pair[1])) for e in events] == [
        ("l", "o"), ("lo", "w"), (" ", "low"), (" low", "e"),
    ]
    # Ids as seed 001 assigns them: 0 is U+FFFD, then the sorted distinct characters.
    assert trainer.alphabet == ["\ufffd", " ", "e", "l", "o", "r", "s", "t", "w"]
    assert [e.new_id for e in events] == [9, 10, 11, 12]


def test_seed001_unknown_characters_map_to_zero():
    trainer = Trainer("cat hat", TrainConfig(base="chars", pretokenizer="none", max_merges=2))
    trainer.train()
    tok = trainer.tokenizer()
    assert tok.encode("Cat")[0] == 0
    assert tok.encode("안녕😀") == [0, 0, 0]
    assert tok.decode(tok.encode("Cat")) == "\ufffdat"


def test_seed003_the_hat_trace():
    """Seed 003 §11: words split into characters (whitespace is not a token), three merges learn
    V = {t, h, e, c, a, i, n, th, at, the}; encoding "the hat" fires each rule in learned order
    and ends at the | h | at.

    The seed counts (t, h) three times ("in the, the, hat"), but "hat" holds no t-h: the pair
    ties at 2 with (h, e) and (a, t). With the first-seen rule the learned order is th, the, at;
    the seed's th, at, the needs its miscount. The vocabulary and the encoding are the seed's.
    """
    config = TrainConfig(base="chars", pretokenizer="custom", pattern=r"\w+", tie_rule="first-seen", max_merges=3)
    trainer = Trainer(sample_text("the-cat-in-the-hat.txt"), config)
    events = trainer.train()
    assert events[0].tie_total == 3  # (t,h), (h,e), (a,t) all occur twice
    tok = trainer.tokenizer()
    learned = [tok.decode([i]) for i in range(tok.base_size, len(tok.pieces))]
    assert learned == ["th", "the", "at"]
    alphabet = {c for c in tok.alphabet if c.strip() and c != "\ufffd"}
    assert alphabet | set(learned) == {"t", "h", "e", "c", "a", "i", "n", "th", "at", "the"}
    start, steps = tok.encode_trace("the hat")
    show = lambda ids: [tok.decode([i]) for i in ids]  # noqa: E731
    assert show(start) == ["t", "h", "e", "h", "a", "t"]
    assert [(s.rule, tok.decode([s.new_id]), s.places) for s in steps] == [(1, "th", 1), (2, "the", 1), (3, "at", 1)]
    assert [show(s.tokens) for s in steps] == [
        ["th", "e", "h", "a", "t"],
        ["the", "h", "a", "t"],
        ["the", "h", "at"],
    ]
    for step in steps:
        assert tok.merges[step.rule - 1] == step.pair
    assert list(steps[-1].tokens) == tok.encode("the hat")


def test_seed003_mueller_umlaut_is_two_bytes_then_one_token():
    """Seed 003 §13.4.1: (195, 188) ties at 3 and, merged, is the bytes of ü."""
    trainer = Trainer(sample_text("mueller.txt"), TrainConfig(pretokenizer="none", tie_rule="lowest-ids", max_merges=1))
    assert trainer.corpus_tokens == 23
    assert trainer.pair_count((195, 188)) == 3
    top = trainer.candidates(20)
    assert all(c.count == 3 for c in top if c.pair == (195, 188))
    base = Tokenizer()
    assert base.encode("Müller") == [77, 195, 188, 108, 108, 101, 114]
    event = trainer.step()
    assert event.count == 3 and event.tie_total > 1  # several pairs tie at 3, as the seed says


def test_wikipedia_example():
    """minbpe's test: aaabdaaabac -> 3 merges -> XdXac with Z=aa, Y=ab, X=ZY."""
    trainer = Trainer("aaabdaaabac", TrainConfig(pretokenizer="none", max_merges=3, tie_rule="first-seen"))
    trainer.train()
    tok = trainer.tokenizer()
    assert tok.encode("aaabdaaabac") == [258, 100, 258, 97, 99]
    assert tok.decode([258]) == "aaab"


@pytest.mark.slow  # tang_2000, 1500 merges
def test_seed002_tang_first_merges(tmp_path):
    """Seed 002 on 2000 Tang poems (bytes, whole text one sequence): the first merges build ，
    and 。 from their bytes, then half a character, then 。+newline; 1500 merges -> vocab 1756."""
    text = shared_corpus("tang_2000.txt").read_text(encoding="utf-8")
    config = TrainConfig(base="bytes", pretokenizer="none", tie_rule="first-seen", max_merges=1500)
    trainer = Trainer(text, config)
    events = trainer.train()
    shown = [token_display(e.token) for e in events[:6]]
    assert shown == ["[80 82]", "[ef bc]", "，", "。", "[e4 b8]", "。↵"]
    assert len(trainer.vocab) == 1756
    # [ef bc] only ever occurs inside "，", so merging 8c onto it has the same count (6394 = 6394
    # in the seed); and every poem ends with "。" and a newline.
    assert events[2].count == events[1].count
    assert events[5].count == text.count("。\n")
    tok = trainer.tokenizer()
    assert tok.decode(tok.encode(text)) == text
