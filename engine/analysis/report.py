"""Figures and data to share: the curve, the composition, the held-out numbers and
the merge log as tables, written as CSV and JSON, and the curve and composition as figures.

The app's export key and ``bpe-lab train --export`` both build their tables here, so a file holds
exactly what the analysis screen shows. Every file is written atomically. The figures need
``matplotlib`` (``pip install 'bpe-lab[plots]'``); without it :func:`write_figure` raises
:class:`PlotsUnavailable` with a one-line message.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.analysis.composition import KINDS, LABELS, Composition
from engine.corpus.files import read_file
from engine.errors import BpeLabError, one_line
from engine.text.display import hex_bytes

if TYPE_CHECKING:
    from engine.analysis.curve import Curve
    from engine.analysis.heldout import HeldOutReport
    from engine.train.trainer import Trainer

#: How to get the figures' library, said in one line when it is missing.
PLOTS_HINT = "figures need matplotlib: pip install 'bpe-lab[plots]' (or pip install matplotlib)"
#: The figure formats matplotlib writes for us, by file suffix.
FIGURE_SUFFIXES = (".svg", ".png", ".pdf")
#: The composition figure's bar labels (the screen's long labels crowd a figure out).
SHORT_LABELS = {"char": "one character", "multi": "two or more characters", "partial": "partial UTF-8"}


class TableError(BpeLabError):
    """A file given as a curve or composition table is not one (one line naming it)."""


class PlotsUnavailable(ValueError):
    """matplotlib is not installed: the message says how to get it."""


@dataclass(frozen=True)
class Table:
    """A named table: its column names, its rows and what JSON adds around them (``meta``).

    ``name`` is the file stem (``curve`` → ``curve.csv`` and ``curve.json``).
    """

    name: str
    columns: tuple[str, ...]
    rows: list[tuple]
    meta: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """``{"table": name, **meta, "rows": [{column: value}, ...]}``."""
        return {"table": self.name, **self.meta, "rows": [dict(zip(self.columns, row)) for row in self.rows]}

    def to_csv(self) -> str:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(self.columns)
        writer.writerows(self.rows)
        return out.getvalue()


def token_text(data: bytes) -> str:
    """A token as a data file holds it: its UTF-8 text exactly (a space, a newline, a tab as
    themselves, never the screen's ``·`` and ``↵``); only a token that is no whole UTF-8 (a
    character cut by a byte-level merge) has its loose bytes in brackets, as the screen shows them.

    Example: ``token_text(b" the") -> ' the'``; ``token_text(b"\\x8b\\n") -> '[8b]\\n'``
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    parts: list[str] = []
    loose = bytearray()
    for ch in data.decode("utf-8", "surrogateescape"):
        if "\udc80" <= ch <= "\udcff":  # a byte of no whole character
            loose.append(ord(ch) - 0xDC00)
            continue
        if loose:
            parts.append(hex_bytes(bytes(loose)))
            loose.clear()
        parts.append(ch)
    if loose:
        parts.append(hex_bytes(bytes(loose)))
    return "".join(parts)


def curve_table(curve: Curve) -> Table:
    """Corpus tokens and bytes per token after every merge (seed 001's table, every step); undone
    merges (after the current step) are marked, as the screen dims them.

    Example: seed 001's ``low lower lowest`` gives rows ``(0, 16, 1.0, False)``, ``(1, 13, 1.2308, False)``, …
    """
    rows = [(step, tokens, round(curve.bytes_per_token(step), 4), step > curve.current)
            for step, tokens in enumerate(curve.tokens)]
    meta = {"current_step": curve.current, "corpus_bytes": curve.corpus_bytes, "milestones": curve.milestones()}
    return Table("curve", ("merges", "tokens", "bytes_per_token", "undone"), rows, meta)


def composition_table(comp: Composition, vocab: Sequence[bytes], step: int) -> Table:
    """One row per kind (count, share of the learned tokens, label), and in JSON the earliest and
    longest tokens (their text, :func:`token_text`, and their bytes in hex)."""
    rows = [(kind, comp.counts[kind], round(comp.share(kind), 4), LABELS[kind]) for kind in KINDS]
    shown = lambda ids: [{"id": i, "token": token_text(vocab[i]), "hex": vocab[i].hex()} for i in ids]  # noqa: E731
    meta = {"step": step, "learned": comp.learned,
            "earliest": {kind: shown(comp.earliest.get(kind, [])) for kind in KINDS}, "longest": shown(comp.longest)}
    return Table("composition", ("kind", "count", "share", "label"), rows, meta)


def heldout_table(report: HeldOutReport, *, label: str, step: int) -> Table:
    """Seed 002's held-out numbers at one step, one row per measure (``measure,value``)."""
    numbers = [
        ("step", step),
        ("characters", report.characters),
        ("bytes", report.bytes),
        ("tokens", report.tokens),
        ("chars_per_token", round(report.chars_per_token, 4)),
        ("unseen", report.unseen),
        ("unseen_share", round(report.unseen_share, 4)),
        ("unseen_distinct", report.unseen_distinct),
        ("training_distinct", report.training_distinct),
        ("unknown", report.unknown),
        ("roundtrip", report.roundtrip),
    ]
    meta = {"heldout": label, "sample": report.sample, "segmentation": list(report.sample_pieces)}
    return Table("heldout", ("measure", "value"), numbers, meta)


def merge_log_table(trainer: Trainer) -> Table:
    """Every merge the trainer knows, as the merge log lists it (applied, then undone ones marked),
    with the ids, the tokens' text (:func:`token_text`: the real text, not the log's ``·`` and
    ``↵``) and each new token's bytes in hex (call it under the workbench lock)."""
    show = lambda i: token_text(trainer.token_bytes(i))  # noqa: E731
    rows = []
    for undone, events in ((False, trainer.history), (True, trainer.future)):
        for event in events:
            a, b = event.pair
            rows.append((event.step, a, b, event.new_id, show(a), show(b), token_text(event.token),
                         hex_bytes(event.token).strip("[]"), event.count, event.tied, event.tie_total,
                         event.tokens_after, undone))
    columns = ("step", "left_id", "right_id", "new_id", "left", "right", "new", "new_hex", "count", "tied", "tie_total",
               "tokens_after", "undone")
    return Table("merges", columns, rows, {"current_step": trainer.steps})


def write_tables(folder: str | os.PathLike[str], tables: Sequence[Table],
                 extra: Sequence[tuple[str, bytes]] = ()) -> list[Path]:
    """Each table as ``NAME.csv`` and ``NAME.json`` in ``folder`` (made if missing), and the
    ``extra`` files (``(name, bytes)``: figures drawn with :func:`figure_bytes`), all written as
    one (:func:`engine.corpus.files.atomic_write_files`); returns the paths written. A failed write raises
    ``WriteError`` (one line) and leaves none of them."""
    from engine.corpus.files import atomic_write_files

    folder = Path(folder)
    make_folder(folder)
    files = []
    for table in tables:
        for suffix, text in ((".csv", table.to_csv()), (".json", json.dumps(table.to_json(), ensure_ascii=False, indent=1) + "\n")):
            files.append((folder / f"{table.name}{suffix}", text.encode("utf-8")))
    files += [(folder / name, data) for name, data in extra]
    atomic_write_files(files)  # as one: a full disk leaves none of them (nor half of the set)
    return [path for path, _ in files]


def make_folder(folder: Path) -> None:
    """``folder`` and its parents, or a one-line ``WriteError``."""
    from engine.errors import WriteError

    if folder.exists() and not folder.is_dir():
        raise WriteError(folder, "it is a file, not a folder", after="nothing was written")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        reason = "a part of the path is a file, not a folder" if isinstance(exc, (NotADirectoryError, FileExistsError)) \
            else f"cannot make the folder: {exc.strerror or exc}"
        raise WriteError(folder, reason, after="nothing was written", errno=exc.errno) from None


# -- reading a table back (bpe-lab plot) --------------------------------------------------------


def read_table(path: str | os.PathLike[str]) -> Table:
    """A curve or composition table written by :func:`write_tables` (CSV or JSON); a file that is
    neither raises ``TableError`` (a ``ValueError``) naming it, in one line."""
    data = read_file(path)
    name = Path(path).name
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise TableError(f"{name}: not a curve or composition table (not UTF-8 text)") from None
    if text.lstrip().startswith("{"):
        return _table_from_json(text, name)
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        raise TableError(f"{name}: empty; expected a curve or composition table")
    header = tuple(rows[0])
    for kind, columns in (("curve", ("merges", "tokens", "bytes_per_token")), ("composition", ("kind", "count", "share"))):
        if header[: len(columns)] == columns:
            return Table(kind, header, [_typed(kind, row, name) for row in rows[1:] if row])
    raise TableError(f"{name}: not a curve or composition table (its first line is not 'merges,tokens,…' or 'kind,count,…')")


def _table_from_json(text: str, name: str) -> Table:
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        raise TableError(f"{name}: not valid JSON") from None
    kind = value.get("table") if isinstance(value, dict) else None
    rows = value.get("rows") if isinstance(value, dict) else None
    if kind not in ("curve", "composition") or not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise TableError(f"{name}: not a curve or composition table (expected {{\"table\": \"curve\", \"rows\": [...]}})")
    columns = ("merges", "tokens", "bytes_per_token") if kind == "curve" else ("kind", "count", "share")
    return Table(kind, columns, [_typed(kind, [str(r.get(c, "")) for c in columns], name) for r in rows])


def _typed(kind: str, row: Sequence[str], name: str) -> tuple:
    try:
        if kind == "curve":
            return int(row[0]), int(row[1]), float(row[2])
        return row[0], int(row[1]), float(row[2])
    except (ValueError, IndexError):
        raise TableError(f"{name}: a row is not {'merges,tokens,bytes_per_token numbers' if kind == 'curve' else 'kind,count,share'}: "
                          f"{','.join(row)[:60]}") from None


# -- figures ------------------------------------------------------------------------------------


def plots_available() -> bool:
    """Whether matplotlib can be imported (the ``[plots]`` extra)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def write_figure(table: Table, path: str | os.PathLike[str], *, title: str | None = None) -> Path:
    """The curve (tokens and bytes per token against merges) or the composition (a bar per kind)
    as an SVG, PNG or PDF figure, by ``path``'s suffix, written atomically.

    Raises :class:`PlotsUnavailable` without matplotlib, ``WriteError`` when the file cannot be
    written, ``ValueError`` for another suffix or table.
    """

    from engine.corpus.files import atomic_write_bytes

    path = Path(path)
    atomic_write_bytes(path, figure_bytes(table, path, title=title))
    return path


def figure_bytes(table: Table, path: str | os.PathLike[str], *, title: str | None = None) -> bytes:
    """The figure :func:`write_figure` writes to ``path`` (its suffix picks the format), as bytes:
    a caller writing several files as one draws them first."""
    from engine.errors import WriteError

    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in FIGURE_SUFFIXES:
        raise ValueError(f"{path}: a figure is .svg, .png or .pdf")
    if table.name not in ("curve", "composition"):
        raise ValueError(f"{table.name}: only the curve and the composition are drawn as figures")
    try:
        import matplotlib

        matplotlib.use("Agg")  # no display: only files
        from matplotlib.figure import Figure
    except ImportError:
        raise PlotsUnavailable(PLOTS_HINT) from None
    figure = Figure(figsize=(7, 4.5) if table.name == "curve" else (7, 3), layout="constrained")
    if table.name == "curve":
        _draw_curve(figure, table, title)
    else:
        _draw_composition(figure, table, title)
    buffer = io.BytesIO()
    try:
        figure.savefig(buffer, format=suffix[1:], metadata={"Date": None} if suffix == ".svg" else None)
    except (ValueError, RuntimeError) as exc:
        raise WriteError(path, f"cannot draw the figure: {one_line(str(exc))}", after="nothing was written") from None
    return buffer.getvalue()


def _draw_curve(figure, table: Table, title: str | None) -> None:
    applied = [row for row in table.rows if not (len(row) > 3 and row[3] in (True, "True"))]
    steps = [row[0] for row in applied]
    tokens, per_token = figure.subplots(2, 1, sharex=True)
    tokens.plot(steps, [row[1] for row in applied], color="tab:blue")
    tokens.set_ylabel("corpus tokens")
    tokens.set_title(title or "compression curve")
    per_token.plot(steps, [row[2] for row in applied], color="tab:orange")
    per_token.set_ylabel("bytes per token")
    per_token.set_xlabel("merges")
    for axes in (tokens, per_token):
        axes.grid(True, alpha=0.3)


def _draw_composition(figure, table: Table, title: str | None) -> None:
    axes = figure.subplots()
    kinds = [row[0] for row in table.rows]
    counts = [row[1] for row in table.rows]
    labels = [SHORT_LABELS.get(kind, kind) for kind in kinds]
    bars = axes.barh(labels[::-1], counts[::-1], color=["tab:orange" if k == "partial" else "tab:blue" for k in kinds[::-1]])
    axes.bar_label(bars, labels=[f"{c} ({s:.1%})" for c, s in zip(counts[::-1], [row[2] for row in table.rows][::-1])], padding=3)
    axes.set_xlabel("learned tokens")
    axes.set_title(title or "vocabulary composition")
    axes.margins(x=0.25)
