"""Where a corpus is cut into pieces: just after a newline followed by any character but
whitespace, beyond ASCII too (a line of Chinese), with the whole character after the cut as the
piece's lookahead. Counting in pieces gives the whole text's counts, whatever bytes stand after a
newline, and a block of newlines before characters that may not be cut before is searched once."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.corpus import count_blocks
from engine.corpus.reading import _last_cut, count_corpus, first_cut
from engine.text.pretokenize import PreTokenizer

from test_corpus import counts_as_whole

#: What may follow a newline: letters, punctuation and symbols that may be cut before, and
#: what may not (whitespace beyond ASCII, a combining mark, a format character, controls), and
#: broken UTF-8 (cut short, overlong, a surrogate, past U+10FFFF).
AFTER = [b"\n", b" ", b"a", b"Z", b"'s", b"1", "中文".encode(), "，".encode(), "「".encode(), "é".encode(),
         "😀".encode(), "©".encode(), "١".encode(), "\u3000".encode(), "\xa0".encode(), "\u2028".encode(),
         "\x85".encode(), "\u0301".encode(), "\u200b".encode(), "\u180e".encode(), b"\x1c", b"\t",
         b"\xe4\xb8", b"\xe0\x80\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xff", b"\r\n"]
#: Lines: a newline, what stands after it, then more text.
PIECES = st.lists(st.tuples(st.sampled_from(AFTER), st.sampled_from(AFTER)).map(lambda p: b"\n" + p[0] + p[1]),
                  max_size=25)


@settings(max_examples=150)
@given(PIECES, st.sampled_from(["simple", "gpt2", "gpt4"]), st.booleans(), st.integers(1, 24))
def test_counting_in_pieces_equals_the_whole_text_after_any_newline(tmp_path_factory, pieces, name, split, block):
    data = b"".join(pieces)
    if not data:
        return
    path = tmp_path_factory.mktemp("c") / "corpus.txt"
    path.write_bytes(data)
    counts_as_whole(path, PreTokenizer(name, split_digits=split), block)


def test_a_line_of_chinese_may_be_cut_before_and_whitespace_may_not():
    text = "床前明月光\n疑是地上霜\n".encode()
    assert first_cut(text) == len("床前明月光\n".encode())
    assert _last_cut(text) == (len("床前明月光\n".encode()), 3)  # the character after it, whole
    assert first_cut(text, ascii_only=True) is None
    for after in ("\u3000", "\xa0", "\u2028", "\x85", "\u1680", "\u200a", "\u202f", "\u205f"):  # whitespace
        assert first_cut(f"a\n{after}b".encode()) is None, repr(after)
    for after in ("\u0301", "\u200b", "\u180e", "\ue000", "\U0001f600"):  # a mark, format, private use, emoji
        assert first_cut(f"a\n{after}b".encode()) == 2, repr(after)
    for broken in (b"\xe0\x80\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xc0\xaf", b"\x80"):
        assert first_cut(b"a\n" + broken) is None, broken  # overlong, a surrogate, past U+10FFFF, stray
    assert first_cut("a\n中".encode()[:-1]) is None  # its character is not all there
    assert _last_cut("x\n中\ny\n\u3000".encode()) == (len("x\n中\n".encode()), 1)


def test_a_chinese_file_is_planned_as_several_tasks(tmp_path):
    lines = [f"第{i}行诗句，春眠不觉晓。" for i in range(4000)]
    path = tmp_path / "poems.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    pre = PreTokenizer("gpt2")
    plan = count_blocks.plan([str(path)], pre, step=16 << 10)
    assert len(plan.tasks) > 4
    counts = count_blocks.run_local(plan, pre, "bytes", processes=1).chunks
    expected = pre.count(path.read_text(encoding="utf-8"))
    assert counts == expected and list(counts) == list(expected)


def test_newlines_before_whitespace_are_searched_once(tmp_path, monkeypatch):
    """64 MB of newlines each before an ideographic space has no cut: it is refused after its
    bound like any piece with none, in linear time (the search is one regex match a block)."""
    import engine.corpus.reading as reading

    calls = []
    real = reading._LAST_CUT
    monkeypatch.setattr(reading, "_LAST_CUT", type("Counting", (), {
        "match": lambda self, *a: calls.append(1) or real.match(*a)})())
    path = tmp_path / "spaces.txt"
    path.write_bytes("\n\u3000".encode() * (1 << 18))  # 1 MB, no cut anywhere
    counted = count_corpus(path, PreTokenizer("gpt2"), block=1 << 16)
    assert counted.chunks == PreTokenizer("gpt2").count(path.read_text(encoding="utf-8"))
    assert len(calls) <= (1 << 20) // (1 << 16) + 2  # one search a block read
