"""The UI in English, German and Chinese (issue 15, point 3): the catalogs are complete and
compiled, no user-visible string of the app escapes ``_()``, the language comes from ``--lang``
or the locale, and the CLI's output never changes with it."""

from __future__ import annotations

import ast
import gettext
import io
import json
import os
import re
import string
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from tui import i18n
from tui.i18n import LANGUAGES, N_, _, catalog_path, locale_language, set_language

ROOT = Path(__file__).resolve().parents[2]
TUI = ROOT / "tui"
SAMPLES = ROOT / "assets" / "samples"
TRANSLATED = [lang for lang in LANGUAGES if lang != "en"]
#: The CLI's modules: its messages stay English by design (README, "Languages"), so they are
#: not marked; everything else in tui/ is the app.
#: The headless commands print English (the CLI stays English), and so do the launcher and the front door.
CLI_MODULES = {"cli/commands.py", "cli/train.py", "cli/compare.py", "cli/encode.py", "cli/decode.py", "cli/common.py", "cli/count.py", "cli/report.py", "app/launch.py", "cli/app_options.py", "main.py", "__main__.py", "i18n.py"}
MARKERS = {"_": 1, "N_": 1, "ngettext": 2}


def marked_strings() -> dict[str | tuple[str, str], str]:
    """Every literal passed to ``_``, ``N_`` or ``ngettext`` in tui/ (f-strings included), read
    from the code itself, independently of the extractor that makes the template: msgid -> where."""
    found: dict[str | tuple[str, str], str] = {}
    for path in sorted(TUI.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in MARKERS):
                continue
            args = node.args[: MARKERS[node.func.id]]
            if not all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in args):
                continue  # _(variable): the literal was marked where it was defined (N_)
            values = tuple(a.value for a in args)
            key = values[0] if len(values) == 1 else values
            if key:
                found.setdefault(key, f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def catalog(lang: str):
    with catalog_path(lang).open("rb") as handle:
        return read_po(handle, locale=lang)


def fields(text: str) -> set[str]:
    return {name for _lit, name, _spec, _conv in string.Formatter().parse(text) if name is not None}


# -- the catalogs ----------------------------------------------------------------------------------


def test_the_code_marks_hundreds_of_strings():
    strings = marked_strings()
    assert len(strings) > 300
    assert "Run/Pause" in strings and "merge log" in strings and ("{n} merge/s", "{n} merges/s") in strings


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_marked_string_has_a_translation(lang):
    """A string marked in the code but not translated (missing, empty or fuzzy) in German or
    Chinese fails here, naming it and where it is: run `python -m tui.i18n update`, translate."""
    messages = {m.id: m for m in catalog(lang) if m.id}
    problems = []
    for msgid, where in marked_strings().items():
        message = messages.get(msgid)
        if message is None:
            problems.append(f"{where}: {msgid!r} is not in the catalog (run python -m tui.i18n update)")
            continue
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if message.fuzzy or not all(strings):
            problems.append(f"{where}: {msgid!r} has no {'reviewed ' if message.fuzzy else ''}translation")
            continue
        wanted = fields(msgid if isinstance(msgid, str) else msgid[1])
        for text in strings:
            if fields(text) != wanted:  # a translation must fill exactly the same placeholders
                problems.append(f"{where}: {msgid!r} -> {text!r} has placeholders {fields(text)}, not {wanted}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_shipped_mo_matches_its_po(lang):
    """The compiled catalog the app loads says what the .po says: a .po edited without running
    `python -m tui.i18n update` (which compiles) fails here."""
    with catalog_path(lang, "mo").open("rb") as handle:
        compiled = gettext.GNUTranslations(handle)
    for message in catalog(lang):
        if not message.id or message.fuzzy:
            continue
        if isinstance(message.id, tuple):
            strings = message.string
            for n, form in ((1, 0), (2, 1), (5, 1)):
                expected = strings[min(form, len(strings) - 1)] or (message.id[0] if n == 1 else message.id[1])
                got = compiled.ngettext(message.id[0], message.id[1], n)
                assert got == expected or len(strings) == 1 and got == strings[0], (lang, message.id, n)
        else:
            assert compiled.gettext(message.id) == (message.string or message.id), (lang, message.id)
    ids = {m.id if isinstance(m.id, str) else m.id[0] for m in catalog(lang) if m.id and not m.fuzzy and m.string}
    assert {k if isinstance(k, str) else k[0] for k in compiled._catalog if k} == ids  # noqa: SLF001


def test_template_is_current():
    """The .pot holds exactly the strings the code marks (Babel's extractor agrees with the AST
    walk above): otherwise `python -m tui.i18n update` was not run after a change."""
    with i18n.template_path().open("rb") as handle:
        template = {m.id for m in read_po(handle) if m.id}
    assert template == {m.id for m in i18n.extract() if m.id}
    assert template == set(marked_strings())


def test_an_untranslated_string_is_reported(tmp_path):
    """The completeness check's own logic: a new string, or a fuzzy one, counts as missing."""
    from babel.messages.catalog import Catalog

    cat = Catalog(locale="de")
    cat.add("Step", "Schritt")
    cat.add("New thing", "")
    cat.add("Changed", "Geändert", flags=["fuzzy"])
    assert i18n.untranslated(cat) == ["New thing", "Changed"]


# -- the language ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("environ", "lang"), [
    ({"LANG": "de_DE.UTF-8"}, "de"),
    ({"LANG": "zh_CN.UTF-8"}, "zh"),
    ({"LANG": "zh_TW.Big5"}, "zh"),
    ({"LANG": "de_AT@euro"}, "de"),
    ({"LC_MESSAGES": "zh_CN.UTF-8", "LANG": "de_DE.UTF-8"}, "zh"),
    ({"LC_ALL": "de_CH.UTF-8", "LC_MESSAGES": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}, "de"),
    ({"LC_ALL": "", "LANG": "de_DE.UTF-8"}, "de"),
    ({"LANG": "fr_FR.UTF-8"}, "en"),
    ({"LANG": "C.UTF-8"}, "en"),
    ({"LC_ALL": "POSIX"}, "en"),
    ({}, "en"),
])
def test_the_locale_chooses_the_language(environ, lang):
    assert locale_language(environ) == lang


def test_set_language_translates_and_comes_back():
    assert _("Step") == "Step"
    assert set_language("de") == "de" and _("Step") == "Schritt"
    assert set_language("zh") == "zh" and _("Step") == "单步"
    assert i18n.ngettext("{n} merge/s", "{n} merges/s", 1).format(n=1) == "每秒 1 次合并"
    set_language("de")
    assert [i18n.ngettext("{n} merge/s", "{n} merges/s", n).format(n=n) for n in (1, 5)] == ["1 Merge/s", "5 Merges/s"]
    assert _("") == ""  # not the catalog's header
    assert N_("Step") == "Step"  # marked, not translated
    assert set_language("en") == "en" and _("Step") == "Step"


def test_set_language_without_a_choice_reads_the_locale(monkeypatch):
    for name in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    assert set_language(None) == "zh" and _("Quit") == "退出"


def test_an_unknown_language_is_refused():
    with pytest.raises(ValueError, match="no such language: 'fr'"):
        set_language("fr")
    assert i18n.language() == "en"


def test_an_unknown_lang_option_is_one_line_and_exit_2():
    from tui.app.launch import launch

    err = io.StringIO()
    assert launch(["--lang", "fr", "--headless"], err=err) == 2
    lines = err.getvalue().splitlines()
    assert len(lines) == 1 and "--lang" in lines[0] and "'fr'" in lines[0] and "'de'" in lines[0], lines


# -- the CLI never changes with the language ----------------------------------------------------------


def run_cli(*args: str) -> tuple[int, str, str]:
    from tui.cli.commands import main

    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_cli_json_and_messages_do_not_change_with_the_language(tmp_path, monkeypatch):
    """--json is for machines; the CLI's human lines stay English too (only the app translates)."""
    tok = tmp_path / "tok.json"
    assert run_cli("train", str(SAMPLES / "die-katze.txt"), "-o", str(tok), "--merges", "8")[0] == 0
    runs = {}
    for lang in ("en", "de", "zh"):
        set_language(lang)
        monkeypatch.setenv("LANG", f"{lang}_XX.UTF-8")
        runs[lang] = (
            run_cli("encode", "-t", str(tok), "die katze und die kanne", "--json"),
            run_cli("encode", "-t", str(tok), "die katze"),
            run_cli("encode", "-t", str(tmp_path / "missing.json"), "x", "--json"),
        )
    assert runs["de"] == runs["en"] == runs["zh"]
    (code, out, _err), _human, (bad, _out, message) = runs["en"]
    assert code == 0 and isinstance(json.loads(out), list) and bad == 2 and message.count("\n") == 1


@pytest.mark.slow
def test_cli_json_in_a_german_locale_subprocess(tmp_path):
    tok = tmp_path / "tok.json"
    assert run_cli("train", str(SAMPLES / "die-katze.txt"), "-o", str(tok), "--merges", "8")[0] == 0

    def encode(lang: str) -> bytes:
        env = dict(os.environ, PYTHONPATH=str(ROOT), LANG=lang, LC_ALL=lang)
        return subprocess.run([sys.executable, "-m", "tui", "encode", "-t", str(tok), "die katze", "--json"],
                              capture_output=True, env=env, timeout=120, check=True).stdout

    assert encode("de_DE.UTF-8") == encode("zh_CN.UTF-8") == encode("C.UTF-8")


# -- nothing user-visible escapes _() ------------------------------------------------------------------

#: Calls whose first argument the user reads, and keywords that are read too.
SHOWN_CALLS = {"notify", "say", "Label", "Button", "Checkbox", "Static", "Text", "TabPane", "PromptScreen",
               "ConfirmScreen", "show_status", "set_text", "show_problem", "append", "update", "ValueError"}
SHOWN_KEYWORDS = {"placeholder", "tooltip", "title", "description", "hint"}
#: argparse's help is the CLI's, which stays English (e.g. serve's parser in tui/cli/serve.py).
CLI_CALLS = {"Parser", "ArgumentParser", "add_parser", "add_argument", "add_argument_group"}
WORDS = re.compile(r"[A-Za-z]{2,}")


def literal_words(node: ast.AST) -> str | None:
    """The words a literal (or the literal parts of an f-string) shows, or None when it shows none."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        text = node.value
    elif isinstance(node, ast.JoinedStr):
        text = "".join(v.value for v in node.values if isinstance(v, ast.Constant))
    else:
        return None
    return text if WORDS.search(text) else None


def unwrapped(path: Path, root: Path = ROOT) -> list[str]:
    """User-visible literals in a module that do not go through _() / N_(): Binding descriptions
    and tooltips, notify/say messages and titles, border titles, labels, buttons, placeholders,
    rich Text, errors shown in dialogs."""
    found = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    where = lambda node: f"{path.relative_to(root)}:{node.lineno}"  # noqa: E731
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Attribute) and t.attr in ("border_title", "border_subtitle")
                                                for t in node.targets):
            if literal_words(node.value):
                found.append(f"{where(node)}: border title {literal_words(node.value)!r}")
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if name in CLI_CALLS:
            continue
        if name == "Binding" and len(node.args) >= 3 and literal_words(node.args[2]):
            found.append(f"{where(node)}: Binding description {literal_words(node.args[2])!r}")
        if name in SHOWN_CALLS and node.args and literal_words(node.args[0]):
            found.append(f"{where(node)}: {name}({literal_words(node.args[0])!r})")
        for keyword in node.keywords:
            if keyword.arg in SHOWN_KEYWORDS and literal_words(keyword.value):
                found.append(f"{where(node)}: {keyword.arg}={literal_words(keyword.value)!r}")
    return found


def test_no_user_visible_literal_escapes_translation():
    problems = [p for path in sorted(TUI.rglob("*.py")) if path.relative_to(TUI).as_posix() not in CLI_MODULES for p in unwrapped(path)]
    assert not problems, "wrap these in _() (or N_() at module level):\n" + "\n".join(problems)


def test_the_unwrapped_check_catches_each_kind(tmp_path):
    module = tmp_path / "bad.py"
    module.write_text(
        'from textual.binding import Binding\n'
        'KEYS = [Binding("x", "go", "Go there", tooltip="go there now")]\n'
        'def f(app, pane, n):\n'
        '    app.notify("hello there", title="Greeting")\n'
        '    app.say(f"saved {n} files")\n'
        '    pane.border_title = "corpus"\n'
        '    Label("base"); Input(placeholder="type here")\n'
        '    app.notify(_("fine")); Text("\\n"); Text(f"{n} ")\n',
        encoding="utf-8",
    )
    problems = sorted(p.split(": ", 1)[1] for p in unwrapped(module, tmp_path))
    assert problems == sorted(["Binding description 'Go there'", "tooltip='go there now'", "notify('hello there')",
                               "title='Greeting'", "say('saved  files')", "border title 'corpus'", "Label('base')",
                               "placeholder='type here'"])


def test_the_engines_commonest_messages_are_said_in_the_uis_language(tmp_path):
    """The engine speaks English; the app says its file messages in German or Chinese, made from
    the real errors the engine raises, and leaves any other message as it is."""
    from engine import CorpusError, WriteError
    from engine.corpus import read_corpus_bytes

    (tmp_path / "empty.txt").write_bytes(b"")
    raised = []
    for path in (tmp_path / "missing.txt", tmp_path, tmp_path / "empty.txt"):
        with pytest.raises(CorpusError) as caught:
            read_corpus_bytes(path)
        raised.append(str(caught.value))
    raised.append(str(WriteError(tmp_path / "out.json", "No space left on device")))
    other = "a message the table does not know"
    try:
        assert [i18n.engine_message(m) for m in raised + [other]] == raised + [other]  # English: unchanged
        set_language("de")
        german = [i18n.engine_message(m) for m in raised]
        assert german == [f"{tmp_path / 'missing.txt'}: keine solche Datei", f"{tmp_path}: ist ein Ordner, keine Datei",
                          f"{tmp_path / 'empty.txt'}: die Datei ist leer",
                          f"{tmp_path / 'out.json'}: nicht schreibbar (No space left on device); die alte Datei ist unverändert"]
        assert i18n.engine_message(other) == other
        set_language("zh")
        assert i18n.engine_message(raised[0]) == f"{tmp_path / 'missing.txt'}：没有这个文件"
    finally:
        set_language("en")
