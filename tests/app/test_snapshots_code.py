"""SVG snapshots of the code beside the merge (`v`, issue 42 item 8) at 80x24 and 100x30.

Update after a deliberate UI change: ``pytest tests/app/test_snapshots_code.py --snapshot-update``
(read the report first).
"""

from __future__ import annotations

from functools import partial

import pytest
from helpers import app_on

#: A sample as a snapshot wants it: no animation, no autosave.
app_for = partial(app_on, autosave=False, still=True)


@pytest.mark.slow
def test_code_view_on_a_tie_at_80x24(snap_compare):
    """The workshop's merge 7: two pairs tie at 26, best_pair's lowest-ids line decides."""
    assert snap_compare(app_for("workshop.txt"), press=["v", *"nnnnnnn"], terminal_size=(80, 24))


@pytest.mark.slow
def test_code_view_on_chinese_at_100x30(snap_compare):
    """Chinese pairs (two cells a character) and the count deciding, at step 3 of chinese.txt."""
    assert snap_compare(app_for("chinese.txt", base="chars", pretokenizer="gpt2"), press=["v", *"nnn"],
                        terminal_size=(100, 30))


@pytest.mark.slow
def test_code_view_when_training_is_done_at_100x30(snap_compare):
    """Seed 001's four merges: the stop line (the merge count) marked and in view."""
    app = app_for("low-lower-lowest.txt", base="chars", pretokenizer="none", tie_rule="first-seen", max_merges=4)
    assert snap_compare(app, press=["v", *"nnnn"], terminal_size=(100, 30))
