"""Rules of the engine's shape that no import check sees: no process forked by hand, a Trainer and
a Tokenizer composed of parts rather than mixins, compiled-core stages a reader can hold, and
comments that say why rather than which issue asked.

Each rule is a function over source text, checked on the real tree and, first, on a sample that
breaks it (so a rule that can no longer fail shows up as a failure too).
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

from helpers import ROOT

ENGINE = ROOT / "engine"
#: The compiled core's sources: ``compiled.pyx`` and the stages it includes.
NATIVE = ENGINE / "native"
#: A stage of the compiled core (a .pyx or .pxi file) holds at most this many lines.
MAX_STAGE_LINES = 1200
#: The classes that are compositions of parts (collaborators), never of mixin bases.
COMPOSED = ("Trainer", "Tokenizer")


def sources(*folders: Path, suffixes: tuple[str, ...] = (".py", ".pyx", ".pxi")) -> list[Path]:
    return sorted(p for folder in folders for p in folder.rglob("*") if p.suffix in suffixes and "__pycache__" not in p.parts)


def shown(path: Path) -> str:
    return str(path.relative_to(ROOT))


# -- no process forked by hand ---------------------------------------------------------------

#: os's calls that fork the process (the standard library's process pools are the one way).
FORKS = {"fork", "forkpty"}
#: A fork in Cython (``from posix.unistd cimport fork``, ``fork()``): any word ``fork`` in code.
CYTHON_FORK = re.compile(r"\bfork(?:pty)?\b")


def forks_in_python(text: str) -> list[int]:
    """Lines of Python ``text`` that reach ``os.fork`` or ``os.forkpty``: as an attribute of ``os``
    (whatever it is called or wherever it is imported), or imported from ``os``."""
    tree = ast.parse(text)
    os_names = {"os"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            os_names |= {alias.asname or alias.name for alias in node.names if alias.name == "os"}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in FORKS and isinstance(node.value, ast.Name) and node.value.id in os_names:
            found.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and node.module == "os" and any(a.name in FORKS for a in node.names):
            found.append(node.lineno)
    return found


def forks_in_cython(text: str) -> list[int]:
    """Lines of Cython ``text`` whose code (not a comment) names ``fork``."""
    return [number for number, line in enumerate(text.splitlines(), 1) if CYTHON_FORK.search(line.split("#", 1)[0])]


def test_the_fork_finders_find_forks():
    assert forks_in_python("import os\npid = os.fork()\n") == [2]
    assert forks_in_python("import os as system\nsystem.forkpty()\n") == [2]
    assert forks_in_python("from os import fork\n") == [1]
    assert forks_in_python("def fork(self):\n    return self.tree.fork()\n") == []  # a branch's fork is no process
    assert forks_in_cython("from posix.unistd cimport fork\n# fork( in a comment\ncdef int pid = fork()\n") == [1, 3]


def test_the_engine_forks_no_process_itself():
    """Parallel work runs in the standard library's process pools (or Dask), never ``os.fork``."""
    found = []
    for path in sources(ENGINE):
        text = path.read_text(encoding="utf-8")
        lines = forks_in_python(text) if path.suffix == ".py" else forks_in_cython(text)
        found += [f"{shown(path)}:{line}" for line in lines]
    assert not found, "os.fork in the engine: " + ", ".join(found)


# -- Trainer and Tokenizer are compositions ----------------------------------------------------


def bases_of(text: str, names: tuple[str, ...] = COMPOSED) -> dict[str, list[str]]:
    """Each class of ``names`` defined in ``text`` -> its bases and keywords (a metaclass), as written."""
    out = {}
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ClassDef) and node.name in names:
            out[node.name] = [ast.unparse(base) for base in node.bases] + [ast.unparse(k) for k in node.keywords]
    return out


def test_the_bases_finder_finds_mixins():
    assert bases_of("class Trainer(_Steps, _Undo):\n    pass\n") == {"Trainer": ["_Steps", "_Undo"]}
    assert bases_of("class Tokenizer(metaclass=Meta):\n    pass\nclass Other(Base):\n    pass\n") == {"Tokenizer": ["metaclass=Meta"]}
    assert bases_of("class Tokenizer:\n    pass\n") == {"Tokenizer": []}


def test_trainer_and_tokenizer_have_no_base_class():
    """The Trainer delegates to its collaborators (chooser, timeline, branches) and the Tokenizer is
    a vocabulary, a model and a decoder: a mixin base would share private state no type checker sees."""
    found: dict[str, list[str]] = {}
    for path in sources(ENGINE, suffixes=(".py",)):
        for name, bases in bases_of(path.read_text(encoding="utf-8")).items():
            found[f"{shown(path)}: class {name}"] = bases
    assert {key.rsplit(" ", 1)[1] for key in found} == set(COMPOSED), found  # each is defined, once
    assert len(found) == len(COMPOSED), found
    assert not {key: bases for key, bases in found.items() if bases}


# -- the compiled core's stages stay readable -------------------------------------------------


def test_no_compiled_core_stage_is_over_1200_lines():
    stages = sources(NATIVE, suffixes=(".pyx", ".pxi"))
    assert any(p.name == "compiled.pyx" for p in stages)
    lengths = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in stages}
    assert not {name: n for name, n in lengths.items() if n > MAX_STAGE_LINES}, lengths


# -- comments say why, not which issue ---------------------------------------------------------

#: An issue number: ``issue 12``, ``Issue #12``, ``issues 13``, ``(#12)``. A link to another
#: project's issue (``github.com/.../issues/6357``) is a reference, not a number: it passes.
ISSUE_NUMBER = re.compile(r"\bissues?\s*#?\s*\d+|\(#\d+\)", re.IGNORECASE)


def python_notes(text: str) -> list[tuple[int, str]]:
    """(line, text) of each comment and docstring of Python ``text``."""
    notes = [(tok.start[0], tok.string) for tok in tokenize.generate_tokens(io.StringIO(text).readline)
             if tok.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                notes.append((first.lineno, first.value.value))
    return notes


def issue_numbers(text: str, cython: bool = False) -> list[int]:
    """Lines where a comment or docstring of ``text`` names an issue by number (in Cython,
    which the Python tokenizer cannot read, any line)."""
    if not ISSUE_NUMBER.search(text):
        return []  # (most files: nothing to parse)
    if cython:
        return [number for number, line in enumerate(text.splitlines(), 1) if ISSUE_NUMBER.search(line)]
    return sorted(number for number, note in python_notes(text) if ISSUE_NUMBER.search(note))


def test_the_issue_finder_finds_issue_numbers():
    sample = '"""Lessons (issue 14): walkthroughs."""\n\n\ndef f():\n    """Why (Issue #38)."""\n    return 1  # see (#12)\n'
    assert issue_numbers(sample) == [1, 5, 6]
    kept = ('"""A bug open upstream: https://github.com/Textualize/textual/issues/6357."""\n'
            'x = "issue 5"  # a token id: #12\n')
    assert issue_numbers(kept) == []  # a link, a string the program uses, the #12 token syntax
    assert issue_numbers("# -- counting (h-count, issue 24's third round) --\ncdef int x\n", cython=True) == [1]


def test_no_comment_in_engine_or_tui_names_an_issue_by_number():
    """An issue number in a comment sends the reader to a tracker to learn the why; the comment
    says the why, and the number goes in the commit body."""
    found = []
    for path in sources(ENGINE, ROOT / "tui"):
        text = path.read_text(encoding="utf-8")
        found += [f"{shown(path)}:{line}" for line in issue_numbers(text, cython=path.suffix != ".py")]
    assert not found, "issue numbers in comments: " + ", ".join(found)
