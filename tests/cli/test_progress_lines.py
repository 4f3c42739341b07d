"""Without a terminal, a large input is told of in plain lines (its size first, then each tenth),
so a script or a log never waits silently on it (tui/cli/progress.py)."""

from __future__ import annotations

import io

from tui.cli.progress import LARGE, Bar


def test_a_large_input_is_told_of_in_plain_lines_without_a_terminal():
    err = io.StringIO()
    total = 3 * LARGE
    with Bar(err, what="count") as bar:
        for k in range(0, 101):  # a hundredth at a time: one line a tenth
            bar.hashing(-(-total * k // 100), total)
        bar.bytes(total // 2, total, 1234)
    lines = err.getvalue().splitlines()
    assert lines[0] == "bpe-lab: hashing 3 GB of input (a line at each tenth; --quiet for none)"
    assert lines[1:11] == [f"bpe-lab: hashing: {size} of 3 GB" for size in
                           ("307.2 MB", "614.4 MB", "921.6 MB", "1.2 GB", "1.5 GB", "1.8 GB", "2.1 GB", "2.4 GB", "2.7 GB", "3 GB")]
    assert lines[11:] == ["bpe-lab: counting 3 GB of input (a line at each tenth; --quiet for none)",
                          "bpe-lab: counting: 1.5 GB of 3 GB, 1,234 distinct chunks"]


def test_small_inputs_and_quiet_runs_say_nothing():
    for quiet, total in ((False, LARGE - 1), (True, 3 * LARGE)):
        err = io.StringIO()
        with Bar(err, quiet=quiet) as bar:
            bar.hashing(total, total)
            bar.bytes(total, total, 1)
        assert err.getvalue() == ""
