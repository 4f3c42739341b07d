"""A replay's tokenize pane encodes as the replayed file does, at every step: a tiktoken rank
file's whole-chunk lookup and its whole pieces (Llama 3's 695 tokens no merge makes) are kept,
and so is a tokenizer.json's normalizer. Checked against tiktoken on the rank file cut at the
replay's step, and against ``tokenizers`` on Anthropic's NFKC file."""

from __future__ import annotations

import pytest
from fetch_tokenizers import LLAMA3_PATTERN, needed
from fetch_tokenizers import load_cached as loaded

from engine import TrainConfig
from engine.text.pretokenize import O200K_PATTERN, PreTokenizer
from tui.model.workbench import LoadedCorpus, Workbench

tiktoken = pytest.importorskip("tiktoken")

TEXTS = [
    "Türkiye Büyükşehir Belediyesi Ayrıca açıklama yaptı. Erdoğan İstanbul'da konuştu.",
    "Việt Nam là một quốc gia. Václav Havel byl český dramatik.",
    "The baker opens the bakery at six. Grüße aus München! 分词器不认识汉字。",
]
CORPUS = "the cat sat on the mat. Belediyesi Ayrıca Việt Václav\n" * 3


def replay(imported, tmp_path) -> Workbench:
    corpus_file = tmp_path / "corpus.txt"
    corpus_file.write_text(CORPUS, encoding="utf-8")
    corpus = LoadedCorpus.open(corpus_file, imported.tokenizer.base)
    return Workbench(corpus, TrainConfig(), script=imported.tokenizer, file_ids=imported.file_ids)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "pattern"), [("llama3.tiktoken", LLAMA3_PATTERN), ("llama4.tiktoken", O200K_PATTERN)])
def test_a_llama_replay_encodes_as_tiktoken_on_the_ranks_it_reached(tmp_path, name, pattern):
    """Llama 3 merges by rank (whole pieces among its merges), Llama 4 by its merges; each step's
    tokenizer is cut from the file's, its rank order and borders too."""
    from tiktoken.load import load_tiktoken_bpe

    path = needed(name)
    imported = loaded(path, pretokenizer=PreTokenizer("custom", pattern))
    assert bool(imported.tokenizer.whole_pieces) == (name == "llama3.tiktoken"), "Llama 3 has tokens no merge makes"
    ranks = load_tiktoken_bpe(str(path))
    workbench = replay(imported, tmp_path)
    merges = len(imported.tokenizer.merges)
    base = len(imported.tokenizer.pieces) - merges
    whole_seen = 0
    for step in (3000, 60000, merges):
        workbench.goto(step)
        assert workbench.trainer.steps == step
        # a step has reached every rank below the next merge's (its token's rank in the file)
        below = imported.to_file_ids([base + step])[0] if step < merges else max(ranks.values()) + 1
        cut = {token: rank for token, rank in ranks.items() if rank < below}
        enc = tiktoken.Encoding(name=f"{name}-{step}", pat_str=pattern, mergeable_ranks=cut, special_tokens={})
        tok = workbench.tokenizer()
        whole_seen = max(whole_seen, len(tok.whole_pieces))
        for text in TEXTS:
            assert workbench.shown_encoded(tok.encode(text), tok) == enc.encode_ordinary(text), (step, text)
    assert whole_seen == len(imported.tokenizer.whole_pieces)  # the finished replay has them all
    # at the end: the Turkish sentence in 10 tokens as tiktoken, not the 20 merges alone give
    sentence = "Türkiye Büyükşehir Belediyesi Ayrıca açıklama yaptı."
    assert len(workbench.tokenizer().encode(sentence)) == len(enc.encode_ordinary(sentence))


@pytest.mark.slow
def test_a_replay_of_a_normalizing_file_normalizes_what_is_typed(tmp_path):
    tokenizers = pytest.importorskip("tokenizers")
    path = needed("anthropic.json")
    imported = loaded(path)
    assert imported.tokenizer.normalizer is not None
    theirs = tokenizers.Tokenizer.from_file(str(path))
    workbench = replay(imported, tmp_path)
    workbench.goto(len(imported.tokenizer.merges))
    tok = workbench.tokenizer()
    for text in ("full-width，comma … no-break\u00a0space ﬁne 𝟙", "Grüße ﬁ 𝟙２３"):
        assert tok.normalize(text) != text
        assert workbench.shown_encoded(tok.encode(text), tok) == theirs.encode(text, add_special_tokens=False).ids, text
