"""engine.analysis.alignment: cuts by character (a piece ending inside a character cuts after
it), the columns every row shares, the differing cuts, and bands that fit a width in cells."""

from __future__ import annotations

from engine.analysis.alignment import align, cuts_of


def test_cuts_are_character_offsets():
    assert cuts_of([b"ab", b"c"], "abc") == [2, 3]
    assert cuts_of(["你".encode()[:1], "你".encode()[1:] + b"a"], "你a") == [1, 2]  # inside 你: after it
    assert cuts_of([b"\xe2\x96\x81a"], " a") is None  # SentencePiece's space does not spell the text


def test_rows_share_columns_and_the_differing_cuts_are_marked():
    found = align("the hat", [("a", [b"the", b" hat"]), ("b", [b"th", b"e", b" hat"]), ("n", [b"\xe2\x96\x81the"])])
    assert [row.name for row in found.aligned] == ["a", "b"] and found.rows[2].cuts is None
    (band,) = found.bands(80, len)
    assert [found.line(row, band) for row in found.aligned] == ["th e│·hat", "th│e│·hat"]
    assert found.marks(band, len) == "  ^" and (found.differing, found.cut_count) == (1, 2)
    assert [found.rows[1].piece_of(k) for k in range(7)] == [0, 0, 1, 2, 2, 2, 2]


def test_bands_fit_the_room_in_cells():
    text = "你好世界" * 5
    found = align(text, [("c", [ch.encode() for ch in text])])
    wide = lambda s: 2 if s in text else 1  # noqa: E731
    bands = found.bands(10, wide)
    assert all(sum(found.width(c, wide) for c in band) <= 10 for band in bands)
    assert "".join(found.line(found.rows[0], band) for band in bands).replace("│", "") == text
