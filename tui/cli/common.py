"""What every headless command shares: the program name, usage errors and the parser, the
training options, and :func:`guarded`, which turns every failure the user can cause into one line
and exit code 2. The headless commands, the lesson and serve commands and the app's launcher all
import it; it imports none of them.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import stat
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TextIO

from engine import NAMED_PATTERNS, PRETOKENIZERS, TIE_RULES, ConfigError, PreTokenizer, TrainConfig, pretokenizer_named
from engine.errors import MAX_APP_CORPUS_BYTES, MAX_FILE_BYTES, MAX_STREAM_BYTES, one_line, size_text
from engine.formats import FORMATS
from engine.text import FILE_PATTERNS

# engine.formats' readers and engine.analysis, and the trainer and corpus readers (lazy names of
# engine), are imported by the commands that use them: ``bpe-lab encode`` needs neither the
# trainer nor the corpus readers, ``bpe-lab train`` never the file formats, only their registry
# (tests/cli/test_cli_startup.py).
if TYPE_CHECKING:
    from engine.formats import Imported



PROG = "bpe-lab"


HEADLESS = ("train", "encode", "decode", "export", "compare", "plot", "lesson", "count", "fetch", "models", "diff", "tokens",
            "vocab", "tax", "code", "compare-text")
#: What ``bpe-lab serve`` does, in one line (``bpe-lab --help`` lists it with the other commands).
SERVE_SUMMARY = "the app in web browsers, for a class: each tab gets its own app (needs the serve extra)"


#: ``--pattern-name``: the named pre-tokenizers, and patterns tokenizer files are read with
#: (engine.text.pretokenize.FILE_PATTERNS: Llama 3's; o200k, GPT-4o's and Llama 4's)
PATTERN_NAMES = ("none", *NAMED_PATTERNS, *FILE_PATTERNS)


#: ``export --format`` names a student knows, for the registry's names of the same formats: XSLM's
#: JSON (the course text whose code reads it) was ``seed001``, which keeps working.
FORMAT_NAMES = {"seed001": "xslm"}
#: The formats ``export --format`` writes, from the registry (which imports no format module).
EXPORT_FORMATS = tuple(FORMAT_NAMES.get(name, name) for name in FORMATS)


def export_format(text: str) -> str:
    """``--format``: the registry's name of the format ``text`` names (``xslm`` -> ``seed001``)
    (argparse type).

    Example: ``export_format("xslm")`` -> ``"seed001"``; ``export_format("seed001")`` -> ``"seed001"``
    """
    name = {shown: name for name, shown in FORMAT_NAMES.items()}.get(text, text)
    if name not in FORMATS:
        raise argparse.ArgumentTypeError(f"invalid choice: {text!r} (choose from {', '.join(EXPORT_FORMATS)})")
    return name


class UsageError(Exception):
    """Bad input from the user: printed as one line, exit code 2."""


#: A usage error's message is cut to this many characters (it quotes what was given).
MAX_USAGE_MESSAGE = 200


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (``bpe-lab: error: ...``, exit code 2) like every
    other error, instead of the usage block: ``--help`` shows that."""

    def error(self, message: str):  # type: ignore[override]
        if len(message) > MAX_USAGE_MESSAGE:  # argparse repeats the arguments: 5000 digits stay off the line
            message = f"{message[:MAX_USAGE_MESSAGE - 40]}… ({len(message):,} characters)"
        command = self.prog.split(" ", 1)[1] if " " in self.prog else ""
        hint = f" (see {PROG} {command + ' ' if command else ''}--help)"
        raise UsageError(message + hint)


def add_training_options(parser: argparse.ArgumentParser) -> None:
    """The options that decide a training run (shared by ``train`` and the app)."""
    limit = parser.add_mutually_exclusive_group()
    limit.add_argument("--vocab-size", type=int, metavar="N", help="stop at N tokens (bases + merges + specials)")
    limit.add_argument("--merges", type=int, metavar="N", dest="max_merges", help="stop after N merges")
    parser.add_argument("--base", choices=("bytes", "chars"), default=None, help="start from bytes (default) or characters")
    parser.add_argument("--pretokenizer", choices=PRETOKENIZERS, default=None, help="how text is split before merging (default gpt2)")
    parser.add_argument("--pattern", metavar="REGEX", help="a custom pre-tokenizer regex (implies the custom pre-tokenizer)")
    parser.add_argument("--split-digits", action="store_true", help="make every digit a chunk of its own")
    parser.add_argument("--tie-break", choices=TIE_RULES, default="lowest-ids", dest="tie_rule",
                        help="how equal counts are decided (default lowest-ids: the smallest left id, then right id)")
    parser.add_argument("--min-frequency", type=int, default=2, metavar="K",
                        help="stop when the best pair occurs fewer than K times (default 2)")
    parser.add_argument("--no-merge-newline", action="store_true", help="never merge across a newline (as XSLM's BPE chapter does)")
    parser.add_argument("--end-of-word", metavar="SUFFIX", default=None,
                        help="mark where words end, as CLIP and subword-nmt do: each chunk's last unit gets SUFFIX "
                             "(--end-of-word '</w>'; with --tie-break subword-nmt, learn_bpe's merges)")
    parser.add_argument("--subword-prefix", "--continuing-subword-prefix", metavar="PREFIX", default=None,
                        dest="subword_prefix",
                        help="mark the pieces that continue a word, as HuggingFace's continuing_subword_prefix: "
                             "each unit of a chunk but the first gets PREFIX (--subword-prefix '##')")
    parser.add_argument("--special", action="append", default=[], metavar="TOKEN",
                        help="a special token (repeatable); ids follow the merges")
    parser.add_argument("--max-corpus-bytes", type=byte_size, default=None, metavar="N",
                        help="refuse a corpus larger than N bytes (suffixes K, M, G: 512M, 2G); pipes, devices and "
                             f"standard input stop at {size_text(MAX_STREAM_BYTES)} unless given; regular files are unbounded in "
                             f"train, the app refuses one above {size_text(MAX_APP_CORPUS_BYTES)}")


_SIZE = re.compile(r"(\d{1,20})\s*([kmgt]?)(i?b)?", re.IGNORECASE)


def byte_size(text: str) -> int:
    """A byte count with an optional binary suffix (argparse type). Example: ``byte_size("512M") -> 536870912``"""
    match = _SIZE.fullmatch(text.strip())
    if not match or int(match[1]) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size of 1 byte or more (like 1048576, 512M or 2G)")
    return int(match[1]) << (10 * "kmgt".find(match[2].lower()) + 10 if match[2] else 0)


def config_from_args(args: argparse.Namespace) -> TrainConfig:
    """Build a validated config from parsed training options (ValueError on bad values)."""
    if args.pattern is not None and args.pretokenizer not in (None, "custom"):
        raise ConfigError("give either --pretokenizer or --pattern, not both")
    pretokenizer = "custom" if args.pattern is not None else (args.pretokenizer or "gpt2")
    return TrainConfig(
        base=args.base or "bytes",
        pretokenizer=pretokenizer,
        pattern=args.pattern,
        split_digits=args.split_digits,
        tie_rule=args.tie_rule,
        vocab_size=args.vocab_size,
        max_merges=args.max_merges,
        min_frequency=args.min_frequency,
        no_merge_newline=args.no_merge_newline,
        specials=tuple(args.special),
        end_of_word=getattr(args, "end_of_word", None),
        subword_prefix=getattr(args, "subword_prefix", None),
    )


#: At most this many tokenizers side by side (``-t`` given again: compare-text, tax, code).
MAX_TOKENIZERS = 12


def add_tokenizers_option(parser: argparse.ArgumentParser) -> None:
    """``-t`` given once or more: tokenizer files or names, side by side."""
    parser.add_argument("-t", "--tokenizer", action="append", required=True, metavar="TOK",
                        help="a tokenizer file or name (give -t again for more)")


def check_tokenizers(args: argparse.Namespace) -> None:
    """At most :data:`MAX_TOKENIZERS` of them: a one-line UsageError past it."""
    if len(args.tokenizer) > MAX_TOKENIZERS:
        raise UsageError(f"at most {MAX_TOKENIZERS} tokenizers at once")


def add_tokenizer_option(parser: argparse.ArgumentParser, *, required: bool = True) -> None:
    """``-t`` in any supported format, and the pattern for formats that hold none."""
    parser.add_argument("-t", "--tokenizer", required=required, metavar="TOK",
                        help="a tokenizer file in any format: native or HF tokenizer.json, XSLM's JSON, "
                             "vocab.json + merges.txt or encoder.json + vocab.bpe (either file, or their directory), "
                             ".tiktoken, SentencePiece .model, tekken.json, .gguf, CLIP's merges; or a name once "
                             "fetched (o200k, llama3 ...: bpe-lab models)")
    pattern = parser.add_mutually_exclusive_group()
    pattern.add_argument("--pattern-name", choices=PATTERN_NAMES, metavar="NAME",
                         help="pre-tokenizer for vocab.json + merges.txt (default gpt2), or for a tiktoken rank file "
                              "without its PATH.json (a well-known one, GPT-2's, cl100k's, Llama 3's ..., takes its "
                              "own; another needs one to encode or export, not to decode): "
                              f"{', '.join(PATTERN_NAMES)}")
    pattern.add_argument("--pattern", metavar="REGEX", help="a custom pre-tokenizer regex instead of --pattern-name")


def load_tokenizer_arg(args: argparse.Namespace, err: TextIO, *, need_pattern: bool = True) -> Imported:
    """The tokenizer ``-t`` names, any format; its notes go to ``err`` as one line each.
    ``need_pattern=False`` (decode) accepts a ``.tiktoken`` file without a pattern."""
    pre = None
    if getattr(args, "pattern", None) is not None:
        pre = PreTokenizer("custom", args.pattern)
    elif getattr(args, "pattern_name", None) is not None:
        pre = pretokenizer_named(args.pattern_name)
    from engine.formats import load_any
    from tui.cli.progress import loading_bar

    with loading_bar(err, quiet=bool(getattr(args, "quiet", False))):
        imported = load_any(args.tokenizer, pretokenizer=pre, need_pattern=need_pattern)
    if getattr(args, "verbose", True):  # encode and decode: only with --verbose, not on every call
        for note in imported.warnings:
            print(f"{PROG}: note: {args.tokenizer}: {note}", file=err)
    return imported


def add_verbose_option(parser: argparse.ArgumentParser) -> None:
    """``-v``: the notes on how the tokenizer file was read (encode and decode are called again and
    again on one file: the same notes every time would bury their output)."""
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="also print the notes on how the tokenizer file was read (control pieces taken "
                             "as special tokens, a pattern assumed, ...); export prints them always")


#: ``encode`` reads a pipe or device on standard input up to this many bytes (a regular file
#: redirected with ``<`` has a size, and is read whole).
MAX_TEXT_BYTES = MAX_FILE_BYTES


def read_stdin(source: str = "standard input") -> str:
    """All of standard input, decoded like a corpus (bad bytes kept via surrogateescape, so
    ``decode --bytes`` gives them back); a pipe or device only up to MAX_TEXT_BYTES."""
    stream = sys.stdin.buffer
    try:
        regular = stat.S_ISREG(os.fstat(stream.fileno()).st_mode)
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        regular = False
    data = stream.read() if regular else stream.read(MAX_TEXT_BYTES + 1)
    if not regular and len(data) > MAX_TEXT_BYTES:
        raise UsageError(f"{source}: more than {size_text(MAX_TEXT_BYTES)} from a pipe or device "
                         "(redirect a file instead: < FILE)")
    return data.decode("utf-8", "surrogateescape")


#: What ran out of memory, by command: training needs memory for the corpus, the other commands
#: for the tokenizer (and the text or ids they are given).
_OUT_OF_MEMORY = {
    "train": "training (try a smaller corpus, or a pre-tokenizer other than none)",
    "compare": "training (try a smaller corpus, or a pre-tokenizer other than none)",
    "encode": "loading the tokenizer or encoding the text (is the tokenizer, or the text, too large?)",
    "decode": "loading the tokenizer or decoding the ids (is the tokenizer, or the list of ids, too large?)",
    "export": "loading or exporting the tokenizer (is the tokenizer too large?)",
    "plot": "drawing the figure (is the table too large?)",
    "app": "training (try a smaller corpus, or a pre-tokenizer other than none)",
}


def out_of_memory(command: str | None) -> str:
    """The one line for a ``MemoryError``: what was being done, so that it blames the right input."""
    doing = _OUT_OF_MEMORY.get(command or "")
    return f"out of memory while {doing}" if doing else "out of memory"


def error(exc: BaseException | str, err: TextIO) -> int:
    """Print one ``bpe-lab: error:`` line (control characters escaped) and return exit code 2."""
    from tui.extras import with_install_hints  # "needs matplotlib: pip install ..." as this install says it

    print(f"{PROG}: error: {one_line(with_install_hints(str(exc)))}", file=err)
    return 2


def guarded(run: Callable[[], int], err: TextIO, doing: Sequence[str] = ()) -> int:
    """Run ``run`` and turn every failure the user can cause into one line and an exit code:
    the headless commands and the app's launcher (tui/app/launch.py) share it, so they cannot drift.
    ``doing`` holds the command being run (filled in by ``run`` once it knows it)."""
    try:
        return run()
    except BrokenPipeError:
        return 0
    except (UsageError, ValueError) as exc:  # engine errors are ValueErrors (engine.errors), WriteError too
        return error(exc, err)
    except OSError as exc:  # not ours: a failing terminal or pipe, say
        where = f"{exc.filename}: " if exc.filename else ""
        return error(f"{where}{exc.strerror or exc}", err)
    except MemoryError:
        return error(out_of_memory(doing[-1] if doing else None), err)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=err)
        return 130


