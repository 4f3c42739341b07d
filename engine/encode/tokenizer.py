"""The tokenizer a training run produces: merges (+ alphabet) (+ specials) (+ pre-tokenizer),
and reading and writing its native file (versioned JSON: the structure and its checks are in
:mod:`engine.encode.lab_file`).
"""

from __future__ import annotations

import gc
import json
import re
from collections.abc import Callable, Iterable, Sequence
from itertools import chain
from pathlib import Path
from typing import Any

from engine.config import MAX_VOCAB, TrainConfig, special_text_problem
from engine.corpus.files import atomic_write_text, parse_json, read_file
from engine.encode import apply_merges as _codec
from engine.encode import lab_file as _nativefile
from engine.encode.models import ChunkEncoders
from engine.encode.pairs import SHIFT
from engine.encode.parts import (
    _ALTERNATION_LIMIT,
    _by_text_options,
    _marked_base,
    _prefixed_base,
    _SpecialFinder,
    _whole_pieces,
    _whole_ranks,
    unmark,
)
from engine.encode.trace import Traces
from engine.encode.vocab import TokenizerMerges
from engine.errors import ConfigError, TokenIdError, TokenizerFileError
from engine.native import RankIds, backend
from engine.text.normalize import Normalizer
from engine.text.pretokenize import PreTokenizer

#: The chunk cache's generation size (_ChunkCache).
_CACHE_LIMIT = 200_000
#: encode_ordinary judges every token's self-encoding at once (Tokenizer._judge_all) for a text
#: of at least this many chunks a token.
_JUDGE_ALL_CHUNKS = 8
#: encode_ordinary pauses the cyclic garbage collector for texts of at least this many chunks.
_PAUSE_GC_CHUNKS = 1 << 14
#: The first this many distinct chunks a tokenizer encodes go through the merges, before the
#: table of whole tokens is built (for a few chunks, bpe-lab encode "hi", the table costs more).
_BEFORE_WHOLE = 16
#: encode_ordinary hands texts of at least this many characters to the compiled core's whole-text
#: encoder (engine.native.door.Backend.text_coder), when it is there.
_TEXT_CODER_MIN = 64



class _ChunkCache(dict):
    """Chunk -> its ids; a chunk not in it yet is encoded (``encode``) and kept. Bounded, in two
    generations: when the current one holds :data:`_CACHE_LIMIT` chunks it becomes the old one
    (the one before is dropped) and a new one starts; a chunk found in the old generation moves
    to the current one without being encoded again. So the chunks met since the last turn-over
    are always kept, and the cache never holds more than twice the limit (ids already handed
    out stay valid). The dict itself is the current generation: a hit is one C-level lookup."""

    def __init__(self, encode: Callable[[str], list[int]]) -> None:
        super().__init__()
        self._encode = encode
        self._old: dict[str, list[int]] = {}

    def __missing__(self, chunk: str) -> list[int]:
        if len(self) >= _CACHE_LIMIT:
            self._old = dict(self)
            self.clear()
        ids = self._old.get(chunk)
        if ids is None:
            ids = self._encode(chunk)
        self[chunk] = ids
        return ids




class Tokenizer(ChunkEncoders, TokenizerMerges, Traces):
    """Encode and decode with learned merges, applied in the order they were learned.

    Example: ``Tokenizer(merges=[(104, 105)]).encode("hi hi") -> [256, 32, 256]``

    ``base`` is ``bytes`` (ids 0-255 are bytes) or ``chars`` (``alphabet`` gives the base ids;
    id 0 stands for any character not in it). Merge k makes id ``base size + k``; specials come
    after the last merge, in the order given.

    ``whole_first`` (bytes base) looks each chunk up as a whole token before merging, as tiktoken
    does and HuggingFace's ``ignore_merges``: a chunk whose bytes are a token is that token.
    ``whole_pieces`` are tokens no merge makes, which only that lookup gives (Llama 3's rank file
    has 695); their ids follow the merges, and the specials follow them. ``whole_ranks`` (one per
    whole piece: how many merges rank below it) switches a chunk that is not a token to
    tiktoken's merging by rank (:mod:`engine.encode.tiktoken_merge`), for rank files whose whole pieces
    tiktoken also builds inside longer pieces, which merge rules cannot. ``normalizer``
    (:mod:`engine.text.normalize`) changes the text between special tokens before it is split.

    SentencePiece's BPE (chars base, :mod:`engine.formats.sentencepiece`): ``byte_fallback``
    says ``alphabet[1 + b]`` stands for byte b (``chr(b)``, or ``chr(0xDC00 + b)`` from 128 on,
    the surrogate escape of the byte), and a character outside the alphabet encodes as the ids of
    its UTF-8 bytes instead of id 0. ``text_ranks`` (one per merge) switches chunks to merging
    by text: join the adjacent pair whose joined text is the token of the lowest rank (the
    leftmost of equal ranks), as sentencepiece does with its pieces' scores; the merges are then
    one way each token is built, for the replay and the trace. Without byte fallback, unknown
    characters in a row are then one unknown token (id 0), as sentencepiece and ``fuse_unk`` make them.
    ``end_of_word`` (a suffix such as ``"</w>"``: CLIP, subword-nmt) ends every chunk with a
    marked base token: the base holds each base token plain, then again with the suffix (bytes
    base: ids 0-255 the bytes, 256-511 the bytes ending a word, merges from 512), and a chunk's
    last unit is its marked twin. Decoding drops the suffix where the pre-tokenizer keeps every
    character (a named one: the chunks hold the spaces), and else makes it a space between words
    (none before whitespace or at the end), as CLIP and HuggingFace's ``BPEDecoder`` do.
    ``subword_prefix`` (such as ``"##"``: HuggingFace's ``continuing_subword_prefix``) marks
    every unit of a chunk but the first: the base holds each base token plain, then again with
    the prefix (bytes base: 256-511 are ``##`` and a byte), and a merge's token is its left
    part's bytes joined to its right part's without the prefix (``a`` + ``##b`` = ``ab``,
    ``##a`` + ``##b`` = ``##ab``), as tokenizers builds it. A token continues a word when its
    left-most unit does; a merge's right part always does. With a suffix too the base is four
    blocks (``b``, ``##b``, ``b</w>``, ``##b</w>``). Decoding drops the prefix, and where the
    pre-tokenizer drops characters (a custom pattern) puts a space before each token that starts
    a word (but the first), as HuggingFace's ``WordPiece`` decoder does.
    """

    def __init__(
        self,
        merges: Iterable[Sequence[int]] = (),
        *,
        base: str = "bytes",
        alphabet: Sequence[str] | None = None,
        specials: Sequence[str] = (),
        pretokenizer: PreTokenizer | None = None,
        config: TrainConfig | None = None,
        whole_first: bool = False,
        whole_pieces: Sequence[bytes] = (),
        whole_ranks: Sequence[int] | None = None,
        normalizer: Normalizer | None = None,
        byte_fallback: bool = False,
        text_ranks: Sequence[int] | None = None,
        end_of_word: str | None = None,
        subword_prefix: str | None = None,
        _pieces: list[bytes] | None = None,
        _parts: tuple[list[int], list[int]] | None = None,
        _cut_from: tuple[Tokenizer, int] | None = None,
    ) -> None:
        """``_pieces`` (internal: the file loaders) is every token's bytes, base tokens first, from
        a caller that checked each merge's token is its two parts joined; it spares building them.
        ``_parts`` (internal too) is the merges as a list of left and a list of right ids, in
        place of ``merges``. ``_cut_from`` (internal: a replay's step) is ``(longer, steps)``: this
        tokenizer is ``longer`` cut after its first ``steps`` merges (with the same base, and the
        whole pieces ranked among those), so its merges, tokens and ranks are cut from that
        one's, already checked, and not built again at each step; with ``whole_ranks``, so are
        its rank order and the analysis of its borders (see :meth:`_rank_order`)."""
        if base == "chars":
            if not alphabet:
                raise ConfigError("the chars base needs an alphabet")
            self.alphabet: list[str] | None = list(alphabet)
            self._char_ids = {c: i for i, c in enumerate(self.alphabet)}
            try:
                pieces = [c.encode("utf-8", "surrogateescape") for c in self.alphabet]
            except (UnicodeEncodeError, AttributeError):
                raise ConfigError("the alphabet holds something that is not a character with UTF-8 bytes") from None
        elif base == "bytes":
            self.alphabet = None
            pieces = [bytes([i]) for i in range(256)]
        else:
            raise ConfigError(f"unknown base {base!r} (choose bytes or chars)")
        whole = whole_first or bool(whole_pieces)
        self.subword_prefix, pieces = _prefixed_base(subword_prefix, pieces, whole)
        self.end_of_word, pieces = _marked_base(end_of_word, pieces, whole)
        #: prefix tokenizers: how many base tokens a block holds (a unit's prefixed twin is that
        #: many ids on), and per token whether it continues a word (its left-most unit is prefixed)
        self._block = 0
        self._continues: list[int] | None = None
        if self.subword_prefix is not None:
            block = self._block = len(pieces) // (2 if end_of_word is None else 4)
            self._continues = ([0] * block + [1] * block) * (1 if end_of_word is None else 2)
        self.base = base
        self.base_size = len(pieces)
        self.merges: list[tuple[int, int]] = []
        self._ranks: dict[int, int] = {}
        first = len(pieces)
        if _cut_from is not None:
            pieces, count = self._cut(*_cut_from, base)
        else:
            pieces, count = self._built(pieces, merges, _parts, _pieces)
        self.pieces = pieces
        self.whole_first, self.whole_pieces = _whole_pieces(base, whole_first, whole_pieces, len(pieces))
        self.whole_ranks = _whole_ranks(whole_ranks, self.whole_pieces, count)
        self._order: dict[bytes, int] | None = None  # whole_ranks: each token's bytes -> its rank
        self._rank_merge: RankIds | None = None  # whole_ranks: merging by _order, to ids
        #: whole_ranks: the tokenizer this one's rank order is the start of (see _cut_from)
        self._ranked_from = _cut_from[0] if _cut_from is not None and whole_ranks is not None else None
        #: whole_ranks: the length of _order before merge j's token joins it, for each j (and at
        #: the end): a tokenizer ranked from this one cuts _order there
        self._rank_marks = None
        self._analysed = None  # whole_ranks: _rank_analysis(), made at first need
        first_special = len(pieces) + len(self.whole_pieces)
        self.specials: dict[str, int] = {}
        for token in specials:
            if not isinstance(token, str) or not token:
                raise ConfigError("a special token must be non-empty text")
            if token in self.specials:
                raise ConfigError(f"special token {token!r} is given twice")
            problem = special_text_problem(token)  # decode and every file write it as UTF-8
            if problem:
                raise ConfigError(problem)
            self.specials[token] = first_special + len(self.specials)
        if first_special + len(self.specials) > MAX_VOCAB:
            raise ConfigError(
                f"too many tokens: {len(pieces)} base tokens and merges and {len(self.specials)} specials (at most {MAX_VOCAB})"
            )
        self._special_of = {i: t for t, i in self.specials.items()}
        self._special_re: Any = None
        if len(self.specials) > _ALTERNATION_LIMIT:
            self._special_re = _SpecialFinder(self.specials)
        elif self.specials:
            self._special_re = re.compile("|".join(re.escape(t) for t in sorted(self.specials, key=len, reverse=True)))
        self.pretokenizer = pretokenizer or PreTokenizer("none")
        self.normalizer = normalizer
        self.config = config
        #: One chunk's base ids -> its ids (pure Python or the compiled core, see engine.native.door);
        #: with the compiled core, a bytes-base chunk's text goes to it whole (no table of
        #: whole tokens first: the compiled merges cost less than the lookups). A rank file's
        #: tokens that only a whole piece makes (``whole_first``) are looked up first.
        self._merge_chunk: Callable[[list[int]], list[int]]
        #: The borders of this vocabulary's tokens (engine.encode.apply_merges.Borders), made at first need
        #: and shared with the tokenizers cut from this one (a replay's steps)
        self._border_table: _codec.Borders | None = None
        borders = _cut_from[0]._borders if _cut_from is not None and base == "bytes" else self._borders
        ranks = self._ranks
        native = backend()
        self._merge_chunk, by_text = native.chunk_encoders(ranks, self.pieces if base == "bytes" else None, borders)
        self._merge_bytes = native.bytes_merger(ranks, self.pieces, self._merge_chunk, borders)  # (the bytes base's, from its bytes)
        self._by_text = by_text is not None and base == "bytes" and end_of_word is None and subword_prefix is None
        self._encode_chunk = by_text if self._by_text else self._encode_new
        self.byte_fallback, self.text_ranks = _by_text_options(self.alphabet, byte_fallback, text_ranks, count)
        self._text_order: tuple[dict[str, int], dict[str, int]] | None = None  # text_ranks: text -> rank, id
        if self.text_ranks is not None:
            self._encode_chunk = self._encode_by_text
        if end_of_word is not None or subword_prefix is not None:  # a token's bytes are not its chunk's
            self._encode_chunk = self._encode_marked  # (no table of whole tokens)
        if end_of_word is not None and (self.byte_fallback or self.text_ranks is not None):
            raise ConfigError("an end-of-word suffix and SentencePiece's byte fallback or merging by text do not go together")
        if subword_prefix is not None and (self.byte_fallback or self.text_ranks is not None):
            raise ConfigError("a subword prefix and SentencePiece's byte fallback or merging by text do not go together")
        self._cache = _ChunkCache(self._encode_whole_first if self.whole_first else self._encode_chunk)
        self._by_bytes: dict[bytes, int] | None = None  # whole_first: every token's bytes -> its first id
        #: For the first encoding of a chunk: token bytes -> id (built once enough chunks were
        #: merged without it to pay for it), and per token whether it encodes to itself (0 not
        #: known yet, 1 yes, 2 no).
        self._whole: dict[Any, int] | None = None
        self._before_whole = _BEFORE_WHOLE
        self._judged = False  # every token's self-encoding known (_judge_all)
        self._known = bytearray(b"\x01") * first + bytearray(len(pieces) - first)  # base tokens: yes
        self._coder: Any = None if native.compiled else False  # _text_coder(), made at first use

    def _borders(self) -> _codec.Borders:
        """The borders of this vocabulary's tokens (made once: 60-90 ms for 200,000 tokens)."""
        table = self._border_table
        if table is None:
            table = self._border_table = _codec.Borders(self.pieces)
        return table

    def continues_word(self, token_id: int) -> bool:
        """Whether token ``token_id`` continues a word (a prefix tokenizer's ``##ab``: its
        bytes begin with the prefix, which decoding drops); False without a prefix."""
        continues = self._continues
        return continues is not None and 0 <= token_id < len(continues) and bool(continues[token_id])

    # -- sizes and lookups --------------------------------------------------------------------

    @property
    def vocab_size(self) -> int:
        """Bases + merges + whole pieces + specials."""
        return len(self.pieces) + len(self.whole_pieces) + len(self.specials)

    def token_bytes(self, token_id: int) -> bytes:
        """The bytes of a token (a special's text as UTF-8)."""
        if 0 <= token_id < len(self.pieces):
            return self.pieces[token_id]
        if 0 <= token_id - len(self.pieces) < len(self.whole_pieces):
            return self.whole_pieces[token_id - len(self.pieces)]
        if token_id in self._special_of:
            return self._special_of[token_id].encode("utf-8")
        raise TokenIdError(f"token id {token_id} is out of range (vocabulary size {self.vocab_size})")

    def rank(self, pair: tuple[int, int]) -> int | None:
        """The id a merge of ``pair`` makes, or None when no merge rule covers it."""
        return self._ranks.get(pair[0] << SHIFT | pair[1])

    # -- encoding -----------------------------------------------------------------------------

    def _base_ids(self, chunk: str) -> list[int]:
        if self.alphabet is None:
            ids = list(chunk.encode("utf-8", "surrogateescape"))
        else:
            get = self._char_ids.get
            if not self.byte_fallback:
                ids = [get(c, 0) for c in chunk]
            else:
                ids = [get(c, -1) for c in chunk]
                if -1 in ids:  # byte fallback: a character outside the alphabet is its bytes' ids
                    out: list[int] = []
                    for c, i in zip(chunk, ids):
                        if i < 0:
                            out.extend(1 + b for b in c.encode("utf-8", "surrogateescape"))
                        else:
                            out.append(i)
                    ids = out
        if self.subword_prefix is not None and len(ids) > 1:
            block = self._block  # every unit but the first continues the word: its prefixed twin
            if self.alphabet is None:
                ids[1:] = [i + block for i in ids[1:]]
            else:  # (a character outside the alphabet stays id 0, as tokenizers' unk_token)
                get = self._char_ids.get
                ids[1:] = [0 if get(c) is None else i + block for c, i in zip(chunk[1:], ids[1:])]
        if self.end_of_word is not None and ids and not (ids[-1] == 0 and self._block and self.alphabet is not None
                                                         and chunk[-1] not in self._char_ids):
            ids[-1] += self.base_size // 2  # the chunk's last unit ends a word: its marked twin
        return ids


    def encode_chunk(self, chunk: str) -> list[int]:
        """Encode one pre-tokenized chunk (cached)."""
        return self._cache[chunk]

    def encode_ordinary(self, text: str) -> list[int]:
        """Encode ``text`` treating special-token strings as plain text."""
        if self.normalizer is not None:
            text = self.normalizer(text)
        if len(text) >= _TEXT_CODER_MIN and (coder := self._text_coder()) is not None:
            if not self._judged and not self._by_text and len(text) >= 4 * _JUDGE_ALL_CHUNKS * len(self.pieces):
                self._judge_all()  # (a chunk is about four characters of code or prose)
            return coder.encode(text)  # split and chunk cache in C (gpt2 and gpt4, compiled)
        # One C-level loop over the chunks; only a chunk not seen before calls back into
        # Python (the cache's __missing__), once per distinct chunk.
        chunks = self.pretokenizer.split(text)
        if not self._judged and not self._by_text and len(chunks) >= _JUDGE_ALL_CHUNKS * len(self.pieces):
            self._judge_all()  # a long text meets most tokens: judging them all in order is cheaper
        if len(chunks) < _PAUSE_GC_CHUNKS or not gc.isenabled():
            return list(chain.from_iterable(map(self._cache.__getitem__, chunks)))
        # A long text's new chunks make thousands of id lists and no reference cycles: the cyclic
        # collector would only walk them, and the list of chunks, again and again (5% of a cold
        # encode), so it waits, as it does while a file loads or a run trains.
        gc.disable()
        try:
            return list(chain.from_iterable(map(self._cache.__getitem__, chunks)))
        finally:
            gc.enable()

    def encode(self, text: str, *, specials: bool = True) -> list[int]:
        """Encode ``text``; special-token strings in it become their ids unless ``specials=False``.

        Example (seed 000): trained on "die katze und die kanne und die katze" to 270,
        ``encode("die katze") -> [259, 264, 101]``
        """
        if not specials or self._special_re is None:
            return self.encode_ordinary(text)
        out: list[int] = []
        start = 0
        for match in self._special_re.finditer(text):
            out.extend(self.encode_ordinary(text[start : match.start()]))
            out.append(self.specials[match.group(0)])
            start = match.end()
        out.extend(self.encode_ordinary(text[start:]))
        return out

    # -- decoding -----------------------------------------------------------------------------

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """The bytes the ids stand for, joined (specials as their text)."""
        pieces = self.pieces
        n = len(pieces)
        try:
            return b"".join([pieces[i] if 0 <= i < n else self.token_bytes(i) for i in ids])
        except TypeError:
            raise TokenIdError("token ids must be integers") from None

    def decode(self, ids: Iterable[int]) -> str:
        """Text of the ids; bytes that are not valid UTF-8 become U+FFFD.

        For the chars base, id 0 decodes to U+FFFD, the stand-in for unknown characters.
        """
        if self.subword_prefix is not None:
            text = self._decode_prefixed(ids)
            if self.end_of_word is None:
                return text
        elif self.end_of_word is None:
            return self.decode_bytes(ids).decode("utf-8", "replace")
        else:
            text = self.decode_bytes(ids).decode("utf-8", "replace")
        assert self.end_of_word is not None
        if self.pretokenizer.name != "custom":  # the chunks hold every character: the suffix is only a mark
            return text.replace(self.end_of_word, "")
        return unmark(text, self.end_of_word)

    def _decode_prefixed(self, ids: Iterable[int]) -> str:
        """Text of the ids of a prefix tokenizer: each token that continues a word without its
        prefix; where the pre-tokenizer drops characters (custom, no suffix), a space before
        each token that starts one, but the first (HuggingFace's ``WordPiece`` decoder)."""
        pieces, continues = self.pieces, self._continues
        assert continues is not None and self.subword_prefix is not None
        cut = len(self.subword_prefix.encode("utf-8"))
        spaced = self.end_of_word is None and self.pretokenizer.name == "custom"
        n = len(pieces)
        out: list[bytes] = []
        try:
            for i in ids:
                if 0 <= i < n and continues[i]:
                    out.append(pieces[i][cut:])
                    continue
                if spaced and out:
                    out.append(b" ")
                out.append(pieces[i] if 0 <= i < n else self.token_bytes(i))
        except TypeError:
            raise TokenIdError("token ids must be integers") from None
        return b"".join(out).decode("utf-8", "replace")

    # -- files --------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The versioned native JSON structure (see the module doc)."""
        return tokenizer_to_dict(self)

    def save(self, path: str | Path) -> None:
        """Write the native JSON format atomically (temp file + rename)."""
        save_tokenizer(self, path)

    @classmethod
    def load(cls, path: str | Path) -> Tokenizer:
        """Read a tokenizer written by :meth:`save`; bad files raise ``TokenizerFileError`` (a
        ``ValueError``)."""
        return load_tokenizer(path)


# -- the native file format ------------------------------------------------------------------


def tokenizer_to_dict(tok: Tokenizer) -> dict[str, Any]:
    """The native JSON structure of a tokenizer (:mod:`engine.encode.lab_file`)."""
    return _nativefile.to_dict(tok)


def save_tokenizer(tok: Tokenizer, path: str | Path) -> None:
    """Write ``tok`` in the native format, atomically."""
    text = json.dumps(tokenizer_to_dict(tok), ensure_ascii=False, indent=None)
    atomic_write_text(path, text + "\n")


def tokenizer_from_dict(data: Any) -> Tokenizer:
    """Build a tokenizer from the native structure; anything malformed raises ``ValueError``."""
    return Tokenizer(**_nativefile.fields(data))


def load_tokenizer(path: str | Path) -> Tokenizer:
    """Read a native tokenizer file; unreadable or malformed files raise ``TokenizerFileError``."""
    path = Path(path)
    raw = read_file(path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise TokenizerFileError(f"{path}: not a text file (invalid UTF-8)") from None
    data = parse_json(text, path)
    try:
        return tokenizer_from_dict(data)
    except ValueError as exc:
        raise TokenizerFileError(f"{path}: {exc}") from None
