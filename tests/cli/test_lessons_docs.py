"""docs/lessons.md's complete example is a lesson that passes ``bpe-lab lesson --check`` and
``--run``, and every directive and quantity the parser knows is documented there."""

from __future__ import annotations

import io
import re

from helpers import ROOT

import tui.cli.commands as cli  # noqa: E402
from tui.lessons.directives import DIRECTIVES
from tui.lessons.format import QUANTITIES

DOC = ROOT / "docs" / "lessons.md"


def example() -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index("<!-- example-lesson -->")
    body = text[start:].split("````markdown\n", 1)[1]
    return body.split("\n````", 1)[0] + "\n"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return cli.main(["lesson", *argv], out=out, err=err), out.getvalue(), err.getvalue()


def test_the_docs_example_checks_and_every_claim_holds(tmp_path):
    path = tmp_path / "003-example.en.md"
    path.write_text(example(), encoding="utf-8")
    assert run("--check", str(path)) == (0, "", "bpe-lab: 1 lesson file fine\n")
    code, out, _ = run("--run", str(path))
    assert code == 0, out
    assert re.search(r"^(\d+) of \1 claims hold$", out, re.M), out


def test_every_directive_and_quantity_is_documented():
    text = DOC.read_text(encoding="utf-8")
    for directive in (*DIRECTIVES, "expect"):  # the one list of directives
        assert f"| `{directive}" in text or f"/ `{directive}" in text, directive
    for quantity in QUANTITIES:
        assert f"| `{quantity}" in text or f"/ `{quantity}" in text, quantity
