"""Real tokenizers in a lesson (tui/lessons/real.py): ``need``, the claims that measure a named
tokenizer, and ``handin``, checked against the tokenizer's own library (GPT-2's r50k as npm's
tiktoken ships it, against tiktoken); and what a lesson says when a tokenizer is not fetched."""

from __future__ import annotations

import io
import json

import pytest
from fetch_tokenizers import named_folder, npm_encoding
from helpers import ROOT

import tui.cli.commands as cli
from engine.analysis import parse_parallel
from tui.lessons.format import check

FRONT = '+++\ntitle = "lab"\nlang = "en"\n+++\n\nThe lab.\n\n'


def lesson(tmp_path, *blocks: list[str]):
    body = FRONT + "".join(f"## step {k}\n\n```bpe\n" + "\n".join(lines) + "\n```\n\n"
                           for k, lines in enumerate(blocks, 1))
    path = tmp_path / "lab.en.md"
    path.write_text(body, encoding="utf-8")
    return path


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return cli.main(["lesson", *argv], out=out, err=err), out.getvalue(), err.getvalue()


@pytest.mark.parametrize("line, problem", [
    ("need o200k nosuch", "unknown tokenizer name 'nosuch' (bpe-lab models lists them)"),
    ('expect real o200k size "x" == 1', "real measures tokens, pieces, chars_per_token, not 'size'"),
    ("expect real o200k pieces == []", "real NAME pieces takes a text"),
    ("expect code gpt2 colour == 1", "code measures tokens, per_line"),
    ("expect glitch gpt2 lost == 1", "glitch measures unreachable, unused, no_round_trip, partial, not 'lost'"),
    ("expect window gpt-9 < 0.1", "unknown model 'gpt-9'"),
    ("expect shared o200k gpt-9 == 1", "unknown tokenizer name 'gpt-9'"),
    ("handin model=gpt-9", "unknown model 'gpt-9'"),
    ("handin to=here", "handin takes no option to="),
    ('analysis compare add="o200k nosuch"', "unknown tokenizer name 'nosuch'"),
    ('analysis curve add="o200k"', "add= goes with analysis compare (the tokenizers compared)"),
])
def test_a_bad_real_tokenizer_line_is_one_problem(tmp_path, line, problem):
    problems = check(lesson(tmp_path, [line]))
    assert len(problems) == 1 and problem in problems[0] and ":11:" in problems[0], problems


def test_a_tokenizer_not_fetched_says_how_to_fetch_it(tmp_path, monkeypatch):
    monkeypatch.setenv("BPE_LAB_TOKENIZERS", str(tmp_path / "empty"))
    monkeypatch.chdir(tmp_path)
    path = lesson(tmp_path, ["need o200k gpt2", "open sample=workshop", 'expect real o200k tokens "hi" == 1'])
    code, out, _ = run("--run", str(path))
    fetch = "not fetched yet: bpe-lab fetch o200k gpt2 (downloads 10.6 MB once; then this lesson runs offline)"
    assert code == 1 and f"lab.en.md:11: {fetch}" in out  # one package for both: its size once
    assert "(actual: not fetched yet: bpe-lab fetch o200k" in out and "0 of 1 claims hold" in out


def test_the_claims_and_the_handin_measure_as_tiktoken_does(tmp_path, monkeypatch):
    enc = npm_encoding("r50k_base")
    monkeypatch.setenv("BPE_LAB_TOKENIZERS", str(named_folder(tmp_path / "cache", ["gpt2"])))
    monkeypatch.chdir(tmp_path)
    groups = parse_parallel((ROOT / "assets" / "samples" / "parallel.txt").read_text(encoding="utf-8"))
    per_lang = {lang: sum(len(enc.encode(g[lang])) for g in groups) for lang in ("en", "de", "hi")}
    workshop = (ROOT / "assets" / "samples" / "workshop.txt").read_text(encoding="utf-8")
    surprise = "今天天气很好。"
    pieces = [enc.decode_single_token_bytes(t) for t in enc.encode(surprise)]
    tax_de = per_lang["de"] / per_lang["en"]
    path = lesson(tmp_path, ["need gpt2", "open sample=workshop",
                             f'expect real gpt2 tokens "{surprise}" == {len(pieces)}',
                             f"expect real gpt2 tokens == {len(enc.encode(workshop))}",
                             f"expect tax gpt2 de == {tax_de:.4f}",
                             f"expect tax gpt2 hi > {per_lang['hi'] / per_lang['en'] - 0.01:.4f}",
                             'expect real gpt2 tokens " SolidGoldMagikarp" == 1',
                             'expect glitch gpt2 unused " SolidGoldMagikarp" == "yes"',
                             'expect glitch gpt2 unused " the" == "no"',
                             f"expect window gpt-2 > {len(enc.encode(workshop)) / 1024 - 0.001:.4f}"],
                    ["handin model=gpt-2"])
    code, out, err = run("--run", str(path), "--surprise", surprise, "--json")
    assert code == 0, out + err
    report = json.loads(out)
    assert report["ok"] and report["handin"] == str(tmp_path / "handin-lab.md")
    handin = (tmp_path / "handin-lab.md").read_text(encoding="utf-8")
    row = next(line for line in handin.splitlines() if line.startswith("| gpt2 |"))
    assert row.split(" | ")[2] == f"{tax_de:.2f}×"  # en, then de
    assert f"**English–German ratio:** gpt2 {tax_de:.2f}" in handin
    budget = len(enc.encode(workshop))
    assert f"workshop.txt: {budget:,} tokens under gpt2, {budget / 1024:.2%} of GPT-2's window of 1,024 tokens." in handin
    def piece(data: bytes) -> str:  # a whole character as itself, a part of one as its bytes
        try:
            return f"`{data.decode('utf-8').replace(' ', '·')}`"
        except UnicodeDecodeError:
            return f"`[{' '.join(f'{b:02x}' for b in data)}]`"

    shown = " ".join(map(piece, pieces))
    assert f"1. `{surprise}`" in handin and f"   - gpt2, {len(pieces)}: {shown}" in handin
    code, out, err = run("--run", str(path), "--surprise", " SolidGoldMagikarp")
    assert code == 0 and f"your findings: {tmp_path / 'handin-lab.md'}" in out
    assert "   - gpt2, 1: `·SolidGoldMagikarp`" in (tmp_path / "handin-lab.md").read_text(encoding="utf-8")
