"""Replaying a tokenizer file on a corpus: step k applies the file's merge k, so the corpus shows
how that tokenizer builds up on your text (:meth:`~engine.train.trainer.Trainer.replaying`).

A replay is training with the choosing taken away: the steps come from the file's script
(:class:`~engine.train.choosing.ScriptChooser`), and the counts are this corpus's. What a
file's library does besides merging is kept here, in :class:`ReplayedFile`, so that the corpus
pane and each step's tokenizer show the file as it really encodes:

- the text as the file's normalizer makes it (:func:`replay_text`: NFKC's ``ﬁ`` as ``fi``,
  sentencepiece's ``▁`` for spaces);
- a whole-chunk lookup (a tiktoken rank file's): a chunk that is one of the file's tokens at
  this step is that token, even where the merges alone would not make it
  (:meth:`ReplayedFile.whole_chunk_lookup`);
- byte fallback (sentencepiece): a character outside the alphabet is the tokens of its UTF-8
  bytes (:meth:`ReplayedFile.byte_fallback_spans`);
- the file cut at a step (:meth:`ReplayedFile.tokenizer_at`), which encodes as that file would
  with only its first merges.

Example::

    t = Trainer.replaying("low lower lowest", Tokenizer.load("gpt2.json"))
    t.step().pair  # the file's first merge, with its count in this text
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace

from engine.config import TrainConfig
from engine.encode.tokenizer import Tokenizer
from engine.text.pretokenize import PreTokenizer


def replay_config(tokenizer: Tokenizer) -> TrainConfig:
    """The training options that rebuild ``tokenizer``: its base, pattern, specials and marks,
    as many merges as it has, every pair counted (its merges may be rare here)."""
    pre = tokenizer.pretokenizer
    base_config = tokenizer.config
    return TrainConfig(
        base=tokenizer.base,
        pretokenizer=pre.name,
        pattern=pre.pattern if pre.name == "custom" else None,
        split_digits=pre.split_digits,
        tie_rule=base_config.tie_rule if base_config and base_config.tie_rule != "hf" else "lowest-ids",
        max_merges=len(tokenizer.merges),
        min_frequency=1,  # every pair is counted exactly: replayed merges may be rare here
        no_merge_newline=pre.split_newlines,
        specials=tuple(tokenizer.specials),
        end_of_word=tokenizer.end_of_word,
        subword_prefix=tokenizer.subword_prefix,
    )


class ReplayedFile:
    """The tokenizer a replay rebuilds, and what its library does besides merging. Its own state
    is the whole-chunk lookup's index and the answers of the step they were asked at."""

    def __init__(self, tokenizer: Tokenizer, config: TrainConfig, alphabet: list[str] | None,
                 pretokenizer: PreTokenizer) -> None:
        self.tokenizer = tokenizer
        self.config = config
        self.alphabet = alphabet
        self.pretokenizer = pretokenizer
        #: token bytes -> merge index, or -1 - i for the file's whole piece i (built on first use)
        self.whole_index: dict[bytes, int] | None = None
        #: (step, answers by chunk uid) of the last lookup
        self.answers_at: tuple[int, dict[int, int | None]] | None = None

    @property
    def merges(self) -> list[tuple[int, int]]:
        """The file's merges: the replay's script."""
        return self.tokenizer.merges

    def tokenizer_at(self, steps: int) -> Tokenizer:
        """The replayed tokenizer after its first ``steps`` merges, as its file encodes: with the
        file's normalizer and byte fallback, its whole-chunk lookup (a tiktoken rank file's), the
        whole pieces ranked below this step (tokens no merge makes, which only that lookup gives:
        Llama 3 has 695) and sentencepiece's ranks by text. Its tokens' bytes are the file's own,
        already built: no merge is joined again (a 128k-merge file takes ~0.1 s, not seconds)."""
        script = self.tokenizer
        return script.cut(steps, specials=self.config.specials, pretokenizer=replace(self.pretokenizer, per_line=False),
                          config=self.config)

    def byte_fallback_spans(self, spans: list[tuple[int, int, int]], base: int, text: str) -> Iterator[tuple[int, int, int]]:
        """A byte-fallback replay's spans of one chunk at ``base`` of ``text`` (chars base): a
        character outside the alphabet (id 0 here) is the tokens of its UTF-8 bytes, as
        sentencepiece gives them; the first spans the character, the others are empty, at its end."""
        for tid, s, e in spans:
            if tid or e - s != 1:
                yield tid, base + s, base + e
                continue
            data = text[base + s].encode("utf-8", "surrogateescape")
            yield 1 + data[0], base + s, base + e  # the alphabet's entries 1-256 are the bytes
            for byte in data[1:]:
                yield 1 + byte, base + e, base + e

    def whole_chunk_lookup(self, steps: int, chunks: Sequence[str]) -> Callable[[int], int | None]:
        """The whole-chunk lookup at step ``steps``: a distinct chunk's (by uid into ``chunks``)
        token when its bytes are one, else None: a merged token's id once the step passes its
        merge, or ``-1 - i`` for the file's whole piece ``i`` once the step reaches its rank.
        Answers are kept until the step changes."""
        script = self.tokenizer
        kept = self.answers_at
        if kept is None or kept[0] != steps:
            kept = self.answers_at = (steps, {})
        index = self.whole_index
        if index is None:
            index = {piece: i for i, piece in enumerate(script.pieces[script.base_size:])}
            index.update((piece, -1 - i) for i, piece in enumerate(script.whole_pieces))
            self.whole_index = index
        answers = kept[1]
        ranks = script.whole_ranks
        everything = steps >= len(script.merges)

        def found(uid: int) -> int | None:
            if uid in answers:
                return answers[uid]
            at = index.get(chunks[uid].encode("utf-8", "surrogateescape"))
            if at is not None and at >= 0:  # a merge's token: made once the step passes that merge
                at = at + script.base_size if at < steps else None
            elif at is not None:  # a whole piece: there once the step reaches its rank
                reached = everything if ranks is None else ranks[-1 - at] <= steps
                at = at if reached else None
            answers[uid] = at
            return at

        return found


def replay_text(text: str, tokenizer: Tokenizer) -> str:
    """The corpus as a replayed tokenizer's normalizer makes it: what its file's own library
    merges when given the corpus as one text (NFKC's ``ﬁ`` as ``fi``, sentencepiece's ``▁`` for
    each space and before the text), which the corpus pane then shows. A normalizer that would
    join the lines (CLIP's whitespace runs to one space) is applied line by line, the newlines
    kept: what it adds before a text comes only before the first line
    (such a tokenizer's chunks hold no whitespace, so its tokens are the same)."""
    if tokenizer.normalizer is None:
        return text
    whole = tokenizer.normalize(text)
    if whole.count("\n") == text.count("\n"):
        return whole
    lead = tokenizer.normalize("x")[:-1]  # what one call adds before a plain character
    lines = [tokenizer.normalize(line) for line in text.split("\n")]
    if lead:
        lines[1:] = [line[len(lead):] if line.startswith(lead) else line for line in lines[1:]]
    return "\n".join(line.replace("\n", " ") for line in lines)
