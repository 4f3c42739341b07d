"""WordPiece and Unigram baselines (seed 003 §14-15), trained by HuggingFace ``tokenizers``' own
trainers. The library is optional (``pip install 'bpe-lab[compare]'``): it is imported here, lazily,
and nowhere else; without it :class:`SubwordUnavailable` says how to get it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from engine.analysis.baselines import Piece

#: What a missing library row says instead of numbers.
INSTALL_HINT = "needs the tokenizers library: pip install 'bpe-lab[compare]'"
_BATCH = 1000  # lines per batch fed to the trainers and encoders


class SubwordUnavailable(RuntimeError):
    """The ``tokenizers`` library is not installed; the message says how to install it."""


def _library() -> Any:
    try:
        import tokenizers  # optional: only these baselines need it
    except ImportError:
        raise SubwordUnavailable(INSTALL_HINT) from None
    return tokenizers


def subword_available() -> bool:
    """Whether WordPiece and Unigram baselines can be trained here."""
    try:
        _library()
    except SubwordUnavailable:
        return False
    return True


def _batches(text: str) -> Iterator[list[str]]:
    lines = text.splitlines(keepends=True)
    for start in range(0, len(lines), _BATCH):
        yield lines[start : start + _BATCH]


class HfSegmenter:
    """A model trained by ``tokenizers``, as a :class:`~engine.analysis.baselines.Segmenter`."""

    def __init__(self, name: str, tokenizer: Any, unk_token: str) -> None:
        self.name = name
        self.tokenizer = tokenizer
        self.unk_token = unk_token
        self.unk_id = tokenizer.token_to_id(unk_token)

    @property
    def vocab_size(self) -> int:
        return self.tokenizer.get_vocab_size()

    def count(self, text: str) -> tuple[int, int]:
        tokens = unknown = 0
        for batch in _batches(text):
            for encoding in self.tokenizer.encode_batch(batch, add_special_tokens=False):
                tokens += len(encoding.ids)
                unknown += encoding.ids.count(self.unk_id)
        return tokens, unknown

    def segment(self, text: str) -> list[Piece]:
        encoding = self.tokenizer.encode(text, add_special_tokens=False)
        return [Piece(t.encode("utf-8", "surrogateescape"), i == self.unk_id) for t, i in zip(encoding.tokens, encoding.ids)]


def train_wordpiece(text: str, vocab_size: int) -> HfSegmenter:
    """WordPiece (BERT's algorithm) with its trainer: words split on whitespace and punctuation,
    continuations marked ``##``, case kept (as seed 004), ``[UNK]`` for what it cannot spell.

    The trainer keeps every character of the training text (and its ``##`` form), so the
    vocabulary can come out larger than asked for on text with many distinct characters.
    """
    lib = _library()
    tok = lib.Tokenizer(lib.models.WordPiece(unk_token="[UNK]"))
    tok.pre_tokenizer = lib.pre_tokenizers.Whitespace()
    tok.decoder = lib.decoders.WordPiece()
    trainer = lib.trainers.WordPieceTrainer(vocab_size=vocab_size, special_tokens=["[UNK]"], show_progress=False)
    tok.train_from_iterator(_batches(text), trainer=trainer)
    return HfSegmenter("wordpiece", tok, "[UNK]")


def train_unigram(text: str, vocab_size: int) -> HfSegmenter:
    """Unigram (SentencePiece's default) with its trainer: spaces become ``▁`` and belong to the
    next piece, no other pre-splitting; ``<unk>`` for characters it never saw.

    The trainer refuses a vocabulary smaller than the text's distinct characters, so the size is
    raised to that floor when needed (text with thousands of distinct characters, like Chinese).
    """
    lib = _library()
    vocab_size = max(vocab_size, len(set(text) | {"▁"}) + 1)  # every character, ▁, and <unk>
    tok = lib.Tokenizer(lib.models.Unigram())
    tok.pre_tokenizer = lib.pre_tokenizers.Metaspace()
    tok.decoder = lib.decoders.Metaspace()
    trainer = lib.trainers.UnigramTrainer(
        vocab_size=vocab_size, special_tokens=["<unk>"], unk_token="<unk>", show_progress=False
    )
    tok.train_from_iterator(_batches(text), trainer=trainer)
    return HfSegmenter("unigram", tok, "<unk>")
