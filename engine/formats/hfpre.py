"""Our pre-tokenizer as HuggingFace pre-tokenizer JSON, and back.

Written (bytes base): ``gpt2`` alone is ``ByteLevel(use_regex=True)`` (HF's built-in GPT-2
regex); anything else is a ``Sequence`` of ``Split`` steps, in our order (lines when per-line,
the pattern, each digit, each newline), then ``ByteLevel(use_regex=False)``. The chars base
writes the same ``Split`` steps without ``ByteLevel`` (or no pre-tokenizer for ``none``).

A named pattern matches every character, so it is written as an ``Isolated`` split. Our custom
pattern keeps only what it matches (text between matches is dropped, as in tiktoken), which HF
spells ``Split(behavior="Removed", invert=True)``. Reading an ``Isolated`` split of some other
pattern P, the text between matches becomes chunks too: the pattern becomes ``(?:P)|gap``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.errors import TokenizerFileError
from engine.formats.common import SIMPLE_PORTABLE, fail, portable_pattern, pretokenizer_from_pattern
from engine.text.pretokenize import GPT2_PATTERN, NAMED_PATTERNS, PreTokenizer, check_pattern

DIGIT = r"\p{N}"
#: CLIP's pattern (its tokenizer.json keeps the matches only, then ByteLevel with GPT-2's regex,
#: which splits none of the pieces further: each holds no whitespace and is letters, one digit,
#: a contraction or other characters; tests/test_endofword_real.py checks it against tokenizers).
CLIP_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d|[\p{L}]+|[\p{N}]|[^\s\p{L}\p{N}]+"""
NEWLINE = "\n"
#: tokenizers' Whitespace pre-tokenizer (``\w+|[^\w\s]+`` in Rust's regex, whose ``\w`` and
#: ``\s`` are Unicode's: spelled out, as the regex module reads them differently) and
#: WhitespaceSplit (runs of non-space); both keep the matches only.
WORD = r"\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}"
WHITESPACE = rf"[{WORD}]+|[^{WORD}\p{{White_Space}}]+"
WHITESPACE_SPLIT = r"[^\p{White_Space}]+"


def _split(pattern: str, behavior: str = "Isolated") -> dict[str, Any]:
    return {"type": "Split", "pattern": {"Regex": pattern}, "behavior": behavior, "invert": False}


def _byte_level(use_regex: bool) -> dict[str, Any]:
    return {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": use_regex}


def pretokenizer_json(pre: PreTokenizer, *, byte_level: bool) -> dict[str, Any] | None:
    """The HF ``pre_tokenizer`` value that splits text as ``pre`` does."""
    plain = not (pre.split_digits or pre.split_newlines or pre.per_line)
    if byte_level and plain and pre.name == "gpt2":
        return _byte_level(True)
    steps = [_split(source) for source in pre.chain]
    if pre.per_line and pre.name != "none":
        steps.append(_split(NEWLINE, "MergedWithPrevious"))
    if pre.name == "custom" and (source := isolated_source(pre.pattern or "")) is not None:
        steps.append(_split(source))  # tokenizers' regex engine (Oniguruma) has no (?s:...): say it as it was said
    elif pre.name == "custom":
        steps.append({"type": "Split", "pattern": {"Regex": pre.pattern}, "behavior": "Removed", "invert": True})
    elif pre.name != "none":
        steps.append(_split(portable_pattern(pre)))
    if pre.split_digits:
        steps.append(_split(DIGIT))
    if pre.split_newlines:
        steps.append(_split(NEWLINE))
    if byte_level:
        steps.append(_byte_level(False))
    if not steps:
        return None
    if len(steps) == 1:
        return steps[0]
    return {"type": "Sequence", "pretokenizers": steps}


def _flatten(node: Any, path: Path) -> list[dict[str, Any]]:
    if node is None:
        return []
    if not isinstance(node, dict) or not isinstance(node.get("type"), str):
        raise fail(path, "\"pre_tokenizer\" is malformed")
    if node["type"] == "Sequence":
        steps = node.get("pretokenizers")
        if not isinstance(steps, list):
            raise fail(path, "a Sequence pre-tokenizer needs a \"pretokenizers\" list")
        return [s for step in steps for s in _flatten(step, path)]
    return [node]


def _split_pattern(step: dict[str, Any], path: Path) -> str:
    pattern = step.get("pattern")
    if isinstance(pattern, dict) and isinstance(pattern.get("Regex"), str):
        return pattern["Regex"]
    if isinstance(pattern, dict) and isinstance(pattern.get("String"), str):
        import regex  # here: loading a GPT-2 or tiktoken file never needs it

        return regex.escape(pattern["String"])
    raise fail(path, "a Split pre-tokenizer needs a pattern ({\"Regex\": ...} or {\"String\": ...})")


def isolating(source: str) -> str:
    """A pattern whose matches are ``source``'s and the runs of text between them, as an
    Isolated ``Split`` by ``source`` leaves them."""
    return f"(?:{source})|(?s:(?:(?!(?:{source})).)+)"


def isolated_source(pattern: str) -> str | None:
    """The pattern ``source`` when ``pattern`` is :func:`isolating` of it, else None."""
    import re

    found = re.fullmatch(r"\(\?:(.*)\)\|\(\?s:\(\?:\(\?!\(\?:(.*)\)\)\.\)\+\)", pattern, re.DOTALL)
    return found.group(1) if found is not None and found.group(1) == found.group(2) else None


def _chained(steps: list[dict[str, Any]], path: Path) -> PreTokenizer | None:
    """A sequence of isolating splits (Isolated ``Split``, ``Digits`` one each, and a last
    ``ByteLevel`` with its regex), maybe ending in a ``Split`` that keeps its matches only,
    as one pre-tokenizer with a chain (DeepSeek's, Command-R's ``Digits`` before ``ByteLevel``,
    StarCoder's); None for anything else."""
    isolated: list[str] = []
    last: str | None = None
    for i, step in enumerate(steps):
        kind, final = step["type"], i == len(steps) - 1
        if last is not None:
            if not (kind == "ByteLevel" and final and not step.get("use_regex", True)):
                return None
        elif kind == "ByteLevel":
            if not final:
                return None
            if step.get("use_regex", True):
                isolated.append(GPT2_PATTERN)
        elif kind == "Digits" and step.get("individual_digits", False):
            isolated.append(DIGIT)
        elif kind == "Split" and not step.get("invert", False) and step.get("behavior") == "Isolated":
            isolated.append(_split_pattern(step, path))
        elif kind == "Split" and step.get("invert", False) and step.get("behavior") == "Removed":
            last = _split_pattern(step, path)
        else:
            return None
    if not isolated or (last is None and len(isolated) < 2):
        return None
    for source in (*isolated, last):
        if source is not None:
            try:
                check_pattern(source)
            except ValueError as exc:
                raise fail(path, str(exc)) from None
    if last is None:
        return PreTokenizer("custom", isolating(isolated[-1]), chain=tuple(isolated[:-1]))
    return PreTokenizer("custom", last, chain=tuple(isolated))


def read_pretokenizer(node: Any, path: Path) -> tuple[PreTokenizer, bool, list[str]]:
    """(pre-tokenizer, whether byte-level, warnings) for an HF ``pre_tokenizer`` value.

    Understands what :func:`pretokenizer_json` writes and the common real files: ByteLevel
    (GPT-2 regex or none), Split with a regex (isolated), Digits (one digit each), and a chain
    of these (:func:`_chained`).
    """
    steps = _flatten(node, path)
    try:
        return _read_steps(steps, path)
    except TokenizerFileError:
        chained = _chained(steps, path)
        if chained is None:
            raise
        return chained, any(step["type"] == "ByteLevel" for step in steps), []


def _read_steps(steps: list[dict[str, Any]], path: Path) -> tuple[PreTokenizer, bool, list[str]]:
    """:func:`read_pretokenizer` of one pattern, maybe split again into digits and newlines."""
    warnings: list[str] = []
    pattern: str | None = None
    per_line = digits = newlines = byte_level = False
    for i, step in enumerate(steps):
        kind = step["type"]
        if byte_level:
            raise fail(path, f"pre-tokenizer {kind} after ByteLevel is not supported")
        if kind == "ByteLevel":
            byte_level = True
            if step.get("add_prefix_space"):
                warnings.append("the file's ByteLevel adds a prefix space; bpe-lab encodes without it")
            if step.get("use_regex", True):
                if pattern == CLIP_PATTERN and not (digits or newlines or per_line):
                    continue  # GPT-2's regex leaves CLIP's pieces whole
                if pattern is not None or digits or newlines:
                    raise fail(path, "a ByteLevel pre-tokenizer with its own regex after other splits is not supported")
                pattern = GPT2_PATTERN
            continue
        if kind == "Digits":
            if not step.get("individual_digits", False):
                raise fail(path, "the Digits pre-tokenizer without individual_digits is not supported")
            digits = True
            continue
        if kind in ("Whitespace", "WhitespaceSplit") and pattern is None and not (digits or newlines or per_line):
            pattern = WHITESPACE if kind == "Whitespace" else WHITESPACE_SPLIT
            continue
        if kind != "Split":
            raise fail(path, f"the {kind} pre-tokenizer is not supported (bpe-lab reads ByteLevel, Split, Digits, "
                             "Whitespace and WhitespaceSplit)")
        source = _split_pattern(step, path)
        behavior = step.get("behavior")
        inverted = step.get("invert", False)
        if inverted and behavior == "Removed" and pattern is None and not digits and not newlines:
            pattern = source  # keep the matches only: exactly our findall
        elif inverted:
            raise fail(path, f"an inverted Split pre-tokenizer with behavior {behavior!r} is not supported")
        elif behavior == "MergedWithPrevious" and source == NEWLINE and i == 0:
            per_line = True
        elif behavior != "Isolated":
            raise fail(path, f"a Split pre-tokenizer with behavior {behavior!r} is not supported (only Isolated)")
        elif source == DIGIT:
            digits = True
        elif source == NEWLINE:
            newlines = True
        elif pattern is None and not digits and not newlines:
            named = source in NAMED_PATTERNS.values() or source == SIMPLE_PORTABLE
            pattern = source if named else isolating(source)
            if not named:  # bounded before it is compiled: the file's own pattern, then the wrapped one
                for candidate, why in ((source, ""), (pattern, " (an Isolated split also matches the gaps: the pattern twice)")):
                    try:
                        check_pattern(candidate)
                    except ValueError as exc:
                        raise fail(path, f"{exc}{why}") from None
        else:
            raise fail(path, "more than one Split pattern is not supported")
    try:
        if pattern is None:
            if per_line:
                raise fail(path, "splitting into lines alone is not supported")
            pre = PreTokenizer("none", split_digits=digits, split_newlines=newlines)
        else:
            pre = pretokenizer_from_pattern(pattern, split_digits=digits, split_newlines=newlines, per_line=per_line)
    except ValueError as exc:
        raise fail(path, str(exc)) from None
    return pre, byte_level, warnings
