"""``bpe-lab encode`` and ``bpe-lab export``: use a tokenizer file, to encode text or to write it
in another format (``decode`` is :mod:`tui.cli.decode`)."""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from engine.text import token_display
from tui.cli.common import (
    EXPORT_FORMATS,
    FORMAT_NAMES,
    PROG,
    add_tokenizer_option,
    add_verbose_option,
    export_format,
    load_tokenizer_arg,
    read_stdin,
)


def add_encode_parser(sub) -> None:
    """``bpe-lab encode -t TOKENIZER [TEXT]``."""
    encode = sub.add_parser("encode", help="encode text with a tokenizer (ids as the tokenizer's file numbers them)")
    add_tokenizer_option(encode)
    encode.add_argument("text", nargs="?", metavar="TEXT", help="text to encode (default: standard input)")
    shape = encode.add_mutually_exclusive_group()
    shape.add_argument("--json", action="store_true", help="print a JSON list of ids")
    shape.add_argument("--pieces", action="store_true", help="print the tokens, separated by |")
    add_verbose_option(encode)


def add_export_parser(sub) -> None:
    """``bpe-lab export -t TOKENIZER --format F -o PATH``."""
    export = sub.add_parser("export", help="write a tokenizer in another format")
    add_tokenizer_option(export)
    export.add_argument("--format", required=True, type=export_format, metavar="{" + ",".join(EXPORT_FORMATS) + "}",
                        help="the format to write (xslm: the JSON of XSLM's BPE chapter)")
    export.add_argument("--drop-normalizer", action="store_true",
                        help="write a tokenizer with a normalizer to a format without one (tiktoken, gpt2, xslm)")
    export.add_argument("-o", "--output", required=True, metavar="PATH",
                        help="the file to write; for gpt2 a directory (vocab.json + merges.txt go inside); "
                             "for tiktoken the rank file, with its pattern and specials in PATH.json")


def run_encode(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    imported = load_tokenizer_arg(args, err)
    tok = imported.tokenizer
    text = args.text if args.text is not None else read_stdin()
    ours = tok.encode(text)
    if args.pieces:  # each distinct token drawn once: a long text repeats few of them many times
        shown = {i: token_display(tok.token_bytes(i)) for i in set(ours)}
        print("|".join(map(shown.__getitem__, ours)), file=out)
        return 0
    if args.json:
        print(json.dumps(imported.to_file_ids(ours)), file=out)
    else:
        print(imported.ids_text(ours), file=out)
    return 0


def run_export(args: argparse.Namespace, err: TextIO) -> int:
    from engine.corpus import refuse_inputs
    from engine.formats import export_tokenizer, read_paths, written_paths

    imported = load_tokenizer_arg(args, err)
    read = [(path, f"the tokenizer {path}") for path in read_paths(imported.format, args.tokenizer)]
    refuse_inputs(written_paths(args.format, args.output), read)
    notes = export_tokenizer(imported.tokenizer, args.format, args.output, ids=imported.file_ids, source=args.tokenizer,
                             drop_normalizer=args.drop_normalizer)
    for note in notes:
        print(f"{PROG}: note: {note}", file=err)
    paths = ", ".join(str(p) for p in written_paths(args.format, args.output))
    shown = FORMAT_NAMES.get(args.format, args.format)
    print(f"{PROG}: wrote {paths} ({shown}, vocabulary {imported.tokenizer.vocab_size})", file=err)
    return 0
