"""Issue 15 §4: figures and data to share. The analysis tables as CSV and JSON (from the app's `x`
and from `bpe-lab train --export`), figures with matplotlib (or one line without it), `bpe-lab
plot`, and `X`, the screenshot key."""

from __future__ import annotations

import csv
import io
import json
import sys

import pytest
from helpers import SAMPLES

import tui.cli.commands as cli
from engine import TrainConfig, Trainer
from engine.analysis import (
    PLOTS_HINT,
    PlotsUnavailable,
    composition,
    composition_table,
    compression_curve,
    curve_table,
    merge_log_table,
    read_table,
    write_figure,
    write_tables,
)
from engine.text import token_display
from tui.app.screens.analysis import AnalysisScreen
from tui.app.widgets.composition_pane import CompositionPane
from tui.app.widgets.curve_pane import CurvePane, milestone_table
from tui.app.widgets.merge_log import MergeLog
from tui.model.cells import seal

from test_analysis_app import make_app, settle

QA = ["--base", "chars", "--pretokenizer", "none", "--tie-break", "first-seen", "--no-merge-newline", "--merges", "48"]


def qa_trainer() -> Trainer:
    trainer = Trainer((SAMPLES / "qa.txt").read_text(encoding="utf-8"),
                      TrainConfig(base="chars", pretokenizer="none", tie_rule="first-seen", no_merge_newline=True, max_merges=48))
    trainer.train()
    return trainer


def read_csv(path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture
def no_matplotlib(monkeypatch):
    """matplotlib cannot be imported (None in sys.modules blocks the import), as without the extra."""
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)


# -- the engine's tables --------------------------------------------------------------------------


def test_the_curve_table_is_seed_001s_experiment():
    trainer = qa_trainer()
    table = curve_table(compression_curve(trainer))
    tokens = {row[0]: row[1] for row in table.rows}
    assert [tokens[k] for k in (0, 6, 12, 24, 48)] == [3225, 2747, 2506, 2188, 1816]  # the README's rows
    assert table.to_json()["milestones"] == [0, 6, 12, 24, 48]
    trainer.undo()
    undone = curve_table(compression_curve(trainer))
    assert undone.rows[-1][3] is True and undone.rows[-2][3] is False and undone.meta["current_step"] == 47


def test_tables_round_trip_through_csv_and_json(tmp_path):
    trainer = qa_trainer()
    vocab = trainer.vocab
    tables = [curve_table(compression_curve(trainer)), composition_table(composition(vocab, trainer.base_size), vocab, 48),
              merge_log_table(trainer)]
    written = write_tables(tmp_path / "out", tables)
    assert sorted(p.name for p in written) == sorted(f"{n}.{s}" for n in ("curve", "composition", "merges") for s in ("csv", "json"))
    merges = read_csv(tmp_path / "out" / "merges.csv")
    assert [int(r["new_id"]) for r in merges] == [e.new_id for e in trainer.history]
    assert json.loads((tmp_path / "out" / "merges.json").read_text("utf-8"))["rows"][0]["new"] == merges[0]["new"]
    for name in ("curve", "composition"):
        for suffix in ("csv", "json"):
            back = read_table(tmp_path / "out" / f"{name}.{suffix}")
            assert back.name == name and [r[:3] for r in back.rows] == [r[:3] for r in tables[0 if name == "curve" else 1].rows]


def test_the_files_hold_the_tokens_real_text_not_the_screens_glyphs(tmp_path):
    """Issue 39: the merge log's CSV wrote `·` and `↵` (the screen's marks for a space and a
    newline) in left, right and new; a data file holds the text. A token that is no whole UTF-8
    keeps its bytes in brackets, and new_hex has every byte."""
    text = "the cat\nthe hat\n" * 20 + "上上下下\n" * 5
    trainer = Trainer(text, TrainConfig(max_merges=20, pretokenizer="none"))  # merges across spaces and newlines
    trainer.train()
    write_tables(tmp_path, [merge_log_table(trainer), composition_table(composition(trainer.vocab, trainer.base_size),
                                                                        trainer.vocab, trainer.steps)])
    rows = read_csv(tmp_path / "merges.csv")
    for row, event in zip(rows, trainer.history):
        assert bytes.fromhex(row["new_hex"]) == event.token
        try:
            assert row["new"] == event.token.decode("utf-8")
        except UnicodeDecodeError:
            assert row["new"].startswith("[") or "[" in row["new"]
        assert "·" not in row["left"] + row["right"] + row["new"] and "↵" not in row["left"] + row["right"] + row["new"]
    texts = {row["new"] for row in rows}
    assert "the " in texts and "at\n" in texts  # a space and a newline as themselves
    assert any(t.startswith("[") for t in texts)  # a cut character: its bytes
    comp = json.loads((tmp_path / "composition.json").read_text("utf-8"))
    tokens = [entry["token"] for kind in comp["earliest"].values() for entry in kind]
    assert tokens and not any("·" in t or "↵" in t for t in tokens)


def test_a_file_that_is_no_table_is_one_line(tmp_path):
    for name, data in (("tok.json", '{"format": "bpe-lab"}'), ("x.csv", "a,b\n1,2\n"), ("bad.csv", "merges,tokens,bytes_per_token\n1,x,2\n")):
        (tmp_path / name).write_text(data)
        with pytest.raises(ValueError) as caught:
            read_table(tmp_path / name)
        assert "\n" not in str(caught.value) and name in str(caught.value)


@pytest.mark.slow
@pytest.mark.needs_extra("plots")
def test_figures_are_svg_and_png_when_matplotlib_is_there(tmp_path):
    trainer = qa_trainer()
    curve = curve_table(compression_curve(trainer))
    comp = composition_table(composition(trainer.vocab, trainer.base_size), trainer.vocab, 48)
    svg = write_figure(curve, tmp_path / "curve.svg")
    assert svg.read_text("utf-8").lstrip().startswith("<?xml") and "<svg" in svg.read_text("utf-8")
    png = write_figure(comp, tmp_path / "comp.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_without_matplotlib_a_figure_is_one_line(tmp_path, no_matplotlib):
    table = curve_table(compression_curve(qa_trainer()))
    with pytest.raises(PlotsUnavailable) as caught:
        write_figure(table, tmp_path / "curve.svg")
    assert str(caught.value) == PLOTS_HINT and not (tmp_path / "curve.svg").exists()


# -- the command line -----------------------------------------------------------------------------


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_train_curve_out_matches_the_printed_curve(tmp_path):
    code, printed, _ = run("train", str(SAMPLES / "qa.txt"), "-o", str(tmp_path / "t.json"), *QA, "--curve",
                           "--curve-out", str(tmp_path / "curve.csv"))
    assert code == 0
    rows = read_csv(tmp_path / "curve.csv")
    lines = [line.split("\t") for line in printed.splitlines()[1:]]
    assert [(r["merges"], r["tokens"]) for r in rows] == [(m, t) for m, t, _ in lines]
    assert [float(r["bytes_per_token"]) for r in rows] == pytest.approx([float(b) for _, _, b in lines], abs=1e-4)
    code, _, _ = run("train", str(SAMPLES / "qa.txt"), "-o", str(tmp_path / "t.json"), *QA, "--curve-out", str(tmp_path / "c.json"))
    assert json.loads((tmp_path / "c.json").read_text("utf-8"))["rows"][48] == {"merges": 48, "tokens": 1816,
                                                                                "bytes_per_token": 1.7759, "undone": False}


@pytest.mark.slow
@pytest.mark.needs_extra("plots")
def test_train_export_writes_every_table_and_the_figures(tmp_path):
    heldout = SAMPLES / "low-lower-lowest.txt"
    code, _, err = run("train", str(SAMPLES / "qa.txt"), "-o", str(tmp_path / "t.json"), *QA, "--export", str(tmp_path / "out"),
                       "--heldout", str(heldout))
    assert code == 0, err
    names = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert names == sorted([f"{n}.{s}" for n in ("curve", "composition", "merges", "heldout") for s in ("csv", "json")]
                           + ["curve.svg", "composition.svg"])
    held = {r["measure"]: r["value"] for r in read_csv(tmp_path / "out" / "heldout.csv")}
    assert held["characters"] == str(len(heldout.read_text("utf-8"))) and held["step"] == "48"
    code, _, err = run("plot", str(tmp_path / "out" / "curve.csv"), "-o", str(tmp_path / "again.png"))
    assert code == 0 and (tmp_path / "again.png").read_bytes()[:4] == b"\x89PNG"


def test_train_export_without_matplotlib_writes_the_tables_and_says_so(tmp_path, no_matplotlib):
    code, _, err = run("train", str(SAMPLES / "qa.txt"), "-o", str(tmp_path / "t.json"), *QA, "--export", str(tmp_path / "out"))
    assert code == 0
    notes = [line for line in err.splitlines() if "note:" in line]
    from tui.extras import with_install_hints  # the engine's hint, said for how bpe-lab was installed

    assert notes == [f"bpe-lab: note: {with_install_hints(PLOTS_HINT)}; the tables were written"]
    assert "bpe-lab[" not in notes[0]
    assert sorted(p.suffix for p in (tmp_path / "out").iterdir()) == [".csv"] * 3 + [".json"] * 3


# -- the app ---------------------------------------------------------------------------------------


@pytest.mark.slow
async def test_x_exports_what_the_analysis_screen_shows(tmp_path, monkeypatch):
    monkeypatch.setenv("BPE_LAB_EXPORTS", str(tmp_path / "exports"))
    app = make_app("qa.txt", base="chars", pretokenizer="none", tie_rule="first-seen", no_merge_newline=True,
                   max_merges=48, vocab_size=None)
    said: list[str] = []
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        for key in ("space",):
            await pilot.press(key)
        await app.workers.wait_for_complete()
        await pilot.press("u", "u")  # two undone merges: the files mark them as the screen dims them
        monkeypatch.setattr(app, "say", lambda message, **kw: said.append(message))
        log_rows = dict(app.main_screen.query_one(MergeLog)._texts)
        await pilot.press("a")
        await settle(pilot)
        curve = app.screen.query_one(CurvePane).curve
        table_text = milestone_table(curve).plain
        await pilot.press("3")  # the held-out tab: measured in a worker
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        comp, _vocab, step = app.screen.query_one(CompositionPane)._last
        assert isinstance(app.screen, AnalysisScreen) and app.screen.evaluated is not None
        report = app.screen.evaluated.report
        await pilot.press("x")
        await app.workers.wait_for_complete()
        await pilot.pause()
    folder = tmp_path / "exports" / "qa-step46"
    assert said and str(folder) in said[-1], said
    # the curve: every step the plots draw, and the milestone table's rows as the screen prints them
    rows = read_csv(folder / "curve.csv")
    assert [int(r["tokens"]) for r in rows] == list(curve.tokens)
    assert [r["undone"] for r in rows[-3:]] == ["False", "True", "True"]
    for milestone in curve.milestones():
        row = rows[milestone]
        assert f"{int(row['tokens']):>10,} {float(row['bytes_per_token']):>8.2f}" in table_text
    # the composition: the counts and shares the bars show
    shown = {r["kind"]: (int(r["count"]), float(r["share"])) for r in read_csv(folder / "composition.csv")}
    assert shown == {kind: (comp.counts[kind], round(comp.share(kind), 4)) for kind in comp.counts}
    assert json.loads((folder / "composition.json").read_text("utf-8"))["step"] == step == 46
    # the held-out numbers of the held-out tab
    held = {r["measure"]: r["value"] for r in read_csv(folder / "heldout.csv")}
    assert (int(held["tokens"]), int(held["characters"]), float(held["chars_per_token"])) == (
        report.tokens, report.characters, round(report.chars_per_token, 4))
    # the merge log: the rows the main screen's log drew (step, left, right, new, count, tokens)
    merges = read_csv(folder / "merges.csv")
    assert log_rows
    for row, texts in log_rows.items():
        m = merges[row]
        shown = [seal(token_display(m[c].encode("utf-8"), space="·")) for c in ("left", "right", "new")]  # as the log draws
        assert (m["step"], *shown, m["tokens_after"]) == (texts[0], texts[1], texts[2], texts[3], texts[5])
        assert texts[4].rstrip("*") == m["count"] and texts[4].endswith("*") == (m["tied"] == "True")
    assert [m["undone"] for m in merges[-2:]] == ["True", "True"]


@pytest.mark.slow
async def test_x_without_matplotlib_still_writes_the_tables_and_says_how_to_get_figures(tmp_path, monkeypatch, no_matplotlib):
    monkeypatch.setenv("BPE_LAB_EXPORTS", str(tmp_path))
    app = make_app("low-lower-lowest.txt", base="chars", pretokenizer="none", max_merges=4, vocab_size=None)
    said: list[str] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        monkeypatch.setattr(app, "say", lambda message, **kw: said.append(message))
        await pilot.press("n", "n", "a")
        await settle(pilot)
        await pilot.press("x")
        await app.workers.wait_for_complete()
    assert len(said) == 1 and PLOTS_HINT in said[0] and "\n" not in said[0]
    assert sorted(p.name for p in (tmp_path / "low-lower-lowest-step2").iterdir()) == sorted(
        f"{n}.{s}" for n in ("curve", "composition", "merges") for s in ("csv", "json"))


@pytest.mark.slow
async def test_capital_x_saves_a_screenshot_anywhere_in_the_app(tmp_path, monkeypatch):
    monkeypatch.setenv("BPE_LAB_SCREENSHOTS", str(tmp_path))
    app = make_app("low-lower-lowest.txt", base="chars", pretokenizer="none", max_merges=4, vocab_size=None)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("X")
        await pilot.press("a")
        await settle(pilot)
        await pilot.press("X")
        await pilot.pause()
    shots = sorted(tmp_path.glob("*.svg"))
    assert len(shots) >= 1 and all("<svg" in p.read_text("utf-8") for p in shots)
