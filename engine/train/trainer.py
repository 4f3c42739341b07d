"""The Trainer: BPE training one merge at a time, as a stream of immutable merge events.

Training repeats one move: count the pairs of adjacent tokens, merge the best pair into a new
token, repeat. The Trainer does that with a few collaborators, each with its own state and its
own module, and delegates to them:

- the **pair state** (:mod:`engine.train.pair_state`): the corpus's distinct chunks as linked
  nodes, every pair's count and a lazy queue of the best pairs; a merge touches only the nodes
  where its pair occurs;
- the **chooser** (:mod:`engine.train.choosing`): which pair the next step merges, as a
  :class:`~engine.train.choosing.Choice`: by a tie rule, by subword-nmt's texts, or by a
  replayed file's script;
- the **timeline** (:mod:`engine.train.timeline`): the merges applied and undone, the vocabulary
  they make, undo, redo and jumps (with :mod:`engine.train.checkpoints`);
- the **branches** (:mod:`engine.train.branching`): lines kept aside when a manual merge
  changes the future, switching between them, saving and restoring them;
- the **corpus view** (:mod:`engine.train.corpus_view`): the corpus as tokens for the app
  (spans of text, frequencies, pair counts), read only;
- in a replay, the **replayed file** (:mod:`engine.train.replay`).

This module sets them up from a text or a chunk-count table, makes each step (the chooser's
choice, then the stop rules), and keeps every public method of the Trainer a one-line
delegation to the part that does it. The parts never point back at the Trainer (the branches'
moves are handed it per call), so a trainer and its parts form no reference cycle: reference
counting frees a trainer the app replaces, even one frozen out of the collector's walks.
"""

from __future__ import annotations

import gc
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from functools import cached_property
from typing import Any, Self

from engine.config import MAX_VOCAB, MAX_VOCAB_BYTES, TrainConfig, check_specials
from engine.encode.pairs import SHIFT
from engine.encode.tokenizer import Tokenizer
from engine.errors import ConfigError, CorpusError, MergeError, TokenIdError
from engine.native import backend
from engine.text.bytelevel import hf_byte_rank
from engine.text.display import token_display
from engine.text.pretokenize import PreTokenizer, pretokenizer_for
from engine.train.branches import Branch
from engine.train.branching import Branching
from engine.train.checkpoints import Checkpoints
from engine.train.choosing import Choice, Chooser, RuleChooser, ScriptChooser, Stop, chooser_for
from engine.train.corpus_view import CorpusTokens, mark_continuations, mark_word_ends
from engine.train.event_log import Events
from engine.train.events import TIE_CAP, Candidate, Merge
from engine.train.gc_pause import gc_paused
from engine.train.layout import CorpusLayout
from engine.train.pair_state import PairState
from engine.train.replay import ReplayedFile, replay_config, replay_text
from engine.train.timeline import Timeline


class Trainer:
    """Trains BPE one merge at a time; pause by not pulling, undo/redo/goto any step.

    Example::

        t = Trainer("low lower lowest", TrainConfig(base="chars", pretokenizer="none",
                    tie_rule="first-seen", max_merges=4))
        [t.token_text(m.new_id) for m in t.run()]  # ['lo', 'low', ' low', ' lowe']
    """

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
        undo_log: bool = True,
        keep_chunks: bool = True,
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
        (``checkpoint_memory`` bounds the bytes they hold together). ``undo_log`` False keeps
        no undo records whatever ``config.record_undo`` says (the config, saved with the
        tokenizer, is left as given): for a run that never undoes, such as ``bpe-lab train``,
        whose records would be most of its memory on Chinese bytes. ``keep_chunks`` False
        empties ``chunks`` (the Counter given, or the one counted here) once the chunks are laid
        out, before the pair index is made, instead of holding it through training: for a run
        that never shows the corpus (``bpe-lab train``), where the table of a large corpus's
        distinct chunks as strings is a third of the peak; :meth:`spans` and
        :meth:`listing` then cannot be used.
        """
        self.config = config = config or TrainConfig()
        self.pretokenizer: PreTokenizer = pretokenizer or pretokenizer_for(config)
        with gc_paused():
            if chunks is None:
                chunks = self.pretokenizer.count(text)
            if not chunks:
                raise CorpusError("no text to train on: the corpus is empty or the pattern matches none of it")
            seqs: list[Any]  # each chunk's units (a list of ids, or bytes) and its count
            laid_out = None  # the layout, when made straight from the chunks
            self.alphabet: list[str] | None = None
            marked = config.subword_prefix is not None or config.end_of_word is not None
            if config.base == "chars" and not marked:
                if alphabet is None and text:
                    alphabet = ["\ufffd", *sorted(set(text) - {"\ufffd"})]
                # the chunks' characters are read where they are (compiled: no list of ids a chunk)
                self.alphabet, data, starts, tokens, chunk_lengths = backend().layout_chars(chunks, alphabet)
                laid_out = data, starts, tokens
                pieces = [c.encode("utf-8", "surrogateescape") for c in self.alphabet]
                seqs = []
            elif config.base == "chars":
                if alphabet is None:
                    seen = set(text) if text else set().union(*chunks)
                    alphabet = ["\ufffd", *sorted(seen - {"\ufffd"})]
                self.alphabet = list(alphabet)
                ids = {c: i for i, c in enumerate(alphabet)}
                pieces = [c.encode("utf-8", "surrogateescape") for c in alphabet]
                get = ids.get
                # (with a subword prefix, a character outside the alphabet is -1 until it is
                # marked: id 0 wherever it stands, as the tokenizer encodes it)
                unknown = -1 if config.subword_prefix is not None else 0
                seqs = [([get(ch, unknown) for ch in c], n) for c, n in chunks.items()]
            elif marked:
                pieces = [bytes([i]) for i in range(256)]
                seqs = [(list(c.encode("utf-8", "surrogateescape")), n) for c, n in chunks.items()]  # marked below
            else:
                pieces = [bytes([i]) for i in range(256)]
                # the chunks' bytes are read where they are (compiled: no bytes object a chunk)
                data, starts, tokens, chunk_lengths = backend().layout_bytes(chunks)
                laid_out = data, starts, tokens
                seqs = []
            if config.subword_prefix is not None:
                seqs, pieces = mark_continuations(seqs, pieces, config.subword_prefix)
            if config.end_of_word is not None:
                seqs, pieces = mark_word_ends(seqs, pieces, config.end_of_word)
            self.base_size = len(pieces)
            self._check_limits()
            if script is None:  # a replayed tokenizer's specials were checked when it was made
                check_specials(config.specials, chunks, config.base, self.alphabet)
            #: The bytes of the base and of every merge made so far (undone ones too): a new merge
            #: that would take them past MAX_VOCAB_BYTES stops training ("vocab-bytes").
            self._known_bytes = sum(map(len, pieces))
            if laid_out is None:
                self.initial_tokens = sum(len(s) * n for s, n in seqs)
                chunk_lengths = array("i", [len(s) for s, _ in seqs])
            else:
                self.initial_tokens = laid_out[2]
            if not keep_chunks:  # laid out: the pair state and the chunk lengths hold what training needs
                chunks.clear()
                chunks = None
            rank = hf_byte_rank() if config.tie_rule == "hf" else None
            # subword-nmt's ties are decided by the chooser, by the tokens' texts: the state
            # orders its queue by count, then ids, for it
            queue_rule = "lowest-ids" if config.tie_rule == "subword-nmt" else config.tie_rule
            self._state = PairState(seqs, queue_rule, config.min_frequency, rank, laid_out)
        state = self._state
        records = config.record_undo and undo_log
        keeps = Checkpoints(checkpoints, checkpoint_memory) if checkpoints > 0 and records else None
        #: A merge's token is its parts' bytes joined, the right part's prefix cut off (it always
        #: continues a word), as tokenizers' BpeTrainer builds it.
        mark_bytes = len(config.subword_prefix.encode("utf-8")) if config.subword_prefix is not None else 0
        self.timeline = Timeline(state, pieces, mark_bytes, records, keeps)
        self.chooser: Chooser = chooser_for(config.tie_rule, state, config.min_frequency, self.timeline, script)
        #: The chooser when it follows a script (a replay), else None.
        self._script = self.chooser if isinstance(self.chooser, ScriptChooser) else None
        self.corpus = CorpusTokens(text, self.pretokenizer, chunks, chunk_lengths, config.base, state, self.timeline)
        self.branching = Branching(self.timeline)
        #: In a replay made by :meth:`replaying`, the file (for :meth:`tokenizer_of`).
        self.replayed: ReplayedFile | None = None
        self.stop_reason: str | None = None

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

    @classmethod
    def replaying(
        cls, text: str, tokenizer: Tokenizer, checkpoints: int = 0, checkpoint_memory: int | None = None
    ) -> Self:
        """A trainer that rebuilds ``tokenizer`` on ``text``: step k applies its merge k, so the
        corpus shows how that tokenizer builds up on your text (counts are this corpus's; see
        :mod:`engine.train.replay`)."""
        pretokenizer = replace(tokenizer.pretokenizer, per_line=False)
        trainer = cls(replay_text(text, tokenizer), replay_config(tokenizer), alphabet=tokenizer.alphabet,
                      script=tokenizer.merges, pretokenizer=pretokenizer, checkpoints=checkpoints,
                      checkpoint_memory=checkpoint_memory)
        trainer.replayed = ReplayedFile(tokenizer, trainer.config, trainer.alphabet, trainer.pretokenizer)
        trainer.corpus.replayed = trainer.replayed
        return trainer

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
    def text(self) -> str:
        """The corpus text (or, after :meth:`listing`, the listing that stands for it)."""
        return self.corpus.text

    @property
    def steps(self) -> int:
        """How many merges are applied now."""
        return self.timeline.steps

    @property
    def history(self) -> Events:
        """The applied merges (events), in order: step 1 first (see :meth:`events` for a part,
        :attr:`future` for the undone ones). A read-only sequence, as it is now (later steps do
        not change it), each event made as it is read (see :mod:`engine.train.event_log`)."""
        return Events(self.timeline.log, self.timeline.applied[:])

    def events(self, start: int = 0, end: int | None = None) -> Events:
        """Applied merges ``start``..``end`` (0-based, end exclusive) without copying the rest."""
        return Events(self.timeline.log, self.timeline.applied[start:end])

    @property
    def last(self) -> Merge | None:
        """The latest applied merge, if any."""
        applied = self.timeline.applied
        return self.timeline.log.event(applied[-1]) if applied else None

    @property
    def future(self) -> Events:
        """Undone merges that :meth:`redo` would re-apply, next one first (a read-only sequence,
        as :attr:`history`)."""
        return Events(self.timeline.log, self.timeline.undone[::-1])

    @property
    def corpus_tokens(self) -> int:
        """Length of the corpus in tokens at the current step."""
        return self._state.tokens

    @property
    def vocab_size(self) -> int:
        """Bases + merges applied + specials."""
        return len(self.timeline.pieces) + len(self.config.specials)

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
        return self.timeline.pieces[token_id]

    def token_text(self, token_id: int) -> str:
        """The token decoded as UTF-8 (invalid bytes replaced), for quick looks and tests."""
        return self.timeline.pieces[token_id].decode("utf-8", "replace")

    @property
    def vocab(self) -> list[bytes]:
        """Bytes of every base and merged token, by id (specials not included)."""
        return list(self.timeline.pieces)

    def made_by(self, token_id: int) -> Merge | None:
        """The merge that made this token (None for base tokens or tokens not made yet)."""
        return self.timeline.made_by(token_id)

    def continues_word(self, token_id: int) -> bool:
        """Whether a token continues a word (``subword_prefix``: its left-most unit is a
        prefixed twin, so its bytes begin with the prefix as a mark); False without a prefix."""
        if self.config.subword_prefix is None or not 0 <= token_id < len(self.timeline.pieces):
            return False
        while token_id >= self.base_size:
            made = self.made_by(token_id)
            if made is None:
                return False
            token_id = made.pair[0]
        block = self.base_size // (2 if self.config.end_of_word is None else 4)
        return (token_id // block) % 2 == 1

    def candidates(self, k: int = 10) -> list[Candidate]:
        """The top-``k`` pairs for the next merge, in the order the tie rule ranks them."""
        with gc_paused():
            return self.chooser.candidates(k)

    def tokenizer(self) -> Tokenizer:
        """A tokenizer snapshot of the current step."""
        return self.tokenizer_of(self.timeline.log.pairs(self.timeline.applied))

    def tokenizer_of(self, merges: list[tuple[int, int]]) -> Tokenizer:
        """A tokenizer of these merges with this trainer's base, alphabet, specials and
        pre-tokenizer (another branch's line, say). In a replay, where they are the replayed
        file's first merges, it encodes as that file cut there does
        (:meth:`engine.train.replay.ReplayedFile.tokenizer_at`)."""
        replayed = self.replayed
        if replayed is not None and merges == replayed.merges[: len(merges)]:
            return replayed.tokenizer_at(len(merges))
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

    # -- the corpus as tokens (engine.train.corpus_view) -----------------------------------------

    def pair_count(self, pair: tuple[int, int]) -> int:
        """Current weighted count of a pair (0 when absent; rarer pairs are counted afresh)."""
        return self.corpus.pair_count(pair)

    def pair_counts(self) -> dict[tuple[int, int], int]:
        """Every pair present now with its weighted count (counted afresh: O(corpus))."""
        return self._state.pair_counts()

    def sequences(self) -> list[tuple[int, ...]]:
        """The current token ids of every distinct chunk, in order of first appearance."""
        return self._state.sequences()

    def tie_count(self, count: int) -> int:
        """How many pairs that can still be merged have exactly this count now."""
        return self._state.ties(count)

    @property
    def unit(self) -> str:
        """What one base unit of the corpus is: ``bytes`` or ``chars`` (offsets below use it)."""
        return self.config.base

    def layout(self) -> CorpusLayout:
        """Where every chunk occurrence sits in the corpus (built on first use, then kept)."""
        return self.corpus.layout()

    def listing(self, limit: int = 2000) -> str:
        """A text of the ``limit`` most frequent distinct chunks, one a line after its count
        (``      1,234 chunk``), which :meth:`spans` then reads instead of the corpus: how the
        app shows a trainer made from a chunk-count table (:meth:`from_counts`), which has no
        text. The counts and the newlines are text no chunk covers (no span)."""
        return self.corpus.listing(limit)

    def spans(self, start: int, end: int) -> list[tuple[int, int, int]]:
        """The current tokens overlapping corpus units [start, end), as (token id, start, end).

        Units are bytes (bytes base: offsets into the UTF-8 of the text) or characters. Text no
        chunk covers (a custom pattern may skip characters) has no span.

        In a replay of a file that looks a chunk up whole first (a tiktoken rank file), a chunk
        that is one of its tokens at this step is that token, as the file's library gives it:
        a merged token's id, or ``-1 - i`` for the file's whole piece ``i`` (its
        ``whole_pieces``: no merge makes those), once the step reaches its rank.
        """
        return self.corpus.spans(start, end)

    def frequencies(self) -> list[int]:
        """How often each token id occurs in the corpus now (index = id; merged ids included)."""
        return self.corpus.frequencies()

    def frequency(self, token_id: int) -> int:
        """How often one token occurs in the corpus now."""
        return self.corpus.frequency(token_id)

    # -- replays (engine.train.replay, engine.train.choosing.ScriptChooser) -----------------------

    @property
    def is_replay(self) -> bool:
        """Whether steps follow a given tokenizer's merges instead of choosing (see
        :meth:`replaying`)."""
        return self._script is not None

    def scripted_next(self) -> tuple[tuple[int, int], int, int] | None:
        """In a replay, the merge the next step makes, as ``(pair, count here, rank by count)``;
        the rank is 1 + how many pairs occur more often now (cheap: one pass over the distinct
        counts, never the corpus). None when not replaying or every merge is made."""
        undone = self.timeline.undone
        return self._script.upcoming(self.timeline.log.pair(undone[-1]) if undone else None) if self._script else None

    # -- stepping ---------------------------------------------------------------------------

    def _stop(self) -> str | None:
        if self._script is not None and self.steps >= len(self._script.script):
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
        if self.timeline.undone:
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

    def _fresh_step(self) -> Merge | None:
        chosen = self.chooser.choose()
        if isinstance(chosen, Stop):
            self.stop_reason = chosen.reason
            return None
        a, b = chosen.pair
        pieces = self.timeline.pieces
        size = len(pieces[a]) + len(pieces[b])
        if self._known_bytes + size > MAX_VOCAB_BYTES:  # merges that chain would take gigabytes
            self.stop_reason = "vocab-bytes"
            return None
        return self._make_merge(chosen, size, False)

    def _make_merge(self, chosen: Choice, size: int, manual: bool) -> Merge:
        """Merge the chosen pair into a new token at the end of the line and record the event."""
        self._known_bytes += size
        a, b = chosen.pair
        event = self.timeline.apply(a, b, chosen.count, chosen.ties, chosen.tie_total, manual)
        self.stop_reason = None
        return event

    def run(self) -> Iterator[Merge]:
        """Yield merges until a stop rule holds; stop iterating to pause."""
        while (event := self.step()) is not None:
            yield event

    __iter__ = run

    def train(self) -> list[Merge]:
        """Run to the end and return every merge made by this call."""
        start = self.steps
        self.advance()
        log = self.timeline.log
        return [log.event(row) for row in self.timeline.applied[start:]]

    def advance(self, limit: int | None = None) -> int:
        """Make up to ``limit`` merges (None: until a stop rule holds; ``stop_reason`` says
        which) without making their events, and return how many were made: the merges
        :meth:`step` would make, read back from :attr:`history`. Under the usual rule
        (``RuleChooser``: lowest-ids) the compiled core makes them in one loop; otherwise, and
        on the pure path, they are made a step at a time."""
        made = 0
        with gc_paused():
            while limit is None or made < limit:
                reason = None if self.timeline.undone else self._stop()
                if reason is not None:
                    self.stop_reason = reason
                    break
                room = limit - made if limit is not None else MAX_VOCAB
                if self.target_merges is not None:
                    room = min(room, self.target_merges - self.steps)
                ran = None
                if type(self.chooser) is RuleChooser:
                    ran = self.timeline.run(room, TIE_CAP, self.config.min_frequency, self._known_bytes,
                                            MAX_VOCAB_BYTES)
                if ran is None:  # a step at a time
                    if self.step() is None:
                        break
                    made += 1
                    continue
                done, self.stop_reason, self._known_bytes = ran
                made += done
                if self.stop_reason is not None:
                    break
        return made

    # -- moving along the line (engine.train.timeline) ----------------------------------------

    def undo(self) -> Merge | None:
        """Take back the last merge from its record (never by replaying); None at step 0."""
        with gc_paused():
            return self._undo()

    def _undo(self) -> Merge | None:
        event = self.timeline.undo()
        if event is not None:
            self.stop_reason = None
        return event

    def redo(self) -> Merge | None:
        """Re-apply the last undone merge without choosing again; None if nothing to redo."""
        with gc_paused():
            return self.timeline.redo()

    def goto(self, step: int) -> int:
        """Move to merge ``step`` (forward or back); returns the step reached.

        Going forward stops early when a stop rule holds.
        """
        self.goto_within(step, None)
        return self.steps

    def goto_within(self, step: int, deadline: float | None) -> bool:
        """Move toward ``step`` until ``deadline`` (a ``time.perf_counter()`` value, or None
        for no limit); True once there, or once a stop rule ends a forward jump. Calls with the
        same target carry on one jump (one plan, one copy restored) unless something else moved
        the trainer in between."""
        if step < 0:
            raise ValueError(f"step must be 0 or more, not {step}")
        with gc_paused():
            return self.walk(step, deadline)

    def walk(self, step: int, deadline: float | None) -> bool:
        """:meth:`goto_within` under a collector pause the caller holds (the branches' moves):
        forward by redoing, then by :meth:`advance` (new merges), back by undo."""
        return self.timeline.walk(step, deadline, self.advance, self._back)

    def _back(self) -> None:
        """Undo without making the event (a walk's step back)."""
        if self.timeline.take_back() is not None:
            self.stop_reason = None

    def settle(self) -> None:
        """Finish a jump's restore off the critical path: copy the pair counts it borrowed from
        a checkpoint (the next merge or undo would, but that is the user's next key)."""
        self.timeline.settle()

    def jump_work(self, step: int) -> int | None:
        """Estimated work of jumping to ``step`` (units of
        :data:`engine.train.checkpoints.WORK_PER_MERGE`), or None when it cannot be told: no
        checkpoints kept, or the jump would train merges not made yet."""
        return self.timeline.jump_work(step)

    # -- manual merges and branches (engine.train.branching) -----------------------------------

    def force(self, pair: Sequence[int]) -> Merge:
        """Make ``pair`` the next merge instead of the rule's choice: a manual merge (its event
        has ``manual=True``); later steps choose by the rule again.

        Where the line has a future (after an undo) this starts a branch: the old line is kept
        as a branch of its own (see :attr:`branches`, :meth:`switch`) unless ``pair`` is the
        merge it makes next, which is then simply redone. Raises :class:`MergeError` for a pair
        that does not occur now (or less often than ``min_frequency``: such pairs are not
        indexed), when a stop rule on the merge count holds, or in a replay;
        :class:`TokenIdError` for an id not made yet.
        """
        with gc_paused():
            chosen, size = self._check_force(pair)
            undone = self.timeline.undone
            if undone:
                if self.timeline.log.pair(undone[-1]) == chosen.pair:
                    event = self.timeline.redo()
                    assert event is not None
                    return event
                self.branching.fork()
            self.timeline.unfinished_jump = None
            return self._make_merge(chosen, size, True)

    def _check_force(self, pair: Sequence[int]) -> tuple[Choice, int]:
        """A manual merge as a choice (a tie set of its own) and its token's size, or the error."""
        if self._script is not None:
            raise MergeError("a replay makes its tokenizer's merges: manual merges are for training")
        try:
            a, b = (int(x) for x in pair)
        except (TypeError, ValueError):
            raise MergeError(f"a merge is a pair of token ids, not {pair!r}") from None
        pieces = self.timeline.pieces
        for x in (a, b):
            if not 0 <= x < len(pieces):
                raise TokenIdError(f"no token {x} at step {self.steps} (ids 0 to {len(pieces) - 1})")
        shown = f"{token_display(pieces[a])!r} + {token_display(pieces[b])!r}"
        target = self.target_merges
        if target is not None and self.steps >= target:
            raise MergeError(f"cannot merge {shown}: the merge limit ({target}) is reached (undo first)")
        state = self._state
        count = state.count.get(a << SHIFT | b, 0)
        if count < state.min_count:
            count = state.pair_counts().get((a, b), 0) if not count else count
            if not count:
                raise MergeError(f"cannot merge {shown}: the pair does not occur in the corpus at step {self.steps}")
            raise MergeError(f"cannot merge {shown}: its count is {count}, below the minimum pair count "
                             f"{state.min_count}")
        size = len(pieces[a]) + len(pieces[b])
        if self._known_bytes + size > MAX_VOCAB_BYTES:
            raise MergeError(f"cannot merge {shown}: the vocabulary would hold more than {MAX_VOCAB_BYTES:,} bytes")
        return Choice((a, b), count, ((a, b),), 1), size

    @property
    def branches(self) -> list[Branch]:
        """Every what-if branch, first made first (one, ``main``, until a manual merge is made
        where the line has a future)."""
        return self.branching.branches()

    @property
    def branch(self) -> Branch:
        """The current branch."""
        return self.branching.current()

    def branch_events(self, which: str | int) -> Events:
        """The merges of a branch's whole line (by name or index into :attr:`branches`)."""
        return self.branching.events(which)

    def switch(self, which: str | int, walk: bool = True) -> Branch:
        """Make another branch current (by name or index into :attr:`branches`) and move to the
        step it was left at: back to where the two lines part, then along the other's merges
        (recorded: nothing is chosen again). ``walk=False`` stops where they part (or here, if
        that is behind): the caller then goes on with :meth:`goto` or :meth:`goto_within`.
        ValueError for an unknown branch."""
        return self.branching.switch(self, which, walk)

    def branch_data(self) -> dict[str, Any]:
        """Every branch as JSON-able data (sessions save it; :meth:`restore_branches` reads it)."""
        return self.branching.to_data()

    def restore_branches(self, data: object, stop: Callable[[], bool] | None = None) -> str | None:
        """Rebuild the branches of :meth:`branch_data` on this fresh trainer (step 0, nothing
        trained) and go to the current one's step. Rule merges are trained again, so a
        version that trains differently keeps only what matches; returns a note saying what
        was cut then (None when all of it was restored). ValueError for malformed data, and
        for data whose restore would walk far more than it trains (see
        :func:`engine.train.branches.check_work`). ``stop()`` is asked between merges and walks:
        True ends the restore with :class:`~engine.train.branches.RestoreStopped` (the trainer
        is then half restored)."""
        return self.branching.restore(self, data, stop)
