"""A usage error quotes what was given: a long argument (5000 digits, found by the fuzz test of
decode) is cut, so the error stays one short line."""

from __future__ import annotations

import io

import pytest

import tui.cli.commands as cli
from tui.cli.common import MAX_USAGE_MESSAGE


@pytest.mark.parametrize("argv", [
    ["decode", "-t", "t.json", "-1-" + "9" * 5000],
    ["train", "c.txt", "-o", "t.json", "--vocab-size", "9x" * 3000],
    ["encode", "-t", "t.json", "--" + "x" * 5000],
])
def test_a_long_argument_is_cut_in_the_usage_line(argv, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    err = io.StringIO()
    code = cli.main(argv, out=io.StringIO(), err=err)
    printed = err.getvalue()
    assert code == 2 and printed.count("\n") == 1 and printed.startswith("bpe-lab: error: ")
    assert len(printed) < MAX_USAGE_MESSAGE + 100 and "characters)" in printed, printed
