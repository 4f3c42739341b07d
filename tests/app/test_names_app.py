"""The app's ``--tokenizer NAME`` (engine.formats.catalog): one line saying how to fetch a name
not fetched yet, and the name's file once it is (a local index: tests/cli/test_fetch.py)."""

from __future__ import annotations

from local_index import local_index, run  # noqa: F401  (local_index: the fixture "index")


def test_the_app_replays_a_name_once_fetched_and_says_how_before(index, capsys):
    import argparse

    from tui.app.launch import imported_tokenizer, launch

    assert launch(["--tokenizer", "cl100k"]) == 2
    err = capsys.readouterr().err
    assert err.strip().endswith("not fetched yet: bpe-lab fetch cl100k (downloads 10.6 MB, tiktoken 1.0.22 (npm), "
                                "once; then it works offline)") and err.count("\n") == 1
    assert run("fetch", "cl100k")[0] == 0
    args = argparse.Namespace(tokenizer="cl100k", pattern=None, pattern_name=None)
    imported = imported_tokenizer(args)
    assert imported.tokenizer.encode("hi") == [256] and imported.format == "tiktoken"
