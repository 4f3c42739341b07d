"""How a room of the engine serves its public names: each from the module that holds it,
imported the first time it is asked for, so that ``bpe-lab encode`` never loads the trainer and
``bpe-lab train`` never the file formats (tests/cli/test_cli_startup.py).

A room's ``__init__.py`` lists its names by module and takes its ``__all__``, ``__getattr__`` and
``__dir__`` from :func:`exports`::

    __all__, __getattr__, __dir__ = exports(__name__, {
        "engine.train.trainer": ("Trainer",),
        "engine.train.branches": ("Branch", "check_branch_data:check_data"),  # served name:its name there
    })
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def exports(package: str, table: Mapping[str, tuple[str, ...]]) -> tuple[list[str], Callable[[str], Any],
                                                                       Callable[[], list[str]]]:
    """``package``'s ``__all__`` (the names of ``table``, by module), its ``__getattr__`` and ``__dir__``."""
    where: dict[str, tuple[str, str]] = {}
    for module, names in table.items():
        for entry in names:
            served, _, there = entry.partition(":")
            where[served] = (module, there or served)

    def __getattr__(name: str) -> Any:
        found = where.get(name)
        if found is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(found[0]), found[1])
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *where})

    return sorted(where), __getattr__, __dir__
