"""A vocab.json + merges.txt pair whose added tokens are listed in transformers'
``tokenizer_config.json`` (``added_tokens_decoder``), not in added_tokens.json: Command-R's pair
keeps 2,411 of them in vocab.json, which bpe-lab took for a truncated merges.txt. Checked against
transformers' GPT2Tokenizer reading the same folder, on Whisper's real GPT-2 pair with added
tokens put in."""

from __future__ import annotations

import json
import shutil

import pytest
from fetch_tokenizers import needed_folder
from texts import TEXTS

from engine.errors import TokenizerFileError
from engine.formats import load_any

#: More added tokens than a truncated merges.txt may leave (MAX_SPECIALS is 1,000).
ADDED = [f"<|tool_{k}|>" for k in range(1200)] + ["<|START_OF_TURN_TOKEN|>", "<|END_OF_TURN_TOKEN|>"]


def folder_with_added(tmp_path, in_vocab: bool, config: bool):
    source = needed_folder("whisper-gpt2-pair")
    folder = tmp_path / "pair"
    folder.mkdir()
    for name in ("vocab.json", "merges.txt"):
        shutil.copy(source / name, folder / name)
    vocab = json.loads((folder / "vocab.json").read_text(encoding="utf-8"))
    first = max(vocab.values()) + 1
    ids = {token: first + k for k, token in enumerate(ADDED)}
    if in_vocab:  # Command-R's way: vocab.json holds them too
        vocab.update(ids)
        (folder / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
    if config:
        decoder = {str(i): {"content": t, "special": True, "lstrip": False, "rstrip": False, "normalized": False,
                            "single_word": False} for t, i in ids.items()}
        (folder / "tokenizer_config.json").write_text(json.dumps({"added_tokens_decoder": decoder,
                                                                   "tokenizer_class": "GPT2Tokenizer"}))
    return folder


@pytest.mark.slow
@pytest.mark.parametrize("in_vocab", [True, False])
def test_added_tokens_in_tokenizer_config_read_as_transformers_reads_them(tmp_path, in_vocab):
    transformers = pytest.importorskip("transformers")
    folder = folder_with_added(tmp_path, in_vocab, config=True)
    theirs = transformers.GPT2Tokenizer.from_pretrained(str(folder))
    ours = load_any(folder)
    for text in [*TEXTS, "<|START_OF_TURN_TOKEN|>hi<|tool_7|> there<|END_OF_TURN_TOKEN|>"]:
        assert ours.encode(text) == theirs.encode(text), text


def test_without_the_config_so_many_unmerged_entries_still_look_truncated(tmp_path):
    folder = folder_with_added(tmp_path, in_vocab=True, config=False)
    with pytest.raises(TokenizerFileError, match="is merges.txt truncated"):
        load_any(folder)
