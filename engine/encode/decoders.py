"""Decoders: ids back to text. A decoder reads the vocabulary's tokens and knows what a mark on
them means; it never encodes.

- :class:`ByteLevel`: the tokens' bytes joined, then read as UTF-8 (bytes that are not valid
  UTF-8 become U+FFFD). bpe-lab's own tokenizers, GPT-2's and tiktoken's files.
- :class:`ByteFallback`: SentencePiece's ``<0xAB>`` tokens (the alphabet's entries 1-256) are
  raw bytes, joined with the bytes around them before they are read as UTF-8.
- :class:`EndOfWord`: a suffix (``</w>``: CLIP, subword-nmt) marks a word's last token. It is
  dropped where the chunks hold every character (a named pre-tokenizer keeps the spaces), and
  else becomes a space between words (none before whitespace or at the end), as CLIP and
  HuggingFace's ``BPEDecoder`` do.
- :class:`SubwordPrefix`: a prefix (``##``, HuggingFace's ``continuing_subword_prefix``) marks
  a token that continues a word: it is dropped, and where the pre-tokenizer drops characters a
  space goes before each token that starts a word (but the first), as HuggingFace's
  ``WordPiece`` decoder does. With a suffix too, :class:`EndOfWord` then reads its text.

Example::

    >>> from engine.encode.vocabulary import BaseUnits, Vocabulary
    >>> v = Vocabulary(BaseUnits(end_of_word="</w>"), [(104, 105 + 256)])
    >>> EndOfWord("</w>", spaced=True).decode(v, [512, 512])
    'hi hi'
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Protocol

from engine.encode.vocabulary import Vocabulary
from engine.errors import TokenIdError


class Decoder(Protocol):
    """Ids -> text, with the vocabulary they index."""

    def decode(self, vocab: Vocabulary, ids: Iterable[int]) -> str: ...


def join_bytes(vocab: Vocabulary, ids: Iterable[int]) -> bytes:
    """The bytes the ids stand for, joined (specials as their text)."""
    pieces = vocab.pieces
    n = len(pieces)
    try:
        return b"".join([pieces[i] if 0 <= i < n else vocab.token_bytes(i) for i in ids])
    except TypeError:
        raise TokenIdError("token ids must be integers") from None


class ByteLevel:
    """The tokens' bytes joined and read as UTF-8 (see the module doc).

    Example: ``ByteLevel().decode(Vocabulary(BaseUnits(), [(104, 105)]), [256, 33]) -> 'hi!'``
    """

    def decode(self, vocab: Vocabulary, ids: Iterable[int]) -> str:
        return join_bytes(vocab, ids).decode("utf-8", "replace")


class ByteFallback:
    """SentencePiece's byte tokens (ids 1-256 of a byte-fallback alphabet: byte ``id - 1``) as
    raw bytes, joined with the tokens' bytes around them and read as UTF-8 together, so that
    the three byte tokens of one character decode to it.

    Example: with the units of ``BYTE_CHARS``, ``[0xE4 + 1, 0xB8 + 1, 0xAD + 1] -> '中'``
    """

    def decode(self, vocab: Vocabulary, ids: Iterable[int]) -> str:
        pieces = vocab.pieces
        n = len(pieces)
        out: list[bytes] = []
        try:
            for i in ids:
                if 1 <= i <= 256:
                    out.append(bytes((i - 1,)))
                else:
                    out.append(pieces[i] if 0 <= i < n else vocab.token_bytes(i))
        except TypeError:
            raise TokenIdError("token ids must be integers") from None
        return b"".join(out).decode("utf-8", "replace")


def unmark(text: str, suffix: str) -> str:
    """Decoded text with each end-of-word ``suffix`` made a space between words: none before
    whitespace or at the end. Example: ``unmark("a</w>photo</w> of</w>", "</w>") -> "a photo of"``"""
    marked = re.compile(re.escape(suffix) + r"(?=\s|\Z)")
    return marked.sub("", text).replace(suffix, " ")


class EndOfWord:
    """A word's last token carries ``suffix``: dropped, or (``spaced``: the pre-tokenizer drops
    the spaces between words) made a space between words."""

    def __init__(self, suffix: str, *, spaced: bool) -> None:
        self.suffix = suffix
        self.spaced = spaced

    def decode(self, vocab: Vocabulary, ids: Iterable[int]) -> str:
        return self.unmark(join_bytes(vocab, ids).decode("utf-8", "replace"))

    def unmark(self, text: str) -> str:
        """Decoded text without its suffixes (see the class doc)."""
        return unmark(text, self.suffix) if self.spaced else text.replace(self.suffix, "")


class SubwordPrefix:
    """A token that continues a word carries ``prefix``: dropped; with ``spaced`` (the
    pre-tokenizer drops characters, no suffix) a space before each token that starts a word,
    but the first. ``then``: a suffix's decoder reads the text after."""

    def __init__(self, prefix: str, *, spaced: bool, then: EndOfWord | None = None) -> None:
        self.prefix = prefix
        self.spaced = spaced and then is None
        self.then = then

    def decode(self, vocab: Vocabulary, ids: Iterable[int]) -> str:
        pieces, continues = vocab.pieces, vocab.continues
        if continues is None:
            raise ValueError("a subword prefix decoder needs a vocabulary with that prefix")
        cut = len(self.prefix.encode("utf-8"))
        spaced = self.spaced
        n = len(pieces)
        out: list[bytes] = []
        try:
            for i in ids:
                if 0 <= i < n and continues[i]:
                    out.append(pieces[i][cut:])
                    continue
                if spaced and out:
                    out.append(b" ")
                out.append(pieces[i] if 0 <= i < n else vocab.token_bytes(i))
        except TypeError:
            raise TokenIdError("token ids must be integers") from None
        text = b"".join(out).decode("utf-8", "replace")
        return text if self.then is None else self.then.unmark(text)


def decoder_for(vocab: Vocabulary, spaced: bool) -> Decoder:
    """The decoder a vocabulary's marks call for: ``spaced`` when the pre-tokenizer drops
    characters (a custom pattern), so that the marks stand for the spaces."""
    units = vocab.units
    suffix = None if units.end_of_word is None else EndOfWord(units.end_of_word, spaced=spaced)
    if units.subword_prefix is not None:
        return SubwordPrefix(units.subword_prefix, spaced=spaced, then=suffix)
    if suffix is not None:
        return suffix
    if units.byte_fallback:
        return ByteFallback()
    return ByteLevel()
