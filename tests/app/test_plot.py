"""The braille plots of the analysis screen's curve tab."""

from __future__ import annotations

from rich.cells import cell_len

from tui.app.plot import framed_plot


def test_step_zero_draws_one_axis_and_marks_the_step_on_the_x_axis():
    values = [3190, 2800, 2500, 2300, 2200]
    for mark, tick in ((0, 0), (4, None)):
        lines = framed_plot("corpus tokens", values, 40, 4, mark=mark).plain.splitlines()
        body = lines[1:-2]
        assert not any("││" in line or "┤│" in line for line in body), "a double axis"
        axis = lines[-2]
        assert axis.count("┴") == 1
        if tick is not None:
            assert axis.strip().startswith("└┴")


def test_every_line_of_a_plot_keeps_within_its_width():
    values = [float(1000 - k * k) for k in range(30)]
    for width in (20, 41, 77):
        for mark in (None, 0, 15, 29):
            lines = framed_plot("bytes per token", values, width, 5, mark=mark, log_x=mark == 15).plain.splitlines()
            assert max(cell_len(line) for line in lines) <= width


def test_token_rows_never_break_a_token_across_lines():
    from rich.text import Text

    from tui.app.widgets.composition_pane import token_row

    vocab = [bytes([b]) for b in range(256)] + ["天".encode() + b"\xe5", b"\xe4\xb8", b" the", "长安".encode()] * 5
    ids = list(range(256, len(vocab)))
    for width in (9, 20, 33):
        text = Text()
        token_row(text, "tokens", ids, vocab, width)
        lines = text.plain.splitlines()[2:]
        assert all(cell_len(line) <= width for line in lines)
        # every token is whole on one line: "[e4 b8]" is never cut into "[e4" and "b8]"
        assert sum(line.count("[e4 b8]") for line in lines) == 5
        assert not any(line.endswith("[e4") or line.startswith("b8]") for line in lines)


def test_the_mark_at_the_last_step_is_not_drawn_as_a_frame():
    """Issue 39: at the last step the mark's column ran down the right edge as a solid │ and the
    curve's end broke it on the last row, like a frame drawn over; the mark is dashed."""
    values = [3190, 2800, 2500, 2300, 2200]
    lines = framed_plot("corpus tokens", values, 40, 4, mark=4).plain.splitlines()[1:-2]
    assert all(not line.rstrip().endswith("│") for line in lines)
    assert sum(line.rstrip().endswith("┆") for line in lines) == len(lines) - 1  # the curve's end in the last
