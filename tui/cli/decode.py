"""``bpe-lab decode``: token ids from the arguments or standard input (a JSON list or plain ids,
read within bounds, a bad one named in one line) back to text or bytes, a batch at a time."""

from __future__ import annotations

import argparse
import codecs
import json
import re
import sys
from collections.abc import Sequence
from typing import TextIO

from engine.errors import MAX_FILE_BYTES, size_text
from tui.cli.common import UsageError, add_tokenizer_option, add_verbose_option, load_tokenizer_arg


def add_decode_parser(sub) -> None:
    """``bpe-lab decode -t TOKENIZER [IDS ...]``."""
    decode = sub.add_parser("decode", help="decode token ids with a tokenizer")
    add_tokenizer_option(decode)
    decode.add_argument("ids", nargs="*", metavar="IDS", help="token ids (default: a JSON list or ids on standard input)")
    decode.add_argument("--bytes", action="store_true",
                        help="write the raw bytes the ids stand for (invalid UTF-8 and partial characters kept), "
                             "not text: encode then decode --bytes gives back the input exactly")
    add_verbose_option(decode)


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
