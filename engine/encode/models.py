"""Models: how one chunk of text becomes ids, family by family. A model reads a
:class:`~engine.encode.vocabulary.Vocabulary` and never changes it; the tokenizer around it splits
the text into chunks, caches each chunk's ids and finds the specials.

- :class:`MergeRules` (bpe-lab's own, HuggingFace's BPE, GPT-2's files, CLIP, subword-nmt): the
  chunk's units, then the merges in the order they were learned: the earliest-learned pair
  present joins first, until none is left (:mod:`engine.encode.apply_merges`). A chunk whose
  bytes are a token that merging rebuilds is that token, one lookup (a table of whole tokens:
  :meth:`MergeRules.self_encodes` says which tokens rebuild themselves).
- :class:`WholeFirst` (HuggingFace's ``ignore_merges``, a tiktoken file every token of which
  merging rebuilds): a chunk whose bytes are a token, or a whole piece, is that token; any
  other is merged by the rules.
- :class:`RankMerging` (tiktoken's rank files): whole pieces first, then tiktoken's merging:
  join the adjacent pair whose joined bytes rank lowest (:mod:`engine.encode.tiktoken_merge`),
  the whole pieces ranked among the merges. Rank files whose whole pieces tiktoken also builds
  inside longer pieces need it: merge rules cannot.
- :class:`ScoreMerging` (SentencePiece's BPE): join the adjacent pair whose joined text is the
  piece of the best score (the leftmost of equal ones); a character outside the alphabet is
  its bytes' tokens with byte fallback, else unknown characters in a row are one unknown token.

Each model also says where the rule-by-rule trace starts (:meth:`MergeRules.trace_start`: where
its result differs from the rules', the trace starts from its result) and cuts itself to a
vocabulary of its first merges (:meth:`MergeRules.cut`: a replay's step).

Example::

    >>> from engine.encode.vocabulary import BaseUnits, Vocabulary
    >>> MergeRules(Vocabulary(BaseUnits(), [(104, 105)])).encode_chunk("hi!")
    [256, 33]
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from itertools import islice
from typing import Any, Protocol

from engine.encode.pairs import SHIFT
from engine.encode.tiktoken_merge import rank_merge
from engine.encode.vocabulary import Vocabulary
from engine.errors import ConfigError
from engine.native import MakeBorders, RankIds, backend, chars_first_analysis

#: The first this many distinct chunks a model encodes go through the merges, before the table
#: of whole tokens is built (for a few chunks, bpe-lab encode "hi", the table costs more).
BEFORE_WHOLE = 16


class Model(Protocol):
    """What a tokenizer asks of its model."""

    vocab: Vocabulary
    #: A new chunk -> its ids (an attribute: it may be the compiled core's own encoder).
    encode_chunk: Callable[[str], list[int]]
    #: Whether ``encode_chunk`` merges a bytes-base chunk in the compiled core, whole.
    by_text: bool

    def merge_ids(self, ids: list[int]) -> list[int]: ...
    def expect(self, chunks: int) -> None: ...
    def trace_start(self, units: list[int]) -> list[int]: ...
    def rank_tables(self) -> tuple[RankIds, dict[bytes, int]] | None: ...
    def whole_kept(self, steps: int) -> list[int]: ...
    def cut(self, vocab: Vocabulary, steps: int, kept: list[int]) -> Model: ...


class MergeRules:
    """The merges in learned order (see the module doc). ``borders``: what the compiled core
    reads of a longer vocabulary's tokens, this one the start of it (a replay's step), shared,
    not made again (:meth:`engine.native.door.Backend.border_tables`)."""

    #: Whether the model looks whole pieces up (a vocabulary with some needs such a model).
    takes_whole_pieces = False

    def __init__(self, vocab: Vocabulary, *, borders: MakeBorders | None = None) -> None:
        if vocab.whole_pieces and not self.takes_whole_pieces:
            raise ConfigError("whole pieces are tokens only the whole-piece lookup gives: they need whole_first")
        self.vocab = vocab
        units = vocab.units
        bytes_base = units.base == "bytes"
        native = backend()
        #: What the compiled core reads of a bytes-base vocabulary's tokens, made at first need
        #: (None on the pure path, and for other bases): a replay's steps share their file's.
        self.borders = borders if borders is not None or not bytes_base else native.border_tables(vocab.pieces)
        #: One chunk's units -> its ids (pure Python or the compiled core, see engine.native.door);
        #: with the compiled core, a bytes-base chunk's text goes to it whole (no table of whole
        #: tokens first: the compiled merges cost less than the lookups).
        self.merge_ids: Callable[[list[int]], list[int]]
        self.merge_ids, by_text = native.chunk_encoders(vocab, self.borders)
        self.by_text = by_text is not None and bytes_base and not units.marked
        self.encode_chunk: Callable[[str], list[int]]
        if self.by_text:
            assert by_text is not None
            self.encode_chunk = by_text
        elif units.marked:  # a token's bytes are not its chunk's: no table of whole tokens
            self.encode_chunk = self._encode_marked
        else:
            self.encode_chunk = self._encode_new
        #: For the first encoding of a chunk: token bytes -> id (built once enough chunks were
        #: merged without it to pay for it), and per token whether it encodes to itself (0 not
        #: known yet, 1 yes, 2 no).
        self._whole: dict[Any, int] | None = None
        self._before_whole = BEFORE_WHOLE
        self.judged = False  # every token's self-encoding known (judge_all)
        first = vocab.base_size
        self.known = bytearray(b"\x01") * first + bytearray(len(vocab.pieces) - first)  # units: yes

    # -- what a tokenizer asks ----------------------------------------------------------------

    def expect(self, chunks: int) -> None:
        """A text of ``chunks`` chunks is coming: a long one meets most tokens, and judging them
        all in order (:meth:`judge_all`) is then cheaper than one by one."""
        if not self.judged and not self.by_text and chunks >= 8 * len(self.vocab.pieces):
            self.judge_all()

    def trace_start(self, units: list[int]) -> list[int]:
        """Where a chunk's rule-by-rule trace starts: its units."""
        return units

    def rank_tables(self) -> tuple[RankIds, dict[bytes, int]] | None:
        """For a model merging by rank, its merger and whole-piece table (the compiled core's
        whole-text encoder does the same in C); None here."""
        return None

    def whole_kept(self, steps: int) -> list[int]:
        """Which whole pieces the vocabulary cut after ``steps`` merges keeps: none here."""
        return []

    def cut(self, vocab: Vocabulary, steps: int, kept: list[int]) -> MergeRules:
        """This model on ``vocab``, this one's cut after ``steps`` merges."""
        return MergeRules(vocab, borders=self.borders)

    # -- encoding -----------------------------------------------------------------------------

    def _encode_marked(self, chunk: str) -> list[int]:
        """Encode one chunk of a marked vocabulary: always through the merges."""
        return self.merge_ids(self.vocab.units.ids(chunk))

    def _encode_new(self, chunk: str) -> list[int]:
        """Encode one chunk: a chunk whose bytes are a token that encodes to itself is that
        token (one lookup: the usual case for a trained tokenizer's corpus); anything else goes
        through the merges (:meth:`engine.native.door.Backend.chunk_encoders`)."""
        whole = self._whole
        if whole is None:
            if self._before_whole > 0:  # a few chunks (bpe-lab encode "hi") cost less than the table
                self._before_whole -= 1
                return self.merge_ids(self.vocab.units.ids(chunk))
            whole = self._whole = self._whole_table()
        if self.vocab.units.alphabet is None:  # the bytes base: a chunk's bytes are its units
            data = chunk.encode("utf-8", "surrogateescape")
            token = whole.get(data)
            if token is not None and (self.known[token] == 1 or self.self_encodes(token)):
                return [token]  # the usual case, in short
            return self.merge_ids(list(data))
        if whole:
            token = whole.get(chunk)
            if token is not None and (self.known[token] == 1 or self.self_encodes(token)):
                return [token]
        return self.merge_ids(self.vocab.units.ids(chunk))

    def _whole_table(self) -> dict[Any, int]:
        """Each token's bytes (bytes base) or text (chars base) -> a token id with them.

        The chars base keys by text, not bytes: with surrogate escapes in the alphabet, two
        texts can share their bytes. The table is empty when the alphabet repeats a character
        or holds more than one in an entry: a chunk's units then need not be its token's."""
        vocab = self.vocab
        alphabet = vocab.units.alphabet
        if alphabet is None:
            return dict(zip(vocab.pieces, range(len(vocab.pieces))))
        if len(vocab.units.char_ids) != len(alphabet) or any(len(c) != 1 for c in alphabet):
            return {}
        texts = list(alphabet)
        for a, b in vocab.merges:
            texts.append(texts[a] + texts[b])
        return dict(zip(texts, range(len(texts))))

    # -- which tokens encode to themselves ------------------------------------------------

    def _stay_apart(self, left: int, right: int, end: int) -> bool:
        """Whether tokens ``left`` and ``right``, side by side and each built on its own (each
        encodes to itself), are never joined by a merge before step ``end``.

        The tokens next to the border are left's right spine (left, its right part, that one's
        right part, ...) and right's left spine; spine token x exists from step x until its
        parent is made. A pair (L, R) of them whose merge r comes before both are replaced would
        fire at step r (also when r makes R's parent: R and its sibling are then copies of L,
        and the pair across the border, further left, goes first). The walk visits every pair
        ever side by side, replacing the later-made one each time.
        """
        vocab = self.vocab
        left_of, right_of, get = vocab.left_of, vocab.right_of, vocab.ranks.get
        end_left = end_right = end
        while True:
            r = get(left << SHIFT | right)
            if r is not None and r < end_left and r <= end_right:
                return False
            if left >= right:
                part = right_of[left]
                if part < 0:
                    return True  # both down to units
                end_left, left = left, part
            else:
                part = left_of[right]
                if part < 0:
                    return True
                end_right, right = right, part

    def self_encodes(self, token: int) -> bool:
        """Whether encoding the bytes of ``token`` gives ``[token]`` (memoized per token).

        Token t, made by merge (a, b), encodes to itself when a and b do and stay apart until
        step t (:meth:`_stay_apart`): merges fire in rank order, so the halves grow independently
        until one joins them, and then t joins the two.
        """
        known = self.known
        if known[token]:
            return known[token] == 1
        left_of, right_of, stay_apart = self.vocab.left_of, self.vocab.right_of, self._stay_apart
        stack = [token]
        while stack:
            t = stack[-1]
            a = left_of[t]
            b = right_of[t]
            ka = known[a]
            kb = known[b]
            if not (ka and kb):  # a half not judged yet: judge it first
                if not ka:
                    stack.append(a)
                if not kb:
                    stack.append(b)
                continue
            stack.pop()
            if known[t]:
                continue
            if ka != 1 or kb != 1:
                known[t] = 2
                continue
            known[t] = 1 if stay_apart(a, b, t) else 2
        return known[token] == 1

    def judge_all(self) -> None:
        """:meth:`self_encodes` for every token at once, in id order: each token's parts are
        judged before it (they are made before it), so no stack is needed (a third of the cost
        per token; for a text that meets most of the vocabulary)."""
        vocab = self.vocab
        known, left_of, right_of, get = self.known, vocab.left_of, vocab.right_of, vocab.ranks.get
        for t in range(vocab.base_size, len(vocab.pieces)):
            if known[t]:
                continue
            a = left_of[t]
            b = right_of[t]
            if known[a] != 1 or known[b] != 1:
                known[t] = 2
                continue
            # _stay_apart(a, b, t), inlined: a call per token is a sixth of this loop's time over a
            # 50,000-token vocabulary ((a, b) itself is merge t, so the walk starts one step down)
            left, right, end_left, end_right = a, b, t, t
            ok = 1
            while True:
                if left >= right:
                    part = right_of[left]
                    if part < 0:
                        break
                    end_left, left = left, part
                else:
                    part = left_of[right]
                    if part < 0:
                        break
                    end_right, right = right, part
                r = get(left << SHIFT | right)
                if r is not None and r < end_left and r <= end_right:
                    ok = 2
                    break
            known[t] = ok
        self.judged = True


class WholeFirst(MergeRules):
    """A chunk whose bytes are a token or a whole piece is that token; any other is merged by
    the rules (see the module doc). The bytes base without marks only."""

    takes_whole_pieces = True

    def __init__(self, vocab: Vocabulary, *, borders: MakeBorders | None = None) -> None:
        if vocab.units.base != "bytes" or vocab.units.marked:
            raise ConfigError("whole-piece lookup is for the bytes base without marks")
        super().__init__(vocab, borders=borders)
        self._rules_chunk = self.encode_chunk
        self.encode_chunk = self._encode_whole_first
        self._by_bytes: dict[bytes, int] | None = None  # every token's bytes -> its first id

    def all_rebuild_themselves(self) -> None:
        """Record what a loader found: every token is what the merges make of its own bytes
        (:meth:`self_encodes` of each, so :meth:`judge_all` need not run). With no whole pieces
        the lookup then gives what merging gives (a chunk that is a token's bytes merges into
        that token, and no two tokens share bytes, since merging gives one of them), so new
        chunks go straight to the merges: in C on the compiled path."""
        self.known[:] = b"\x01" * len(self.known)
        self.judged = True
        if not self.vocab.whole_pieces:
            self.encode_chunk = self._rules_chunk

    def whole_piece(self, chunk: bytes) -> int | None:
        """The token whose bytes are all of ``chunk`` (the first id of those bytes), or None."""
        return self.by_bytes().get(chunk)

    def by_bytes(self) -> dict[bytes, int]:
        """Every token's bytes and every whole piece's -> its (first) id, made at first use."""
        table = self._by_bytes
        if table is None:
            pieces, whole = self.vocab.pieces, self.vocab.whole_pieces
            table = self._by_bytes = dict(zip(whole, range(len(pieces), len(pieces) + len(whole))))
            table.update(zip(reversed(pieces), range(len(pieces) - 1, -1, -1)))
        return table

    def _encode_whole_first(self, chunk: str) -> list[int]:
        token = self.by_bytes().get(chunk.encode("utf-8", "surrogateescape"))
        if token is not None:
            return [token]
        return self._rules_chunk(chunk)

    def trace_start(self, units: list[int]) -> list[int]:
        """A chunk that is a whole token starts as it (no rule fires in it)."""
        token = self.whole_piece(bytes(units))
        return units if token is None else [token]

    def whole_kept(self, steps: int) -> list[int]:
        """Unranked whole pieces belong to the whole vocabulary: kept only at its end."""
        return list(range(len(self.vocab.whole_pieces))) if steps >= len(self.vocab.merges) else []

    def cut(self, vocab: Vocabulary, steps: int, kept: list[int]) -> WholeFirst:
        return WholeFirst(vocab, borders=self.borders)


class RankMerging(WholeFirst):
    """Whole pieces first, then tiktoken's merging by rank (see the module doc). ``whole_ranks``
    gives each whole piece how many merges rank below it. ``ranked_from``: the model of a
    longer vocabulary whose rank order this one's is the start of (a replay's step)."""

    def __init__(self, vocab: Vocabulary, whole_ranks: Sequence[int], *,
                 borders: MakeBorders | None = None, ranked_from: RankMerging | None = None) -> None:
        ranks = list(whole_ranks)
        merges = len(vocab.merges)
        if len(ranks) != len(vocab.whole_pieces) or not all(type(r) is int and 0 <= r <= merges for r in ranks):
            raise ConfigError("whole_ranks gives each whole piece how many merges rank below it")
        super().__init__(vocab, borders=borders)
        self.whole_ranks = ranks
        self._order: dict[bytes, int] | None = None  # each token's bytes -> its rank
        #: the length of the order before merge j's token joins it, for each j (and at the end):
        #: a model ranked from this one cuts its order there
        self._order_length_before: array[int] | None = None
        self.ranked_from = ranked_from
        self._analysed: Any = None  # rank_analysis(), made at first need
        self._rank_ids: RankIds | None = None

    def _encode_whole_first(self, chunk: str) -> list[int]:
        key = chunk.encode("utf-8", "surrogateescape")
        token = self.by_bytes().get(key)
        if token is not None:
            return [token]
        return self.rank_ids()(key)

    def all_rebuild_themselves(self) -> None:
        self.known[:] = b"\x01" * len(self.known)
        self.judged = True  # (chunks still merge by rank: the whole pieces rank among the merges)

    def order(self) -> dict[bytes, int]:
        """Every token of two bytes or more -> its rank, the whole pieces among the merges as
        ``whole_ranks`` places them (for tiktoken's merging). A model ranked from a longer one
        cuts that one's: the same loop stopped before its last merge's token would have made
        the same entries in the same order."""
        if self._order is None:
            longer = self.ranked_from
            if longer is not None:
                whole = longer.order()
                assert longer._order_length_before is not None
                self._order = dict(islice(whole.items(), longer._order_length_before[len(self.vocab.merges)]))
                return self._order
            vocab = self.vocab
            order: dict[bytes, int] = {}
            length_before = array("q")
            ranks = self.whole_ranks
            places = sorted(range(len(ranks)), key=lambda k: (ranks[k], k))
            at = 0
            for j in range(len(vocab.merges) + 1):
                while at < len(places) and ranks[places[at]] <= j:
                    order.setdefault(vocab.whole_pieces[places[at]], len(order))
                    at += 1
                length_before.append(len(order))
                if j < len(vocab.merges):
                    order.setdefault(vocab.pieces[vocab.base_size + j], len(order))
            self._order_length_before = length_before  # (first: a model ranked from this one reads both)
            self._order = order
        return self._order

    def rank_analysis(self) -> Any:
        """:func:`engine.native.chars_first.chars_first_analysis` of :meth:`order` (made once), which the
        models ranked from this one take as theirs."""
        if self._analysed is None:
            self._analysed = chars_first_analysis(self.order())
        return self._analysed

    def rank_ids(self) -> RankIds:
        """tiktoken's merging by :meth:`order`, to ids (made at first use)."""
        if self._rank_ids is None:
            source = self.ranked_from if self.ranked_from is not None else self
            self._rank_ids = backend().rank_ids(self.order(), self.by_bytes(), source.rank_analysis)
        return self._rank_ids

    def rank_tables(self) -> tuple[RankIds, dict[bytes, int]]:
        return self.rank_ids(), self.by_bytes()

    def trace_start(self, units: list[int]) -> list[int]:
        """A whole token starts as it; merged by rank, where the rules would differ, its result."""
        token = self.whole_piece(bytes(units))
        if token is not None:
            return [token]
        ids = self.rank_ids()(bytes(units))
        return ids if ids != self.merge_ids(list(units)) else units

    def whole_kept(self, steps: int) -> list[int]:
        """The whole pieces ranked below step ``steps``."""
        return [i for i, below in enumerate(self.whole_ranks) if below <= steps]

    def cut(self, vocab: Vocabulary, steps: int, kept: list[int]) -> RankMerging:
        return RankMerging(vocab, [self.whole_ranks[i] for i in kept], borders=self.borders,
                           ranked_from=self.ranked_from or self)


class ScoreMerging(MergeRules):
    """SentencePiece's merging by score (see the module doc): ``text_ranks`` gives each merge's
    token its rank (0 the best score); the merges are then one way each token is built, for the
    replay and the trace. The chars base only."""

    def __init__(self, vocab: Vocabulary, text_ranks: Sequence[int]) -> None:
        if vocab.units.alphabet is None or vocab.units.marked:
            raise ConfigError("merging by text (SentencePiece's) is for the chars base without marks")
        ranks = list(text_ranks)
        if len(ranks) != len(vocab.merges) or not all(type(r) is int and r >= 0 for r in ranks):
            raise ConfigError("text_ranks gives each merge a rank (a whole number)")
        super().__init__(vocab)
        self.text_ranks = ranks
        self._text_order: tuple[dict[str, int], dict[str, int]] | None = None  # text -> rank, id
        self.encode_chunk = self._encode_by_text

    def _encode_by_text(self, chunk: str) -> list[int]:
        """Merge ``chunk`` by the rank of joined text: sentencepiece's BPE."""
        vocab = self.vocab
        if self._text_order is None:
            order: dict[str, int] = {}
            ids: dict[str, int] = {}
            for k, rank in enumerate(self.text_ranks):
                text = vocab.pieces[vocab.base_size + k].decode("utf-8", "surrogateescape")
                ids.setdefault(text, vocab.base_size + k)
                order[text] = min(rank, order.get(text, rank))
            self._text_order = order, ids
        order, ids = self._text_order
        out: list[int] = []
        units = vocab.units
        for part in rank_merge(chunk, order):  # type: ignore[arg-type]  # str works as bytes do
            token = ids.get(part)  # type: ignore[call-overload]
            if token is not None:
                out.append(token)
            elif units.byte_fallback:
                out.extend(units.ids(part))  # type: ignore[arg-type]  # one character, maybe its bytes
            else:
                token = units.char_ids.get(part, 0)  # type: ignore[call-overload]
                if token or not out or out[-1]:  # unknown characters in a row are one unknown token
                    out.append(token)
        return out

    def trace_start(self, units: list[int]) -> list[int]:
        """Merged by text: where the rules would differ, its result."""
        data = b"".join(self.vocab.pieces[i] for i in units)
        ids = self._encode_by_text(data.decode("utf-8", "surrogateescape"))
        return ids if ids != self.merge_ids(list(units)) else units

    def cut(self, vocab: Vocabulary, steps: int, kept: list[int]) -> ScoreMerging:
        return ScoreMerging(vocab, self.text_ranks[:steps])
