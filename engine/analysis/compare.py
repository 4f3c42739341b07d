"""Side by side: one row of numbers per tokenizer on a corpus and a held-out text, the baselines
trained to a vocabulary size, and the token tax on parallel sentences (seed 003 §18)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from engine.analysis.baselines import CharTokenizer, Segmenter, WordTokenizer
from engine.analysis.subword import SubwordUnavailable, train_unigram, train_wordpiece

if TYPE_CHECKING:
    from engine.train.trainer import Trainer

#: The baselines, in the order rows show them.
BASELINES = ("char", "word", "wordpiece", "unigram")


@dataclass(frozen=True)
class Row:
    """One tokenizer's numbers; ``note`` instead of numbers when it could not be built."""

    name: str
    vocab_size: int | None = None
    corpus_chars: int = 0
    corpus_tokens: int | None = None
    corpus_unknown: int | None = None
    heldout_chars: int | None = None
    heldout_tokens: int | None = None
    heldout_unknown: int | None = None
    note: str | None = None

    @property
    def on_heldout(self) -> bool:
        """Whether unknowns and characters per token are measured on held-out text."""
        return self.heldout_tokens is not None

    @property
    def unknown(self) -> int | None:
        """Unknown tokens on the held-out text when there is one, else on the corpus."""
        return self.heldout_unknown if self.on_heldout else self.corpus_unknown

    @property
    def chars_per_token(self) -> float | None:
        """Characters per token on the held-out text when there is one, else on the corpus."""
        chars, tokens = (self.heldout_chars, self.heldout_tokens) if self.on_heldout else (self.corpus_chars, self.corpus_tokens)
        if not tokens or chars is None:
            return None
        return chars / tokens

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        cpt = self.chars_per_token
        data.update(unknown=self.unknown, chars_per_token=round(cpt, 4) if cpt is not None else None)
        return data


def measure(
    segmenter: Segmenter,
    corpus: str,
    heldout: str | None = None,
    *,
    name: str | None = None,
    corpus_counts: tuple[int, int] | None = None,
) -> Row:
    """Count ``segmenter``'s tokens and unknowns on the corpus and the held-out text.

    ``corpus_counts`` (tokens, unknowns) skips encoding a corpus whose counts are known (a
    trainer knows its own corpus length at every step).
    """
    tokens, unknown = corpus_counts if corpus_counts is not None else segmenter.count(corpus)
    row = Row(name or segmenter.name, segmenter.vocab_size, len(corpus), tokens, unknown)
    if heldout is None:
        return row
    h_tokens, h_unknown = segmenter.count(heldout)
    return Row(row.name, row.vocab_size, len(corpus), tokens, unknown, len(heldout), h_tokens, h_unknown)


def trainer_counts(trainer: Trainer) -> tuple[int, int] | None:
    """(tokens, unknowns) of a trainer's own corpus, when encoding it would give the same count.

    The ``hf`` rule trains on lines but encodes whole texts, so its count is left to encoding.
    """
    if trainer.config.tie_rule == "hf" or trainer.is_replay:
        return None
    return trainer.corpus_tokens, 0


@dataclass(frozen=True)
class Baseline:
    """A baseline tokenizer, or the reason there is none (``note``)."""

    name: str
    segmenter: Segmenter | None = None
    note: str | None = None


_BUILDERS: dict[str, Callable[[str, int], Segmenter]] = {
    "char": lambda text, size: CharTokenizer(text),
    "word": lambda text, size: WordTokenizer(text),
    "wordpiece": train_wordpiece,
    "unigram": train_unigram,
}


def build_baselines(text: str, vocab_size: int, names: Sequence[str] = BASELINES) -> list[Baseline]:
    """Train each baseline on ``text``; WordPiece and Unigram aim at ``vocab_size``.

    A baseline that cannot be built (the optional library is missing, or its trainer refuses the
    text) comes back with a one-line ``note`` instead of failing the rest.
    """
    out = []
    for name in names:
        try:
            out.append(Baseline(name, _BUILDERS[name](text, vocab_size)))
        except SubwordUnavailable as exc:
            out.append(Baseline(name, note=str(exc)))
        except Exception as exc:  # the library's own errors: say so in the row, keep the others
            out.append(Baseline(name, note=f"{name} training failed: {exc}".splitlines()[0]))
    return out


def baseline_rows(baselines: Sequence[Baseline], corpus: str, heldout: str | None = None) -> list[Row]:
    """One row per baseline (a note-only row for those that could not be built)."""
    return [
        measure(b.segmenter, corpus, heldout, name=b.name) if b.segmenter is not None else Row(b.name, note=b.note)
        for b in baselines
    ]


def parse_parallel(text: str) -> list[dict[str, str]]:
    """Parallel sentences: groups separated by blank lines, one ``lang: sentence`` line each;
    ``#`` lines are comments.

    Example: ``parse_parallel("en: Hi.\\nde: Hallo.\\n\\nen: Bye.\\n")``
    -> ``[{'en': 'Hi.', 'de': 'Hallo.'}, {'en': 'Bye.'}]``
    """
    groups: list[dict[str, str]] = []
    current: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        if not line.strip():
            if current:
                groups.append(current)
            current = {}
            continue
        lang, sep, sentence = line.partition(":")
        if not sep or not lang.strip():
            raise ValueError(f"not a 'lang: sentence' line: {line!r}")
        current[lang.strip()] = sentence.strip()
    if current:
        groups.append(current)
    return groups


def languages(groups: Sequence[dict[str, str]]) -> list[str]:
    """The languages of parallel groups, in order of first appearance."""
    seen: dict[str, None] = {}
    for group in groups:
        seen.update(dict.fromkeys(group))
    return list(seen)


@dataclass(frozen=True)
class Tax:
    """One language's cost under one tokenizer: tokens, unknowns, and the ratio to the reference."""

    tokens: int
    unknown: int
    ratio: float | None


def token_tax(segmenter: Segmenter, groups: Sequence[dict[str, str]], reference: str = "en") -> dict[str, Tax]:
    """Per language: tokens and unknowns over all its sentences, and the ratio of its tokens to
    ``reference``'s on the groups that have both (seed 003 §18's "token tax": 2.0 means twice the
    tokens for the same content; unknowns make a count look cheaper than it is)."""
    out: dict[str, Tax] = {}
    for lang in languages(groups):
        counts = [segmenter.count(g[lang]) for g in groups if lang in g]
        both = [g for g in groups if lang in g and reference in g]
        ref = sum(segmenter.count(g[reference])[0] for g in both)
        mine = sum(segmenter.count(g[lang])[0] for g in both)
        out[lang] = Tax(sum(t for t, _ in counts), sum(u for _, u in counts), mine / ref if ref else None)
    return out
