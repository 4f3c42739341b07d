"""A pre-tokenizer with a chain of patterns (``PreTokenizer(chain=...)``): each pattern splits
the pieces the one before it left into its matches and the text between them, then the pattern
splits each piece. Checked against a naive reference written here from that sentence, and
against ``tokenizers`` reading the same ``Sequence`` of ``Split``s in a tokenizer.json (DeepSeek's
shape, and Command-R's ``Digits`` before ``ByteLevel``), which bpe-lab reads and writes."""

from __future__ import annotations

import json

import pytest
import regex
from hypothesis import given
from hypothesis import strategies as st
from texts import TEXTS

from engine.formats import export_tokenizer, load_any
from engine.formats.hfpre import isolating
from engine.text.pretokenize import PreTokenizer


def naive(text: str, chain: tuple[str, ...], pattern: str) -> list[str]:
    """The chain by its definition: every piece split by each pattern in turn (matches and the
    text between them, none empty), then each piece's matches of the pattern."""
    pieces = [text] if text else []
    for source in chain:
        out = []
        for piece in pieces:
            at = 0
            for match in regex.finditer(source, piece):
                if match.end() == match.start():
                    continue
                out += [piece[at:match.start()], match.group()]
                at = match.end()
            out.append(piece[at:])
        pieces = [p for p in out if p]
    return [m.group() for piece in pieces for m in regex.finditer(pattern, piece) if m.group()]


CHAINS = [
    ((r"\p{N}",), r"'s|'t| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"),
    ((r"[\r\n]", r"\s?\p{L}+", r"\s?\p{P}+"), isolating(r"\p{N}")),
    ((r"[\p{P}\$\+<=>\^~\|`]+",), r"\S+"),
]


@given(st.text(alphabet=st.sampled_from("ab 1\n\t,.!é中😀'"), max_size=40), st.sampled_from(CHAINS))
def test_a_chain_splits_as_its_definition(text, chain):
    patterns, pattern = chain
    pre = PreTokenizer("custom", pattern, chain=patterns)
    assert pre.split(text) == naive(text, patterns, pattern)
    spans = list(pre.positioned(text))
    assert [piece for _, piece in spans] == pre.split(text)
    assert all(text[at:at + len(piece)] == piece for at, piece in spans)
    assert sum(pre.count(text).values()) == len(pre.split(text))


def test_a_chain_survives_its_dictionary_and_refuses_what_it_cannot_be():
    pre = PreTokenizer("custom", r"\S+", chain=(r"\p{N}", r"[a-z]+"))
    assert PreTokenizer.from_dict(pre.to_dict()) == pre
    with pytest.raises(ValueError, match="chain"):
        PreTokenizer("gpt2", chain=(r"\p{N}",))


@pytest.mark.parametrize("steps", [
    # DeepSeek Coder's shape: Isolated splits in a Sequence, then ByteLevel without its regex
    [{"type": "Split", "pattern": {"Regex": "[\r\n]"}, "behavior": "Isolated", "invert": False},
     {"type": "Split", "pattern": {"Regex": r"\s?\p{L}+"}, "behavior": "Isolated", "invert": False},
     {"type": "Split", "pattern": {"Regex": r"\s?\p{P}+"}, "behavior": "Isolated", "invert": False},
     {"type": "Digits", "individual_digits": True},
     {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}],
    # Command-R's: digits first, then ByteLevel with GPT-2's regex
    [{"type": "Digits", "individual_digits": True},
     {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}],
])
def test_tokenizers_and_bpe_lab_split_a_sequence_alike(tmp_path, steps):
    tokenizers = pytest.importorskip("tokenizers")
    data = json.loads(tokenizers.Tokenizer(tokenizers.models.BPE()).to_str())
    data["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": steps}
    data["decoder"] = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}
    tok = tokenizers.Tokenizer.from_str(json.dumps(data))
    trainer = tokenizers.trainers.BpeTrainer(vocab_size=600, show_progress=False,
                                             initial_alphabet=tokenizers.pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(TEXTS * 3, trainer)
    path = tmp_path / "tokenizer.json"
    tok.save(str(path))
    ours = load_any(path)
    assert ours.tokenizer.pretokenizer.chain
    for text in TEXTS:
        assert ours.encode(text) == tok.encode(text).ids, text
    again = tmp_path / "again.json"
    export_tokenizer(ours.tokenizer, "hf", again)
    theirs = tokenizers.Tokenizer.from_file(str(again))
    for text in TEXTS:  # written back, the chain splits in tokenizers as it did
        assert theirs.encode(text).ids == ours.tokenizer.encode(text), text
