"""How long ``check`` takes on the bundled lessons (docs/benchmarks.md)::

    PYTHONPATH=REPO python tests/bench/bench_lesson_check.py REPO
"""

import glob
import sys
import time

from tui.lessons.format import check


def main(repo: str) -> None:
    files = sorted(glob.glob(repo + "/assets/lessons/*.md"))
    for name in files:
        check(name)
    passes = []
    for _ in range(5):
        started = time.perf_counter()
        for _ in range(20):
            for name in files:
                check(name)
        passes.append((time.perf_counter() - started) / 20)
    print(f"{len(files)} bundled lessons checked: best {min(passes) * 1000:.1f} ms a pass "
          f"(median {sorted(passes)[2] * 1000:.1f})")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
