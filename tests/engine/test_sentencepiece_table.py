"""A SentencePiece BPE model trained by sentencepiece itself, with its default normalization
table (nmt_nfkc: a ``precompiled_charsmap``). bpe-lab does not apply the table (a note says so)
and gives sentencepiece's ids on text the table leaves alone; the table stays in the normalizer's
spec, so an hf export carries it and ``tokenizers`` gives sentencepiece's ids on text it changes
(full-width letters, a ligature); and reading such a ``tokenizer.json`` back keeps the other steps
(it was refused, or its whole normalizer dropped, before)."""

from __future__ import annotations

import pytest

from engine.formats import export_tokenizer, load_any

PLAIN = "the cat sat on the mat, the hat is on the cat"
CHANGED = "Ｆｕｌｌ－ｗｉｄｔｈ ﬁne ① the  cat\non\tthe mat"  # the table maps these (NFKC, newline and tab to space)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    spm = pytest.importorskip("sentencepiece")
    folder = tmp_path_factory.mktemp("spm")
    corpus = folder / "corpus.txt"
    corpus.write_text((PLAIN + "\na fine full width line, the hat and the cat 123\n") * 40, encoding="utf-8")
    spm.SentencePieceTrainer.train(input=str(corpus), model_prefix=str(folder / "m"), vocab_size=340,
                                   model_type="bpe", byte_fallback=True, minloglevel=2)
    return folder / "m.model", spm.SentencePieceProcessor(model_file=str(folder / "m.model"))


def test_the_table_is_kept_not_applied_and_said(trained):
    path, sp = trained
    imported = load_any(path)
    spec = imported.tokenizer.normalizer.spec
    assert spec["normalizers"][0]["type"] == "Precompiled" and spec["normalizers"][0]["precompiled_charsmap"]
    assert imported.tokenizer.normalizer.skipped == ["Precompiled"]
    assert any("normalization table is not applied" in w for w in imported.warnings)
    for text in (PLAIN, "a fine line, 123 cats"):
        assert imported.encode(text) == sp.encode(text)
    assert sp.normalize(CHANGED) != imported.tokenizer.normalize(CHANGED)  # what the note warns of


def test_an_hf_export_carries_the_table_to_tokenizers(trained, tmp_path):
    tokenizers = pytest.importorskip("tokenizers")
    path, sp = trained
    imported = load_any(path)
    export_tokenizer(imported.tokenizer, "hf", tmp_path / "tokenizer.json", ids=imported.file_ids)
    theirs = tokenizers.Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    for text in (PLAIN, CHANGED):
        assert theirs.encode(text, add_special_tokens=False).ids == sp.encode(text), text
    again = load_any(tmp_path / "tokenizer.json")  # read back: loaded, the other steps applied
    assert any("Precompiled normalizer step" in w for w in again.warnings)
    assert again.encode(PLAIN) == sp.encode(PLAIN)
