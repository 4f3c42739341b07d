"""The app's model: one corpus, one trainer, one lock. No UI code, so tests can drive it directly.

Training runs in a worker thread; the UI thread reads the trainer (spans, candidates, the log)
between batches. Every access goes through ``lock`` so a read never sees a merge half done.
The corpus it holds is a :class:`~tui.model.loaded_corpus.LoadedCorpus` (how the app loads one).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from engine import Merge, Tokenizer, TrainConfig, Trainer
from engine.corpus import refuse_inputs
from engine.text import token_display
from tui.i18n import _
from tui.model.loaded_corpus import LoadedCorpus, refuse_standard_input, table_config  # noqa: F401 (kept importable here)
from tui.model.session import Session

#: How long the UI waits for the trainer while a run is live: a batch is ~20 ms, and a key
#: must still be handled within 100 ms.
#: Seconds of merging a training batch holds the trainer for (then the UI may read it).
BATCH_SECONDS = 0.02
#: Merges made between two looks at the clock in a batch (on tang_all's bytes the first ones
#: take up to a millisecond each, the rest a few microseconds).
RUN_STEPS = 16
#: How long a read waits for the trainer during a run: about two batches. A longer batch would
#: starve the UI's reads (and the autosave, which skips a tick that finds the trainer busy).
READ_WAIT = 2 * BATCH_SECONDS
#: Copies of the training state kept for long jumps (besides step 0's): each costs about the
#: corpus's node array and pair dicts in memory (far more on Chinese than on code; figures in
#: docs/benchmarks.md) and makes a jump near where it was taken a copy, not a walk.
#: Training takes one per 40 copies' worth of work...
CHECKPOINTS = 12
#: ... and all of them hold at most this many bytes: on big corpora, fewer copies (tang_all
#: keeps step 0's and 3 more; on corpora far larger, none: jumps then walk, in the worker).
CHECKPOINT_MEMORY = 384 << 20
#: A chunk-count table's corpus pane lists this many of its most frequent chunks.
TABLE_ROWS = 2000


class Busy(Exception):
    """The training worker holds the trainer; the UI keeps what it shows and tries later."""


class Workbench:
    """A corpus and its trainer, with the lock that keeps the UI and the worker apart.

    The UI reads through :meth:`reading`: while a run is live it never waits for the lock (a
    single merge on a large corpus can take a second), it shows what it had and tries again
    after the next batch.
    """

    def session(self, selected: int | None = None) -> Session:
        """Where the user is now, as a session (read under the lock; Busy during a batch)."""
        with self.reading():
            trainer = self.trainer
            merges = trainer.events().pairs()  # the pairs straight from the log, no events made
            merges.extend(trainer.future.pairs())
            step = trainer.steps
            branches = trainer.branches
            branched = len(branches) > 1 or any(b.manual for b in branches)
            data = trainer.branch_data() if branched else None
        corpus = self.corpus
        return Session(corpus.source, corpus.sha256, corpus.size, self.config, merges, step, selected, self.script,
                       replay_ids=self.file_ids, branches=data, counts=corpus.table is not None)

    def restore(self, session: Session, stop: Callable[[], bool] | None = None) -> str | None:
        """Bring the trainer to a session's state: train (deterministically) through its merges,
        then undo to its step. Returns a note when this version makes different merges.
        ``stop()`` (branches only) ends a restore early when it says so (the app closing)."""
        trainer = self.trainer
        if session.branches is not None and not trainer.is_replay:
            with self.lock:
                self.manual_seen = True
                return trainer.restore_branches(session.branches, stop)
        with self.lock:
            trainer.goto(len(session.merges))
            made = trainer.events().pairs()
            same = 0
            while same < min(len(made), len(session.merges)) and made[same] == tuple(session.merges[same]):
                same += 1
            note = None
            if same < len(session.merges):
                note = _("this version trains differently after merge {same}: restored the first {same} "
                         "of the session's {n} merges").format(same=same, n=len(session.merges))
            trainer.goto(min(session.step, same))
            return note

    def __init__(
        self,
        corpus: LoadedCorpus,
        config: TrainConfig,
        *,
        script: Tokenizer | None = None,
        file_ids: list[int | None] | None = None,
        memory: int | None = None,
    ) -> None:
        """Build the trainer (slow for big corpora: the app calls this in a worker).

        With ``script``, steps rebuild that tokenizer on this corpus merge by merge instead of
        training (an imported tokenizer; ``config`` is then the one replaying implies), and
        ``file_ids`` (``Imported.file_ids``: our id -> the file's; None: the same) is how its
        file numbers the tokens: every id the app shows or copies is then the file's.
        ``memory``: the bytes its copies of the state and its caches may hold together (a served
        tab's budget, :mod:`tui.model.budget`); None: :data:`CHECKPOINT_MEMORY` for the copies.
        """
        self.corpus = corpus
        #: The budget for copies and caches (None: a terminal's defaults).
        self.memory = memory
        copies = CHECKPOINT_MEMORY if memory is None else memory
        self.script = script  # the imported tokenizer whose merges steps replay, or None
        self.file_ids = file_ids if script is not None else None
        self._ours_of: dict[int, int] | None = None  # the file's id -> ours, built on first use
        if script is not None:
            self.trainer = Trainer.replaying(
                corpus.text, script, checkpoints=CHECKPOINTS, checkpoint_memory=copies
            )
            config = self.trainer.config
            if self.trainer.text != corpus.text:  # its normalizer changed it: the pane shows what is merged
                self.corpus = corpus = corpus.shown_as(self.trainer.text)
        elif corpus.table is not None:
            config = table_config(config, corpus.table)
            self.trainer = Trainer("", config, chunks=corpus.table.chunks, checkpoints=CHECKPOINTS,
                                   checkpoint_memory=copies)
            self.corpus = corpus = corpus.listed(self.trainer.listing(TABLE_ROWS))
        else:
            self.trainer = Trainer(corpus.text, config, checkpoints=CHECKPOINTS, checkpoint_memory=copies)
        self.config = config
        self.trainer.layout()  # built now (in the loading worker), not on the first paint
        self.trainer.frequencies()
        self.lock = threading.RLock()
        self.training = False  # a worker is running batches: readers must not wait
        self.saved_step: int | None = None  # the step last saved, if any
        self._tokenizer: tuple[int, Tokenizer] | None = None
        self._whole_index: dict[bytes, int] | None = None  # a replay: its file's whole pieces, by bytes
        self.rate = 0.0  # merges per second over the last run
        self.manual_seen = False  # a manual merge was made or restored: the log makes room for its mark

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Hold the lock to read the trainer; during a run wait at most ``READ_WAIT`` seconds
        (about a batch) and raise :class:`Busy` rather than wait longer."""
        if not self.lock.acquire(timeout=READ_WAIT if self.training else -1):
            raise Busy
        try:
            yield
        finally:
            self.lock.release()

    # -- moving through training ----------------------------------------------------------

    def step(self) -> Merge | None:
        with self.lock:
            return self.trainer.step()

    def undo(self) -> Merge | None:
        with self.lock:
            return self.trainer.undo()

    def redo(self) -> Merge | None:
        with self.lock:
            return self.trainer.redo()

    def force(self, pair: tuple[int, int]) -> Merge:
        """A manual merge (see :meth:`engine.Trainer.force`); ValueError (one line) when refused."""
        with self.lock:
            event = self.trainer.force(pair)
        self.manual_seen = True
        return event

    def goto(self, step: int) -> int:
        with self.lock:
            return self.trainer.goto(max(step, 0))

    def settle(self) -> None:
        """After a jump is on screen: let the trainer finish its restore (skipped while a run
        holds the lock: its next merge does it)."""
        if self.lock.acquire(blocking=False):
            try:
                self.trainer.settle()
            finally:
                self.lock.release()

    def jump_work(self, step: int) -> int | None:
        """Estimated work of a jump (see :meth:`engine.Trainer.jump_work`)."""
        with self.lock:
            return self.trainer.jump_work(max(step, 0))

    def goto_batch(self, target: int, budget: float = 0.02) -> bool:
        """Move toward step ``target`` for up to ``budget`` seconds; True once there (or once a
        stop rule ends a forward jump). The first batch may restore a checkpoint, which takes
        longer than a batch on a big corpus (tens of milliseconds)."""
        with self.lock:
            return self.trainer.goto_within(target, time.perf_counter() + budget)

    def run_batch(self, budget: float = BATCH_SECONDS, limit: int | None = None) -> tuple[int, bool]:
        """Step for up to ``budget`` seconds and at most ``limit`` merges; return (merges made,
        whether training is done)."""
        made = 0
        started = time.perf_counter()
        with self.lock:
            while limit is None or made < limit:
                want = RUN_STEPS if limit is None else min(RUN_STEPS, limit - made)
                got = self.trainer.advance(want)  # the merges in the core's loop, a few at a time
                made += got
                if got < want:  # a stop rule holds
                    return made, True
                if time.perf_counter() - started >= budget:
                    return made, False
            return made, False

    # -- reading ----------------------------------------------------------------------------

    @property
    def steps(self) -> int:
        return self.trainer.steps

    @property
    def done(self) -> bool:
        """Whether a step now would make no merge (checked without changing anything)."""
        return self.stop_reason() is not None

    def stop_reason(self) -> str | None:
        """Why a step now would make no merge, in a few words (None: it would make one).

        Example: ``'vocabulary size reached'``. Checked without changing anything.
        """
        with self.reading():
            trainer = self.trainer
            if trainer.future:
                return None
            if trainer.is_replay and trainer.steps >= len(self.script.merges):
                return _("replayed every merge")
            target = trainer.target_merges
            if target is not None and trainer.steps >= target:
                return _("merge count reached") if self.config.max_merges == target else _("vocabulary size reached")
            if trainer.is_replay:
                return None  # a replayed merge is made whatever its count here
            top = trainer.candidates(1)  # only pairs of at least min_frequency are candidates
            if top and top[0].count >= self.config.min_frequency:
                return None
            floor = self.config.min_frequency
            # "or more", as the candidates pane says: a pair that occurs 3 times would still merge
            return _("no pairs left") if floor <= 1 else _("no pair occurs {n} times or more").format(n=floor)

    @property
    def unsaved(self) -> bool:
        """Work that would be lost: merges made since the last save."""
        return self.trainer.steps > 0 and self.saved_step != self.trainer.steps

    def line_spans(self, first: int, last: int) -> dict[int, list[tuple[int, int, int]]]:
        """The tokens of lines first..last (inclusive), read under one hold of the lock."""
        corpus = self.corpus
        out: dict[int, list[tuple[int, int, int]]] = {}
        last = min(last, corpus.line_count - 1)
        if last < first:
            return out
        start = corpus.line_range(first)[0]
        end = corpus.line_range(last)[1]
        with self.reading():
            spans = self.trainer.spans(start, end)
        index = 0
        for line in range(first, last + 1):
            lo, hi = corpus.line_range(line)
            while index < len(spans) and spans[index][2] <= lo:
                index += 1
            j = index
            row = []
            while j < len(spans) and spans[j][1] < hi:
                row.append(spans[j])
                j += 1
            out[line] = row
        return out

    def tokenizer(self) -> Tokenizer:
        """A tokenizer of the current step (cached until the step changes)."""
        with self.reading():
            steps = self.trainer.steps
            if self._tokenizer is None or self._tokenizer[0] != steps or self._stale_tokenizer():
                # a replay's encodes as its file does at this step (whole pieces, normalizer: see
                # engine.Trainer.tokenizer_of)
                self._tokenizer = (steps, self.trainer.tokenizer())
            return self._tokenizer[1]

    def _stale_tokenizer(self) -> bool:
        cached = self._tokenizer
        if cached is None:
            return True
        merges = cached[1].merges
        last = self.trainer.last
        return bool(merges) and (last is None or merges[-1] != last.pair)

    # -- ids as the user sees them -----------------------------------------------------------

    def shown_id(self, token: int) -> int | None:
        """The id the user sees for one of the trainer's tokens: the tokenizer file's in a
        replay (None when the file has none), else the trainer's own.

        The trainer's merged ids are the script's; its specials follow the merges made so far,
        the file's follow all of its merges. O(1): the panes call it per token shown.
        """
        script = self.script
        if script is None:
            return token
        if token < 0:  # a whole piece the corpus pane found (engine.Trainer.spans)
            token = len(script.pieces) - 1 - token
            return token if self.file_ids is None else self.file_ids[token]
        made = self.trainer.vocab_size - len(self.config.specials)
        if token >= made:  # a special (the file's follow its whole-piece tokens, which no step makes)
            token += len(script.pieces) + len(script.whole_pieces) - made
        ids = self.file_ids
        if ids is None:
            return token
        return ids[token] if 0 <= token < len(ids) else None

    def shown_ids(self, ids: list[int]) -> list[int | None]:
        """:meth:`shown_id` of each."""
        if self.script is None:
            return list(ids)
        return [self.shown_id(i) for i in ids]

    def shown_encoded(self, ids: list[int], tok: Tokenizer) -> list[int | None]:
        """The ids the user sees for what ``tok`` (a :meth:`tokenizer`) encoded. In a replay that
        tokenizer has the file's whole pieces after its merges and before its specials, which no
        trainer token is: each token is given the file's own id. Reads only ``tok``, never the
        trainer (which a run may be moving)."""
        script = self.script
        if script is None:
            return list(ids)
        if self._whole_index is None:
            self._whole_index = {piece: i for i, piece in enumerate(script.whole_pieces)}
        made, wholes = len(tok.pieces), tok.whole_pieces
        file_ids = self.file_ids
        shown: list[int | None] = []
        for token in ids:
            if token < made:
                theirs = token
            elif token < made + len(wholes):
                theirs = len(script.pieces) + self._whole_index[wholes[token - made]]
            else:  # a special: the file's follow all its merges and whole pieces
                theirs = len(script.pieces) + len(script.whole_pieces) + token - made - len(wholes)
            if file_ids is not None:
                theirs = file_ids[theirs] if 0 <= theirs < len(file_ids) else None
            shown.append(theirs)
        return shown

    def token_name(self, token: int, space: str = " ") -> str:
        """A token as every pane names it. In a byte-fallback replay ids 1-256 are the byte
        pieces, shown as sentencepiece spells them ([e5]), and id 0 is a character outside the
        vocabulary, which sentencepiece writes as its bytes: ``[..]``, not its U+FFFD piece."""
        script = self.script
        if script is not None and script.byte_fallback and 0 <= token <= 256:
            return token_display(bytes([token - 1])) if token else "[..]"
        return token_display(self.trainer.token_bytes(token), space=space)

    def id_text(self, token: int) -> str:
        """A token's shown id as text ("?" when the replayed file has none for it)."""
        shown = self.shown_id(token)
        return "?" if shown is None else str(shown)

    def our_id(self, shown: int) -> int | None:
        """The trainer's token for an id as the user sees it (find by ``#id``); None when no
        such token exists at this step."""
        script = self.script
        if script is None:
            return shown
        ours: int | None = shown
        if self.file_ids is not None:
            if self._ours_of is None:
                reverse: dict[int, int] = {}
                for index, theirs in enumerate(self.file_ids):
                    if theirs is not None:
                        reverse.setdefault(theirs, index)
                self._ours_of = reverse
            ours = self._ours_of.get(shown)
        if ours is None or ours < 0:
            return None
        made = self.trainer.vocab_size - len(self.config.specials)
        pieces = len(script.pieces)
        if pieces <= ours < pieces + len(script.whole_pieces):
            return None  # a whole-piece token: no replayed merge makes it
        pieces += len(script.whole_pieces)
        if ours >= pieces:  # a special of the file: after the merges made here
            ours -= pieces - made
            return ours if ours < self.trainer.vocab_size else None
        return ours if ours < made else None

    def save(self, path: str | Path) -> None:
        """Save the current tokenizer (native JSON, atomic); remember the step as saved. The
        corpus itself is refused (WriteError), under any name."""
        if self.corpus.path is not None:
            refuse_inputs([path], [(self.corpus.path, f"the corpus {self.corpus.path}")])
        self.tokenizer().save(path)
        self.saved_step = self.trainer.steps
