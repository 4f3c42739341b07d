"""``bpe-lab compare-text -t A -t B [...] TEXT``: one text through several tokenizers, each one's
pieces and count, aligned by character so that where they split differently shows (a ``│`` where a
tokenizer cuts, a space where it does not, and a ``^`` under the cuts they disagree on). Cells are
measured as the terminal draws them (Chinese and emoji take two). A piece that ends inside a
character (byte-level tokenizers cut a character's bytes) cuts after that character, marked ``·``
there. A tokenizer that normalizes the text (SentencePiece's ``▁``, NFKC) is shown by its pieces,
not aligned."""

from __future__ import annotations

import argparse
import json
import shutil
from bisect import bisect_right
from pathlib import Path
from typing import TextIO

from tui.cli.common import UsageError, add_tokenizers_option, check_tokenizers

#: How spaces (·, so that a blank column is always "no cut here") and unseen characters are shown.
SHOWN = {" ": "·", "\n": "↵", "\t": "→", "\r": "␍"}


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


def cuts_of(tok, ids: list[int], text: str) -> list[int] | None:
    """The character offsets where ``tok``'s pieces end (the last is ``len(text)``), or None when
    its pieces do not spell ``text`` (a normalizing tokenizer). A piece that ends inside a
    character cuts after it."""
    joined = b""
    cuts = []
    encoded = text.encode("utf-8", "surrogatepass")
    for i in ids:
        joined += bytes(tok.token_bytes(i))
        cuts.append(len(joined))
    if joined != encoded:
        return None
    char_ends, at = {}, 0
    for k, ch in enumerate(text):
        at += len(ch.encode("utf-8", "surrogatepass"))
        char_ends[at] = k + 1
    out = []
    for cut in cuts:
        while cut not in char_ends and cut < len(encoded):
            cut += 1
        if not out or char_ends[cut] != out[-1]:
            out.append(char_ends[cut])
    return out


def run_compare_text(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from rich.cells import cell_len

    from engine import read_corpus
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
        rows.append((name, imported, ids, cuts_of(imported.tokenizer, ids, text)))
    if args.json:
        data = [{"tokenizer": name, "count": len(ids), "ids": imported.to_file_ids(ids),
                 "pieces": [token_display(imported.tokenizer.token_bytes(i)) for i in ids], "cuts": cuts}
                for name, imported, ids, cuts in rows]
        print(json.dumps(data, ensure_ascii=False, indent=2), file=out)
        return 0
    width = args.width or shutil.get_terminal_size((100, 24)).columns
    if width < 30:
        raise UsageError("--width must be at least 30 cells")
    aligned = [(name, ids, set(cuts)) for name, _, ids, cuts in rows if cuts is not None]
    label = max((cell_len(f"{name}  {len(ids):,}") for name, ids, _ in aligned), default=0) + 2
    union = sorted(set().union(*(cuts for _, _, cuts in aligned))) if aligned else []
    # cells: each character, and between two characters a cut column where any tokenizer cuts
    columns: list[tuple[str, int]] = []  # ("c", char index) or ("|", offset)
    start = 0
    for cut in union:
        columns += [("c", k) for k in range(start, cut)]
        if cut < len(text):
            columns.append(("|", cut))
        start = cut
    color = out.isatty() if hasattr(out, "isatty") else False
    palette = ("\x1b[36m", "\x1b[33m")
    reset = "\x1b[0m"

    def cell(kind: str, k: int, cuts: set[int] | None) -> str:
        if kind == "|":
            return "│" if cuts is not None and k in cuts else " "
        return SHOWN.get(text[k], text[k])

    def width_of(kind: str, k: int) -> int:
        return 1 if kind == "|" else cell_len(SHOWN.get(text[k], text[k]))

    blocks, current, used = [], [], 0
    room = width - label
    for column in columns:
        w = width_of(*column)
        if used + w > room and current:
            blocks.append(current)
            current, used = [], 0
        current.append(column)
        used += w
    if current:
        blocks.append(current)
    ordered = {name: sorted(cuts) for name, _, cuts in aligned}
    for block in blocks:
        for name, ids, cuts in aligned:
            head = f"{name}  {len(ids):,}"
            line = ""
            for kind, k in block:
                shown = cell(kind, k, cuts)
                if color and kind == "c":  # pieces in turn in two colours
                    shown = palette[bisect_right(ordered[name], k) % 2] + shown + reset
                line += shown
            print(head + " " * (label - cell_len(head)) + line, file=out)
        marks = "".join(("^" if kind == "|" and len({k in c for _, _, c in aligned}) > 1 else " ") * width_of(kind, k)
                        for kind, k in block)
        if marks.strip():
            print(" " * label + marks.rstrip(), file=out)
        if len(blocks) > 1:
            print(file=out)
    for name, imported, ids, cuts in rows:
        if cuts is None:
            pieces = " │ ".join(token_display(imported.tokenizer.token_bytes(i), space="·") for i in ids)
            print(f"{name}  {len(ids):,} (normalizes the text first: its pieces)  {pieces}", file=out)
    differ = sum(1 for kind, k in columns if kind == "|" and len({k in c for _, _, c in aligned}) > 1)
    if len(aligned) > 1:
        print(f"{differ} of {len(union) - 1 if union and union[-1] == len(text) else len(union)} cuts differ",
              file=out)
    return 0

