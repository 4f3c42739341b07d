"""A vocabulary dive: the longest tokens, the parts of characters, and glitch-token candidates.

Glitch tokens (``SolidGoldMagikarp``) are tokens a tokenizer made that a model then hardly ever
saw in training, so their embeddings stayed untrained. Only the tokenizer is here, not the model:
what can be found are the tokenizer-side signals the literature uses to find candidates:

- **unreachable**: encoding the token's own text never yields the token (another split wins, or a
  whole-piece token no merge builds), so no text is ever that one token alone;
- **unused**: the token is never produced on a reference corpus the user chooses (GPT-2's
  ``SolidGoldMagikarp`` came from Reddit usernames that its model's training text did not hold);
- **no round trip**: decoding the token does not give back its bytes as text (parts of
  characters, which decode to U+FFFD).

A candidate is a question for the model's embeddings, not an answer: these lists say where to
look. Example::

    dive = vocabulary_dive(tok, corpus_text)
    dive.unreachable, dive.unused[:10], dive.longest_bytes[:5]
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from engine.encode.tokenizer import Tokenizer


@dataclass(frozen=True)
class VocabularyDive:
    """What :func:`vocabulary_dive` finds, each list of token ids: the ``longest_bytes`` and
    ``longest_chars`` (whole UTF-8 tokens) first, the ``partial`` tokens (not whole characters),
    and the candidates: ``unreachable``, ``unused`` (None without a corpus, else the ids never
    produced on it, the longest first) and ``no_round_trip``."""

    size: int
    longest_bytes: list[int]
    longest_chars: list[int]
    partial: list[int]
    unreachable: list[int]
    no_round_trip: list[int]
    unused: list[int] | None = None
    corpus_tokens: int = 0
    produced: Counter[int] = field(default_factory=Counter)


def vocabulary_dive(tok: Tokenizer, corpus: str | None = None, longest: int = 20) -> VocabularyDive:
    """The dive into ``tok``'s vocabulary (see the module doc), on ``corpus`` when given."""
    pieces = [bytes(p) for p in tok.pieces]
    ids = range(len(pieces))
    texts: dict[int, str] = {}
    partial = []
    for i in ids:
        try:
            texts[i] = pieces[i].decode("utf-8")
        except UnicodeDecodeError:
            partial.append(i)
    unreachable = [i for i, text in texts.items() if len(pieces[i]) > 1 and tok.encode(text) != [i]]
    no_round_trip = [i for i in ids if tok.decode([i]).encode("utf-8", "surrogatepass") != pieces[i]]
    by_len = sorted(ids, key=lambda i: (-len(pieces[i]), i))
    by_chars = sorted(texts, key=lambda i: (-len(texts[i]), i))
    unused = None
    produced: Counter[int] = Counter()
    if corpus is not None:
        produced = Counter(tok.encode(corpus))
        unused = [i for i in by_len if i not in produced and len(pieces[i]) > 1]
    return VocabularyDive(len(pieces), by_len[:longest], by_chars[:longest], partial, unreachable, no_round_trip,
                          unused, sum(produced.values()), produced)
