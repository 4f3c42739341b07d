"""How the panes show a tokenizer with a continuing-subword prefix (``##``): the tokenize pane
dims the prefix and, where the pattern drops the spaces, puts one between words; the inspector
says the token continues a word and lists its text's bytes without the mark."""

from __future__ import annotations

from engine import token_info
from engine.config import TrainConfig
from engine.formats.hfpre import WHITESPACE
from engine.train.trainer import Trainer
from tui.app.widgets.inspector import byte_lines, render_info
from tui.app.widgets.tokenize_pane import render_tokens

TEXT = "the baker opens the bakery, the baker bakes\n" * 5


def _trainer(**options) -> Trainer:
    config = TrainConfig(subword_prefix="##", max_merges=12, **options)
    trainer = Trainer(TEXT, config)
    for _ in trainer.run():
        pass
    return trainer


def test_tokenize_pane_dims_the_prefix_and_spaces_the_words():
    tok = _trainer(base="chars", pretokenizer="custom", pattern=WHITESPACE).tokenizer()
    text = "the bakers open"
    ids = tok.encode(text)
    shown = render_tokens(tok, ids, text)
    first = shown.plain.split("\n")[0]
    assert first.replace("##", "") == text  # the words as typed, each token's ## in front of it
    assert first.count("##") == sum(tok.continues_word(i) for i in ids) > 0
    dimmed = [shown.plain[span.start:span.end] for span in shown.spans if "dim" in str(span.style)]
    assert dimmed.count("##") == first.count("##")


def test_tokenize_pane_packs_lines_without_a_leading_space():
    tok = _trainer(base="chars", pretokenizer="custom", pattern=WHITESPACE).tokenizer()
    text = "the bakers open the bakery the baker bakes"
    lines = render_tokens(tok, tok.encode(text), text, width=12).plain.split("\n")
    token_lines = lines[: next(i for i, line in enumerate(lines) if line and line[0].isdigit())]
    assert len(token_lines) > 2 and not any(line.startswith(" ") for line in token_lines)
    assert " ".join(token_lines).replace("##", "") == text


def test_inspector_says_a_token_continues_a_word():
    trainer = _trainer(base="bytes", pretokenizer="gpt2")
    inner = next(m.new_id for m in trainer.history if trainer.continues_word(m.new_id))
    info = token_info(trainer, inner)
    assert info.mark == "##" and info.display.startswith("##")
    assert b"#" not in info.data and trainer.token_bytes(inner) == b"##" + info.data
    text = render_info(info).plain
    assert "continues a word (##)" in text
    first, _ = byte_lines(info)
    assert text.split("\n")[first].startswith(f"{len(info.data)} bytes:")
    start = next(m.new_id for m in trainer.history if not trainer.continues_word(m.new_id))
    assert token_info(trainer, start).mark == "" and "continues a word" not in render_info(token_info(trainer, start)).plain
