"""The tokenizer: a composition, as in HuggingFace's ``tokenizers``. Text goes through

    specials found -> normalizer -> pre-tokenizer (chunks) -> model (each chunk's ids) ... decoder

- the **vocabulary** (:mod:`engine.encode.vocabulary`): base units and their ``##``/``</w>``
  marks, merges, whole pieces, specials: what each id stands for;
- the **model** (:mod:`engine.encode.models`): how a chunk becomes ids (merge rules; tiktoken's
  merging by rank, whole pieces first; SentencePiece's merging by score);
- the **decoder** (:mod:`engine.encode.decoders`): ids back to text (byte-level, end of word,
  subword prefix, byte fallback);
- the **normalizer** (:mod:`engine.text.normalize`) and **pre-tokenizer**
  (:mod:`engine.text.pretokenize`).

A SentencePiece model's user-defined pieces (``[REF]``) are specials of another kind: they are
found in the normalized text (each stretch between the other specials), as sentencepiece finds
them, so the text around them is normalized as one (its ``▁`` prefix once, not after each).

The named constructors give the combinations people use, and only those::

    Tokenizer(merges)                          # bpe-lab's own, GPT-2's, CLIP's (end_of_word), ...
    Tokenizer.from_ranks(merges, whole_pieces=..., whole_ranks=...)   # tiktoken's rank files
    Tokenizer.from_sentencepiece(merges, alphabet=..., text_ranks=..., byte_fallback=True)
    Tokenizer.compose(model, decoder=...)      # any parts: a new family is one model class

:meth:`Tokenizer.cut` is the tokenizer of a vocabulary's first merges (a replay's step), cut
from this one's checked lists, not built again. The native file's structure and its checks are
in :mod:`engine.encode.lab_file`.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain
from pathlib import Path
from typing import Any

from engine.config import TrainConfig
from engine.corpus.files import atomic_write_text, parse_json, read_file
from engine.encode import lab_file as _nativefile
from engine.encode.decoders import Decoder, decoder_for, join_bytes
from engine.encode.models import MergeRules, Model, RankMerging, ScoreMerging, WholeFirst
from engine.encode.trace import TRACE_LIMIT, TraceStep, trace
from engine.encode.vocabulary import BaseUnits, Finder, Vocabulary, special_finder
from engine.errors import TokenizerFileError
from engine.native import backend
from engine.text.normalize import Normalizer
from engine.text.pretokenize import SCAN_MODES, PreTokenizer

#: The chunk cache's generation size (_ChunkCache).
_CACHE_LIMIT = 200_000
#: encode_ordinary pauses the cyclic garbage collector for texts of at least this many chunks.
_PAUSE_GC_CHUNKS = 1 << 14
#: encode_ordinary hands texts of at least this many characters to the compiled core's whole-text
#: encoder (engine.native.door.Backend.text_coder), when it is there.
_TEXT_CODER_MIN = 64
#: The compiled whole-text encoder keeps at most this many chunks (then starts again): about
#: 60 bytes a chunk, and 4 per character and per id.
_KEPT_LIMIT = 1 << 19


class _ChunkCache(dict[str, list[int]]):
    """Chunk -> its ids; a chunk not in it yet is encoded (by the model) and kept. Bounded, in two
    generations: when the current one holds :data:`_CACHE_LIMIT` chunks it becomes the old one
    (the one before is dropped) and a new one starts; a chunk found in the old generation moves
    to the current one without being encoded again. So the chunks met since the last turn-over
    are always kept, and the cache never holds more than twice the limit (ids already handed
    out stay valid). The dict itself is the current generation: a hit is one C-level lookup."""

    def __init__(self, model: Model) -> None:
        super().__init__()
        self._model = model
        self._old_generation: dict[str, list[int]] = {}

    def __missing__(self, chunk: str) -> list[int]:
        if len(self) >= _CACHE_LIMIT:
            self._old_generation = dict(self)
            self.clear()
        ids = self._old_generation.get(chunk)
        if ids is None:
            ids = self._model.encode_chunk(chunk)
        self[chunk] = ids
        return ids


class Tokenizer:
    """Encode and decode with a vocabulary, a model and a decoder (see the module doc).

    Example: ``Tokenizer(merges=[(104, 105)]).encode("hi hi") -> [256, 32, 256]``

    ``Tokenizer(merges, ...)`` is the tokenizer of learned merges, applied in the order they
    were learned. ``base`` is ``bytes`` (ids 0-255 are bytes) or ``chars`` (``alphabet`` gives
    the base ids; id 0 stands for any character not in it). Merge k makes id ``base size + k``;
    specials come after the last merge, in the order given. ``end_of_word`` (a suffix such as
    ``"</w>"``: CLIP, subword-nmt) and ``subword_prefix`` (such as ``"##"``: HuggingFace's
    ``continuing_subword_prefix``) mark the base units (:class:`~engine.encode.vocabulary.BaseUnits`)
    and choose the decoder (:mod:`engine.encode.decoders`). ``normalizer``
    (:mod:`engine.text.normalize`) changes the text between special tokens before it is split.
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
        normalizer: Normalizer | None = None,
        end_of_word: str | None = None,
        subword_prefix: str | None = None,
    ) -> None:
        units = BaseUnits(base, alphabet, end_of_word=end_of_word, subword_prefix=subword_prefix)
        self._assemble(MergeRules(Vocabulary(units, merges, specials=specials)), None, pretokenizer, normalizer, config)

    # -- named constructors -------------------------------------------------------------------

    @classmethod
    def compose(cls, model: Model, *, decoder: Decoder | None = None, pretokenizer: PreTokenizer | None = None,
                normalizer: Normalizer | None = None, config: TrainConfig | None = None,
                user_defined: Iterable[str] = ()) -> Tokenizer:
        """A tokenizer of these parts; the vocabulary is the model's. Without a ``decoder``, the
        one the vocabulary's marks call for (:func:`engine.encode.decoders.decoder_for`).
        ``user_defined`` names the specials found in the normalized text (see the module doc)."""
        tok = cls.__new__(cls)
        tok._assemble(model, decoder, pretokenizer, normalizer, config, user_defined)
        return tok

    @classmethod
    def from_ranks(cls, merges: Iterable[Sequence[int]] = (), *, whole_pieces: Sequence[bytes] = (),
                   whole_ranks: Sequence[int] | None = None, specials: Sequence[str] = (),
                   pretokenizer: PreTokenizer | None = None, normalizer: Normalizer | None = None,
                   config: TrainConfig | None = None) -> Tokenizer:
        """A rank file's tokenizer (tiktoken's, HuggingFace's ``ignore_merges``): bytes base, each
        chunk looked up whole first, as tiktoken does: a chunk whose bytes are a token is that
        token. ``whole_pieces`` are tokens no merge makes, which only that lookup gives (Llama
        3's rank file has 695); their ids follow the merges, the specials follow them.
        ``whole_ranks`` (one per whole piece: how many merges rank below it) switches a chunk
        that is not a token to tiktoken's merging by rank (:class:`~engine.encode.models.RankMerging`),
        for rank files whose whole pieces tiktoken also builds inside longer pieces."""
        vocab = Vocabulary(BaseUnits(), merges, whole_pieces=whole_pieces, specials=specials)
        model = WholeFirst(vocab) if whole_ranks is None else RankMerging(vocab, whole_ranks)
        return cls.compose(model, pretokenizer=pretokenizer, normalizer=normalizer, config=config)

    @classmethod
    def from_sentencepiece(cls, merges: Iterable[Sequence[int]] = (), *, alphabet: Sequence[str],
                           text_ranks: Sequence[int] | None = None, byte_fallback: bool = False,
                           specials: Sequence[str] = (), pretokenizer: PreTokenizer | None = None,
                           normalizer: Normalizer | None = None, config: TrainConfig | None = None,
                           user_defined: Iterable[str] = ()) -> Tokenizer:
        """SentencePiece's BPE (chars base, :mod:`engine.formats.sentencepiece`): ``byte_fallback``
        says ``alphabet[1 + b]`` stands for byte b (:data:`~engine.encode.vocabulary.BYTE_CHARS`), and a
        character outside the alphabet encodes as the ids of its UTF-8 bytes instead of id 0.
        ``text_ranks`` (one per merge) switches chunks to merging by text
        (:class:`~engine.encode.models.ScoreMerging`): join the adjacent pair whose joined text is
        the token of the lowest rank, as sentencepiece does with its pieces' scores.
        ``user_defined`` (some of ``specials``) are the model's user-defined pieces, found in the
        normalized text."""
        units = BaseUnits("chars", alphabet, byte_fallback=byte_fallback)
        vocab = Vocabulary(units, merges, specials=specials)
        model = MergeRules(vocab) if text_ranks is None else ScoreMerging(vocab, text_ranks)
        return cls.compose(model, pretokenizer=pretokenizer, normalizer=normalizer, config=config,
                           user_defined=user_defined)

    def cut(self, steps: int, *, specials: Sequence[str] | None = None, pretokenizer: PreTokenizer | None = None,
            config: TrainConfig | None = None) -> Tokenizer:
        """This tokenizer after its first ``steps`` merges, as its file would encode there (a
        replay's step): the same units, model and normalizer, the whole pieces ranked below the
        step. Its tokens, ranks and (merging by rank) rank order and border tables are cut from
        this one's, already checked, not built again. ``specials``, ``pretokenizer`` and
        ``config`` replace this one's (a user-defined special given again stays one)."""
        kept = self.model.whole_kept(steps)
        vocab = self.vocab.cut(steps, whole_pieces=[self.vocab.whole_pieces[i] for i in kept], specials=specials)
        return Tokenizer.compose(self.model.cut(vocab, steps, kept),
                                 pretokenizer=pretokenizer if pretokenizer is not None else self.pretokenizer,
                                 normalizer=self.normalizer, config=config if config is not None else self.config,
                                 user_defined=[t for t in vocab.specials if t in self.user_defined])

    def _assemble(self, model: Model, decoder: Decoder | None, pretokenizer: PreTokenizer | None,
                  normalizer: Normalizer | None, config: TrainConfig | None, user_defined: Iterable[str] = ()) -> None:
        self.model = model
        self.vocab = model.vocab
        self.pretokenizer = pretokenizer or PreTokenizer("none")
        self.decoder = decoder if decoder is not None else decoder_for(self.vocab, self.pretokenizer.name == "custom")
        self.normalizer = normalizer
        self.config = config
        #: the specials found in the normalized text (a SentencePiece model's user-defined pieces)
        self.user_defined = frozenset(user_defined)
        unknown = self.user_defined - self.vocab.specials.keys()
        if unknown:
            raise ValueError(f"user-defined piece {min(unknown)!r} is not a special token")
        # the finders of the specials found before the normalizer and of those found after it
        self._finder: Finder | None = self.vocab.finder
        self._user_finder: Finder | None = None
        if self.user_defined:
            self._finder = special_finder(t for t in self.vocab.specials if t not in self.user_defined)
            self._user_finder = special_finder(self.user_defined)
        self._cache = _ChunkCache(model)
        self._coder: Any = None if backend().compiled else False  # _text_coder(), made at first use

    # -- the parts, read ------------------------------------------------------------------------

    @property
    def base(self) -> str:
        """``bytes`` or ``chars``."""
        return self.vocab.units.base

    @property
    def alphabet(self) -> list[str] | None:
        """The chars base's characters by id (None for the bytes base)."""
        return self.vocab.units.alphabet

    @property
    def base_size(self) -> int:
        """How many base units (with their marked twins) come before the first merge's id."""
        return self.vocab.base_size

    @property
    def pieces(self) -> list[bytes]:
        """Every unit's and merge's token's bytes, by id."""
        return self.vocab.pieces

    @property
    def merges(self) -> list[tuple[int, int]]:
        """The merges, in learned order."""
        return self.vocab.merges

    @property
    def whole_pieces(self) -> list[bytes]:
        """Tokens no merge makes, after the merges' ids (a rank file's)."""
        return self.vocab.whole_pieces

    @property
    def specials(self) -> dict[str, int]:
        """Special token text -> id."""
        return self.vocab.specials

    @property
    def end_of_word(self) -> str | None:
        return self.vocab.units.end_of_word

    @property
    def subword_prefix(self) -> str | None:
        return self.vocab.units.subword_prefix

    @property
    def byte_fallback(self) -> bool:
        return self.vocab.units.byte_fallback

    @property
    def whole_first(self) -> bool:
        """Whether a chunk is looked up whole before merging (:meth:`from_ranks`)."""
        return isinstance(self.model, WholeFirst)

    @property
    def whole_ranks(self) -> list[int] | None:
        """How many merges rank below each whole piece (merging by rank), else None."""
        return self.model.whole_ranks if isinstance(self.model, RankMerging) else None

    @property
    def text_ranks(self) -> list[int] | None:
        """Each merge's rank by score (SentencePiece's merging by text), else None."""
        return self.model.text_ranks if isinstance(self.model, ScoreMerging) else None

    @property
    def vocab_size(self) -> int:
        """Bases + merges + whole pieces + specials."""
        return self.vocab.size

    def token_bytes(self, token_id: int) -> bytes:
        """The bytes of a token (a special's text as UTF-8)."""
        return self.vocab.token_bytes(token_id)

    def rank(self, pair: tuple[int, int]) -> int | None:
        """The id a merge of ``pair`` makes, or None when no merge rule covers it."""
        return self.vocab.rank(pair)

    def continues_word(self, token_id: int) -> bool:
        """Whether token ``token_id`` continues a word (a prefix tokenizer's ``##ab``: its
        bytes begin with the prefix, which decoding drops); False without a prefix."""
        return self.vocab.continues_word(token_id)

    def whole_piece(self, chunk: bytes) -> int | None:
        """Looking chunks up whole first: the token whose bytes are all of ``chunk`` (the first
        id of those bytes), which the chunk encodes to without merging; else None."""
        model = self.model
        return model.whole_piece(chunk) if isinstance(model, WholeFirst) else None

    def normalize(self, text: str) -> str:
        """``text`` as the normalizer makes it (unchanged without one): what is split and merged.
        Special tokens are found before it, so call it on the text between them."""
        return self.normalizer(text) if self.normalizer is not None else text

    # -- encoding -----------------------------------------------------------------------------

    def _text_coder(self) -> Any:
        """The compiled core's whole-text encoder for this tokenizer (made at first use), or None:
        on the pure path, and for a pre-tokenizer other than plain gpt2, gpt4 or o200k (or
        another spelling of them: ``PreTokenizer.scan``; no digit or newline splitting, not line
        by line). New chunks are encoded as the chunk cache would."""
        coder = self._coder
        if coder is None:
            pre: Any = self.pretokenizer  # (its scan mode is set in __post_init__, unseen by mypy)
            made = None
            if pre.scan in SCAN_MODES and not (pre.per_line or pre.split_digits or pre.split_newlines):
                made = backend().text_coder(lambda text, start, end: pre._regex().findall(text, start, end),
                                        SCAN_MODES[pre.scan], self.model.encode_chunk, len(self.vocab.pieces),
                                        _KEPT_LIMIT, self.model.rank_tables())
            coder = self._coder = made if made is not None else False
        return coder or None

    def encode_chunk(self, chunk: str) -> list[int]:
        """Encode one pre-tokenized chunk (cached)."""
        return self._cache[chunk]

    def encode_ordinary(self, text: str) -> list[int]:
        """Encode ``text`` treating special-token strings as plain text."""
        if self.normalizer is not None:
            text = self.normalizer(text)
        return self._encode_normalized(text)

    def _encode_normalized(self, text: str) -> list[int]:
        """Encode ``text``, already normalized and free of specials: split it, merge each chunk."""
        if len(text) >= _TEXT_CODER_MIN and (coder := self._text_coder()) is not None:
            self.model.expect(len(text) // 4)  # (a chunk is about four characters of code or prose)
            ids: list[int] = coder.encode(text)  # split and chunk cache in C (gpt2 and gpt4, compiled)
            return ids
        # One C-level loop over the chunks; only a chunk not seen before calls back into
        # Python (the cache's __missing__), once per distinct chunk.
        chunks = self.pretokenizer.split(text)
        self.model.expect(len(chunks))
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
        if not specials or (self._finder is None and self._user_finder is None):
            return self.encode_ordinary(text)
        out: list[int] = []
        ids = self.vocab.specials
        for part, special in self._parts(text):
            if special:
                out.append(ids[part])
            else:
                out.extend(self._encode_normalized(part))
        return out

    def _parts(self, text: str) -> Iterator[tuple[str, bool]]:
        """``text`` cut at its specials, in order: (a special's text, True), or (the normalized
        text between two, False). The specials are found first; then each stretch between them
        is normalized and its user-defined specials found in what the normalizer made of it."""
        finder, user = self._finder, self._user_finder
        start = 0
        for match in finder.finditer(text) if finder is not None else ():
            yield from self._user_parts(self.normalize(text[start : match.start()]), user)
            yield match.group(0), True
            start = match.end()
        yield from self._user_parts(self.normalize(text[start:]), user)

    @staticmethod
    def _user_parts(normalized: str, user: Finder | None) -> Iterator[tuple[str, bool]]:
        """Normalized text cut at the user-defined specials in it (:meth:`_parts`)."""
        start = 0
        for match in user.finditer(normalized) if user is not None else ():
            yield normalized[start : match.start()], False
            yield match.group(0), True
            start = match.end()
        yield normalized[start:], False

    def pieces_of(self, text: str) -> list[tuple[int, ...]]:
        """Base ids of each chunk of ``text`` (special tokens as one-id chunks)."""
        out: list[tuple[int, ...]] = []
        units = self.vocab.units.ids
        for part, special in self._parts(text):
            if special:
                out.append((self.vocab.specials[part],))
            else:
                out.extend(tuple(units(c)) for c in self.pretokenizer.split(part))
        return out

    def encode_trace(self, text: str) -> tuple[tuple[int, ...], list[TraceStep]]:
        """The rule-by-rule walkthrough of seed 003 §11.4, for short texts.

        Returns the starting segmentation and one step per rule that fired, in learned order:
        each names the rule, how often it fired and the segmentation after it. The final
        segmentation always equals :meth:`encode` (:mod:`engine.encode.trace`).
        """
        if len(text) > TRACE_LIMIT:
            raise ValueError(f"encode_trace is for short texts (at most {TRACE_LIMIT} characters)")
        return trace(self.vocab, self.model, [list(c) for c in self.pieces_of(text)])

    # -- decoding -----------------------------------------------------------------------------

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """The bytes the ids stand for, joined (specials as their text)."""
        return join_bytes(self.vocab, ids)

    def decode(self, ids: Iterable[int]) -> str:
        """Text of the ids, as the decoder makes it; bytes that are not valid UTF-8 become U+FFFD.

        For the chars base, id 0 decodes to U+FFFD, the stand-in for unknown characters.
        """
        return self.decoder.decode(self.vocab, ids)

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
    """Build a tokenizer from the native structure; anything malformed raises ``ValueError``.
    The file's fields name the parts: its units, its vocabulary, and the model they call for
    (each part refuses a combination that cannot be)."""
    f = _nativefile.fields(data)
    units = BaseUnits(f["base"], f["alphabet"], end_of_word=f["end_of_word"], subword_prefix=f["subword_prefix"],
                      byte_fallback=f["byte_fallback"])
    vocab = Vocabulary(units, f["merges"], whole_pieces=f["whole_pieces"], specials=f["specials"])
    model: Model
    if f["whole_first"]:
        model = WholeFirst(vocab) if f["whole_ranks"] is None else RankMerging(vocab, f["whole_ranks"])
    elif f["text_ranks"] is not None:
        model = ScoreMerging(vocab, f["text_ranks"])
    else:
        model = MergeRules(vocab)
    return Tokenizer.compose(model, pretokenizer=f["pretokenizer"], normalizer=f["normalizer"], config=f["config"],
                             user_defined=f["user_defined"])


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
