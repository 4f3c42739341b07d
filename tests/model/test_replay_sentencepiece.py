"""A SentencePiece model replayed in the app's model: at the end, the tokenize pane's tokenizer
(Workbench.tokenizer) gives sentencepiece's ids (Mistral 7B v0.1's .model, fetched by
tests/fetch_tokenizers.py)."""

from __future__ import annotations

import pytest
from fetch_tokenizers import needed

TEXTS = ["The baker opens the bakery at six.", "Grüße aus München!", "分词器不认识汉字", "emoji 😀👍🏽 𓀀", "  two  spaces\n\tx"]


def test_a_finished_replay_tokenizes_as_the_model():
    """The app's tokenize pane (Workbench.tokenizer) at the end of a replay gives sentencepiece's ids."""
    from engine.config import TrainConfig
    from engine.corpus.reading import decode_corpus
    from tui.model.workbench import LoadedCorpus, Workbench

    spm = pytest.importorskip("sentencepiece")
    from engine.formats import load_any

    path = needed("mistral-v1.model")
    imported, sp = load_any(path), spm.SentencePieceProcessor(model_file=str(path))
    corpus = LoadedCorpus.from_corpus(decode_corpus(b"the cat sat on the mat\n", base="chars", name="c"), "chars", None)
    bench = Workbench(corpus, TrainConfig(base="chars"), script=imported.tokenizer, file_ids=imported.file_ids)
    bench.trainer.goto(len(imported.tokenizer.merges))
    tok = bench.tokenizer()
    for text in TEXTS:
        assert bench.shown_encoded(tok.encode(text), tok) == sp.encode(text), text
