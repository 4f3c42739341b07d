"""``bpe-lab tax -t A [-t B ...] [--parallel FILE]``: the token tax with real tokenizers: the
bundled parallel sentences (the same content in English, German, Chinese, Russian, Hindi, Arabic
and Japanese) through each tokenizer, tokens per language and the ratio to English, as a table and
bars; ``--csv FILE`` exports the table as the other analysis data is exported."""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from tui.cli.common import UsageError, add_tokenizers_option, check_tokenizers


def add_tax_parser(sub) -> None:
    tax = sub.add_parser("tax", help="the token tax: the same sentences in seven languages through real tokenizers",
                         description="Tokens per language and the ratio to English for the bundled parallel sentences "
                                     "(or --parallel FILE: groups of 'lang: sentence' lines) under each tokenizer "
                                     "(paths or names: bpe-lab models).")
    add_tokenizers_option(tax)
    tax.add_argument("--parallel", metavar="FILE", help="parallel sentences instead of the bundled ones")
    tax.add_argument("--csv", metavar="FILE", help="also write the table as CSV (atomically)")
    tax.add_argument("--json", action="store_true", help="print the figures as JSON")


#: How wide the longest bar is.
BAR = 30


def run_tax(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from engine import read_corpus
    from engine.analysis import BpeSegmenter, languages, parse_parallel, token_tax
    from engine.formats import load_any
    from tui.model.samples import sample

    check_tokenizers(args)
    text = (read_corpus(args.parallel, base="chars").text if args.parallel
            else sample("parallel.txt").read_bytes().decode("utf-8"))
    try:
        groups = parse_parallel(text)
    except ValueError as exc:
        raise UsageError(f"{args.parallel or 'parallel.txt'}: {exc}") from None
    if not any("en" in g for g in groups):
        raise UsageError(f"{args.parallel}: no English sentences ('en: ...') to compare with")
    langs = languages(groups)
    taxes = {}
    for name in args.tokenizer:
        taxes[name] = token_tax(BpeSegmenter(load_any(name, need_pattern=True).tokenizer), groups)
    rows = [(name, lang, tax[lang].tokens, tax[lang].ratio) for name, tax in taxes.items() for lang in langs]
    if args.csv:
        import csv
        import io

        from engine.corpus import atomic_write_text

        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["tokenizer", "language", "tokens", "ratio_to_en"])
        writer.writerows([(n, lang, t, "" if r is None else f"{r:.4f}") for n, lang, t, r in rows])
        atomic_write_text(args.csv, buffer.getvalue())
    if args.json:
        data = {name: {lang: {"tokens": tax[lang].tokens, "ratio": tax[lang].ratio} for lang in langs}
                for name, tax in taxes.items()}
        print(json.dumps(data, ensure_ascii=False, indent=2), file=out)
        return 0
    top = max((r for *_, r in rows if r is not None), default=1.0) or 1.0
    width = max(len(n) for n in taxes)
    print(f"the same {len(groups)} sentences in {len(langs)} languages: tokens, and × English", file=out)
    for lang in langs:
        print(lang, file=out)
        for name, tax in taxes.items():
            ratio = tax[lang].ratio
            bar = "█" * max(1, round(BAR * ratio / top)) if ratio else ""
            shown = f"{ratio:5.2f}×" if ratio is not None else "    –"
            print(f"  {name:<{width}}  {tax[lang].tokens:>6,}  {shown}  {bar}", file=out)
    return 0
