"""The bar a slow tokenizer load shows on a terminal (tui/cli/progress.loading_bar): the first
use of a .tiktoken file reports its stages; a pipe, --quiet or a warm load show nothing."""

from __future__ import annotations

import base64
import io

from engine.formats import loading
from tui.cli.commands import main
from tui.cli.progress import loading_bar


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def rank_file(tmp_path):
    tokens = [bytes([b]) for b in range(256)] + [b"he", b"ll", b"hell", b"hello", b"lo"]
    path = tmp_path / "r.tiktoken"
    path.write_text("".join(f"{base64.b64encode(t).decode()} {r}\n" for r, t in enumerate(tokens)))
    return path


def test_a_first_load_on_a_terminal_shows_its_stages(tmp_path, monkeypatch):
    monkeypatch.setenv("BPE_LAB_CACHE", str(tmp_path / "cache"))
    path = rank_file(tmp_path)
    err, out = Terminal(), io.StringIO()
    assert main(["encode", "-t", str(path), "--pattern-name", "gpt2", "hello"], out=out, err=err) == 0
    shown = err.getvalue()
    assert all(stage in shown for stage in loading.STAGES), shown
    first = out.getvalue()
    err2 = Terminal()
    assert main(["encode", "-t", str(path), "--pattern-name", "gpt2", "hello"], out=(out2 := io.StringIO()), err=err2) == 0
    assert err2.getvalue() == "" and out2.getvalue() == first  # the merge cache: nothing slow, nothing shown


def test_no_bar_on_a_pipe_or_when_quiet():
    for err, quiet in ((io.StringIO(), False), (Terminal(), True)):
        with loading_bar(err, quiet=quiet):
            hook = loading.reporter(loading.STAGES[0])
        assert hook is None and err.getvalue() == ""
