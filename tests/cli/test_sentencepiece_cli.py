"""bpe-lab encode and decode on a SentencePiece ``.model`` (Mistral 7B v0.1's, fetched by
tests/fetch_tokenizers.py): sentencepiece's ids, and its decoding (``▁`` as spaces)."""

from __future__ import annotations

import pytest
from fetch_tokenizers import real_file, why_missing


def model_path():
    path = real_file("mistral-v1.model")
    if path is None:
        pytest.skip(f"mistral-v1.model cannot be had: {why_missing('mistral-v1.model')}")
    return path


@pytest.mark.slow
def test_encode_and_decode_speak_sentencepiece(capsys):
    spm = pytest.importorskip("sentencepiece")
    from tui.cli.commands import main

    path = model_path()
    sp = spm.SentencePieceProcessor(model_file=str(path))
    text = "Grüße 𓀀 two  spaces"
    assert main(["encode", "-t", str(path), text]) == 0
    ids = [int(i) for i in capsys.readouterr().out.split()]
    assert ids == sp.encode(text)
    assert main(["decode", "-t", str(path), *map(str, [sp.bos_id(), *ids])]) == 0
    assert capsys.readouterr().out == sp.decode(ids) == text
    assert main(["encode", "--pieces", "-t", str(path), "𓀀"]) == 0
    assert capsys.readouterr().out.strip() == "▁|[f0]|[93]|[80]|[80]"
