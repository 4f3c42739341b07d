"""Where an ``open`` directive reads its corpus (a bundled sample, a file the lesson may reach,
or inline text kept in a file of its own), how it is read, and the training settings it asks for
(:func:`config_for`: the sample's example settings with the directive's over them)."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tui.i18n import _
from tui.lessons.kind import ActionFailed, Directive, HeadlessContext, PlayContext

if TYPE_CHECKING:
    from engine import TrainConfig

#: ``open`` settings: the setting -> the TrainConfig field it sets and the kind of value.
SETTINGS = {
    "base": ("base", "name"),
    "pretokenizer": ("pretokenizer", "name"),
    "pattern": ("pattern", "text"),
    "split_digits": ("split_digits", "bool"),
    "tie_rule": ("tie_rule", "name"),
    "tie_break": ("tie_rule", "name"),
    "vocab_size": ("vocab_size", "count"),
    "vocab": ("vocab_size", "count"),
    "max_merges": ("max_merges", "count"),
    "merges": ("max_merges", "count"),
    "min_frequency": ("min_frequency", "int"),
    "no_merge_newline": ("no_merge_newline", "bool"),
    "specials": ("specials", "list"),
    "end_of_word": ("end_of_word", "text"),
}
#: Where ``open`` reads its corpus from.
SOURCES = ("sample", "file", "text")


@dataclass(frozen=True)
class Source:
    """Where an ``open`` reads its corpus: ``sample:NAME`` or a file path (inline text is written
    to a file of its own, so that sessions and resume work on it as on any file)."""

    source: str
    name: str
    config: TrainConfig


def lesson_path(context: HeadlessContext | PlayContext, named: str) -> Path:
    """The file a directive names, or ActionFailed when the lesson may not read it."""
    try:
        return context.resolve(named)
    except (OSError, RuntimeError, ValueError) as exc:  # outside the lesson's reach, a link loop, a NUL byte
        raise ActionFailed(str(exc)) from None


def load_tokenizer(context: HeadlessContext | PlayContext, named: str, errors: tuple[type[Exception], ...]):
    """The tokenizer file ``replay PATH`` names, loaded; ActionFailed (its line) when it cannot be."""
    from engine import load_any

    path = lesson_path(context, named)
    try:
        with context.reading():  # the files that come with it stay in the lesson's reach too
            return load_any(path)
    except errors as exc:
        raise ActionFailed(str(exc)) from None


def text_file(text: str) -> Path:
    """The file an inline ``open text="..."`` corpus is kept in (by its hash, in the state folder)."""
    from engine.corpus import atomic_write_bytes
    from tui.model.confine import lesson_text_folder

    data = text.encode("utf-8")
    path = lesson_text_folder() / f"text-{hashlib.sha256(data).hexdigest()[:12]}.txt"
    if not path.is_file() or path.read_bytes() != data:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(path, data)
    return path


def open_source(context: HeadlessContext | PlayContext, action: Directive, *, write_text: bool = True) -> Source:
    """The corpus and settings an ``open`` directive names. ActionFailed when it cannot be."""
    options = action.options
    try:
        config = config_for(options)
    except ValueError as exc:
        raise ActionFailed(str(exc)) from None
    if "sample" in options:
        name = sample_name(options["sample"])
        return Source(f"sample:{name}", name, config)
    if "file" in options:
        path = lesson_path(context, options["file"])
        if not path.is_file():
            raise ActionFailed(_("{file}: no such file").format(file=options['file']))
        return Source(str(path), path.name, config)
    if not write_text:
        return Source("", "lesson text", config)
    try:
        path = text_file(options["text"])
    except OSError as exc:
        raise ActionFailed(_("cannot keep the lesson's text in a file: {reason}").format(reason=exc.strerror or exc)) from None
    return Source(str(path), path.name, config)


def read_source(source: Source, text: str | None = None) -> str:
    """The corpus text of a source, decoded as the app decodes it."""
    from engine.corpus import decode_corpus

    if source.source.startswith("sample:"):
        from tui.model.samples import sample

        data = sample(source.name).read_bytes()
    elif text is not None:
        data = text.encode("utf-8")
    else:
        from engine.corpus import read_corpus_bytes
        from engine.errors import MAX_STREAM_BYTES

        try:  # the one bounded reader, at the bound of a stream: a stranger's lesson may name a huge file
            data = read_corpus_bytes(source.source, max_bytes=MAX_STREAM_BYTES)
        except ValueError as exc:
            raise ActionFailed(str(exc)) from None
    return decode_corpus(data, base=source.config.base, name=source.name).text


def sample_name(name: str) -> str:
    """A bundled sample's file name; ``.txt`` may be left out (``die-katze`` is ``die-katze.txt``)."""
    from tui.model.samples import SAMPLES

    return name if name in SAMPLES or f"{name}.txt" not in SAMPLES else f"{name}.txt"


_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


def _whole(key: str, raw: str) -> int:
    """A setting's digits as an int; its range is the config's to check (TrainConfig)."""
    try:
        return int(raw)
    except ValueError:  # longer than Python converts (sys.get_int_max_str_digits()): said as a claim's value is
        raise ValueError(_("{where}: a number with too many digits").format(where=f"{key}=")) from None


def config_for(options: dict[str, str]):
    """The training config an ``open`` directive asks for: the sample's example settings
    (``tui.model.samples.SETTINGS``) or the defaults, with the directive's settings over them.
    ValueError (one line) on a bad setting.

    Example: ``config_for({"sample": "die-katze.txt", "vocab_size": "265"}).vocab_size`` -> 265
    """
    from engine import TrainConfig
    from tui.model.samples import SETTINGS as SAMPLE_SETTINGS

    data = dict(SAMPLE_SETTINGS.get(sample_name(options.get("sample", "")), {}))
    given: dict[str, str] = {}  # field -> the setting that gave it (merges= and max_merges= are one)
    for key, raw in options.items():
        if key in SOURCES:
            continue
        if key not in SETTINGS:
            raise ValueError(_("unknown setting {key}=").format(key=key))
        name, kind = SETTINGS[key]
        if name in given:  # the later would hide the earlier, and whatever is wrong with it
            raise ValueError(_("{first}= and {second}= both set {name}: give one").format(
                first=given[name], second=key, name=name))
        given[name] = key
        if kind == "count":
            if raw.lower() in ("none", ""):
                data[name] = None
                continue
            if not re.fullmatch(r"\d+", raw):
                raise ValueError(_("{key}= takes a whole number or none, not {raw}").format(key=key, raw=repr(raw)))
            data[name] = _whole(key, raw)
        elif kind == "int":
            if not re.fullmatch(r"\d+", raw):
                raise ValueError(_("{key}= takes a whole number, not {raw}").format(key=key, raw=repr(raw)))
            data[name] = _whole(key, raw)
        elif kind == "bool":
            if raw.lower() not in _TRUE | _FALSE:
                raise ValueError(_("{key}= is true or false, not {raw}").format(key=key, raw=repr(raw)))
            data[name] = raw.lower() in _TRUE
        elif kind == "list":
            data[name] = [s for s in raw.split(",") if s] if raw else []
        else:
            data[name] = raw
    if "pattern" in options and "pretokenizer" not in options:
        data["pretokenizer"] = "custom"
    if data.get("pretokenizer") != "custom":
        data.pop("pattern", None)
    if "vocab_size" in {SETTINGS[k][0] for k in options if k in SETTINGS} and "max_merges" not in {
            SETTINGS[k][0] for k in options if k in SETTINGS}:
        data.pop("max_merges", None)  # one stop rule asked for replaces the sample's other one
    if "max_merges" in {SETTINGS[k][0] for k in options if k in SETTINGS} and "vocab_size" not in {
            SETTINGS[k][0] for k in options if k in SETTINGS}:
        data.pop("vocab_size", None)
    return TrainConfig.from_dict(data)
