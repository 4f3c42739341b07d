"""Replaying a tokenizer file's merges on a corpus (:meth:`~engine.train.trainer.Trainer.replaying`):
the script each step follows, the text as the file's normalizer makes it, and what the file's
library does besides merging (a whole-chunk lookup, byte fallback), so the corpus pane and the
step's tokenizer show the file as it encodes."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Self

from engine.config import TrainConfig
from engine.encode.pairs import SHIFT
from engine.encode.tokenizer import Tokenizer
from engine.text.pretokenize import PreTokenizer
from engine.train.pair_state import PairState


class TrainerReplay:
    """Replay steps and views (a mixin of :class:`~engine.train.trainer.Trainer`, which sets these)."""

    config: TrainConfig
    text: str
    pretokenizer: PreTokenizer
    alphabet: list[str] | None
    _state: PairState
    _script: list[tuple[int, int]] | None
    _replayed: Tokenizer | None
    _chunks: Counter[str]
    _future: list
    _whole_index: dict[bytes, int] | None
    _chunk_list: list[str]
    _whole_cache: tuple[int, Tokenizer, dict[int, int | None]] | None

    @classmethod
    def replaying(
        cls, text: str, tokenizer: Tokenizer, checkpoints: int = 0, checkpoint_memory: int | None = None
    ) -> Self:
        """A trainer that rebuilds ``tokenizer`` on ``text``: step k applies its merge k, so the
        corpus shows how that tokenizer builds up on your text (counts are this corpus's)."""
        pre = tokenizer.pretokenizer
        base_config = tokenizer.config
        config = TrainConfig(
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
        trainer = cls(
            _replay_text(text, tokenizer),
            config,
            alphabet=tokenizer.alphabet,
            script=tokenizer.merges,
            pretokenizer=replace(pre, per_line=False),
            checkpoints=checkpoints,
            checkpoint_memory=checkpoint_memory,
        )
        trainer._replayed = tokenizer
        return trainer

    @property
    def is_replay(self) -> bool:
        """Whether steps follow a given tokenizer's merges instead of choosing (see
        :meth:`replaying`)."""
        return self._script is not None

    def _replayed_at(self, steps: int) -> Tokenizer:
        """The replayed tokenizer after its first ``steps`` merges, as its file encodes: with the
        file's normalizer and byte fallback, its whole-chunk lookup (a tiktoken rank file's), the
        whole pieces ranked below this step (tokens no merge makes, which only that lookup gives:
        Llama 3 has 695) and sentencepiece's ranks by text. Its tokens' bytes are the file's own,
        already built: no merge is joined again (a 128k-merge file takes ~0.1 s, not seconds)."""
        script = self._replayed
        assert script is not None
        return script.cut(steps, specials=self.config.specials, pretokenizer=replace(self.pretokenizer, per_line=False),
                          config=self.config)

    def _fallen_back(self, spans: list[tuple[int, int, int]], base: int) -> Iterator[tuple[int, int, int]]:
        """A byte-fallback replay's spans of one chunk (chars base): a character outside the
        alphabet (id 0 here) is the tokens of its UTF-8 bytes, as sentencepiece gives them; the
        first spans the character, the others are empty, at its end."""
        text = self.text
        for tid, s, e in spans:
            if tid or e - s != 1:
                yield tid, base + s, base + e
                continue
            data = text[base + s].encode("utf-8", "surrogateescape")
            yield 1 + data[0], base + s, base + e  # the alphabet's entries 1-256 are the bytes
            for byte in data[1:]:
                yield 1 + byte, base + e, base + e

    def _found_whole(self) -> Callable[[int], int | None]:
        """A replay's whole-chunk lookup at this step: a distinct chunk's token when its bytes are
        one (see :meth:`spans`), else None. Answers are kept until the step changes."""
        script = self._replayed
        assert script is not None
        steps = self.steps
        kept = self._whole_cache
        if kept is None or kept[0] != steps or kept[1] is not script:
            if self._whole_index is None:
                self._whole_index = {piece: i for i, piece in enumerate(script.pieces[script.base_size:])}
                self._whole_index.update((piece, -1 - i) for i, piece in enumerate(script.whole_pieces))
                self._chunk_list = list(self._chunks)
            kept = self._whole_cache = (steps, script, {})
        answers, index, chunks = kept[2], self._whole_index, self._chunk_list
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

    def _scripted(self) -> tuple[int, int, int, tuple[tuple[int, int], ...], int]:
        """The next merge of the replayed tokenizer, whatever its count is in this corpus."""
        a, b = self._script[self.steps]
        count = self._state.count.get(a << SHIFT | b, 0)
        return a, b, count, ((a, b),), self._state.ties(count) if count else 0

    def scripted_next(self) -> tuple[tuple[int, int], int, int] | None:
        """In a replay, the merge the next step makes, as ``(pair, count here, rank by count)``;
        the rank is 1 + how many pairs occur more often now (cheap: one pass over the distinct
        counts, never the corpus). None when not replaying or every merge is made."""
        if self._script is None:
            return None
        if self._future:
            pair = self._future[-1][0].pair
        elif self.steps < len(self._script):
            pair = self._script[self.steps]
        else:
            return None
        a, b = pair
        count = self._state.count.get(a << SHIFT | b, 0)
        above = sum(n for c, n in self._state.hist.items() if c > count)
        return (a, b), count, above + 1


def _replay_text(text: str, tokenizer: Tokenizer) -> str:
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
