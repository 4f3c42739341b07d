"""The Trainer: owns the training state and turns it into a stream of immutable merge events.

This module holds the set-up, the state, stepping (the rule's choice and the stop rules) and the
collector pause; the Trainer's other parts are mixins in modules of their own: the corpus as
tokens (``_trainer_corpus``), replaying a file (``_trainer_replay``), subword-nmt's ties by text
(``_trainer_ties``), undo, redo and jumps (``_trainer_moves``), manual merges and what-if
branches (``_trainer_branches``)."""

from __future__ import annotations

import gc
from array import array
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from functools import cached_property

from engine.config import MAX_VOCAB, MAX_VOCAB_BYTES, TrainConfig, check_specials
from engine.encode.tokenizer import Tokenizer
from engine.errors import ConfigError, CorpusError
from engine.text.bytelevel import hf_byte_rank
from engine.text.pretokenize import PreTokenizer, pretokenizer_for
from engine.train.branches import Branches
from engine.train.branching import TrainerBranches
from engine.train.checkpoints import Checkpoints
from engine.train.corpus_view import TrainerCorpus, _mark_continuations, _mark_word_ends
from engine.train.events import TIE_CAP, Candidate, Merge
from engine.train.gc_pause import gc_paused
from engine.train.layout import CorpusLayout
from engine.train.pair_state import MergeRecord, PairState
from engine.train.replay import TrainerReplay
from engine.train.ties import TrainerTies
from engine.train.timeline import TrainerMoves


class Trainer(TrainerCorpus, TrainerReplay, TrainerTies, TrainerMoves, TrainerBranches):
    """Trains BPE one merge at a time; pause by not pulling, undo/redo/goto any step.

    Example::

        t = Trainer("low lower lowest", TrainConfig(base="chars", pretokenizer="none",
                    tie_rule="first-seen", max_merges=4))
        [t.token_text(m.new_id) for m in t.run()]  # ['lo', 'low', ' low', ' lowe']
    """

    #: The collector pause, as the mixins call it (``self._gc_paused()``): it lives in
    #: engine.train.gc_pause, with YOUNG_SCAN, its threshold.
    _gc_paused = staticmethod(gc_paused)

    def __init__(
        self,
        text: str,
        config: TrainConfig | None = None,
        *,
        alphabet: Sequence[str] | None = None,
        script: Sequence[tuple[int, int]] | None = None,
        pretokenizer: PreTokenizer | None = None,
        chunks: Counter[str] | None = None,
        checkpoints: int = 0,
        checkpoint_memory: int | None = None,
    ) -> None:
        """Prepare to train on ``text``.

        ``alphabet`` fixes the chars base's ids (characters outside it become id 0);
        ``script`` makes every step apply the next of these merges instead of choosing one (a
        tokenizer replayed on this corpus, see :meth:`replaying`); ``pretokenizer`` overrides
        the one the config names (an imported tokenizer's own pattern); ``chunks`` gives the
        corpus already pre-tokenized and counted (:func:`engine.corpus.reading.count_corpus`, which
        never holds the whole text): ``text`` may then be empty, and :meth:`spans` needs it.
        ``checkpoints`` > 0 keeps that many whole copies of the state (besides step 0's) so that
        long jumps cost a copy and a short walk (see :mod:`engine.train.checkpoints`): for the app,
        where jumps are interactive; they cost memory, so training scripts do without
        (``checkpoint_memory`` bounds the bytes they hold together).
        """
        self.config = config = config or TrainConfig()
        self.pretokenizer: PreTokenizer = pretokenizer or pretokenizer_for(config)
        self.text = text
        self._script = [tuple(pair) for pair in script] if script is not None else None
        with gc_paused():
            if chunks is None:
                chunks = self.pretokenizer.count(text)
            if not chunks:
                raise CorpusError("no text to train on: the corpus is empty or the pattern matches none of it")
            if config.base == "chars":
                if alphabet is None:
                    seen = set(text) if text else set().union(*chunks)
                    alphabet = ["\ufffd", *sorted(seen - {"\ufffd"})]
                self.alphabet: list[str] | None = list(alphabet)
                ids = {c: i for i, c in enumerate(alphabet)}
                pieces = [c.encode("utf-8", "surrogateescape") for c in alphabet]
                get = ids.get
                # (with a subword prefix, a character outside the alphabet is -1 until it is
                # marked: id 0 wherever it stands, as the tokenizer encodes it)
                unknown = -1 if config.subword_prefix is not None else 0
                seqs = [([get(ch, unknown) for ch in c], n) for c, n in chunks.items()]
            else:
                self.alphabet = None
                pieces = [bytes([i]) for i in range(256)]
                seqs = [(c.encode("utf-8", "surrogateescape"), n) for c, n in chunks.items()]
                if config.subword_prefix is not None or config.end_of_word is not None:
                    seqs = [(list(c), n) for c, n in seqs]  # marked in place below
                # else bytes, not lists: the pair state lays bytes out as their symbols
            if config.subword_prefix is not None:
                seqs, pieces = _mark_continuations(seqs, pieces, config.subword_prefix)
            if config.end_of_word is not None:
                seqs, pieces = _mark_word_ends(seqs, pieces, config.end_of_word)
            #: a merge's token: its parts' bytes joined, the right part's prefix cut off (it
            #: always continues a word), as tokenizers' BpeTrainer builds it
            self._cut = len(config.subword_prefix.encode("utf-8")) if config.subword_prefix is not None else 0
            self.base_size = len(pieces)
            self._check_limits()
            if script is None:  # a replayed tokenizer's specials were checked when it was made
                check_specials(config.specials, chunks, config.base, self.alphabet)
            self._pieces = pieces
            #: The bytes of the base and of every merge made so far (undone ones too): a new merge
            #: that would take them past MAX_VOCAB_BYTES stops training ("vocab-bytes").
            self._known_bytes = sum(map(len, pieces))
            self.initial_tokens = sum(len(s) * n for s, n in seqs)
            self._chunks = chunks  # distinct chunk -> count, in layout order
            self._chunk_lengths = array("i", [len(s) for s, _ in seqs])
            rank = hf_byte_rank() if config.tie_rule == "hf" else None
            #: subword-nmt's ties are decided here, by the tokens' texts (see _largest_text): the
            #: state orders the queue by count (then ids) for it.
            self._by_texts = config.tie_rule == "subword-nmt"
            #: subword-nmt: the last tie set read, (count, [(text key, pair), ...] best first), which
            #: the next step checks and tops up instead of reading every tied pair again
            self._tied: tuple[int, list[tuple[tuple[bytes, bytes], tuple[int, int]]]] | None = None
            rule = "lowest-ids" if self._by_texts else config.tie_rule
            self._state = PairState(seqs, rule, config.min_frequency, rank)
        self._layout: CorpusLayout | None = None
        self._history: list[tuple[Merge, MergeRecord | None]] = []
        #: Undone merges, next to redo last; their records stay valid (the state they lead
        #: from is always the same), so restoring a later checkpoint can re-apply them.
        self._future: list[tuple[Merge, MergeRecord | None]] = []
        #: Copies of the state for long jumps (see :mod:`engine.train.checkpoints`): the Trainer tells
        #: them each merge it trains (``start``, ``trained``) and asks them before a jump
        #: (``depart``, ``jump_work``); the merge lists stay the Trainer's own.
        self._marks = Checkpoints(checkpoints, checkpoint_memory) if checkpoints > 0 and config.record_undo else None
        self._leap: tuple[int, int] | None = None  # a jump cut short: (target, where it stopped)
        self._book = Branches()  # what-if branches (see engine.train.branches): the lines kept aside
        self.stop_reason: str | None = None
        #: The tokenizer a replay rebuilds (see :meth:`replaying`), for :meth:`tokenizer_of`.
        self._replayed: Tokenizer | None = None
        #: A replay's whole-chunk lookup (:meth:`_found_whole`): token bytes -> merge index or
        #: -1 - whole piece; the distinct chunks by uid; (step, script, answers by uid).
        self._whole_index: dict[bytes, int] | None = None
        self._chunk_list: list[str] = []
        self._whole_cache: tuple[int, Tokenizer, dict[int, int | None]] | None = None

    @classmethod
    def from_counts(
        cls,
        counts: Iterable[tuple[bytes, int]],
        config: TrainConfig | None = None,
        *,
        pretokenizer: PreTokenizer | None = None,
        checkpoints: int = 0,
        checkpoint_memory: int | None = None,
    ) -> Trainer:
        """A trainer on a chunk-count table: ``(chunk bytes, count)`` pairs in order of first
        occurrence (repeated chunks add up). It makes exactly the merges of training on the text
        the table was counted from with the same config, tie rules included; counts may exceed
        2³¹ and 2³² (the node array widens to 64 bits). :meth:`spans` needs the text: there is none.

        Example: ``Trainer.from_counts([(b"low", 5), (b" lower", 2)], TrainConfig(max_merges=1))``
        """
        chunks: Counter[str] = Counter()
        for chunk, n in counts:
            if not isinstance(n, int) or n < 1:
                raise CorpusError(f"chunk {chunk!r} has count {n!r}; counts are whole numbers of 1 or more")
            chunks[bytes(chunk).decode("utf-8", "surrogateescape")] += n
        return cls("", config, pretokenizer=pretokenizer, chunks=chunks, checkpoints=checkpoints,
                   checkpoint_memory=checkpoint_memory)

    def _check_limits(self) -> None:
        config = self.config
        floor = self.base_size + len(config.specials)
        if config.vocab_size is not None and config.vocab_size < floor:
            raise ConfigError(
                f"vocabulary size {config.vocab_size} is below the base vocabulary "
                f"({self.base_size} {config.base} + {len(config.specials)} specials = {floor})"
            )
        if self.base_size + (config.max_merges or 0) + len(config.specials) > MAX_VOCAB:
            raise ConfigError(f"too many tokens for one vocabulary (at most {MAX_VOCAB})")

    # -- state ------------------------------------------------------------------------------

    @property
    def steps(self) -> int:
        """How many merges are applied now."""
        return len(self._history)

    @property
    def history(self) -> list[Merge]:
        """The applied merges (events), in order: step 1 first (see :meth:`events` for a part,
        :attr:`future` for the undone ones)."""
        return [event for event, _ in self._history]

    def events(self, start: int = 0, end: int | None = None) -> list[Merge]:
        """Applied merges ``start``..``end`` (0-based, end exclusive) without copying the rest."""
        return [event for event, _ in self._history[start:end]]

    @property
    def last(self) -> Merge | None:
        """The latest applied merge, if any."""
        return self._history[-1][0] if self._history else None

    @property
    def future(self) -> list[Merge]:
        """Undone merges that :meth:`redo` would re-apply, next one first."""
        return [event for event, _ in reversed(self._future)]

    @property
    def corpus_tokens(self) -> int:
        """Length of the corpus in tokens at the current step."""
        return self._state.tokens

    @property
    def vocab_size(self) -> int:
        """Bases + merges applied + specials."""
        return len(self._pieces) + len(self.config.specials)

    @cached_property
    def target_merges(self) -> int | None:
        """Merges the stop rules allow, when a vocabulary size or merge count is set (the
        config never changes: asked once per step, it is worked out once)."""
        limits = []
        if self.config.max_merges is not None:
            limits.append(self.config.max_merges)
        if self.config.vocab_size is not None:
            limits.append(self.config.vocab_size - self.base_size - len(self.config.specials))
        return min(limits) if limits else None

    def token_bytes(self, token_id: int) -> bytes:
        """The bytes a token stands for (UTF-8 of the string for the chars base)."""
        return self._pieces[token_id]

    def token_text(self, token_id: int) -> str:
        """The token decoded as UTF-8 (invalid bytes replaced), for quick looks and tests."""
        return self._pieces[token_id].decode("utf-8", "replace")

    @property
    def vocab(self) -> list[bytes]:
        """Bytes of every base and merged token, by id (specials not included)."""
        return list(self._pieces)

    def candidates(self, k: int = 10) -> list[Candidate]:
        """The top-``k`` pairs for the next merge, in the order the tie rule ranks them."""
        with gc_paused():
            top = self._state.top(k)
            if self._by_texts and top:
                top = self._by_text_order(top, k)
            return [Candidate((a, b), c) for a, b, c in top]

    def tokenizer(self) -> Tokenizer:
        """A tokenizer snapshot of the current step."""
        return self.tokenizer_of([event.pair for event, _ in self._history])

    def tokenizer_of(self, merges: list[tuple[int, int]]) -> Tokenizer:
        """A tokenizer of these merges with this trainer's base, alphabet, specials and
        pre-tokenizer (another branch's line, say). In a replay, where they are the replayed
        file's first merges, it encodes as that file cut there does (:meth:`_replayed_at`)."""
        script = self._replayed
        if script is not None and merges == script.merges[: len(merges)]:
            return self._replayed_at(len(merges))
        return Tokenizer(
            merges=merges,
            base=self.config.base,
            alphabet=self.alphabet,
            specials=self.config.specials,
            # Line-by-line splitting mimics how HuggingFace's trainer reads files; encoding
            # (there as here) applies the pattern to the whole text.
            pretokenizer=replace(self.pretokenizer, per_line=False),
            config=self.config,
            end_of_word=self.config.end_of_word,
            subword_prefix=self.config.subword_prefix,
        )

    # -- stepping ---------------------------------------------------------------------------

    def _stop(self) -> str | None:
        if self._script is not None and self.steps >= len(self._script):
            return "replay-end"
        target = self.target_merges
        if target is not None and self.steps >= target:
            return "merges" if self.config.max_merges == target else "vocab-size"
        return None

    def step(self) -> Merge | None:
        """Make one merge, or return None when a stop rule holds (see ``stop_reason``).

        After an undo, the next step is the recorded one (same state, same choice), so step
        re-applies it without choosing again.
        """
        if self._future:
            return self.redo()
        reason = self._stop()
        if reason is not None:
            self.stop_reason = reason
            return None
        if not gc.isenabled():  # already paused by train()
            return self._fresh_step()
        gc.disable()  # see gc_paused; called directly here because it runs per step
        try:
            return self._fresh_step()
        finally:
            gc.enable()

    def _choose(self) -> tuple[int, int, int, tuple[tuple[int, int], ...], int] | None:
        """The next pair by the tie rule: (a, b, count, tie set, tie total), or None."""
        chosen = self._state.choose(TIE_CAP)
        if chosen is None:
            self.stop_reason = "no-pairs"
            return None
        if chosen[2] < self.config.min_frequency:
            self.stop_reason = "min-frequency"
            return None
        if self._by_texts and chosen[4] > 1:
            return self._largest_text(chosen[2], chosen[4])
        return chosen

    def _fresh_step(self) -> Merge | None:
        chosen = self._scripted() if self._script is not None else self._choose()
        if chosen is None:
            return None
        a, b, count, ties, total = chosen
        size = len(self._pieces[a]) + len(self._pieces[b])
        if self._known_bytes + size > MAX_VOCAB_BYTES:  # merges that chain would take gigabytes
            self.stop_reason = "vocab-bytes"
            return None
        return self._make(a, b, size, count, ties, total, False)

    def _make(self, a: int, b: int, size: int, count: int, ties: tuple[tuple[int, int], ...], total: int,
              manual: bool) -> Merge:
        """Merge (a, b) into a new token at the end of the line and record the event."""
        state = self._state
        self._known_bytes += size
        new_id = len(self._pieces)
        if self._marks is not None and not self._history:
            self._marks.start(state)
        record = state.merge(a, b, new_id)
        self._pieces.append(self._pieces[a] + self._pieces[b][self._cut:])
        event = Merge(
            step=self.steps + 1,
            pair=(a, b),
            new_id=new_id,
            token=self._pieces[new_id],
            count=count,
            ties=ties,
            tie_total=total,
            tokens_after=state.tokens,
            removed=record.removed,
            manual=manual,
        )
        self._history.append((event, record if self.config.record_undo else None))
        self.stop_reason = None
        if self._marks is not None:
            self._marks.trained(event.step, len(record.absorbed), state)
        return event

    def run(self) -> Iterator[Merge]:
        """Yield merges until a stop rule holds; stop iterating to pause."""
        while (event := self.step()) is not None:
            yield event

    __iter__ = run

    def train(self) -> list[Merge]:
        """Run to the end and return every merge made by this call."""
        with gc_paused():
            return list(self.run())
