"""A byte-fallback replay (Llama 2's SentencePiece model) names a character outside the
vocabulary the same way in every pane: the corpus pane shows its bytes ([e5]), and the
next-merge pane's pairs of them are never a replacement character (they were "� + �")."""

from __future__ import annotations

from fetch_tokenizers import needed
from helpers import app_on, settle_until, shared_corpus

from engine.formats import load_any
from tui.app.widgets.candidates import Candidates
from tui.model.workbench import LoadedCorpus


async def test_pairs_of_byte_pieces_are_named_as_the_corpus_pane_names_them(tmp_path):
    imported = load_any(needed("llama2-rebuilt.model"))
    assert imported.tokenizer.byte_fallback
    text = shared_corpus("tang_2000.txt").read_text(encoding="utf-8")[:3000]
    path = tmp_path / "tang.txt"
    path.write_text(text, encoding="utf-8")
    corpus = LoadedCorpus.open(path, imported.tokenizer.base)
    app = app_on(corpus, script=imported.tokenizer, file_ids=imported.file_ids, autosave=False)
    async with app.run_test(size=(100, 30)) as pilot:
        pane = app.query_one(Candidates)
        await settle_until(pilot, lambda: "by count here" in str(pane.render()), "the replay's candidates")
        shown = str(pane.render())
        corpus_pane = str(app.query_one("#corpus").render()) if app.query("#corpus") else ""
        assert "\ufffd" not in shown, shown
        assert "[..] + [..]" in shown, shown  # two characters outside the vocabulary side by side
        assert "\ufffd" not in corpus_pane
