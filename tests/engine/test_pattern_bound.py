"""How a custom pattern's time is bounded (engine.text.pretokenize.bounded): by a SIGALRM timer in
the main thread when the signal is free (the ``regex`` module's own ``timeout`` reads the clock
as it matches and more than doubles a scan), by ``timeout`` in other threads or when someone
else holds the signal; either way a catastrophic pattern is stopped with the one-line error, and
the signal's handler and timer are left as they were."""

from __future__ import annotations

import signal
import threading

import pytest

import engine.text.pretokenize as pre
from engine.errors import PatternTimeoutError
from engine.text.pretokenize import PreTokenizer

SLOW = ("(a|a)+$", "a" * 40 + "!")  # exponential: years without a bound
main_only = pytest.mark.skipif(threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"),
                               reason="the timer bound needs the main thread and setitimer")


def in_thread(call):
    out: list = []
    worker = threading.Thread(target=lambda: out.append(_outcome(call)))
    worker.start()
    worker.join(60)
    assert not worker.is_alive()
    return out[0]


def _outcome(call):
    try:
        return call()
    except Exception as exc:  # noqa: BLE001  (handed back to the test)
        return exc


def test_the_same_chunks_on_every_path():
    text = "Hello wörld 123 \n\n  x'll  (a+b)" * 50
    pattern = r"(?i:'ll)|\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"
    import regex

    expected = regex.findall(pattern, text)
    assert PreTokenizer("custom", pattern).split(text) == expected
    assert in_thread(lambda: PreTokenizer("custom", pattern).split(text)) == expected
    grouped = r"(\p{L}+)|\s+|."  # findall gives groups: whole matches are taken instead
    assert PreTokenizer("custom", grouped).split(text) == [m.group(0) for m in regex.finditer(grouped, text)]


@main_only
def test_the_main_thread_uses_a_timer_and_leaves_the_signal_as_it_was(monkeypatch):
    monkeypatch.setattr(pre, "PATTERN_SECONDS", 0.1)
    seen = []
    real = pre.bounded

    def spy(seconds):
        cm = real(seconds)
        bound = cm.__enter__()
        seen.append((dict(bound), signal.getsignal(signal.SIGALRM)))
        return _Held(cm, bound)

    monkeypatch.setattr(pre, "bounded", spy)
    with pytest.raises(PatternTimeoutError, match=r"is too slow: no result after 0\.1 s on 41 characters"):
        PreTokenizer("custom", SLOW[0]).split(SLOW[1])
    assert seen and seen[0][0] == {} and seen[0][1] is pre._expire  # the timer, not regex's timeout
    assert signal.getsignal(signal.SIGALRM) == signal.SIG_DFL
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


class _Held:
    def __init__(self, cm, bound):
        self.cm, self.bound = cm, bound

    def __enter__(self):
        return self.bound

    def __exit__(self, *exc):
        return self.cm.__exit__(*exc)


def test_another_thread_is_bounded_by_timeout(monkeypatch):
    monkeypatch.setattr(pre, "PATTERN_SECONDS", 0.1)
    outcome = in_thread(lambda: PreTokenizer("custom", SLOW[0]).split(SLOW[1]))
    assert isinstance(outcome, PatternTimeoutError)

    def bound_here():
        with pre.bounded(2.0) as bound:
            return bound

    assert in_thread(bound_here) == {"timeout": 2.0}


@main_only
def test_a_signal_someone_else_holds_is_not_taken(monkeypatch):
    monkeypatch.setattr(pre, "PATTERN_SECONDS", 0.1)
    calls = []

    def theirs(signum, frame):
        calls.append(signum)

    previous = signal.signal(signal.SIGALRM, theirs)
    try:
        with pre.bounded(2.0) as bound:
            assert bound == {"timeout": 2.0}
        with pytest.raises(PatternTimeoutError):
            PreTokenizer("custom", SLOW[0]).split(SLOW[1])
        assert signal.getsignal(signal.SIGALRM) is theirs and not calls
    finally:
        signal.signal(signal.SIGALRM, previous)
