"""Token display conventions shared by the CLI and the app."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from engine.text import token_display, visible_text
from engine.text.display import hex_bytes, is_complete_utf8


def test_complete_text_shows_as_text():
    assert token_display("。\n".encode()) == "。↵"
    assert token_display(b" katz") == " katz"
    assert token_display(b" katz", space="·") == "·katz"


def test_partial_utf8_shows_bytes_in_brackets():
    assert token_display(b"\xe4\xb8") == "[e4 b8]"
    assert token_display("，".encode() + b"\xe5", seed=True) == "[ef bc 8c e5]"  # seed 002's log form
    assert hex_bytes(b"\x80\x82") == "[80 82]"
    assert not is_complete_utf8(b"\xe4\xb8") and is_complete_utf8("ü".encode())


def test_partial_tokens_show_the_whole_characters_they_hold():
    assert token_display("，".encode() + b"\xe5") == "，[e5]"
    assert token_display(b"\x8c" + "。".encode()) == "[8c]。"
    assert token_display(b" \xe4", space="·") == "·[e4]"
    assert token_display(b"\xbc\x8c" + b"ab" + b"\xe4\xb8") == "[bc 8c]ab[e4 b8]"


@given(st.lists(st.one_of(st.sampled_from(["a", "ü", "，", "。", "天", "😀"]), st.integers(0x80, 0xBF),
                         st.sampled_from([0xE4, 0xE5, 0xF0])), max_size=10))
def test_the_mixed_form_names_every_byte(parts):
    """Reading the shown text back (brackets as hex, the rest as UTF-8) gives the token's bytes."""
    import re

    data = b"".join(p.encode() if isinstance(p, str) else bytes([p]) for p in parts)
    shown = token_display(data)
    back = b""
    for hexes, text in re.findall(r"\[([0-9a-f ]*)\]|([^\[]+)", shown):
        back += bytes.fromhex(hexes) if hexes else text.encode("utf-8")
    assert back == data


def test_control_characters_never_reach_the_terminal():
    assert token_display(b"\x00\x1b[2J") == "␀␛[2J"
    assert visible_text("a\tb\r\n") == "a⇥b␍↵"
    assert token_display(b"\x7f") == "␡"
    assert token_display("\x85".encode()) == "␤"


@given(st.binary(max_size=12))
def test_no_raw_control_characters_ever(data):
    shown = token_display(data)
    assert shown
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 for c in shown)


# -- code points that draw nothing (issue 22, points 6 and 7) -------------------------------------

def test_a_token_of_what_draws_nothing_is_named():
    assert token_display("\u200d".encode()) == "⟨ZWJ⟩"
    assert token_display("\ufe0f".encode()) == "⟨VS16⟩"
    assert token_display("\U000e0101".encode()) == "⟨VS18⟩"
    assert token_display("👩\u200d".encode()) == "👩⟨ZWJ⟩"
    assert token_display("\u200b\u200dx".encode()) == "⟨ZWSP⟩⟨ZWJ⟩x"
    assert token_display("\u2066".encode()) == "⟨LRI⟩"
    assert token_display("\U000e0061".encode()) == "⟨U+E0061⟩"  # a tag character: Cf, no short name


def test_a_leading_combining_mark_sits_on_a_dotted_circle():
    assert token_display("\u0301".encode()) == "◌\u0301"
    assert token_display("\u094d".encode()) == "◌\u094d"  # the Devanagari virama of the emoji sample
    assert token_display("e\u0301".encode()) == "e\u0301"  # on its letter it draws as it is


def test_the_middle_of_a_token_is_untouched():
    family = "👨\u200d👩\u200d👧"
    assert token_display(family.encode()) == family


def test_the_mixed_form_marks_the_edges_of_each_run_of_characters():
    assert token_display("\u200d".encode() + b"\xf0\x9f") == "⟨ZWJ⟩[f0 9f]"
    assert token_display(b"\x8c" + "\u0301".encode()) == "[8c]◌\u0301"
    assert token_display("，".encode() + b"\xe5") == "，[e5]"


INVISIBLE = st.sampled_from(["\u200d", "\u200c", "\u200b", "\ufe0f", "\ufe0e", "\u2060", "\ufeff", "\u200e", "\u00ad"])
COMBINING = st.sampled_from(["\u0301", "\u0308", "\u094d", "\u20e3", "\u0903"])


@given(st.lists(st.one_of(INVISIBLE, COMBINING, st.sampled_from(["a", "👩", "天", " ", "ü"])), min_size=1, max_size=8))
def test_no_token_starts_or_ends_with_something_invisible(chars):
    import unicodedata

    from engine.text import invisible_name

    shown = token_display("".join(chars).encode(), space="·")
    assert invisible_name(shown[0]) is None and invisible_name(shown[-1]) is None
    assert unicodedata.category(shown[0]) not in ("Mn", "Mc", "Me")


def test_the_corpus_pane_spells_a_cut_character_as_the_log_does():
    from tui.app.widgets.corpus_view import _show

    assert _show("Mü".encode()[:2]) == token_display("Mü".encode()[:2]) == "M[c3]"
    assert _show(b" \xf0\x9f\x91") == "·[f0 9f 91]".replace("·", " ")
    assert _show("👩\u200d".encode()) == "👩⟨ZWJ⟩"
