"""The errors bad input raises: every one is a ``ValueError`` whose message is one line for the user.

The app shows ``str(exc)`` as a notification and keeps its previous state; the command line
prints ``bpe-lab: error: {exc}`` and exits with code 2. Catch :class:`BpeLabError` (or plain
``ValueError``, which covers it) around anything that takes input from the user.

- :class:`CorpusError`: a corpus file that cannot be used (missing, a directory, unreadable,
  empty, changed while it was read, nothing to train on).
- :class:`ConfigError`: a training option out of range (vocabulary size, merges, specials);
  :class:`PatternError` for a regex that does not compile, :class:`PatternTimeoutError` for one
  that backtracks too long on the text.
- :class:`TokenizerFileError`: a tokenizer file that cannot be read or is malformed, in any format
  (the message starts with the path); :class:`FileTooLargeError` when it is above
  :data:`MAX_FILE_BYTES` (refused before reading).
- :class:`ExportError`: a format that cannot hold the tokenizer (the chars base in ``gpt2``, say).
- :class:`TokenIdError`: an id a tokenizer does not have (or a file does not use).
- :class:`MergeError`: a manual merge (``Trainer.force``, ``--force-merge``) of a pair that
  does not occur, or where no merge may be made.
- :class:`WriteError`: a file could not be written (also an ``OSError``); the old file, if any,
  is untouched and no temporary file is left behind.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

#: Tokenizer files larger than this are refused before they are read (the largest real ones,
#: 256k-token HuggingFace files, are around 35 MB).
MAX_FILE_BYTES = 128 * 1024 * 1024
#: A corpus that is not a regular file (a pipe, a device, standard input) is read up to this
#: many bytes unless a bound is given: it has no size to check beforehand, and ``/dev/zero``
#: never ends. Reading holds up to the bound before it can refuse, so it stays well inside
#: 1 GB of memory; a larger stream needs ``--max-corpus-bytes``.
MAX_STREAM_BYTES = 512 << 20
#: The largest corpus file the app opens without ``--max-corpus-bytes``: it holds the text, its
#: units and the trainer's nodes in memory (about 10 bytes a byte of code or prose, 60 of Chinese;
#: docs/bad-input.md). ``bpe-lab train`` streams instead, and a chunk-count table of any corpus
#: opens in the app (``bpe-lab count``, then ``bpe-lab --counts``).
MAX_APP_CORPUS_BYTES = 256 << 20


class BpeLabError(ValueError):
    """Bad input from the user; ``str(exc)`` is one line meant for them."""


class CorpusError(BpeLabError):
    """A corpus that cannot be used."""


class ConfigError(BpeLabError):
    """A training option that is out of range or contradicts another."""


class PatternError(ConfigError):
    """A pre-tokenizer regex that does not compile."""


class PatternTimeoutError(PatternError):
    """A pre-tokenizer regex that took too long on a text (catastrophic backtracking)."""


class TokenizerFileError(BpeLabError):
    """A tokenizer file that cannot be read, or whose content is malformed."""


class FileTooLargeError(TokenizerFileError):
    """A tokenizer file above :data:`MAX_FILE_BYTES`."""


class CountsError(BpeLabError):
    """A chunk-count table or word-count file that cannot be used, or counting that cannot run."""


class ExportError(BpeLabError):
    """A tokenizer that the chosen file format cannot hold (the chars base in a byte-level format, say)."""


class TokenIdError(BpeLabError):
    """A token id the tokenizer does not have."""


class MergeError(BpeLabError):
    """A manual merge that cannot be made: the pair does not occur (often enough), or a stop
    rule or a replay forbids one more merge."""


class WriteError(OSError, BpeLabError):
    """A write that failed; the target is as it was before. Both an ``OSError`` and a ``ValueError``.

    Example: ``str(WriteError("out.json", "No space left on device"))`` ->
    ``'out.json: cannot write (No space left on device); the old file is unchanged'``
    (``after`` says what became of the target: ``nothing was written`` when there was none).
    """

    def __init__(self, path: str | os.PathLike[str], reason: str, *, after: str = "the old file is unchanged",
                 errno: int | None = None) -> None:
        super().__init__(errno, reason, str(path))
        self.after = after

    def __str__(self) -> str:
        return f"{self.filename}: cannot write ({self.strerror}); {self.after}"

    def __reduce__(self):  # keeps the message when pickled (the forked corpus counter)
        return (_write_error, (self.filename, self.strerror, self.after, self.errno))


def _write_error(path: str, reason: str, after: str, errno: int | None) -> WriteError:
    return WriteError(path, reason, after=after, errno=errno)


def one_line(message: str) -> str:
    """``message`` with line breaks and other control characters escaped, so it prints as one line.

    Example: ``one_line("a\\nb") -> 'a\\\\nb'``
    """
    if message.isprintable():
        return message
    return "".join(c if c.isprintable() or c == " " else repr(c)[1:-1] for c in message)


def size_text(size: int) -> str:
    """A byte count for people. Example: ``size_text(3 << 30) -> '3 GB'``, ``size_text(1536) -> '1.5 kB'``"""
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20), ("kB", 1 << 10)):
        if size >= scale:
            value = f"{size / scale:.1f}".removesuffix(".0")
            return f"{value} {unit}"
    return f"{size} bytes"


@contextmanager
def reading_file(path: object, error: type[BpeLabError], kind: str) -> Iterator[None]:
    """Turn the OSErrors of reading ``path`` into one-line ``error``s naming it.

    Example: ``with reading_file(p, CorpusError, "a text file"): data = p.read_bytes()``
    """
    try:
        yield
    except FileNotFoundError:
        raise error(f"{path}: no such file") from None
    except IsADirectoryError:
        raise error(f"{path}: is a directory, not {kind}") from None
    except PermissionError:
        raise error(f"{path}: permission denied") from None
    except OSError as exc:
        if isinstance(exc, BpeLabError):
            raise
        raise error(f"{path}: cannot read ({exc.strerror or exc})") from None
