"""The files bpe-lab writes, read by the real libraries (``tokenizers``, ``tiktoken``), and files
the libraries write, read by bpe-lab: the same ids, text by text. Nothing is downloaded."""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import pytest
from helpers import SAMPLES, sample_text, shared_corpus
from hypothesis import given
from hypothesis import strategies as st

from engine import Tokenizer, TrainConfig, Trainer
from engine.formats import export_tokenizer
from engine.text.bytelevel import unicode_to_token
from engine.text.pretokenize import GPT4_PATTERN, LLAMA3_PATTERN, O200K_PATTERN

from test_cli import bpe_lab
from test_formats import CONFIGS, TEXTS, trained

tokenizers = pytest.importorskip("tokenizers")
tiktoken = pytest.importorskip("tiktoken")
from tiktoken.load import dump_tiktoken_bpe, load_tiktoken_bpe  # noqa: E402
from tokenizers import decoders, models, pre_tokenizers, trainers  # noqa: E402

SPECIALS = ("<pad>", "<eos>")


@pytest.fixture(scope="module", autouse=True)
def no_tiktoken_cache():
    """load_tiktoken_bpe caches files by path in a temp folder; test paths repeat across runs."""
    patch = pytest.MonkeyPatch()
    patch.setenv("TIKTOKEN_CACHE_DIR", "")
    yield
    patch.undo()


class Loaded:
    """One bpe-lab tokenizer and the libraries reading what bpe-lab wrote for it."""

    def __init__(self, folder: Path, pretokenizer: str) -> None:
        trainer = Trainer(sample_text("workshop.txt"),
                          TrainConfig(pretokenizer=pretokenizer, vocab_size=800, min_frequency=1, specials=SPECIALS))
        for _ in trainer.run():
            pass
        self.ours: Tokenizer = trainer.tokenizer()
        export_tokenizer(self.ours, "hf", folder / "tokenizer.json")
        export_tokenizer(self.ours, "gpt2", folder / "pair")
        export_tokenizer(self.ours, "tiktoken", folder / "tok.tiktoken")
        self.hf = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.pair = self._pair(folder / "pair", pretokenizer)
        side = json.loads((folder / "tok.tiktoken.json").read_text(encoding="utf-8"))
        self.tiktoken = tiktoken.Encoding(**side, mergeable_ranks=load_tiktoken_bpe(str(folder / "tok.tiktoken")))

    def _pair(self, folder: Path, pretokenizer: str):
        vocab, merges = str(folder / "vocab.json"), str(folder / "merges.txt")
        if pretokenizer == "gpt2":
            tok = tokenizers.ByteLevelBPETokenizer(vocab, merges)
        else:  # the pair holds no pattern: the reader supplies it, as for GPT-4's
            tok = tokenizers.Tokenizer(models.BPE.from_file(vocab, merges))
            tok.pre_tokenizer = pre_tokenizers.Sequence([
                pre_tokenizers.Split(tokenizers.Regex(GPT4_PATTERN), "isolated"),
                pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
            ])
            tok.decoder = decoders.ByteLevel()
        tok.add_special_tokens(list(SPECIALS))
        return tok

    def check(self, text: str) -> None:
        ids = self.ours.encode(text)
        assert self.hf.encode(text).ids == ids, ("tokenizers, tokenizer.json", text)
        assert self.pair.encode(text).ids == ids, ("tokenizers, vocab.json + merges.txt", text)
        assert self.tiktoken.encode(text, allowed_special="all") == ids, ("tiktoken", text)
        assert self.hf.decode(ids, skip_special_tokens=False) == text
        assert self.tiktoken.decode(ids) == text


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    return {name: Loaded(tmp_path_factory.mktemp(name), name) for name in ("gpt2", "gpt4")}


@pytest.mark.parametrize("pretokenizer", ["gpt2", "gpt4"])
def test_libraries_encode_our_files_exactly_as_we_do(loaded, pretokenizer):
    for text in TEXTS + [sample_text("workshop.txt"), "  leading spaces\n\n\n\ttabs\t\t", "9" * 40 + " 1 22 333 4444"]:
        loaded[pretokenizer].check(text)


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_every_configuration_loads_alike(tmp_path, name):
    """Both bases, every pre-tokenizer (a custom pattern that skips characters, digit and newline
    splitting) through tokenizer.json, and through tiktoken where one pattern can say it."""
    tok = trained(**CONFIGS[name])
    export_tokenizer(tok, "hf", tmp_path / "tokenizer.json")
    hf = tokenizers.Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    enc = None
    pre = tok.pretokenizer
    if tok.base == "bytes" and not (pre.split_digits or pre.split_newlines):
        export_tokenizer(tok, "tiktoken", tmp_path / "t.tiktoken")
        side = json.loads((tmp_path / "t.tiktoken.json").read_text(encoding="utf-8"))
        enc = tiktoken.Encoding(**side, mergeable_ranks=load_tiktoken_bpe(str(tmp_path / "t.tiktoken")))
    for text in TEXTS + ["unknown to the chars base: Ωψ ☃ \ufffd"]:
        ids = tok.encode(text)
        assert hf.encode(text).ids == ids, text
        assert hf.decode(ids, skip_special_tokens=False) == tok.decode(ids)
        if enc is not None:
            assert enc.encode(text, allowed_special="all") == ids, text


#: Text the three regex engines agree on: Python's ``regex`` knows newer Unicode than
#: Oniguruma and fancy-regex, so characters unassigned in this Python's Unicode are left out.
TEXT = st.lists(
    st.one_of(
        st.text(st.characters(exclude_categories=("Cs", "Cn")), max_size=12),
        st.text(st.sampled_from(list(" \t\n\r\x0b\x0c\x1c\x85\xa0\u2028\u3000'sdtlvrem0123456789aZüß中文😀\u200d\u0301")), max_size=12),
        st.sampled_from(["<eos>", "<pad>", "'ll", "'S", " 2024", "    ", "\r\n", "Müller"]),
    ),
    max_size=8,
).map("".join)


@given(TEXT)
def test_libraries_agree_on_generated_text(loaded, text):
    loaded["gpt2"].check(text)
    loaded["gpt4"].check(text)


# -- the hf tie rule against BpeTrainer -------------------------------------------------------


@pytest.mark.parametrize("name", ["the-verdict.txt", pytest.param("tang_2000.txt", marks=pytest.mark.slow)])
def test_hf_tie_rule_matches_bpe_trainer(name):
    path = shared_corpus(name)
    hf = tokenizers.Tokenizer(models.BPE())
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(vocab_size=4096, min_frequency=2, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    hf.train([str(path)], trainer)
    theirs = [tuple(map(unicode_to_token, m)) for m in json.loads(hf.to_str())["model"]["merges"]]
    with open(path, encoding="utf-8", newline="") as handle:  # \r\n reaches the pre-tokenizer
        text = handle.read()
    ours = Trainer(text, TrainConfig(tie_rule="hf", vocab_size=4096, min_frequency=2, pretokenizer="gpt2"))
    for _ in ours.run():
        pass
    tok = ours.tokenizer()
    assert len(theirs) > 1000
    assert [(tok.pieces[a], tok.pieces[b]) for a, b in tok.merges] == theirs


# -- files the libraries wrote, read by bpe-lab's command line ----------------------------------

PROBE = "Grüße aus München! The baker's 12345 rolls 🥐\n    def f(x):\n\treturn x  <eos>中文"


def encode_cli(*args: str) -> list[int]:
    run = bpe_lab("encode", *args, "--json", PROBE)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


@pytest.mark.slow
def test_files_tokenizers_wrote_encode_alike(tmp_path):
    hf = tokenizers.Tokenizer(models.BPE())
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    hf.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=600, min_frequency=2, special_tokens=list(SPECIALS), show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    hf.train([str(SAMPLES / "workshop.txt")], trainer)
    hf.save(str(tmp_path / "tokenizer.json"))
    (tmp_path / "pair").mkdir()
    hf.model.save(str(tmp_path / "pair"))  # vocab.json + merges.txt, HF's id order (specials first)
    expected = hf.encode(PROBE).ids
    assert 1 in expected  # <eos> is HF's id 1: the ids are the library's, not bpe-lab's
    assert encode_cli("-t", str(tmp_path / "tokenizer.json")) == expected
    assert encode_cli("-t", str(tmp_path / "pair" / "vocab.json")) == expected
    assert encode_cli("-t", str(tmp_path / "pair")) == expected
    run = bpe_lab("decode", "-t", str(tmp_path / "tokenizer.json"), json.dumps(expected))
    assert run.stdout.decode("utf-8") == PROBE


def test_a_tiktoken_file_tiktoken_wrote_encodes_alike(tmp_path, monkeypatch):
    from tiktoken._educational import bpe_train

    ranks = bpe_train(sample_text("workshop.txt"), 330, GPT4_PATTERN, visualise=None)
    # dump_tiktoken_bpe writes through blobfile; for a local path plain open() is what it does.
    monkeypatch.setitem(sys.modules, "blobfile", types.SimpleNamespace(BlobFile=open))
    dump_tiktoken_bpe(ranks, str(tmp_path / "workshop.tiktoken"))
    enc = tiktoken.Encoding(name="workshop", pat_str=GPT4_PATTERN, mergeable_ranks=ranks, special_tokens={})
    expected = enc.encode(PROBE)
    assert encode_cli("-t", str(tmp_path / "workshop.tiktoken"), "--pattern-name", "gpt4") == expected
    run = bpe_lab("encode", "-t", str(tmp_path / "workshop.tiktoken"), "abc")
    assert run.returncode == 2 and b"--pattern-name" in run.stderr and run.stderr.count(b"\n") == 1
    # the patterns of Llama 3's and of o200k's (GPT-4o, Llama 4) files go by name too
    for name, pattern in (("llama3", LLAMA3_PATTERN), ("o200k", O200K_PATTERN)):
        enc = tiktoken.Encoding(name=name, pat_str=pattern, mergeable_ranks=ranks, special_tokens={})
        assert encode_cli("-t", str(tmp_path / "workshop.tiktoken"), "--pattern-name", name) == enc.encode(PROBE)


# -- Whisper's multilingual.tiktoken: an empty token at the end (issue 11) ----------------------


def whisper_asset() -> Path | None:
    """Whisper's ``multilingual.tiktoken``, when it is on this machine: from an installed
    ``openai-whisper`` (it needs torch, so it is no test dependency; ``pip install --no-deps
    openai-whisper`` is enough), or in ``$BPE_LAB_WHISPER_ASSETS`` (a folder holding it, such as
    ``whisper/assets`` of the sdist ``pip download --no-deps openai-whisper`` fetches), or as
    tests/fetch_tokenizers.py fetches it."""
    import importlib.metadata
    import os

    from fetch_tokenizers import real_file

    folder = os.environ.get("BPE_LAB_WHISPER_ASSETS")
    if folder and (Path(folder) / "multilingual.tiktoken").is_file():
        return Path(folder) / "multilingual.tiktoken"
    try:
        path = Path(str(importlib.metadata.distribution("openai-whisper").locate_file("whisper/assets/multilingual.tiktoken")))
    except importlib.metadata.PackageNotFoundError:
        return real_file("whisper-multilingual.tiktoken")  # fetched from the sdist (tests/fetch_tokenizers.py)
    return path if path.is_file() else None


def check_against_tiktoken(path: Path, imported, texts: list[str], pat_str: str) -> None:
    """Every rank names the same bytes in bpe-lab's import, and texts encode to the same ids."""
    ranks = load_tiktoken_bpe(str(path))
    assert b"" in ranks  # tiktoken keeps the empty token; bpe-lab skips it
    for token, rank in ranks.items():
        if token:
            assert imported.tokenizer.token_bytes(imported.from_file_ids([rank])[0]) == token, rank
    enc = tiktoken.Encoding(name="w", pat_str=pat_str, mergeable_ranks=ranks, special_tokens={})
    for text in texts:
        assert imported.encode(text) == enc.encode(text), text
        assert imported.decode(enc.encode(text)) == text


def test_a_miniature_whisper_file_encodes_as_tiktoken_does(tmp_path):
    """Whisper's file in small: the bytes in GPT-2's order, merges, then ``= N``, an empty token."""
    from engine.formats import load_any
    from engine.text.bytelevel import hf_byte_rank
    from engine.text.pretokenize import GPT2_PATTERN, PreTokenizer

    tok = trained(pretokenizer="gpt2", vocab_size=600)
    rank = hf_byte_rank()  # GPT-2's encoder.json order: "!" is 0
    ids = [rank[b] for b in range(256)] + list(range(256, tok.vocab_size))
    export_tokenizer(tok, "tiktoken", tmp_path / "multilingual.tiktoken", ids=ids)
    with open(tmp_path / "multilingual.tiktoken", "a", encoding="ascii") as handle:
        handle.write(f"= {tok.vocab_size}\n")
    (tmp_path / "multilingual.tiktoken.json").unlink()  # Whisper ships no sidecar
    imported = load_any(tmp_path / "multilingual.tiktoken", pretokenizer=PreTokenizer("gpt2"))
    assert imported.warnings == [f"line {tok.vocab_size + 1} is an empty token (rank {tok.vocab_size}); skipped"]
    check_against_tiktoken(tmp_path / "multilingual.tiktoken", imported,
                           TEXTS + [sample_text("workshop.txt")], GPT2_PATTERN)


def test_whispers_real_file_encodes_as_tiktoken_does():
    path = whisper_asset()
    if path is None:
        pytest.skip("Whisper's multilingual.tiktoken is not here (see whisper_asset)")
    from engine.formats import load_any
    from engine.text.pretokenize import GPT2_PATTERN, PreTokenizer

    imported = load_any(path, pretokenizer=PreTokenizer("gpt2"))
    assert imported.warnings == ["line 50257 is an empty token (rank 50256); skipped"]
    check_against_tiktoken(path, imported, TEXTS + [sample_text("workshop.txt")], GPT2_PATTERN)


def test_added_tokens_json_beside_a_pair_is_read_as_transformers_does(tmp_path):
    """added_tokens.json (transformers' file beside vocab.json + merges.txt, as in Whisper's
    multilingual pair) holds tokens found whole in text: ids as tokenizers gives them with the
    same tokens added."""
    from engine.formats import load_any, read_paths
    from engine.text.pretokenize import PreTokenizer

    tok = trained(pretokenizer="gpt2", vocab_size=600)
    export_tokenizer(tok, "gpt2", tmp_path / "pair")
    added = {"<|endoftext|>": tok.vocab_size, "<|startoftranscript|>": tok.vocab_size + 1}
    (tmp_path / "pair" / "added_tokens.json").write_text(json.dumps(added), encoding="utf-8")
    imported = load_any(tmp_path / "pair", pretokenizer=PreTokenizer("gpt2"))
    assert tmp_path / "pair" / "added_tokens.json" in read_paths("gpt2", tmp_path / "pair")
    theirs = tokenizers.ByteLevelBPETokenizer(str(tmp_path / "pair" / "vocab.json"), str(tmp_path / "pair" / "merges.txt"))
    theirs.add_special_tokens(list(added))
    for text in TEXTS + ["a<|endoftext|>b <|startoftranscript|><|endoftext|>"]:
        assert imported.encode(text) == theirs.encode(text).ids, text
    assert imported.encode("<|endoftext|>") == [tok.vocab_size]


def test_added_tokens_json_that_contradicts_the_vocabulary_is_refused(tmp_path):
    from engine.errors import TokenizerFileError
    from engine.formats import load_any

    tok = trained(pretokenizer="gpt2", vocab_size=300)
    export_tokenizer(tok, "gpt2", tmp_path / "pair")
    (tmp_path / "pair" / "added_tokens.json").write_text(json.dumps({"<x>": 5}), encoding="utf-8")
    with pytest.raises(TokenizerFileError, match="added_tokens.json: added token '<x>' has id 5, which vocab.json gives to"):
        load_any(tmp_path / "pair")
