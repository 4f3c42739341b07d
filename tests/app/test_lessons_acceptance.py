"""Issue 20's acceptance for lessons: every bundled lesson, in every language, plays to its end
in the app at 80x24 by pressing `>` only. At every step the step's title and the start of its
text are on screen in a lesson pane; no resume or kept-aside message is said; and the session
folder gets no new file (and no session file is written over), whether ``$BPE_LAB_SESSION`` is
set or not, in a state folder that already holds sessions of the lessons' corpora.

The app is made as ``bpe-lab lesson NAME --lang LANG`` makes it (autosave on, the session files
of the environment), and nothing but `>` is pressed: no escape out of an analysis tab or a quiz.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fetch_tokenizers import lesson_tokenizers
from helpers import app_on, screen_settled, settle_until

from engine import TrainConfig
from tui.app.widgets.lesson_pane import LessonPane
from tui.i18n import _, set_language
from tui.lessons.catalog import bundled
from tui.lessons.directives import open_source
from tui.lessons.format import parse
from tui.model.session import corpus_session_path
from tui.model.workbench import LoadedCorpus, Workbench

SIZE = (80, 24)
#: Every bundled lesson in every language, each once: a lesson's languages take turns at the two
#: session set-ups (``$BPE_LAB_SESSION`` set, or the per-corpus files of the state folder), so that
#: each lesson is played in both and each language meets both. (Both set-ups for every language
#: doubled the slowest file of the suite for nothing the turns do not cover.)
LESSONS = [(each.name, lang, (number + turn) % 2 == 0)
           for number, each in enumerate(bundled()) for turn, lang in enumerate(each.languages)]


def screen_lines(app) -> list:
    """The frame as the terminal shows it, one Strip a row, a modal screen over the screens
    below it (Textual's compositor, as ``App.export_screenshot`` renders it)."""
    from textual.strip import Strip

    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    return [Strip.join(list(row)) if not isinstance(row, Strip) else row for row in update.strips]


def pane_text(app) -> str | None:
    """What the lesson panes in view show, every blank left out (a title wraps where the
    pane's width says), or None when no lesson pane is in view: one on the screen in front, or
    under a modal screen in front (the quiz) where the frame still draws it."""
    strips = screen_lines(app)
    screens = [app.screen, *(reversed(app._background_screens) if getattr(app.screen, "is_modal", False) else ())]
    shown = []
    for screen in screens:
        for pane in screen.query(LessonPane):
            region = pane.content_region  # inside its border
            if not pane.display or not region.width or not region.height:
                continue
            rows = strips[region.y:region.bottom]
            shown.append("".join(strip.crop(region.x, region.right).text for strip in rows))
        if shown:
            break
    if not shown:
        return None
    return re.sub(r"\s+", "", "".join(shown))


def plain_start(markdown: str) -> str:
    """The first words of a step's text as the pane draws them: the first paragraph's text up to
    its first inline mark (code, emphasis, a link), blanks left out."""
    for paragraph in re.split(r"\n\s*\n", markdown.strip()):
        if paragraph.lstrip().startswith(("|", "```", "~~~", "#", ">", "<")):
            continue
        text = re.sub(r"^\s*([-*+]|\d+\.)\s+", "", paragraph)
        text = re.split(r"[`*_\[\]<>\\]", text)[0]
        return re.sub(r"\s+", "", text)[:16]
    return ""


def unwanted(lang: str) -> list[re.Pattern]:
    """The resume prompt and the kept-aside messages, in the UI's language."""
    templates = [
        _("a session on this corpus at step {step} exists: R resumes it"),
        _("the earlier session in {name} is kept as {kept}: `{command}` resumes it"),
    ]
    patterns = [re.compile(".*".join(re.escape(part) for part in re.split(r"\{[^}]*\}", t)), re.S) for t in templates]
    return [*patterns, re.compile(r"\.kept-")]


def state_files(state: Path) -> dict[Path, bytes]:
    return {path: path.read_bytes() for path in sorted(state.rglob("*")) if path.is_file() and "lessons" not in path.parts}


def earlier_sessions(lesson, state: Path, explicit: Path | None) -> None:
    """Sessions at step 4 on every corpus the lesson opens (and, with one explicit file, the
    lesson's first corpus in it): what a learner who trained on the samples before has."""
    from tui.lessons.runner import HeadlessRun

    run = HeadlessRun(lesson)
    opens = [a for s in lesson.steps for a in s.actions if getattr(a, "kind", None) == "open"]
    for index, action in enumerate(opens):
        source = open_source(run, action)
        corpus = LoadedCorpus.open(source.source, source.config.base)
        workbench = Workbench(corpus, source.config)
        workbench.goto(4)
        workbench.session().save(corpus_session_path(corpus.source, corpus.sha256))
        if explicit is not None and index == 0:
            workbench.session().save(explicit)
    other = Workbench(LoadedCorpus.open("sample:qa.txt", "bytes"), TrainConfig(base="bytes", max_merges=8))
    other.goto(3)
    other.session().save(corpus_session_path(other.corpus.source, other.corpus.sha256))


@pytest.mark.slow
@pytest.mark.parametrize("name, lang, explicit", LESSONS,
                         ids=[f"{n}.{lang}-{'BPE_LAB_SESSION' if e else 'per-corpus'}" for n, lang, e in LESSONS])
async def test_every_lesson_plays_to_its_end_with_gt_only(name, lang, explicit, tmp_path, monkeypatch):
    from tui.lessons.catalog import load

    state = tmp_path / "state"
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    session = state / "mine.json"
    if explicit:
        monkeypatch.setenv("BPE_LAB_SESSION", str(session))
    else:
        monkeypatch.delenv("BPE_LAB_SESSION", raising=False)
    set_language(lang)  # as bpe-lab lesson --lang does
    lesson_tokenizers(name, tmp_path, monkeypatch)  # lesson 005's real tokenizers, its hand-in's folder
    lesson, note = load(name, lang)
    assert note is None and lesson == parse(lesson.path)
    earlier_sessions(lesson, state, session if explicit else None)
    before = state_files(state)
    assert before

    said: list[str] = []
    app = app_on(None, lesson=lesson, lesson_note=note)
    notify = app.notify

    def recording(message, **kwargs):
        said.append(str(message))
        return notify(message, **kwargs)

    monkeypatch.setattr(app, "notify", recording)
    bad = unwanted(lang)
    async with app.run_test(size=SIZE) as pilot:
        def at(index: int) -> bool:
            player = app.lesson
            return player is not None and player.index == index and not player.busy and player.settled.is_set()

        problems: list[str] = []  # every step's, so that one run says all that is wrong
        for index in range(len(lesson.steps)):
            if index:
                await pilot.press("greater_than_sign")
            # the player done, and the screen drawn (the pane's Markdown mounts its blocks after)
            await settle_until(pilot, lambda index=index: at(index) and screen_settled(app),
                               f"at step {index} of {lesson.path.name}")
            step = lesson.steps[index]
            shown = pane_text(app)
            where = f"step {index} on {type(app.screen).__name__}"
            title = re.sub(r"\s+|`", "", lesson.title if index == 0 else step.title)  # `code` is drawn as code
            start = plain_start(step.markdown)
            if shown is None:
                problems.append(f"{where}: no lesson pane on screen")
            elif title not in shown:
                problems.append(f"{where}: the step's title is not on screen")
            elif start not in shown:
                problems.append(f"{where}: the step's text ({start!r}) is not on screen")
            record = app.lesson.shown.get(index)
            if record is not None and not record.ok:  # its claims, checked in the pane
                problems += [f"{where}: {line}" for line in [r.line() for r in record.results if not r.ok] + record.failures]
            problems += [f"{where}: said {message!r}" for message in said if any(p.search(message) for p in bad)]
            said.clear()
        assert not problems, f"{lesson.path.name}:\n" + "\n".join(problems)
        assert app.lesson.index == len(lesson.steps) - 1
        await app.action_quit()  # as q does; its question (unsaved merges) answered yes
        if app.is_running and app.screen is not app.main_screen and hasattr(app.screen, "dismiss"):
            app.screen.dismiss(True)
        await pilot.pause()
    after = state_files(state)
    assert sorted(set(after) - set(before)) == [], "new files in the state folder"
    assert {p: b for p, b in after.items() if p in before and before[p] != b} == {}, "session files written over"
