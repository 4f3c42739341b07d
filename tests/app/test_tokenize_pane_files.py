"""The tokenize pane on the tokenizers engineers bring: a rank file's whole pieces are marked
and explained, in the result and in the trace, and a normalizer's text is shown first."""

from __future__ import annotations

from fetch_tokenizers import LLAMA3_PATTERN, needed
from fetch_tokenizers import load_cached as loaded

from engine.text.pretokenize import PreTokenizer
from tui.app.widgets.tokenize_pane import is_whole_piece, render_tokens, render_trace

SENTENCE = "Türkiye Büyükşehir Belediyesi Ayrıca açıklama yaptı."


def underlined(out) -> list[str]:
    plain = out.plain
    return [plain[span.start:span.end] for span in out.spans if "underline" in str(span.style)]


def test_whole_pieces_are_underlined_and_said_why():
    imported = loaded(needed("llama3.tiktoken"), pretokenizer=PreTokenizer("custom", LLAMA3_PATTERN))
    tok = imported.tokenizer
    ids = tok.encode(SENTENCE)
    wholes = [i for i in ids if is_whole_piece(tok, i)]
    assert wholes, "the sentence holds Llama 3 tokens only the whole-chunk lookup gives"
    out = render_tokens(tok, ids, SENTENCE, width=40)
    assert underlined(out) == [tok.decode([i]) for i in wholes]
    assert "whole pieces" in out.plain and "tiktoken" in out.plain
    trace = render_trace(tok, SENTENCE, width=60)
    assert "found whole, no rule makes them:" in trace.plain
    assert "Belediyesi" in trace.plain.split("found whole", 1)[1]


def test_no_whole_piece_no_legend():
    imported = loaded(needed("llama3.tiktoken"), pretokenizer=PreTokenizer("custom", LLAMA3_PATTERN))
    tok = imported.tokenizer
    text = "the cat sat"
    out = render_tokens(tok, tok.encode(text), text)
    assert not underlined(out) and "whole pieces" not in out.plain
    assert "found whole" not in render_trace(tok, text).plain


def test_a_normalizers_text_is_shown_first():
    imported = loaded(needed("anthropic.json"))
    tok = imported.tokenizer
    text = "full-width，comma ﬁne 𝟙"
    out = render_tokens(tok, tok.encode(text), text)
    first = out.plain.split("\n", 1)[0]
    assert first == "normalized: " + tok.normalize(text) and tok.normalize(text) != text
    assert render_trace(tok, text).plain.split("\n", 1)[0] == first
    plain = "plain ascii"
    assert not render_tokens(tok, tok.encode(plain), plain).plain.startswith("normalized")

