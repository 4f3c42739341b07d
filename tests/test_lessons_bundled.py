"""Every bundled lesson (assets/lessons/), in every language: it checks clean, every claim holds
headless and in the app (played to its end with `>`), and its languages share their directives."""

from __future__ import annotations

import pytest

from tui.app import BpeApp
from tui.lessons.catalog import bundled
from tui.lessons.format import check, parse
from tui.lessons.runner import HeadlessRun

FILES = [pytest.param(path, id=path.name) for each in bundled() for path in each.files.values()]
MULTILINGUAL = [pytest.param(each, id=each.name) for each in bundled() if len(each.files) > 1]
NONE_YET = [pytest.param(None, marks=pytest.mark.skip(reason="no bundled lessons yet"))]


@pytest.mark.parametrize("path", FILES or NONE_YET)
def test_a_bundled_lesson_checks_clean_and_its_claims_hold_headless(path):
    assert check(path) == []
    lesson = parse(path)
    assert lesson.lang == path.name.split(".")[-2]
    reports = HeadlessRun(lesson).run()
    problems = [f"{path.name}:{r.claim.line}: {r.line()}" for rep in reports for r in rep.results if not r.ok]
    problems += [f"{path.name}:{line}: {note}" for rep in reports if rep.failed_actions for line, note in rep.notes]
    assert not problems, "\n".join(problems)
    assert any(rep.results for rep in reports), "a lesson asserts what its course text claims"


@pytest.mark.parametrize("each", MULTILINGUAL or NONE_YET)
def test_the_languages_of_a_bundled_lesson_share_their_directives(each):
    lessons = {lang: parse(path) for lang, path in each.files.items()}
    blocks = {lang: [[a.source for a in step.actions] for step in lesson.steps] for lang, lesson in lessons.items()}
    english = blocks.get("en") or next(iter(blocks.values()))
    for lang, steps in blocks.items():
        assert steps == english, f"{each.name}.{lang} differs from English in its directives"
    assert len({lesson.seed for lesson in lessons.values()}) == 1


@pytest.mark.slow
@pytest.mark.parametrize("path", FILES or NONE_YET)
async def test_a_bundled_lesson_plays_to_its_end_in_the_app(path, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    lesson = parse(path)
    app = BpeApp(autosave=False, lesson=lesson)
    async with app.run_test(size=(80, 24)) as pilot:
        while app.lesson is None:
            await pilot.pause()
        player = app.lesson
        await player.settled.wait()
        checked = 0
        for index in range(1, len(lesson.steps)):
            app.screen.set_focus(None)  # an analysis tab's input would take the key
            await pilot.press("greater_than_sign")
            await player.settled.wait()
            await pilot.pause()
            assert player.index == index
            shown = player.shown[index]
            assert shown.ok, f"{path.name} step {index}: " + "; ".join(
                [r.line() for r in shown.results if not r.ok] + shown.failures)
            checked += len(shown.results)
        assert checked == sum(len(step.claims) for step in lesson.steps)
