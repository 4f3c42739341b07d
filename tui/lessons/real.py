"""Real tokenizers in a lesson: the course's tokenizer lab (lesson 005) measured, not quoted.

A lesson names tokenizers by the catalog's names (``o200k``, ``llama3``: ``bpe-lab models``);
``need NAME ...`` says which a step uses, and fails with the one line that fetches them when they
are not here (nothing is ever downloaded by a lesson). The claims of :data:`MEASURES` read a
named tokenizer (:func:`named`, loaded once a process) and measure it with the engine's analysis,
as the commands ``tax``, ``diff``, ``code``, ``vocab`` and ``tokens`` do. The hand-in
(:func:`handin_markdown`) is the student's findings as Markdown: the token tax and the
English–German ratio of each tokenizer the lesson needed, the context budget of the open corpus,
and the texts they marked as surprising, each through every tokenizer, with room for why.

Example: ``named("o200k").encode("hello")`` once ``bpe-lab fetch o200k`` has run.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tui.i18n import _

if TYPE_CHECKING:
    from engine import Tokenizer

#: The claims that measure a named tokenizer: quantity -> its arguments (docs/lessons.md).
MEASURES: dict[str, tuple[str, ...]] = {
    "real": ("NAME", "MEASURE", "TEXT?"),
    "tax": ("NAME", "LANG"),
    "shared": ("NAME", "NAME"),
    "code": ("NAME", "MEASURE"),
    "glitch": ("NAME", "KIND", "TOKEN?"),
    "longest": ("NAME", "BY"),
    "window": ("MODEL",),
}
REAL_MEASURES = ("tokens", "pieces", "chars_per_token")
CODE_MEASURES = ("tokens", "per_line", "indentation", "whitespace", "tabs", "2_spaces", "4_spaces", "camelCase",
                 "snake_case")
GLITCH_KINDS = ("unreachable", "unused", "no_round_trip", "partial")
LONGEST_BY = ("bytes", "chars")

_lock = threading.Lock()
_loaded: dict[tuple[str, int, int], Tokenizer] = {}
_dives: dict[tuple[str, str], object] = {}


def check_name(name: str) -> str | None:
    """Why ``name`` is not a tokenizer the catalog knows, or None."""
    from engine.formats import by_name

    if by_name(name) is None:
        return _("unknown tokenizer name {name} (bpe-lab models lists them)").format(name=repr(name))
    return None


def missing(names: Sequence[str]) -> str | None:
    """The one line that fetches those of ``names`` not fetched yet, or None when all are here."""
    from engine.formats import by_name, download_size, fetched

    entries = [e for e in (by_name(n) for n in names) if e is not None and fetched(e) is None]
    if not entries:
        return None
    size = sum({e.package.name: e.package.size for e in entries}.values())
    return _("not fetched yet: bpe-lab fetch {names} (downloads {size} once; then this lesson runs offline)").format(
        names=" ".join(e.name for e in entries), size=download_size(size))


def named(name: str) -> Tokenizer:
    """The fetched tokenizer ``name``, loaded once (again when its file changes); ValueError
    (one line: how to fetch it) when it is not here."""
    from engine.formats import by_name, fetched, load_any

    entry = by_name(name)
    if entry is None:
        raise ValueError(check_name(name))
    path = fetched(entry)
    if path is None:
        raise ValueError(missing([name]))
    stat = path.stat()
    key = (str(path), stat.st_mtime_ns, stat.st_size)
    with _lock:
        found = _loaded.get(key)
        if found is None:
            found = _loaded[key] = load_any(str(path), need_pattern=True).tokenizer
        return found


def _parallel() -> list[dict[str, str]]:
    from engine.analysis import parse_parallel
    from tui.model.samples import sample

    return parse_parallel(sample("parallel.txt").read_bytes().decode("utf-8"))


def tax(name: str) -> dict[str, float | None]:
    """Each language's tokens against English's on the bundled parallel sentences, under ``name``."""
    from engine.analysis import BpeSegmenter, token_tax

    return {lang: t.ratio for lang, t in token_tax(BpeSegmenter(named(name)), _parallel()).items()}


def _dive(name: str, corpus: str):
    from engine.analysis import vocabulary_dive

    key = (name, hashlib.sha256(corpus.encode("utf-8", "surrogatepass")).hexdigest())
    with _lock:
        found = _dives.get(key)
    if found is None:
        found = vocabulary_dive(named(name), corpus, longest=1)
        with _lock:
            _dives[key] = found
    return found


def measure(quantity: str, args: tuple[str, ...], corpus: str) -> object:
    """A real-tokenizer claim's value now (``corpus``: the open corpus's text); ValueError (one
    line) when it cannot be measured."""
    from engine.text import token_display

    if quantity == "real":
        tok = named(args[0])
        text = args[2] if len(args) > 2 else corpus
        ids = tok.encode(text)
        if args[1] == "tokens":
            return len(ids)
        if args[1] == "pieces":
            return [token_display(tok.token_bytes(i)) for i in ids]
        if not ids:
            raise ValueError(_("the text is empty"))
        return len(text) / len(ids)
    if quantity == "tax":
        ratios = tax(args[0])
        if args[1] not in ratios:
            raise ValueError(_("no parallel sentences in {lang} (have: {choices})").format(
                lang=repr(args[1]), choices=", ".join(ratios)))
        return ratios[args[1]]
    if quantity == "shared":
        from engine.analysis import vocab_diff

        return vocab_diff(named(args[0]), named(args[1])).shared
    if quantity == "code":
        from engine.analysis import code_cost

        cost = code_cost(named(args[0]), corpus)
        simple = {"tokens": cost.tokens, "per_line": cost.per_line, "indentation": cost.indentation_share,
                  "whitespace": cost.whitespace_share}
        return simple[args[1]] if args[1] in simple else cost.variants[{"2_spaces": "2 spaces", "4_spaces": "4 spaces"}.get(
            args[1], args[1])]
    if quantity == "glitch":
        dive = _dive(args[0], corpus)
        ids = getattr(dive, args[1]) or []
        if len(args) == 2:
            return len(ids)
        tok = named(args[0])
        wanted = args[2].encode("utf-8")
        return "yes" if any(tok.token_bytes(i) == wanted for i in ids) else "no"
    if quantity == "longest":
        tok = named(args[0])
        dive = _dive(args[0], corpus)
        found = dive.longest_bytes if args[1] == "bytes" else dive.longest_chars  # type: ignore[attr-defined]
        return token_display(tok.token_bytes(found[0]))
    if quantity == "window":
        from engine.formats import model_named

        model = model_named(args[0])
        if model is None:
            raise ValueError(_("unknown model {name} (bpe-lab models lists them)").format(name=repr(args[0])))
        return len(named(model.tokenizer).encode(corpus)) / model.window
    raise ValueError(_("unknown quantity {q}").format(q=quantity))


def check_args(quantity: str, args: tuple[str, ...]) -> str | None:
    """What is wrong with a real-tokenizer claim's arguments (a message without its place), or None."""
    from engine.formats import model_named

    names = {"real": 1, "tax": 1, "shared": 2, "code": 1, "glitch": 1, "longest": 1}.get(quantity, 0)
    for name in args[:names]:
        problem = check_name(name)
        if problem:
            return problem
    choices = {"real": REAL_MEASURES, "code": CODE_MEASURES, "glitch": GLITCH_KINDS, "longest": LONGEST_BY}.get(quantity)
    if choices is not None and args[1] not in choices:
        return _("{quantity} measures {choices}, not {word}").format(
            quantity=quantity, choices=", ".join(choices), word=repr(args[1]))
    if quantity == "real" and args[1] == "pieces" and len(args) < 3:
        return _("real NAME pieces takes a text")
    if quantity == "window" and model_named(args[0]) is None:
        return _("unknown model {name} (bpe-lab models lists them)").format(name=repr(args[0]))
    return None


def _cut(pieces: Sequence[str]) -> str:
    """Pieces (shown as the app shows tokens) as Markdown code spans."""
    return " ".join(f"`` {p} ``" if "`" in p else f"`{p}`" for p in pieces)


def handin_markdown(lesson_title: str, names: Sequence[str], corpus_name: str, corpus: str, model: str | None,
                    surprises: Sequence[str], when: str) -> str:
    """The student's findings as Markdown (see the module doc); a tokenizer not here is said, not
    skipped silently."""
    from engine.formats import model_named
    from engine.text import token_display

    lines = ["# " + _("My findings: {title}").format(title=lesson_title), "", f"_{when}_", ""]
    here = [n for n in names if missing([n]) is None]
    gone = [n for n in names if n not in here]
    if gone:
        lines += [f"> {missing(gone)}", ""]
    if here:
        ratios = {n: tax(n) for n in here}
        langs = list(next(iter(ratios.values())))
        lines += ["## " + _("The token tax"), "",
                  _("Tokens of the same sentences, × English (the bundled parallel sentences)."), "",
                  "| " + " | ".join([_("tokenizer"), *langs]) + " |", "|---" * (len(langs) + 1) + "|"]
        for name, tax_of in ratios.items():
            lines.append("| " + " | ".join([name, *("–" if r is None else f"{r:.2f}×" for r in tax_of.values())]) + " |")
        lines += ["", "**" + _("English–German ratio:") + "** " + ", ".join(
            f"{n} {ratios[n].get('de') or 0:.2f}" for n in here), ""]
    chosen = model_named(model) if model else None
    if chosen is not None and missing([chosen.tokenizer]) is None:
        count = len(named(chosen.tokenizer).encode(corpus))
        lines += ["## " + _("The context budget"), "",
                  _("{file}: {tokens:,} tokens under {tokenizer}, {share:.2%} of {model}'s window of {window:,} tokens.").format(
                      file=corpus_name, tokens=count, tokenizer=chosen.tokenizer, share=count / chosen.window,
                      model=chosen.what, window=chosen.window), ""]
    lines += ["## " + _("Surprises"), ""]
    if not surprises:
        lines += [_("(none marked: type a text in the tokenize pane and press ! to mark it)"), ""]
    for k, text in enumerate(surprises, 1):
        lines += [f"{k}. `{text}`", ""]
        for name in here:
            tok = named(name)
            ids = tok.encode(text)
            lines.append(f"   - {name}, {len(ids)}: {_cut([token_display(tok.token_bytes(i), space='·') for i in ids])}")
        lines += ["", "   " + _("Why: …"), ""]
    return "\n".join(lines).rstrip() + "\n"
