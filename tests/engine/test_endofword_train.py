"""Training and encoding with an end-of-word suffix (``--end-of-word '</w>'``), differentially:
the merges against subword-nmt's ``learn_bpe`` on the same word counts and against a naive
trainer written here from Sennrich et al. (2016), the segmentation against ``apply_bpe``, and the
exported tokenizer.json against ``tokenizers``."""

from __future__ import annotations

import io
import json
from collections import Counter

import pytest
from extras import skip_without
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import ConfigError, Tokenizer, TrainConfig, Trainer
from engine.encode.models import WholeFirst
from engine.encode.vocabulary import BaseUnits, Vocabulary
from engine.formats import export_tokenizer, load_any

SUFFIX = "</w>"

#: Words over a few letters (so pairs repeat and ties are common), some non-ASCII.
words = st.dictionaries(st.text("abcdeéß", min_size=1, max_size=7), st.integers(1, 9), min_size=1, max_size=12)


def naive_merges(counts: dict[str, int], merges: int, min_frequency: int = 2) -> list[tuple[str, str]]:
    """Sennrich et al.'s loop, as plainly as it goes: every word a tuple of symbols, its last one
    ending in the suffix; count every adjacent pair; merge the most frequent (ties: the largest
    pair of texts, as learn_bpe's ``max(stats, key=lambda x: (stats[x], x))``), left to right."""
    vocab = {tuple(w[:-1]) + (w[-1] + SUFFIX,): n for w, n in counts.items()}
    out = []
    for _ in range(merges):
        pairs: Counter[tuple[str, str]] = Counter()
        for word, n in vocab.items():
            for pair in zip(word, word[1:]):
                pairs[pair] += n
        if not pairs:
            break
        best = max(pairs, key=lambda p: (pairs[p], p))
        if pairs[best] < min_frequency:
            break
        out.append(best)
        merged = {}
        for word, n in vocab.items():
            new, i = [], 0
            while i < len(word):
                if i + 1 < len(word) and (word[i], word[i + 1]) == best:
                    new.append(word[i] + word[i + 1])
                    i += 2
                else:
                    new.append(word[i])
                    i += 1
            merged[tuple(new)] = merged.get(tuple(new), 0) + n
        vocab = merged
    return out


def ours(counts: dict[str, int], merges: int, base: str = "chars", min_frequency: int = 2) -> list[tuple[str, str]]:
    config = TrainConfig(base=base, pretokenizer="none", tie_rule="subword-nmt", max_merges=merges,
                         min_frequency=min_frequency, end_of_word=SUFFIX)
    trainer = Trainer.from_counts([(w.encode(), n) for w, n in counts.items()], config)
    return [(trainer.token_text(m.pair[0]), trainer.token_text(m.pair[1])) for m in trainer.run()]


def learn_bpe(counts: dict[str, int], merges: int, min_frequency: int = 2) -> list[tuple[str, str]]:
    skip_without("compare")
    from subword_nmt import learn_bpe as learn

    if not any(len(w) > 1 for w in counts):
        return []  # learn_bpe takes the largest count of no pairs (a ValueError)
    out = io.StringIO()
    learn.learn_bpe(io.StringIO("".join(f"{w} {n}\n" for w, n in counts.items())), out, merges,
                    min_frequency=min_frequency, is_dict=True)
    return [tuple(line.split(" ")) for line in out.getvalue().splitlines()[1:]]  # type: ignore[misc]


@pytest.fixture(autouse=True)
def _quiet_learn_bpe(monkeypatch):
    """learn_bpe writes a progress bar (tqdm, when present) and notes to stderr."""
    monkeypatch.setattr("sys.stderr", io.StringIO())


def test_textbook_example_learns_the_papers_merges():
    # Sennrich et al. (2016), figure 1's words: low 5, lower 2, newest 6, widest 3. The figure
    # spells the end of a word as a symbol of its own (e s, es t, est </w>); learn_bpe (and
    # CLIP) fuse it to the last character, so s + t</w> ties e + s at 9 and wins as the larger text,
    # and "low" ends in w</w>, so lo + w (lower only) loses to w + est</w>.
    counts = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
    assert ours(counts, 4) == [("s", "t</w>"), ("e", "st</w>"), ("l", "o"), ("w", "est</w>")]
    assert ours(counts, 4) == learn_bpe(counts, 4)


@settings(max_examples=60, deadline=None)
@given(words, st.integers(0, 40), st.integers(1, 3))
def test_merges_are_learn_bpes_on_the_same_word_counts(counts, merges, min_frequency):
    assert ours(counts, merges, min_frequency=min_frequency) == learn_bpe(counts, merges, min_frequency)


@settings(max_examples=60, deadline=None)
@given(words, st.integers(0, 40))
def test_merges_are_the_naive_trainers(counts, merges):
    assert ours(counts, merges) == naive_merges(counts, merges)


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(st.text("abc", min_size=1, max_size=6), st.integers(1, 9), min_size=1, max_size=10), st.integers(0, 30))
def test_bytes_base_learns_the_same_merges_on_ascii(counts, merges):
    assert ours(counts, merges, base="bytes") == naive_merges(counts, merges)


def apply_codes(word: str, merges: list[tuple[str, str]]) -> list[str]:
    """A word's pieces under ``merges``, applied by rank as in subword-nmt's ``encode``."""
    ranks = {pair: k for k, pair in enumerate(merges)}
    parts = list(word[:-1]) + [word[-1] + SUFFIX]
    while len(parts) > 1:
        pairs = [(ranks.get(p, len(ranks)), i) for i, p in enumerate(zip(parts, parts[1:]))]
        rank, i = min(pairs)
        if rank == len(ranks):
            break
        pair = merges[rank]
        out, j = [], 0
        while j < len(parts):
            if j + 1 < len(parts) and (parts[j], parts[j + 1]) == pair:
                out.append(parts[j] + parts[j + 1])
                j += 2
            else:
                out.append(parts[j])
                j += 1
        parts = out
    return parts


@settings(max_examples=40, deadline=None)
@given(words, st.integers(1, 30), st.lists(st.text("abcdeéß", min_size=1, max_size=9), min_size=1, max_size=5))
def test_encoding_segments_words_as_subword_nmt(counts, merges, texts):
    skip_without("compare")
    from subword_nmt import apply_bpe as apply

    config = TrainConfig(base="chars", pretokenizer="custom", pattern=r"\S+", tie_rule="subword-nmt",
                         max_merges=merges, end_of_word=SUFFIX)
    trainer = Trainer(" ".join(w for w, n in counts.items() for _ in range(n)), config)
    learned = [(trainer.token_text(m.pair[0]), trainer.token_text(m.pair[1])) for m in trainer.run()]
    tok = trainer.tokenizer()
    codes = io.StringIO("#version: 0.2\n" + "".join(f"{a} {b}\n" for a, b in learned))
    bpe = apply.BPE(codes) if learned else None  # apply_bpe refuses a codes file without merges
    seen = set("".join(counts))
    for word in texts:
        word = "".join(c for c in word if c in seen) or next(iter(counts))  # the chars base knows these
        pieces = [tok.token_bytes(i).decode("utf-8", "surrogateescape") for i in tok.encode(word)]
        assert pieces == apply_codes(word, learned)
        # apply_bpe writes the same pieces with @@ after every one that does not end the word
        marked = [p[: -len(SUFFIX)] if p.endswith(SUFFIX) else p + "@@" for p in pieces]
        if bpe is not None:
            assert bpe.process_line(word) == " ".join(marked)
        assert tok.decode(tok.encode(word)) == word


def test_a_corpus_trains_as_its_word_counts():
    text = "low low low low low lower lower newest newest newest newest newest newest widest widest widest"
    config = TrainConfig(base="chars", pretokenizer="custom", pattern=r"\S+", tie_rule="subword-nmt", max_merges=10,
                         end_of_word=SUFFIX)
    trainer = Trainer(text, config)
    learned = [(trainer.token_text(m.pair[0]), trainer.token_text(m.pair[1])) for m in trainer.run()]
    assert learned == learn_bpe(Counter(text.split()), 10)
    tok = trainer.tokenizer()
    assert tok.base_size == 2 * len(trainer.alphabet)  # each character plain, then ending a word
    assert tok.token_bytes(tok.encode("low")[-1]).endswith(b"</w>")


@pytest.mark.parametrize("base", ["bytes", "chars"])
@pytest.mark.parametrize("pattern", [None, r"\S+"])
def test_hf_export_gives_tokenizers_the_same_ids(tmp_path, base, pattern):
    tokenizers = pytest.importorskip("tokenizers")
    text = "The cat sat on the mat, twice! Über 123 北京 🙂 the cat's hat\n\n  and   the  end"
    config = TrainConfig(base=base, pretokenizer="custom" if pattern else "gpt2", pattern=pattern, max_merges=60,
                         end_of_word=SUFFIX)
    trainer = Trainer(text * 3, config)
    assert len(list(trainer.run())) > 20  # until no pair occurs twice
    tok = trainer.tokenizer()
    path = tmp_path / "tokenizer.json"
    assert export_tokenizer(tok, "hf", path) == []
    assert json.loads(path.read_text())["model"]["end_of_word_suffix"] == SUFFIX
    theirs = tokenizers.Tokenizer.from_file(str(path))
    for sample in (text, "cats and hats", "ünknown wörds 😀"):
        if base == "chars" and not set(sample) <= set(text):
            continue  # a character outside the alphabet: tokenizers gives the unknown token unmarked
        assert theirs.encode(sample).ids == tok.encode(sample)
        assert theirs.decode(tok.encode(sample)).rstrip(" ") == tok.decode(tok.encode(sample)).rstrip(" ")
    back = load_any(path)
    assert back.tokenizer.end_of_word == SUFFIX
    assert back.encode(text) == tok.encode(text)
    native = tmp_path / "tok.native.json"
    export_tokenizer(tok, "native", native)
    assert Tokenizer.load(native).encode(text) == tok.encode(text)
    assert Tokenizer.load(native).end_of_word == SUFFIX


@pytest.mark.parametrize("fmt", ["gpt2", "tiktoken", "seed001"])
def test_formats_without_word_ends_refuse_in_one_line(tmp_path, fmt):
    trainer = Trainer("low lower lowest", TrainConfig(max_merges=3, end_of_word=SUFFIX))
    list(trainer.run())
    with pytest.raises(ValueError) as caught:
        export_tokenizer(trainer.tokenizer(), fmt, tmp_path / "out")
    message = str(caught.value)
    assert "\n" not in message and "'</w>'" in message and "hf, native or subword-nmt" in message
    assert not any(tmp_path.iterdir())


def test_decoding_drops_the_suffix_or_makes_it_a_space():
    # a named pre-tokenizer keeps every character in the chunks: the suffix only marks
    whole = Trainer("hello world, hello", TrainConfig(max_merges=5, end_of_word=SUFFIX)).tokenizer()
    assert whole.decode(whole.encode("hello world, hello")) == "hello world, hello"
    # a pattern that drops the spaces (CLIP's, subword-nmt's words): the suffix is the space
    words_only = Trainer("hello world", TrainConfig(pretokenizer="custom", pattern=r"\S+", end_of_word=SUFFIX)).tokenizer()
    assert words_only.decode(words_only.encode("hello   world\n")) == "hello world"


@pytest.mark.parametrize("suffix, why", [("", "empty"), ("a b", "space"), ("x" * 17, "longer"), ("\udcff", "UTF-8")])
def test_a_bad_suffix_is_one_line(suffix, why):
    with pytest.raises(ConfigError, match=why):
        TrainConfig(end_of_word=suffix)
    with pytest.raises(ConfigError, match=why):
        Tokenizer(end_of_word=suffix)


def test_suffix_and_whole_pieces_or_the_hf_rule_do_not_mix():
    with pytest.raises(ConfigError, match="hf tie rule"):
        TrainConfig(tie_rule="hf", end_of_word=SUFFIX)
    with pytest.raises(ConfigError, match="whole-piece"):
        WholeFirst(Vocabulary(BaseUnits(end_of_word=SUFFIX)))


def test_candidates_follow_the_rule_the_step_takes():
    trainer = Trainer.from_counts([(b"ab", 2), (b"cd", 2), (b"ef", 2), (b"zy", 2)],
                                  TrainConfig(base="chars", pretokenizer="none", tie_rule="subword-nmt", end_of_word=SUFFIX))
    first = trainer.candidates(2)
    step = trainer.step()
    assert step is not None and first[0].pair == step.pair
    assert trainer.token_text(step.pair[0]) == "z"  # the largest text of four tied pairs
    assert [trainer.token_text(a) for a, _ in step.ties] == ["z", "e", "c", "a"]


@settings(max_examples=40, deadline=None)
@given(words, st.integers(0, 12), st.integers(0, 12), st.data())
def test_undo_and_a_manual_merge_leave_the_rule_as_a_fresh_run(counts, ahead, back, data):
    """The subword-nmt rule keeps the last tie set between steps: going back (undo) and making
    a different merge under an id the undone line used must not reuse it wrongly."""
    config = TrainConfig(base="chars", pretokenizer="none", tie_rule="subword-nmt", min_frequency=1, end_of_word=SUFFIX)
    table = [(w.encode(), n) for w, n in counts.items()]
    walked = Trainer.from_counts(table, config)
    for _ in range(ahead):
        walked.step()
    for _ in range(min(back, walked.steps)):
        walked.undo()
    here = walked.steps
    fresh = Trainer.from_counts(table, config)
    for _ in range(here):
        fresh.step()
    assert [m.pair for m in fresh.history] == [m.pair for m in walked.history]
    pairs = sorted(fresh.pair_counts())
    if pairs:
        pick = data.draw(st.sampled_from(pairs))
        walked.force(pick)
        fresh.force(pick)
    assert [c.pair for c in walked.candidates(3)] == [c.pair for c in fresh.candidates(3)]
    assert [(m.pair, m.ties) for m in walked.run()] == [(m.pair, m.ties) for m in fresh.run()]
