"""``bpe-lab diff A B`` (engine.analysis.vocab_diff): the shared-token count is the size of the
intersection of the two files' token byte strings, computed here from the files themselves
(cl100k and o200k as npm's tiktoken ships them; Llama 3's and Llama 4's rank files)."""

from __future__ import annotations

import base64
import json
import unicodedata
from collections import Counter
from itertools import accumulate

import pytest
from fetch_tokenizers import inline_ranks, needed, npm_encoding
from local_index import run

from engine import Tokenizer
from engine.analysis.vocab_diff import script_of, spearman, text_diff, vocab_diff


def inline_tokens(path) -> set[bytes]:
    return set(inline_ranks(json.loads(path.read_text(encoding="utf-8"))))


def rank_tokens(path) -> set[bytes]:
    return {base64.b64decode(line.split()[0]) for line in path.read_text(encoding="utf-8").splitlines() if line}


@pytest.mark.slow
@pytest.mark.parametrize("a, b, read", [
    ("tiktoken-npm/cl100k_base.json", "tiktoken-npm/o200k_base.json", inline_tokens),
    ("llama3.tiktoken", "llama4.tiktoken", rank_tokens),
])
def test_shared_tokens_are_the_files_intersection(a, b, read):
    pa, pb = needed(a), needed(b)
    want = len(read(pa) & read(pb))
    code, out, err = run("diff", str(pa), str(pb), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["shared"] == want
    assert data["a"]["only"] == len(read(pa)) - want and data["b"]["only"] == len(read(pb)) - want


def test_a_tokenizer_and_the_start_of_it():
    a = Tokenizer([(104, 105), (116, 104)])  # hi, th
    b = Tokenizer([(104, 105), (116, 104), (257, 101)])  # ... the
    diff = vocab_diff(a, b)
    assert (diff.shared, diff.only_a, diff.only_b, diff.first_parting) == (258, [], [b"the"], None)
    other = Tokenizer([(104, 105), (101, 114)])
    assert vocab_diff(a, other).first_parting == 1
    assert spearman([1, 2, 3], [10, 20, 30]) == 1.0 and spearman([1, 2, 3], [30, 20, 10]) == -1.0
    found = text_diff(a, b, "the hi the")
    assert found.differing == [("the", 2, [b"th", b"e"], [b"the"])]


def test_scripts_of_tokens():
    assert [script_of(t.encode()) for t in ("Hallo", " мир", "中文", "  ", "123", "!!", "\u2581the")] == [
        "Latin", "Cyrillic", "Han", "spaces", "digits", "punctuation", "Latin"]
    assert script_of(b"\xe4\xb8") == "bytes"


def test_diff_says_a_missing_name_in_one_line(monkeypatch, tmp_path):
    monkeypatch.setenv("BPE_LAB_TOKENIZERS", str(tmp_path))
    code, _, err = run("diff", "cl100k", "o200k")
    assert code == 2 and err.count("\n") == 1 and "bpe-lab fetch cl100k" in err


def test_diff_over_a_corpus_file(tmp_path):
    """Two tokenizers trained in the tests (one a start of the other) over a file: the words they
    split differently, and the tokens each needs, as JSON."""
    from engine.formats import export_tokenizer

    a = tmp_path / "a.json"
    b = tmp_path / "b.json"
    export_tokenizer(Tokenizer([(104, 105), (116, 104)]), "native", a)
    export_tokenizer(Tokenizer([(104, 105), (116, 104), (257, 101)]), "native", b)
    corpus = tmp_path / "c.txt"
    corpus.write_text("the hi the\n", encoding="utf-8")
    code, out, err = run("diff", str(a), str(b), "--corpus", str(corpus), "--json")
    assert code == 0, err
    data = json.loads(out)["text"]
    assert (data["chars"], data["tokens_a"], data["tokens_b"]) == (11, 8, 6)  # th,e | ·,hi | ·,th,e | ↵
    assert data["differing"] == [{"word": "the", "count": 2, "a": ["th", "e"], "b": ["the"]}]


SCRIPTS_TEXT = "Das Wetter ist schön. 你好，世界！ Привет, мир! こんにちは 🦙 x=1\nEnde."


def script_of_char(ch: str) -> str:
    """A letter's script from its Unicode name (the way a reader would look it up)."""
    first = unicodedata.name(ch).split()[0]
    return {"LATIN": "Latin", "CJK": "Han", "CYRILLIC": "Cyrillic", "HIRAGANA": "Hiragana"}[first]


def groups_of(text: str) -> list[str]:
    """Each character's group: a letter's script; anything else that of the letter before it."""
    letters = [script_of_char(ch) if ch.isalpha() else None for ch in text]
    last = next(s for s in letters if s is not None)
    out = []
    for script in letters:
        last = script or last
        out.append(last)
    return out


def per_script(text: str, starts: list[int]) -> dict[str, float]:
    groups = groups_of(text)
    chars, tokens = Counter(groups), Counter(groups[k] for k in starts)
    return {script: tokens[script] / n for script, n in chars.items()}


def test_tokens_per_character_by_script(tmp_path):
    """GPT-2's r50k (its starts from tiktoken's own offsets) against a small BPE trained here
    (its starts from its pieces' bytes), per script, as --json gives them."""
    from engine.formats import export_tokenizer

    enc = npm_encoding("r50k_base")
    _, offsets = enc.decode_with_offsets(enc.encode(SCRIPTS_TEXT))
    trained = Tokenizer([(104, 105), (116, 104), (228, 189)])
    path = tmp_path / "t.json"
    export_tokenizer(trained, "native", path)
    ends = list(accumulate(len(trained.token_bytes(i)) for i in trained.encode(SCRIPTS_TEXT)))
    char_of = [k for k, ch in enumerate(SCRIPTS_TEXT) for _ in ch.encode()]
    starts = [char_of[at] for at in [0, *ends[:-1]]]
    code, out, err = run("diff", str(needed("tiktoken-npm/r50k_base.json")), str(path), "--text", SCRIPTS_TEXT,
                         "--json")
    assert code == 0, err
    got = json.loads(out)["text"]["by_script"]
    want_a, want_b = per_script(SCRIPTS_TEXT, offsets), per_script(SCRIPTS_TEXT, starts)
    assert {row["script"]: row["per_char_a"] for row in got} == pytest.approx(want_a)
    assert {row["script"]: row["per_char_b"] for row in got} == pytest.approx(want_b)
    assert {row["script"]: row["chars"] for row in got} == Counter(groups_of(SCRIPTS_TEXT))
    assert sum(row["tokens_a"] for row in got) == len(offsets)


def test_the_scripts_table_in_text(tmp_path):
    from engine.formats import export_tokenizer

    for name, merges in (("a", [(104, 105)]), ("b", [(104, 105), (116, 104)])):
        export_tokenizer(Tokenizer(merges), "native", tmp_path / f"{name}.json")
    code, out, err = run("diff", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--text", "the hi 你好")
    assert code == 0, err
    lines = out.splitlines()
    at = lines.index("tokens per character, by script (spaces and punctuation with the letters before them):")
    assert lines[at + 2].split() == ["Latin", "7", f"{6 / 7:.3f}", f"{5 / 7:.3f}"]
    assert lines[at + 3].split() == ["Han", "2", "3.000", "3.000"]
