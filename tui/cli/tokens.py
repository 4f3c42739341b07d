"""``bpe-lab tokens -t TOKENIZER FILE ...``: how many tokens each file is, and all of them, with
their characters and tokens a character; with ``--model NAME`` (its tokenizer and its published
context window, from the catalog) or ``--window N``, the share of the window each takes (the lab's
question: how much of the window does my CLAUDE.md take?). The tokenizer is a path or a name
(``o200k``, ``llama3``: bpe-lab models)."""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from tui.cli.common import UsageError, add_tokenizer_option, load_tokenizer_arg


def add_tokens_parser(sub) -> None:
    tokens = sub.add_parser("tokens", help="count the tokens of files, and the share of a context window they take",
                            description="Tokens per file and in all under a tokenizer (a path or a name: bpe-lab models), "
                                        "with --window N the share of a context window of N tokens.")
    add_tokenizer_option(tokens, required=False)
    tokens.add_argument("files", nargs="+", metavar="FILE", help="text files (- for standard input)")
    tokens.add_argument("--model", metavar="NAME", help="a model bpe-lab knows (gpt-4o, llama-3.1 ...: bpe-lab models): "
                                                         "its tokenizer (unless -t names one) and its context window")
    tokens.add_argument("--window", type=int, metavar="N", help="a context window of N tokens: the share each file takes")
    tokens.add_argument("--json", action="store_true", help="print the counts as JSON")


def run_tokens(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from rich.cells import cell_len

    from engine import read_corpus

    if args.window is not None and not 1 <= args.window <= 10**12:
        raise UsageError("--window must be a whole number of tokens from 1 to 10^12")
    model = None
    if args.model is not None:
        from engine.formats import MODELS, model_named

        model = model_named(args.model)
        if model is None:
            raise UsageError(f"unknown model {args.model!r} (bpe-lab models lists them: "
                             f"{', '.join(m.name for m in MODELS[:6])} ...); --window N gives any window")
        if args.tokenizer is None:
            args.tokenizer = model.tokenizer
        if args.window is None:
            args.window = model.window
    if args.tokenizer is None:
        raise UsageError("name a tokenizer (-t PATH or -t NAME) or a model (--model NAME)")
    imported = load_tokenizer_arg(args, err)
    rows = []
    for path in args.files:
        text = read_corpus(path, base="chars").text
        rows.append((path, len(imported.tokenizer.encode(text)), len(text)))
    total_tokens, total_chars = sum(r[1] for r in rows), sum(r[2] for r in rows)
    window = args.window
    if args.json:
        data = {"tokenizer": args.tokenizer, "files": [{"file": p, "tokens": t, "chars": c} for p, t, c in rows],
                "tokens": total_tokens, "chars": total_chars}
        if window is not None:
            data["window"] = window
            data["share"] = total_tokens / window
        if model is not None:
            data["model"] = model.name
        print(json.dumps(data, ensure_ascii=False, indent=2), file=out)
        return 0
    shown = [(p, t, c) for p, t, c in rows] + ([("all", total_tokens, total_chars)] if len(rows) > 1 else [])
    width = max(cell_len("file"), *(cell_len(p) for p, _, _ in shown))
    head = f"{'file':<{width}}  {'tokens':>10}  {'chars':>10}  tokens/char"
    print(head + ("  share" if window else ""), file=out)
    for path, tokens, chars in shown:
        pad = " " * (width - cell_len(path))
        share = f"  {tokens / window:6.2%}" if window else ""
        print(f"{path}{pad}  {tokens:>10,}  {chars:>10,}  {tokens / max(chars, 1):>11.3f}{share}", file=out)
    if window:
        left = window - total_tokens
        said = f"{left:,} tokens left" if left >= 0 else f"{-left:,} tokens more than it holds"
        whose = f"{model.what}'s window" if model is not None and window == model.window else "a window"
        print(f"{whose} of {window:,} tokens: {said}", file=out)
    elif args.model is None:
        from engine.formats import models_of

        users = models_of(args.tokenizer)
        if users:
            shown = ", ".join(f"{m.name} ({m.window:,})" for m in users)
            print(f"the share of a context window: --model NAME ({shown}) or --window N", file=out)
    return 0
