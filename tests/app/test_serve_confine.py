"""Serve mode's folder (bpe-lab serve --root): every file the app opens, saves or exports stays
inside it; links are followed before the check. The Confinement itself, then the app with it."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import pytest
from helpers import SAMPLES, app_on, settled
from textual.widgets import Input, Label

from engine import TrainConfig, load_tokenizer
from tui.app import BpeApp
from tui.app.launch import build_parser, serve_mode
from tui.app.screens.dialogs import PromptScreen
from tui.app.screens.open_corpus import OpenScreen
from tui.model.confine import Confinement, OutsideRootError, confined_setting

SIZE = (100, 30)


@pytest.fixture
def rooms(tmp_path):
    """root/ (served, holding c.txt, a link out and a link in) beside outside/ (secret.txt)."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "c.txt").write_text("the cat in the hat\n" * 5, encoding="utf-8")
    (outside / "secret.txt").write_text("not for participants\n" * 5, encoding="utf-8")
    (root / "out.txt").symlink_to(outside / "secret.txt")
    (root / "outdir").symlink_to(outside)
    (root / "in.txt").symlink_to(root / "c.txt")
    return root, outside


def test_inside_paths_resolve_and_outside_ones_are_refused(rooms):
    root, outside = rooms
    rules = Confinement(root)
    assert rules.readable("c.txt") == root.resolve() / "c.txt"
    assert rules.readable(root / "c.txt") == root.resolve() / "c.txt"
    assert rules.readable("in.txt") == root.resolve() / "c.txt"  # a link that stays inside
    assert rules.writable("new/tok.json") == root.resolve() / "new" / "tok.json"
    for bad in (outside / "secret.txt", "../outside/secret.txt", "/etc/passwd", "~/x.json"):
        with pytest.raises(OutsideRootError, match="outside the folder this server shares"):
            rules.readable(bad)
        with pytest.raises(OutsideRootError):
            rules.writable(bad)


def test_fetched_tokenizers_are_readable_but_not_writable(rooms, monkeypatch):
    """The folder ``bpe-lab fetch`` keeps its files in holds only what bpe-lab wrote: a tab may
    read a fetched name's file (lesson 005, the compare tab), never write there."""
    root, outside = rooms
    cache = outside / "tokenizers"
    cache.mkdir()
    (cache / "o200k.json").write_text("{}", encoding="utf-8")
    monkeypatch.setenv("BPE_LAB_TOKENIZERS", str(cache))
    rules = Confinement(root)
    assert rules.readable(cache / "o200k.json") == cache.resolve() / "o200k.json"
    with pytest.raises(OutsideRootError):
        rules.writable(cache / "o200k.json")
    with pytest.raises(OutsideRootError):
        rules.readable(outside / "secret.txt")  # its neighbour is not readable


def test_links_out_are_refused_and_named(rooms):
    root, outside = rooms
    rules = Confinement(root)
    for link in ("out.txt", "outdir/secret.txt", "outdir/new.json"):
        with pytest.raises(OutsideRootError) as caught:
            rules.readable(link)
        assert f"{link} leads to {outside.resolve()}" in str(caught.value)
        with pytest.raises(OutsideRootError):
            rules.writable(link)


def test_bundled_samples_are_readable_but_not_writable(rooms):
    rules = Confinement(rooms[0])
    sample = SAMPLES / "workshop.txt"
    assert rules.readable(sample) == sample.resolve()
    with pytest.raises(OutsideRootError):
        rules.writable(sample)


def test_held_out_settings(rooms):
    root, outside = rooms
    app = argparse.Namespace(confinement=Confinement(root))
    assert confined_setting(app, "10%") == "10%"
    assert confined_setting(app, "sample:chinese.txt") == "sample:chinese.txt"
    assert confined_setting(app, "c.txt") == str(root.resolve() / "c.txt")
    with pytest.raises(OutsideRootError):
        confined_setting(app, str(outside / "secret.txt"))
    assert confined_setting(argparse.Namespace(), str(outside / "secret.txt")) == str(outside / "secret.txt")


def test_a_served_app_gets_its_own_session_file_and_works_in_the_root(rooms, tmp_path, monkeypatch):
    root, outside = rooms
    monkeypatch.chdir(tmp_path)
    args = build_parser().parse_args(["root/c.txt", "--serve-root", str(root), "--serve-sessions", str(tmp_path / "s")])
    rules = serve_mode(args)
    assert Path.cwd() == root.resolve() and rules.root == root.resolve()
    assert args.corpus == str(tmp_path / "root" / "c.txt")
    assert Path(args.session).parent == tmp_path / "s" and f"-{os.getpid()}.json" in args.session
    for argv in (["../outside/secret.txt"], ["c.txt", "--resume"], ["c.txt", "--session", "x.json"],
                 ["c.txt", "--tokenizer", str(outside / "secret.txt")]):
        args = build_parser().parse_args([*argv, "--serve-root", str(root)])
        with pytest.raises(ValueError):
            serve_mode(args)


def served_app(root: Path) -> BpeApp:
    config = TrainConfig(vocab_size=300)
    app = app_on(root / "c.txt", config)
    app.confinement = Confinement(root)
    return app


def said(app: BpeApp) -> str:
    """The newest notification's text."""
    return app.toasts.texts()[-1]


async def save_as(app: BpeApp, pilot, name: str) -> None:
    await pilot.press("s")
    assert isinstance(app.screen, PromptScreen)
    app.screen.query_one(Input).value = name
    await pilot.press("enter")
    await pilot.pause()


@pytest.mark.slow
async def test_save_and_screenshot_only_inside_the_root(rooms, monkeypatch):
    root, outside = rooms
    monkeypatch.chdir(root)
    app = served_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "n")
        for bad in (str(outside / "tok.json"), "../outside/tok.json", "outdir/tok.json"):
            await save_as(app, pilot, bad)
            assert f"not saved: {bad}: " in said(app) and "outside the folder this server shares" in said(app)
        assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
        await save_as(app, pilot, "tok.json")
        assert len(load_tokenizer(root / "tok.json").merges) == 2
        monkeypatch.setenv("BPE_LAB_SCREENSHOTS", str(outside))
        app.action_screenshot()
        await settled(pilot)
        assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
        assert "screenshot not saved" in said(app) and "outside the folder" in said(app)
        monkeypatch.setenv("BPE_LAB_SCREENSHOTS", str(root / "shots"))
        (root / "shots").mkdir()
        app.action_screenshot()
        await settled(pilot)
        assert [p.suffix for p in (root / "shots").iterdir()] == [".svg"]


@pytest.mark.slow
async def test_open_only_inside_the_root(rooms, monkeypatch):
    root, outside = rooms
    monkeypatch.chdir(root)
    app = served_app(root)
    async with app.run_test(size=SIZE) as pilot:
        for bad in (str(outside / "secret.txt"), "out.txt", "outdir/secret.txt"):
            await pilot.press("o")
            assert isinstance(app.screen, OpenScreen)
            app.screen.query_one("#open-path", Input).value = bad
            await pilot.press("enter")
            await settled(pilot)
            assert isinstance(app.screen, OpenScreen)  # the dialog stays, saying why
            said = str(app.screen.query_one("#open-error", Label).render())
            assert "outside the folder this server shares" in said
            await pilot.press("escape")
        app._open(str(outside / "secret.txt"))  # the app refuses it too, whoever asks
        await app.workers.wait_for_complete()
        await settled(pilot)
        assert app.workbench.corpus.name == "c.txt"
        (root / "d.txt").write_text("die katze und die kanne\n", encoding="utf-8")
        await pilot.press("o", *"d.txt", "enter")
        await app.workers.wait_for_complete()
        await settled(pilot)
        assert app.workbench.corpus.name == "d.txt" and app.workbench.corpus.path == root.resolve() / "d.txt"


@pytest.mark.slow
async def test_held_out_file_and_compare_tokenizer_only_inside_the_root(rooms, monkeypatch):
    from tui.app.widgets.compare_pane import ComparePane

    from test_analysis_app import settle, text_of

    root, outside = rooms
    monkeypatch.chdir(root)
    app = served_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "n")
        await save_as(app, pilot, "tok.json")
        (outside / "tok.json").write_bytes((root / "tok.json").read_bytes())
        (root / "tok-out.json").symlink_to(outside / "tok.json")
        await pilot.press("a", "3")
        await settle(pilot)
        screen = app.screen
        box = screen.query_one("#heldout-setting", Input)
        for bad in (str(outside / "secret.txt"), "out.txt"):
            box.value = bad
            box.focus()
            await pilot.press("enter")
            await settle(pilot)
            assert "outside the folder this server shares" in text_of(screen.query_one("#heldout-report"))
        box.value = "c.txt"
        await pilot.press("enter")
        await settle(pilot)
        assert "held-out: " in text_of(screen.query_one("#heldout-report")) and screen.evaluated is not None
        await pilot.press("escape", "5")
        await settle(pilot)
        box = screen.query_one("#compare-tokenizer", Input)
        for bad in (str(outside / "tok.json"), "tok-out.json"):
            box.value = bad
            box.focus()
            await pilot.press("enter")
            await settle(pilot)
            assert "outside the folder this server shares" in said(app)
        assert screen.query_one(ComparePane).extra == []
        box.value = "tok.json"
        await pilot.press("enter")
        await settle(pilot)
        assert [s.name for s in screen.query_one(ComparePane).extra] == ["tok.json"]


@pytest.mark.slow
async def test_a_fetched_name_loads_in_a_served_compare_tab(rooms, monkeypatch):
    """``gpt2`` in a served tab's compare tab: the file ``bpe-lab fetch`` kept (outside the root,
    in the cache it alone writes) is read; a name not fetched says how to fetch it."""
    import shutil

    from fetch_tokenizers import needed

    from tui.app.widgets.compare_pane import ComparePane

    from test_analysis_app import settle

    root, outside = rooms
    cache = outside / "tokenizers"
    cache.mkdir()
    shutil.copy(needed("tiktoken-npm/r50k_base.json"), cache / "gpt2.json")  # as fetch keeps it: a file
    monkeypatch.setenv("BPE_LAB_TOKENIZERS", str(cache))
    monkeypatch.chdir(root)
    app = served_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("a", "5")
        await settle(pilot)
        box = app.screen.query_one("#compare-tokenizer", Input)
        for name in ("o200k", "gpt2"):
            box.value = name
            box.focus()
            await pilot.press("enter")
            await settle(pilot)
            await app.workers.wait_for_complete()
            await settle(pilot)
        assert "not fetched yet: bpe-lab fetch o200k" in " ".join(app.toasts.texts())
        assert [s.name for s in app.screen.query_one(ComparePane).extra] == ["gpt2"]


@pytest.mark.slow
async def test_a_copy_goes_to_the_browser_not_the_servers_clipboard(rooms, monkeypatch):
    from tui.app.launch import served
    from tui.model import clipboard

    root, _outside = rooms
    monkeypatch.setattr(clipboard, "system_copy", lambda text: pytest.fail("the server's clipboard was used"))
    app = served_app(root)
    served(app, app.confinement)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "c")
        assert app.clipboard.startswith("256\t") and "(terminal clipboard (OSC 52))" in said(app)
