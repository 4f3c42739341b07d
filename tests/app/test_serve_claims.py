"""In serve, a save never replaces a file its tab did not write, even when two tabs save one new
name at the same instant (issue 21, item 2): the name is claimed atomically (``O_CREAT |
O_EXCL``), then written by an atomic replace. A name whose save fails is let go."""

from __future__ import annotations

import errno
import os
import threading

import pytest

from engine.corpus import atomic_write_text
from tui.model.confine import Confinement, NotThisTabsError, abandon

REFUSED = ("tok.json is in the shared folder and was not saved from this tab: choose another name "
           "(a tab replaces only its own files)")


def test_of_two_tabs_that_both_found_a_name_free_only_one_claims_it(tmp_path):
    one, two = Confinement(tmp_path, tab="tab1"), Confinement(tmp_path, tab="tab2")
    assert one.replaceable("tok.json") == two.replaceable("tok.json")  # both checks pass: the old race
    target = one.claim("tok.json")
    with pytest.raises(NotThisTabsError) as refused:
        two.claim("tok.json")
    assert str(refused.value) == REFUSED
    atomic_write_text(target, "one's")
    one.wrote(target)
    assert one.claim("tok.json") == target  # its own: saved again
    assert target.read_text(encoding="utf-8") == "one's"


def test_two_concurrent_writers_never_replace_each_other(tmp_path):
    """Two threads, each a tab, released together on a barrier to save the same new name, many
    rounds: each round exactly one save lands, and the file holds that tab's bytes."""
    rounds, barrier = 200, threading.Barrier(2)
    outcome: dict[tuple[int, str], str] = {}

    def tab(name: str) -> None:
        rules = Confinement(tmp_path, tab=name)
        for k in range(rounds):
            barrier.wait(10)
            try:
                target = rules.claim(f"copy-{k}.json")
            except NotThisTabsError:
                outcome[k, name] = "refused"
                continue
            atomic_write_text(target, f"{name}'s copy {k}")
            rules.wrote(target)
            outcome[k, name] = "saved"

    threads = [threading.Thread(target=tab, args=(name,)) for name in ("tab1", "tab2")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    for k in range(rounds):
        results = {name: outcome[k, name] for name in ("tab1", "tab2")}
        assert sorted(results.values()) == ["refused", "saved"], (k, results)
        (winner,) = [name for name, result in results.items() if result == "saved"]
        assert (tmp_path / f"copy-{k}.json").read_text(encoding="utf-8") == f"{winner}'s copy {k}"


def test_a_file_put_in_place_of_the_tabs_own_is_not_its_own(tmp_path):
    """Tab one saved tok.json; it was deleted and tab two saved its own there: tab one may no
    longer replace it (the tab's mark is the file it wrote, not the name)."""
    one, two = Confinement(tmp_path, tab="tab1"), Confinement(tmp_path, tab="tab2")
    target = one.claim("tok.json")
    atomic_write_text(target, "one's")
    one.wrote(target)
    target.unlink()
    atomic_write_text(two.claim("tok.json"), "two's")
    two.wrote(target)
    with pytest.raises(NotThisTabsError):
        one.claim("tok.json")
    assert target.read_text(encoding="utf-8") == "two's"


def test_a_claimed_folder_is_the_tabs_and_let_go_when_empty(tmp_path):
    class Tab:
        confinement = Confinement(tmp_path, tab="tab1")

    folder = Tab.confinement.claim("exports/ex", folder=True)  # the shared parent is made too
    assert folder.is_dir()
    with pytest.raises(NotThisTabsError):
        Confinement(tmp_path, tab="tab2").claim("exports/ex", folder=True)
    abandon(Tab(), "exports/ex")
    assert not folder.exists() and (tmp_path / "exports").is_dir()


async def test_in_the_app_a_failed_save_leaves_no_empty_file(tmp_path, monkeypatch):
    from test_serve_confine import SIZE, said, save_as, served_app

    root = tmp_path / "root"
    root.mkdir()
    (root / "c.txt").write_text("the cat in the hat\n" * 5, encoding="utf-8")
    monkeypatch.chdir(root)
    app = served_app(root)

    def full_disk(fd):  # the disk fills while the tokenizer is written
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n")
        monkeypatch.setattr(os, "fsync", full_disk)
        await save_as(app, pilot, "tok.json")
        shown = app.toasts.texts()  # (the session's autosave may fail too)
        assert "not saved: tok.json: No space left on device" in shown
        assert sorted(p.name for p in root.iterdir()) == ["c.txt"]  # no empty tok.json
        monkeypatch.undo()
        monkeypatch.chdir(root)
        await save_as(app, pilot, "tok.json")  # the name is still free for this tab (or another)
        assert said(app).startswith("saved tok.json")
        assert (root / "tok.json").stat().st_size > 0


def test_names_that_cannot_be_claimed_are_one_line_and_leave_nothing(tmp_path):
    class Tab:
        confinement = Confinement(tmp_path, tab="tab1")

    rules = Tab.confinement
    with pytest.raises(ValueError, match="embedded null byte"):
        rules.claim("a\x00b.json")
    abandon(Tab(), "a\x00b.json")  # the failed save's clean-up: no traceback either
    with pytest.raises(ValueError) as caught:
        rules.claim("x.json/")
    assert str(caught.value) == "x.json/: cannot write (a name ending in / is a folder, not a file); nothing was written"
    with pytest.raises(OSError):
        rules.claim("no-such-folder/x.json")
    with pytest.raises(OSError):
        rules.claim("a" * 5000 + ".json")
    assert list(tmp_path.iterdir()) == [] and not rules.claimed
