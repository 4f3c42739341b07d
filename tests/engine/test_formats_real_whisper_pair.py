"""Whisper's vocab.json + merges.txt pairs (openai-whisper 20230308's sdist, the last before its
.tiktoken files; tests/fetch_tokenizers.py), read by bpe-lab and by the libraries that read them:
transformers' GPT2Tokenizer (which reads ``added_tokens.json`` beside the pair: ``<|endoftext|>``
is 50257 in the multilingual one), ``tokenizers`` built from the same files, and tiktoken with
Whisper's own rank files. Each test skips, saying why, when a file or library cannot be had."""

from __future__ import annotations

import ast
import functools
import json
import shutil

import pytest
from fetch_tokenizers import load_cached, needed, needed_folder
from texts import INVALID, TEXTS

from engine.text.bytelevel import unicode_to_token

KINDS = ["multilingual", "gpt2"]
GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
EOT = "<|endoftext|>"
#: Texts with the added token inside words, at the ends, twice, and beside spaces.
WITH_EOT = [f"a {EOT} b", EOT, f"x{EOT}y{EOT}", f" {EOT}  hello{EOT}\n", f"<|endoftext|{EOT}>"]


@functools.cache
def pair(kind: str):
    """(the pair's folder, bpe-lab's import, its vocab.json) for Whisper's ``kind`` pair."""
    folder = needed_folder(f"whisper-{kind}-pair")
    return folder, load_cached(folder), json.loads((folder / "vocab.json").read_text(encoding="utf-8"))


@pytest.fixture(params=KINDS)
def kind(request):
    return request.param


def transformers_tokenizer(folder):
    transformers = pytest.importorskip("transformers", reason="transformers reads added_tokens.json beside a pair")
    return transformers.GPT2Tokenizer.from_pretrained(str(folder))


def tokenizers_tokenizer(folder, vocab):
    """A ``tokenizers`` byte-level BPE from the same two files, with ``<|endoftext|>`` added as
    the special token (its id is the pair's, or the next free one, as added_tokens.json says)."""
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import AddedToken, decoders, models, pre_tokenizers

    tok = tokenizers.Tokenizer(models.BPE.from_file(str(folder / "vocab.json"), str(folder / "merges.txt")))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens([AddedToken(EOT, special=True, normalized=False)])
    return tok


def test_every_token_on_its_own_is_its_id(kind):
    folder, imported, vocab = pair(kind)
    tok = imported.tokenizer
    wrong = []
    for name, i in vocab.items():
        if not name or name == EOT:
            continue  # the empty entry (a note says so); the special token: below
        text = unicode_to_token(name).decode("utf-8", "surrogateescape")
        ours = imported.to_file_ids(tok.encode_chunk(text))
        if ours != [i]:
            wrong.append((name, i, ours))
    assert not wrong, f"{len(wrong)} tokens of Whisper's {kind} pair encode otherwise, first: {wrong[:3]}"
    assert len(vocab) - tok.vocab_size <= 1  # every entry but the empty one is a token


@pytest.mark.slow
def test_every_token_as_text_encodes_as_transformers_does(kind):
    folder, imported, vocab = pair(kind)
    hf = transformers_tokenizer(folder)
    wrong = []
    for name in vocab:
        try:
            text = unicode_to_token(name).decode("utf-8")
        except UnicodeDecodeError:
            continue
        if imported.encode(text) != hf.encode(text):
            wrong.append(text)
    assert not wrong, f"{len(wrong)} token texts encode otherwise, first: {wrong[:5]}"


def test_texts_encode_as_transformers_and_tokenizers_do(kind):
    """transformers reads the pair with its added_tokens.json; tokenizers gets the special
    token by hand; both agree with bpe-lab, special token in the text or not."""
    folder, imported, vocab = pair(kind)
    hf = transformers_tokenizer(folder)
    fast = tokenizers_tokenizer(folder, vocab)
    for text in TEXTS + WITH_EOT:
        theirs = hf.encode(text)
        assert imported.encode(text) == theirs, text
        assert fast.encode(text, add_special_tokens=False).ids == theirs, text
        assert imported.decode(theirs) == hf.decode(theirs) == text, text
    eot = imported.encode(EOT)
    assert eot == [50257 if kind == "multilingual" else 50256] == [hf.convert_tokens_to_ids(EOT)]


def test_multilingual_eot_comes_from_added_tokens_json(tmp_path):
    """The multilingual vocab.json lacks <|endoftext|> (its 50256 is the empty entry): without
    added_tokens.json the text is split into pieces, with it it is one token, 50257."""
    folder, imported, vocab = pair("multilingual")
    assert EOT not in vocab and vocab[""] == 50256
    assert json.loads((folder / "added_tokens.json").read_text(encoding="utf-8")) == {EOT: 50257}
    assert any('empty entry ""' in w and "50256" in w for w in imported.warnings)
    bare = tmp_path / "bare"
    bare.mkdir()
    for name in ("vocab.json", "merges.txt"):
        shutil.copy(folder / name, bare / name)
    without = load_cached(bare)
    assert len(without.encode(EOT)) > 1 and 50257 not in without.encode(f"a {EOT} b")
    assert imported.encode(f"a {EOT} b")[-2] == 50257


def test_the_pair_and_the_rank_file_agree(kind):
    """Whisper's later .tiktoken file holds the same ranks; tiktoken gives the pair's ids, and
    bytes that are not UTF-8 encode as tiktoken's bytes do."""
    tiktoken = pytest.importorskip("tiktoken")
    from tiktoken.load import load_tiktoken_bpe

    folder, imported, vocab = pair(kind)
    ranks = load_tiktoken_bpe(str(needed(f"whisper-{kind}.tiktoken")))
    assert {key: i for key, i in ranks.items() if key} == {unicode_to_token(n): i for n, i in vocab.items() if n and n != EOT}
    specials = {EOT: imported.encode(EOT)[0]}
    enc = tiktoken.Encoding(name=kind, pat_str=GPT2_PATTERN, mergeable_ranks=ranks, special_tokens=specials)
    for text in TEXTS + WITH_EOT:
        assert imported.encode(text) == enc.encode(text, allowed_special="all"), text
    for raw in INVALID:
        ours = imported.to_file_ids(imported.tokenizer.encode(raw.decode("utf-8", "surrogateescape")))
        assert ours == enc._encode_bytes(raw), raw


def whisper_specials() -> list[str]:
    """The special tokens Whisper's tokenizer.py (20230308) adds to a pair, in its order: read
    from the file (its LANGUAGES and the list in build_tokenizer)."""
    tree = ast.parse(needed("whisper-tokenizer.py").read_text(encoding="utf-8"))
    languages: list[str] = []
    specials: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            if node.targets[0].id == "LANGUAGES" and isinstance(node.value, ast.Dict):
                languages = [k.value for k in node.value.keys if isinstance(k, ast.Constant)]
            elif node.targets[0].id == "specials" and isinstance(node.value, ast.List):
                for element in node.value.elts:
                    if isinstance(element, ast.Constant):
                        specials.append(element.value)
                    else:  # *[f"<|{lang}|>" for lang in LANGUAGES.keys()]
                        specials += [f"<|{lang}|>" for lang in languages]
    assert languages and specials, "Whisper's tokenizer.py changed shape"
    return specials


def test_whispers_own_special_tokens_in_added_tokens_json(tmp_path):
    """Whisper adds its task and language tokens to the multilingual pair; transformers keeps
    them in added_tokens.json (its get_added_vocab, what save_pretrained wrote). bpe-lab reads
    that file and finds each in text as transformers does."""
    folder, _, vocab = pair("multilingual")
    hf = transformers_tokenizer(folder)
    specials = whisper_specials()
    hf.add_special_tokens({"additional_special_tokens": specials})
    added = hf.get_added_vocab()
    assert added["<|startoftranscript|>"] == 50258 and added["<|notimestamps|>"] == 50258 + len(specials) - 1
    for name in ("vocab.json", "merges.txt"):
        shutil.copy(folder / name, tmp_path / name)
    (tmp_path / "added_tokens.json").write_text(json.dumps(added), encoding="utf-8")
    imported = load_cached(tmp_path)
    assert set(imported.tokenizer.specials) == set(added)
    prompt = "<|startoftranscript|><|de|><|transcribe|><|notimestamps|> Grüße aus München!<|endoftext|>"
    texts = [prompt, "<|startofprev|> earlier text<|startoftranscript|><|en|><|translate|>", "<|xx|> <|en|>x",
             *(f"a{s}b" for s in specials[::9])]
    for text in TEXTS + texts:
        theirs = hf.encode(text)
        assert imported.encode(text) == theirs, text
        assert imported.decode(theirs) == text, text
    assert imported.encode(prompt)[:4] == [hf.convert_tokens_to_ids(s) for s in
                                           ("<|startoftranscript|>", "<|de|>", "<|transcribe|>", "<|notimestamps|>")]

