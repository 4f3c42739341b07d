"""SentencePiece BPE models, read by bpe-lab and by their own libraries: Mistral's ``.model``
files from mistral-common (tests/fetch_tokenizers.py) against ``sentencepiece``, and the
``tokenizer.json`` files transformers' converter makes of them against ``tokenizers``. Each
test skips, saying why, when its file or library cannot be had."""

from __future__ import annotations

import functools
import json

import pytest
from fetch_tokenizers import needed
from texts import INVALID
from texts import SPM_TEXTS as TEXTS

from engine.formats import load_any
from engine.formats.sentencepiece import BYTE, CONTROL, USER_DEFINED, parse_model

#: Llama 2's is made again from llama.cpp's copy of its vocabulary (no pip package ships the file;
#: tests/fetch_tokenizers.py, and test_formats_sentencepiece_llama2.py checks it).
MODELS = ["mistral-v1.model", "mistral-v2.model", "mistral-v3.model", "mistral-v7.model", "llama2-rebuilt.model"]

@functools.cache
def loaded(name: str):
    """(bpe-lab's import, sentencepiece's processor, one without the dummy prefix, raw bytes)."""
    spm = pytest.importorskip("sentencepiece")
    path = needed(name)
    raw = path.read_bytes()
    # Field 3 (normalizer_spec) again, with add_dummy_prefix (3) false: protobuf merges it into
    # the first, so this processor encodes a piece's text as it stands.
    bare = spm.SentencePieceProcessor()
    bare.LoadFromSerializedProto(raw + bytes([0x1A, 0x02, 0x18, 0x00]))
    return load_any(path), spm.SentencePieceProcessor(model_file=str(path)), bare, raw


@pytest.fixture(params=MODELS)
def model(request):
    return loaded(request.param)


def test_texts_and_invalid_bytes_encode_as_sentencepiece_does(model):
    imported, sp, _, _ = model
    assert imported.format == "sentencepiece"
    for text in TEXTS:
        assert imported.encode(text) == sp.encode(text), text
        assert imported.decode(sp.encode(text)) == sp.decode(sp.encode(text)), text
    for raw in INVALID:
        assert imported.encode(raw.decode("utf-8", "surrogateescape")) == sp.encode(raw), raw


def test_byte_fallback_and_the_prefix(model):
    """A character no piece holds is its UTF-8 bytes' pieces (<0xF0>...), the inspector's bytes
    are the byte itself, and every text starts with the ▁ prefix."""
    imported, sp, _, _ = model
    tok = imported.tokenizer
    ids = imported.encode("𓀀")
    assert [sp.id_to_piece(i) for i in ids] == ["▁", "<0xF0>", "<0x93>", "<0x80>", "<0x80>"] == sp.encode("𓀀", out_type=str)
    ours = imported.from_file_ids(ids)
    assert [tok.token_bytes(i) for i in ours] == [b"\xe2\x96\x81", b"\xf0", b"\x93", b"\x80", b"\x80"]
    assert imported.decode(ids) == "𓀀"
    newline = sp.piece_to_id("<0x0A>")
    assert imported.encode("a\nb").count(newline) == 1
    assert tok.normalize("two words") == "▁two▁words"
    assert sp.id_to_piece(imported.encode("hello")[0]).startswith("▁")


@pytest.mark.slow
def test_every_piece_on_its_own_encodes_as_sentencepiece_does(model):
    """Each normal piece's text, as it stands (no dummy prefix), and each control piece's."""
    imported, sp, bare, raw = model
    tok = imported.tokenizer
    own = wrong = 0
    bad = []
    for i, (text, _, kind) in enumerate(parse_model(raw).pieces):
        if kind == BYTE:
            continue  # a byte alone is not text; test_byte_fallback_and_the_prefix covers them
        if kind == CONTROL:
            assert imported.encode(text) == [i]  # a special token, as tokenizers finds it
            continue
        if kind == USER_DEFINED:
            assert imported.encode(text) == sp.encode(text)  # found after the ▁ prefix, as sentencepiece finds it
            continue
        ours = imported.to_file_ids(tok.encode_chunk(text))
        if ours != bare.encode(text):
            wrong += 1
            bad.append(text)
        own += ours == [i]
    assert not wrong, f"{wrong} pieces encode otherwise, first: {bad[:5]}"
    assert own > 0.99 * len(parse_model(raw).pieces) - 1100  # nearly every piece is its own id


def test_every_piece_on_its_own_sample(model):
    """The fast pass of the test above: every 50th piece."""
    imported, sp, bare, raw = model
    pieces = parse_model(raw).pieces
    for i in range(0, len(pieces), 50):
        text, _, kind = pieces[i]
        if kind in (BYTE, CONTROL, USER_DEFINED) or kind == 2:
            continue
        assert imported.to_file_ids(imported.tokenizer.encode_chunk(text)) == bare.encode(text), text


#: The models with user-defined pieces (v3's [REFERENCE_DOC_0]-[REFERENCE_DOC_19], v7's [REF] too).
USER_MODELS = ["mistral-v3.model", "mistral-v7.model"]


def user_defined(raw: bytes) -> list[tuple[int, str]]:
    return [(i, text) for i, (text, _, kind) in enumerate(parse_model(raw).pieces) if kind == USER_DEFINED]


@pytest.mark.parametrize("name", USER_MODELS)
def test_user_defined_pieces_encode_and_decode_as_sentencepiece_does(name):
    """sentencepiece finds a user-defined piece in the normalized text, whole, never merged with
    its neighbours: ``"[REF]"`` is ``▁`` + ``[REF]`` and the text after one keeps its own ``▁``.
    Decoding any of them (and the ids around) gives sentencepiece's text."""
    imported, sp, _, raw = loaded(name)
    pieces = user_defined(raw)
    assert pieces  # the file has them
    space = sp.piece_to_id("▁")
    for i, text in pieces:
        for around in ("{}", "see {} here", "x{}y", "{}{}", "  {}  a", "{}\n", "Grüße{}分词 {} 😀", " {}", "{} "):
            plain = around.format(text, text)
            theirs = sp.encode(plain)
            assert imported.encode(plain) == theirs, plain
            assert imported.decode(theirs) == sp.decode(theirs), plain
        for ids in ([i], [sp.bos_id(), i], [i, i], [space, i], [i, space], [i, *sp.encode("here")], [*sp.encode("a"), i]):
            assert imported.decode(ids) == sp.decode(ids), ids
    for text in TEXTS[:4]:  # texts with them put between words
        with_pieces = " ".join(f"{word}{pieces[k % len(pieces)][1]}" for k, word in enumerate(text.split(" ")))
        theirs = sp.encode(with_pieces)
        assert imported.encode(with_pieces) == theirs, with_pieces
        assert imported.decode(theirs) == sp.decode(theirs), with_pieces


@pytest.mark.parametrize("name", USER_MODELS)
def test_user_defined_pieces_survive_a_native_export(name, tmp_path):
    from engine.formats import export_tokenizer

    imported, sp, _, raw = loaded(name)
    export_tokenizer(imported.tokenizer, "native", tmp_path / "t.json", ids=imported.file_ids)
    again = load_any(tmp_path / "t.json").tokenizer
    assert again.user_defined == imported.tokenizer.user_defined == {text for _, text in user_defined(raw)}
    for _, text in user_defined(raw):
        plain = f"see {text} here"
        assert imported.to_file_ids(again.encode(plain)) == sp.encode(plain), plain


def test_an_hf_export_says_tokenizers_finds_user_defined_pieces_otherwise(tmp_path):
    """tokenizers finds an added token before it normalizes, so an hf export of a model with
    user-defined pieces says so (a tokenizer without them says nothing of it)."""
    from engine import Tokenizer
    from engine.formats import export_tokenizer
    from engine.formats.hf import user_defined_note

    imported, _, _, raw = loaded("mistral-v7.model")
    notes = export_tokenizer(imported.tokenizer, "hf", tmp_path / "tokenizer.json", ids=imported.file_ids)
    said = [note for note in notes if "user-defined" in note]
    assert len(said) == 1 and said[0].startswith(f"{len(user_defined(raw))} user-defined piece(s) ([/REF], ...)")
    assert user_defined_note(Tokenizer(specials=["<s>"])) == []


def test_the_trace_ends_where_encode_does(model):
    imported, sp, _, _ = model
    tok = imported.tokenizer
    for text in TEXTS[:8]:
        start, steps = tok.encode_trace(text)
        assert list(steps[-1].tokens if steps else start) == tok.encode(text), text


def test_native_export_reloads_identically(model, tmp_path):
    from engine.formats import export_tokenizer

    imported, sp, _, _ = model
    export_tokenizer(imported.tokenizer, "native", tmp_path / "t.json")
    again = load_any(tmp_path / "t.json").tokenizer
    assert again.byte_fallback and again.text_ranks == imported.tokenizer.text_ranks
    for text in TEXTS:
        assert again.encode(text) == imported.tokenizer.encode(text)


def test_unigram_model_is_refused_in_one_line(tmp_path):
    from engine.errors import TokenizerFileError

    path = needed("spm-unigram.model")
    with pytest.raises(TokenizerFileError) as info:
        load_any(path)
    message = str(info.value)
    assert "\n" not in message and "Unigram" in message and "compare" in message


# -- tokenizer.json: what transformers' converter makes of these models -----------------------


def converted(raw: bytes, *, legacy: bool) -> str:
    """The ``tokenizer.json`` transformers' ``LlamaConverter`` writes for a SentencePiece BPE
    model (its ``SentencePieceExtractor`` finds the merges): ``legacy`` the older form with
    Prepend/Replace normalizers, else a Metaspace pre-tokenizer (prepend_scheme first)."""
    pieces = parse_model(raw).pieces
    vocab = {text: i for i, (text, _, _) in enumerate(pieces)}
    scores = {text: score for text, score, _ in pieces}
    merges = []
    for piece, score in scores.items():
        local = [(piece[:k], piece[k:], score) for k in range(1, len(piece)) if piece[:k] in vocab and piece[k:] in vocab]
        merges.extend(sorted(local, key=lambda m: (vocab[m[0]], vocab[m[1]])))
    merges.sort(key=lambda m: m[2], reverse=True)
    added = [{"id": i, "content": text, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False,
              "special": True} for i, (text, _, kind) in enumerate(pieces) if kind in (2, CONTROL, USER_DEFINED)]
    decoder = {"type": "Sequence", "decoders": [
        {"type": "Replace", "pattern": {"String": "▁"}, "content": " "}, {"type": "ByteFallback"}, {"type": "Fuse"},
        {"type": "Strip", "content": " ", "start": 1, "stop": 0}]}
    if legacy:
        normalizer = {"type": "Sequence", "normalizers": [
            {"type": "Prepend", "prepend": "▁"}, {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]}
        pre = None
    else:
        normalizer = None
        pre = {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": False}
    return json.dumps({
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": added, "normalizer": normalizer,
        "pre_tokenizer": pre, "post_processor": None, "decoder": decoder,
        "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>", "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": True, "byte_fallback": True, "ignore_merges": False,
                  "vocab": vocab, "merges": [[a, b] for a, b, _ in merges]},
    }, ensure_ascii=False)


@functools.cache
def loaded_json(name: str, legacy: bool, folder: str):
    tokenizers = pytest.importorskip("tokenizers")
    _, _, _, raw = loaded(name)
    from pathlib import Path

    path = Path(folder) / f"{name}-{'legacy' if legacy else 'metaspace'}.json"
    path.write_text(converted(raw, legacy=legacy), encoding="utf-8")
    return load_any(path), tokenizers.Tokenizer.from_file(str(path))


@pytest.fixture(scope="module")
def json_folder(tmp_path_factory):
    return str(tmp_path_factory.mktemp("spm-json"))


@pytest.mark.parametrize("legacy", [True, False], ids=["prepend-replace", "metaspace"])
@pytest.mark.parametrize("name", ["mistral-v1.model", "mistral-v3.model", "llama2-rebuilt.model"])
def test_converted_tokenizer_json_encodes_as_tokenizers_does(name, legacy, json_folder):
    imported, hf = loaded_json(name, legacy, json_folder)
    assert imported.format == "hf"
    for text in TEXTS:
        theirs = hf.encode(text, add_special_tokens=False).ids
        assert imported.encode(text) == theirs, text
        assert imported.decode(theirs) == hf.decode(theirs), text


@pytest.mark.slow
@pytest.mark.parametrize("legacy", [True, False], ids=["prepend-replace", "metaspace"])
def test_converted_tokenizer_json_every_piece(legacy, json_folder):
    """Every piece's text through tokenizers' model alone (no normalizer) and bpe-lab's chunk."""
    imported, hf = loaded_json("mistral-v1.model", legacy, json_folder)
    _, _, _, raw = loaded("mistral-v1.model")
    wrong = []
    for text, _, kind in parse_model(raw).pieces:
        if kind != 1:
            continue
        theirs = [t.id for t in hf.model.tokenize(text)]
        if imported.to_file_ids(imported.tokenizer.encode_chunk(text)) != theirs:
            wrong.append(text)
    assert not wrong, f"{len(wrong)} pieces encode otherwise, first: {wrong[:5]}"


def test_the_replay_sees_the_corpus_as_the_model_does():
    """Replayed on a corpus, the merges meet ▁ where the text has spaces and before the text
    (sentencepiece's dummy prefix, given the corpus as one text; the corpus pane shows this
    text), and the replay's tokenizer normalizes and falls back to bytes as the model does."""
    from engine.train.trainer import Trainer

    imported, sp, _, _ = loaded("mistral-v1.model")
    text = "the cat sat on the mat\nthe cat ate the rat 𓀀\n"
    trainer = Trainer.replaying(text, imported.tokenizer)
    assert trainer.text == "▁" + text.replace(" ", "▁")
    first = trainer.step()
    assert first.pair == imported.tokenizer.merges[0] and first.count == text.count(" t") + 1  # ▁ + t
    tok = trainer.tokenizer()
    assert tok.byte_fallback and tok.normalize("a b") == "▁a▁b"
    assert imported.to_file_ids(tok.encode("𓀀"))[1:] == sp.encode("𓀀")[1:]  # the byte pieces


@pytest.mark.parametrize("name", ["mistral-v1.model", "mistral-v3.model", "llama2-rebuilt.model"])
def test_hf_export_gives_sentencepieces_ids_in_tokenizers(name, tmp_path):
    """An hf export of a .model is what transformers' converter writes: tokenizers reading it,
    and bpe-lab reading it back, give sentencepiece's ids."""
    tokenizers = pytest.importorskip("tokenizers")
    from engine.formats import export_tokenizer

    imported, sp, _, _ = loaded(name)
    export_tokenizer(imported.tokenizer, "hf", tmp_path / "tokenizer.json", ids=imported.file_ids)
    hf = tokenizers.Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    back = load_any(tmp_path / "tokenizer.json")
    for text in TEXTS:
        theirs = sp.encode(text)
        assert hf.encode(text, add_special_tokens=False).ids == theirs, text
        assert back.encode(text) == theirs, text
        assert hf.decode(theirs) == sp.decode(theirs), text


def test_hf_export_of_a_metaspace_file_keeps_tokenizers_ids(json_folder, tmp_path):
    """Metaspace read as normalizer steps, written back: tokenizers gives the file's ids (its
    prefix regex is \\A, not ^, which Oniguruma matches at every line start)."""
    tokenizers = pytest.importorskip("tokenizers")
    from engine.formats import export_tokenizer

    imported, hf = loaded_json("mistral-v1.model", False, json_folder)
    export_tokenizer(imported.tokenizer, "hf", tmp_path / "again.json", ids=imported.file_ids)
    again = tokenizers.Tokenizer.from_file(str(tmp_path / "again.json"))
    for text in TEXTS:
        assert again.encode(text, add_special_tokens=False).ids == hf.encode(text, add_special_tokens=False).ids, text

