"""``bpe-lab train`` starts fast: it loads neither the file formats nor the analysis modules."""

from __future__ import annotations

from engine.formats import FORMATS
from tui.cli import EXPORT_FORMATS

from test_import_hygiene import loaded_modules


def test_export_choices_are_the_formats():
    assert EXPORT_FORMATS == FORMATS


def test_train_loads_neither_formats_nor_analysis(tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_text("abc abc abd\n" * 50, encoding="utf-8")
    code = (
        "from tui.main import main\n"
        f"main(['train', {str(corpus)!r}, '-o', {str(tmp_path / 't.json')!r}, '--merges', '5'])"
    )
    mods = loaded_modules(code)
    assert (tmp_path / "t.json").exists()
    assert not {m for m in mods if m.startswith(("engine.formats", "engine.analysis"))}
