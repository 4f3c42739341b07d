"""The compare tab's diff of two tokenizers (no textual): what ``bpe-lab diff A B --text`` finds,
gathered once in a worker for the pane to draw (tui/app/widgets/diff_view.py).

Example::

    found = diff_tokenizers(("bpe", trained), ("o200k", o200k), text, source="the corpus")
    found.vocab.shared, found.groups_b, found.text.scripts
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import Tokenizer
from engine.analysis import TextDiff, VocabDiff, by_script, text_diff, vocab_diff

#: The most characters of a corpus the per-script figures read (the first ones): the pane waits
#: on them, and a few hundred thousand characters already give steady figures.
TEXT_LIMIT = 200_000


@dataclass(frozen=True)
class TokenizerDiff:
    """Two tokenizers side by side: their names, :class:`VocabDiff`, the tokens only each has by
    script, the tokens at the first merge where their orders part (None: no such merge on that
    side), and over ``source`` (the typed text or the corpus) the :class:`TextDiff`."""

    a: str
    b: str
    vocab: VocabDiff
    groups_a: dict[str, list[bytes]]
    groups_b: dict[str, list[bytes]]
    parting: tuple[bytes | None, bytes | None]
    text: TextDiff
    source: str
    cut: bool = False


def diff_tokenizers(a: tuple[str, Tokenizer], b: tuple[str, Tokenizer], text: str, *, source: str,
                    words: int = 5) -> TokenizerDiff:
    """:class:`TokenizerDiff` of two named tokenizers over ``text`` (at most :data:`TEXT_LIMIT`
    characters of it; ``words``: the differently split words kept)."""
    (name_a, tok_a), (name_b, tok_b) = a, b
    found = vocab_diff(tok_a, tok_b)
    k = found.first_parting
    parting = (None, None)
    if k is not None:
        parting = (bytes(tok_a.pieces[tok_a.base_size + k]) if k < found.merges_a else None,
                   bytes(tok_b.pieces[tok_b.base_size + k]) if k < found.merges_b else None)
    read = text[:TEXT_LIMIT]
    return TokenizerDiff(name_a, name_b, found, by_script(found.only_a), by_script(found.only_b), parting,
                         text_diff(tok_a, tok_b, read, words), source, cut=len(read) < len(text))
