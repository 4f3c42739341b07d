"""The files a load opens besides the one named (merges beside a vocab, added tokens, a rank
file's sidecar): kept where the named one is allowed (a lesson's folder, serve's root), never
quoted when they lead elsewhere, and read through links where a cache keeps them so."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import engine.corpus.files as files
from engine.corpus import reading_within
from engine.errors import TokenizerFileError
from engine.formats import load_any

from bad_input_files import SECRET_LINE, companion_link, gpt2_pair, sidecar_link


def refusal(path: Path) -> str:
    with pytest.raises(TokenizerFileError) as caught:
        load_any(path)
    return str(caught.value)


def test_a_companion_that_links_out_is_named_and_never_quoted(tmp_path):
    pair = companion_link(tmp_path)
    for named in (pair / "vocab.json", pair):  # the vocabulary, or the folder, named
        line = refusal(named)
        assert SECRET_LINE not in line and "/bin/bash" not in line
        assert line.startswith(f"{pair / 'merges.txt'}: is not what {named} needs beside it")


def test_the_named_file_itself_is_quoted_as_before(tmp_path):
    pair = companion_link(tmp_path)
    assert SECRET_LINE in refusal(pair / "merges.txt")  # the user named it: what is wrong is shown


def test_added_tokens_and_sidecars_that_link_out_are_not_quoted(tmp_path):
    pair = gpt2_pair(tmp_path, ["a b"])
    (tmp_path / "added.json").write_text(json.dumps({SECRET_LINE: 3}), encoding="utf-8")  # id 3 is a byte's
    (pair / "added_tokens.json").symlink_to("../added.json")
    line = refusal(pair / "vocab.json")
    assert SECRET_LINE not in line and line.startswith(f"{pair / 'added_tokens.json'}: is not what")
    side = sidecar_link(tmp_path)
    line = refusal(side.with_name("t.tiktoken"))
    assert SECRET_LINE not in line and line.startswith(f"{side}: is not what")
    shutil.copy(tmp_path / "side.json", side.with_name("copy.json"))  # the same sidecar beside it: quoted
    side.unlink()
    side.with_name("copy.json").rename(side)
    assert SECRET_LINE in refusal(side.with_name("t.tiktoken"))


def test_a_cache_of_links_to_blobs_loads_as_the_plain_files_do(tmp_path):
    """Hugging Face's cache: snapshots/REV/vocab.json -> ../../blobs/HASH, and so each file."""
    plain = gpt2_pair(tmp_path, ["a b", "ab c"], folder="plain")
    cache = tmp_path / "models--x"
    (cache / "blobs").mkdir(parents=True)
    (cache / "snapshots" / "rev").mkdir(parents=True)
    for i, name in enumerate(("vocab.json", "merges.txt")):
        shutil.copy(plain / name, cache / "blobs" / f"blob{i}")
        (cache / "snapshots" / "rev" / name).symlink_to(f"../../blobs/blob{i}")
    expected = load_any(plain).encode("abc ab")
    for named in (cache / "snapshots" / "rev", cache / "snapshots" / "rev" / "vocab.json"):
        assert load_any(named).encode("abc ab") == expected


def test_reading_within_refuses_before_anything_is_read(tmp_path, monkeypatch):
    pair = companion_link(tmp_path)
    opened: list[str] = []
    real = files.read_bounded
    monkeypatch.setattr(files, "read_bounded", lambda path, **kw: opened.append(str(path)) or real(path, **kw))
    with reading_within([tmp_path / "pair"], "is outside the pair"), pytest.raises(TokenizerFileError) as caught:
        load_any(pair / "vocab.json")
    assert str(caught.value) == f"{pair / 'merges.txt'}: is outside the pair"
    assert not any(name.endswith("secret.txt") or name.endswith("merges.txt") for name in opened)
    with reading_within([tmp_path], "is outside"), reading_within([tmp_path / "pair"], "is outside the pair"):
        with pytest.raises(TokenizerFileError, match="is outside the pair"):  # nested: each must hold
            load_any(pair / "vocab.json")


def test_an_error_about_the_named_file_shows_nothing_of_a_companion_read_elsewhere(tmp_path):
    """merges.txt named, vocab.json a link out: the "entries made by no merge" line would quote
    the first of the outside file's entries, and it is said of the named merges.txt."""
    pair = gpt2_pair(tmp_path, ["a b"])
    vocab = json.loads((pair / "vocab.json").read_text(encoding="utf-8"))
    vocab.update({f"{SECRET_LINE}{i}": len(vocab) + i for i in range(1001)})
    (tmp_path / "outside.json").write_text(json.dumps(vocab), encoding="utf-8")
    (pair / "vocab.json").unlink()
    (pair / "vocab.json").symlink_to("../outside.json")
    line = refusal(pair / "merges.txt")
    assert SECRET_LINE not in line
    assert line == (f"{pair / 'vocab.json'}: is not what {pair / 'merges.txt'} needs beside it (it leads to a file "
                    "outside that folder, whose content is not shown)")
    (pair / "vocab.json").unlink()
    (pair / "vocab.json").write_text(json.dumps(vocab), encoding="utf-8")  # beside it: said in full
    assert SECRET_LINE in refusal(pair / "merges.txt")


def test_openais_names_go_through_the_same_door(tmp_path, monkeypatch):
    """encoder.json + vocab.bpe (GPT-2's pair under OpenAI's names): each finds the other, which
    ``reads`` lists, and a partner that links out is refused unread in a lesson and never quoted."""
    from engine.formats import read_paths

    pair = companion_link(tmp_path)
    (pair / "vocab.json").rename(pair / "encoder.json")
    (pair / "merges.txt").rename(pair / "vocab.bpe")  # (the link out, renamed)
    assert read_paths("gpt2", pair / "encoder.json")[:2] == [pair / "encoder.json", pair / "vocab.bpe"]
    assert read_paths("gpt2", pair / "vocab.bpe")[:2] == [pair / "encoder.json", pair / "vocab.bpe"]
    line = refusal(pair / "encoder.json")
    assert SECRET_LINE not in line and line.startswith(f"{pair / 'vocab.bpe'}: is not what {pair / 'encoder.json'} needs")
    opened: list[str] = []
    real = files.read_bounded
    monkeypatch.setattr(files, "read_bounded", lambda path, **kw: opened.append(str(path)) or real(path, **kw))
    with reading_within([pair], "is outside the pair"), pytest.raises(TokenizerFileError) as caught:
        load_any(pair / "encoder.json")
    assert str(caught.value) == f"{pair / 'vocab.bpe'}: is outside the pair"
    assert not any(name.endswith(("secret.txt", "vocab.bpe")) for name in opened)
    (pair / "vocab.bpe").unlink()
    (pair / "vocab.bpe").write_text("#version: 0.2\na b\n", encoding="utf-8")  # beside it: read
    assert load_any(pair / "encoder.json").format == load_any(pair / "vocab.bpe").format == "gpt2"
