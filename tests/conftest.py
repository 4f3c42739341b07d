"""Setup for every layer's tests: hypothesis profiles, and each test's own config and state
folders. Shared helpers are in tests/helpers.py; each layer's folder has its own conftest."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

# Property tests run in both passes of the README's test command: 50 examples each in the fast
# default pass, 200 in the second (HYPOTHESIS_PROFILE=slow pytest -m 'slow or hypothesis'); and
# 2000 in a long local run (HYPOTHESIS_PROFILE=thorough). Tests that set max_examples themselves
# (the fuzzers, the stateful trainer machine) keep their own budgets.
for name, examples in (("default", 50), ("slow", 200), ("thorough", 2000)):
    settings.register_profile(
        name, max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow]
    )
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture(autouse=True)
def private_config(tmp_path, monkeypatch):
    """Apps launched by tests read and remember their theme in the test's folder, not ~/.config."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


@pytest.fixture(autouse=True)
def private_session_file(tmp_path, monkeypatch):
    """Apps made by tests save their sessions in the test's folder, not in ~/.local/state."""
    monkeypatch.setenv("BPE_LAB_SESSION", str(tmp_path / "session.json"))
    # ... and keep their merge caches there too, not in ~/.cache (engine/formats/merge_cache.py)
    monkeypatch.setenv("BPE_LAB_CACHE", str(tmp_path / "merge-cache"))


@pytest.fixture(autouse=True)
def english_ui():
    """Every test starts with the UI in English (the source strings), whatever the machine's locale
    and whatever an earlier test chose (``tui.i18n.set_language`` is process-wide)."""
    from tui.i18n import set_language

    set_language("en")
    yield
    set_language("en")


#: Test files that start real servers, browsers or clusters and wait on them with time limits:
#: marked ``serial``, so that the README's test command runs them in a pass of their own, not
#: beside another test worker (``pytest -n 2``) that would share their cores.
SERIAL = {"test_serve.py", "test_serve_hostile.py", "test_serve_offline.py", "test_serve_first_minute.py",
          "test_counts_dask.py"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.name in SERIAL:
            item.add_marker(pytest.mark.serial)
