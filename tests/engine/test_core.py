"""The hot loops' two implementations behind one door (engine/native/door.py): the compiled core and pure Python give
identical ids and merges, and both equal the naive references; the chunk cache's two
generations; how the core is chosen (BPE_LAB_PURE, a stale build) and built (hatch_build.py).

The rest of the suite runs on whichever path is in use: CI runs it twice, once with
BPE_LAB_PURE=1 (README's test command). The tests here that need the compiled core skip
without it."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from array import array
from functools import partial
from pathlib import Path

import pytest
from helpers import ROOT, sample_text
from hypothesis import given
from hypothesis import strategies as st

from engine import PreTokenizer, Tokenizer, TrainConfig, Trainer
from engine.encode import apply_merges as _codec
from engine.encode import tokenizer as tokenizer_module
from engine.encode.pairs import SHIFT
from engine.native import borders, door, sources
from engine.native.door import COMPILED, PURE, WHY_PURE, using
from engine.train import loops as _trainloops
from engine.train.reference import train as reference_train

from test_encode_fast import merge_lists
from test_engine_differential import corpora
from test_tokenizer import seed_encode

compiled = COMPILED.core if COMPILED is not None else None
needs_compiled = pytest.mark.skipif(compiled is None, reason=f"no compiled core here: {WHY_PURE}")


@pytest.fixture
def both_paths():
    """The pure backend and the compiled one, by whether compiled (skips without it)."""
    if COMPILED is None:
        pytest.skip(f"no compiled core here: {WHY_PURE}")
    return {False: PURE, True: COMPILED}


# -- chunk encoding ---------------------------------------------------------------------------


@needs_compiled
def test_the_compiled_core_packs_pairs_as_the_engine_does():
    assert compiled.SHIFT_BITS == SHIFT


@needs_compiled
@given(merge_lists(), st.lists(st.sampled_from([97, 98, 99, 100]), max_size=400))
def test_chunk_encoders_agree_with_each_other_and_the_seed(merges, ids):
    """Short chunks take the list scan (pure) or the C scan; long ones the heaps: all four
    paths, and seed 002's encode, give the same ids."""
    tok = Tokenizer(merges)
    expected = seed_encode(tok, list(ids))
    before = list(ids)
    assert _codec.apply_merges(ids, tok.vocab.ranks) == expected
    assert _codec._apply_long(ids, tok.vocab.ranks) == expected
    assert _codec._apply_short(list(ids), tok.vocab.ranks) == expected
    assert compiled.ChunkEncoder(tok.vocab.ranks).encode(ids) == expected
    assert ids == before  # the encoders never change what they are given


@given(merge_lists(), st.lists(st.sampled_from([97, 98, 99]), max_size=120))
def test_the_pure_paths_agree_with_the_seed(merges, ids):
    tok = Tokenizer(merges)
    expected = seed_encode(tok, list(ids))
    assert _codec._apply_short(list(ids), tok.vocab.ranks) == expected
    assert _codec._apply_long(list(ids), tok.vocab.ranks) == expected


_WIDE = "中国。"  # three bytes each: E4 B8 AD, E5 9B BD, E3 80 82
_WIDE_BYTES = sorted(set("".join(_WIDE).encode()))


@given(merge_lists(base_ids=(97, *_WIDE_BYTES)),
       st.text(alphabet=_WIDE + "a\u00e9\U0001f600\udce4\udcad", max_size=40))
def test_a_bytes_base_chunk_merges_as_the_seed_on_both_paths(merges, text):
    """A chunk's bytes through the model (the pure path: its bytes merged; the compiled one:
    three-byte characters merged one by one first where no token joins them) give seed 002's
    ids, with merges across the characters' borders or not, lone surrogates' escapes and a
    four-byte character."""
    data = text.encode("utf-8", "surrogateescape")
    for native in [PURE, COMPILED] if COMPILED is not None else [PURE]:
        with using(native):
            tok = Tokenizer(merges, pretokenizer=PreTokenizer("none"))  # the whole text one chunk
            assert tok.encode(text) == seed_encode(tok, list(data)) == _codec.apply_merges(list(data), tok.vocab.ranks)


def test_the_pure_merger_has_no_table_of_characters_or_borders(monkeypatch):
    """The pure path, the readable reference, merges a chunk's bytes with the plain merge loop;
    merging Chinese character by character first (its border tables, engine/native/borders.py)
    is a constant-factor trick of the compiled core's alone."""
    assert not hasattr(_codec, "ByteMerger") and not hasattr(_codec, "border_kinds")
    made, real = [], borders.Borders.__init__
    monkeypatch.setattr(borders.Borders, "__init__", lambda self, pieces, *more: made.append(pieces) or real(self, pieces, *more))
    inside = [(0xE4, 0xB8), (256, 0xAD), (0xE5, 0x9B)]  # 中 whole, 国 two tokens
    chunks = ["中国中国中", *(f"{i}中国" for i in range(20))]  # past the first few, the table of whole tokens
    with using(PURE):
        tok = Tokenizer(inside)
        assert tok.model.borders is None
        for chunk in chunks:
            assert tok.model.encode_chunk(chunk) == seed_encode(tok, list(chunk.encode()))
    assert made == []
    if COMPILED is not None:
        with using(COMPILED):
            tok = Tokenizer(inside)
            assert tok.model.encode_chunk(chunks[0]) == [257, 258, 0xBD, 257, 258, 0xBD, 257]
        assert made == [tok.pieces]  # the borders worked out at the first chunk of Chinese


@needs_compiled
@given(st.lists(st.binary(max_size=8) | st.sampled_from(["中".encode(), "中国".encode(), "国".encode()[2:] + "中".encode()[:1],
                                                          "中国".encode()[1:], b"\xbf\xe0", b"\xbf", b"\xe0"]), max_size=40))
def test_the_compiled_border_holders_are_the_glues(pieces):
    assert compiled.border_holders(pieces) == borders.holding(pieces)
    assert borders.Borders(pieces, compiled.border_holders).tables() == borders.Borders(pieces).tables()


@needs_compiled
def test_the_compiled_encoder_reads_unjoinable_characters_one_by_one():
    """Merges inside 中 and 国 but none across them: no token holds a border of 中国, so a chunk of
    the two is their ids in a row, each character merged alone; a merge across them (AD E5)
    is a token cut across that border, which sends such a chunk through its bytes."""
    inside = [(0xE4, 0xB8), (256, 0xAD), (0xE5, 0x9B)]  # 中 whole, 国 two tokens
    chunk = "中国中国中"
    data = chunk.encode()
    assert borders.Borders(Tokenizer(inside).pieces).kind(data) == borders.APART
    encoder = compiled.ChunkEncoder(Tokenizer(inside).vocab.ranks)
    encoder.set_chars(borders.Borders(Tokenizer(inside).pieces).tables)
    assert encoder.encode_text(chunk) == [257, 258, 0xBD, 257, 258, 0xBD, 257]
    across = Tokenizer([*inside, (0xAD, 0xE5)])
    assert borders.Borders(across.pieces).kind(data) == borders.CUT
    encoder = compiled.ChunkEncoder(across.vocab.ranks)
    encoder.set_chars(borders.Borders(across.pieces).tables)
    assert encoder.encode_text(chunk) == seed_encode(across, list(data))


@needs_compiled
@given(merge_lists(base_ids=(97, 98, 0xC3, 0xA9)), st.text(alphabet="ab\u00e9\udcc3\udca9z", max_size=300))
def test_the_compiled_encoder_reads_a_chunks_text_as_its_bytes(merges, text):
    """encode_text (the bytes base's cache misses) is encode of the UTF-8 bytes, lone
    surrogates as the bytes they escape."""
    tok = Tokenizer(merges)
    raw = list(text.encode("utf-8", "surrogateescape"))
    encoder = compiled.ChunkEncoder(tok.vocab.ranks)
    assert encoder.encode_text(text) == encoder.encode(raw) == seed_encode(tok, raw)


@needs_compiled
@given(st.lists(st.binary(min_size=2, max_size=5).map(lambda b: bytes(x % 4 + 97 for x in b)), unique=True, max_size=40),
       st.lists(st.binary(max_size=60).map(lambda b: bytes(x % 4 + 97 for x in b)), max_size=6))
def test_the_compiled_rank_merge_leaves_the_parts_the_pure_one_does(tokens, pieces):
    """engine.native.compiled.RankMerger (a rank file with whole pieces encodes by it) against
    engine.encode.tiktoken_merge.rank_merge, over random rank orders of tokens of a few letters and pieces
    long enough for the pure heap (past SCAN_LIMIT): the same parts; the bound merger from
    the compiled backend takes it, and falls back to the pure one for ranks that are not places."""
    from engine.encode import tiktoken_merge as _rankmerge

    order = {t: i for i, t in enumerate(tokens)}
    merge = compiled.RankMerger(list(order)).merge
    for piece in pieces:
        assert merge(piece) == _rankmerge.rank_merge(piece, order)
    assert COMPILED.rank_merger(order) is not None
    gaps = {t: 2 * i for i, t in enumerate(tokens)}  # ranks that are not places: the pure merging
    for piece in pieces:
        assert COMPILED.rank_merger(gaps)(piece) == _rankmerge.rank_merge(piece, gaps)
    # the parts as ids in one call: each byte's and each token's id (here: ids from 1000 on)
    ids = {bytes([b]): b for b in range(256)} | {t: 1000 + i for i, t in enumerate(tokens)}
    by_ids = COMPILED.rank_ids(order, ids)
    pieces = [piece for piece in pieces if piece]  # (a chunk is never empty)
    for piece in pieces:
        assert by_ids(piece) == [ids[part] for part in _rankmerge.rank_merge(piece, order)]
        assert COMPILED.rank_ids(gaps, ids)(piece) == [ids[part] for part in _rankmerge.rank_merge(piece, gaps)]
    with pytest.raises(TypeError, match="typecode"):
        compiled.RankMerger(list(order)).merge_ids(b"ab", array("q", [0]), array("i", range(256)))
    short = {t: i for t, i in ids.items() if len(t) > 1}  # no ids for the bytes: the parts' way
    for piece in pieces:
        expected = [short.get(part) for part in _rankmerge.rank_merge(piece, order)]
        if None in expected:
            with pytest.raises(KeyError):
                COMPILED.rank_ids(order, short)(piece)
        else:
            assert COMPILED.rank_ids(order, short)(piece) == expected


@needs_compiled
def test_the_compiled_encoder_refuses_ids_no_tokenizer_has():
    encode = compiled.ChunkEncoder({}).encode
    assert encode([]) == [] and encode([5]) == [5]
    with pytest.raises(ValueError, match="outside the ids"):
        encode([1, -1])
    with pytest.raises(ValueError, match="outside the ids"):
        encode([1, 1 << SHIFT])
    with pytest.raises(TypeError):
        encode([1, "a"])


def test_a_tokenizer_encodes_with_the_core_in_use(both_paths):
    text = sample_text("workshop.txt")
    trainer = Trainer(text, TrainConfig(vocab_size=600))
    trainer.train()
    merges = trainer.tokenizer().merges
    out = {}
    for use in (False, True):
        with using(both_paths[use]):
            tok = Tokenizer(merges, pretokenizer=PreTokenizer("gpt2"))
            assert isinstance(tok.model.merge_ids, partial) != use  # the pure encoder is apply_merges bound to the ranks
            assert tok.model.by_text == use
            out[use] = tok.encode(text + "\n" + sample_text("chinese.txt"))
    assert out[True] == out[False]


# -- training ---------------------------------------------------------------------------------


@st.composite
def train_configs(draw):
    return {
        "base": draw(st.sampled_from(["bytes", "chars"])),
        "pretokenizer": draw(st.sampled_from(["none", "simple", "gpt2"])),
        "tie_rule": draw(st.sampled_from(["lowest-ids", "first-seen"])),
        "min_frequency": draw(st.sampled_from([1, 2, 3])),
        "max_merges": draw(st.integers(min_value=0, max_value=40)),
    }


@needs_compiled
@given(corpora(), train_configs())
def test_both_trainers_make_the_reference_merges(text, kw):
    expected, sizes = reference_train(text, **kw)
    runs = {}
    for use, native in ((False, PURE), (True, COMPILED)):
        with using(native):
            trainer = Trainer(text, TrainConfig(**kw))
            events = trainer.train()
            trainer._state.verify()
            tok = trainer.tokenizer()
            runs[use] = ([e.pair for e in events], [e.tokens_after for e in events], tok.encode(text))
            for _ in range(len(events)):  # undo walks back over what either loop left
                trainer.undo()
            trainer._state.verify()
    assert runs[True] == runs[False]
    assert runs[True][0] == expected and runs[True][1] == sizes


@needs_compiled
@given(st.lists(st.tuples(st.sampled_from(["put", "pop", "del", "copy"]), st.integers(0, 40),
                          st.lists(st.integers(0, 1 << 30), max_size=300)), max_size=120))
def test_the_compiled_occurrence_index_is_a_dict_of_arrays(ops):
    """engine.native.compiled.Where (every position list in one pool) against the pure path's
    dict of array('i'): the same lists after any puts, pops and deletes (lists long enough,
    and keys replaced often enough, for the pool to grow and to shed its garbage), and a copy
    is its own (changing it leaves the original)."""
    where, twin = compiled.Where(), {}
    copies = []
    for op, key, nodes in ops:
        if op == "put":
            where[key] = array("i", nodes)
            twin[key] = array("i", nodes)
        elif op == "pop":
            assert where.pop(key, None) == twin.pop(key, None)
        elif op == "del" and key in twin:
            del where[key], twin[key]
        elif op == "copy":
            copies.append((where.copy(), {k: list(v) for k, v in twin.items()}))
            where = copies[-1][0].copy()  # carry on with a copy of the copy
        assert len(where) == len(twin) and (key in where) == (key in twin)
        assert where.get(key) == twin.get(key)
    assert {k: list(v) for k, v in where.items()} == {k: list(v) for k, v in twin.items()}
    assert sorted(where) == sorted(twin) and where == twin
    for copy, then in copies:
        assert {k: list(v) for k, v in copy.items()} == then


@needs_compiled
@given(st.lists(st.tuples(st.lists(st.integers(0, 5), max_size=12), st.integers(1, 3)), max_size=20),
       st.integers(0, 5), st.integers(0, 5), st.integers(1, 3), st.sampled_from(["lowest-ids", "first-seen"]))
def test_a_merge_and_the_first_index_agree_between_paths(seqs, a, b, floor, rule):
    """The two merge loops on the same pair state, one merge of (a, b) after the first index:
    the same nodes afterwards, the same absorbed nodes and weight, and the same counts,
    histogram, occurrence lists (in order) and queue entries (weights above 1 stand for chunks
    that occur more than once; the floor keeps the pairs that can never win out)."""
    from engine.train.pair_state import PairState

    results = []
    for native in (PURE, COMPILED):
        with using(native):
            state = PairState([(list(s), w) for s, w in seqs], rule, floor)
            index = (dict(state.count), {k: list(v) for k, v in state.where.items()})
            record = state.merge(a, b, 99)
        state.verify()
        results.append((index, list(state.data), list(record.absorbed), record.removed, record.count,
                        dict(state.count), {c: n for c, n in state.hist.items() if n},
                        {k: list(v) for k, v in state.where.items()}, sorted(state.heap)))
    assert results[0] == results[1]


def _walk(seqs, rule, floor, ops):
    """A pair state driven through ``ops`` (merge the best pair, undo, read the top pairs, copy
    the state, jump back to a copy, own it): what each step read, with the state checked."""
    from engine.train.pair_state import PairState

    state = PairState([(list(s), w) for s, w in seqs], rule, floor)
    records: list = []
    copies: list = []
    trace = []
    for op, arg in ops:
        if op == "merge":
            chosen = state.choose(arg)
            trace.append(chosen)
            if chosen is not None:
                records.append(state.merge(chosen[0], chosen[1], 100 + len(records)))
        elif op == "undo" and records:
            state.unmerge(records.pop())
        elif op == "top":
            trace.append(state.top(arg))
        elif op == "copy":
            copies.append((state.snapshot(), list(records)))
        elif op == "jump" and copies:
            copy, then = copies[arg % len(copies)]
            if arg & 1:  # as engine.train.checkpoints takes one on a jump: the state's parts, owned
                state.own()
                copies.append((state.hand_over(), list(records)))
            state.restore(copy)
            records = list(then)
        elif op == "own":
            state.own()
        trace.append((state.tokens, {c: n for c, n in state.hist.items() if n}, sorted(state.heap) if op == "top" else None))
        state.verify()
    return trace


@needs_compiled
@given(st.lists(st.tuples(st.lists(st.integers(0, 4), max_size=14), st.integers(1, 3)), max_size=16),
       st.integers(1, 3), st.sampled_from(["lowest-ids", "first-seen"]),
       st.lists(st.tuples(st.sampled_from(["merge", "merge", "merge", "undo", "top", "copy", "jump", "own"]),
                          st.integers(0, 7)), max_size=40), st.integers(1, 4))
def test_merges_undos_and_jumps_read_the_same_queue_on_both_paths(seqs, floor, rule, ops, front):
    """The compiled core's pair counts and queue (engine.native.compiled.Counts and Queue) against the pure
    path's dict and heap of ints, through merges, undos, copies and jumps back: the same choices
    with their tie sets, the same top pairs, histogram and queue entries, each state verified.
    The read-ahead of ties (FRONT) is made short so that these small corpora run past it."""
    from engine.train import pair_state as _pairstate

    traces = []
    kept = _pairstate.FRONT
    try:
        _pairstate.FRONT = front
        for native in (PURE, COMPILED):
            with using(native):
                traces.append(_walk(seqs, rule, floor, ops))
    finally:
        _pairstate.FRONT = kept
    assert traces[0] == traces[1]


@needs_compiled
def test_the_compiled_counts_behave_as_a_dict():
    """engine.native.compiled.Counts, the compiled path's pair counts, as the dict it stands in for: set,
    get, pop, delete (the table shifts entries back over a hole), grow, copy, compare."""
    counts, mirror = compiled.Counts(), {}
    keys = [(i * 7919) % 5003 << 20 | i % 13 for i in range(3000)]
    for i, k in enumerate(keys):
        counts[k] = mirror[k] = i
    for k in keys[::3]:
        assert counts.pop(k) == mirror.pop(k)
    for k in keys[1::5]:
        if k in mirror:
            del counts[k], mirror[k]
    assert counts.pop(keys[0], "gone") == "gone" and counts.get(keys[0]) is None
    with pytest.raises(KeyError):
        counts[keys[0]]
    copy = counts.copy()
    copy[keys[2]] = -1
    assert len(counts) == len(mirror) and counts == mirror and dict(counts.items()) == mirror
    assert sorted(counts) == sorted(mirror) and sorted(counts.values()) == sorted(mirror.values())
    assert all(counts[k] == v for k, v in mirror.items()) and copy[keys[2]] == -1 != counts[keys[2]]


@needs_compiled
def test_a_64_bit_node_array_relinks_alike():
    """A chunk counted beyond 2**31 makes the node array 64-bit ('q'): the compiled loop takes it."""
    from engine.train.pair_state import PairState

    big = [([1, 2, 1, 2, 3], 1 << 33), ([2, 1, 2], 1)]
    out = []
    for native in (PURE, COMPILED):
        with using(native):
            state = PairState(big, "lowest-ids")
            assert state.data.typecode == "q"
            record = state.merge(1, 2, 300)
            state.verify()
            out.append((record.removed, list(record.absorbed), list(state.data), dict(state.count)))
    assert out[0] == out[1]


# -- the chunk cache --------------------------------------------------------------------------


def test_the_chunk_cache_keeps_two_generations(monkeypatch):
    monkeypatch.setattr(tokenizer_module, "_CACHE_LIMIT", 3)
    tok = Tokenizer([(104, 105)], pretokenizer=PreTokenizer("simple"))
    encoded = []
    real = tok.model.encode_chunk
    tok.model.encode_chunk = lambda chunk: encoded.append(chunk) or real(chunk)
    words = ["a", "b", "c", "d", "a", "e", "f", "g", "h", "b"]
    for word in words:
        assert tok.encode(word) == list(word.encode())
        assert len(tok._cache) + len(tok._cache._old_generation) <= 2 * 3
    # a, b, c fill the first generation; d turns it over; a comes back from the old one (not
    # encoded again) ... h turns over again (a, e and f become the old generation, b is gone).
    assert encoded == ["a", "b", "c", "d", "e", "f", "g", "h", "b"]
    assert tok.encode("hi") == [256]


# -- choosing the core ------------------------------------------------------------------------


def test_bpe_lab_pure_forces_the_pure_path():
    code = "import engine.native.door as c, engine; print(c.COMPILED is not None, c.backend().name, c.implementation())"
    run = subprocess.run([sys.executable, "-c", code], env={**os.environ, "BPE_LAB_PURE": "1"},
                         capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert run.stdout.strip() == "False pure pure (BPE_LAB_PURE is set)"
    tok = Tokenizer([(104, 105)])
    run = subprocess.run([sys.executable, "-c", "from engine import Tokenizer; print(Tokenizer([(104, 105)]).encode('hi hi'))"],
                         env={**os.environ, "BPE_LAB_PURE": "1"}, capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert run.stdout.strip() == str(tok.encode("hi hi"))


@needs_compiled
def test_a_compiled_core_built_from_other_source_is_not_used(monkeypatch, tmp_path):
    """An edit to any of the core's sources (compiled.pyx or a stage it includes) refuses the
    build; the sources as they are, or none at all (an installed copy's), take it."""
    monkeypatch.delenv(door.PURE_ENV, raising=False)
    assert door.load()[0] is not None and door.load(tmp_path)[0] is not None
    names = [path.name for path in sources.sources()]
    assert {"compiled.pyx", "encode.pxi", "train.pxi", "scan.pxi"} <= set(names)
    for edited in names:
        folder = tmp_path / edited
        folder.mkdir()
        for path in sources.sources():
            (folder / path.name).write_bytes(path.read_bytes() + (b"\n# edited since the build\n" if path.name == edited else b""))
        chosen, why = door.load(folder)
        assert chosen is None and "other versions" in why, edited


# -- building it ------------------------------------------------------------------------------


def build_wheel(folder: Path, env: dict[str, str], isolation: bool) -> subprocess.CompletedProcess:
    argv = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-v", "-w", str(folder), str(ROOT)]
    if not isolation:
        argv.insert(4, "--no-build-isolation")
    return subprocess.run(argv, capture_output=True, text=True, env={**os.environ, **env}, timeout=900)


@pytest.mark.slow
def test_a_failed_build_gives_a_pure_wheel_with_one_note(tmp_path):
    pytest.importorskip("hatchling")
    run = build_wheel(tmp_path, {"CC": "false", "LDSHARED": "false"}, isolation=False)
    assert run.returncode == 0, run.stderr[-2000:]
    notes = [line for line in (run.stdout + run.stderr).splitlines() if "the pure-Python engine is used" in line]
    assert len(notes) == 1, notes
    wheel = zipfile.ZipFile(next(tmp_path.glob("bpe_lab-*.whl")))
    assert not any(name.startswith("engine/native/compiled.") and name.endswith(".so") for name in wheel.namelist())
    assert "engine/native/door.py" in wheel.namelist() and wheel.filename.endswith("-py3-none-any.whl")


@pytest.mark.slow
def test_pip_builds_the_compiled_core_into_the_wheel(tmp_path):
    """The normal build (isolated: pip brings Cython and setuptools) compiles the core."""
    run = build_wheel(tmp_path, {}, isolation=True)
    if run.returncode != 0:
        pytest.skip(f"cannot build a wheel here: {run.stderr.strip().splitlines()[-1:]}")
    if "the pure-Python engine is used" in run.stdout + run.stderr:
        pytest.skip("no C compiler or Python headers here: the build fell back to pure Python")
    wheel = zipfile.ZipFile(next(tmp_path.glob("bpe_lab-*.whl")))
    assert [n for n in wheel.namelist() if n.startswith("engine/native/compiled.") and n.endswith(".so")]
    assert "-py3-none-any" not in wheel.filename  # a platform wheel


#: Characters of every string kind: ASCII, Latin-1, the BMP (CJK and U+FFFD), beyond it, a lone surrogate.
_CHARS = st.sampled_from("ab\xe9\xff\u4e00\u6c49\u3002\ufffd\U0001f600\udc80")


@needs_compiled
@given(st.dictionaries(st.text(_CHARS, max_size=6), st.integers(1, 1 << 33), max_size=10),
       st.none() | st.lists(_CHARS, max_size=6))
def test_the_chars_layout_read_from_strings_is_the_pure_one(chunks, alphabet):
    """The chars base laid out straight from the counted chunks (compiled: read from the strings
    in C) gives the pure twin's alphabet, node array, starts, token count and chunk lengths, with
    the alphabet found or given (repeated or missing characters too), empty chunks skipped."""
    pure = _trainloops.layout_chars(chunks, alphabet)
    made = COMPILED.layout_chars(chunks, alphabet)
    assert made[0] == pure[0]
    assert (made[1].typecode, list(made[1])) == (pure[1].typecode, list(pure[1]))
    assert (list(made[2]), made[3], list(made[4])) == (list(pure[2]), pure[3], list(pure[4]))
    for floor in (1, 2, 1 << 32):  # and the first index of it (64-bit weights too)
        counts, where = COMPILED.index_pairs(made[1], floor)
        pure_counts, pure_where = _trainloops.index_pairs(pure[1], floor)
        assert dict(counts.items()) == pure_counts  # (the C table lists in its own order)
        assert {k: list(v) for k, v in where.items()} == {k: list(v) for k, v in pure_where.items()}


#: Code points of every UTF-8 length, escaped bytes (U+DC80..U+DCFF) and a lone surrogate no byte stands for.
_BYTE_CHARS = st.sampled_from("ab\n \x7f\x80\xe9\xff\u07ff\u0800\u4e00\ufffd\U0001f600\U0010ffff\udc80\udcff")


@needs_compiled
@given(st.dictionaries(st.text(_BYTE_CHARS, max_size=6), st.integers(1, 1 << 33), max_size=10))
def test_the_bytes_layout_read_from_strings_is_the_pure_one(chunks):
    """The bytes base laid out straight from the counted chunks (compiled: each chunk's UTF-8,
    escaped bytes as the bytes they stand for, read from the string in C) gives the pure twin's
    node array, starts, token count and chunk lengths, empty chunks skipped."""
    pure = _trainloops.layout_bytes(chunks)
    made = COMPILED.layout_bytes(chunks)
    assert (made[0].typecode, list(made[0])) == (pure[0].typecode, list(pure[0]))
    assert (list(made[1]), made[2], list(made[3])) == (list(pure[1]), pure[2], list(pure[3]))


@needs_compiled
def test_the_bytes_layout_leaves_a_surrogate_no_byte_stands_for_to_the_pure_twin():
    """A lone surrogate outside U+DC80..U+DCFF has no bytes: the compiled layout gives up (None)
    and the pure one raises, as encoding it always did."""
    assert COMPILED.core.layout_bytes({"a\ud800": 1}) is None
    with pytest.raises(UnicodeEncodeError):
        COMPILED.layout_bytes({"a\ud800": 1})


def test_the_bytes_layout_is_the_one_of_the_chunks_as_bytes():
    """The pure twin lays out what the trainer's bytes base always did: each chunk's UTF-8."""
    data, starts, tokens, lengths = _trainloops.layout_bytes({"b\xe9": 2, "": 1, "a\udcff": 1})
    assert (list(data), list(starts), tokens) == tuple(
        (list(x) if isinstance(x, array) else x) for x in _trainloops.layout([(b"b\xc3\xa9", 2), (b"a\xff", 1)]))
    assert list(lengths) == [3, 0, 2]


@needs_compiled
@given(st.dictionaries(st.text("ab\xe9\udc80", max_size=3), st.integers(1, 1 << 70), max_size=8),
       st.dictionaries(st.text("ab\xe9\udc80", max_size=3), st.integers(1, 1 << 70), max_size=8))
def test_adding_counts_in_c_is_counter_update(into, part):
    """The compiled ``add_counts`` adds a partial table as Counter.update does: the same counts
    (past 64 bits too), a new chunk after the others in the part's order."""
    from collections import Counter

    expected, made = Counter(into), Counter(into)
    expected.update(part)
    COMPILED.add_counts(made, part)
    assert list(made.items()) == list(expected.items())
    PURE.add_counts(into := Counter(into), part)
    assert list(into.items()) == list(expected.items())


def test_the_chars_layout_is_the_one_of_the_chunks_as_id_lists():
    """The pure twin lays out what the trainer's chars base always did: each chunk's characters
    as their ids in the sorted alphabet, U+FFFD first."""
    alphabet, data, starts, tokens, lengths = _trainloops.layout_chars({"ba": 2, "": 1, "a\ufffd": 1}, None)
    assert alphabet == ["\ufffd", "a", "b"]
    assert (list(data), list(starts), tokens) == tuple(
        (list(x) if isinstance(x, array) else x) for x in _trainloops.layout([([2, 1], 2), ([1, 0], 1)]))
    assert list(lengths) == [2, 0, 2]


@needs_compiled
@given(st.lists(st.tuples(st.binary(min_size=1, max_size=12), st.integers(1, 1 << 33)), max_size=12))
def test_a_layout_of_bytes_is_the_layout_of_their_lists_on_both_paths(chunks):
    """The trainer hands the bytes base's chunks over as bytes: the node array, chunk starts and
    token count are those of the same chunks as lists of ids, compiled and pure (weights past
    2**31 make the array 64-bit)."""
    as_lists = [(list(c), w) for c, w in chunks]
    made = [_trainloops.layout(as_lists), _trainloops.layout(chunks), compiled.layout(as_lists), compiled.layout(chunks)]
    first = made[0]
    for data, starts, tokens in made:
        assert (data.typecode, list(data), list(starts), tokens) == (first[0].typecode, list(first[0]), list(first[1]), first[2])
