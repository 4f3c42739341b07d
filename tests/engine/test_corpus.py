"""Reading corpora: whole, or block by block (the CLI never holds a large text whole)."""

from __future__ import annotations

import pytest
from helpers import sample_text
from hypothesis import given
from hypothesis import strategies as st

from engine import TrainConfig, Trainer
from engine.corpus.reading import count_corpus, read_corpus
from engine.text import pretokenizer_for
from engine.text.pretokenize import PreTokenizer

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
    counts_as_whole(path, PreTokenizer(name, split_digits=split, split_newlines=split, per_line=per_line), block)


def counts_as_whole(path, pre: PreTokenizer, block: int) -> None:
    """Counting ``path`` in blocks of ``block`` bytes gives the whole text's counts, in the same
    order, and the same size and invalid bytes, on both bases."""
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
        config = TrainConfig(base=base, max_merges=200, tie_rule="first-seen")
        pre = Trainer(sample_text("workshop.txt"), config)
        counted = count_corpus(path, pre.pretokenizer, base=base, block=100)
        streamed = Trainer("", config, chunks=counted.chunks)
        assert [e.pair for e in streamed.train()] == [e.pair for e in pre.train()]
        assert streamed.alphabet == pre.alphabet
        with pytest.raises(ValueError, match="counted chunks"):
            streamed.layout()


@pytest.mark.parametrize("options", [{}, {"end_of_word": "</w>"}, {"tie_rule": "hf"}])
def test_training_that_lets_the_chunks_go_is_the_same(tmp_path, options):
    """``keep_chunks=False`` (bpe-lab train) empties the table once laid out: the same merges,
    alphabet and corpus sizes as keeping it, on both bases; the corpus can no longer be shown."""
    path = tmp_path / "w.txt"
    path.write_bytes(sample_text("workshop.txt").encode("utf-8") + b"\xff\n")
    for base in ("bytes", "chars"):
        if base == "chars" and options.get("tie_rule") == "hf":
            continue
        config = TrainConfig(base=base, max_merges=200, **options)
        pre = pretokenizer_for(config)
        kept = Trainer("", config, chunks=count_corpus(path, pre, base=base).chunks)
        chunks = count_corpus(path, pre, base=base).chunks
        let_go = Trainer("", config, chunks=chunks, keep_chunks=False)
        assert not chunks and let_go.alphabet == kept.alphabet
        assert [(e.pair, e.tokens_after) for e in let_go.train()] == [(e.pair, e.tokens_after) for e in kept.train()]
        assert let_go.initial_tokens == kept.initial_tokens
        with pytest.raises(ValueError):
            let_go.listing()


def test_whole_text_pretokenizers_are_not_streamed(tmp_path):
    path = tmp_path / "c.txt"
    path.write_text("abc", encoding="utf-8")
    with pytest.raises(ValueError, match="whole text"):
        count_corpus(path, PreTokenizer("none"))


@pytest.mark.parametrize("name", ["gpt2", "gpt4", "simple"])
def test_counting_in_two_processes_is_exact(tmp_path, monkeypatch, name):
    import engine.corpus.reading as corpus

    monkeypatch.setattr(corpus, "PARALLEL_MIN", 1000)
    text = (sample_text("workshop.txt") + "\n") * 20 + "  \n\nend  "
    path = tmp_path / "c.txt"
    path.write_bytes(text.encode("utf-8") + b"\xff")
    pre = PreTokenizer(name, split_digits=True)
    expected = pre.count(read_corpus(path).text)
    counted = count_corpus(path, pre, processes=2, block=500)
    assert counted.chunks == expected and list(counted.chunks) == list(expected)
    assert counted.invalid_bytes == 1 and counted.size == len(text.encode()) + 1


# -- bad input (issue 7) ----------------------------------------------------------------------


def test_lines_without_a_cut_are_linear(tmp_path, monkeypatch):
    """Newlines that are never followed by a safe cut (whitespace alone) were searched again for
    every block: 4 MB took over a second, 50 MB minutes. Each byte is searched once now, and
    pre-tokenized once: counted in bytes searched, not in seconds (16 MB took 1.7 s, near the
    5 s this test allowed once, on a loaded core)."""
    import engine.corpus.reading as corpus_module

    searched, tokenized = [], []
    last_cut, count_raw = corpus_module._last_cut, PreTokenizer.count_raw

    def counting_cut(data, start=0):
        searched.append(len(data) - start)
        return last_cut(data, start)

    def counting_raw(self, text, *into):
        tokenized.append(len(text))
        return count_raw(self, text, *into)

    monkeypatch.setattr(corpus_module, "_last_cut", counting_cut)
    monkeypatch.setattr(PreTokenizer, "count_raw", counting_raw)
    path = tmp_path / "blank.txt"
    path.write_bytes(b"\n \n\t" * (4 << 20))  # 16 MB, no cut anywhere
    counted = count_corpus(path, PreTokenizer("gpt2"), block=1 << 20)
    assert len(searched) >= 16  # a search per block read ...
    # ... of the new bytes only (and the few before them that a cut may span)
    assert sum(searched) <= counted.size + corpus_module.CUT_BYTES * len(searched)
    assert sum(tokenized) <= counted.size + len(tokenized)  # each piece pre-tokenized once
    assert counted.size == 16 << 20 and counted.blank
    assert counted.note() == "blank.txt: holds only whitespace; trained on it as it is"


def test_notes_say_what_the_policy_did():
    from engine.corpus.reading import decode_corpus

    assert decode_corpus(b"plain text").note() is None
    assert decode_corpus(b"a\xffb", name="x").note() == "x: 1 bytes are not valid UTF-8; trained on the raw bytes"
    assert decode_corpus(b"a\xffb", name="x", base="chars").note("chars") == (
        "x: 1 bytes are not valid UTF-8; invalid bytes replaced by U+FFFD")
    assert decode_corpus(b"a\x00b", name="x").note() == "x: 1 bytes are NUL (is it a binary file?); trained on the raw bytes"
    assert decode_corpus(b"a\x00\xff", name="x", base="chars").note("chars") == (
        "x: 1 bytes are not valid UTF-8 and 1 bytes are NUL (is it a binary file?); "
        "invalid bytes replaced by U+FFFD, NUL kept as a character")
    assert decode_corpus(b" \r\n\t", name="x").note() == "x: holds only whitespace; trained on it as it is"


@pytest.mark.parametrize("reader", ["read", "count"])
def test_a_file_that_changes_while_read_is_refused(tmp_path, monkeypatch, reader):
    import engine.corpus.reading as corpus
    from engine.errors import CorpusError

    path = tmp_path / "c.txt"
    path.write_bytes(b"first line\nsecond line\n" * 100)
    if reader == "read":
        real_fstat = corpus.os.fstat

        def fstat(fd):  # the file grows between opening and reading it
            result = real_fstat(fd)
            with open(path, "ab") as handle:
                handle.write(b"more\n")
            return result

        monkeypatch.setattr(corpus.os, "fstat", fstat)
        read = lambda: read_corpus(path)  # noqa: E731
    else:
        real = corpus.PreTokenizer.count_raw

        def count_raw(self, text, *into):  # the file is rewritten after the first block
            with open(path, "wb") as handle:
                handle.write(b"something else entirely\n")
            return real(self, text, *into)

        monkeypatch.setattr(corpus.PreTokenizer, "count_raw", count_raw)
        read = lambda: count_corpus(path, PreTokenizer("gpt2"), block=64)  # noqa: E731
    with pytest.raises(CorpusError, match="changed while it was being read; try again once it is complete"):
        read()
