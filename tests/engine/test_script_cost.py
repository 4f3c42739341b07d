"""engine.analysis.script_cost: characters grouped by their letters' script (punctuation with the
letters before it), tokens by the character they start in, SentencePiece's ▁ read as a space."""

from __future__ import annotations

from engine.analysis.script_cost import piece_starts, script_spans, spelling, tokens_by_script


def test_groups_follow_the_letters_before_them():
    assert script_spans("ab 你好。cd") == [(0, "Latin"), (3, "Han"), (6, "Latin")]
    assert script_spans("12 Привет мир, hi") == [(0, "Cyrillic"), (15, "Latin")]
    assert script_spans("!!") == [(0, "no letters")] and script_spans("") == [(0, "no letters")]


def test_tokens_add_up_to_the_whole_count():
    text = "Hallo, 世界。"
    pieces = [b"Hal", b"lo", b",", b" ", *[bytes([b]) for b in "世界".encode()], "。".encode()]
    shares = tokens_by_script(text, [pieces, [b"\xe2\x96\x81x"]])
    assert [(s.script, s.chars, s.tokens) for s in shares] == [("Latin", 7, (4, None)), ("Han", 3, (7, None))]
    assert sum(s.tokens[0] for s in shares) == len(pieces) and shares[1].per_char(0) == 7 / 3


def test_sentencepiece_pieces_spell_the_text_with_their_spaces():
    spm = [b"\xe2\x96\x81Das", b"\xe2\x96\x81ist"]
    assert spelling(spm, "Das ist") == [b"Das", b" ist"] and piece_starts(spm, "Das ist") == [0, 3]
    assert spelling(spm, "Das war") is None
