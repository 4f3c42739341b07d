"""A tokenizer's companion files (merges beside a vocab, added tokens, a sidecar) in a lesson
and in serve: kept in the lesson's reach and in the served folder, refused unread when a link
leads out (the engine's side: tests/engine/test_companion_files.py)."""

from __future__ import annotations

import io

import pytest

import tui.cli.commands as cli
from engine.errors import TokenizerFileError
from engine.formats import load_any
from tui.lessons.format import parse
from tui.lessons.runner import HeadlessRun
from tui.model.confine import Confinement

from bad_input_files import SECRET_LINE, companion_link

LESSON = '+++\ntitle = "t"\n+++\n## one\n```bpe\nopen sample=qa.txt\nreplay {named}\n```\n'


def test_a_lesson_keeps_a_tokenizer_s_companions_in_its_folder(tmp_path):
    companion_link(tmp_path, "class/pair")
    lesson_path = tmp_path / "class" / "l.md"
    lesson_path.write_text(LESSON.format(named="pair/vocab.json"), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    cli.main(["lesson", "--run", str(lesson_path)], out=out, err=err)
    said = out.getvalue() + err.getvalue()
    assert "pair/merges.txt is a link that leads outside the lesson's folder: a lesson reads a tokenizer's files " \
           "only from there" in said
    assert SECRET_LINE not in said and "Traceback" not in said
    lesson = parse(lesson_path)  # the same refusal for the app's player: the lesson's own reading()
    report = HeadlessRun(lesson).run_step(len(lesson.steps) - 1)
    assert report.failed_actions == 1 and "leads outside the lesson's folder" in report.notes[-1][1]


def test_a_served_lesson_keeps_them_in_the_served_folder(tmp_path):
    companion_link(tmp_path, "root/class/pair", target="../../../outside.txt")
    (tmp_path / "outside.txt").write_text(SECRET_LINE + "\n", encoding="utf-8")
    lesson_path = tmp_path / "root" / "class" / "l.md"
    lesson_path.write_text(LESSON.format(named="pair/vocab.json"), encoding="utf-8")
    lesson = parse(lesson_path, within=((tmp_path / "root").resolve(),))
    report = HeadlessRun(lesson).run_step(len(lesson.steps) - 1)
    assert report.notes[-1][1].endswith("pair/merges.txt is a link that leads outside the folder this server shares: "
                                        "a lesson reads a tokenizer's files only from there")


def test_serve_keeps_a_loaded_tokenizer_s_companions_in_the_root(tmp_path):
    """What the compare pane and a tab's --tokenizer load in serve mode (Confinement.reading)."""
    companion_link(tmp_path, "class/pair", target="/etc/passwd")
    rules = Confinement(tmp_path / "class", label="class")
    with rules.reading(), pytest.raises(TokenizerFileError) as caught:
        load_any(rules.readable("pair/vocab.json"))
    assert str(caught.value) == ("class/pair/merges.txt leads to /etc/passwd, outside the folder this server shares "
                                 "(class): choose a file inside it")
    (tmp_path / "class" / "pair" / "merges.txt").unlink()
    (tmp_path / "class" / "pair" / "merges.txt").write_text("#version: 0.2\na b\n", encoding="utf-8")
    with rules.reading():
        assert load_any(rules.readable("pair/vocab.json")).encode("ab") == [256]
