"""Baselines to hold BPE against: seed 002's character tokenizer, seed 004's word-level tokenizer,
and an adapter that gives a BPE tokenizer the same small interface (:class:`Segmenter`)."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Protocol

from engine.encode.tokenizer import Tokenizer

#: Seed 004's regex, exactly: punctuation, the double dash, or whitespace (kept by the group).
WORD_PATTERN = r'([,.?_!"()\']|--|\s)'
_WORD_RE = re.compile(WORD_PATTERN)


@dataclass(frozen=True)
class Piece:
    """One token of a segmentation: its bytes (or token string) and whether it is unknown."""

    data: bytes
    unknown: bool = False


class Segmenter(Protocol):
    """What the comparisons need from any tokenizer."""

    name: str

    @property
    def vocab_size(self) -> int: ...

    def count(self, text: str) -> tuple[int, int]:
        """(tokens, unknown tokens) for ``text``; fast, for whole corpora."""
        ...

    def segment(self, text: str) -> list[Piece]:
        """The tokens of ``text``, for showing."""
        ...


class CharTokenizer:
    """Seed 002's ``CharTokenizer``: one character is one token, the vocabulary is the training
    text's characters in sorted order. A character it never saw is unknown (the seed's encode
    raises ``KeyError``; here it is counted).

    Example: ``CharTokenizer("abca").encode("cab") -> [2, 0, 1]``
    """

    name = "char"

    def __init__(self, text: str) -> None:
        self.chars = sorted(set(text))
        self.index = {c: i for i, c in enumerate(self.chars)}

    @property
    def vocab_size(self) -> int:
        return len(self.chars)

    def encode(self, text: str) -> list[int]:
        """Ids as the seed gives them (``KeyError`` for an unknown character, as there)."""
        return [self.index[c] for c in text]

    def decode(self, ids: list[int]) -> str:
        return "".join(self.chars[i] for i in ids)

    def count(self, text: str) -> tuple[int, int]:
        unknown = sum(n for c, n in Counter(text).items() if c not in self.index)
        return len(text), unknown

    def segment(self, text: str) -> list[Piece]:
        return [Piece(c.encode("utf-8", "surrogateescape"), c not in self.index) for c in text]


def split_words(text: str) -> list[str]:
    """Seed 004's pre-processing: split on the regex, strip each item, drop the empty ones.

    Example: ``split_words("Hello, world. Is this-- a test?")``
    -> ``['Hello', ',', 'world', '.', 'Is', 'this', '--', 'a', 'test', '?']``
    """
    return [item.strip() for item in _WORD_RE.split(text) if item.strip()]


class WordTokenizer:
    """Seed 004's ``SimpleTokenizerV1``: the vocabulary is every distinct word and punctuation
    mark of the training text, sorted; a word outside it is unknown (out of vocabulary, OOV).

    Example (seed 004): on The Verdict, 4649 tokens and a vocabulary of 1159; in
    ``Hello, do you like tea?`` the word ``Hello`` is unknown.
    """

    name = "word"

    def __init__(self, text: str) -> None:
        self.words = sorted(set(split_words(text)))
        self.vocab = {w: i for i, w in enumerate(self.words)}

    @property
    def vocab_size(self) -> int:
        return len(self.words)

    def encode(self, text: str) -> list[int]:
        """Ids as the seed gives them (``KeyError`` for an unknown word, as there)."""
        return [self.vocab[w] for w in split_words(text)]

    def decode(self, ids: list[int]) -> str:
        """The seed's decode: join with spaces, then no space before punctuation."""
        text = " ".join(self.words[i] for i in ids)
        return re.sub(r'\s+([,.?!"()\'])', r"\1", text)

    def unknown_words(self, text: str) -> list[str]:
        """The words of ``text`` outside the vocabulary, in order."""
        return [w for w in split_words(text) if w not in self.vocab]

    def count(self, text: str) -> tuple[int, int]:
        words = split_words(text)
        return len(words), sum(1 for w in words if w not in self.vocab)

    def segment(self, text: str) -> list[Piece]:
        return [Piece(w.encode("utf-8", "surrogateescape"), w not in self.vocab) for w in split_words(text)]


class BpeSegmenter:
    """A bpe-lab tokenizer as a :class:`Segmenter`; characters outside a chars-base alphabet are
    the unknowns (they encode as id 0, U+FFFD)."""

    def __init__(self, tokenizer: Tokenizer, name: str = "bpe") -> None:
        self.tokenizer = tokenizer
        self.name = name
        self._known = set(tokenizer.alphabet) if tokenizer.alphabet is not None else None

    @property
    def vocab_size(self) -> int:
        return self.tokenizer.vocab_size

    def _unknown(self, text: str) -> int:
        if self._known is None:
            return 0
        return sum(n for c, n in Counter(text).items() if c not in self._known)

    def count(self, text: str) -> tuple[int, int]:
        return len(self.tokenizer.encode(text, specials=False)), self._unknown(text)

    def segment(self, text: str) -> list[Piece]:
        tok = self.tokenizer
        ids = tok.encode(text, specials=False)
        unknown_zero = self._known is not None and self._unknown(text) > 0
        return [Piece(tok.token_bytes(i), unknown_zero and i == 0) for i in ids]
