"""Setup for every layer's tests: hypothesis profiles, and each test's own config and state
folders. Shared helpers are in tests/helpers.py; each layer's folder has its own conftest."""

from __future__ import annotations

import os

import pytest
from extras import EXTRAS, missing_reason
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
          "test_serve_foreign.py", "test_counts_dask.py"}


def pytest_collection_modifyitems(config, items):
    reasons = {extra: missing_reason(extra) for extra in EXTRAS}
    for item in items:
        if item.path.name in SERIAL:
            item.add_marker(pytest.mark.serial)
        # @pytest.mark.needs_extra("scale"): skipped, saying why, where the extra is not installed
        # (tests/extras.py)
        for mark in item.iter_markers("needs_extra"):
            for extra in mark.args:
                if extra not in reasons:
                    raise pytest.UsageError(f"{item.nodeid}: needs_extra({extra!r}): no such extra (one of {', '.join(EXTRAS)})")
                if reasons[extra]:
                    item.add_marker(pytest.mark.skip(reason=reasons[extra]))


#: The default run's limit for one test (setup, call and teardown): a test over it is marked
#: ``slow`` or made faster. The terminal summary lists each unmarked one (a report, never a
#: failure: a loaded machine must not fail a run), with the processor time it took beside the
#: wall clock's: a test that waited on a shared machine shows little of it, one that works long
#: shows much.
SLOW_SECONDS = 2.0

_PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "default")
_durations: dict[str, float] = {}
_cpu: dict[str, float] = {}
_exempt: set[str] = set()
_CPU_AT = pytest.StashKey[float]()


def _cpu_seconds() -> float:
    """Processor time of this process and of the children it waited for (a test's commands)."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    item.stash[_CPU_AT] = _cpu_seconds()
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    yield
    if _CPU_AT in item.stash:  # carried to the controller in the teardown report, under xdist too
        item.user_properties.append(("cpu_seconds", _cpu_seconds() - item.stash[_CPU_AT]))


def pytest_runtest_logreport(report):
    """Add up each test's phases (under xdist this runs in the controller, with the workers' reports)."""
    _durations[report.nodeid] = _durations.get(report.nodeid, 0.0) + report.duration
    for name, value in report.user_properties:
        if name == "cpu_seconds":
            _cpu[report.nodeid] = value
    # slow and serial tests are not in the default run; a property test run under another
    # hypothesis profile than the default has that profile's budget, not the default run's
    keywords = report.keywords
    if "slow" in keywords or "serial" in keywords or ("hypothesis" in keywords and _PROFILE != "default"):
        _exempt.add(report.nodeid)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    over = sorted(((seconds, nodeid) for nodeid, seconds in _durations.items()
                   if seconds > SLOW_SECONDS and nodeid not in _exempt), reverse=True)
    if not over:
        return
    write = terminalreporter.write_line
    terminalreporter.section(f"tests over {SLOW_SECONDS:g} s not marked slow", sep="-", yellow=True)
    for seconds, nodeid in over:
        cpu = f" ({_cpu[nodeid]:.2f}s processor)" if nodeid in _cpu else ""
        write(f"{seconds:6.2f}s {nodeid}{cpu}")
    write(f"{len(over)} test(s) over {SLOW_SECONDS:g} s: mark each slow (@pytest.mark.slow) or make it faster; "
          f"on a shared machine measure again alone (a test with little processor time waited on the load)")
