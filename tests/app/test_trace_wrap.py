"""The tokenize pane's trace wraps between tokens, never inside a byte group (issue 22, point 5)."""

from __future__ import annotations

import re

import pytest
from rich.cells import cell_len

from engine import TrainConfig, Trainer
from tui.app.widgets.tokenize_pane import _words, render_trace


@pytest.fixture(scope="module")
def chinese_tokenizer():
    text = "床前明月光，疑是地上霜。举头望明月，低头思故乡。\n" * 3
    trainer = Trainer(text, TrainConfig(vocab_size=262, pretokenizer="none"))
    trainer.train()
    return trainer.tokenizer()


@pytest.mark.parametrize("width", [12, 17, 23, 31, 40])
def test_trace_lines_break_between_tokens(chinese_tokenizer, width):
    shown = render_trace(chinese_tokenizer, "中文，举头望", width).plain
    lines = shown.splitlines()
    assert len(lines) > 3  # it did wrap
    for line in lines:
        assert not re.search(r"\[[^\]]*$", line), (width, line)  # no group left open at a line's end
        assert not re.match(r"^\s*[0-9a-f]{2}\]", line), (width, line)  # none continued on the next
    unwrapped = render_trace(chinese_tokenizer, "中文，举头望").plain
    assert re.sub(r"\n  ", "", shown) == unwrapped  # the same trace, only broken into lines
    for line in lines:  # within the width, but for one piece that is wider on its own
        assert cell_len(line.rstrip()) <= width or len(_words(line.strip())) == 1, (width, line)


def test_words_keep_a_byte_group_whole():
    assert _words("rule 3: [e4 b8] + [ad] ") == ["rule ", "3: ", "[e4 b8] ", "+ ", "[ad] "]
