"""Lesson files are read through the one bounded reader every file goes through
(engine.corpus.files.open_bounded, issue 21), with the lesson's own one-line refusals."""

from __future__ import annotations

import os

import engine.corpus
from tui.lessons.format import MAX_LESSON_BYTES, read_lesson_text

LESSON = '+++\ntitle = "t"\n+++\n## one\nsome prose\n'


def test_a_lesson_is_read_by_the_bounded_reader(tmp_path, monkeypatch):
    path = tmp_path / "l.md"
    path.write_text(LESSON.replace("\n", "\r\n"), encoding="utf-8")
    seen = []
    real = engine.corpus.open_bounded

    def spy(target, **options):
        seen.append((os.fspath(target), options["limit"], options["pipes"]))
        return real(target, **options)

    monkeypatch.setattr(engine.corpus, "open_bounded", spy)
    assert read_lesson_text(path, "l.md") == (LESSON, None)  # newlines as read_text gives them
    assert seen == [(str(path), MAX_LESSON_BYTES, False)]


def test_the_readers_refusals_in_the_lessons_words(tmp_path):
    fifo = tmp_path / "l.fifo"
    os.mkfifo(fifo)
    # refused as a pipe at once (not waited on for a writer, which would say "a named pipe with no writer")
    assert read_lesson_text(fifo, "l.fifo") == (None, "l.fifo: is a pipe, not a lesson file (save it to a file)")
    assert read_lesson_text(tmp_path / "gone.md", "gone.md") == (None, "gone.md: no such lesson file")
    assert read_lesson_text(tmp_path, "d") == (None, "d: is a directory, not a lesson file")
    assert read_lesson_text("/dev/zero", "/dev/zero") == (None, "/dev/zero: is a device, not a lesson file (save it to a file)")
    big = tmp_path / "big.md"
    big.write_bytes(b"x" * (MAX_LESSON_BYTES + 1))
    assert read_lesson_text(big, "big.md") == (None, "big.md: more than 1 MB, too large for a lesson file")
    bad = tmp_path / "bad.md"
    bad.write_bytes(b"+++\n\xff\n")
    assert read_lesson_text(bad, "bad.md") == (None, "bad.md:1: the lesson is not UTF-8 text")


def test_a_claim_value_of_5000_digits_is_one_line_with_its_place(tmp_path):
    from tui.lessons.format import check

    path = tmp_path / "l.md"
    path.write_text(f'+++\ntitle = "t"\n+++\n## one\n```bpe\nopen sample=qa.txt\nexpect vocab == {"9" * 5000}\n```\n',
                    encoding="utf-8")
    assert check(path) == [f"{path}:7: a number with too many digits"]


def test_a_lessons_corpus_is_read_by_the_bounded_reader(tmp_path):
    """``lesson --run`` read an ``open file=`` corpus with a plain read_bytes: a 2 GB file in the
    lesson's folder was read whole and trained on. It is held to the stream bound now."""
    import pytest

    from engine import TrainConfig
    from engine.errors import MAX_STREAM_BYTES
    from tui.lessons.directives import ActionFailed, Source, read_source

    big = tmp_path / "big.txt"
    with open(big, "wb") as out:
        out.truncate(MAX_STREAM_BYTES + 1)  # sparse: nothing is written
    with pytest.raises(ActionFailed) as caught:
        read_source(Source(str(big), big.name, TrainConfig()))
    assert str(caught.value).startswith(f"{big}: 512 MB is above the corpus bound of 512 MB")
    small = tmp_path / "c.txt"
    small.write_text("the cat\n", encoding="utf-8")
    assert read_source(Source(str(small), small.name, TrainConfig())) == "the cat\n"
