"""``bpe-lab encode -t encoder.json`` and ``-t vocab.bpe``: GPT-2's pair under OpenAI's names
(Whisper's GPT-2 pair renamed, tests/fetch_tokenizers.py) gives tiktoken's gpt2 ids; a lone
GPT-2 ``vocab.bpe`` exits 2 in one line naming the ``encoder.json`` it needs."""

from __future__ import annotations

import io
import shutil

import pytest
from helpers import openai_gpt2_pair, tiktoken_gpt2

import tui.cli.commands as cli

TEXT = "Grüße aus München! 分词器不认识汉字 Don't 1234 emoji 😀  x"


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    return openai_gpt2_pair(str(tmp_path_factory.mktemp("gpt2-openai-cli")))


@pytest.mark.parametrize("named", ["encoder.json", "vocab.bpe"])
def test_encode_with_either_file_prints_tiktokens_ids(pair, named, monkeypatch):
    enc = tiktoken_gpt2(pair)
    monkeypatch.chdir(pair)
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["encode", "-t", named, TEXT], out=out, err=err) == 0
    assert err.getvalue() == ""
    ids = [int(i) for i in out.getvalue().split()]
    assert ids == enc.encode(TEXT)
    out = io.StringIO()
    assert cli.main(["decode", "-t", named, *map(str, ids)], out=out, err=err) == 0
    assert out.getvalue().rstrip("\n") == TEXT and err.getvalue() == ""


def test_a_lone_gpt2_vocab_bpe_exits_2_in_one_line(pair, tmp_path, monkeypatch):
    shutil.copy(pair / "vocab.bpe", tmp_path / "vocab.bpe")
    monkeypatch.chdir(tmp_path)
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["encode", "-t", "vocab.bpe", "hi"], out=out, err=err) == 2
    assert out.getvalue() == ""
    assert err.getvalue() == "bpe-lab: error: encoder.json: no such file (a GPT-2 pair needs both encoder.json and vocab.bpe)\n"
