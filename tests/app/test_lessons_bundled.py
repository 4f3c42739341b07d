"""The bundled lessons (assets/lessons): one per seed example, in English, German and Chinese.

Every file passes ``bpe-lab lesson --check``; played headless and in the app (to its end with
`>`), every claim holds and every action works; the three languages share their directive blocks
exactly (only prose and titles are translated), so a claim checked in one language is the same
claim in the others; each lesson asserts what its course text claims."""

from __future__ import annotations

import re
import unicodedata

import pytest
from fetch_tokenizers import lesson_tokenizers
from helpers import ROOT, app_on, sample_text, settled

from engine import Trainer
from tui.app.messages import Trained
from tui.lessons.catalog import bundled, lesson_folder
from tui.lessons.format import Claim, check, parse
from tui.lessons.runner import HeadlessRun
from tui.model.samples import sample

from test_lesson_layout import assert_panes_whole

LESSONS = ROOT / "assets" / "lessons"
NAMES = ["000-die-katze", "001-low-lower-lowest", "002-tang-poems", "003-the-cat-in-the-hat", "004-words-vs-bpe",
         "005-tokenizer-lab"]
LANGS = ["en", "de", "zh"]
FILES = [LESSONS / f"{name}.{lang}.md" for name in NAMES for lang in LANGS]


def test_every_seed_has_a_lesson_in_every_language():
    assert sorted(p.name for p in LESSONS.glob("*.md")) == sorted(p.name for p in FILES)
    found = {b.name: b.languages for b in bundled()}
    assert found == {name: LANGS for name in NAMES}
    assert lesson_folder().samefile(LESSONS)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_the_file_checks_clean(path):
    assert check(path) == []
    lesson = parse(path)
    assert lesson.lang == path.name.split(".")[-2]
    assert lesson.seed == path.name[:3]
    assert 5 <= len(lesson.steps) - 1 <= 10  # the introduction, then 5 to 10 steps
    assert not lesson.steps[0].actions and all(step.actions for step in lesson.steps[1:])


#: Lesson 005 loads five real tokenizers (4 s): in the slow pass.
FILES_LOADING = [pytest.param(p, marks=pytest.mark.slow) if p.name.startswith("005") else p for p in FILES]


@pytest.mark.parametrize("path", FILES_LOADING, ids=lambda p: p.name)
def test_played_headless_every_claim_holds(path, tmp_path, monkeypatch):
    lesson_tokenizers(str(path), tmp_path, monkeypatch)
    lesson = parse(path)
    reports = HeadlessRun(lesson).run()
    failed = [f"{path.name}:{r.claim.line}: {r.line()}" for report in reports for r in report.results if not r.ok]
    broken = [f"{path.name}:{line}: {note}" for report in reports for line, note in report.notes]
    assert failed == [] and broken == []
    claims = sum(len(report.results) for report in reports)
    assert claims == sum(len(step.claims) for step in lesson.steps) and claims >= 15


# -- the arithmetic a lesson states -----------------------------------------------------------------

#: A number and the words that name what it counts ("256 bytes", "256 个字节", "9 Merges").
_TERM = r"(\d+)[^\d=+→`,，。;；:：()（）]{0,16}?"
_SUM = re.compile(rf"{_TERM}\s*=\s*((?:{_TERM}\s*\+\s*)+{_TERM})(?=[\s,，。;；:：]|$)")
_CHAIN = re.compile(r"\d+(?:\s*→\s*\d+)+")


def stated_sums(text: str) -> list[tuple[int, list[int]]]:
    """Every ``TOTAL = A + B + ...`` the prose states outside code, as (TOTAL, [A, B, ...]).

    Example: ``stated_sums("270 tokens = 256 bytes + 5 specials, so")`` -> ``[(270, [256, 5])]``
    """
    prose = re.sub(r"`[^`]*`", "", text)
    return [(int(m.group(1)), [int(n) for n in re.findall(r"\d+", m.group(2))]) for m in _SUM.finditer(prose)]


def test_stated_sums_are_read_as_written():
    assert stated_sums("270 tokens = 256 bytes + 5 specials, so") == [(270, [256, 5])]
    assert stated_sums("270 个词元 = 256 个字节 + 9 次合并 + 5 个特殊词元，所以") == [(270, [256, 9, 5])]
    assert stated_sums("models fail at `1234 + 5678` = `x`") == []


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_the_arithmetic_a_lesson_states_holds(path):
    """Every sum in a step's text adds up, and its total is what a claim of that step measures;
    every chain of counts (``16 → 13 → 10 → 8 → 6 tokens``) is the lesson's token claims in order."""
    lesson = parse(path)
    told = 0
    for step in lesson.steps:
        values = [c.value for c in step.claims]
        for total, terms in stated_sums(step.markdown):
            told += 1
            assert sum(terms) == total, f"{path.name} '{step.title}': {' + '.join(map(str, terms))} is not {total}"
            assert total in values, f"{path.name} '{step.title}': no claim of the step measures {total}"
    tokens = [c.value for s in lesson.steps for c in s.claims if c.quantity == "tokens"]
    for chain in _CHAIN.findall(re.sub(r"`[^`]*`", "", "\n".join(s.markdown for s in lesson.steps))):
        told += 1
        counts = iter(tokens)
        stated = [int(n) for n in re.findall(r"\d+", chain)]
        assert all(n in counts for n in stated), f"{path.name}: {chain} is not the token claims {tokens} in order"
    assert told or path.name[:3] not in ("000", "001"), f"{path.name}: the sum or chain the lesson states is not found"


def _blocks(path):
    """Each step's actions as written, without their line numbers."""
    return [[action.source for action in step.actions] for step in parse(path).steps]


@pytest.mark.parametrize("name", NAMES)
def test_the_languages_share_their_directive_blocks(name):
    english = _blocks(LESSONS / f"{name}.en.md")
    for lang in LANGS[1:]:
        assert _blocks(LESSONS / f"{name}.{lang}.md") == english, lang
    titles = {parse(LESSONS / f"{name}.{lang}.md").title for lang in LANGS}
    assert len(titles) == 3  # the titles are translated


@pytest.mark.parametrize("path", [p for p in FILES if not p.name.endswith(".en.md")], ids=lambda p: p.name)
def test_translations_are_in_their_language(path):
    prose = "\n".join(step.markdown for step in parse(path).steps)
    if path.name.endswith(".zh.md"):
        han = sum(1 for ch in prose if "CJK UNIFIED" in unicodedata.name(ch, ""))
        assert han > 300
    else:
        words = prose.lower().split()
        assert sum(words.count(w) for w in ("der", "die", "das", "und", "ist")) > 20


def test_every_seed_claim_is_asserted():
    """What the issue asks each lesson to assert, as claims in its English file."""
    claims = {name: {a.source for step in parse(LESSONS / f"{name}.en.md").steps for a in step.actions
                     if isinstance(a, Claim)} for name in NAMES}
    assert 'expect encode "die katze" == [259, 264, 101]' in claims["000-die-katze"]
    assert 'expect id "<pad>" == 265' in claims["000-die-katze"]
    assert 'expect merges == ["lo", "low", " low", " lowe"]' in claims["001-low-lower-lowest"]
    assert {f"expect tokens == {n}" for n in (16, 13, 10, 8, 6)} <= claims["001-low-lower-lowest"]
    assert 'expect encode "Cat" == [0, 0, 7]' in claims["001-low-lower-lowest"]
    assert any(c.startswith("expect merges ==") and c.endswith('"[e4 b8]"]') for c in claims["002-tang-poems"])
    assert any(c.startswith("expect composition partial") for c in claims["002-tang-poems"])
    assert 'expect count "t h" == 2' in claims["003-the-cat-in-the-hat"]  # the seed says 3
    assert 'expect bytes "ü" == [195, 188]' in claims["003-the-cat-in-the-hat"]
    assert any(c.startswith("expect word unknown") for c in claims["004-words-vs-bpe"])


def test_the_tang_sample_is_seed_002_in_small():
    text = sample_text("tang.txt")
    assert 1000 <= len(text.encode()) <= 3000
    lines = text.splitlines()
    assert len(lines) == 28 and all(line.endswith("。") for line in lines)
    assert set(text) - {"，", "。", "\n"} <= {ch for ch in text if "CJK UNIFIED" in unicodedata.name(ch, "")}
    trainer = Trainer(text, sample("tang.txt").config())
    learned = [trainer.token_bytes(trainer.step().new_id) for _ in range(6)]
    assert learned == [b"\x80\x82", b"\xbc\x8c", "。".encode(), "，".encode(), b"\xe4\xb8", "。\n".encode()]


# -- in the app -----------------------------------------------------------------------------------

async def _settle(app, pilot) -> None:
    while app.lesson is None:  # the lesson starts once the main screen is mounted
        await pilot.pause()
    await app.lesson.settled.wait()
    await pilot.pause()


async def test_a_lesson_step_that_trains_to_its_target_raises_no_toast(tmp_path, monkeypatch):
    """Lesson 000 at 80×24, step 4 (run to 270 tokens): "training is done" rose as a toast over
    the tokenize pane and the status line at every such step; the step's pane and the status
    line say it. A learner's own run still gets the toast."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    lesson = parse(next(p for p in FILES if p.name == "000-die-katze.en.md"))
    app = app_on(None, autosave=False, lesson=lesson)
    async with app.run_test(size=(80, 24)) as pilot:
        await _settle(app, pilot)
        for _ in range(4):
            await pilot.press("greater_than_sign")
            await _settle(app, pilot)
        assert app.workbench.trainer.stop_reason is not None  # the step ran to its target
        assert not [t for t in app.toasts.texts() if "training is done" in t]
        app.lab.trained(Trained(done=True))  # the same end, not the lesson's: said
        await pilot.pause()
        assert [t for t in app.toasts.texts() if "training is done" in t]


@pytest.mark.slow
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
async def test_the_app_plays_the_lesson_to_the_end_with_every_claim_holding(path, tmp_path, monkeypatch):
    """`>` through every step, as a learner would (escape leaves an analysis tab a step opened):
    each step's claims are all checked in the pane and all hold, and no action fails."""

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    lesson_tokenizers(str(path), tmp_path, monkeypatch)
    lesson = parse(path)
    app = app_on(None, autosave=False, lesson=lesson)
    async with app.run_test(size=(80, 24)) as pilot:
        await _settle(app, pilot)
        for index in range(1, len(lesson.steps)):
            for _ in range(3):  # an analysis tab the step opened: escape (twice from its input)
                if app.screen is app.main_screen:
                    break
                await pilot.press("escape")
                await settled(pilot)
            assert app.screen is app.main_screen
            await pilot.press("greater_than_sign")
            await _settle(app, pilot)
            assert app.lesson.index == index
            shown = app.lesson.shown[index]
            assert [r.line() for r in shown.results if not r.ok] + shown.failures == [] and shown.ok
            if app.screen is app.main_screen:
                await settled(pilot)
                assert_panes_whole(app)  # at 80x24 beside the lesson: every pane readable, no value cut
            assert shown.notes == []  # no stop rule ended a move early
            assert len(shown.results) == len(lesson.steps[index].claims)
