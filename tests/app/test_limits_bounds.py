"""Issue 11, points 1 and 2: patterns that compile to gigabytes and tokenizers whose tokens need
quadratic memory are refused in one line, before anything large is allocated.

The tests that feed bpe-lab a real bomb run it in a subprocess under a 1 GB address-space limit
(``RLIMIT_AS``) and a timeout, so that a regression fails the test instead of taking the machine
down. The others run in this process with ``regex.compile`` replaced by a guard that fails the
test if a bomb ever reaches it.
"""

from __future__ import annotations

import base64
import io
import json
import os
import resource
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import regex
from helpers import ROOT, app_on

import engine.encode.tokenizer
import engine.encode.vocabulary
import tui.cli.commands as cli
from engine import Tokenizer, TrainConfig, Trainer
from engine.config import MAX_VOCAB_BYTES
from engine.errors import ConfigError, PatternError, TokenizerFileError
from engine.formats import load_any
from engine.text.bytelevel import token_to_unicode
from engine.text.pattern_bounds import MAX_PATTERN_CHARS, MAX_PATTERN_SIZE, pattern_size
from engine.text.pretokenize import NAMED_PATTERNS, O200K_PATTERN, PreTokenizer, check_pattern, compile_pattern

LIMIT = 1 << 30  # bytes of address space for a bomb's subprocess
CORPUS = "the cat in the hat sat on the mat\nthe cat ate the rat\n"

#: Real patterns from other tokenizers, as their libraries spell them (o200k's: engine.text.pretokenize's,
#: checked against tiktoken's in tests/engine/test_pretokenize_same.py).
LLAMA3_PATTERN = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
QWEN2_PATTERN = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
REAL_PATTERNS = {**NAMED_PATTERNS, "o200k": O200K_PATTERN, "llama3": LLAMA3_PATTERN, "qwen2": QWEN2_PATTERN}

#: Patterns the ``regex`` module would compile to hundreds of megabytes or more, in several
#: disguises (one count, nested counts, counts hidden from a naive scan), and a few that it
#: would not expand but that the check refuses all the same (a large upper bound).
BOMBS = [
    "a{1000000000}",
    "(?:ab){99999999}",
    "(a{1000}){1000}",
    "((a{100}){100}){100}",
    "[a-z]{1000000}",
    r"\p{L}{0,1000000}",
    "a{1000000,}",
    "(?x) a { 1000000 }",  # verbose mode allows spaces
    "(?x)((a#)\n){1000}){1000}",  # a comment the scan does not see as one
    "[]a{100000}](?:b){2}",
    "a{00000000000000000001000000}",
    "x{" + "9" * 5000 + "}",
    "(?V1)[a[b](](a{1000}){1000}[c[d])]",  # sets in sets: parentheses inside them are no groups
]


def _limit_memory() -> None:  # pragma: no cover - runs in the child
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


def bpe_lab(args: list[str], cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run the command line under the memory limit; a hang or a bomb fails, not the machine."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "tui", *args], capture_output=True, text=True, cwd=cwd, env=env,
        timeout=timeout, preexec_fn=_limit_memory,
    )


def python(code: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run Python code under the memory limit."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, cwd=cwd, env=env,
        timeout=timeout, preexec_fn=_limit_memory,
    )


@pytest.fixture
def no_bombs(monkeypatch):
    """``regex.compile`` fails the test for any pattern above the bounds (it would be a bomb)."""
    real = regex.compile

    def guarded(pattern, *args, **kwargs):
        if isinstance(pattern, str) and (len(pattern) > MAX_PATTERN_CHARS or pattern_size(pattern) > MAX_PATTERN_SIZE):
            pytest.fail(f"compiled a pattern past the bounds: {pattern[:60]!r}")
        return real(pattern, *args, **kwargs)

    monkeypatch.setattr(regex, "compile", guarded)


def native_file(path: Path, merges: list, pretokenizer: dict | None = None) -> Path:
    data = {"format": "bpe-lab", "version": 1, "base": "bytes", "merges": merges,
            "pretokenizer": pretokenizer or {"name": "none"}}
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def chain_merges(n: int) -> list[list[int]]:
    """a+a, then (the last token)+a: token k holds k+1 bytes, so n merges hold about n²/2."""
    return [[97, 97]] + [[255 + k, 97] for k in range(1, n)]


# -- point 1: patterns ------------------------------------------------------------------------


def test_a_pattern_of_gigabytes_is_refused_under_a_memory_cap(tmp_path):
    (tmp_path / "c.txt").write_text(CORPUS, encoding="utf-8")
    run = bpe_lab(["train", "c.txt", "-o", "o.json", "--pattern", "a{1000000000}"], tmp_path, timeout=60)
    assert run.returncode == 2
    assert run.stderr == (
        "bpe-lab: error: pattern 'a{1000000000}' is too large: written out, its repeats make it 1000000000 "
        "characters long (at most 100000; nested repeats multiply)\n"
    )
    assert not (tmp_path / "o.json").exists()


def test_every_disguise_is_refused_under_a_memory_cap(tmp_path):
    """All the bombs through ``--pattern``'s path in one child: each refused in one line."""
    code = f"""
        from engine.text.pretokenize import PreTokenizer
        for pattern in {BOMBS!r}:
            try:
                PreTokenizer("custom", pattern)
            except ValueError as exc:
                print(str(exc).splitlines()[0][:60])
            else:
                print("COMPILED", repr(pattern))
        """
    run = python(code, tmp_path, timeout=60)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert len(lines) == len(BOMBS)
    assert all(line.startswith(("pattern ", "invalid pattern ")) for line in lines), lines


@pytest.mark.parametrize("pattern", BOMBS)
def test_the_check_refuses_every_disguise(pattern):
    with pytest.raises(PatternError, match=r"^pattern .* is too (large|long): "):
        check_pattern(pattern)


def test_a_pattern_of_a_megabyte_is_refused_for_its_length_before_the_scan():
    pattern = "(?:the|a|an) " * 80_000
    with pytest.raises(PatternError) as caught:
        check_pattern(pattern)
    assert str(caught.value).endswith(f"is too long: {len(pattern)} characters (at most {MAX_PATTERN_CHARS})")


@pytest.mark.parametrize("name", sorted(REAL_PATTERNS))
def test_real_patterns_pass_far_below_the_bounds(name):
    pattern = REAL_PATTERNS[name]
    check_pattern(pattern)
    assert len(pattern) < MAX_PATTERN_CHARS // 30
    assert pattern_size(pattern) < 2 * len(pattern)  # \p{N}{1,3} at most
    compile_pattern(pattern)  # and they compile as custom patterns too


@pytest.mark.parametrize(
    ("pattern", "size"),
    [
        ("abc", 3),
        ("abc{5}", 7),  # the repeat takes the last character
        ("(ab){3}c", 13),  # a group counts its parentheses
        ("(a{10}){10}", 120),
        (r"\p{N}{1,3}", 15),
        ("[ab]{4}", 16),
        (r"\{5}", 4),  # an escaped brace is no repeat
        (r"\\{5}", 10),  # an escaped backslash, then a repeat
        ("a{,5}", 5),
        ("a{5,}", 5),
        ("a{,}", 4),  # no count: not a counted repeat
        ("(?#x)a{5}", 10),  # a comment counts as its text, and is not what a repeat repeats
        ("(?#{99})a", 9 * 99),  # a count inside a comment: unsure, so every count multiplies
        ("[a{5}]{3}", 9 * 3 * 5),  # a repeat inside a class: every count multiplies the length
        ("(?x)a{5}", 8 * 5),  # verbose mode: the same
        ("(a{5}", 5 * 5),  # unbalanced as the scan reads it: the same
        (r"[\[\]]{5}", 6 * 5),  # escaped brackets in a class: sure
        ("(?V1)[a[b](](a{10}){10}[c[d])]", 30 * 10 * 10),  # a set in a set (V1): unsure
    ],
)
def test_pattern_size_writes_repeats_out_and_overestimates_when_unsure(pattern, size):
    assert pattern_size(pattern) == size


def test_a_repeat_inside_a_class_is_no_repeat_for_regex_but_still_bounded():
    """Over-counting is the safe direction: ``[{100000}]`` is a class of digits and braces."""
    assert regex.compile("[{9}]").fullmatch("9")
    with pytest.raises(PatternError):
        check_pattern("[{100000}]{2}")


def test_every_path_a_pattern_arrives_by_refuses_it(tmp_path, no_bombs):
    bomb = "(?:ab){99999999}"
    # --pattern and the app's settings dialog: PreTokenizer and compile_pattern
    with pytest.raises(PatternError, match="is too large"):
        PreTokenizer("custom", bomb)
    with pytest.raises(PatternError, match="is too large"):
        compile_pattern(bomb)
    # a session's config, and any TrainConfig
    with pytest.raises(PatternError, match="is too large"):
        TrainConfig.from_dict({"pretokenizer": "custom", "pattern": bomb})
    with pytest.raises(PatternError, match="is too large"):
        TrainConfig(pretokenizer="custom", pattern=bomb)
    # a native file's pretokenizer.pattern
    native = native_file(tmp_path / "tok.json", [], {"name": "custom", "pattern": bomb})
    with pytest.raises(TokenizerFileError, match=r"^.*tok\.json: pattern .* is too large"):
        load_any(native)
    # an HF Split regex, kept (Isolated) or inverted (Removed)
    vocab = {token_to_unicode(bytes([b])): b for b in range(256)}
    for split in (
        {"type": "Split", "pattern": {"Regex": bomb}, "behavior": "Isolated", "invert": False},
        {"type": "Split", "pattern": {"Regex": bomb}, "behavior": "Removed", "invert": True},
    ):
        hf = tmp_path / "tokenizer.json"
        hf.write_text(json.dumps({"model": {"type": "BPE", "vocab": vocab, "merges": []}, "pre_tokenizer": split}))
        with pytest.raises(TokenizerFileError, match=r"tokenizer\.json: pattern .* is too large"):
            load_any(hf)
    # a .tiktoken.json pat_str
    ranks = tmp_path / "t.tiktoken"
    ranks.write_text("".join(f"{base64.b64encode(bytes([b])).decode()} {b}\n" for b in range(256)))
    (tmp_path / "t.tiktoken.json").write_text(json.dumps({"name": "t", "pat_str": bomb, "special_tokens": {}}))
    with pytest.raises(TokenizerFileError, match=r"t\.tiktoken\.json: pattern .* is too large"):
        load_any(ranks)


def test_a_session_with_a_bomb_in_its_config_is_refused(tmp_path, no_bombs):
    from tui.model.session import FORMAT, VERSION, Session

    config = TrainConfig(max_merges=3).to_dict() | {"pretokenizer": "custom", "pattern": "a{1000000000}"}
    data = {"format": FORMAT, "version": VERSION, "corpus": {"source": "c.txt", "sha256": "0" * 64, "size": 1},
            "config": config, "merges": [], "step": 0, "selected": None, "replay": None}
    path = tmp_path / "session.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match="is too large"):
        Session.load(path)


@pytest.mark.slow
async def test_the_settings_dialog_refuses_a_bomb(no_bombs):
    from textual.widgets import Input, Label, Select

    from tui.app.screens.settings import SettingsScreen

    config = TrainConfig(vocab_size=300)
    app = app_on("workshop.txt", config)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("comma")
        assert isinstance(app.screen, SettingsScreen)
        app.screen.query_one("#pretokenizer", Select).value = "custom"
        app.screen.query_one("#pattern", Input).value = "(a{1000}){1000}"
        await pilot.press("ctrl+s")
        assert isinstance(app.screen, SettingsScreen)  # still open, with the one line
        shown = str(app.screen.query_one("#settings-error", Label).render())
        assert "is too large" in shown and "1002000" in shown
        assert app.workbench.config.pretokenizer == "gpt2"


# -- point 2: the bytes of a vocabulary -------------------------------------------------------


@pytest.mark.slow
def test_a_chain_of_a_million_merges_is_refused_under_a_memory_cap(tmp_path):
    native_file(tmp_path / "chain.json", chain_merges(1_048_000))
    assert (tmp_path / "chain.json").stat().st_size < 16 << 20  # under the file limit: it is the tokens
    run = bpe_lab(["encode", "-t", "chain.json", "aaaa"], tmp_path, timeout=180)
    assert run.returncode == 2
    assert run.stderr == (
        "bpe-lab: error: chain.json: merge 5792 makes the tokens hold more than 16 MB in all, the most a "
        "tokenizer may hold (that merge's token alone is 5.7 kB)\n"
    )
    assert run.stdout == ""


@pytest.mark.slow
@pytest.mark.parametrize("command", [["decode", "-t", "chain.json", "97"],
                                     ["export", "-t", "chain.json", "--format", "hf", "-o", "out.json"]])
def test_decode_and_export_refuse_the_chain_too(tmp_path, command):
    native_file(tmp_path / "chain.json", chain_merges(100_000))
    run = bpe_lab(command, tmp_path, timeout=120)
    assert run.returncode == 2
    assert run.stderr.startswith("bpe-lab: error: chain.json: merge 5792 makes the tokens hold more than 16 MB")
    assert not (tmp_path / "out.json").exists()


def test_the_bound_is_exact():
    """Up to the bound a chain loads; one merge more is refused, naming that merge."""
    total, n = 256, 0  # the base's bytes, then merge k adds a token of k + 1 bytes
    while total + (n + 2) <= MAX_VOCAB_BYTES:
        n += 1
        total += n + 1
    tok = Tokenizer(chain_merges(n))
    assert sum(map(len, tok.pieces)) == total
    with pytest.raises(ConfigError, match=rf"^merge {n + 1} makes the tokens hold more than 16 MB in all"):
        Tokenizer(chain_merges(n + 1))


@pytest.mark.parametrize("fmt", ["hf", "gpt2", "seed001", "tiktoken"])
def test_every_format_goes_through_the_same_bound(tmp_path, monkeypatch, fmt):
    """Each loader builds through Tokenizer: with the bound lowered to 1000 bytes, a 60-merge
    chain (1.9 kB of merged tokens) written in each format is refused on reading."""
    from engine.formats import export_tokenizer

    if fmt == "seed001":
        tok = Tokenizer([(1, 1)] + [(k, 1) for k in range(2, 61)], base="chars", alphabet=["\ufffd", "a"])
    else:
        tok = Tokenizer(chain_merges(60), pretokenizer=PreTokenizer("gpt2"))
    path = tmp_path / {"hf": "tokenizer.json", "gpt2": "pair", "seed001": "seed.json", "tiktoken": "t.tiktoken"}[fmt]
    export_tokenizer(tok, fmt, path)
    assert sum(map(len, load_any(path).tokenizer.pieces)) > 1000  # fine under the real bound
    monkeypatch.setattr(engine.encode.vocabulary, "MAX_VOCAB_BYTES", 1000)  # (where the vocabulary builds its merges)
    with pytest.raises(TokenizerFileError, match=r"makes the tokens hold more than 1000 bytes in all"):
        load_any(path)


def test_out_of_memory_names_what_was_being_done(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    native_file(tmp_path / "tok.json", [[97, 97]])
    (tmp_path / "c.txt").write_text(CORPUS, encoding="utf-8")

    def exhausted(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(engine.encode.tokenizer.Tokenizer, "_assemble", exhausted)  # every way one is made
    err = io.StringIO()
    assert cli.main(["encode", "-t", "tok.json", "hi"], out=io.StringIO(), err=err) == 2
    assert err.getvalue() == (
        "bpe-lab: error: out of memory while loading the tokenizer or encoding the text "
        "(is the tokenizer, or the text, too large?)\n"
    )
    monkeypatch.setattr(Trainer, "__init__", exhausted)
    err = io.StringIO()
    assert cli.main(["train", "c.txt", "-o", "o.json"], out=io.StringIO(), err=err) == 2
    assert err.getvalue() == (
        "bpe-lab: error: out of memory while training (try a smaller corpus, or a pre-tokenizer other than none)\n"
    )


def test_training_stops_at_the_bound_and_undo_redo_keep_it(monkeypatch):
    """The trainer's bound counts every merge it made, undone ones too; redoing is never refused."""
    monkeypatch.setattr("engine.train.trainer.MAX_VOCAB_BYTES", 256 + 2 + 3 + 4 + 5)
    run = "abcdefghij"
    trainer = Trainer(run + run, TrainConfig(pretokenizer="none", tie_rule="first-seen", max_merges=9))
    made = trainer.train()
    assert [m.token for m in made] == [b"ab", b"abc", b"abcd", b"abcde"]
    assert trainer.stop_reason == "vocab-bytes"
    trainer.undo()
    trainer.undo()
    assert trainer.step().token == b"abcd" and trainer.step().token == b"abcde"
    assert trainer.step() is None and trainer.stop_reason == "vocab-bytes"
    assert trainer.tokenizer().pieces[-1] == b"abcde"


# -- special tokens: as many as a file holds, found in linear set-up time ----------------------


def test_many_specials_are_found_as_the_alternation_finds_them():
    """Above 1000 specials the set lookup replaces the regex alternation: same matches (the
    leftmost, and there the longest), on random specials that overlap and prefix each other."""
    import random
    import re

    from engine.encode.vocabulary import SpecialFinder

    rng = random.Random(3)
    for _ in range(500):
        specials = list({"".join(rng.choices("ab<>|", k=rng.randint(1, 5))) for _ in range(rng.randint(1, 40))})
        text = "".join(rng.choices("ab<>|c", k=rng.randint(0, 200)))
        alternation = re.compile("|".join(re.escape(t) for t in sorted(specials, key=len, reverse=True)))
        expected = [(m.start(), m.end(), m.group(0)) for m in alternation.finditer(text)]
        assert [(m.start(), m.end(), m.group(0)) for m in SpecialFinder(specials).finditer(text)] == expected


def test_a_tokenizer_with_many_specials_encodes_them(tmp_path):
    specials = [f"<extra_{k}>" for k in range(1500)] + ["<extra_1>x"]
    tok = Tokenizer([(104, 105)], specials=specials)
    first = tok.base_size + 1
    assert tok.encode("hi<extra_1>x<extra_1499><extra_") == [256, first + 1500, first + 1499, *b"<extra_"]
    assert tok.encode("<extra_1>", specials=False) == list(b"<extra_1>")


@pytest.mark.slow
def test_more_specials_than_a_vocabulary_holds_are_refused():
    from engine.config import MAX_VOCAB

    with pytest.raises(ConfigError, match=rf"^too many tokens: 257 base tokens and merges and {MAX_VOCAB - 256} specials"):
        Tokenizer([(104, 105)], specials=[f"<{k}>" for k in range(MAX_VOCAB - 256)])
    assert Tokenizer([(104, 105)], specials=[f"<{k}>" for k in range(MAX_VOCAB - 257)]).vocab_size == MAX_VOCAB


@pytest.mark.slow
def test_a_file_of_300000_specials_loads_and_encodes_under_a_memory_cap(tmp_path):
    native_file(tmp_path / "specials.json", [])
    data = json.loads((tmp_path / "specials.json").read_text())
    data["specials"] = [{"token": f"<s{k}>", "id": 256 + k} for k in range(300_000)]
    (tmp_path / "specials.json").write_text(json.dumps(data))
    run = bpe_lab(["encode", "-t", "specials.json", "--json", "a<s299999>b"], tmp_path, timeout=120)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == [97, 256 + 299_999, 98]


# -- the scan never underestimates: checked against regex's own parse -------------------------


def _written_out(pattern: str) -> int:
    """Leaves of ``regex``'s own parse tree, each repeat multiplying its part by its larger count
    (what compiling expands); a set or a property is one leaf. Uses regex's private parser: a
    test's reference, never bpe-lab's code."""
    from regex import _regex_core as core

    flags = 0
    while True:  # as regex.compile does: a global flag found late means parsing again
        source = core.Source(pattern)
        info = core.Info(flags, source.char_type, {})
        source.ignore_space = bool(info.flags & core.VERBOSE)
        try:
            tree = core._parse_pattern(source, info)
            break
        except core._UnscopedFlagSet:
            flags = info.global_flags

    def size(node) -> int:
        if isinstance(node, (core.SetBase, core.Property)) or not isinstance(node, core.RegexBase):
            return 1
        if isinstance(node, core.GreedyRepeat):  # LazyRepeat and PossessiveRepeat too
            return size(node.subpattern) * max(node.min_count, node.max_count or 0, 1)
        children = []
        for value in vars(node).values():
            if isinstance(value, core.RegexBase):
                children.append(value)
            elif isinstance(value, (list, tuple)):
                children.extend(v for v in value if isinstance(v, core.RegexBase))
        return max(1, sum(size(child) for child in children))

    return size(tree)


@pytest.mark.slow
def test_pattern_size_is_never_below_what_regex_expands():
    """Random patterns from the syntax the scan must read right (groups, comments, classes with
    brackets, escapes with braces, verbose mode, V1 sets, lazy and possessive repeats): for every
    one regex accepts, the scan's size is at least what regex's own parse expands."""
    import random

    rng = random.Random(11)
    atoms = ["a", "bc", r"\d", r"\p{L}", r"\x{41}", r"\{", r"\\", "[ab]", "[]a]", "[^]b]", r"[\]x]", "[(]", "[)]",
             "[{]", ".", "(?#c)", "(?#{3})", " ", "#", "\n", "[[a]b]", "[a--b]"]
    counts = ["", "", "*", "+", "?", "{2}", "{0,3}", "{3,}", "{,4}", "{ 2 }", "{2}?", "{3}+", "{1,2}+"]

    def item(depth: int) -> str:
        if depth < 3 and rng.random() < 0.35:
            opener = rng.choice(["(", "(?:", "(?i:", "(?>", "(?=", f"(?P<g{rng.randrange(10**6)}>", "(?V1:", "(?x:"])
            inner = "|".join(seq(depth + 1) for _ in range(rng.randint(1, 2)))
            return opener + inner + ")" + rng.choice(counts)
        return rng.choice(atoms) + rng.choice(counts)

    def seq(depth: int) -> str:
        return "".join(item(depth) for _ in range(rng.randint(1, 4)))

    checked = 0
    for _ in range(3000):
        pattern = rng.choice(["", "", "(?x)", "(?V1)"]) + seq(0)
        try:
            regex.compile(pattern)
        except (regex.error, ValueError, OverflowError, RecursionError):
            continue
        written = _written_out(pattern)
        assert pattern_size(pattern) >= written, (pattern, pattern_size(pattern), written)
        checked += 1
    assert checked > 1000  # about 1100 of the 3000 are valid


def test_an_isolated_split_is_bounded_as_it_is_compiled_and_says_why(tmp_path, no_bombs):
    """An HF Isolated split is compiled with its gaps, the pattern written twice: 6,000
    characters pass alone, but not twice, and the message says so."""
    source = "(?:" + "|".join(f"w{i:04d}" for i in range(1000)) + ")"
    assert len(source) < MAX_PATTERN_CHARS < 2 * len(source)
    check_pattern(source)
    vocab = {token_to_unicode(bytes([b])): b for b in range(256)}
    split = {"type": "Split", "pattern": {"Regex": source}, "behavior": "Isolated", "invert": False}
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps({"model": {"type": "BPE", "vocab": vocab, "merges": []}, "pre_tokenizer": split}))
    with pytest.raises(TokenizerFileError) as caught:
        load_any(path)
    assert str(caught.value).endswith(
        f"is too long: {2 * len(source) + 24} characters (at most {MAX_PATTERN_CHARS}) "
        "(an Isolated split also matches the gaps: the pattern twice)"
    )
