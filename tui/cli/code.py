"""``bpe-lab code -t A [-t B ...] FILE``: what a source file costs in tokens (engine.analysis.code_cost):
tokens per line, the share spent on indentation and on whitespace runs, and the same file
reindented (tabs, 2 and 4 spaces) and with its names in another convention, under each tokenizer."""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from tui.cli.common import add_tokenizers_option, check_tokenizers


def add_code_parser(sub) -> None:
    code = sub.add_parser("code", help="what a source file costs in tokens: indentation, whitespace, naming",
                          description="Tokens per line, the share spent on indentation and whitespace runs, and the "
                                      "file reindented and renamed, under each tokenizer (paths or names).")
    add_tokenizers_option(code)
    code.add_argument("file", metavar="FILE", help="a source file")
    code.add_argument("--json", action="store_true", help="print the figures as JSON")


def run_code(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from engine import read_corpus
    from engine.analysis import code_cost
    from engine.formats import load_any

    check_tokenizers(args)
    text = read_corpus(args.file, base="chars").text
    costs = {name: code_cost(load_any(name).tokenizer, text) for name in args.tokenizer}
    if args.json:
        data = {name: {"tokens": c.tokens, "lines": c.lines, "per_line": c.per_line, "indentation": c.indentation,
                       "indentation_share": c.indentation_share, "whitespace_runs": c.whitespace_runs,
                       "whitespace_share": c.whitespace_share, "variants": c.variants} for name, c in costs.items()}
        print(json.dumps(data, ensure_ascii=False, indent=2), file=out)
        return 0
    names = list(costs)
    first = next(iter(costs.values()))
    width = max(12, *(len(n) for n in names))
    print(f"{args.file}: {first.lines:,} lines, {len(text):,} characters", file=out)
    print(f"{'':<20}" + "".join(f"{n:>{width + 2}}" for n in names), file=out)

    def row(label: str, cells: list[str]) -> None:
        print(f"{label:<20}" + "".join(f"{c:>{width + 2}}" for c in cells), file=out)

    row("tokens", [f"{c.tokens:,}" for c in costs.values()])
    row("tokens a line", [f"{c.per_line:.1f}" for c in costs.values()])
    row("indentation", [f"{c.indentation:,} {c.indentation_share:.0%}" for c in costs.values()])
    row("whitespace runs", [f"{c.whitespace_runs:,} {c.whitespace_share:.0%}" for c in costs.values()])
    for variant in first.variants:
        row(f"as {variant}", [f"{c.variants[variant]:,} {c.variants[variant] / max(c.tokens, 1) - 1:+.0%}"
                              for c in costs.values()])
    return 0
