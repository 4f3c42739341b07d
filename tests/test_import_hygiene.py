"""The engine never loads the UI; headless commands start without textual.

These tests are the only guard of that rule (no import-linter contract): the engine's sources are
read line by line, and importing the engine is checked in a fresh interpreter.
"""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT


def loaded_modules(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys; print('\\n'.join(sys.modules))"],
        capture_output=True, text=True, check=True, cwd=ROOT,
    ).stdout
    return set(out.split())


#: Test dependencies only: the engine and the app read and write their files without them.
LIBRARIES = {"tokenizers", "tiktoken"}
#: The one place an optional library is imported, lazily inside a function (``bpe-lab[compare]``).
LAZY = {("subword.py", "tokenizers")}


def test_import_engine_loads_no_ui():
    mods = loaded_modules("import engine, engine.io, engine.corpus, engine.formats, engine.analysis")
    assert not {m for m in mods if m.split(".")[0] in {"textual", "rich", "tui"} | LIBRARIES}


def test_headless_commands_do_not_import_textual(tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_text("abc abc abd", encoding="utf-8")
    code = (
        "import sys; from tui.main import main\n"
        f"main(['train', {str(corpus)!r}, '-o', {str(tmp_path / 't.json')!r}, '--merges', '2'])\n"
        f"main(['encode', '-t', {str(tmp_path / 't.json')!r}, 'abc'])\n"
        f"main(['decode', '-t', {str(tmp_path / 't.json')!r}, '97'])\n"
        f"main(['export', '-t', {str(tmp_path / 't.json')!r}, '--format', 'hf', '-o', {str(tmp_path / 'hf.json')!r}])\n"
        f"main(['encode', '-t', {str(tmp_path / 'hf.json')!r}, 'abc'])"
    )
    mods = loaded_modules(code)
    assert (tmp_path / "hf.json").exists()
    assert not {m for m in mods if m.split(".")[0] in {"textual", "rich"} | LIBRARIES}


def test_compare_does_not_import_textual():
    code = "from tui.main import main; main(['compare', 'assets/samples/qa.txt', '--merges', '10', '--json'])"
    mods = loaded_modules(code)
    assert not {m for m in mods if m.split(".")[0] in {"textual", "rich"}}


def test_engine_sources_never_import_ui():
    for path in [*(ROOT / "engine").rglob("*.py"), ROOT / "tui" / "cli.py"]:
        for line in path.read_text(encoding="utf-8").splitlines():
            stripped = line.strip()
            if stripped.startswith(("import ", "from ")):
                words = stripped.split("#", 1)[0].replace(",", " ").split()
                banned = LIBRARIES if path.name == "cli.py" else {"textual", "rich", "tui"} | LIBRARIES
                # from X import ...: X; import a, b as c: a and b
                modules = words[1:2] if words[0] == "from" else [
                    w for i, w in enumerate(words) if i and "as" not in words[i - 1:i + 1]
                ]
                names = {w.split(".")[0] for w in modules}
                lazy = line != stripped and names <= {lib for file, lib in LAZY if path.name == file}
                assert lazy or not banned & names, (path, line)
