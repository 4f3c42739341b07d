"""``bpe-lab diff A B``: two tokenizers side by side (engine.analysis.vocab_diff): the tokens they
share by bytes, those only one has by script with the longest first, where their merge orders
part and how well they agree, and with ``--text``/``--corpus`` the words they split differently
and the tokens each needs, in all and per character of each script (engine.analysis.script_cost).
A and B are paths or names (``cl100k``, ``o200k``: bpe-lab models)."""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from tui.cli.common import UsageError


def add_diff_parser(sub) -> None:
    diff = sub.add_parser("diff", help="compare two tokenizers: shared tokens, each one's own, merge order, a text",
                          description="Two tokenizers side by side, by their tokens' bytes (paths or names such as "
                                      "cl100k o200k: bpe-lab models lists the names).")
    diff.add_argument("a", metavar="A", help="a tokenizer file or name")
    diff.add_argument("b", metavar="B", help="another")
    where = diff.add_mutually_exclusive_group()
    where.add_argument("--text", metavar="TEXT", help="also compare how they split this text")
    where.add_argument("--corpus", metavar="FILE", help="also compare how they split this file")
    diff.add_argument("--show", type=int, default=5, metavar="N",
                      help="examples a group shows, and words that split differently (default 5)")
    diff.add_argument("--json", action="store_true", help="print the figures as JSON")


def _load(name: str):
    from engine.formats import load_any

    return load_any(name, need_pattern=False).tokenizer


def run_diff(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from engine.analysis import by_script, text_diff, vocab_diff
    from engine.text import token_display

    if not 1 <= args.show <= 10_000:
        raise UsageError("--show must be a whole number from 1 to 10000")
    a, b = _load(args.a), _load(args.b)
    diff = vocab_diff(a, b)
    text = None
    if args.text is not None:
        text = args.text
    elif args.corpus is not None:
        from engine import read_corpus

        text = read_corpus(args.corpus, base="chars").text
    found = text_diff(a, b, text, args.show) if text is not None else None

    def show(token: bytes) -> str:
        return repr(token_display(token, space="·"))[1:-1] if token else "''"

    groups_a, groups_b = by_script(diff.only_a), by_script(diff.only_b)
    if args.json:
        data = {
            "a": {"name": args.a, "tokens": diff.size_a, "merges": diff.merges_a, "only": len(diff.only_a),
                  "only_by_script": {k: len(v) for k, v in groups_a.items()}},
            "b": {"name": args.b, "tokens": diff.size_b, "merges": diff.merges_b, "only": len(diff.only_b),
                  "only_by_script": {k: len(v) for k, v in groups_b.items()}},
            "shared": diff.shared, "first_parting_merge": None if diff.first_parting is None else diff.first_parting + 1,
            "rank_correlation": diff.rank_correlation,
        }
        if found is not None:
            data["text"] = {"chars": found.chars, "tokens_a": found.tokens_a, "tokens_b": found.tokens_b,
                            "by_script": [{"script": share.script, "chars": share.chars,
                                           "tokens_a": share.tokens[0], "tokens_b": share.tokens[1],
                                           "per_char_a": share.per_char(0), "per_char_b": share.per_char(1)}
                                          for share in found.scripts],
                            "differing": [{"word": w, "count": n, "a": [show(t) for t in pa], "b": [show(t) for t in pb]}
                                          for w, n, pa, pb in found.differing]}
        print(json.dumps(data, ensure_ascii=False, indent=2), file=out)
        return 0
    width = max(len(args.a), len(args.b), len("shared"))
    print(f"{args.a} ({diff.size_a:,} tokens) and {args.b} ({diff.size_b:,} tokens), by their bytes", file=out)
    print(f"  {'shared':<{width}}  {diff.shared:>9,}", file=out)
    for name, only, groups in ((args.a, diff.only_a, groups_a), (args.b, diff.only_b, groups_b)):
        print(f"  {name:<{width}}  {len(only):>9,} only here", file=out)
        for script, tokens in list(groups.items())[:6]:
            examples = "  ".join(show(t) for t in tokens[:args.show])
            print(f"      {script:<13} {len(tokens):>8,}  {examples}"[:200], file=out)
    if diff.first_parting is None:
        print("  merge order: one is the other's start" if diff.merges_a != diff.merges_b
              else "  merge order: the same merges", file=out)
    else:
        k = diff.first_parting
        ma = show(bytes(a.pieces[a.base_size + k])) if k < diff.merges_a else "-"
        mb = show(bytes(b.pieces[b.base_size + k])) if k < diff.merges_b else "-"
        print(f"  merge order: they part at merge {k + 1:,} ({ma!r} against {mb!r})", file=out)
    if diff.rank_correlation is not None:
        print(f"  rank correlation over the shared tokens (Spearman): {diff.rank_correlation:.3f}", file=out)
    if found is not None:
        print(f"\n{found.chars:,} characters: {args.a} {found.tokens_a:,} tokens "
              f"({found.tokens_a / max(found.chars, 1):.3f} a character), {args.b} {found.tokens_b:,} "
              f"({found.tokens_b / max(found.chars, 1):.3f})", file=out)
        print_scripts(found.scripts, args.a, args.b, out)
        if found.differing:
            print("words split differently, most frequent first:", file=out)
            for word, n, pa, pb in found.differing:
                print(f"  {n:>6,}×  {word}", file=out)
                print(f"           {args.a}: {' | '.join(show(t) for t in pa)}", file=out)
                print(f"           {args.b}: {' | '.join(show(t) for t in pb)}", file=out)
    return 0


def print_scripts(shares, a: str, b: str, out: TextIO) -> None:
    """Tokens per character by script (each character with its word's script), a row a script."""
    if not shares:
        return
    wa, wb = max(len(a), 9), max(len(b), 9)
    print("tokens per character, by script (spaces and punctuation with the letters before them):", file=out)
    print(f"  {'script':<13} {'chars':>9}  {a:>{wa}}  {b:>{wb}}", file=out)

    def cell(value: float | None, width: int) -> str:
        return f"{'-' if value is None else f'{value:.3f}':>{width}}"

    for share in shares:
        print(f"  {share.script:<13} {share.chars:>9,}  {cell(share.per_char(0), wa)}  {cell(share.per_char(1), wb)}",
              file=out)
