"""How :class:`~engine.encode.tokenizer.Tokenizer` encodes one chunk, family by family: merging by
joined text (SentencePiece), through the merges always (an end-of-word suffix or a subword
prefix), a table of whole tokens that encode to themselves (bpe-lab's and HuggingFace's own),
and whole pieces first with merging by rank (tiktoken's rank files). A mixin: the state it reads
is the tokenizer's (moved out of engine/encode/tokenizer.py)."""

from __future__ import annotations

from array import array
from itertools import islice
from typing import Any

from engine.encode.pairs import SHIFT
from engine.encode.tiktoken_merge import analyse, rank_merge
from engine.native import RankIds, backend
from engine.text.pretokenize import SCAN_MODES

#: The compiled whole-text encoder keeps at most this many chunks (then starts again): about
#: 60 bytes a chunk, and 4 per character and per id.
_KEPT_LIMIT = 1 << 19


class ChunkEncoders:
    """The chunk encoders of :class:`~engine.encode.tokenizer.Tokenizer` (see the module doc)."""

    # the tokenizer's state these methods read (set by Tokenizer.__init__)
    alphabet: list[str] | None
    pieces: list[bytes]
    merges: list[tuple[int, int]]
    base_size: int
    whole_pieces: list[bytes]
    whole_ranks: list[int] | None
    whole_first: bool
    byte_fallback: bool
    text_ranks: list[int] | None
    _char_ids: dict[str, int]
    _ranks: dict[int, int]
    _left_of: list[int]
    _right_of: list[int]
    _known: bytearray
    _judged: bool
    _whole: dict[Any, int] | None
    _before_whole: int
    _by_bytes: dict[bytes, int] | None
    _order: dict[bytes, int] | None
    _rank_marks: Any
    _ranked_from: Any
    _analysed: Any
    _rank_merge: Any
    _text_order: tuple[dict[str, int], dict[str, int]] | None
    _merge_chunk: Any
    _merge_bytes: Any
    _encode_chunk: Any
    _base_ids: Any  # Tokenizer's method
    _cache: Any
    _coder: Any
    pretokenizer: Any

    def _all_rebuild_themselves(self) -> None:
        """Record what a loader found: every token is what the merges make of its own bytes
        (:meth:`_self_encodes` of each, so :meth:`_judge_all` need not run). With no whole
        pieces and no merging by rank, the whole-piece lookup of ``whole_first`` then gives
        what merging gives (a chunk that is a token's bytes merges into that token, and no two
        tokens share bytes, since merging gives one of them), so new chunks go straight to the
        merges: in C on the compiled path."""
        self._known[:] = b"\x01" * len(self._known)
        self._judged = True
        if self.whole_first and not self.whole_pieces and self.whole_ranks is None:
            self._cache._encode = self._encode_chunk

    def _text_coder(self) -> Any:
        """The compiled core's whole-text encoder for this tokenizer (made at first use), or None:
        on the pure path, and for a pre-tokenizer other than plain gpt2, gpt4 or o200k (or
        another spelling of them: ``PreTokenizer.scan``; no digit or newline splitting, not line by line).
        New chunks are encoded as the chunk cache would."""
        coder = self._coder
        if coder is None:
            pre = self.pretokenizer
            made = None
            if pre.scan in SCAN_MODES and not (pre.per_line or pre.split_digits or pre.split_newlines):
                made = backend().text_coder(lambda text, start, end: pre._regex().findall(text, start, end),
                                        SCAN_MODES[pre.scan], self._cache._encode, len(self.pieces), _KEPT_LIMIT,
                                        self._by_rank())
            coder = self._coder = made if made is not None else False
        return coder or None

    def _by_rank(self) -> tuple[RankIds, dict[bytes, int]] | None:
        """When new chunks go to :meth:`_encode_whole_first` merging by rank: its merger and its
        whole-piece table (for the compiled core's whole-text encoder to do the same in C)."""
        if self._cache._encode != self._encode_whole_first or self.whole_ranks is None:
            return None
        return self._rank_ids(), self._by_bytes_table()

    def _rank_ids(self) -> RankIds:
        """tiktoken's merging by :meth:`_rank_order`, to ids (made at first use)."""
        if self._rank_merge is None:
            source = self._ranked_from if self._ranked_from is not None else self
            self._rank_merge = backend().rank_ids(self._rank_order(), self._by_bytes_table(), source._rank_analysis)
        return self._rank_merge

    def _rank_analysis(self) -> Any:
        """:func:`engine.encode.tiktoken_merge.analyse` of :meth:`_rank_order` (made once), which the
        tokenizers ranked from this one take as theirs (see ``_cut_from``)."""
        if self._analysed is None:
            self._analysed = analyse(self._rank_order())
        return self._analysed

    def _encode_by_text(self, chunk: str) -> list[int]:
        """Merge ``chunk`` by the rank of joined text (``text_ranks``): sentencepiece's BPE."""
        if self._text_order is None:
            order: dict[str, int] = {}
            ids: dict[str, int] = {}
            for k, rank in enumerate(self.text_ranks or ()):
                text = self.pieces[self.base_size + k].decode("utf-8", "surrogateescape")
                ids.setdefault(text, self.base_size + k)
                order[text] = min(rank, order.get(text, rank))
            self._text_order = order, ids
        order, ids = self._text_order
        out: list[int] = []
        for part in rank_merge(chunk, order):  # type: ignore[arg-type]  # str works as bytes do
            token = ids.get(part)  # type: ignore[call-overload]
            if token is not None:
                out.append(token)
            elif self.byte_fallback:
                out.extend(self._base_ids(part))  # type: ignore[arg-type]  # one character, maybe its bytes
            else:
                token = self._char_ids.get(part, 0)  # type: ignore[call-overload]
                if token or not out or out[-1]:  # unknown characters in a row are one unknown token
                    out.append(token)
        return out

    def _encode_marked(self, chunk: str) -> list[int]:
        """Encode one chunk of an ``end_of_word`` tokenizer: always through the merges."""
        return self._merge_chunk(self._base_ids(chunk))

    def _encode_new(self, chunk: str) -> list[int]:
        """Encode one chunk, not from the cache: a chunk whose bytes are a token that encodes to
        itself is that token (one lookup: the usual case for a trained tokenizer's corpus);
        anything else goes through the merges (:meth:`engine.native.door.Backend.chunk_encoders`)."""
        whole = self._whole
        if whole is None:
            if self._before_whole > 0:  # a few chunks (bpe-lab encode "hi") cost less than the table
                self._before_whole -= 1
                return self._merge_chunk(self._base_ids(chunk))
            whole = self._whole = self._whole_table()
        if self.alphabet is None:  # the bytes base: a chunk's bytes are its base ids
            data = chunk.encode("utf-8", "surrogateescape")
            token = whole.get(data)
            if token is not None and (self._known[token] == 1 or self._self_encodes(token)):
                return [token]  # the usual case, in short
            return self._merge_bytes(chunk, data)
        if whole:
            token = whole.get(chunk)
            if token is not None and (self._known[token] == 1 or self._self_encodes(token)):
                return [token]
        return self._merge_chunk(self._base_ids(chunk))

    def normalize(self, text: str) -> str:
        """``text`` as the normalizer makes it (unchanged without one): what is split and merged.
        Special tokens are found before it, so call it on the text between them."""
        return self.normalizer(text) if self.normalizer is not None else text

    def whole_piece(self, chunk: bytes) -> int | None:
        """With ``whole_first``: the token whose bytes are all of ``chunk`` (the first id of
        those bytes), which the chunk encodes to without merging; else None."""
        if not self.whole_first:
            return None
        return self._by_bytes_table().get(chunk)

    def _by_bytes_table(self) -> dict[bytes, int]:
        """Every token's bytes and every whole piece's -> its (first) id, made at first use."""
        table = self._by_bytes
        if table is None:
            table = self._by_bytes = dict(zip(self.whole_pieces, range(len(self.pieces), len(self.pieces) + len(self.whole_pieces))))
            table.update(zip(reversed(self.pieces), range(len(self.pieces) - 1, -1, -1)))
        return table

    def _encode_whole_first(self, chunk: str) -> list[int]:
        """A chunk that is a whole token is that token (``whole_first``); any other is merged."""
        key = chunk.encode("utf-8", "surrogateescape")
        token = self.whole_piece(key)
        if token is not None:
            return [token]
        if self.whole_ranks is None:
            return self._encode_chunk(chunk)
        return self._rank_ids()(key)

    def _rank_order(self) -> dict[bytes, int]:
        """Every token of two bytes or more -> its rank, the whole pieces among the merges as
        ``whole_ranks`` places them (for tiktoken's merging). A tokenizer ``_ranked_from`` a longer
        one (a replay's step) cuts that one's: the same loop stopped before its last merge's
        token would have made the same entries in the same order."""
        if self._order is None:
            longer = self._ranked_from
            if longer is not None:
                whole = longer._rank_order()
                self._order = dict(islice(whole.items(), longer._rank_marks[len(self.merges)]))
                return self._order
            order: dict[bytes, int] = {}
            marks = array("q")
            ranks = self.whole_ranks or []
            places = sorted(range(len(ranks)), key=lambda k: (ranks[k], k))
            at = 0
            for j in range(len(self.merges) + 1):
                while at < len(places) and ranks[places[at]] <= j:
                    order.setdefault(self.whole_pieces[places[at]], len(order))
                    at += 1
                marks.append(len(order))
                if j < len(self.merges):
                    order.setdefault(self.pieces[self.base_size + j], len(order))
            self._rank_marks = marks  # (first: a tokenizer ranked from this one reads both)
            self._order = order
        return self._order

    def _whole_table(self) -> dict[Any, int]:
        """Each token's bytes (bytes base) or text (chars base) -> a token id with them.

        The chars base keys by text, not bytes: with surrogate escapes in the alphabet, two
        texts can share their bytes. The table is empty when the alphabet repeats a character
        or holds more than one in an entry: a chunk's base ids then need not be its token's."""
        if self.alphabet is None:
            return dict(zip(self.pieces, range(len(self.pieces))))
        if len(self._char_ids) != len(self.alphabet) or any(len(c) != 1 for c in self.alphabet):
            return {}
        texts = list(self.alphabet)
        for a, b in self.merges:
            texts.append(texts[a] + texts[b])
        return dict(zip(texts, range(len(texts))))

    def _apart(self, left: int, right: int, end: int) -> bool:
        """Whether tokens ``left`` and ``right``, side by side and each built on its own (each
        encodes to itself), are never joined by a merge before step ``end``.

        The tokens next to the border are left's right spine (left, its right part, that one's
        right part, ...) and right's left spine; spine token x exists from step x until its
        parent is made. A pair (L, R) of them whose merge r comes before both are replaced would
        fire at step r (also when r makes R's parent: R and its sibling are then copies of L,
        and the pair across the border, further left, goes first). The walk visits every pair
        ever side by side, replacing the later-made one each time.
        """
        left_of, right_of, get = self._left_of, self._right_of, self._ranks.get
        end_left = end_right = end
        while True:
            r = get(left << SHIFT | right)
            if r is not None and r < end_left and r <= end_right:
                return False
            if left >= right:
                part = right_of[left]
                if part < 0:
                    return True  # both down to base tokens
                end_left, left = left, part
            else:
                part = left_of[right]
                if part < 0:
                    return True
                end_right, right = right, part

    def _self_encodes(self, token: int) -> bool:
        """Whether encoding the bytes of ``token`` gives ``[token]`` (memoized per token).

        Token t, made by merge (a, b), encodes to itself when a and b do and stay apart until
        step t (:meth:`_apart`): merges fire in rank order, so the halves grow independently
        until one joins them, and then t joins the two.
        """
        known = self._known
        if known[token]:
            return known[token] == 1
        left_of, right_of, apart = self._left_of, self._right_of, self._apart
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
            known[t] = 1 if apart(a, b, t) else 2
        return known[token] == 1

    def _judge_all(self) -> None:
        """:meth:`_self_encodes` for every token at once, in id order: each token's parts are
        judged before it (they are made before it), so no stack is needed (a third of the cost
        per token; for a text that meets most of the vocabulary)."""
        known, left_of, right_of, get = self._known, self._left_of, self._right_of, self._ranks.get
        for t in range(self.base_size, len(self.pieces)):
            if known[t]:
                continue
            a = left_of[t]
            b = right_of[t]
            if known[a] != 1 or known[b] != 1:
                known[t] = 2
                continue
            # _apart(a, b, t), inlined: a call per token is a sixth of this loop's time over a
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
        self._judged = True
