"""The inspector's rendering: partial tokens show the characters they hold, bits show UTF-8's marker apart."""

from __future__ import annotations

from engine import TrainConfig, Trainer
from engine.analysis.inspector import token_info
from tui.app.widgets.inspector import render_info, split_bits


def test_bits_split_the_utf8_marker_from_the_payload():
    assert split_bits(0xE4, "lead of 3") == ("1110", "0100")
    assert split_bits(0xB8, "continuation") == ("10", "111000")
    assert split_bits(0x61, "ASCII") == ("0", "1100001")
    assert split_bits(0xC3, "lead of 2") == ("110", "00011")
    assert split_bits(0xF0, "lead of 4") == ("11110", "000")
    assert split_bits(0xFF, "invalid") == ("11111111", "")


def _partial_token(text: str, wanted: str) -> int:
    """Train on ``text`` as one sequence until a token whose display is ``wanted`` is born."""
    trainer = Trainer(text, TrainConfig(pretokenizer="none"))
    while (event := trainer.step()) is not None:
        if token_info(trainer, event.new_id).display == wanted:
            return trainer, event.new_id
    raise AssertionError(f"no token {wanted!r} was learned")


def test_a_partial_token_shows_the_character_it_holds():
    # "，" then the lead byte of "天" (e5 a4 a9) recur together, so "，[e5]" is learned.
    trainer, token = _partial_token("，天" * 30 + "a" * 3, "，[e5]")
    info = token_info(trainer, token)
    shown = render_info(info).plain.splitlines()
    assert shown[0] == f"token {token}  ，[e5]"
    assert shown[1] == "partial: ends mid-character"
    rows = [line for line in shown if line.startswith(" e5 ")]
    assert rows == [" e5 229 1110 0101 lead of 3"]
    assert " 8c 140 10 001100 continuation" in shown


def test_the_status_line_drops_its_least_important_fields_first():
    from rich.text import Text

    from tui.app.widgets.status_line import fit_fields

    fields = {name: Text(value) for name, value in (
        ("state", "paused"), ("step", "step 61/376"), ("redo", "(+356 redo)"), ("vocab", "vocab 317"),
        ("tokens", "2265 tokens"), ("bpt", "1.41 B/token"), ("config", "bytes gpt2"), ("rule", "lowest-ids"),
        ("corpus", "workshop.txt"), ("size", "3.1 kB"))}
    wide = fit_fields(fields, 200).plain
    assert wide == "paused │ step 61/376 (+356 redo) │ vocab 317 │ 2265 tokens │ 1.41 B/token │ bytes gpt2 lowest-ids │ workshop.txt 3.1 kB"
    narrow = fit_fields(fields, 78).plain
    assert narrow.startswith("paused │ step 61/376") and "workshop.txt" in narrow and "lowest-ids" in narrow
    assert len(narrow) <= 78  # every cell here is one column wide
    tiny = fit_fields(fields, 30).plain
    assert tiny == "paused │ step 61/376"
    # A field attached to one that gave way gets a separator of its own.
    fields.pop("config")
    assert "2265 tokens │ 1.41 B/token │ lowest-ids │ workshop.txt" in fit_fields(fields, 200).plain
