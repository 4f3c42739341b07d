"""Reading corpora: whole, or block by block (the CLI never holds a large text whole)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import TrainConfig, Trainer
from engine.corpus import count_corpus, read_corpus
from engine.pretokenize import PreTokenizer

from conftest import sample_text

PIECES = st.lists(
    st.sampled_from(["\n", "\n\n", " ", "  ", "\t", "\r\n", "a", "ab", "Zeile", "'s", "'ll", "12", "1000",
                     "中文", "，", "!", "?!", " x", "\u3000", "\xa0", "😀", "é"]),
    max_size=60,
)


@given(PIECES, st.binary(max_size=3), st.sampled_from(["simple", "gpt2", "gpt4"]), st.booleans(), st.booleans(),
       st.integers(1, 40))
def test_counting_block_by_block_equals_reading_whole(tmp_path_factory, pieces, junk, name, split, per_line, block):
    path = tmp_path_factory.mktemp("c") / "corpus.txt"
    data = "".join(pieces).encode("utf-8") + junk
    if not data:
        return
    path.write_bytes(data)
    pre = PreTokenizer(name, split_digits=split, split_newlines=split, per_line=per_line)
    for base in ("bytes", "chars"):
        whole = read_corpus(path, base=base)
        counted = count_corpus(path, pre, base=base, block=block)
        expected = pre.count(whole.text)
        assert counted.chunks == expected and list(counted.chunks) == list(expected)
        assert (counted.size, counted.invalid_bytes) == (whole.size, whole.invalid_bytes)


def test_training_from_counted_chunks_is_the_same(tmp_path):
    path = tmp_path / "w.txt"
    path.write_text(sample_text("workshop.txt"), encoding="utf-8")
    for base in ("bytes", "chars"):
        config = TrainConfig(base=base, merges=200, tie_break="first-seen")
        pre = Trainer(sample_text("workshop.txt"), config)
        counted = count_corpus(path, pre.pretokenizer, base=base, block=100)
        streamed = Trainer("", config, chunks=counted.chunks)
        assert [e.pair for e in streamed.train()] == [e.pair for e in pre.train()]
        assert streamed.alphabet == pre.alphabet
        with pytest.raises(ValueError, match="counted chunks"):
            streamed.layout()


def test_whole_text_pretokenizers_are_not_streamed(tmp_path):
    path = tmp_path / "c.txt"
    path.write_text("abc", encoding="utf-8")
    with pytest.raises(ValueError, match="whole text"):
        count_corpus(path, PreTokenizer("none"))


@pytest.mark.parametrize("name", ["gpt2", "gpt4", "simple"])
def test_counting_in_two_processes_is_exact(tmp_path, monkeypatch, name):
    import engine.corpus as corpus

    monkeypatch.setattr(corpus, "PARALLEL_MIN", 1000)
    text = (sample_text("workshop.txt") + "\n") * 20 + "  \n\nend  "
    path = tmp_path / "c.txt"
    path.write_bytes(text.encode("utf-8") + b"\xff")
    pre = PreTokenizer(name, split_digits=True)
    expected = pre.count(read_corpus(path).text)
    counted = count_corpus(path, pre, processes=2, block=500)
    assert counted.chunks == expected and list(counted.chunks) == list(expected)
    assert counted.invalid_bytes == 1 and counted.size == len(text.encode()) + 1
