"""A replay's corpus pane shows what the replayed file's own library gives for the corpus: the
text as the file's normalizer makes it, whole pieces found whole once the step reaches their rank
(Llama 3's " Belediyesi"), and a character outside a SentencePiece vocabulary as its bytes. The
pane draws the trainer's spans (``Trainer.spans``) with ``Workbench.shown_id`` for their ids:
those are compared here with tiktoken, ``tokenizers`` and ``sentencepiece`` on the whole corpus,
at the end of the replay and, for Llama 3, at a midpoint (against the rank file cut there)."""

from __future__ import annotations

import pytest
from clip_files import clip_json, clip_merges
from clip_files import why as clip_why
from fetch_tokenizers import LLAMA3_PATTERN, needed
from fetch_tokenizers import load_cached as loaded

from engine import TrainConfig
from engine.corpus.reading import decode_corpus
from engine.text.pretokenize import PreTokenizer
from tui.model.samples import sample
from tui.model.workbench import LoadedCorpus, Workbench

TURKISH = "Türkiye Büyükşehir Belediyesi Ayrıca açıklama yaptı. Erdoğan İstanbul'da konuştu.\n"
VIETNAMESE = "Việt Nam là một quốc gia. Václav Havel byl český dramatik.\n"
#: Text the normalizers change: NFKC's full-width comma, ellipsis, no-break space, ligature and
#: mathematical digit; CLIP's capitals and whitespace runs.
NORMALIZED = "Full-width，comma … no-break\u00a0space ﬁne 𝟙２３\nTwo  Spaces\tand a Tab\n\nGrüße aus MÜNCHEN!\n"


def sample_text(name: str) -> str:
    return sample(name).read_bytes().decode("utf-8")


def replay(imported, text: str) -> Workbench:
    base = imported.tokenizer.base
    corpus = LoadedCorpus.from_corpus(decode_corpus(text.encode("utf-8"), base=base, name="c"), base, None)
    return Workbench(corpus, TrainConfig(base=base), script=imported.tokenizer, file_ids=imported.file_ids)


def pane(workbench: Workbench) -> list[int | None]:
    """The ids the corpus pane shows for the whole corpus, in order."""
    with workbench.reading():
        spans = workbench.trainer.spans(0, len(workbench.corpus.units))
    return [workbench.shown_id(tid) for tid, _, _ in spans]


@pytest.mark.slow
def test_a_llama3_replay_finds_whole_pieces_in_the_corpus_as_tiktoken():
    tiktoken = pytest.importorskip("tiktoken")
    from tiktoken.load import load_tiktoken_bpe

    path = needed("llama3.tiktoken")
    imported = loaded(path, pretokenizer=PreTokenizer("custom", LLAMA3_PATTERN))
    ranks = load_tiktoken_bpe(str(path))
    text = sample_text("workshop.txt") + TURKISH + VIETNAMESE + sample_text("chinese.txt")
    workbench = replay(imported, text)
    merges = len(imported.tokenizer.merges)
    base = len(imported.tokenizer.pieces) - merges
    whole_ids = {imported.to_file_ids([len(imported.tokenizer.pieces) + i])[0]
                 for i in range(len(imported.tokenizer.whole_pieces))}
    for step in (40000, merges):
        workbench.goto(step)
        below = imported.to_file_ids([base + step])[0] if step < merges else max(ranks.values()) + 1
        cut = {token: rank for token, rank in ranks.items() if rank < below}
        theirs = tiktoken.Encoding(name=f"l3-{step}", pat_str=LLAMA3_PATTERN, mergeable_ranks=cut, special_tokens={})
        assert pane(workbench) == theirs.encode_ordinary(text), step
    shown = pane(workbench)
    assert whole_ids & set(shown), "the Turkish line holds whole pieces (' Belediyesi')"
    # the merges alone split them: the pane's whole pieces are the lookup's, not the merges'
    workbench.goto(merges)
    with workbench.reading():
        spans = workbench.trainer.spans(0, len(workbench.corpus.units))
    found = [workbench.corpus.units[s:e] for tid, s, e in spans if tid < 0]
    assert b" Belediyesi" in found


def test_a_normalizing_replay_shows_and_merges_the_normalized_corpus():
    tokenizers = pytest.importorskip("tokenizers")
    path = needed("anthropic.json")
    imported = loaded(path)
    theirs = tokenizers.Tokenizer.from_file(str(path))
    text = sample_text("workshop.txt") + NORMALIZED
    workbench = replay(imported, text)
    assert workbench.corpus.text == imported.tokenizer.normalize(text) != text  # shown as merged
    assert "fine" in workbench.corpus.text and "，" not in workbench.corpus.text
    workbench.goto(len(imported.tokenizer.merges))
    assert pane(workbench) == theirs.encode(text, add_special_tokens=False).ids


def test_an_end_of_word_replay_keeps_its_lines_and_gives_tokenizers_ids(tmp_path):
    tokenizers = pytest.importorskip("tokenizers")
    merges = clip_merges()
    if merges is None:
        pytest.skip(clip_why())
    path = clip_json(tmp_path / "tokenizer.json", merges)
    imported = loaded(path)
    theirs = tokenizers.Tokenizer.from_file(str(path))
    text = sample_text("workshop.txt") + NORMALIZED
    workbench = replay(imported, text)
    shown = workbench.corpus.text
    assert shown.count("\n") == text.count("\n")  # lowercased and whitespace runs cut, line by line
    assert "grüße aus münchen!" in shown and "two spaces and a tab" in shown
    workbench.goto(len(merges))
    assert pane(workbench) == theirs.encode(text, add_special_tokens=False).ids


@pytest.mark.parametrize("name", ["chinese.txt", "emoji.txt"])
def test_a_sentencepiece_replay_shows_missing_characters_as_their_bytes(name):
    spm = pytest.importorskip("sentencepiece")
    path = needed("mistral-v1.model")
    imported = loaded(path)
    sp = spm.SentencePieceProcessor(model_file=str(path))
    text = sample_text(name)
    workbench = replay(imported, text)
    assert workbench.corpus.text.startswith("▁") and " " not in workbench.corpus.text
    workbench.goto(len(imported.tokenizer.merges))
    shown = pane(workbench)
    assert shown == sp.encode(text)
    fallen = {sp.id_to_piece(i) for i in shown if i is not None and sp.is_byte(i)}
    assert fallen, "some characters are not in Mistral's vocabulary"
