"""The bundled sample corpora (written for this project), found the same way installed or not."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

#: The samples, in the order the "open sample" dialog lists them, with what each is for.
SAMPLES = {
    "workshop.txt": "multilingual workshop corpus: English, German, Chinese, code, numbers, emoji",
    "low-lower-lowest.txt": "seed 001's trace: low lower lowest",
    "the-cat-in-the-hat.txt": "seed 003's walkthrough: the cat in the hat",
    "die-katze.txt": "seed 000's example: die katze und die kanne und die katze",
    "mueller.txt": "seed 003's worked example: Müller Müller Müller",
    "qa.txt": "seed 001's experiment: Q/A lines (merges 0/6/12/24/48 → tokens)",
    "parallel.txt": "parallel sentences for the token tax: English, German, Chinese, Russian",
}
DEFAULT_SAMPLE = "workshop.txt"


@dataclass(frozen=True)
class Sample:
    """One bundled corpus."""

    name: str
    description: str

    def read_bytes(self) -> bytes:
        """The sample's exact bytes."""
        return sample_folder().joinpath(self.name).read_bytes()


def sample_folder() -> Traversable:
    """Where the samples live: inside the installed package (the wheel ships them as
    ``tui/samples``), or in a source checkout's ``assets/samples``."""
    packaged = resources.files("tui").joinpath("samples")
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parent.parent / "assets" / "samples"


def samples() -> list[Sample]:
    """Every bundled sample, in dialog order."""
    return [Sample(name, text) for name, text in SAMPLES.items()]


def sample(name: str) -> Sample:
    """A sample by file name; ValueError for an unknown one."""
    if name not in SAMPLES:
        raise ValueError(f"no bundled sample named {name!r} (have: {', '.join(SAMPLES)})")
    return Sample(name, SAMPLES[name])
