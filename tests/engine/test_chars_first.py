"""Chinese merged character by character first, on both paths, against merging the bytes:

- tiktoken's rule (engine.native.chars_first.CharsFirst, the compiled RankMerger): the parts are a naive
  tiktoken's (engine/encode/reference.py) whenever the shortcut is taken, on vocabularies made as
  training makes them (each token two earlier ones) and in any order, where the shortcut must
  see that it does not hold; Llama 3's real rank file gives tiktoken's ids;
- the merges (the compiled ChunkEncoder; the pure path merges the bytes, engine.encode.apply_merges):
  seed 002's ids, with words of whole characters and tokens cut across a border.

Both read engine.native.borders.Borders."""

from __future__ import annotations

import base64
from array import array
from itertools import islice

import pytest
from fetch_tokenizers import real_file
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Tokenizer
from engine.encode import apply_merges as _codec
from engine.encode.reference import tiktoken_parts
from engine.encode.tiktoken_merge import rank_merge
from engine.native import borders as _borders
from engine.native.chars_first import CharsFirst
from engine.native.door import COMPILED, PURE, WHY_PURE, using
from engine.text.pretokenize import PreTokenizer

from test_tokenizer import seed_encode

compiled = COMPILED.core if COMPILED is not None else None
needs_compiled = pytest.mark.skipif(compiled is None, reason=f"no compiled core here: {WHY_PURE}")

#: Three bytes each; 中 and 人 share a lead byte (E4), 大 and 天 two bytes (E5 A4), and the
#: full-width comma ends in 8C as 宅 does not.
CJK = "中国人大天，宅"


@st.composite
def trained(draw):
    """A rank order as training makes one: each token two earlier tokens (bytes first), over the
    bytes of the characters: their pieces, whole characters, words of them, and now and then a
    token cut across a border."""
    units = sorted({bytes([b]) for b in CJK.encode()})
    order: dict[bytes, int] = {}
    known = list(units)
    chars = [c.encode() for c in CJK]
    for _ in range(draw(st.integers(2, 40))):
        kind = draw(st.sampled_from(["inside", "inside", "word", "cut", "cut", "any"]))
        if kind == "inside":  # a piece of one character, from two known pieces
            c = draw(st.sampled_from(chars))
            cut = draw(st.integers(1, 2))
            left, right = c[:cut], c[cut:]
            sides = [(a, b) for a, b in ((left, right), (c[:1], c[1:2]), (c[1:2], c[2:])) if a in known and b in known]
            if not sides:
                continue
            a, b = draw(st.sampled_from(sides))
        elif kind == "word":  # two known tokens of whole characters
            whole = [t for t in known if len(t) % 3 == 0 and _whole(t)]
            if not whole:
                continue
            a, b = draw(st.sampled_from(whole)), draw(st.sampled_from(whole))
        elif kind == "cut":  # the end of one character and the start of another: cut across the border
            x, y = draw(st.sampled_from(chars)), draw(st.sampled_from(chars))
            a = draw(st.sampled_from([t for t in (x[2:], x[1:]) if t in known]))
            b = draw(st.sampled_from([t for t in (y[:1], y[:2]) if t in known]))
        else:  # any two known tokens (a cut one when they meet inside characters)
            a, b = draw(st.sampled_from(known)), draw(st.sampled_from(known))
        token = a + b
        if token not in order and len(token) <= 12:
            order[token] = len(order)
            known.append(token)
    return order


def _whole(piece: bytes) -> bool:
    try:
        piece.decode()
    except UnicodeDecodeError:
        return False
    return True


#: Chinese text of two characters or more (so that most hold a word), and its bytes
cjk_text = st.lists(st.sampled_from(CJK), min_size=2, max_size=30).map("".join)
texts = cjk_text.map(str.encode)


@given(trained(), st.lists(texts, max_size=5))
def test_characters_first_are_tiktokens_parts_on_trained_orders(order, pieces):
    first = CharsFirst(order)
    for piece in pieces:
        parts = first(piece)
        expected = tiktoken_parts(piece, order)
        assert rank_merge(piece, order) == expected
        if parts is not None:
            assert parts == expected


@given(trained(), st.integers(0, 40), st.lists(texts, max_size=5))
def test_the_start_of_an_order_may_share_the_longer_ones_analysis(order, cut, pieces):
    """A replay's rank file cut at a step is the start of the whole file's order: the longer
    order's borders and rule (2), handed over, still give tiktoken's parts of the start."""
    start = dict(islice(order.items(), cut))
    shared = CharsFirst(order).analysis()
    first = CharsFirst(start, lambda: shared)
    assert first.analysis() is shared  # not made again
    for piece in pieces:
        parts = first(piece)
        if parts is not None:
            assert parts == tiktoken_parts(piece, start)


@given(st.dictionaries(st.sampled_from([c.encode()[i:j] for c in CJK for i in range(3) for j in range(i + 2, 4)]
                                       + [(a + b).encode() for a in CJK for b in CJK]
                                       + [a.encode()[2:] + b.encode()[:2] for a in CJK for b in CJK]),
                       st.integers(0, 10**6), max_size=30),
       st.lists(texts, max_size=5))
def test_any_order_is_right_or_left_alone(ranks, pieces):
    """Ranks in any order, tokens that no two earlier ones make among them: the shortcut either
    sees that its rule (2) fails, or gives tiktoken's parts."""
    order = {token: rank for rank, token in enumerate(sorted(ranks, key=ranks.get))}
    first = CharsFirst(order)
    for piece in pieces:
        parts = first(piece)
        if parts is not None:
            assert parts == tiktoken_parts(piece, order)


def compiled_ids(order: dict[bytes, int], pieces: list[bytes], analysis=None) -> list[list[int] | None]:
    """The compiled RankMerger's ids of ``pieces`` (a part's rank, a byte 1000 + its value),
    characters first as ``CharsFirst(order, analysis)`` says."""
    merger = compiled.RankMerger(list(order))
    merger.set_chars(CharsFirst(order, analysis).tables)
    ranked, single = array("i", range(len(order))), array("i", range(1000, 1256))
    return [merger.merge_ids(piece, ranked, single) for piece in pieces]


def as_ids(parts: list[bytes], order: dict[bytes, int]) -> list[int]:
    return [order[p] if len(p) > 1 else 1000 + p[0] for p in parts]


@needs_compiled
@given(trained(), st.lists(texts | st.binary(max_size=12).map(lambda b: "中".encode() + b), max_size=5))
def test_the_compiled_merge_takes_characters_first_as_the_pure_one(order, pieces):
    """The compiled RankMerger, characters first where CharsFirst's rules hold (kinds of border
    and cut tokens handed over once), gives tiktoken's parts: on trained orders, Chinese text
    and Chinese with any bytes after it."""
    assert compiled_ids(order, pieces) == [as_ids(tiktoken_parts(piece, order), order) for piece in pieces]


@needs_compiled
@given(trained(), st.integers(0, 40), st.lists(texts | st.binary(max_size=12).map(lambda b: "中".encode() + b), max_size=5))
def test_the_compiled_merge_of_a_start_with_the_longer_orders_tables(order, cut, pieces):
    start = dict(islice(order.items(), cut))
    shared = CharsFirst(order).analysis()
    ids = compiled_ids(start, pieces, lambda: shared)
    assert ids == [as_ids(tiktoken_parts(piece, start), start) for piece in pieces]


@needs_compiled
@given(st.dictionaries(st.sampled_from([(a + b).encode() for a in CJK for b in CJK] + [c.encode()[:2] for c in CJK]
                                       + [c.encode() for c in CJK] + [a.encode()[2:] + b.encode()[:2] for a in CJK for b in CJK]),
                       st.integers(0, 10**6), max_size=30),
       st.lists(texts, max_size=5))
def test_the_compiled_merge_on_any_order(ranks, pieces):
    order = {token: rank for rank, token in enumerate(sorted(ranks, key=ranks.get))}
    assert compiled_ids(order, pieces) == [as_ids(tiktoken_parts(piece, order), order) for piece in pieces]


def test_the_shortcut_is_taken_where_it_holds_and_not_where_a_cut_token_is():
    zhong, guo = "中".encode(), "国".encode()
    order = {zhong[:2]: 0, zhong: 1, guo[:2]: 2, guo: 3, zhong + guo: 4}
    first = CharsFirst(order)
    piece = "中国国中国".encode()
    assert first(piece) == [zhong + guo, guo, zhong + guo] == tiktoken_parts(piece, order)
    assert first._borders is not False
    # a token cut across the border 中|国 (AD E5): chunks that hold it take the bytes' path,
    # others (国中: the border BD E4) keep the shortcut
    cut = {**order, zhong[2:] + guo[:1]: 5}
    first = CharsFirst(cut)
    assert first(piece) is None
    assert first("国中".encode()) == [guo, zhong]
    # a token of whole characters that no two earlier tokens make: rule (2) fails everywhere
    unsound = {zhong + guo: 0, **{t: r + 1 for t, r in order.items() if t != zhong + guo}}
    assert CharsFirst(unsound)(piece) is None


def test_borders_see_a_cut_token_only_where_it_is():
    zhong, guo = "中".encode(), "国".encode()
    borders = _borders.Borders([zhong, guo, zhong + guo, zhong[2:] + guo[:1] + b"x"])
    assert borders.kind(zhong + guo) == _borders.WHOLE  # the cut token needs an x after 国's lead
    assert borders.kind(zhong + guo[:1] + b"x"[:0] + guo[1:]) == _borders.WHOLE
    assert _borders.Borders([zhong[2:] + guo[:1]]).kind(zhong + guo) == _borders.CUT
    assert _borders.Borders([zhong, guo]).kind(zhong + guo) == _borders.APART


def test_llama3s_chinese_takes_the_shortcut_and_gives_tiktokens_ids():
    tiktoken = pytest.importorskip("tiktoken")
    from tiktoken.load import load_tiktoken_bpe

    from engine.formats import load_any
    from engine.text.pretokenize import GPT4_PATTERN, PreTokenizer

    path = real_file("llama3.tiktoken")
    if path is None:
        pytest.skip("Llama 3's rank file could not be had")
    imported = load_any(path, pretokenizer=PreTokenizer("custom", GPT4_PATTERN))
    enc = tiktoken.Encoding(name="llama3", pat_str=GPT4_PATTERN, mergeable_ranks=load_tiktoken_bpe(str(path)), special_tokens={})
    text = "秦川雄帝宅，函谷壮皇居。绮殿千寻起，离宫百雉余。我们今天学习分词器，中华人民共和国成立了。" * 3
    assert imported.to_file_ids(imported.tokenizer.encode_ordinary(text)) == enc.encode_ordinary(text)
    order = imported.tokenizer.model.order()
    first = CharsFirst(order)
    taken = 0
    for chunk in set(PreTokenizer("custom", GPT4_PATTERN)._regex().findall(text)):
        piece = chunk.encode()
        parts = first(piece)
        taken += parts is not None
        assert parts is None or parts == rank_merge(piece, order), chunk
    assert taken >= 6 and isinstance(first._borders, _borders.Borders)  # Llama 3's tokens of Chinese are all two earlier ones


# -- the merges (GPT-2, Llama 4, any bpe-lab tokenizer): the model on both paths, ChunkEncoder ----

@st.composite
def word_merges(draw):
    """Merges as training on Chinese makes them: each character's bytes joined (in either order),
    then words of whole characters, and now and then a token cut across a border (the last
    byte of one character and the first of the next), placed anywhere in the list."""
    pieces = [bytes([i]) for i in range(256)]
    merges: list[tuple[int, int]] = []

    def add(a: int, b: int) -> int:
        merges.append((a, b))
        pieces.append(pieces[a] + pieces[b])
        return len(pieces) - 1

    whole = {}
    for ch in draw(st.permutations(CJK)):
        b0, b1, b2 = ch.encode()
        known = {p: i for i, p in enumerate(pieces)}
        if draw(st.booleans()):
            left = known.get(bytes([b0, b1])) or add(b0, b1)
            whole[ch] = known.get(pieces[left] + bytes([b2])) or add(left, b2)
        else:
            right = known.get(bytes([b1, b2])) or add(b1, b2)
            whole[ch] = known.get(bytes([b0]) + pieces[right]) or add(b0, right)
    words = [whole[ch] for ch in CJK]
    for _ in range(draw(st.integers(3, 12))):
        a, b = draw(st.sampled_from(words)), draw(st.sampled_from(words))
        if pieces[a] + pieces[b] not in pieces:
            words.append(add(a, b))
    if draw(st.booleans()):  # a token cut across a border: the chunks it can touch take the full path
        x, y = draw(st.sampled_from(CJK)), draw(st.sampled_from(CJK))
        cut = (x.encode()[2], y.encode()[0])
        if bytes(cut) not in pieces:
            add(*cut)
    return merges


@given(word_merges(), cjk_text)
def test_a_chunk_of_chinese_merges_as_the_seed_on_both_paths(merges, text):
    """Where every token that holds a border's bytes is whole characters (words of two
    characters), the compiled path merges each character alone and then the chunk of their
    ids, the pure path the bytes: the same ids, as the seed gives."""
    data = text.encode()
    for native in [PURE, COMPILED] if COMPILED is not None else [PURE]:
        with using(native):
            tok = Tokenizer(merges, pretokenizer=PreTokenizer("none"))
            assert tok.encode(text) == seed_encode(tok, list(data)) == _codec._apply_long(list(data), tok.vocab.ranks)


@needs_compiled
@given(word_merges(), st.integers(0, 40), st.lists(cjk_text, max_size=4))
def test_the_first_merges_may_share_the_longer_lists_borders(merges, cut, texts):
    """A replay's step (its tokens the file's first) takes the file's borders: the compiled
    encoder still gives the ids of merging the bytes with the first merges alone."""
    longer = Tokenizer(merges)
    tok = Tokenizer(merges[:cut])
    shared = _borders.Borders(longer.pieces)
    encoder = compiled.ChunkEncoder(tok.vocab.ranks)
    encoder.set_chars(shared.tables)
    for text in texts:
        assert encoder.encode_text(text) == seed_encode(tok, list(text.encode()))


@needs_compiled
def test_words_of_whole_characters_are_merged_after_their_characters():
    """中国 is a token: the borders of a chunk of 中 and 国 are held only by whole characters,
    so each character is merged once (the table of characters) and the words after; a token
    cut across a border (AD E5) sends the chunk through the bytes again."""
    inside = [(0xE4, 0xB8), (256, 0xAD), (0xE5, 0x9B), (258, 0xBD), (257, 259)]  # 中, 国, then 中国
    chunk = "中国国中国"
    data = chunk.encode()
    tok = Tokenizer(inside)
    assert _borders.Borders(tok.pieces).kind(data) == _borders.WHOLE
    encoder = compiled.ChunkEncoder(tok.vocab.ranks)
    encoder.set_chars(_borders.Borders(tok.pieces).tables)
    assert encoder.encode_text(chunk) == [260, 259, 260] == seed_encode(tok, list(data))
    cut = Tokenizer([*inside, (0xAD, 0xE5)])
    assert _borders.Borders(cut.pieces).kind(data) == _borders.CUT
    encoder = compiled.ChunkEncoder(cut.vocab.ranks)
    encoder.set_chars(_borders.Borders(cut.pieces).tables)
    assert encoder.encode_text(chunk) == seed_encode(cut, list(data))


@needs_compiled
@given(word_merges(), st.lists(cjk_text | st.text(alphabet=CJK + "\u0800\ud7ffa\udce4\udcb8", max_size=30), max_size=4))
def test_the_compiled_encoder_merges_characters_first_as_the_pure_one(merges, texts):
    """With the tables of engine.native.borders.Borders, encode_text merges a chunk of
    three-byte characters character by character first, its table of characters kept from
    chunk to chunk: the ids of merging the bytes (the pure path's). Characters at the edges of
    the three-byte range (U+0800, U+D7FF), an ASCII letter and lone surrogates' escapes (which
    can look like a character's bytes) take the full path."""
    tok = Tokenizer(merges)
    encoder = compiled.ChunkEncoder(tok.vocab.ranks)
    asked = []
    encoder.set_chars(lambda: asked.append(1) or _borders.Borders(tok.pieces).tables())
    for text in texts:
        raw = text.encode("utf-8", "surrogateescape")
        assert encoder.encode_text(text) == _codec.apply_merges(list(raw), tok.vocab.ranks) == seed_encode(tok, list(raw))
    assert len(asked) <= 1  # the tables are worked out once


#: Tokens moved before their parts (or words no two tokens make): whole pieces of the rank file,
#: which its whole-chunk lookup gives (Llama 3's 695), and with which the replay merges by rank
#: where tiktoken's merging of their bytes makes them all the same (as Llama 3's " nghiệ").
WHOLE = [c.encode() for c in CJK] + [w.encode() for w in ("中国", "大天", "中国人")] + ["天，".encode()[:5]]


@settings(deadline=None)
@given(trained(), st.lists(st.tuples(st.sampled_from(WHOLE), st.integers(0, 40)), min_size=1, max_size=3),
       st.lists(cjk_text, min_size=1, max_size=3), st.integers(0, 40))
def test_a_replayed_rank_file_encodes_as_tiktoken_cut_at_each_step(order, wholes, texts, middle):
    """A replay's tokenizer at a step takes its rank order and its analysis from the whole file's
    (``RankMerging.ranked_from``): on a generated rank file with whole pieces among its
    tokens, at the start, a step in the middle and the end, it gives the bytes tiktoken gives
    with the ranks that step reached."""
    tiktoken = pytest.importorskip("tiktoken")
    from engine import Trainer
    from engine.formats.tiktoken_bpe import load_tiktoken
    from engine.text.pretokenize import GPT4_PATTERN, PreTokenizer

    tokens = list(order)
    for piece, place in wholes:
        if piece in tokens:
            tokens.remove(piece)
        tokens.insert(min(place, len(tokens)), piece)
    # "xyz" before "yz": tiktoken's merging of "xyz" makes it (from "yz"), so the replay merges
    # by rank, and the Chinese tokens' rule (2) is left as it was
    tokens.insert(min(middle, len(tokens)), b"xyz")
    tokens.append(b"yz")
    ranks = {bytes([b]): b for b in range(256)}
    for token in tokens:
        ranks.setdefault(token, len(ranks))
    content = "".join(f"{base64.b64encode(t).decode()} {r}\n" for t, r in ranks.items())
    imported = load_tiktoken("generated.tiktoken", PreTokenizer("custom", GPT4_PATTERN), content)
    tok = imported.tokenizer
    trainer = Trainer.replaying(CJK, tok)
    merges = len(tok.merges)
    for step in sorted({0, min(middle, merges), merges}):
        trainer.goto(step)
        below = imported.to_file_ids([tok.base_size + step])[0] if step < merges else len(ranks)
        cut = {token: rank for token, rank in ranks.items() if rank < below}
        enc = tiktoken.Encoding(name=f"generated-{step}", pat_str=GPT4_PATTERN, mergeable_ranks=cut, special_tokens={})
        mine = trainer.tokenizer()
        assert getattr(mine.model, "ranked_from", None) is (tok.model if tok.whole_ranks is not None else None)
        for text in texts:
            theirs = [enc.decode_single_token_bytes(i) for i in enc.encode_ordinary(text)]
            assert [mine.token_bytes(i) for i in mine.encode(text)] == theirs, (step, text)
