"""The engine never loads the UI; headless commands start without textual; the app uses only the
engine's public names; the engine's modules import each other without cycles.

These tests are the only guard of those rules (no import-linter contract): the engine's sources are
read line by line, and importing the engine is checked in a fresh interpreter.
"""

from __future__ import annotations

import ast
import doctest
import importlib
import subprocess
import sys
from pathlib import Path

from helpers import ROOT

import engine


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
    mods = loaded_modules("import engine, engine.corpus.files, engine.corpus.reading, engine.formats, engine.analysis")
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
    for path in [*(ROOT / "engine").rglob("*.py"), *(ROOT / "tui" / "cli").glob("*.py")]:
        for line in path.read_text(encoding="utf-8").splitlines():
            stripped = line.strip()
            if stripped.startswith(("import ", "from ")):
                words = stripped.split("#", 1)[0].replace(",", " ").split()
                banned = LIBRARIES if path.parent.name == "cli" else {"textual", "rich", "tui"} | LIBRARIES
                # from X import ...: X; import a, b as c: a and b
                modules = words[1:2] if words[0] == "from" else [
                    w for i, w in enumerate(words) if i and "as" not in words[i - 1:i + 1]
                ]
                names = {w.split(".")[0] for w in modules}
                lazy = line != stripped and names <= {lib for file, lib in LAZY if path.name == file}
                assert lazy or not banned & names, (path, line)


# -- the engine's public surface ----------------------------------------------------------------

#: The engine's rooms (``engine/__init__.py`` names them): the app may import the names in their
#: ``__all__``, and nothing else of theirs.
ROOMS = ("engine.text", "engine.corpus", "engine.train", "engine.encode", "engine.native", "engine.formats",
         "engine.analysis")
#: The engine's top-level modules besides its rooms: public as a whole (every name without a
#: leading underscore).
PUBLIC_MODULES = ("engine.errors", "engine.config")


def public_names(module_name: str) -> set[str]:
    module = importlib.import_module(module_name)
    names = getattr(module, "__all__", None)
    return set(names) if names is not None else {n for n in vars(module) if not n.startswith("_")}


def tui_engine_imports() -> list[tuple[str, int, str, str]]:
    """Every engine import in tui/ as (file, line, module, name); ``import engine.x`` gives name ''."""
    found = []
    for path in sorted((ROOT / "tui").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        where = str(path.relative_to(ROOT))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and node.module.split(".")[0] == "engine":
                found.extend((where, node.lineno, node.module, alias.name) for alias in node.names)
            elif isinstance(node, ast.Import):
                found.extend((where, node.lineno, a.name, "") for a in node.names if a.name.split(".")[0] == "engine")
    return found


def test_tui_imports_only_public_engine_names():
    allowed = {"engine": set(engine.__all__)}
    for name in (*ROOMS, *PUBLIC_MODULES):
        allowed[name] = public_names(name)
    found = tui_engine_imports()
    assert any(module == "engine" for _, _, module, _ in found)  # the scan sees the imports
    bad = [
        f"{where}:{line}: {module}{'.' + name if name else ''}"
        for where, line, module, name in found
        if module not in allowed or name not in allowed[module]
    ]
    assert not bad, "tui imports engine internals or names engine does not export:\n" + "\n".join(bad)


def test_public_names_resolve_and_formats_stay_lazy():
    for name in engine.__all__:
        assert not name.startswith("_")
    mods = loaded_modules("import engine")
    assert not {m for m in mods if m.startswith(("engine.formats", "engine.analysis"))}
    mods = loaded_modules("import engine; engine.load_any, engine.export_tokenizer")
    assert "engine.formats" in mods
    for name in engine.__all__:
        assert getattr(engine, name) is not None, name


def test_the_engine_is_rooms_without_private_modules():
    """No ``_name.py`` module: privacy is a room's ``__all__``; every folder of engine/ is a room."""
    private = [str(p.relative_to(ROOT)) for p in (ROOT / "engine").rglob("_*.py") if p.name != "__init__.py"]
    assert not private
    folders = {f"engine.{p.name}" for p in (ROOT / "engine").iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert folders == set(ROOMS)
    assert len(engine.__all__) <= 32


def test_each_room_types_what_it_serves():
    """A room's ``__init__`` imports its ``__all__`` for type checkers, and serves each name."""
    for room in ("engine", *ROOMS):
        module = importlib.import_module(room)
        path = ROOT / Path(*room.split(".")) / "__init__.py"
        typed = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
                for sub in node.body:
                    if isinstance(sub, ast.ImportFrom):
                        typed.update(a.asname or a.name for a in sub.names)
        if "exports(__name__" in path.read_text(encoding="utf-8"):  # a lazy room: engine.lazy serves its names
            assert typed <= set(module.__all__), room
            assert set(module.__all__) - typed <= set(vars(module)), room  # the rest imported eagerly
        for name in module.__all__:
            optional = (room, name) == ("engine.native", "COMPILED")  # None without a compiled build
            assert getattr(module, name) is not None or optional, (room, name)


def engine_import_graph() -> dict[str, set[str]]:
    """engine module -> the engine modules it imports (any import, at any level of the file)."""
    modules = {}
    for path in (ROOT / "engine").rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        package = parts if parts[-1] == "__init__" else parts[:-1]
        if parts[-1] == "__init__":
            parts = parts[:-1]
            package = parts
        modules[".".join(parts)] = (path, package)
    graph: dict[str, set[str]] = {}
    for name, (path, package) in modules.items():
        targets = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = package[: len(package) - node.level + 1] if node.level else []
                module = ".".join([*base, *(node.module.split(".") if node.module else [])])
                for alias in node.names:  # "from . import x" names a module
                    sub = f"{module}.{alias.name}"
                    targets.add(sub if sub in modules else module)
            elif isinstance(node, ast.Import):
                targets.update(a.name for a in node.names)
        graph[name] = {t for t in targets if t in modules and t != name}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of the graph as a list of nodes, or None (depth-first search)."""
    state: dict[str, int] = {}  # 1: on the stack, 2: done
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_find_cycle_finds_one():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


#: What each room (and top-level module) of the engine may import, besides itself: the data's way
#: (docs/architecture.md says it in a table). ``native`` is the door to the compiled core and
#: holds no pure twin of its own: it imports them from the rooms that own them.
ROOM_IMPORTS = {
    "errors": set(),
    "lazy": set(),
    "version": set(),
    "config": {"errors", "text"},
    "text": {"errors", "lazy", "native"},
    "corpus": {"errors", "lazy", "text", "version", "config"},
    "encode": {"errors", "lazy", "text", "corpus", "config", "native"},
    "train": {"errors", "lazy", "text", "corpus", "config", "encode", "native"},
    "native": {"lazy", "encode", "train"},
    "formats": {"errors", "text", "corpus", "config", "encode", "native"},
    "analysis": {"errors", "text", "corpus", "config", "encode", "train"},
}


def test_each_room_imports_only_what_comes_before_it():
    def room(module: str) -> str:
        return module.split(".")[1] if "." in module else "engine"

    bad = sorted(f"{a} -> {b}" for a, targets in engine_import_graph().items() for b in targets
                 if room(a) != "engine" and room(b) != room(a) and room(b) not in ROOM_IMPORTS[room(a)])
    assert not bad


def test_engine_modules_import_each_other_without_cycles():
    graph = engine_import_graph()
    assert "engine.encode.tokenizer" in graph["engine.train.trainer"]  # the graph sees relative imports
    assert "engine.corpus.files" in graph["engine.encode.tokenizer"]
    assert "engine.encode.tiktoken_merge" in graph["engine.formats.tiktoken_bpe"]
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph))


def test_the_engine_docstring_example_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the example saves tokenizer.json
    result = doctest.testmod(engine, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 5 and result.failed == 0
    assert (tmp_path / "tokenizer.json").exists()


# -- the rooms of tui/ (issue 20): every import counts, under TYPE_CHECKING and in functions too --


def tui_modules() -> dict[str, Path]:
    """Every module under tui/, by its dotted name (a package by its own name)."""
    found = {}
    for path in sorted((ROOT / "tui").rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def imported_names(path: Path, name: str, known: dict[str, Path]) -> set[str]:
    """Every module ``path`` imports anywhere: at the top, under TYPE_CHECKING, in a function.
    ``from X import Y`` names X.Y when that is a module, else X."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - (node.level - 1)] + ([base] if base else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                out.add(full if full in known else base)
    return out


def tui_graph() -> dict[str, set[str]]:
    """Which tui modules each tui module imports (anywhere in it)."""
    known = tui_modules()
    graph = {}
    for name, path in known.items():
        deps = set()
        for target in imported_names(path, name, known):
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target.startswith("tui") and target != name:
                deps.add(target)
        graph[name] = deps
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                part = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    part.append(member)
                    if member == node:
                        break
                if len(part) > 1:
                    found.append(sorted(part))
    return found


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_tui_has_no_import_cycles():
    assert cycles(tui_graph()) == []


def test_cli_and_model_never_import_textual():
    known = tui_modules()
    wrong = {name: sorted(t for t in imported_names(path, name, known) if t.split(".")[0] == "textual")
             for name, path in known.items() if name.startswith(("tui.cli", "tui.model"))}
    assert {name: found for name, found in wrong.items() if found} == {}


def test_headless_rooms_never_import_the_app():
    """tui/cli/, tui/model/ and tui/lessons/ never import tui.app at all (tui/main.py, the front
    door, starts the app); screens, widgets and the lab never import the app module (the shell)."""
    graph = tui_graph()
    headless = {name: sorted(d for d in deps if d == "tui.app" or d.startswith("tui.app."))
                for name, deps in graph.items() if name.startswith(("tui.cli", "tui.model", "tui.lessons"))}
    assert {name: found for name, found in headless.items() if found} == {}
    inside = {name: sorted(d for d in deps if d in {"tui.app", "tui.app.shell"})
              for name, deps in graph.items()
              if name.startswith(("tui.app.screens", "tui.app.widgets", "tui.app.lab_")) or name == "tui.app.lab"}
    assert {name: found for name, found in inside.items() if found} == {}


#: What the tests of each layer may import (tests/engine, tests/model, tests/cli; tests/app may
#: import anything): docs/architecture.md's table of the test folders.
TEST_LAYERS = {
    "engine": ("tui", "textual", "rich"),
    "model": ("textual", "tui.app", "tui.cli"),
    "cli": ("textual", "tui.app"),
}


def imports_of(path: Path) -> set[str]:
    """Every module a test file imports, at any level (in functions and under TYPE_CHECKING too)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def test_each_layers_tests_import_only_their_layer():
    wrong = []
    for layer, refused in TEST_LAYERS.items():
        files = sorted((ROOT / "tests" / layer).glob("*.py"))
        assert files, f"tests/{layer}/ is empty"
        for path in files:
            for name in imports_of(path):
                if any(name == r or name.startswith(r + ".") for r in refused):
                    wrong.append(f"tests/{layer}/{path.name} imports {name}")
    assert not wrong, "\n".join(wrong)
