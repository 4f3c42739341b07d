"""The Trainer: owns the training state and turns it into a stream of immutable merge events."""

from __future__ import annotations

import gc
from array import array
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from functools import cached_property
from time import perf_counter

from ._branches import Branch, Branches, RestoreStopped, check_data, check_work
from ._checkpoints import Checkpoints
from ._events import TIE_CAP, Candidate, Merge
from ._layout import CorpusLayout
from ._pairs import SHIFT
from ._pairstate import MergeRecord, PairState
from .bytelevel import hf_byte_rank
from .config import MAX_VOCAB, MAX_VOCAB_BYTES, TrainConfig, check_specials
from .display import token_display
from .errors import ConfigError, CorpusError, MergeError, TokenIdError
from .pretokenize import PreTokenizer, pretokenizer_for
from .tokenizer import Tokenizer


def _never() -> bool:
    return False


#: Objects made under :func:`_gc_paused` that a young collection may scan when it ends (a few
#: milliseconds' walk); more are moved out of its way.
YOUNG_SCAN = 50_000


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic collector: training allocates millions of acyclic objects, and
    collections that scan them would cost 10-45% of the run."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        # What was made meanwhile (a state's millions of node lists in a few dicts) would be
        # scanned by the first young collection once the collector is back (a tenth of a second
        # per million); freezing and unfreezing moves it to the oldest generation unscanned.
        # Only worth it when much was made: gc.get_freeze_count() walks every frozen object
        # (the app freezes what it loaded: millions), which once a short batch (a jump's 20 ms)
        # cost more than the batch.
        if gc.get_count()[0] > YOUNG_SCAN:
            if gc.get_freeze_count():  # someone else froze theirs: they stay frozen, and so do these
                gc.freeze()  # (that someone's unfreeze gives them back with theirs)
            else:
                gc.freeze()
                gc.unfreeze()
        if was_enabled:
            gc.enable()


def _mark_word_ends(
    seqs: list[tuple[list[int], int]], pieces: list[bytes], suffix: str,
) -> tuple[list[tuple[list[int], int]], list[bytes]]:
    """The base with each token again ending a word (``e`` and ``e</w>``), and every chunk's
    last unit as its marked twin (see :class:`~engine.tokenizer.Tokenizer`'s ``end_of_word``)."""
    shift = len(pieces)
    for seq, _ in seqs:
        if seq:
            seq[-1] += shift
    mark = suffix.encode("utf-8")
    return seqs, pieces + [piece + mark for piece in pieces]


def _mark_continuations(
    seqs: list[tuple[list[int], int]], pieces: list[bytes], prefix: str,
) -> tuple[list[tuple[list[int], int]], list[bytes]]:
    """The base with each token again after a continuing-subword prefix (``b`` and ``##b``),
    and every chunk's units but the first as their prefixed twins (see
    :class:`~engine.tokenizer.Tokenizer`'s ``subword_prefix``)."""
    shift = len(pieces)
    for seq, _ in seqs:
        if seq and seq[0] < 0:
            seq[0] = 0
        if len(seq) > 1:
            seq[1:] = [i + shift if i >= 0 else 0 for i in seq[1:]]
    mark = prefix.encode("utf-8")
    return seqs, pieces + [mark + piece for piece in pieces]


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
    ) -> None:
        """Prepare to train on ``text``.

        ``alphabet`` fixes the chars base's ids (characters outside it become id 0);
        ``script`` makes every step apply the next of these merges instead of choosing one (a
        tokenizer replayed on this corpus, see :meth:`replaying`); ``pretokenizer`` overrides
        the one the config names (an imported tokenizer's own pattern); ``chunks`` gives the
        corpus already pre-tokenized and counted (:func:`engine.corpus.count_corpus`, which
        never holds the whole text): ``text`` may then be empty, and :meth:`spans` needs it.
        ``checkpoints`` > 0 keeps that many whole copies of the state (besides step 0's) so that
        long jumps cost a copy and a short walk (see :mod:`engine._checkpoints`): for the app,
        where jumps are interactive; they cost memory, so training scripts do without
        (``checkpoint_memory`` bounds the bytes they hold together).
        """
        self.config = config = config or TrainConfig()
        self.pretokenizer: PreTokenizer = pretokenizer or pretokenizer_for(config)
        self.text = text
        self._script = [tuple(pair) for pair in script] if script is not None else None
        with _gc_paused():
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
        #: Copies of the state for long jumps (see :mod:`engine._checkpoints`): the Trainer tells
        #: them each merge it trains (``start``, ``trained``) and asks them before a jump
        #: (``depart``, ``jump_work``); the merge lists stay the Trainer's own.
        self._marks = Checkpoints(checkpoints, checkpoint_memory) if checkpoints > 0 and config.record_undo else None
        self._leap: tuple[int, int] | None = None  # a jump cut short: (target, where it stopped)
        self._book = Branches()  # what-if branches (see engine._branches): the lines kept aside
        self.stop_reason: str | None = None
        #: The tokenizer a replay rebuilds (see :meth:`replaying`), for :meth:`tokenizer_of`.
        self._replayed: Tokenizer | None = None
        #: A replay's whole-chunk lookup (:meth:`_found_whole`): token bytes -> merge index or
        #: -1 - whole piece; the distinct chunks by uid; (step, script, answers by uid).
        self._whole_index: dict[bytes, int] | None = None
        self._chunk_list: list[str] = []
        self._whole_cache: tuple[int, Tokenizer, dict[int, int | None]] | None = None

    @classmethod
    def replaying(
        cls, text: str, tokenizer: Tokenizer, checkpoints: int = 0, checkpoint_memory: int | None = None
    ) -> Trainer:
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

    @property
    def is_replay(self) -> bool:
        """Whether steps follow a given tokenizer's merges instead of choosing (see
        :meth:`replaying`)."""
        return self._script is not None

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

    def pair_count(self, pair: tuple[int, int]) -> int:
        """Current weighted count of a pair (0 when absent).

        Pairs that can still be merged are looked up; rarer ones are counted afresh.
        """
        a, b = pair
        count = self._state.count.get(a << SHIFT | b)
        if count is not None:
            return count
        return self._state.pair_counts().get((a, b), 0)

    def pair_counts(self) -> dict[tuple[int, int], int]:
        """Every pair present now with its weighted count (counted afresh: O(corpus))."""
        return self._state.pair_counts()

    def sequences(self) -> list[tuple[int, ...]]:
        """The current token ids of every distinct chunk, in order of first appearance."""
        return self._state.sequences()

    def tie_count(self, count: int) -> int:
        """How many pairs that can still be merged have exactly this count now."""
        return self._state.ties(count)

    def candidates(self, k: int = 10) -> list[Candidate]:
        """The top-``k`` pairs for the next merge, in the order the tie rule ranks them."""
        with _gc_paused():
            top = self._state.top(k)
            if self._by_texts and top:
                top = self._by_text_order(top, k)
            return [Candidate((a, b), c) for a, b, c in top]

    def _text_key(self, pair: tuple[int, int]) -> tuple[bytes, bytes]:
        return self._pieces[pair[0]], self._pieces[pair[1]]

    def _by_text_order(self, top: list[tuple[int, int, int]], k: int) -> list[tuple[int, int, int]]:
        """The ``k`` best pairs under subword-nmt's rule, from the ``k`` best by count then ids
        (``top``): every pair of the last count there is read, since any of them may rank first."""
        last = top[-1][2]
        if top[0][2] == last and self._state.ties(last) >= k:  # the top k are all tied: the set the step reads
            return [(a, b, last) for a, b in self._tie_set(last, self._state.ties(last))[:k]]
        above = sum(1 for _, _, c in top if c > last)
        every = self._state.top(above + self._state.ties(last))
        every.sort(key=lambda t: (t[2], self._text_key((t[0], t[1]))), reverse=True)
        return every[:k]

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

    def _replayed_at(self, steps: int) -> Tokenizer:
        """The replayed tokenizer after its first ``steps`` merges, as its file encodes: with the
        file's normalizer and byte fallback, its whole-chunk lookup (a tiktoken rank file's), the
        whole pieces ranked below this step (tokens no merge makes, which only that lookup gives:
        Llama 3 has 695) and sentencepiece's ranks by text. Its tokens' bytes are the file's own,
        already built: no merge is joined again (a 128k-merge file takes ~0.1 s, not seconds)."""
        script = self._replayed
        assert script is not None
        if script.whole_ranks is not None:
            kept = [i for i, below in enumerate(script.whole_ranks) if below <= steps]
        else:  # ranks unknown: they belong to the whole file
            kept = list(range(len(script.whole_pieces))) if steps >= len(script.merges) else []
        merges = script.merges[:steps]
        return Tokenizer(
            base=self.config.base,
            alphabet=self.alphabet,
            specials=self.config.specials,
            pretokenizer=replace(self.pretokenizer, per_line=False),
            config=self.config,
            whole_first=script.whole_first,
            whole_pieces=[script.whole_pieces[i] for i in kept],
            whole_ranks=None if script.whole_ranks is None else [script.whole_ranks[i] for i in kept],
            normalizer=script.normalizer,
            byte_fallback=script.byte_fallback,
            text_ranks=script.text_ranks[:steps] if script.text_ranks is not None else None,
            end_of_word=self.config.end_of_word,
            _pieces=script.pieces[: script.base_size + steps],
            _parts=([a for a, _ in merges], [b for _, b in merges]),
        )

    # -- the corpus as tokens ---------------------------------------------------------------

    @property
    def unit(self) -> str:
        """What one base unit of the corpus is: ``bytes`` or ``chars`` (offsets below use it)."""
        return self.config.base

    def layout(self) -> CorpusLayout:
        """Where every chunk occurrence sits in the corpus (built on first use, then kept)."""
        if self._layout is None:
            if not self.text:
                raise ValueError("this trainer was given counted chunks, not the corpus text")
            with _gc_paused():
                self._layout = CorpusLayout.build(
                    self.text, self.pretokenizer, self._chunks, self._chunk_lengths, self.config.base
                )
        return self._layout

    def listing(self, limit: int = 2000) -> str:
        """A text of the ``limit`` most frequent distinct chunks, one a line after its count
        (``      1,234 chunk``), which :meth:`spans` then reads instead of the corpus: how the
        app shows a trainer made from a chunk-count table (:meth:`from_counts`), which has no
        text. The counts and the newlines are text no chunk covers (no span)."""
        counts = list(self._chunks.values())
        chunks = list(self._chunks)
        order = sorted(range(len(chunks)), key=lambda uid: -counts[uid])[:limit]
        parts: list[str] = []
        offsets, uids = array("q"), array("i")
        unit = 0
        for uid in order:
            prefix = f"{counts[uid]:>12,} "
            own_line = chunks[uid].endswith("\n")  # the chunk ends its row itself
            parts += (prefix, chunks[uid], "" if own_line else "\n")
            offsets.append(unit + len(prefix))
            uids.append(uid)
            unit += len(prefix) + self._chunk_lengths[uid] + (0 if own_line else 1)
        self.text = "".join(parts)
        self._layout = CorpusLayout(offsets, uids, unit)
        return self.text

    def spans(self, start: int, end: int) -> list[tuple[int, int, int]]:
        """The current tokens overlapping corpus units [start, end), as (token id, start, end).

        Units are bytes (bytes base: offsets into the UTF-8 of the text) or characters. Text no
        chunk covers (a custom pattern may skip characters) has no span.

        In a replay of a file that looks a chunk up whole first (a tiktoken rank file), a chunk
        that is one of its tokens at this step is that token, as the file's library gives it:
        a merged token's id, or ``-1 - i`` for the file's whole piece ``i`` (its
        ``whole_pieces``: no merge makes those), once the step reaches its rank.
        """
        layout = self.layout()
        offsets, uids, lengths = layout.offsets, layout.uids, self._chunk_lengths
        i = max(bisect_right(offsets, start) - 1, 0)
        out: list[tuple[int, int, int]] = []
        chunk_spans = self._state.chunk_spans
        found = self._found_whole() if self._replayed is not None and self._replayed.whole_first else None
        fallback = self._replayed is not None and self._replayed.byte_fallback
        while i < len(offsets):
            base = offsets[i]
            if base >= end:
                break
            uid = uids[i]
            length = lengths[uid]
            if base + length > start:
                tid = found(uid) if found is not None and length > 1 else None
                if tid is not None:
                    out.append((tid, base, base + length))
                    i += 1
                    continue
                lo = start - base if start > base else 0
                hi = end - base if end - base < length else length
                if fallback:
                    out.extend(self._fallen_back(chunk_spans(uid, lo, hi), base))
                else:
                    out.extend((tid, base + s, base + e) for tid, s, e in chunk_spans(uid, lo, hi))
            i += 1
        return out

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

    def frequencies(self) -> list[int]:
        """How often each token id occurs in the corpus now (index = id; merged ids included)."""
        freq = self._state.frequencies()
        size = len(self._pieces)
        return freq[:size] + [0] * (size - len(freq[:size]))

    def frequency(self, token_id: int) -> int:
        """How often one token occurs in the corpus now."""
        freq = self._state.frequencies()
        return freq[token_id] if 0 <= token_id < min(len(freq), len(self._pieces)) else 0

    def born(self, token_id: int) -> Merge | None:
        """The merge that made this token (None for base tokens or tokens not made yet)."""
        index = token_id - self.base_size
        if 0 <= index < len(self._history):
            return self._history[index][0]
        return None

    def continues_word(self, token_id: int) -> bool:
        """Whether a token continues a word (``subword_prefix``: its left-most unit is a
        prefixed twin, so its bytes begin with the prefix as a mark); False without a prefix."""
        if self.config.subword_prefix is None or not 0 <= token_id < len(self._pieces):
            return False
        while token_id >= self.base_size:
            born = self.born(token_id)
            if born is None:
                return False
            token_id = born.pair[0]
        block = self.base_size // (2 if self.config.end_of_word is None else 4)
        return (token_id // block) % 2 == 1

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
        gc.disable()  # see _gc_paused; called directly here because it runs per step
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

    def _largest_text(self, count: int, total: int) -> tuple[int, int, int, tuple[tuple[int, int], ...], int]:
        """subword-nmt's choice among the ``total`` pairs of the top ``count``: the largest pair
        of token texts (left part first), as ``learn_bpe``'s ``max(stats, key=lambda x:
        (stats[x], x))``; the tie set in that order."""
        tied = self._tie_set(count, total)
        a, b = tied[0]
        return a, b, count, tuple(tied[:TIE_CAP]), total

    def _tie_set(self, count: int, total: int) -> list[tuple[int, int]]:
        """The ``total`` pairs of ``count`` now, largest text first. The last set read is kept:
        its pairs that still have the count and the same texts (an id may name another token
        after an undo), with the new pairs the last merge made, are the set when there are
        ``total`` of them (each is tied, and no two are the same); else every tied pair is read
        off the queue again."""
        kept = self._tied
        tied = None
        if kept is not None and kept[0] == count:
            get, key = self._state.count.get, self._text_key
            tied = [(k, p) for k, p in kept[1] if get(p[0] << SHIFT | p[1]) == count and key(p) == k]
            if len(tied) < total:
                fresh = self._new_pairs(count, {p for _, p in tied})
                if fresh:
                    tied = sorted(tied + [(key(p), p) for p in fresh], reverse=True)
            if len(tied) != total:
                tied = None
        if tied is None:
            tied = sorted(((self._text_key((a, b)), (a, b)) for a, b, c in self._state.top(total) if c == count),
                          reverse=True)
        self._tied = (count, tied)
        return [p for _, p in tied]

    def _new_pairs(self, count: int, known: set[tuple[int, int]]) -> set[tuple[int, int]]:
        """The pairs of ``count`` beside the token the last merge made, not in ``known``."""
        if not self._history or self._history[-1][1] is None:
            return set()
        record = self._history[-1][1]
        data, new, get = self._state.data, record.new_id, self._state.count.get
        out = set()
        for p in record.plist:
            if data[p] != new:
                continue  # a stale entry, or an occurrence a neighbour took
            for pair in ((data[data[p + 2]], new), (new, data[data[p + 1]])):
                if pair not in known and get(pair[0] << SHIFT | pair[1]) == count:
                    out.add(pair)
        return out

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

    # -- manual merges and what-if branches -------------------------------------------------

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
        with _gc_paused():
            a, b, size, count = self._check_force(pair)
            if self._future:
                if self._future[-1][0].pair == (a, b):
                    return self._redo()
                self._fork()
            self._leap = None
            return self._make(a, b, size, count, ((a, b),), 1, True)

    def _check_force(self, pair: Sequence[int]) -> tuple[int, int, int, int]:
        if self._script is not None:
            raise MergeError("a replay makes its tokenizer's merges: manual merges are for training")
        try:
            a, b = (int(x) for x in pair)
        except (TypeError, ValueError):
            raise MergeError(f"a merge is a pair of token ids, not {pair!r}") from None
        pieces = self._pieces
        for x in (a, b):
            if not 0 <= x < len(pieces):
                raise TokenIdError(f"no token {x} at step {self.steps} (ids 0 to {len(pieces) - 1})")
        shown = f"{token_display(pieces[a])!r} + {token_display(pieces[b])!r}"
        target = self.target_merges
        if target is not None and self.steps >= target:
            raise MergeError(f"cannot merge {shown}: the merge limit ({target}) is reached (undo first)")
        count = self._state.count.get(a << SHIFT | b, 0)
        if count < self._state.min_count:
            count = self._state.pair_counts().get((a, b), 0) if not count else count
            if not count:
                raise MergeError(f"cannot merge {shown}: the pair does not occur in the corpus at step {self.steps}")
            raise MergeError(f"cannot merge {shown}: its count is {count}, below the minimum pair count "
                             f"{self._state.min_count}")
        size = len(pieces[a]) + len(pieces[b])
        if self._known_bytes + size > MAX_VOCAB_BYTES:
            raise MergeError(f"cannot merge {shown}: the vocabulary would hold more than {MAX_VOCAB_BYTES:,} bytes")
        return a, b, size, count

    def _fork(self, name: str | None = None) -> str:
        """Keep the current line as its branch and go on from here on a new one (no future)."""
        here = self.steps
        name = self._book.fork(self._line(), here, here, name)
        self._future = []
        if self._marks is not None:
            self._marks.rebase(here, [])
        return name

    def _line(self) -> list[tuple[Merge, MergeRecord | None]]:
        """The current branch's whole line: applied merges, then the undone ones."""
        return self._history + self._future[::-1]

    def _lines(self) -> dict[str, tuple[list, int]]:
        lines = {name: (kept.line, kept.at) for name, kept in self._book.kept.items()}
        lines[self._book.current] = (self._line(), self.steps)
        return lines

    @property
    def branches(self) -> list[Branch]:
        """Every what-if branch, first made first (one, ``main``, until a manual merge is made
        where the line has a future)."""
        lines = self._lines()
        return [self._book.record(name, *lines[name]) for name in self._book.order]

    @property
    def branch(self) -> Branch:
        """The current branch."""
        return self._book.record(self._book.current, self._line(), self.steps)

    def branch_events(self, which: str | int) -> list[Merge]:
        """The merges of a branch's whole line (by name or index into :attr:`branches`)."""
        name = self._book.resolve(which)
        line = self._line() if name == self._book.current else self._book.kept[name].line
        return [event for event, _ in line]

    def switch(self, which: str | int, walk: bool = True) -> Branch:
        """Make another branch current (by name or index into :attr:`branches`) and move to the
        step it was left at: back to where the two lines part, then along the other's merges
        (recorded: nothing is chosen again). ``walk=False`` stops where they part (or here, if
        that is behind): the caller then goes on with :meth:`goto` or :meth:`goto_within`.
        ValueError for an unknown branch."""
        name = self._book.resolve(which)
        book = self._book
        if name == book.current:
            return self.branch
        with _gc_paused():
            kept = book.kept[name]
            mine, here = self._line(), self.steps
            theirs = kept.line
            part = 0
            limit = min(len(mine), len(theirs))
            while part < limit and (mine[part][0] is theirs[part][0] or mine[part][0] == theirs[part][0]):
                part += 1
            self._walk(min(here, part), None)
            del book.kept[name]
            book.kept[book.current] = type(kept)(mine, here)
            book.current = name
            done = self.steps
            self._future = theirs[done:][::-1]
            if self._marks is not None:
                self._marks.rebase(part, [len(record.absorbed) for _, record in theirs[part:]])
            self._leap = None
            self.stop_reason = None
            if walk:
                self._walk(kept.at, None)
        return self.branch

    def branch_data(self) -> dict:
        """Every branch as JSON-able data (sessions save it; :meth:`restore_branches` reads it)."""
        return self._book.to_data(self._lines())

    def restore_branches(self, data: object, stop: Callable[[], bool] | None = None) -> str | None:
        """Rebuild the branches of :meth:`branch_data` on this fresh trainer (step 0, nothing
        trained) and go to the current one's step. Rule merges are trained again, so a
        version that trains differently keeps only what matches; returns a note saying what
        was cut then (None when all of it was restored). ValueError for malformed data, and
        for data whose restore would walk far more than it trains (see
        :func:`engine._branches.check_work`). ``stop()`` is asked between merges and walks:
        True ends the restore with :class:`RestoreStopped` (the trainer is then half restored)."""
        if self._history or self._future or len(self._book) > 1:
            raise ValueError("branches are restored into a fresh trainer")
        items = check_data(data)
        check_work(items)
        if stop is None:
            stop = _never
        book = self._book
        notes: list[str] = []
        made: list[str] = []
        with _gc_paused():
            for k, item in enumerate(items):
                name = item["name"]
                if k == 0:
                    book.order, book.parent, book.parts_at, book.current = [name], {name: None}, {name: 0}, name
                else:
                    if item["parent"] not in made:
                        notes.append(f"branch {name} (its parent was not restored)")
                        continue
                    self.switch(item["parent"], walk=False)  # to where the lines part, not on to its step
                    if self._walk_until(item["parts_at"], stop) and self.steps != item["parts_at"]:
                        notes.append(f"branch {name} (its parent is shorter now)")
                        continue
                    self._fork(name)
                made.append(name)
                for m in item["merges"]:
                    if stop():
                        raise RestoreStopped("restoring the session's branches was stopped")
                    pair = (m[0], m[1])
                    try:
                        if len(m) == 3 and m[2]:
                            self.force(pair)
                            continue
                    except ValueError:
                        pass
                    else:
                        event = self.step()
                        if event is not None and event.pair == pair:
                            continue
                        if event is not None:
                            self._undo()
                            self._future = []
                            if self._marks is not None:
                                self._marks.rebase(self.steps, [])
                    notes.append(f"branch {name} after merge {self.steps}")
                    break
            for item in items:
                kept = book.kept.get(item["name"])
                if kept is not None:
                    kept.at = min(item["at"], len(kept.line))
            current = data["current"] if data["current"] in made else made[0]  # type: ignore[index]
            at = next(item["at"] for item in items if item["name"] == current)
            self.switch(current, walk=False)
            self._walk_until(min(at, self.branch.length), stop)  # never past what was restored
        if not notes:
            return None
        return "this version trains differently: restored up to " + "; ".join(notes)

    def _walk_until(self, step: int, stop: Callable[[], bool]) -> bool:
        """:meth:`_walk` to ``step`` in slices of 50 ms, asking ``stop()`` between them."""
        while not self._walk(step, perf_counter() + 0.05):
            if stop():
                raise RestoreStopped("restoring the session's branches was stopped")
        return True

    def undo(self) -> Merge | None:
        """Take back the last merge from its record (never by replaying); None at step 0."""
        with _gc_paused():
            return self._undo()

    def _undo(self) -> Merge | None:
        if not self._history:
            return None
        event, record = self._history[-1]
        if record is None:
            raise RuntimeError("this trainer was made with record_undo=False")
        self._state.unmerge(record)
        self._history.pop()
        self._pieces.pop()
        self._future.append((event, record))
        self.stop_reason = None
        return event

    def redo(self) -> Merge | None:
        """Re-apply the last undone merge without choosing again; None if nothing to redo."""
        with _gc_paused():
            return self._redo()

    def _redo(self) -> Merge | None:
        if not self._future:
            return None
        event, _ = self._future.pop()
        a, b = event.pair
        record = self._state.merge(a, b, event.new_id)
        self._pieces.append(self._pieces[a] + self._pieces[b][self._cut:])
        self._history.append((event, record if self.config.record_undo else None))
        return event

    def run(self) -> Iterator[Merge]:
        """Yield merges until a stop rule holds; stop iterating to pause."""
        while (event := self.step()) is not None:
            yield event

    __iter__ = run

    def train(self) -> list[Merge]:
        """Run to the end and return every merge made by this call."""
        with _gc_paused():
            return list(self.run())

    # -- jumps ------------------------------------------------------------------------------

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
        with _gc_paused():
            return self._walk(step, deadline)

    def _walk(self, step: int, deadline: float | None) -> bool:
        history = self._history
        if self._marks is not None and self._leap != (step, len(history)):
            self._jump_start(step)  # a new jump (not the rest of one cut short)
        self._leap = None
        while len(history) != step:
            if len(history) > step:
                self._undo()
            elif self.step() is None:  # a stop rule ends a forward jump
                break
            if deadline is not None and len(history) != step and perf_counter() >= deadline:
                self._leap = (step, len(history))
                return False
        return True

    def settle(self) -> None:
        """Finish a jump's restore off the critical path: copy the pair counts it borrowed from
        a checkpoint (the next merge or undo would, but that is the user's next key)."""
        self._state.own()

    def jump_work(self, step: int) -> int | None:
        """Estimated work of jumping to ``step`` (units of
        :data:`engine._checkpoints.WORK_PER_MERGE`), or None when it cannot be told: no
        checkpoints kept, or the jump would train merges not made yet."""
        marks, here = self._marks, self.steps
        if marks is None or step > here + len(self._future):
            return None
        return marks.jump_work(here, step)

    def _jump_start(self, step: int) -> None:
        """Before walking to ``step``: let the checkpoints keep a copy of here and restore the
        one that makes the walk cheapest, then move the merge lists to the step restored."""
        marks, here = self._marks, self.steps
        assert marks is not None
        target = min(step, here + len(self._future))  # copies exist only of known steps
        start = marks.depart(here, target, self._state)
        if start is None:
            return
        history, future, pieces = self._history, self._future, self._pieces
        if start < here:
            future.extend(reversed(history[start:]))
            del history[start:]
            del pieces[self.base_size + start :]
        else:
            for _ in range(start - here):
                event, record = future.pop()
                history.append((event, record))
                pieces.append(event.token)


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
