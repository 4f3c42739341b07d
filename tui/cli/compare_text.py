"""``bpe-lab compare-text -t A -t B [...] TEXT``: one text through several tokenizers, each one's
pieces and count, aligned by character so that where they split differently shows (a ``│`` where a
tokenizer cuts, a space where it does not, and a ``^`` under the cuts they disagree on). Cells are
measured as the terminal draws them (Chinese and emoji take two); the alignment itself is
engine.analysis.alignment's, which the app's compare tab draws too. A piece that ends inside a
character (byte-level tokenizers cut a character's bytes) cuts after that character, marked ``·``
there. A tokenizer that normalizes the text (SentencePiece's ``▁``, NFKC) is shown by its pieces,
not aligned."""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path
from typing import TextIO

from tui.cli.common import UsageError, add_tokenizers_option, check_tokenizers


def add_compare_text_parser(sub) -> None:
    parser = sub.add_parser("compare-text", help="one text through several tokenizers, aligned by character",
                            description="Each tokenizer's pieces and count for TEXT (or --file), aligned by character "
                                        "so that where they split differently shows. Tokenizers are paths or names "
                                        "(bpe-lab models).")
    add_tokenizers_option(parser)
    parser.add_argument("text", nargs="?", metavar="TEXT", help="the text (or --file)")
    parser.add_argument("--file", metavar="FILE", help="read the text from a file")
    parser.add_argument("--width", type=int, metavar="N", help="wrap at N cells (default: the terminal's)")
    parser.add_argument("--json", action="store_true", help="print ids, pieces and cut offsets as JSON")


def run_compare_text(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from rich.cells import cell_len

    from engine import read_corpus
    from engine.analysis import align, cuts_of
    from engine.formats import load_any
    from engine.text import token_display

    if (args.text is None) == (args.file is None):
        raise UsageError("give the text, or --file FILE (one of them)")
    check_tokenizers(args)
    text = args.text if args.text is not None else read_corpus(args.file, base="chars").text
    if len(text) > 100_000:
        raise UsageError(f"the text has {len(text):,} characters; compare-text shows at most 100,000 (use tokens or diff)")
    rows = []
    for given in args.tokenizer:
        imported = load_any(given)
        name = Path(given).name or given  # a path shown by its file name
        if cell_len(name) > 24:
            name = name[:23] + "…"
        ids = imported.tokenizer.encode(text)
        rows.append((name, imported, ids, [bytes(imported.tokenizer.token_bytes(i)) for i in ids]))
    if args.json:
        data = [{"tokenizer": name, "count": len(ids), "ids": imported.to_file_ids(ids),
                 "pieces": [token_display(piece) for piece in pieces], "cuts": cuts_of(pieces, text)}
                for name, imported, ids, pieces in rows]
        print(json.dumps(data, ensure_ascii=False, indent=2), file=out)
        return 0
    width = args.width or shutil.get_terminal_size((100, 24)).columns
    if width < 30:
        raise UsageError("--width must be at least 30 cells")
    found = align(text, [(name, pieces) for name, _, _, pieces in rows])
    aligned = found.aligned
    label = max((cell_len(f"{row.name}  {row.count:,}") for row in aligned), default=0) + 2
    color = out.isatty() if hasattr(out, "isatty") else False
    palette = ("\x1b[36m", "\x1b[33m")
    reset = "\x1b[0m"
    bands = found.bands(width - label, cell_len)
    for band in bands:
        for row in aligned:
            head = f"{row.name}  {row.count:,}"
            line = ""
            for column in band:
                shown = found.cell(row, column)
                if color and not column.cut:  # pieces in turn in two colours
                    shown = palette[row.piece_of(column.at) % 2] + shown + reset
                line += shown
            print(head + " " * (label - cell_len(head)) + line, file=out)
        marks = found.marks(band, cell_len)
        if marks:
            print(" " * label + marks, file=out)
        if len(bands) > 1:
            print(file=out)
    for row in found.rows:
        if row.cuts is None:
            shown = " │ ".join(token_display(piece, space="·") for piece in row.pieces)
            print(f"{row.name}  {row.count:,} (normalizes the text first: its pieces)  {shown}", file=out)
    if len(aligned) > 1:
        print(f"{found.differing} of {found.cut_count} cuts differ", file=out)
    return 0

