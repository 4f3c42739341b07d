"""Issue 39: the moments a whole class shares ("let's look at merge N"): the words on screen
where training stops, where a count meets the merges made, and the quiz's typed pairs."""

from __future__ import annotations

from dataclasses import replace

import pytest
from helpers import app_on, settle_until, settled

from tui.app.widgets.status_line import StatusLine
from tui.i18n import _, set_language

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


async def test_the_quiz_takes_a_space_typed_first_and_says_how():
    """Item 2: at step 3 of the workshop corpus the answer is `· + t`; typing ` t` (a space, as a
    learner types it) said "t is one token already"; now it is the pair, and the panel says how
    a space is typed. The modes' names are translated (a smaller item of the issue)."""
    from textual.widgets import Input, Static

    from tui.app.screens.quiz import QuizScreen

    app = app_on("workshop.txt", autosave=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "n", "p")
        await settled(pilot)
        screen = app.screen
        assert isinstance(screen, QuizScreen)
        await pilot.press("ctrl+t")  # hidden: type the pair
        await settled(pilot)
        assert screen.query_one("#quiz-input", Input).has_focus
        spelling = str(screen.query_one("#quiz-spelling", Static).render())
        assert '" t" is · + t' in spelling and screen.query_one("#quiz-spelling").display
        await pilot.press("space", "t", "enter")
        await settled(pilot)
        assert app.workbench.steps == 3 and app.workbench.trainer.last.pair == (ord(" "), ord("t"))
        assert str(screen.query_one("#quiz-reveal", Static).render()).startswith("Right: · + t merges, 32 times.")


async def test_a_long_quiz_error_is_scrolled_into_view_whole():
    """At 80×24 in German the error under the input takes three lines, below the fold of the
    panel's body (the spelling line under it): the body scrolls so the whole sentence shows."""
    from tui.app.screens.quiz import QuizScreen

    set_language("de")
    app = app_on("workshop.txt", autosave=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "n", "p")
        await settled(pilot)
        screen = app.screen
        assert isinstance(screen, QuizScreen)
        assert str(screen.query_one("#quiz-mode").render()).startswith("gemischt:")
        await pilot.press("ctrl+t", "ctrl+t")
        await settled(pilot)
        assert str(screen.query_one("#quiz-mode").render()).startswith("getippt:")
        await pilot.press("space", "x", "enter")
        error = screen.query_one("#quiz-error")
        body = screen.query_one("#quiz-body")
        await settle_until(pilot, lambda: error.size.height >= 2, "the error laid out")
        await settled(pilot)
        assert "ergeben zurzeit ·x" in str(error.render())
        assert body.region.contains_region(error.region), (body.region, error.region)


async def test_a_run_follows_the_last_merged_token_by_default():
    """Item 6: during a run the corpus pane stayed at the top, so a class did not see the merged
    token; it follows from the start (`f` turns it off)."""
    from tui.app.theme import current
    from tui.app.widgets.corpus_view import CorpusView

    app = app_on("workshop.txt", autosave=False, vocab_size=514)  # its last token: "ji", first seen 2,636 characters in
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(CorpusView)
        assert view.follow
        await settled(pilot)  # the corpus drawn, as a class sees it before space
        await pilot.press("space")
        await settle_until(pilot, lambda: app.workbench.done, "the run to 258 merges")
        await settled(pilot)
        last = app.workbench.trainer.last.new_id
        assert view.highlight == last and view.scroll_y > 0  # it is not on the first screen
        view._prefetch()
        rows = [view.render_line(y) for y in range(view.scrollable_content_region.height)]
        assert any(seg.style == current().highlight and seg.text for row in rows for seg in row)


async def test_minus_slows_a_run_to_one_merge_every_ten_seconds():
    """Item 8: the slowest speed was 1 merge/s; `-` goes on to a merge every 2, 5 and 10 s, and
    the status line says so, running or paused."""
    import asyncio

    app = app_on("workshop.txt", autosave=False, speed=1)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("minus")
        await settled(pilot)
        assert app.training.speed == 0.5 and "runs 1 merge every 2 s" in status(app)
        app.training.posted.clear()
        await pilot.press("space")
        assert await asyncio.to_thread(app.training.posted.wait, 30), "no merge posted"
        await settle_until(pilot, lambda: "running at 1 merge every 2 s (+/-)" in status(app), "the pace shown", workers=False)
        await pilot.press("minus", "minus", "minus")
        assert app.training.speed == 0.1
        await pilot.press("space")  # a pause ends the long wait at once
        await settled(pilot)
        assert not app.running and app.workbench.steps == 1
        assert "runs 1 merge every 10 s" in status(app)


# -- item 7: a Chinese corpus opens from characters ----------------------------------------------


def test_a_mostly_cjk_corpus_is_told_by_its_text():
    from tui.model.cjk import cjk_share
    from tui.model.samples import sample

    assert cjk_share(sample("tang.txt").read_bytes().decode()) > 0.9
    assert cjk_share(sample("chinese.txt").read_bytes().decode()) > 0.9
    assert cjk_share(sample("workshop.txt").read_bytes().decode()) < 0.1  # a few Chinese lines
    assert cjk_share("天地 ab") == 0.5 and cjk_share("") == 0.0


def cjk_file(tmp_path):
    from helpers import sample_text

    path = tmp_path / "tang_like.txt"
    path.write_text(sample_text("tang.txt"), encoding="utf-8")
    return path


async def test_opening_a_chinese_file_with_the_current_settings_starts_from_characters(tmp_path):
    """Item 7: `o` kept the current settings, so a Chinese file opened as `[e5][ba][8a]…`; with
    the base not chosen it opens from characters, and a line says so and how to switch."""
    app = app_on("workshop.txt", autosave=False)
    async with app.run_test(size=SIZE) as pilot:
        assert app.lab.config.base == "bytes" and not app.lab.base_chosen
        app._open(str(cjk_file(tmp_path)))
        await settle_until(pilot, lambda: app.workbench.corpus.name == "tang_like.txt", "the file open")
        assert app.lab.config.base == "chars" and isinstance(app.workbench.corpus.units, str)
        assert any("mostly Chinese, Japanese or Korean" in note and "base bytes" in note for note in app.toasts.texts())
        # the base chosen in the settings: a Chinese file opened next keeps it
        app._restart(replace(app.lab.config, base="bytes"))
        await settle_until(pilot, lambda: app.lab.config.base == "bytes", "restarted at bytes")
        assert app.lab.base_chosen
        app._open(str(cjk_file(tmp_path)))
        await settle_until(pilot, lambda: not app.loading, "the file open again")
        assert app.lab.config.base == "bytes"


async def test_the_bundled_chinese_sample_opens_from_characters():
    app = app_on("workshop.txt", autosave=False)
    async with app.run_test(size=SIZE) as pilot:
        app._open("sample:chinese.txt")
        await settle_until(pilot, lambda: app.workbench.corpus.name == "chinese.txt", "the sample open")
        assert app.lab.config.base == "chars"
        app._open("sample:tang.txt")  # lesson 002's half characters: its example is at bytes
        await settle_until(pilot, lambda: app.workbench.corpus.name == "tang.txt", "the sample open")
        assert app.lab.config.base == "bytes"


def test_launching_on_a_chinese_file_without_base_starts_from_characters(tmp_path, monkeypatch):
    from tui.app import BpeApp
    from tui.app.launch import launch

    started = []
    monkeypatch.setattr(BpeApp, "run", lambda self, **kwargs: started.append(self))
    monkeypatch.setenv("BPE_LAB_SESSION", str(tmp_path / "s.json"))
    path = cjk_file(tmp_path)
    assert launch([str(path)]) == 0
    assert launch([str(path), "--base", "bytes"]) == 0
    chars, chosen = started
    assert chars.lab.config.base == "chars" and isinstance(chars.lab.pending.units, str)
    assert "mostly Chinese" in chars.lab._open_note and not chars.lab.base_chosen
    assert chosen.lab.config.base == "bytes" and chosen.lab._open_note is None and chosen.lab.base_chosen


# -- item 3: numbers are never cut ---------------------------------------------------------------


def rendered(renderable, width: int) -> list[str]:
    from rich.console import Console

    console = Console(width=width, color_system=None, legacy_windows=False)
    return ["".join(seg.text for seg in line).rstrip() for line in console.render_lines(renderable, pad=False)]


@pytest.mark.parametrize("lang", ["en", "de", "zh"])
@pytest.mark.parametrize("width", [30, 40, 52, 80])
def test_the_baselines_table_never_cuts_a_number(lang, width):
    """Lesson 004 at 80×24 showed vocabulary sizes 456 and 196 as `4…` and `1…`: the table now
    wraps its titles and cuts names first, or becomes a list; every number shows whole."""
    from rich.cells import cell_len

    from engine.analysis import Row
    from tui.app.widgets.baselines_pane import rows_table

    set_language(lang)
    rows = [Row("bpe (step 200)", 456, 3000, 1035, 0, 400, 136, 0), Row("word", 196, 3000, 655, 0, 400, 79, 18),
            Row("wordpiece", note="needs the tokenizers library")]
    lines = rendered(rows_table(rows), width)
    assert all(cell_len(line) <= width for line in lines)
    text = "\n".join(lines)
    for number in ("456", "1,035", "136", "196", "655", "79", "18", "2.941", "5.063"):
        assert number in text, (number, text)
    if width == 80:
        assert "bpe (step 200)" in text  # room for the names too


def test_chinese_titles_break_between_characters_so_the_names_keep_their_room():
    """Lesson 004 in Chinese at 80×24: the titles (训练文本, 留出文本: no space to wrap at) took
    eight cells each, so the BPE row's name was cut to `bpe（ …`; and the pane's note under the
    table, a line with no space either, was cut with `…` and lost its middle."""
    from engine.analysis import Row
    from tui.app.widgets.baselines_pane import BaselinesPane, rows_table, title_lines

    assert title_lines("训练文本", 5) == ["训练", "文本"] and title_lines("字符/词元", 5) == ["字符/", "词元"]
    set_language("zh")
    rows = [Row(_("bpe (step {step})").format(step=200), 456, 3000, 1035, 0, 400, 136, 0),
            Row("wordpiece", 431, 3000, 717, 0, 400, 112, 0)]
    lines = rendered(rows_table(rows), 52)
    text = "\n".join(lines)
    assert "bpe（第 200 步）" in text and "wordpiece" in text and "…" not in text, text
    assert lines[2].startswith("bpe"), text  # the titles on two lines, not one character a line
    pane = BaselinesPane()
    pane.show(rows, "qa.txt 的最后 10%", 456)
    shown = "".join(rendered(pane.content, 50)).replace(" ", "")
    note = _("unknown and chars/token are measured on the held-out text; the word tokenizer drops whitespace, "
             "WordPiece splits on it, Unigram and BPE keep it").replace(" ", "")
    assert note in shown and "…" not in shown


def test_a_bytes_log_of_chinese_keeps_byte_pairs_whole_at_80_columns():
    """tang_all at the bytes base, `}`: `│94   …      [ad]   中` replaced [e4 b8] by "…"; the
    token columns share by need where even shares would cut a value of up to 7 cells."""
    from rich.cells import cell_len

    from tui.app.widgets.merge_log import TITLES, WHOLE_TOKEN, column_widths

    titles = tuple(cell_len(t) for t in TITLES)
    # the log's 46 inner cells at 80 columns; step 100, count 6,284 (and a tie mark), 3,302,651 tokens
    widths = column_widths(46, {0: 3, 4: 7, 5: 8}, titles, {1: 7, 2: 4, 3: 7})
    assert all(widths), widths
    assert widths[1] >= 7 and widths[3] >= 7 and widths[4] >= 7 and widths[5] >= 8, widths
    # values of up to WHOLE_TOKEN cells in all three columns, with no room for them: a column drops
    widths = column_widths(46, {0: 3, 4: 7, 5: 8}, titles, {1: 7, 2: 7, 3: WHOLE_TOKEN})
    assert min(w for w in widths[1:4] if w) >= 7 and widths[4] >= 7, widths


def test_a_cut_is_drawn_unlike_the_token_made_of_an_ellipsis():
    """`…` is a token (GPT-2's merge 49993 makes `…` + `.`): a value cut to fit ends in a `…`
    drawn in reverse video, a real `…` in the text's own style."""
    from rich.style import Style

    from tui.app.cut_mark import CUT, fit_segments

    plain = Style(bold=True)
    cut = fit_segments("·counting", 5, plain)
    assert "".join(s.text for s in cut) == "·cou…"
    assert [s.style for s in cut if s.text == "…"] == [plain + CUT]
    real = fit_segments("…", 5, plain)
    assert "".join(s.text for s in real) == "…    " and all(s.style == plain for s in real)


async def test_the_curve_at_step_0_says_there_is_nothing_to_plot_yet():
    """At step 0 the curve tab drew a flat line from 3,190 to 3,190; it says why there is none."""
    from tui.app.widgets.curve_pane import CurvePane

    app = app_on("workshop.txt", autosave=False, still=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("a")
        await settle_until(pilot, lambda: app.screen.query(CurvePane) and app.screen.query_one(CurvePane).curve,
                           "the curve shown")
        pane = app.screen.query_one(CurvePane)
        shown = "\n".join(rendered(pane.render(), pane.content_size.width))
        assert "Nothing to plot yet" in shown and "┤" not in shown
        await pilot.press("n")
        await settle_until(pilot, lambda: pane.curve.last == 1, "the curve after a step")
        shown = "\n".join(rendered(pane.render(), pane.content_size.width))
        assert "Nothing to plot yet" not in shown and "┤" in shown


@pytest.mark.slow
async def test_the_compare_tab_packs_its_rows_beside_the_scroll_bar(tmp_path, monkeypatch):
    """Issue 39: the compare tab's rows were packed to the output's width before its scroll bar
    showed, then cut at the right edge ("…im Park spazier"); they are packed to the width beside
    the bar, so every row shows whole. (Beside a lesson at 80×24, where it was seen: a lesson's
    start takes over 2 s.)"""
    import re

    from helpers import ROOT
    from rich.cells import cell_len
    from textual.widgets import Static

    from tui.app.widgets.compare_pane import ComparePane
    from tui.lessons.format import parse

    drawn = {}
    update = Static.update

    def spy(self, content="", **kwargs):
        if self.id == "compare-output":
            drawn["last"] = content
        return update(self, content, **kwargs)

    monkeypatch.setattr(Static, "update", spy)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    app = app_on(None, autosave=False, still=True, lesson=parse(ROOT / "assets" / "lessons" / "004-words-vs-bpe.en.md"))
    async with app.run_test(size=SIZE) as pilot:
        await settle_until(pilot, lambda: app.workbench is not None, "the lesson's corpus")
        await pilot.press("a", "5")
        await settle_until(pilot, lambda: app.screen.query(ComparePane) and app.screen.query_one(ComparePane)._shown[0],
                           "the compare tab shown")
        await settled(pilot)
        output = app.screen.query_one(ComparePane).query_one("#compare-output", Static)
        assert output.parent.show_vertical_scrollbar  # the output is longer than the pane
        rows = [line for line in rendered(drawn["last"], 10_000) if re.match(r"(  |▪ |[a-z]{2} +\d)", line)]
        assert len(rows) > 10 and max(cell_len(line) for line in rows) <= output.size.width, (output.size.width, rows)


async def test_the_inspector_says_why_a_count_of_92_merges_46_times():
    """Item 5: step 1 on the workshop corpus merges `· + ·`, count 92, and the corpus loses 46
    tokens: overlapping pairs count, merges do not overlap. The inspector says so where the two
    numbers meet; a pair of two different tokens (no overlap possible) gets no such line."""
    from tui.app.widgets.inspector import Inspector

    app = app_on("workshop.txt", autosave=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n")
        await settled(pilot)
        trainer = app.workbench.trainer
        assert trainer.last.count == 92 and trainer.last.tokens_before - trainer.last.tokens_after == 46
        shown = app.query_one(Inspector).plain
        assert "born at step 1, count 92\n46 merged: ··· counts twice, merges once (no overlap)\nnow 46×" in shown
        await pilot.press("n")
        await settled(pilot)
        assert trainer.last.pair == (ord("e"), ord("r"))
        assert "merged:" not in app.query_one(Inspector).plain


@pytest.mark.parametrize("lang", ["en", "de", "zh"])
def test_the_branch_comparison_never_calls_a_trained_on_part_held_out(lang):
    """Issue 39: headed "held-out: last 10% of workshop.txt (the branches trained on it too)",
    which contradicts itself, and "│held-out A b/tok" lost its space at 80 columns."""
    from types import SimpleNamespace

    from rich.cells import cell_len

    from tui.app.screens.branches import render_comparison

    set_language(lang)
    rows = [SimpleNamespace(step=3, tokens=(3058, 3058), heldout=(316, 316)),
            SimpleNamespace(step=7, tokens=(2963, None), heldout=(306, None))]
    result = SimpleNamespace(a="b1", b="main", parts_at=3, rows=rows, corpus_bytes=3190, heldout_bytes=323,
                             per_token=lambda size, tokens: size / tokens, only_a=[b"he"], only_b=[b"en"])
    part = render_comparison(result, 76, ("…", "last 10% of workshop.txt", True)).plain.splitlines()
    held = render_comparison(result, 76, ("…", "notes.txt", False)).plain.splitlines()
    assert "last 10% of workshop.txt" in part[1] and "…" not in part[1]
    assert held[1].rstrip().endswith("notes.txt")
    for lines in (part, held):
        header = lines[2]
        assert all(cell.startswith(" ") for cell in header.split("│")), header  # a space after each bar
        assert all(cell_len(line) <= 76 for line in lines)
        assert "3058" in lines[3] and "316" in lines[3] and "306" in lines[4]
    if lang == "en":
        assert part[1].startswith("part: ") and held[1].startswith("held-out: ")
        assert "part A" in part[2] and "held-out A" in held[2] and "held-out" not in part[2]


@pytest.mark.parametrize("lang", ["en", "de", "zh"])
def test_the_vocabulary_tab_keeps_each_label_whole_beside_a_lesson(lang):
    """Lesson 002, step 5 at 80×24: beside the lesson the label after a bar wrapped under the
    counts ("…  exactly" / "one complete character"). A label wraps under itself after its bar,
    and where that column is too narrow each label stands on a line of its own above its bar."""
    from engine.analysis import composition
    from tui.app.widgets.composition_pane import KIND_LABELS, composition_text

    set_language(lang)
    vocab = [bytes([i]) for i in range(256)] + ["上".encode(), "月光".encode(), b"\xe4\xb8"]
    comp = composition(vocab, 256)
    for width, beside in ((50, False), (78, True), (110, True)):
        lines = rendered(composition_text(comp, vocab, 3, width), width)
        for label in map(_, KIND_LABELS.values()):
            bar_lines = [line for line in lines if "%" in line]
            if beside:  # after its bar, a longer one wrapped under itself (40 cells in)
                at = next(i for i, line in enumerate(lines) if "%" in line and label[:4] in line)
                parts = [lines[at][40:]]
                while at + len(parts) < len(lines) and lines[at + len(parts)].startswith(" " * 40):
                    parts.append(lines[at + len(parts)][40:])
                assert "".join(parts).replace(" ", "") == label.replace(" ", ""), (label, lines)
            else:
                assert not any(label[:5] in line for line in bar_lines), lines
                assert label.replace(" ", "") in "".join(lines).replace(" ", ""), (label, lines)
