"""Reading a corpus file: exact bytes in, a clear one-line error for anything unusable.

Decoding policy for bytes that are not valid UTF-8: the bytes base trains on the raw bytes
(they travel through the pre-tokenizer as lone surrogates, ``surrogateescape``, and come back as
the same bytes); the chars base replaces each bad byte with U+FFFD, the unknown character. Line
endings are never translated: ``\\r\\n`` reaches the pre-tokenizer as it is in the file.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path


class CorpusError(ValueError):
    """A corpus that cannot be used; the message is one line meant for the user."""


@dataclass(frozen=True)
class Corpus:
    """A decoded corpus and what reading it found."""

    text: str
    name: str
    size: int  # bytes in the file
    invalid_bytes: int  # bytes that were not valid UTF-8

    @property
    def warning(self) -> str | None:
        """A one-line note about invalid UTF-8, if there was any."""
        if not self.invalid_bytes:
            return None
        return f"{self.name}: {self.invalid_bytes} bytes are not valid UTF-8"


_ESCAPED = re.compile("[\udc80-\udcff]")


def decode_corpus(data: bytes, *, base: str = "bytes", name: str = "<text>") -> Corpus:
    """Decode bytes per the policy above. Example: ``decode_corpus(b"a\\xff").invalid_bytes -> 1``"""
    try:
        return Corpus(text=data.decode("utf-8"), name=name, size=len(data), invalid_bytes=0)
    except UnicodeDecodeError:
        pass
    text = data.decode("utf-8", "surrogateescape")  # each bad byte becomes U+DC80..U+DCFF
    invalid = len(_ESCAPED.findall(text))
    if base == "chars":
        text = _ESCAPED.sub("\ufffd", text)
    return Corpus(text=text, name=name, size=len(data), invalid_bytes=invalid)


def read_corpus(path: str | os.PathLike[str], *, base: str = "bytes") -> Corpus:
    """Read and decode a corpus file; raise :class:`CorpusError` with a one-line reason."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise CorpusError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise CorpusError(f"{p}: is a directory, not a text file") from None
    except PermissionError:
        raise CorpusError(f"{p}: permission denied") from None
    except OSError as exc:
        raise CorpusError(f"{p}: cannot read ({exc.strerror or exc})") from None
    if not data:
        raise CorpusError(f"{p}: the file is empty")
    return decode_corpus(data, base=base, name=p.name)
