"""Lessons without the app: the format's parser and checker (every problem as FILE:LINE), claims
against a trainer, the bundled-lesson catalog and languages, and ``bpe-lab lesson``."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from helpers import ROOT

import tui.cli.commands as cli  # noqa: E402
from engine import TrainConfig, Trainer
from tui.lessons import catalog
from tui.lessons.claims import compare, evaluate
from tui.lessons.format import Claim, LessonError, check, config_for, parse, strip_comment
from tui.lessons.runner import HeadlessRun

DATA = ROOT / "tests" / "data" / "lessons"
LOW = DATA / "001-low.en.md"
FAILING = DATA / "002-failing.en.md"
FRONT = '+++\ntitle = "t"\n+++\nintro\n## one\n'


def lesson_file(tmp_path: Path, body: str, name: str = "x.en.md", front: str = FRONT) -> Path:
    path = tmp_path / name
    path.write_text(front + body, encoding="utf-8")
    return path


def bpe(*lines: str) -> str:
    return "```bpe\n" + "\n".join(lines) + "\n```\n"


# -- the format ---------------------------------------------------------------------------------

def test_parse_reads_steps_titles_prose_and_actions():
    lesson = parse(LOW)
    assert lesson.title == "low lower lowest: the first merges" and lesson.seed == "001" and lesson.lang == "en"
    assert [s.title for s in lesson.steps] == [lesson.title, "The corpus before any merge", "Two merges", "To the end", "Back one"]
    assert lesson.steps[0].actions == () and "A test lesson" in lesson.steps[0].markdown
    first = lesson.steps[1]
    assert [a.kind for a in first.actions] == ["open", "expect", "expect", "expect", "expect"]
    assert first.actions[0].options == {"sample": "low-lower-lowest.txt"}  # the comment is gone
    assert "```bpe" not in first.markdown and "Sixteen characters" in first.markdown
    claim = first.actions[3]
    assert isinstance(claim, Claim) and (claim.quantity, claim.op, claim.value, claim.line) == ("candidate", "==", "l o", 15)


@pytest.mark.parametrize("body, line, message", [
    (bpe("stepp 3"), 7, "unknown directive 'stepp'"),
    (bpe("open sample=low-lower-lowest.txt", "goto -1"), 8, "bad step number '-1'"),
    (bpe("open sample=low-lower-lowest.txt", "step x"), 8, "bad step number 'x'"),
    (bpe("open sample=low-lower-lowest.txt", "step 0"), 8, "bad step number '0'"),
    (bpe("open file=missing.txt"), 7, "missing.txt: no such file"),
    (bpe("replay gone.json"), 7, "gone.json: no such file"),
    (bpe("open sample=nope.txt"), 7, "no bundled sample named 'nope.txt'"),
    (bpe("open sample=qa.txt colour=red"), 7, "unknown setting colour="),
    (bpe("open sample=qa.txt vocab_size=ten"), 7, "vocab_size= takes a whole number"),
    (bpe("open sample=qa.txt base=words"), 7, "unknown base 'words'"),
    (bpe("open"), 7, "open takes one of sample=, file= or text="),
    (bpe("expect tokens = 3"), 7, "a claim reads expect QUANTITY [ARGS] OP VALUE"),
    (bpe("expect colour == 3"), 7, "unknown quantity 'colour'"),
    (bpe("expect merge 0 == \"lo\""), 7, "bad merge number '0'"),
    (bpe("expect encode == [1]"), 7, "expect encode takes TEXT, not 0 arguments"),
    (bpe("expect tokens < \"x\""), 7, "< compares numbers"),
    (bpe("expect composition round == 1"), 7, "unknown composition kind 'round'"),
    (bpe("analysis pie"), 7, "unknown analysis tab 'pie'"),
    (bpe("quiz mode=guess"), 7, "unknown quiz mode 'guess'"),
    (bpe("tokenize \"unclosed"), 7, "No closing quotation"),
    ("```bpe\nstep\n", 7, "a ``` block is not closed"),
])
def test_each_problem_is_one_line_naming_file_and_line(tmp_path, body, line, message):
    path = lesson_file(tmp_path, body)
    problems = check(path)
    assert len(problems) == 1, problems
    assert problems[0].startswith(f"{path}:{line}: ") and message in problems[0], problems[0]
    with pytest.raises(LessonError, match=f"^{path}:{line}: "):
        parse(path)


@pytest.mark.parametrize("text, line, message", [
    ("no front matter\n## a\n", 1, "a lesson starts with front matter"),
    ("+++\ntitle = \"t\"\n## a\n", 1, "no closing +++"),
    ("+++\ntitle = 3 3\n+++\n## a\n", 2, "bad front matter"),
    ("+++\nseed = \"1\"\n+++\n## a\n", 1, "needs a title"),
    ("+++\ntitle = \"t\"\nauthor = \"me\"\n+++\n## a\n", 2, "unknown front matter key 'author'"),
    ("+++\ntitle = \"t\"\nlang = \"fr\"\n+++\n## a\n", 2, "unknown lang 'fr'"),
    ("+++\ntitle = \"t\"\n+++\nonly an intro\n", 4, "the lesson has no steps"),
    ("+++\ntitle = \"t\"\n+++\n```bpe\nstep\n```\n## a\n", 5, "the introduction has no actions"),
])
def test_front_matter_and_structure_problems(tmp_path, text, line, message):
    path = tmp_path / "l.md"
    path.write_text(text, encoding="utf-8")
    problems = check(path)
    assert problems and problems[0].startswith(f"{path}:{line}: ") and message in problems[0], problems


def test_every_problem_of_a_file_is_listed_in_line_order(tmp_path):
    path = lesson_file(tmp_path, bpe("open file=gone.txt", "stepp", "goto x"))
    assert [p.split(":")[1] for p in check(path)] == ["7", "8", "9"]


def test_a_missing_lesson_file_is_one_line(tmp_path):
    assert check(tmp_path / "none.md") == [f"{tmp_path / 'none.md'}: no such lesson file"]


def test_comments_and_token_ids():
    assert strip_comment("select #12") == "select #12"
    assert strip_comment("select #12 # the token") == "select #12 "
    assert strip_comment('tokenize "a # b" # note') == 'tokenize "a # b" '
    assert strip_comment("# a whole line") == ""


def test_open_settings_map_onto_the_config():
    assert config_for({"sample": "die-katze.txt"}) == TrainConfig(
        pretokenizer="simple", vocab_size=270, specials=("<pad>", "<bos>", "<eos>", "<user>", "<assistant>"))
    config = config_for({"sample": "low-lower-lowest", "merges": "2"})  # .txt may be left out
    assert (config.base, config.max_merges, config.tie_rule) == ("chars", 2, "first-seen")
    config = config_for({"text": "x", "pattern": r"\w+", "specials": "<a>,<b>", "no_merge_newline": "true", "vocab_size": "300"})
    assert (config.pretokenizer, config.specials, config.no_merge_newline, config.vocab_size) == ("custom", ("<a>", "<b>"), True, 300)
    assert config_for({"sample": "qa.txt", "vocab_size": "100"}).max_merges is None  # one stop rule replaces the other


# -- claims ---------------------------------------------------------------------------------------

def claim(quantity: str, *args: str, op: str = "==", value: object = 0) -> Claim:
    return Claim(quantity, args, op, value, 1, "")


def low_trainer(steps: int = 4) -> Trainer:
    trainer = Trainer("low lower lowest", TrainConfig(base="chars", pretokenizer="none", tie_rule="first-seen"))
    trainer.goto(steps)
    return trainer


def measured(trainer: Trainer, quantity: str, *args: str):
    return evaluate(claim(quantity, *args), trainer).actual


def test_claims_measure_the_trainer():
    t = low_trainer()
    assert measured(t, "tokens") == 6 == t.corpus_tokens
    assert (measured(t, "step"), measured(t, "vocab")) == (4, t.vocab_size)
    assert measured(t, "merges") == ["lo", "low", " low", " lowe"]
    assert measured(t, "merge", "3") == " low"
    assert measured(t, "encode", " lowest") == t.tokenizer().encode(" lowest") == [12, 6, 7]
    assert measured(t, "pieces", " lowest") == [" lowe", "s", "t"]
    assert measured(t, "id", "low") == t.vocab.index(b"low")
    assert measured(t, "id", "·low") == t.vocab.index(b" low")
    assert measured(t, "id", "#0") == 0
    assert measured(t, "bytes", "ü") == [195, 188]
    assert measured(t, "token", "#10") == "low"
    assert measured(t, "count", "·lowe s") == 1
    assert measured(t, "trace", "lower") == ["lo", "low"]
    assert measured(t, "heldout", "low low", "tokens") == 2  # low, ·low
    assert measured(t, "composition", "multi") == 4 and measured(t, "composition", "whole") == 0
    assert measured(t, "word", "vocab") == 3 and measured(t, "word", "unknown", "low high") == 1


def test_candidates_ties_and_stop():
    t = low_trainer(0)
    assert measured(t, "candidate", "1") == "l o" and measured(t, "candidate", "3") == "· l"
    assert measured(t, "ties") == 2
    assert measured(t, "stop") == "running"
    t.train()
    assert measured(t, "stop") == "no pair occurs 2 times"


def test_a_claim_that_cannot_be_measured_fails_saying_why():
    t = low_trainer(1)
    for result in (evaluate(claim("id", "zz"), t), evaluate(claim("merge", "3"), t), evaluate(claim("tokens"), None)):
        assert not result.ok and result.problem and result.actual is None
    assert "✗" in evaluate(claim("tokens", value=3), t).line() and "actual: 13" in evaluate(claim("tokens", value=3), t).line()


def test_specials_have_their_ids():
    t = Trainer("die katze und die katze", TrainConfig(pretokenizer="simple", specials=("<a>", "<b>")))
    t.goto(2)
    assert t.steps == 2 and measured(t, "id", "<b>") == 256 + 2 + 1 == t.tokenizer().encode("<b>")[0]


def test_compare_operators_and_float_precision():
    assert compare("==", 1.7498, 1.75) and not compare("==", 1.76, 1.75)
    assert compare("<", 3, 4) and compare(">=", 4, 4) and not compare(">", "a", 1)
    assert compare("==", (1, 2), [1, 2]) and compare("!=", "a", "b")


# -- headless runs --------------------------------------------------------------------------------

def test_the_headless_run_checks_every_claim():
    reports = HeadlessRun(parse(LOW)).run()
    results = [r for rep in reports for r in rep.results]
    assert len(results) == 13 and all(r.ok for r in results)


def test_a_failed_claim_and_a_failed_action_are_reported_not_skipped():
    (report,) = HeadlessRun(parse(FAILING)).run()[1:]
    assert [r.ok for r in report.results] == [False, True]
    assert report.results[0].actual == 7
    assert report.failed_actions == 1 and "no token matches 'zz'" in report.notes[0][1]


# -- the catalog and languages ----------------------------------------------------------------------

def test_locale_decides_the_language():
    assert catalog.locale_lang({"LANG": "de_DE.UTF-8"}) == "de"
    assert catalog.locale_lang({"LC_ALL": "zh_CN.UTF-8", "LANG": "de_DE.UTF-8"}) == "zh"
    assert catalog.locale_lang({"LC_MESSAGES": "fr_FR", "LANG": "de_DE"}) == "en"  # LC_MESSAGES first; no fr lessons
    assert catalog.locale_lang({}) == "en"


def test_bundled_lessons_by_name_with_language_fallback(monkeypatch):
    monkeypatch.setattr(catalog, "lesson_folder", lambda: DATA)
    names = [b.name for b in catalog.bundled()]
    assert names == ["001-low", "002-failing"]
    low = catalog.find_bundled("low")
    assert low is not None and low.languages == ["en", "de"] and catalog.find_bundled("001") == low
    assert catalog.resolve("001", "de") == (DATA / "001-low.de.md", None)
    path, note = catalog.resolve("001", "zh")
    assert path == LOW and note == "lesson 001-low has no zh version: showing it in en"
    with pytest.raises(LessonError, match="no lesson named 'nine'"):
        catalog.resolve("nine", "en")


def test_the_languages_of_a_lesson_share_their_directives():
    en, de = parse(DATA / "001-low.en.md"), parse(DATA / "001-low.de.md")
    assert [[a.source for a in s.actions] for s in en.steps] == [[a.source for a in s.actions] for s in de.steps]


# -- bpe-lab lesson -------------------------------------------------------------------------------

def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["lesson", *argv], out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_cli_run_passes_fails_and_prints_json():
    code, out, _ = run("--run", str(LOW))
    assert code == 0 and out.endswith("13 of 13 claims hold\n")
    code, out, _ = run("--run", str(FAILING))
    assert code == 1 and "✗ tokens == 3 (actual: 7)" in out and out.endswith("1 of 2 claims hold; 1 action failed\n")
    code, out, _ = run("--run", str(FAILING), "--json")
    data = json.loads(out)
    assert code == 1 and data["ok"] is False
    assert [c["ok"] for c in data["steps"][1]["claims"]] == [False, True] and data["steps"][1]["claims"][0]["actual"] == 7


def test_cli_check_lists_every_problem_and_exits_2(tmp_path):
    bad = lesson_file(tmp_path, bpe("stepp", "goto x"))
    code, out, err = run("--check", str(LOW), str(bad))
    assert code == 2 and out == ""
    assert err.splitlines() == [f"bpe-lab: error: {bad}:7: unknown directive 'stepp' (have: open, step, run, goto, undo, "
                                "select, tokenize, trace, analysis, replay, quiz, need, handin, expect)",
                                f"bpe-lab: error: {bad}:8: bad step number 'x': a whole number of 0 or more"]
    assert run("--check", str(LOW)) == (0, "", "bpe-lab: 1 lesson file fine\n")


def test_cli_lists_bundled_lessons(monkeypatch):
    monkeypatch.setattr(catalog, "lesson_folder", lambda: DATA)
    code, out, _ = run()
    assert code == 0
    assert out.splitlines()[1].split(None, 2) == ["001-low", "en,de",
                                                  "low lower lowest: the first merges · XSLM, the BPE tokenizer chapter"]
    german = parse(DATA / "001-low.de.md").title
    assert german != "low lower lowest: the first merges"

    def title(out: str) -> str:
        return out.splitlines()[1].split(None, 2)[2].rsplit(" · ", 1)[0]

    assert title(run("--lang", "de")[1]) == german  # titled in the language asked
    assert title(run("--lang", "zh")[1]) == "low lower lowest: the first merges"  # none: en
    monkeypatch.setenv("LC_ALL", "de_DE.UTF-8")
    assert title(run()[1]) == german  # else the locale's


def test_cli_language_fallback_is_a_note(monkeypatch):
    monkeypatch.setattr(catalog, "lesson_folder", lambda: DATA)
    code, _, err = run("--run", "001", "--lang", "zh")
    assert code == 0 and err == "bpe-lab: note: lesson 001-low has no zh version: showing it in en\n"


def test_cli_usage_errors():
    assert run("--json")[0] == 2
    assert run("--run")[2] == "bpe-lab: error: lesson --run takes one lesson (a name or a file)\n"


def test_cli_starts_the_app_with_the_lesson_in_the_language_asked(monkeypatch):
    monkeypatch.setattr(catalog, "lesson_folder", lambda: DATA)
    started = []
    monkeypatch.setattr("tui.app.BpeApp.run", lambda app, **kw: started.append(app))
    monkeypatch.setattr("tui.cli.lesson.app_starter", None)
    assert run("low")[0] == 2  # the headless CLI alone never imports the app: the front door starts it
    from tui.main import start_lesson

    monkeypatch.setattr("tui.cli.lesson.app_starter", start_lesson)
    assert run("low", "--lang", "de")[0] == 0
    (app,) = started
    lesson, note = app._start_lesson
    assert lesson.path == DATA / "001-low.de.md" and note is None and app.lesson_lang == "de"
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    assert run("001")[0] == 0
    lesson, note = started[1]._start_lesson
    assert lesson.path == DATA / "001-low.en.md" and note == "课程 001-low 没有 zh 版本：改用 en 显示"  # the UI speaks the locale's


def test_lesson_check_and_run_never_import_the_ui():
    import subprocess
    import sys

    code = ("import io, sys; import tui.cli.commands as cli; "
            f"cli.main(['lesson', '--run', {str(LOW)!r}], out=io.StringIO(), err=io.StringIO()); "
            f"cli.main(['lesson', '--check', {str(LOW)!r}], out=io.StringIO(), err=io.StringIO()); "
            "print(sorted(m for m in ('textual', 'rich') if m in sys.modules))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert run.stdout.strip() == "[]", run.stderr
