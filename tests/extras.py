"""The optional extras of pyproject.toml, as the tests see them.

``pip install -e '.[test]'`` alone must give a passing run: a test that needs an extra skips,
saying which and how to get it, instead of failing. One marker does it for every extra::

    @pytest.mark.needs_extra("scale")        # one test
    pytestmark = pytest.mark.needs_extra("serve")   # a whole file

(tests/conftest.py turns the marker into a skip). A file whose own imports need the extra calls
:func:`skip_without` before them, which skips the whole file with the same reason.
"""

from __future__ import annotations

import importlib.util

import pytest

#: Each extra, with the modules whose absence means it is not installed.
EXTRAS: dict[str, tuple[str, ...]] = {
    "scale": ("pyarrow", "distributed", "zstandard"),
    "plots": ("matplotlib",),
    "serve": ("textual_serve", "aiohttp"),
    "compare": ("tokenizers", "subword_nmt"),
}


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package that fails, or a module set to None
        return False


def missing_reason(extra: str) -> str | None:
    """Why the tests that need ``extra`` skip here, or None when it is installed."""
    absent = [module for module in EXTRAS[extra] if not _importable(module)]
    if not absent:
        return None
    return f"needs the {extra} extra ({', '.join(absent)} missing): pip install -e '.[{extra}]'"


def skip_without(extra: str) -> None:
    """Skip the calling test file (or test) unless ``extra`` is installed."""
    reason = missing_reason(extra)
    if reason:
        pytest.skip(reason, allow_module_level=True)
