"""Headless commands (train, encode, decode, export, compare): for scripts, and fast to start (no textual import).

Every failure the user can cause ends as one line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import codecs
import gc
import json
import os
import re
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

from engine import (
    MAX_FILE_BYTES,
    MAX_VOCAB_BYTES,
    PreTokenizer,
    TrainConfig,
    size_text,
    token_display,
)
from tui.cli.common import (
    EXPORT_FORMATS,
    PROG,
    Parser,
    UsageError,
    add_tokenizer_option,
    add_training_options,
    config_from_args,
    guarded,
    load_tokenizer_arg,
    read_stdin,
)
from tui.cli.count import add_count_parser, add_counts_options, check_counts_args, load_for_training
from tui.cli.progress import Bar, train_with_bar
from tui.cli.report import add_plot_parser, add_report_options, check_report_args, export_paths, run_plot, write_reports

# engine.formats and engine.analysis, and the trainer and corpus readers (lazy names of engine),
# are imported by the commands that use them: ``bpe-lab encode`` needs neither the trainer nor
# the corpus readers, ``bpe-lab train`` never the file formats (tests/cli/test_cli_startup.py).
if TYPE_CHECKING:
    from engine import Merge, Trainer
    from engine.analysis import Row



















def build_parser() -> argparse.ArgumentParser:
    """The headless command line."""
    parser = Parser(prog=PROG, description="Train and use BPE tokenizers one merge at a time.")
    sub = parser.add_subparsers(dest="command", required=True)
    train = sub.add_parser("train", help="train a tokenizer on a corpus file")
    train.add_argument("corpus", metavar="CORPUS", nargs="?", help="the corpus file (or --counts TABLE)")
    train.add_argument("-o", "--output", required=True, metavar="OUT.json", help="where to write the tokenizer")
    add_training_options(train)
    add_counts_options(train)
    train.add_argument("--log", action="store_true", help="print the merge log as training goes (seed 002 style)")
    train.add_argument("--curve", action="store_true", help="print the corpus token count after every merge (step 0 first)")
    train.add_argument("--force-merge", action="append", default=[], metavar="'A B'",
                       help="make this pair the next merge instead of the rule's choice (repeatable, in order; tokens as the "
                            "app shows them: · for a space, ↵ for a newline, [e4 b8] for bytes, #12 for a token id); "
                            "training then goes on by the rule")
    train.add_argument("--merges-prefix", metavar="FILE",
                       help="a tokenizer or merges file (merges.txt, tokenizer.json, native, ...) whose merges are made first, "
                            "before any --force-merge")
    add_report_options(train)
    encode = sub.add_parser("encode", help="encode text with a tokenizer (ids as the tokenizer's file numbers them)")
    add_tokenizer_option(encode)
    encode.add_argument("text", nargs="?", metavar="TEXT", help="text to encode (default: standard input)")
    shape = encode.add_mutually_exclusive_group()
    shape.add_argument("--json", action="store_true", help="print a JSON list of ids")
    shape.add_argument("--pieces", action="store_true", help="print the tokens, separated by |")
    decode = sub.add_parser("decode", help="decode token ids with a tokenizer")
    add_tokenizer_option(decode)
    decode.add_argument("ids", nargs="*", metavar="IDS", help="token ids (default: a JSON list or ids on standard input)")
    decode.add_argument("--bytes", action="store_true",
                        help="write the raw bytes the ids stand for (invalid UTF-8 and partial characters kept), "
                             "not text: encode then decode --bytes gives back the input exactly")
    export = sub.add_parser("export", help="write a tokenizer in another format")
    add_tokenizer_option(export)
    export.add_argument("--format", required=True, choices=EXPORT_FORMATS, help="the format to write")
    export.add_argument("--drop-normalizer", action="store_true",
                        help="write a tokenizer with a normalizer to a format without one (tiktoken, gpt2, seed001)")
    export.add_argument("-o", "--output", required=True, metavar="PATH",
                        help="the file to write; for gpt2 a directory (vocab.json + merges.txt go inside); "
                             "for tiktoken the rank file, with its pattern and specials in PATH.json")
    compare = sub.add_parser("compare", help="bpe against char, word, WordPiece and Unigram tokenizers on a corpus")
    compare.add_argument("corpus", metavar="CORPUS", nargs="?", help="the corpus file (or --counts TABLE)")
    held = compare.add_mutually_exclusive_group()
    held.add_argument("--heldout", metavar="FILE", help="a held-out text to measure on (training uses all of CORPUS)")
    held.add_argument("--heldout-fraction", type=float, metavar="F",
                      help="hold back the last F of CORPUS (0 < F < 1, cut at a line start) and measure on it")
    add_training_options(compare)
    add_counts_options(compare)
    compare.add_argument("--json", action="store_true", help="print a JSON list of rows")
    add_plot_parser(sub)
    from tui.cli.lesson import add_lesson_parser  # lessons (issue 14): the app starts only for NAME|PATH

    add_lesson_parser(sub)
    add_count_parser(sub)
    return parser


# -- train ------------------------------------------------------------------------------------


def format_merge(event: Merge, show: callable, width: int = 14) -> str:
    """One merge-log line in seed 002's layout.

    Example: ``merge    1:          [80] + [82]           → [80 82]          (6396 times), corpus now 259195 tokens``
    """
    a, b = event.pair
    left, right, new = show(a), show(b), show(event.new_id)
    line = (f"merge {event.step:4d}: {left:>{width}} + {right:<{width}} → {new:<{width}} "
            f"({event.count} times), corpus now {event.tokens_after} tokens")
    if event.manual:
        line += "  [manual]"
    elif event.tied:
        line += f"  [tie of {event.tie_total}]"
    return line


def corpus_input(path: str) -> tuple[str, str]:
    """A corpus as :func:`engine.io.refuse_inputs` compares it (``-``: the file behind standard input)."""
    from engine import is_stdin

    if is_stdin(path):
        try:
            return f"/dev/fd/{sys.stdin.fileno()}", "the corpus (standard input)"
        except (AttributeError, OSError, ValueError):  # no standard input: nothing to overwrite
            return path, "the corpus (standard input)"
    return path, f"the corpus {path}"


def run_train(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from engine import Trainer, check_target, pretokenizer_for, read_corpus, refuse_collisions, refuse_inputs

    check_counts_args(args)
    config = config_from_args(args)
    check_report_args(args)
    outputs = [args.output, *([args.curve_out] if args.curve_out else []), *export_paths(args.export, args.heldout)]
    # before any reading or training: no output may overwrite another (the inputs follow)
    refuse_collisions([(args.output, f"the tokenizer {args.output} (-o)"),
                       *([(args.curve_out, f"the curve {args.curve_out} (--curve-out)")] if args.curve_out else [])],
                      [(args.export, f"the --export folder {args.export}")] if args.export else [])
    held = [(args.heldout, f"the held-out text {args.heldout}")] if args.heldout else []
    if args.counts is not None:
        refuse_inputs(outputs, [(args.counts, f"the table {args.counts}")])
        check_target(args.output)
        started = time.perf_counter()
        _, config, chunks = load_for_training(args, config, err)
        corpus, heldout = None, None
        text, pretokenizer = "", pretokenizer_for(config)
    else:
        pretokenizer = pretokenizer_for(config)
        refuse_inputs(outputs, [corpus_input(args.corpus), *held])
        check_target(args.output)  # refused now, not after the training it would throw away
        heldout = read_corpus(args.heldout, base=config.base, max_bytes=args.max_corpus_bytes).text if args.heldout else None
        started = time.perf_counter()
        # the held-out report compares with the training text, so it needs it whole
        corpus, text, chunks = read_for_training(args, config, pretokenizer, err, whole=heldout is not None)
    trainer = Trainer(text, config, pretokenizer=pretokenizer, chunks=chunks)
    # --curve's bytes per token; the corpus itself is freed here (a table: its chunks' bytes)
    corpus_bytes = corpus.size if corpus is not None else sum(len(c.encode("utf-8", "surrogateescape")) * n
                                                               for c, n in chunks.items())
    del chunks, corpus
    return train_and_save(args, trainer, config, corpus_bytes, started, out, err, text, heldout)


def read_for_training(args: argparse.Namespace, config: TrainConfig, pretokenizer: PreTokenizer, err: TextIO,
                      whole: bool = False):
    """(corpus, text, chunks) of the corpus file: counted block by block when the pre-tokenizer
    allows it and ``whole`` is false (text empty), else read whole (chunks None); its note, if
    any, goes to ``err``."""
    from engine import count_corpus, read_corpus, streamable

    bound = args.max_corpus_bytes
    if streamable(pretokenizer) and not whole:  # pre-tokenize block by block: the text is never held whole
        with Bar(err, quiet=args.quiet or args.log) as bar:  # bytes read, on a terminal
            corpus = count_corpus(args.corpus, pretokenizer, base=config.base, processes=min(os.cpu_count() or 1, 2),
                                  max_bytes=bound, progress=bar.bytes if bar.live else None)
        text, chunks = "", corpus.chunks
    else:
        corpus = read_corpus(args.corpus, base=config.base, max_bytes=bound)
        text, chunks = corpus.text, None
    note = corpus.note(config.base)
    if note:
        print(f"{PROG}: note: {note}", file=err)
    return corpus, text, chunks


def train_and_save(args: argparse.Namespace, trainer: Trainer, config: TrainConfig, corpus_bytes: int, started: float,
                   out: TextIO, err: TextIO, text: str = "", heldout: str | None = None) -> int:
    """Make the forced merges, run ``trainer`` to its stop rule (a progress bar on a terminal),
    save, write ``--curve-out``/``--export`` (``heldout``: the held-out text, measured against the
    training ``text``), and say so."""
    show = lambda i: token_display(trainer.token_bytes(i), space="·", seed=True)  # noqa: E731  seed 002 logs
    forced = force_merges(trainer, args)
    count = len(forced)
    if args.log:
        for event in forced:
            print(format_merge(event, show), file=out)
    collecting = gc.isenabled()
    gc.disable()  # as Trainer.train does: each step would otherwise pause and resume it
    try:
        with Bar(err, quiet=args.quiet or args.log, what="train") as bar:
            target = trainer.target_merges
            for event in trainer.run():
                count += 1
                if args.log:
                    print(format_merge(event, show), file=out)
                elif not count & 63:
                    bar.merges(count, target)
        elapsed = time.perf_counter() - started
        if args.curve:
            print_curve(trainer, out, corpus_bytes)
        tokenizer = trainer.tokenizer()
        tokenizer.save(args.output)  # atomic: a failed write raises WriteError and keeps the old file
        write_reports(args, trainer, corpus_bytes, text, heldout, err)
    finally:
        if collecting:
            gc.enable()
    reason = {"vocab-size": "vocabulary size reached", "merges": "merge count reached",
              "min-frequency": f"no pair occurs {config.min_frequency} times", "no-pairs": "no pairs left",
              "vocab-bytes": f"the tokens reached {size_text(MAX_VOCAB_BYTES)}, the most a tokenizer may hold"}
    print(
        f"{PROG}: {count} merges in {elapsed:.2f} s ({reason.get(trainer.stop_reason or '', 'stopped')}); "
        f"vocabulary {tokenizer.vocab_size}; corpus {trainer.initial_tokens} -> {trainer.corpus_tokens} tokens; "
        f"wrote {args.output}",
        file=err,
    )
    return 0


def force_merges(trainer: Trainer, args: argparse.Namespace) -> list[Merge]:
    """Make the merges of ``--merges-prefix``, then each ``--force-merge``, as manual merges.
    MergeError (one line naming the option or file and the merge) when one cannot be made."""
    from engine import MergeError
    from tui.model.finder import parse_tokens

    if not args.merges_prefix and not args.force_merge:
        return []
    ids: dict[bytes, int] = {}
    for i, piece in enumerate(trainer.vocab):
        ids.setdefault(piece, i)
    wanted: list[tuple[str, bytes, bytes]] = []
    if args.merges_prefix:
        from engine.formats import load_any

        prefix = load_any(args.merges_prefix).tokenizer
        for k, (a, b) in enumerate(prefix.merges, 1):
            wanted.append((f"{args.merges_prefix}: merge {k}", prefix.token_bytes(a), prefix.token_bytes(b)))
    for text in args.force_merge:
        tokens = parse_tokens(text)
        if len(tokens) != 2:
            raise MergeError(f"--force-merge {text!r}: give two tokens separated by a space "
                             "(· for a space inside a token, [e4 b8] for bytes)")
        wanted.append((f"--force-merge {text!r}", *tokens))
    made = []
    for where, left, right in wanted:
        pair = []
        for piece in (left, right):
            number = re.fullmatch(rb"#(\d{1,7})", piece) if not where.startswith(f"{args.merges_prefix}:") else None
            if number:  # #12: a token id, as the app's finder and lessons write one
                token = int(number[1])
                size = trainer.base_size + trainer.steps
                if token >= size:
                    raise MergeError(f"{where}: no token #{token} at step {trainer.steps} (ids 0 to {size - 1})")
            else:
                token = ids.get(piece)
            if token is None:
                raise MergeError(f"{where}: no token {token_display(piece)!r} at step {trainer.steps}")
            pair.append(token)
        try:
            event = trainer.force(pair)
        except ValueError as exc:
            raise MergeError(f"{where}: {exc}") from None
        ids.setdefault(event.token, event.new_id)
        made.append(event)
    return made


def print_curve(trainer: Trainer, out: TextIO, corpus_bytes: int) -> None:
    """One line per step: merges made, corpus tokens, bytes per token (seed 001's table, every step)."""
    from engine.analysis import compression_curve

    curve = compression_curve(trainer, corpus_bytes)
    print("merges\ttokens\tbytes_per_token", file=out)
    for step, tokens in enumerate(curve.tokens):
        print(f"{step}\t{tokens}\t{curve.bytes_per_token(step):.4f}", file=out)


# -- compare ----------------------------------------------------------------------------------

#: ``compare`` trains this many merges when neither --vocab-size nor --merges is given.
COMPARE_MERGES = 1000


def run_compare(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from engine import Trainer, read_corpus
    from engine.analysis import BpeSegmenter, baseline_rows, build_baselines, hold_back, measure, trainer_counts

    if args.vocab_size is None and args.max_merges is None:
        args.max_merges = COMPARE_MERGES
    check_counts_args(args)
    config = config_from_args(args)
    if args.counts is not None:
        from tui.cli.count import compare_counts

        rows = compare_counts(args, config, err)
        heldout = args.heldout
        print_compare(args, rows, heldout is not None, out, err)
        return 0
    text = read_corpus(args.corpus, base=config.base, max_bytes=args.max_corpus_bytes).text
    heldout = None
    if args.heldout is not None:
        heldout = read_corpus(args.heldout, base=config.base, max_bytes=args.max_corpus_bytes).text
    elif args.heldout_fraction is not None:
        text, heldout = hold_back(text, args.heldout_fraction)
    trainer = Trainer(text, config)
    train_with_bar(trainer, err, args.quiet)
    rows = [measure(BpeSegmenter(trainer.tokenizer()), text, heldout, corpus_counts=trainer_counts(trainer))]
    rows += baseline_rows(build_baselines(text, trainer.vocab_size), text, heldout)
    print_compare(args, rows, heldout is not None, out, err)
    return 0


def print_compare(args: argparse.Namespace, rows: Sequence[Row], heldout: bool, out: TextIO, err: TextIO) -> None:
    if args.json:
        print(json.dumps([row.to_dict() for row in rows], ensure_ascii=False), file=out)
    else:
        print_rows(rows, out)
    where = "the held-out text" if heldout else "the corpus (no held-out text given)"
    print(f"{PROG}: note: unknown and chars/token are measured on {where}", file=err)


def print_rows(rows: Sequence[Row], out: TextIO) -> None:
    """The comparison as an aligned table; a row that could not be built shows its note."""
    print(f"{'tokenizer':<10} {'vocab':>7} {'corpus':>9} {'held-out':>9} {'unknown':>8} {'chars/token':>11}", file=out)
    for row in rows:
        if row.note is not None:
            print(f"{row.name:<10} {row.note}", file=out)
            continue
        held = "-" if row.heldout_tokens is None else str(row.heldout_tokens)
        cpt = row.chars_per_token
        print(f"{row.name:<10} {row.vocab_size:>7} {row.corpus_tokens:>9} {held:>9} {row.unknown:>8} "
              f"{'-' if cpt is None else f'{cpt:.3f}':>11}", file=out)


# -- encode / decode --------------------------------------------------------------------------






def run_encode(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    imported = load_tokenizer_arg(args, err)
    tok = imported.tokenizer
    text = args.text if args.text is not None else read_stdin()
    ours = tok.encode(text)
    if args.pieces:
        print("|".join(token_display(tok.token_bytes(i)) for i in ours), file=out)
        return 0
    if args.json:
        print(json.dumps(imported.to_file_ids(ours)), file=out)
    else:
        print(imported.ids_text(ours), file=out)
    return 0


#: Standard input given to ``decode`` is read up to this many bytes, and refused past it ...
MAX_IDS_BYTES = MAX_FILE_BYTES
#: ... and at most this many ids are decoded at once (8 MB of them as a list; the text is
#: written as it is decoded, a batch at a time, so the output is never held whole).
MAX_IDS = 1 << 23
#: An id is at most this many digits: longer ones are out of range of any vocabulary (ids in
#: files are at most 2**32 - 1), and are refused before Python converts them.
MAX_ID_DIGITS = 40
#: Ids decoded and written per batch.
DECODE_BATCH = 1 << 16


def _token_id(word: str, source: str) -> int:
    """One id written in decimal; anything else (or more than MAX_ID_DIGITS digits) is a UsageError."""
    digits = word[1:] if word[:1] in "+-" else word
    if not (digits.isascii() and digits.isdigit()):
        raise UsageError(f"{source}: {show_word(word)} is not a token id")
    if len(digits) > MAX_ID_DIGITS:
        raise UsageError(TOO_LONG.format(source=source))
    return int(word)


TOO_LONG = "{source}: a token id of more than " + str(MAX_ID_DIGITS) + " digits is out of range of any vocabulary"
TOO_MANY = "{source}: more than " + f"{MAX_IDS:,}" + " token ids (decode them in parts)"


def show_word(word: str) -> str:
    """A word for an error line: its repr, cut short."""
    text = repr(word)
    return text if len(text) <= 40 else text[:37] + "..."


class _NotAnId(Exception):
    """A JSON value in an id list that is not a whole number."""


def _not_an_id(_text: str) -> int:
    raise _NotAnId


def parse_ids(words: Sequence[str], source: str) -> list[int]:
    """Token ids from words or a JSON list; a bad one raises UsageError naming it (one line).

    Bounded: at most MAX_IDS ids of at most MAX_ID_DIGITS digits; a JSON list nested inside
    another, a float or a number too long for an id is refused."""
    if len(words) == 1 and words[0].lstrip().startswith("["):
        text = words[0]
        if text.count(",") >= MAX_IDS:  # bounds the list before it is built
            raise UsageError(TOO_MANY.format(source=source))
        try:
            value = json.loads(text, parse_float=_not_an_id, parse_constant=_not_an_id)
        except json.JSONDecodeError:
            raise UsageError(f"{source}: not a JSON list of token ids") from None
        except (_NotAnId, RecursionError):
            raise UsageError(f"{source}: expected a JSON list of integers") from None
        except ValueError:  # an integer longer than Python converts (sys.get_int_max_str_digits())
            raise UsageError(TOO_LONG.format(source=source)) from None
        if not isinstance(value, list) or not all(type(v) is int for v in value):
            raise UsageError(f"{source}: expected a JSON list of integers")
        if value and (max(value) >= 10**MAX_ID_DIGITS or min(value) <= -(10**MAX_ID_DIGITS)):
            raise UsageError(TOO_LONG.format(source=source))
        return value
    if len(words) > MAX_IDS:
        raise UsageError(TOO_MANY.format(source=source))
    return [_token_id(word, source) for word in words]


#: The bytes of ids written the plain way: digits and ASCII white space.
_PLAIN = b"0123456789 \t\n\r\x0b\x0c"
#: Plain ids are read from pieces of about this many bytes (cut at white space), so the words
#: of one piece are all that is ever split out at once.
IDS_PIECE = 1 << 20
_SPACE = re.compile(rb"\s")


def read_ids(source: str = "standard input") -> list[int]:
    """The ids on standard input (a JSON list, or ids separated by white space), read up to
    MAX_IDS_BYTES and refused past it; plain ids are split out a piece at a time."""
    raw = sys.stdin.buffer.read(MAX_IDS_BYTES + 1)
    if len(raw) > MAX_IDS_BYTES:
        raise UsageError(f"{source}: more than {size_text(MAX_IDS_BYTES)} of token ids (decode them in parts)")
    if raw.translate(None, _PLAIN):  # anything else: a JSON list, or an error to name exactly
        text = raw.decode("utf-8", "replace")
        if text.lstrip().startswith("["):
            return parse_ids([text], source)
        ids: list[int] = []
        for match in re.finditer(r"\S+", text):
            if len(ids) >= MAX_IDS:
                raise UsageError(TOO_MANY.format(source=source))
            ids.append(_token_id(match.group(), source))
        return ids
    ids = []
    start = 0
    while start < len(raw):
        space = _SPACE.search(raw, start + IDS_PIECE) if start + IDS_PIECE < len(raw) else None
        end = space.start() if space else len(raw)
        words = raw[start:end].split()
        start = end
        if len(ids) + len(words) > MAX_IDS:
            raise UsageError(TOO_MANY.format(source=source))
        try:
            piece = list(map(int, words))
        except ValueError:  # more digits than Python converts
            raise UsageError(TOO_LONG.format(source=source)) from None
        if piece and max(piece) >= 10**MAX_ID_DIGITS:
            raise UsageError(TOO_LONG.format(source=source))
        ids.extend(piece)
    return ids


def run_decode(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    imported = load_tokenizer_arg(args, err, need_pattern=False)
    ids = parse_ids(args.ids, "arguments") if args.ids else read_ids()
    tok = imported.tokenizer
    ours = imported.from_file_ids(ids)
    if ours and not (0 <= min(ours) and max(ours) < len(tok.pieces)):  # a special, or out of range
        for i in ours:
            tok.token_bytes(i)  # TokenIdError for the first id the tokenizer lacks, before any output
    if args.bytes:
        sink = getattr(out, "buffer", None)
        if sink is None:  # a text-only stream (never sys.stdout)
            raise UsageError("--bytes needs an output that takes bytes")
        out.flush()
        for start in range(0, len(ours), DECODE_BATCH):
            sink.write(tok.decode_bytes(ours[start : start + DECODE_BATCH]))
        sink.flush()
        return 0
    last = ""
    if getattr(imported, "decodes_text", False):  # sentencepiece's decoding: ▁ is a space, ...
        text = imported.decode(ids)
        out.write(text)
        if out.isatty() and text[-1:] != "\n":
            out.write("\n")
        return 0
    # Text: the same as decoding all at once (bytes that are not valid UTF-8 become U+FFFD),
    # written a batch at a time; a character cut between two batches waits in the decoder.
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    if tok.end_of_word is not None or tok.subword_prefix is not None:  # a suffix decodes by what follows it,
        # a prefix by what is before it: all at once (the ids are bounded)
        text = tok.decode(ours)
        out.write(text)
        last, ours = text[-1:], []
    for start in range(0, len(ours), DECODE_BATCH):
        text = decoder.decode(tok.decode_bytes(ours[start : start + DECODE_BATCH]))
        out.write(text)
        last = text[-1:] or last
    text = decoder.decode(b"", final=True)
    out.write(text)
    last = text[-1:] or last
    if out.isatty() and last != "\n":
        out.write("\n")
    return 0


def run_export(args: argparse.Namespace, err: TextIO) -> int:
    from engine import refuse_inputs
    from engine.formats import export_tokenizer, read_paths, written_paths

    imported = load_tokenizer_arg(args, err)
    read = [(path, f"the tokenizer {path}") for path in read_paths(imported.format, args.tokenizer)]
    refuse_inputs(written_paths(args.format, args.output), read)
    notes = export_tokenizer(imported.tokenizer, args.format, args.output, ids=imported.file_ids, source=args.tokenizer,
                             drop_normalizer=args.drop_normalizer)
    for note in notes:
        print(f"{PROG}: note: {note}", file=err)
    paths = ", ".join(str(p) for p in written_paths(args.format, args.output))
    print(f"{PROG}: wrote {paths} ({args.format}, vocabulary {imported.tokenizer.vocab_size})", file=err)
    return 0








def run_command(argv: Sequence[str] | None, out: TextIO, err: TextIO, doing: list[str] | None = None) -> int:
    """Parse a headless command line and run it (errors raise; :func:`main` prints them)."""
    args = build_parser().parse_args(argv)
    if doing is not None:
        doing.append(args.command)
    if args.command == "train":
        return run_train(args, out, err)
    if args.command == "encode":
        return run_encode(args, out, err)
    if args.command == "export":
        return run_export(args, err)
    if args.command == "compare":
        return run_compare(args, out, err)
    if args.command == "plot":
        return run_plot(args, err)
    if args.command == "lesson":
        from tui.cli.lesson import run_lesson

        return run_lesson(args, out, err)
    if args.command == "count":
        from tui.cli.count import run_count

        return run_count(args, out, err)
    return run_decode(args, out, err)


def main(argv: Sequence[str] | None = None, *, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run a headless command; returns the exit code."""
    out = out or sys.stdout
    err = err or sys.stderr
    doing: list[str] = []  # the command, once parsed: an out-of-memory line says what was being done
    return guarded(lambda: run_command(argv, out, err, doing), err, doing)


