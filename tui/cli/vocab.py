"""``bpe-lab vocab -t TOKENIZER [--corpus FILE]``: a dive into a vocabulary (engine.analysis.glitch):
its longest tokens (by bytes, by characters), its tokens by script, the parts of characters, and
the glitch-token candidates a tokenizer alone can point at: tokens no text encodes to alone
(unreachable), tokens never produced on a reference corpus (unused), tokens whose decode does
not give their bytes back. ``--json`` prints every list in full (ids as the file numbers them)."""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from tui.cli.common import UsageError, add_tokenizer_option, load_tokenizer_arg

WHAT = ("A candidate is where to look, not a finding: whether a token is a glitch token depends on the "
        "model's embeddings, which are not here.")


def add_vocab_parser(sub) -> None:
    vocab = sub.add_parser("vocab", help="dive into a vocabulary: longest tokens, scripts, glitch-token candidates",
                           description="The longest tokens, tokens by script, parts of characters, and glitch-token "
                                       "candidates (unreachable, unused on --corpus, no round trip). " + WHAT)
    add_tokenizer_option(vocab)
    vocab.add_argument("--corpus", metavar="FILE", help="a reference corpus: the tokens never produced on it")
    vocab.add_argument("--show", type=int, default=10, metavar="N", help="tokens each list shows (default 10)")
    vocab.add_argument("--json", action="store_true", help="print every list in full as JSON")


def run_vocab(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from engine import read_corpus
    from engine.analysis import by_script, vocabulary_dive
    from engine.text import token_display

    if not 1 <= args.show <= 100_000:
        raise UsageError("--show must be a whole number from 1 to 100000")
    imported = load_tokenizer_arg(args, err)
    tok = imported.tokenizer
    corpus = read_corpus(args.corpus, base="chars").text if args.corpus is not None else None
    dive = vocabulary_dive(tok, corpus, longest=max(args.show, 20))
    file_id = imported.to_file_ids

    def listed(ids: list[int]) -> list[dict]:
        return [{"id": theirs, "token": token_display(tok.token_bytes(i))} for i, theirs in zip(ids, file_id(ids))]

    scripts = by_script([bytes(p) for p in tok.pieces])
    if args.json:
        data = {"tokenizer": args.tokenizer, "tokens": dive.size, "longest_bytes": listed(dive.longest_bytes),
                "longest_chars": listed(dive.longest_chars), "by_script": {k: len(v) for k, v in scripts.items()},
                "partial": listed(dive.partial), "unreachable": listed(dive.unreachable),
                "no_round_trip": listed(dive.no_round_trip), "what": WHAT}
        if dive.unused is not None:
            data["unused"] = listed(dive.unused)
            data["corpus_tokens"] = dive.corpus_tokens
        print(json.dumps(data, ensure_ascii=False, indent=2), file=out)
        return 0

    def show(ids: list[int]) -> str:
        return "  ".join(repr(token_display(tok.token_bytes(i), space="·"))[1:-1] for i in ids[:args.show])

    print(f"{args.tokenizer}: {dive.size:,} tokens", file=out)
    print(f"  longest by bytes:       {show(dive.longest_bytes)}"[:240], file=out)
    print(f"  longest by characters:  {show(dive.longest_chars)}"[:240], file=out)
    print("  by script:              " + ", ".join(f"{k} {len(v):,}" for k, v in scripts.items()), file=out)
    print(f"  parts of characters:    {len(dive.partial):,}", file=out)
    print("glitch-token candidates (" + WHAT + ")", file=out)
    print(f"  unreachable (no text encodes to it alone): {len(dive.unreachable):,}  {show(dive.unreachable)}"[:240],
          file=out)
    if dive.unused is not None:
        print(f"  unused on {args.corpus} ({dive.corpus_tokens:,} tokens): {len(dive.unused):,}, longest first  "
              f"{show(dive.unused)}"[:240], file=out)
    print(f"  no round trip (decodes to other bytes): {len(dive.no_round_trip):,}", file=out)
    return 0
