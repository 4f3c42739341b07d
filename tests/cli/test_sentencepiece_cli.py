"""bpe-lab encode and decode on a SentencePiece ``.model`` (Mistral 7B v0.1's and v7's, fetched by
tests/fetch_tokenizers.py): sentencepiece's ids, and its decoding (``▁`` as spaces)."""

from __future__ import annotations

import pytest
from fetch_tokenizers import real_file, why_missing


def model_path(name: str = "mistral-v1.model"):
    path = real_file(name)
    if path is None:
        pytest.skip(f"{name} cannot be had: {why_missing(name)}")
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


def test_user_defined_pieces_encode_and_decode_as_sentencepiece(capsys):
    """``bpe-lab decode`` of a user-defined piece's id ([REF] in v7) prints sentencepiece's text
    (it stopped with an IndexError), and ``encode`` gives sentencepiece's ids around it."""
    spm = pytest.importorskip("sentencepiece")
    from tui.cli.commands import main

    path = model_path("mistral-v7.model")
    sp = spm.SentencePieceProcessor(model_file=str(path))
    ref = sp.piece_to_id("[REF]")
    text = "see [REF] here"
    assert main(["encode", "-t", str(path), text]) == 0
    assert [int(i) for i in capsys.readouterr().out.split()] == sp.encode(text)
    ids = [sp.bos_id(), *sp.encode(text), ref]
    assert main(["decode", "-t", str(path), *map(str, ids)]) == 0
    assert capsys.readouterr().out == sp.decode(ids) == "see [REF] here[REF]"
