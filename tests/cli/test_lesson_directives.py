"""The directive registry (tui/lessons/directives.py) against the if-chains it replaced
(tests/lesson_reference.py): the same problems for every directive line, and the same
``bpe-lab lesson --run`` output, word for word, for every bundled lesson in every language."""

from __future__ import annotations

import io
import json
import shlex

import lesson_reference
import pytest
from helpers import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

import tui.cli.commands as cli  # noqa: E402
from engine import TrainConfig, Trainer
from tui.lessons import format as lesson_format
from tui.lessons.catalog import bundled
from tui.lessons.directives import DIRECTIVES, Move
from tui.lessons.format import LessonError, _options, words
from tui.lessons.runner import HeadlessRun

BUNDLED = [path for each in bundled() for path in each.files.values()]
DATA = sorted((ROOT / "tests" / "data" / "lessons").glob("*.md"))


def cli_output(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return cli.main(["lesson", *argv], out=out, err=err), out.getvalue(), err.getvalue()


# -- checking -------------------------------------------------------------------------------------

def new_problem(line: str) -> str | None:
    problems: list[str] = []
    found = lesson_format._directive("l.md", 7, line, problems)
    assert (found is None) == bool(problems)
    return problems[0] if problems else None


def old_problem(line: str) -> str | None:
    body = lesson_format.strip_comment(line)
    try:
        split = words(body)
    except ValueError:
        return new_problem(line)  # the lexer's, not the directive's: not what differs
    try:
        args, options = _options("l.md:7", split)
        lesson_reference.check_directive("l.md:7", split[0][0], args, options)
    except LessonError as exc:  # (the chain listed the directives it had)
        return str(exc).replace("quiz, expect)", "quiz, need, handin, expect)").replace(  # and analysis's add=
            'text=\"...\" with compare]', 'text=\"...\" add=\"NAME ...\" with compare]')
    return None


#: Directives added after the registry replaced the chain (their own tests: tests/cli/test_lesson_real.py).
NEW_KINDS = ("need", "handin")
KINDS = [*(k for k in DIRECTIVES if k not in NEW_KINDS), "stepp", "Open"]
WORDS = ["0", "1", "2", "12", "-1", "x", "on", "off", "pie", "curve", "compare", "tok.json", "#3", "[e4 b8]", "lo w", ""]
OPTIONS = ["sample=qa.txt", "sample=nope", "text=abc", "text=", "file=gone.txt", "vocab_size=300", "vocab_size=ten",
           "merges=2", "base=words", "base=chars", "colour=red", "trace=on", "trace=maybe", "text=aaab", "mode=hidden",
           "mode=guess", "rounds=2", "rounds=0", "specials=<a>,<b>", "split_digits=yes", "split_digits=2"]


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(KINDS), st.lists(st.sampled_from(WORDS), max_size=2), st.lists(st.sampled_from(OPTIONS), max_size=3))
def test_every_directive_line_gets_the_problem_the_old_chain_gave(kind, args, options):
    line = " ".join([kind, *(shlex.quote(a) for a in args), *options])
    assert new_problem(line) == old_problem(line), line


def test_the_unknown_directive_lists_the_registry_in_order():
    assert new_problem("stepp 1").endswith(
        "(have: open, step, run, goto, undo, select, tokenize, trace, analysis, replay, quiz, need, handin, expect)")


# -- the step arithmetic ----------------------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["step", "undo", "run", "goto"]), st.integers(0, 6), st.one_of(st.none(), st.integers(0, 9)))
def test_every_move_reaches_the_step_the_old_arithmetic_did(kind, start, n):
    if n is None and kind == "goto" or n == 0 and kind in ("step", "undo"):
        return
    action = lesson_format.Directive(kind, () if n is None else (str(n),), {}, 1, kind)
    ours, theirs = (Trainer("low lower lowest newest widest", TrainConfig(base="chars", max_merges=7)) for _ in range(2))
    ours.goto(start)
    theirs.goto(start)
    assert isinstance(DIRECTIVES[kind], Move)
    run = HeadlessRun.__new__(HeadlessRun)
    run.trainer, run.text = ours, None
    note = DIRECTIVES[kind].headless(action, run)
    assert note == lesson_reference.move(theirs, action)
    assert ours.steps == theirs.steps


# -- running: bpe-lab lesson --run --------------------------------------------------------------------

class OldRun(HeadlessRun):
    def act(self, action):
        if action.kind in NEW_KINDS:
            return super().act(action)
        return lesson_reference.act(self, action)


@pytest.mark.parametrize("path", BUNDLED + DATA, ids=lambda p: p.name)
@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_run_prints_what_the_old_chain_printed(path, as_json, monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.setenv("BPE_LAB_TOKENIZERS", str(tmp_path / "none"))  # lesson 005's tokenizers: not here
    monkeypatch.chdir(tmp_path)  # where a hand-in would go
    argv = ["--run", str(path), *(["--json"] if as_json else [])]
    ours = cli_output(*argv)
    monkeypatch.setattr("tui.lessons.runner.HeadlessRun", OldRun)
    theirs = cli_output(*argv)
    assert ours == theirs
    if as_json:
        assert json.loads(ours[1])["steps"]
    else:
        assert "claims hold" in ours[1]


def test_run_prints_every_kind_of_failure_as_before(tmp_path, monkeypatch):
    """A lesson whose actions fail and stop early, in every way a directive can."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    Trainer("aaab aaab", TrainConfig(base="bytes", pretokenizer="none")).tokenizer().save(tmp_path / "tok.json")
    path = tmp_path / "odd.en.md"
    path.write_text("""+++
title = "odd"
+++
## before any corpus
```bpe
step 2
select lo
tokenize "lo" trace=on
expect tokens == 3
```
## a corpus with a stop rule
```bpe
open text="aaab aaab abab" base=bytes pretokenizer=none max_merges=2
run 5
step 3
undo 9
goto 1
select zz
select aa
trace on
analysis compare text="ab"
quiz mode=typed rounds=2
replay tok.json
run
expect step == 0
expect merges == []
```
""", encoding="utf-8")
    ours = cli_output("--run", str(path))
    monkeypatch.setattr("tui.lessons.runner.HeadlessRun", OldRun)
    assert ours == cli_output("--run", str(path))
    code, out, _err = ours
    assert code == 1 and ":6: step: no corpus is open" in out and "stopped at step 2: a stop rule holds" in out
    assert "select: no token matches 'zz'" in out and "2 actions failed" in out, out


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.name)
def test_check_passes_every_bundled_lesson(path):
    assert cli_output("--check", str(path)) == (0, "", "bpe-lab: 1 lesson file fine\n")
