"""subword-nmt's codes file (engine/formats/subword_nmt.py): a codes file learn_bpe writes is read
and segments words as apply_bpe does; a </w> tokenizer exported to it is read by apply_bpe with
the same pieces."""

from __future__ import annotations

import io

import pytest
from extras import skip_without
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import TrainConfig, Trainer
from engine.formats import detect_format, export_tokenizer, load_any

skip_without("compare")
learn_bpe = pytest.importorskip("subword_nmt.learn_bpe")
apply_bpe = pytest.importorskip("subword_nmt.apply_bpe")

words = st.dictionaries(st.text("abcdeéß", min_size=2, max_size=7), st.integers(2, 9), min_size=1, max_size=12)
texts = st.lists(st.text("abcdeéß", min_size=1, max_size=9), min_size=1, max_size=4)


def _pieces(imported, text: str) -> list[str]:
    tok = imported.tokenizer
    return [tok.token_bytes(i).decode() for i in tok.encode(text)]


def _apply(codes: str, text: str) -> list[str]:
    """apply_bpe's pieces, its @@ turned back into where words end (</w>)."""
    out = apply_bpe.BPE(io.StringIO(codes)).process_line(text)
    return [p[:-2] if p.endswith("@@") else p + "</w>" for p in out.split(" ")]


@pytest.fixture(autouse=True)
def _quiet(monkeypatch):
    monkeypatch.setattr("sys.stderr", io.StringIO())  # learn_bpe's progress and notes


@settings(max_examples=40, deadline=None)
@given(words, st.integers(1, 30), texts)
def test_learn_bpes_codes_segment_as_apply_bpe(tmp_path_factory, counts, merges, sample):
    codes = io.StringIO()
    learn_bpe.learn_bpe(io.StringIO("".join(f"{w} {n}\n" for w, n in counts.items())), codes, merges, is_dict=True)
    if codes.getvalue().count("\n") < 2:
        return  # no merge learned: apply_bpe refuses a codes file without one
    path = tmp_path_factory.mktemp("codes") / "codes.txt"
    path.write_text(codes.getvalue(), encoding="utf-8")
    assert detect_format(path) == "subword-nmt"
    imported = load_any(path)
    known = set(imported.tokenizer.alphabet) - {"\ufffd"}  # the characters the merges name (others: id 0)
    for text in sample:
        text = "".join(c for c in text if c in known)
        if not text:
            continue
        assert _pieces(imported, text) == _apply(codes.getvalue(), text)
    line = " ".join(sample)
    if set(line) <= known | {" "} and line.strip():
        assert _pieces(imported, line) == _apply(codes.getvalue(), line)


@settings(max_examples=30, deadline=None)
@given(words, st.integers(1, 30), texts)
def test_an_exported_tokenizer_segments_the_same_in_apply_bpe(tmp_path_factory, counts, merges, sample):
    corpus = " ".join(w for w, n in counts.items() for _ in range(n))
    trainer = Trainer(corpus, TrainConfig(base="chars", pretokenizer="custom", pattern=r"\S+", tie_rule="subword-nmt",
                                          max_merges=merges, end_of_word="</w>"))
    if not list(trainer.run()):
        return
    tok = trainer.tokenizer()
    path = tmp_path_factory.mktemp("codes") / "codes.txt"
    assert export_tokenizer(tok, "subword-nmt", path) == []
    codes = path.read_text(encoding="utf-8")
    again = load_any(path)
    named = set(again.tokenizer.alphabet)  # a character no merge names is id 0 in the codes' tokenizer
    for text in sample:
        text = "".join(c for c in text if c in named - {"\ufffd"})
        if not text:
            continue
        ours = [tok.token_bytes(i).decode() for i in tok.encode(text)]
        assert ours == _apply(codes, text) == _pieces(again, text)


def test_what_codes_cannot_hold_is_refused_in_one_line(tmp_path):
    cases = [
        (TrainConfig(base="chars", max_merges=3), "--end-of-word '</w>'"),
        (TrainConfig(base="bytes", pretokenizer="custom", pattern=r"\S+", max_merges=3, end_of_word="</w>"), "--base chars"),
        (TrainConfig(base="chars", max_merges=8, end_of_word="</w>"), "holds whitespace"),
    ]
    for config, hint in cases:
        trainer = Trainer("low lower lowest low lower lowest", config)
        list(trainer.run())
        with pytest.raises(ValueError) as caught:
            export_tokenizer(trainer.tokenizer(), "subword-nmt", tmp_path / "codes.txt")
        assert hint in str(caught.value) and "\n" not in str(caught.value)
        assert not (tmp_path / "codes.txt").exists()


def test_a_merges_txt_beside_its_vocab_is_still_gpt2s(tmp_path):
    (tmp_path / "merges.txt").write_text("#version: 0.2\ns t</w>\n", encoding="utf-8")
    assert detect_format(tmp_path / "merges.txt") == "subword-nmt"
    (tmp_path / "vocab.json").write_text("{}", encoding="utf-8")
    assert detect_format(tmp_path / "merges.txt") == "gpt2"


@pytest.mark.parametrize("text, why", [
    ("#version: 0.1\na b\n", "version 0.2"),
    ("#version: 0.2\na b c</w>\n", "line 2"),
    ("#version: 0.2\nab c</w>\n", "neither one character"),
])
def test_malformed_codes_are_one_line(tmp_path, text, why):
    path = tmp_path / "codes.txt"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=why) as caught:
        load_any(path, fmt="subword-nmt")
    assert "\n" not in str(caught.value)
