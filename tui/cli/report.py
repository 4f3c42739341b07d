"""``train --curve-out`` / ``--export`` and ``bpe-lab plot``: the analysis screen's tables and
figures from the command line (the tables are built in ``engine/analysis/report.py``, as the
app's export builds them)."""

from __future__ import annotations

import argparse
import json
import os
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from engine import Trainer


def add_report_options(train: argparse.ArgumentParser) -> None:
    """``train``'s options that write the run's tables and figures."""
    train.add_argument("--curve-out", metavar="FILE", help="write the curve (merges, tokens, bytes/token) to FILE: .csv or .json")
    train.add_argument("--export", metavar="DIR",
                       help="write the curve, the composition and the merge log (and --heldout's numbers) as CSV and JSON "
                            "into DIR, and the curve and composition as SVG figures when matplotlib is installed")
    train.add_argument("--heldout", metavar="FILE", help="with --export: measure the trained tokenizer on this held-out text")


def add_plot_parser(sub) -> None:
    """``bpe-lab plot TABLE -o OUT``."""
    plot = sub.add_parser("plot", help="draw a curve or composition table (from train --export or the app) as a figure")
    plot.add_argument("table", metavar="TABLE", help="curve.csv, curve.json, composition.csv or composition.json")
    plot.add_argument("-o", "--output", required=True, metavar="OUT", help="the figure to write: .svg, .png or .pdf")
    plot.add_argument("--title", help="the figure's title (default: compression curve / vocabulary composition)")


def check_report_args(args: argparse.Namespace) -> None:
    """Refuse report options that cannot be honoured, before any training (UsageError)."""
    from tui.cli.common import UsageError

    if args.curve_out is not None and not args.curve_out.lower().endswith((".csv", ".json")):
        raise UsageError(f"--curve-out {args.curve_out}: name a .csv or .json file")
    if args.heldout is not None and args.export is None:
        raise UsageError("--heldout goes with --export DIR (where its numbers are written)")
    if args.heldout is not None and args.counts is not None:
        raise UsageError("--heldout compares with the training text, and a counts table has none: train on the corpus")


def export_paths(folder: str | None, heldout: str | None) -> list[str]:
    """The files ``--export DIR`` writes (tables as CSV and JSON; the figures)."""
    if folder is None:
        return []
    names = ["curve", "composition", "merges", *(["heldout"] if heldout else [])]
    files = [f"{name}{suffix}" for name in names for suffix in (".csv", ".json")] + ["curve.svg", "composition.svg"]
    return [os.path.join(folder, name) for name in files]


def write_reports(args: argparse.Namespace, trainer: Trainer, corpus_bytes: int, text: str, heldout: str | None,
                  err: TextIO) -> None:
    """``--curve-out`` and ``--export``: the analysis screen's tables (and figures) for this run."""
    from tui.cli.common import PROG
    if args.curve_out is None and args.export is None:
        return
    from engine.analysis import (
        PlotsUnavailable,
        composition,
        composition_table,
        compression_curve,
        curve_table,
        evaluate_heldout,
        figure_bytes,
        heldout_table,
        merge_log_table,
        write_tables,
    )
    from engine.corpus import atomic_write_text

    curve = curve_table(compression_curve(trainer, corpus_bytes))
    if args.curve_out is not None:
        csv_file = args.curve_out.lower().endswith(".csv")
        atomic_write_text(args.curve_out, curve.to_csv() if csv_file else json.dumps(curve.to_json(), indent=1) + "\n")
        print(f"{PROG}: wrote {args.curve_out}", file=err)
    if args.export is None:
        return
    comp = composition_table(composition(trainer.vocab, trainer.base_size), trainer.vocab, trainer.steps)
    tables = [curve, comp, merge_log_table(trainer)]
    if heldout is not None:
        report = evaluate_heldout(trainer.tokenizer(), heldout, text)
        tables.append(heldout_table(report, label=args.heldout, step=trainer.steps))
    figures, missing = [], None
    try:  # drawn first: the tables and the figures are written as one (a full disk leaves none)
        figures = [(f"{table.name}.svg", figure_bytes(table, f"{table.name}.svg")) for table in (curve, comp)]
    except PlotsUnavailable as exc:
        missing = exc
    written = write_tables(args.export, tables, figures)
    if missing is not None:
        from tui.extras import with_install_hints

        print(f"{PROG}: note: {with_install_hints(str(missing))}; the tables were written", file=err)
    print(f"{PROG}: wrote {len(written)} files to {args.export}: {', '.join(p.name for p in written)}", file=err)


def run_plot(args: argparse.Namespace, err: TextIO) -> int:
    """``bpe-lab plot TABLE -o OUT``: a curve or composition table as a figure."""
    from engine.analysis import FIGURE_SUFFIXES, read_table, write_figure
    from engine.corpus import refuse_inputs
    from tui.cli.common import PROG, UsageError

    if not args.output.lower().endswith(FIGURE_SUFFIXES):
        raise UsageError(f"-o {args.output}: name a .svg, .png or .pdf file")
    refuse_inputs([args.output], [(args.table, f"the table {args.table}")])
    table = read_table(args.table)
    write_figure(table, args.output, title=args.title)
    print(f"{PROG}: wrote {args.output} ({table.name}, {len(table.rows)} rows)", file=err)
    return 0
