"""Random SentencePiece BPE models, written as ``.model`` protobufs here: bpe-lab's ids against a
naive reference of sentencepiece's BPE (join the adjacent pair whose joined piece scores highest,
the leftmost of equal scores; a character no piece holds is its byte pieces) and, where it is
installed, against ``sentencepiece`` itself reading the same bytes."""

from __future__ import annotations

import pytest
from helpers import spm_model_bytes as model_bytes
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.formats import load_any

UNKNOWN, CONTROL, BYTE = 2, 3, 6
CHARS = "ab▁c"



@st.composite
def models(draw):
    """Pieces as BPE training makes them: each longer piece two earlier ones joined, the scores
    falling (some equal, as Mistral's runs of ▁)."""
    fallback = draw(st.booleans())
    pieces = [("<unk>", 0.0, UNKNOWN), ("<s>", 0.0, CONTROL), ("</s>", 0.0, CONTROL)]
    if fallback:
        pieces += [(f"<0x{b:02X}>", 0.0, BYTE) for b in range(256)]
    texts = list(CHARS)
    score = -1.0
    made = []
    for _ in range(draw(st.integers(0, 14))):
        text = draw(st.sampled_from(texts)) + draw(st.sampled_from(texts))
        if text in texts or len(text) > 6:
            continue
        texts.append(text)
        score -= draw(st.sampled_from([0.0, 1.0, 1.0]))
        made.append((text, score, 1))
    pieces += made + [(c, -100.0 - k, 1) for k, c in enumerate(CHARS)]
    return pieces, fallback, draw(st.booleans())


def reference(pieces: list[tuple[str, float, int]], fallback: bool, text: str, squeeze: bool = False) -> list[int]:
    """sentencepiece's BPE, naively: the normalized text's characters, merged by score."""
    if squeeze:  # remove_extra_whitespaces: no spaces at the start, one in a row
        text = text.lstrip(" ")
        while "  " in text:
            text = text.replace("  ", " ")
    ids = {t: i for i, (t, _, kind) in enumerate(pieces) if kind == 1}
    scores = {t: s for t, s, kind in pieces if kind == 1}
    normalized = "▁" + text.replace(" ", "▁") if text else ""
    if squeeze:  # and no ▁ at the end (a ▁ the text had too)
        normalized = normalized.rstrip("▁")
    if not normalized:
        return []
    parts = list(normalized)
    while True:
        best = None
        for i in range(len(parts) - 1):
            joined = parts[i] + parts[i + 1]
            if joined in scores and (best is None or scores[joined] > scores[parts[best] + parts[best + 1]]):
                best = i
        if best is None:
            break
        parts[best : best + 2] = [parts[best] + parts[best + 1]]
    out = []
    for part in parts:
        if part in ids:
            out.append(ids[part])
        elif fallback:
            out.extend(3 + b for b in part.encode())
        elif not out or out[-1] != 0:  # unknown characters in a row: one unknown piece
            out.append(0)
    return out


@settings(max_examples=60, deadline=None)
@given(models(), st.lists(st.text(alphabet="ab c▁zé\n", max_size=12), min_size=1, max_size=4))
def test_random_models_encode_as_sentencepiece_does(tmp_path_factory, model, texts):
    pieces, fallback, squeeze = model
    path = tmp_path_factory.mktemp("spm") / "m.model"
    raw = model_bytes(pieces, fallback=fallback, squeeze=squeeze)
    path.write_bytes(raw)
    imported = load_any(path)
    try:
        import sentencepiece

        sp = sentencepiece.SentencePieceProcessor()
        sp.LoadFromSerializedProto(raw)
    except ImportError:
        sp = None
    for text in texts:
        ours = imported.encode(text)
        assert ours == reference(pieces, fallback, text, squeeze), text
        if sp is not None:
            assert ours == sp.encode(text), text
            assert imported.decode(ours) == sp.decode(ours), text


def test_a_model_without_byte_fallback_gives_the_unknown_id(tmp_path):
    pieces = [("<unk>", 0.0, UNKNOWN), ("▁", -1.0, 1), ("a", -2.0, 1), ("▁a", -0.5, 1)]
    path = tmp_path / "m.model"
    path.write_bytes(model_bytes(pieces, fallback=False))
    imported = load_any(path)
    assert imported.encode("a zz a") == [3, 1, 0, 3]
    assert imported.decode([3, 1, 0, 3]) == "a  ⁇  a"


def test_byte_fallback_without_the_byte_pieces_is_refused(tmp_path):
    from engine.errors import TokenizerFileError

    pieces = [("<unk>", 0.0, UNKNOWN), ("a", -2.0, 1)]
    path = tmp_path / "m.model"
    path.write_bytes(model_bytes(pieces, fallback=True))
    with pytest.raises(TokenizerFileError, match="256 byte pieces"):
        load_any(path)


def test_exports_keep_it_in_hf_and_native_and_refuse_elsewhere(tmp_path):
    from engine.errors import ExportError
    from engine.formats import export_tokenizer

    pieces = ([("<unk>", 0.0, UNKNOWN)] + [(f"<0x{b:02X}>", 0.0, BYTE) for b in range(256)]
              + [("▁", -1.0, 1), ("a", -2.0, 1), ("b", -3.0, 1), ("▁a", -0.5, 1), ("ab", -0.5, 1), ("▁ab", -0.7, 1)])
    path = tmp_path / "m.model"
    path.write_bytes(model_bytes(pieces))
    imported = load_any(path)
    tok = imported.tokenizer
    for fmt in ("seed001", "gpt2", "tiktoken"):
        with pytest.raises(ExportError, match="hold no byte fallback"):
            export_tokenizer(tok, fmt, tmp_path / fmt, ids=imported.file_ids, drop_normalizer=True)
    assert not (tmp_path / "seed001").exists()
    for fmt in ("hf", "native"):
        export_tokenizer(tok, fmt, tmp_path / f"{fmt}.json", ids=imported.file_ids)
        again = load_any(tmp_path / f"{fmt}.json")
        for text in ("ab ab", "aab é", "b a"):
            theirs = imported.encode(text)
            ours = again.encode(text) if fmt == "hf" else imported.to_file_ids(again.tokenizer.encode(text))
            assert ours == theirs, (fmt, text)


def _parts_by_rescan(text: str, order: dict[str, int], limit: int) -> list[str]:
    """sentencepiece's rule as its docs say it: rescan every pair, join the lowest rank (leftmost)."""
    parts = list(text)
    while len(parts) > 1:
        best = at = None
        for i in range(len(parts) - 1):
            r = order.get(parts[i] + parts[i + 1])
            if r is not None and r < limit and (best is None or r < best):
                best, at = r, i
        if at is None:
            break
        parts[at : at + 2] = [parts[at] + parts[at + 1]]
    return parts


@settings(max_examples=200)
@given(st.text("ab▁", max_size=40), st.dictionaries(st.text("ab▁", min_size=2, max_size=5), st.integers(0, 6), max_size=12),
       st.integers(0, 7))
def test_the_heap_merge_of_a_piece_is_the_rescan(text, order, limit):
    from engine.formats.spm_merges import _parts

    assert _parts(text, order, limit) == _parts_by_rescan(text, order, limit)
