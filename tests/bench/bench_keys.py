"""From a key to the screen that answers it, in a real terminal: tmux (run by hand).

    python tests/bench/bench_keys.py [--size 100x30] [--runs 5] [--before ../main] [--only settings,help]
                                     [--tang PATH] [--corpus PATH] [--app-args '--base bytes']

The app runs in a detached tmux session of that size (``.venv/bin/bpe-lab`` of this checkout,
and of ``--before DIR`` in the same run, alternating), as a user starts it, on the bundled
workshop corpus (``--corpus``: another). For each key the clock starts just before ``tmux send-keys`` and stops when
``tmux capture-pane`` first shows every line that says the key's screen is drawn (polled
about every 3 ms, each poll a process of its own: the figure includes a few ms of tmux); then
escape closes it and the next try waits until the screen is back and quiet. The first try is
the app's first time (its modules imported, its screen built: what a student sees once), the
others are "again" (``--trained``: after a run to the end first). ``}`` (100 steps forward) is timed on tang_all.txt (``--tang``; default
../shared/corpora), at the character level as it opens, each try 100 new merges, then the same
100 again after ``{`` (redone, not trained).

Targets (issue 39): settings, quiz, analysis, palette and help at most 150 ms; ``}`` on
tang_all at most 300 ms. Nothing here asserts a time: these machines are noisy.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, shared_corpus

#: name -> (keys sent, lines that all show once its screen is drawn, keys that close it)
KEYS = {
    "settings (,)": ([","], ["Training settings", "Apply (ctrl+s)"], ["escape"]),
    "quiz (p)": (["p"], ["predict the next merge", "right 0"], ["escape"]),
    "analysis (a)": (["a"], ["1 Curve", "tokens, "], ["escape"]),
    "palette (ctrl+p)": (["C-p"], ["Search for commands", "(a 4)"], ["escape"]),
    "help (?)": (["?"], ["bpe-lab — keys", "100 steps forward"], ["escape"]),
}


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=False).stdout


def screen(session: str) -> str:
    return tmux("capture-pane", "-t", session, "-p")


def wait_for(session: str, shown, timeout: float = 30.0) -> float:
    """Poll until ``shown(screen)``; the moment it first held (perf_counter)."""
    deadline = time.perf_counter() + timeout
    while True:
        text = screen(session)
        now = time.perf_counter()
        if shown(text):
            return now
        if now > deadline:
            raise TimeoutError(f"not shown after {timeout:.0f} s:\n{text}")
        time.sleep(0.002)


def quiet(session: str, seconds: float = 0.3) -> None:
    """Wait until the screen has not changed for ``seconds`` (the app idle again)."""
    last, since = screen(session), time.perf_counter()
    while time.perf_counter() - since < seconds:
        time.sleep(0.03)
        now = screen(session)
        if now != last:
            last, since = now, time.perf_counter()


class App:
    """One app in a detached tmux session."""

    def __init__(self, root: Path, name: str, size: str, corpus: str | None, extra: str = "",
                 trained: bool = False) -> None:
        self.session = f"bench-keys-{os.getpid()}-{name}"
        width, height = size.split("x")
        state = tempfile.mkdtemp(prefix="bench-keys-")
        command = (f"cd {root} && BPE_LAB_SESSION={state}/s.json XDG_STATE_HOME={state} XDG_CONFIG_HOME={state} "
                   f"{root}/.venv/bin/bpe-lab {corpus or ''} {extra}; sleep 30")
        tmux("new-session", "-d", "-s", self.session, "-x", width, "-y", height, command)
        wait_for(self.session, lambda text: "step 0 " in text and "Run/Pause" in text, timeout=60)
        quiet(self.session, 1.0)
        if trained:  # run to the end first (space), then wait for the status line's "done"
            tmux("send-keys", "-t", self.session, "space")
            wait_for(self.session, lambda text: "done" in text.splitlines()[-2], timeout=600)
            quiet(self.session, 2.0)

    def press(self, keys: list[str], markers: list[str]) -> float:
        started = time.perf_counter()
        tmux("send-keys", "-t", self.session, *keys)
        return wait_for(self.session, lambda text: all(m in text for m in markers)) - started

    def close(self, keys: list[str], markers: list[str]) -> None:
        tmux("send-keys", "-t", self.session, *keys)
        wait_for(self.session, lambda text: not all(m in text for m in markers) and "Run/Pause" in text)
        quiet(self.session)

    def end(self) -> None:
        tmux("kill-session", "-t", self.session)


def time_keys(roots: dict[str, Path], size: str, runs: int, only: set[str] | None, corpus: str | None,
              extra: str, trained: bool) -> None:
    apps = {name: App(root, name, size, corpus, extra, trained) for name, root in roots.items()}
    try:
        for key, (keys, markers, closing) in KEYS.items():
            if only and not any(o in key for o in only):
                continue
            times: dict[str, list[float]] = {name: [] for name in apps}
            for _ in range(runs):
                for name, app in apps.items():
                    times[name].append(app.press(keys, markers))
                    app.close(closing, markers)
            for name, measured in times.items():
                again = statistics.median(measured[1:]) if len(measured) > 1 else float("nan")
                print(f"  {key:<18} {name:<7} first {measured[0] * 1000:5.0f} ms, again median {again * 1000:5.0f} ms"
                      f" (max {max(measured[1:] or measured) * 1000:.0f})", flush=True)
    finally:
        for app in apps.values():
            app.end()


def time_hundred(roots: dict[str, Path], size: str, runs: int, tang: Path, extra: str) -> None:
    for name, root in roots.items():
        app = App(root, name, size, str(tang), extra)
        try:
            trained, redone = [], []
            for i in range(1, runs + 1):
                trained.append(app.press(["}"], [f"step {100 * i} "]))
                quiet(app.session)
            for i in range(runs - 1, -1, -1):
                app.press(["{"], [f"step {100 * i} "])
                quiet(app.session)
            for i in range(1, runs + 1):
                redone.append(app.press(["}"], [f"step {100 * i} "]))
                quiet(app.session)
            print(f"  }} on {tang.name:<11} {name:<7} new merges: first {trained[0] * 1000:5.0f} ms, median "
                  f"{statistics.median(trained) * 1000:5.0f} ms (max {max(trained) * 1000:.0f}); redone: median "
                  f"{statistics.median(redone) * 1000:5.0f} ms (max {max(redone) * 1000:.0f})", flush=True)
        finally:
            app.end()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", default="100x30")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--before", type=Path, help="another checkout (with its .venv), timed in the same run")
    parser.add_argument("--only", help="comma-separated: keys whose names contain one of these (e.g. help,quiz,})")
    parser.add_argument("--tang", type=Path, help="the corpus for } (default ../shared/corpora/tang_all.txt)")
    parser.add_argument("--corpus", help="the corpus the keys are timed on (default: the workshop corpus)")
    parser.add_argument("--app-args", default="", help="more options for every app, e.g. '--base bytes'")
    parser.add_argument("--trained", action="store_true", help="time the keys after a run to the end (space)")
    args = parser.parse_args()
    roots = {"this": ROOT}
    if args.before is not None:
        roots["before"] = args.before.resolve()
    only = set(args.only.split(",")) if args.only else None
    print(f"== key to screen in tmux at {args.size}, {args.runs} tries each, on {args.corpus or 'the workshop corpus'}"
          f" {args.app_args}{', trained to the end' if args.trained else ''}")
    time_keys(roots, args.size, args.runs, only, args.corpus, args.app_args, args.trained)
    tang = args.tang or shared_corpus("tang_all.txt")
    if tang is not None and (only is None or "}" in only):
        time_hundred(roots, args.size, args.runs, tang, args.app_args)
    elif tang is None:
        print("  } skipped: no tang_all.txt", file=sys.stderr)


if __name__ == "__main__":
    main()
