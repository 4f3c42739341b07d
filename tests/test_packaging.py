"""The two README commands, CI, and what the wheel ships."""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile

import pytest

from conftest import ROOT


def readme_command(marker: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(rf"<!-- {marker} -->\n```bash\n(.+?)\n```", text)
    assert match, marker
    return match.group(1)


def test_quick_start_has_exactly_two_commands():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    quick = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```bash\n(.+?)\n```", quick, flags=re.S)
    assert len(blocks) == 2 and all("\n" not in b for b in blocks)
    assert "bpe-lab" in readme_command("main-command")
    assert "pytest" in readme_command("test-command") and "'.[test,compare]'" in readme_command("test-command")
    assert "'.[compare]'" in readme_command("main-command")


def test_compare_is_an_optional_extra():
    """Issue 5: WordPiece and Unigram need `tokenizers`, an extra the README's commands install."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    assert any(d.startswith("tokenizers") for d in extras["compare"])
    assert any(d.startswith("tokenizers") for d in extras["test"])
    assert not any(d.startswith("tokenizers") for d in project["dependencies"])


def test_ci_runs_the_readme_test_command():
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "test-command" in script and "README.md" in script


def test_wheel_ships_the_samples(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path), str(ROOT)],
        capture_output=True, text=True,
    )
    if run.returncode != 0:
        pytest.skip(f"cannot build a wheel here: {run.stderr.strip().splitlines()[-1:]}")
    wheel = next(tmp_path.glob("bpe_lab-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    for sample in ("workshop.txt", "low-lower-lowest.txt", "die-katze.txt", "mueller.txt", "the-cat-in-the-hat.txt",
                   "qa.txt", "parallel.txt", "chinese.txt", "emoji.txt"):
        assert f"tui/samples/{sample}" in names
    assert "engine/trainer.py" in names and "tui/cli.py" in names
