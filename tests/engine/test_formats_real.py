"""Real tokenizer files from pip packages (tests/fetch_tokenizers.py), read by bpe-lab and by
their own library: the same ids for every token on its own and for text in many languages.
Each test skips, saying why, when its file cannot be had."""

from __future__ import annotations

import functools
import json

import pytest
from fetch_tokenizers import LLAMA3_PATTERN, load_cached, needed, needed_folder
from texts import INVALID, TEXTS

from engine.text.pretokenize import O200K_PATTERN  # checked against tiktoken's in test_pretokenize_same.py

tiktoken = pytest.importorskip("tiktoken")
from tiktoken.load import load_tiktoken_bpe  # noqa: E402

GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""

#: The rank files: name in the cache, the pattern their library gives tiktoken.
RANK_FILES = {
    "llama3.tiktoken": LLAMA3_PATTERN,
    "llama4.tiktoken": O200K_PATTERN,
    "whisper-gpt2.tiktoken": GPT2_PATTERN,
    "whisper-multilingual.tiktoken": GPT2_PATTERN,
}


#: load_any with the merge cache beside the fetched files (tests/fetch_tokenizers.py).
load_real = load_cached


@functools.cache
def loaded_rank_file(name: str):
    """(name, bpe-lab's import, the ranks, tiktoken's Encoding) for a rank file, read once."""
    from engine.text.pretokenize import PreTokenizer

    path = needed(name)
    imported = load_real(path, pretokenizer=PreTokenizer("custom", RANK_FILES[name]))
    ranks = load_tiktoken_bpe(str(path))
    enc = tiktoken.Encoding(name=name, pat_str=RANK_FILES[name], mergeable_ranks=ranks, special_tokens={})
    return name, imported, ranks, enc


@pytest.fixture(params=list(RANK_FILES))
def rank_file(request):
    return loaded_rank_file(request.param)


@pytest.mark.slow
def test_every_token_on_its_own_is_its_rank(rank_file):
    name, imported, ranks, enc = rank_file
    tok = imported.tokenizer
    wrong = []
    for token, rank in ranks.items():
        if not token:
            continue  # Whisper's empty token: skipped on reading, no text encodes to it
        ours = imported.to_file_ids(tok.encode_chunk(token.decode("utf-8", "surrogateescape")))
        if ours != [rank]:
            wrong.append((token, rank, ours))
    assert not wrong, f"{len(wrong)} tokens of {name} encode otherwise, first: {wrong[:3]}"


@pytest.mark.slow
def test_every_token_as_text_encodes_as_tiktoken_does(rank_file):
    """Each token's text through the pattern (which may split it) and the merges."""
    name, imported, ranks, enc = rank_file
    wrong = []
    for token in ranks:
        try:
            text = token.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if imported.encode(text) != enc.encode_ordinary(text):
            wrong.append(text)
    assert not wrong, f"{len(wrong)} token texts of {name} encode otherwise, first: {wrong[:5]}"


def test_texts_and_invalid_bytes_encode_as_tiktoken_does(rank_file):
    name, imported, ranks, enc = rank_file
    for text in TEXTS:
        assert imported.encode(text) == enc.encode_ordinary(text), text
        assert imported.decode(enc.encode_ordinary(text)) == text
    for raw in INVALID:
        ours = imported.to_file_ids(imported.tokenizer.encode(raw.decode("utf-8", "surrogateescape")))
        assert ours == enc._encode_bytes(raw), raw


def test_llama3_keeps_its_whole_piece_tokens():
    name, imported, ranks, enc = loaded_rank_file("llama3.tiktoken")
    tok = imported.tokenizer
    assert tok.whole_first and len(tok.whole_pieces) == 695
    assert tok.vocab_size == len(ranks) == 128000
    assert any("695 token(s)" in w and "whole-piece" in w for w in imported.warnings)
    text = "Türkiye Büyükşehir Belediyesi Ayrıca açıklama yaptı."
    assert imported.encode(text) == enc.encode_ordinary(text)
    assert len(enc.encode_ordinary(text)) == 10
    belediyesi = ranks[b" Belediyesi"]
    assert belediyesi in imported.encode(text)


@pytest.mark.slow
def test_llama3_exports_keep_its_whole_piece_tokens(tmp_path):
    """hf (ignore_merges) and tiktoken keep the whole-piece tokens, and their libraries give the
    file's ids; native keeps them too; the pair cannot, and says so."""
    tokenizers = pytest.importorskip("tokenizers")
    import json

    from engine.formats import export_tokenizer, load_any

    name, imported, ranks, enc = loaded_rank_file("llama3.tiktoken")
    tok, ids = imported.tokenizer, imported.file_ids
    warnings = export_tokenizer(tok, "hf", tmp_path / "tokenizer.json", ids=ids)
    assert len(warnings) == 1 and "merge by pair" in warnings[0]  # see test_llama3_merges_by_rank_as_tiktoken
    hf = tokenizers.Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    assert export_tokenizer(tok, "tiktoken", tmp_path / "l3.tiktoken", ids=ids) == []
    side = json.loads((tmp_path / "l3.tiktoken.json").read_text(encoding="utf-8"))
    again = tiktoken.Encoding(**side, mergeable_ranks=load_tiktoken_bpe(str(tmp_path / "l3.tiktoken")))
    export_tokenizer(tok, "native", tmp_path / "native.json")
    native = load_any(tmp_path / "native.json").tokenizer
    assert native.whole_pieces == tok.whole_pieces
    back = load_any(tmp_path / "tokenizer.json")
    assert back.tokenizer.whole_first and back.tokenizer.whole_pieces == tok.whole_pieces
    for text in [*TEXTS, " nghiệx"]:
        theirs = enc.encode_ordinary(text)
        assert again.encode_ordinary(text) == theirs, text
        assert imported.to_file_ids(native.encode(text)) == theirs, text
        if text == " nghiệx":
            assert hf.encode(text, add_special_tokens=False).ids != theirs  # as the warning says
            continue
        assert hf.encode(text, add_special_tokens=False).ids == theirs, text
        assert again.encode_ordinary(text) == theirs, text
        assert back.encode(text) == theirs, text
        assert imported.to_file_ids(native.encode(text)) == theirs, text
    warnings = export_tokenizer(tok, "gpt2", tmp_path / "pair", ids=ids)
    assert any("695 whole-piece token(s)" in w for w in warnings)


def test_llama3_merges_by_rank_as_tiktoken():
    """" nghiệ" is a whole-piece token (no merge makes it from its own bytes by rank), yet
    tiktoken builds it inside " nghiệx": merging by the rank of joined bytes does that."""
    name, imported, ranks, enc = loaded_rank_file("llama3.tiktoken")
    assert imported.tokenizer.whole_ranks is not None
    nghie = ranks[" nghiệ".encode()]
    for text in (" nghiệx", "Người nghiệa nghiệs", "a nghiệ."):
        assert imported.encode(text) == enc.encode_ordinary(text), text
    assert nghie in imported.encode(" nghiệx")
    start, steps = imported.tokenizer.encode_trace(" nghiệx ok")
    assert list(steps[-1].tokens if steps else start) == imported.tokenizer.encode(" nghiệx ok")


@pytest.mark.parametrize("name", ["tekken-240718.json", "tekken-240911.json"])
def test_tekken_reads_with_mistral_commons_ids(name):
    """Ids as mistral-common's Tekkenizer gives them (its tiktoken Encoding, ids offset by the
    special tokens); no mistral-common needed: the Encoding is built as it builds it."""
    import base64
    import json

    path = needed(name)
    imported = load_real(path)
    assert imported.format == "tekken"
    data = json.loads(path.read_text(encoding="utf-8"))
    config = data["config"]
    specials = config["default_num_special_tokens"]
    inner = config["default_vocab_size"] - specials
    ranks = {base64.b64decode(e["token_bytes"]): e["rank"] for e in data["vocab"][:inner]}
    enc = tiktoken.Encoding(name=name, pat_str=config["pattern"], mergeable_ranks=ranks, special_tokens={})
    assert imported.tokenizer.vocab_size == inner
    for text in TEXTS:
        assert imported.encode(text) == [t + specials for t in enc.encode(text)], text
        assert imported.decode(imported.encode(text)) == text
    wrong = [(t, r) for t, r in ranks.items() if imported.to_file_ids(imported.tokenizer.encode_chunk(
        t.decode("utf-8", "surrogateescape"))) != [r + specials]]
    assert not wrong, wrong[:3]


#: Texts Anthropic's NFKC normalizer changes (full-width comma, ellipsis, no-break spaces, a
#: ligature, a math digit) and ones it leaves.
NFKC_TEXTS = ["Hello，world", "Wait…", "a\xa0b\u202fc", "ﬁnance ﬂow", "𝟙𝟚𝟛", "①②", "Ｔｏｋｙｏ",
              "cafe\u0301", "x² + y³", "ｶﾀｶﾅ", "plain text", "", " spaced  out ", "\u3000ideographic",
              "Ωmega Å"]


def test_anthropics_normalizer_gives_tokenizers_ids():
    tokenizers = pytest.importorskip("tokenizers")
    path = needed("anthropic.json")
    imported = load_real(path)
    assert imported.tokenizer.normalizer is not None and imported.tokenizer.normalizer.summary == "NFKC"
    assert not any("normalizer" in w for w in imported.warnings)
    theirs = tokenizers.Tokenizer.from_file(str(path))
    changed = 0
    for text in NFKC_TEXTS + TEXTS:
        assert imported.encode(text) == theirs.encode(text, add_special_tokens=False).ids, text
        changed += imported.tokenizer.normalize(text) != text
    assert changed >= 10


def test_qwen25_reads_with_tokenizers_ids():
    """Qwen 2.5's tokenizer.json gives its BPE model ``"end_of_word_suffix": ""`` (and
    ``"continuing_subword_prefix": ""``), which tokenizers reads as none: so does bpe-lab."""
    tokenizers = pytest.importorskip("tokenizers")
    path = needed("qwen2.5.json")
    raw = path.read_bytes()
    assert b'"end_of_word_suffix": ""' in raw and b'"continuing_subword_prefix": ""' in raw
    imported = load_real(path)
    assert imported.tokenizer.end_of_word is None and imported.tokenizer.subword_prefix is None
    theirs = tokenizers.Tokenizer.from_file(str(path))
    assert theirs.model.end_of_word_suffix == ""  # kept as given, and appending nothing
    chat = "<|im_start|>user\nGrüße, 你好<|im_end|>\n<|im_start|>assistant\n"
    for text in [*NFKC_TEXTS, *TEXTS, chat]:
        ids = theirs.encode(text, add_special_tokens=False).ids
        assert imported.encode(text) == ids, text
        assert imported.decode(ids) == theirs.decode(ids, skip_special_tokens=False), text


@pytest.mark.parametrize("marks", [{"end_of_word_suffix": ""}, {"continuing_subword_prefix": ""},
                                   {"end_of_word_suffix": None, "continuing_subword_prefix": None},
                                   {"end_of_word_suffix": "", "continuing_subword_prefix": ""}],
                         ids=["suffix-empty", "prefix-empty", "both-null", "both-empty"])
def test_an_empty_suffix_or_prefix_is_none_as_in_tokenizers(marks, tmp_path):
    """Whisper's GPT-2 pair as tokenizers saves it, with the suffix or prefix given as "" or
    null (tokenizers appends and prepends nothing then): tokenizers' ids, each token its own."""
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import decoders, models, pre_tokenizers

    from engine.formats import load_any
    from engine.text.bytelevel import unicode_to_token

    folder = needed_folder("whisper-gpt2-pair")
    tok = tokenizers.Tokenizer(models.BPE.from_file(str(folder / "vocab.json"), str(folder / "merges.txt")))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.save(str(tmp_path / "saved.json"))
    data = json.loads((tmp_path / "saved.json").read_text(encoding="utf-8"))
    data["model"].update(marks)
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    theirs = tokenizers.Tokenizer.from_file(str(path))
    imported = load_any(path)
    assert imported.tokenizer.end_of_word is None and imported.tokenizer.subword_prefix is None
    for text in TEXTS:
        ids = theirs.encode(text).ids
        assert imported.encode(text) == ids, text
        assert imported.decode(ids) == theirs.decode(ids) == text, text
    for name in list(data["model"]["vocab"])[::97]:  # tokens alone (every 97th), as tokenizers' model merges them
        text = unicode_to_token(name).decode("utf-8", "surrogateescape")
        assert imported.to_file_ids(imported.tokenizer.encode_chunk(text)) == [t.id for t in theirs.model.tokenize(name)], name


@pytest.mark.parametrize("name", ["mistral-v1.model", "mistral-v3.model", "mistral-v7.model", "llama2-rebuilt.model",
                                  "spm-unigram.model"])
def test_sentencepiece_models_are_detected_and_a_unigram_one_refused(name):
    """BPE models are read (tests/test_formats_sentencepiece.py checks their ids); Unigram is refused by name."""
    from engine.errors import TokenizerFileError
    from engine.formats import detect_format, load_any

    path = needed(name)
    assert detect_format(path) == "sentencepiece"
    if name == "spm-unigram.model":
        with pytest.raises(TokenizerFileError, match="a SentencePiece Unigram model"):
            load_any(path)
    else:
        assert load_any(path).tokenizer.byte_fallback
