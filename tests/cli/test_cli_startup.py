"""``bpe-lab train`` starts fast: it loads neither the file formats (but their registry) nor
the analysis modules."""

from __future__ import annotations

from engine.native.door import COMPILED

from test_import_hygiene import loaded_modules


def test_train_loads_neither_formats_nor_analysis(tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_text("abc abc abd\n" * 50, encoding="utf-8")
    code = (
        "from tui.main import main\n"
        f"main(['train', {str(corpus)!r}, '-o', {str(tmp_path / 't.json')!r}, '--merges', '5'])"
    )
    mods = loaded_modules(code)
    assert (tmp_path / "t.json").exists()
    assert not {m for m in mods if m.startswith(("engine.formats", "engine.analysis"))} - TRAIN_FORMATS


#: What of engine.formats ``bpe-lab train`` may load: the registry (the --format choices).
TRAIN_FORMATS = {"engine.formats"}


def test_lesson_languages_are_the_format_languages():
    from tui.cli.lesson import LANGUAGES
    from tui.lessons.format import LANGUAGES as FORMAT_LANGUAGES

    assert LANGUAGES == FORMAT_LANGUAGES


#: What ``bpe-lab encode`` with a rank file must not load: training, counting, corpora, the
#: inspector, branches, the lesson format, the analysis, and the temporary files only writing
#: needs. With the compiled core, not the regex module either: its scanners split ASCII text.
NOT_FOR_ENCODE = ("engine.train.trainer", "engine.train.pair_state", "engine.corpus.counts", "engine.corpus.reading", "engine.analysis.inspector",
                  "engine.train.branches", "engine.analysis", "tui.lessons.format", "tomllib", "tempfile")


def test_encode_loads_only_what_it_needs(tmp_path):
    ranks = tmp_path / "t.tiktoken"
    ranks.write_text("".join(f"{__import__('base64').b64encode(bytes([b])).decode()} {b}\n" for b in range(256)), encoding="ascii")
    code = (
        "import io, os, sys; from tui.main import main\n"
        "os.environ['BPE_LAB_CACHE'] = 'off'  # a first use writes the merge cache (atomically: tempfile)\n"
        "out = sys.stdout; sys.stdout = io.StringIO()\n"
        f"code = main(['encode', '-t', {str(ranks)!r}, '--pattern-name', 'gpt2', 'hi'])\n"
        "assert code == 0 and sys.stdout.getvalue() == '104 105\\n', sys.stdout.getvalue()\n"
        "sys.stdout = out"
    )
    mods = loaded_modules(code)  # (the child takes this process's path: BPE_LAB_PURE)
    assert "engine.formats.tiktoken_bpe" in mods
    assert not {m for m in mods if m.startswith(NOT_FOR_ENCODE)}
    # the pure path splits with the pattern alone (the regex module's), the compiled core's
    # scanners without it
    assert ("regex" in mods) == (COMPILED is None)
