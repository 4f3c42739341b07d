"""Issue 15 §2: colours come from the Textual theme, every built-in theme stays readable, the app
recolours when the theme changes, ``--theme`` and the remembered theme."""

from __future__ import annotations

import io
import json
from functools import partial

import pytest
from helpers import app_on, settled
from textual.color import Color
from textual.theme import BUILTIN_THEMES

from tui.app import BpeApp
from tui.app.launch import build_parser, launch, theme_options
from tui.app.theme import MARK_CONTRAST, MIN_TOKEN_DISTANCE, TEXT_CONTRAST, contrast, current, distance, palette_for
from tui.app.widgets.corpus_view import CorpusView
from tui.model.prefs import config_path, load_prefs, save_prefs

THEMES = sorted(BUILTIN_THEMES)


def parse(value: str) -> Color:
    return Color.parse(value)


@pytest.mark.parametrize("name", THEMES)
def test_every_built_in_theme_keeps_tokens_readable_and_apart(name):
    p = palette_for(BUILTIN_THEMES[name])
    background = parse(p.background)
    backs = [parse(c) for c in p.token_backgrounds]
    assert len(backs) >= 2
    for text, back in zip(p.token_text, backs):
        assert contrast(parse(text), back) >= TEXT_CONTRAST, (name, text, back.hex)
    # neighbouring tokens differ from each other (the cycle wraps: the last one sits before the first)
    for index, back in enumerate(backs):
        assert distance(back, backs[(index + 1) % len(backs)]) >= MIN_TOKEN_DISTANCE, (name, index)
    # the last merged token, the merge log's cursor and header read too
    for fg, bg in ((p.highlight_text, p.highlight_bg), (p.cursor_text, p.cursor_bg), (p.header_text, p.header_bg)):
        assert contrast(parse(fg), parse(bg)) >= TEXT_CONTRAST, (name, fg, bg)
    # marks on the pane: partial UTF-8, errors, accents, UTF-8 roles as text; bars and dimmed parts as marks
    for text in (p.partial, p.error, p.accent, p.segment, p.ok, p.lead, p.continuation, p.text):
        assert contrast(parse(text), background) >= TEXT_CONTRAST, (name, text)
    for mark in (p.bar, p.muted):
        assert contrast(parse(mark), background) >= MARK_CONTRAST, (name, mark)
    # partial UTF-8 stays marked: its colour is not the pane's text colour
    assert distance(parse(p.partial), parse(p.text)) >= MIN_TOKEN_DISTANCE


def test_light_and_dark_themes_get_light_and_dark_token_backgrounds():
    light, dark = palette_for(BUILTIN_THEMES["textual-light"]), palette_for(BUILTIN_THEMES["textual-dark"])
    assert all(parse(c).brightness > 0.5 for c in light.token_backgrounds)
    assert all(parse(c).brightness < 0.5 for c in dark.token_backgrounds)


make_app = partial(app_on, "low-lower-lowest.txt", base="chars", pretokenizer="none", max_merges=4, autosave=False)


def corpus_backgrounds(app: BpeApp) -> set[str]:
    view = app.main_screen.query_one(CorpusView)
    colours = set()
    for y in range(view.size.height):
        for segment in view.render_line(y):
            if segment.style and segment.style.bgcolor and segment.text.strip():
                colours.add(segment.style.bgcolor.get_truecolor().hex.lower())
    return colours


@pytest.mark.slow
async def test_changing_the_theme_recolours_the_panes_and_is_remembered(tmp_path):
    prefs = tmp_path / "bpe-lab" / "config.json"
    app = make_app(prefs_file=prefs)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        dark = corpus_backgrounds(app)
        assert dark <= {c.lower() for c in palette_for(BUILTIN_THEMES["textual-dark"]).token_backgrounds}
        assert not prefs.exists()  # nothing picked yet
        app.theme = "textual-light"
        await pilot.pause()
        await pilot.pause()
        light = corpus_backgrounds(app)
        assert current().name == "textual-light"
        assert light and light <= {c.lower() for c in palette_for(BUILTIN_THEMES["textual-light"]).token_backgrounds}
    assert json.loads(prefs.read_text("utf-8")) == {"theme": "textual-light"}


def test_theme_option_the_config_file_and_an_unknown_name(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    path = config_path()
    assert path == tmp_path / "bpe-lab" / "config.json"
    args = build_parser().parse_args([])
    assert theme_options(args) == {"theme": None, "prefs_file": path, "notes": []}
    assert save_prefs(path, {"theme": "nord"}) is None
    assert theme_options(args)["theme"] == "nord"
    assert theme_options(build_parser().parse_args(["--theme", "textual-light"]))["theme"] == "textual-light"
    # a bad file: ignored with one line, never a traceback
    for data, why in ((b"{not json", "not valid JSON"), (b"[1, 2]", "not a JSON object"), (b'{"theme": "neon"}', "unknown theme")):
        path.write_bytes(data)
        options = theme_options(args)
        assert options["theme"] is None and len(options["notes"]) == 1 and why in options["notes"][0], options
        assert "\n" not in options["notes"][0]
    assert load_prefs(tmp_path / "missing.json") == ({}, None)


def test_an_unknown_theme_is_one_line_and_exit_2(monkeypatch):
    monkeypatch.setattr("tui.app.BpeApp.run", lambda *a, **k: pytest.fail("the app started"))
    err = io.StringIO()
    assert launch(["--theme", "neon"], err=err) == 2
    line = err.getvalue()
    assert line.count("\n") == 1 and line.startswith("bpe-lab: error: unknown theme 'neon'; the themes are: ")
    assert all(name in line for name in THEMES)


@pytest.mark.slow
async def test_a_bad_config_file_shows_a_message_in_the_app(tmp_path):
    app = make_app(notes=["config.json: not valid JSON; using the defaults"])
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(pilot)
        assert any("not valid JSON" in said for said in app.toasts.texts())
