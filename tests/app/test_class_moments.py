"""Issue 39: the moments a whole class shares ("let's look at merge N"): the words on screen
where training stops, where a count meets the merges made, and the quiz's typed pairs."""

from __future__ import annotations

import pytest
from helpers import app_on, settled

from tui.app.widgets.status_line import StatusLine
from tui.i18n import set_language

SIZE = (80, 24)


def status(app) -> str:
    return str(app.query_one(StatusLine).render())


@pytest.mark.parametrize(("lang", "done"), [
    ("en", "no pair occurs 2 times or more"),
    ("de", "kein Paar kommt 2-mal oder öfter vor"),
    ("zh", "没有出现 2 次或以上的词对"),
])
async def test_the_status_line_says_or_more_where_training_stops(tmp_path, lang, done):
    """Item 4: the status line said "no pair occurs 2 times", as if a pair seen 3 times would stop
    training too; it says what the candidates pane says."""
    set_language(lang)
    corpus = tmp_path / "wiki.txt"
    corpus.write_text("aaabdaaabac", encoding="utf-8")
    app = app_on(corpus, autosave=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "n", "n", "n")
        await settled(pilot)
        assert app.workbench.done and app.workbench.steps == 3
        assert done in status(app)
