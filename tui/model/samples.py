"""The bundled sample corpora (written for this project), found the same way installed or not."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from tui.i18n import N_, _, ngettext

#: The samples, in the order the "open sample" dialog lists them, with what each is for.
SAMPLES = {
    "workshop.txt": N_("multilingual workshop corpus: English, German, Chinese, code, numbers, emoji"),
    "low-lower-lowest.txt": N_("XSLM's trace: low lower lowest"),
    "the-cat-in-the-hat.txt": N_("the cat in the hat, rule by rule (Tokenization: how machines read)"),
    "die-katze.txt": N_("Tokenwerk's example: die katze und die kanne und die katze"),
    "mueller.txt": N_("Müller Müller Müller, byte by byte (Tokenization: how machines read)"),
    "qa.txt": N_("XSLM's experiment: Q/A lines (merges 0/6/12/24/48 → tokens)"),
    "parallel.txt": N_("parallel sentences for the token tax: English, German, Chinese, Russian, Hindi, Arabic, Japanese"),
    "chinese.txt": N_("Chinese sentences and short poems, as in Writing a BPE tokenizer by hand"),
    "tang.txt": N_("28 Tang poems (public domain), one a line: half characters, as in Writing a BPE tokenizer by hand"),
    "emoji.txt": N_("emoji, flags, skin tones, combining accents, Devanagari"),
    "code.txt": N_("a Python program indented with spaces: what code costs in tokens (the tokenizer lab)"),
}
DEFAULT_SAMPLE = "workshop.txt"

#: The settings each sample's example needs, as a config dict (``TrainConfig.from_dict``; missing
#: keys take their defaults). A sample opens with these unless the user keeps the current ones.
SETTINGS: dict[str, dict] = {
    "workshop.txt": {},
    "low-lower-lowest.txt": {"base": "chars", "pretokenizer": "none", "tie_rule": "first-seen", "max_merges": 4},
    "the-cat-in-the-hat.txt": {"base": "chars", "pretokenizer": "custom", "pattern": r"\w+",
                               "tie_rule": "first-seen", "max_merges": 3},
    "die-katze.txt": {"pretokenizer": "simple", "vocab_size": 270,
                      "specials": ["<pad>", "<bos>", "<eos>", "<user>", "<assistant>"]},
    "mueller.txt": {"pretokenizer": "none"},
    "qa.txt": {"base": "chars", "pretokenizer": "none", "tie_rule": "first-seen", "no_merge_newline": True, "max_merges": 48},
    "parallel.txt": {},
    # The whole text one sequence, so "，", "。" and "。↵" are learned early; from characters, so
    # a class sees words form rather than hex (tang.txt keeps the bytes: lesson 002's half characters).
    "chinese.txt": {"base": "chars", "pretokenizer": "none"},
    # Seed 002's Tang poems in small (lesson 002): one sequence, so [e4 b8] is merge 5, as there.
    "tang.txt": {"pretokenizer": "none"},
    # No pre-tokenizer, so a combining accent can merge with its letter (gpt2's splits them apart).
    "emoji.txt": {"pretokenizer": "none"},
    "code.txt": {},
}


@dataclass(frozen=True)
class Sample:
    """One bundled corpus."""

    name: str
    description: str

    def config(self):
        """The training settings of this sample's example (a ``TrainConfig``)."""
        from engine import TrainConfig

        return TrainConfig.from_dict(SETTINGS.get(self.name, {}))

    def settings_summary(self) -> str:
        """The example's settings in a few words, as the open dialog and the status line say them.

        Example: ``sample("die-katze.txt").settings_summary()`` -> ``'bytes, simple, lowest-ids, vocab 270, 5 specials'``
        """
        return describe(self.config())

    def read_bytes(self) -> bytes:
        """The sample's exact bytes."""
        return sample_folder().joinpath(self.name).read_bytes()


def sample_folder() -> Traversable:
    """Where the samples live: inside the installed package (the wheel ships them as
    ``tui/samples``), or in a source checkout's ``assets/samples``."""
    packaged = resources.files("tui").joinpath("samples")
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / "assets" / "samples"


def samples() -> list[Sample]:
    """Every bundled sample, in dialog order."""
    return [Sample(name, text) for name, text in SAMPLES.items()]


def sample(name: str) -> Sample:
    """A sample by file name; ValueError for an unknown one."""
    if name not in SAMPLES:
        raise ValueError(_("no bundled sample named {name!r} (have: {names})").format(name=name, names=", ".join(SAMPLES)))
    return Sample(name, SAMPLES[name])


def describe(config) -> str:
    """A config in a few words: base, pre-tokenizer, tie rule, then whatever differs from the defaults."""
    from engine import TrainConfig

    default = TrainConfig()
    data, plain = config.to_dict(), default.to_dict()
    pre = data["pretokenizer"] if data["pretokenizer"] != "custom" else _("pattern {pattern}").format(pattern=data["pattern"])
    words = [data["base"], pre, data["tie_rule"]]
    if data.get("max_merges") is not None:
        words.append(ngettext("{n} merge", "{n} merges", data["max_merges"]).format(n=data["max_merges"]))
    if data.get("vocab_size") is not None:
        words.append(_("vocab {size}").format(size=data["vocab_size"]))
    if data.get("min_frequency") != plain.get("min_frequency"):
        words.append(_("min count {n}").format(n=data["min_frequency"]))
    if data.get("split_digits"):
        words.append(_("split digits"))
    if data.get("no_merge_newline"):
        words.append(_("no merge across newline"))
    if data.get("specials"):
        count = len(data["specials"])
        words.append(ngettext("{n} special", "{n} specials", count).format(n=count))
    return ", ".join(words)


def sample_settings(source: str, current, keep: bool = False):
    """The config to open ``sample:NAME`` with, and a line saying which: the sample's example's
    settings, or ``current`` when ``keep`` (or when the sample is unknown: opening it fails).

    Example: ``sample_settings("sample:die-katze.txt", TrainConfig())[1]`` ->
    ``"die-katze.txt, with its example's settings: bytes, simple, lowest-ids, vocab 270, 5 specials"``
    """
    name = source.split(":", 1)[1]
    if name not in SAMPLES:
        return current, None
    if keep:
        return current, _("{name}, with your settings kept: {settings}").format(name=name, settings=describe(current))
    found = sample(name)
    return found.config(), _("{name}, with its example's settings: {settings}").format(name=name, settings=found.settings_summary())
def markdown_table() -> str:
    """docs/app.md's samples table: each sample, what it is for, the settings it opens with
    (``python -m tui.model.samples`` prints it; tests/model/test_samples.py checks docs/app.md against it)."""
    lines = ["| sample | what it is for | opens with |", "|---|---|---|"]
    for each in samples():
        summary = each.settings_summary()
        pattern = SETTINGS.get(each.name, {}).get("pattern")
        if pattern:  # a regex reads as code
            summary = summary.replace(f"pattern {pattern}", f"pattern `{pattern}`")
        lines.append(f"| `{each.name}` | {each.description} | {summary.replace('|', chr(92) + '|')} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown_table())
