"""``bpe-lab train``: train a tokenizer on a corpus file or a chunk-count table, with the merge
log, the curve, forced merges and a merges prefix; then save it and write the reports."""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from typing import TYPE_CHECKING, TextIO

from engine import PreTokenizer, TrainConfig
from engine.config import MAX_VOCAB_BYTES
from engine.errors import size_text
from engine.text import token_display
from engine.train import gc_paused
from tui.cli.common import PROG, add_training_options, config_from_args
from tui.cli.count import add_counts_options, check_counts_args, load_for_training
from tui.cli.progress import Bar
from tui.cli.report import add_report_options, check_report_args, export_paths, write_reports

# the trainer, the corpus readers and engine.analysis are imported by the functions that use them
# (tests/cli/test_cli_startup.py)
if TYPE_CHECKING:
    from engine import Merge, Trainer

#: Merges made between two updates of the progress bar (on a terminal).
BATCH = 256


def add_train_parser(sub) -> None:
    """``bpe-lab train CORPUS -o OUT.json``."""
    train = sub.add_parser("train", help="train a tokenizer on a corpus file")
    train.add_argument("corpus", metavar="CORPUS", nargs="?", help="the corpus file (or --counts TABLE)")
    train.add_argument("-o", "--output", required=True, metavar="OUT.json", help="where to write the tokenizer")
    add_training_options(train)
    add_counts_options(train)
    train.add_argument("--log", action="store_true", help="print the merge log as training goes (as in Writing a BPE tokenizer by hand)")
    train.add_argument("--curve", action="store_true", help="print the corpus token count after every merge (step 0 first)")
    train.add_argument("--force-merge", action="append", default=[], metavar="'A B'",
                       help="make this pair the next merge instead of the rule's choice (repeatable, in order; tokens as the "
                            "app shows them: · for a space, ↵ for a newline, [e4 b8] for bytes, #12 for a token id); "
                            "training then goes on by the rule")
    train.add_argument("--merges-prefix", metavar="FILE",
                       help="a tokenizer or merges file (merges.txt, tokenizer.json, native, ...) whose merges are made first, "
                            "before any --force-merge")
    train.add_argument("--processes", type=_processes, default=min(os.cpu_count() or 1, 2), metavar="N",
                       help="count the corpus in N processes, 1 or 2 (default: 2 when there are two cores): the second "
                            "counts the file's second half")
    add_report_options(train)


def _processes(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value not in (1, 2):
        raise argparse.ArgumentTypeError(f"1 or 2, not {value}")
    return value


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
    """A corpus as :func:`engine.corpus.files.refuse_inputs` compares it (``-``: the file behind standard input)."""
    from engine.corpus import is_stdin

    if is_stdin(path):
        try:
            return f"/dev/fd/{sys.stdin.fileno()}", "the corpus (standard input)"
        except (AttributeError, OSError, ValueError):  # no standard input: nothing to overwrite
            return path, "the corpus (standard input)"
    return path, f"the corpus {path}"


def run_train(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from engine import Trainer, read_corpus
    from engine.corpus import check_target, refuse_collisions, refuse_inputs
    from engine.text import pretokenizer_for

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
    # --curve's bytes per token (a table: its chunks' bytes)
    corpus_bytes = corpus.size if corpus is not None else sum(len(c.encode("utf-8", "surrogateescape")) * n
                                                               for c, n in chunks.items())
    # no undo records: nothing here undoes (the tokenizer file still says the config's record_undo);
    # the chunks are let go once laid out, before the pair index (nothing here shows the corpus)
    trainer = Trainer(text, config, pretokenizer=pretokenizer, chunks=chunks, undo_log=False, keep_chunks=False)
    del chunks, corpus
    return train_and_save(args, trainer, config, corpus_bytes, started, out, err, text, heldout)


def read_for_training(args: argparse.Namespace, config: TrainConfig, pretokenizer: PreTokenizer, err: TextIO,
                      whole: bool = False):
    """(corpus, text, chunks) of the corpus file: counted block by block when the pre-tokenizer
    allows it and ``whole`` is false (text empty), else read whole (chunks None); its note, if
    any, goes to ``err``."""
    from engine import count_corpus, read_corpus
    from engine.corpus import streamable

    bound = args.max_corpus_bytes
    if streamable(pretokenizer) and not whole:  # pre-tokenize block by block: the text is never held whole
        with Bar(err, quiet=args.quiet or args.log) as bar:  # bytes read, on a terminal
            corpus = count_corpus(args.corpus, pretokenizer, base=config.base, processes=args.processes,
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
    # As Trainer.train does: each step would otherwise pause and resume the collector, and
    # what training made is moved out of the first collection's way after it (0.2 s on tang_all)
    with gc_paused():
        with Bar(err, quiet=args.quiet or args.log, what="train") as bar:
            target = trainer.target_merges
            if args.log:
                for event in trainer.run():
                    count += 1
                    print(format_merge(event, show), file=out)
            else:  # no events to print: the merges are made in batches (the core's one loop)
                while made := trainer.advance(BATCH if bar.live else None):
                    count += made
                    bar.merges(count, target)
        elapsed = time.perf_counter() - started
        if args.curve:
            print_curve(trainer, out, corpus_bytes)
        tokenizer = trainer.tokenizer()
        tokenizer.save(args.output)  # atomic: a failed write raises WriteError and keeps the old file
        write_reports(args, trainer, corpus_bytes, text, heldout, err)
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
