"""The first minute on the command line (issue 39): ``bpe-lab --help`` names every command, the
defaults are in the help, and no line a student reads says "seed" (the course texts are named by
their title and chapter; ``--format seed001`` keeps working as ``xslm``)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pytest
from helpers import ROOT, SAMPLES

import tui.cli.commands as cli
from tui.cli import app_options


def test_the_apps_help_lists_every_command():
    run = subprocess.run([sys.executable, "-m", "tui", "--help"], capture_output=True, cwd=ROOT, timeout=60,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert run.returncode == 0 and run.stderr == b""
    shown = run.stdout.decode()
    listed = shown.split("commands (bpe-lab COMMAND --help):\n", 1)[1].splitlines()
    names = [line.split()[0] for line in listed if line.strip()]
    headless = cli.build_parser()._subparsers._group_actions[0].choices
    assert sorted(names) == sorted([*headless, "serve"])
    assert {"lesson", "count", "plot", "serve"} <= set(names)


def test_the_help_names_the_default_tie_rule_and_no_seed(capsys):
    with pytest.raises(SystemExit):
        app_options.build_parser().parse_args(["--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert "how equal counts are decided (default lowest-ids: the smallest left id, then right id)" in shown
    assert "seed" not in shown.lower()
    for command in ("train", "export", "count"):
        with pytest.raises(SystemExit):
            cli.build_parser().parse_args([command, "--help"])
        assert "seed" not in capsys.readouterr().out.lower(), command


@pytest.mark.parametrize("name", ["xslm", "seed001"])
def test_xslm_json_is_written_under_its_name_and_the_old_one(name, tmp_path):
    tok = tmp_path / "t.json"
    assert cli.main(["train", str(SAMPLES / "low-lower-lowest.txt"), "-o", str(tok), "--merges", "4", "--base", "chars",
                     "--pretokenizer", "none", "--tie-break", "first-seen"], out=io.StringIO(), err=io.StringIO()) == 0
    err = io.StringIO()
    assert cli.main(["export", "-t", str(tok), "--format", name, "-o", str(tmp_path / "x.json")], err=err) == 0
    assert err.getvalue().endswith("(xslm, vocabulary 13)\n"), err.getvalue()
    data = json.loads((tmp_path / "x.json").read_text(encoding="utf-8"))
    assert data["vocab"][:2] == ["\ufffd", " "] and len(data["merges"]) == 4


def test_an_unknown_format_is_one_line_naming_the_choices(tmp_path):
    err = io.StringIO()
    assert cli.main(["export", "-t", "t.json", "--format", "seed", "-o", str(tmp_path / "x")], err=err) == 2
    assert err.getvalue() == ("bpe-lab: error: argument --format: invalid choice: 'seed' (choose from hf, gpt2, tiktoken, "
                              "xslm, native, subword-nmt) (see bpe-lab export --help)\n")


def test_the_lesson_list_names_each_course_text():
    out = io.StringIO()
    assert cli.main(["lesson"], out=out, err=io.StringIO()) == 0
    lines = out.getvalue().splitlines()
    assert lines[0].split() == ["lesson", "languages", "title", "·", "course", "text"]
    assert any(line.startswith("001-low-lower-lowest") and line.endswith("· XSLM, the BPE tokenizer chapter")
               for line in lines)
    assert "seed" not in out.getvalue().lower()


def control_piece_model(path) -> None:
    """A SentencePiece BPE ``.model`` with a control piece (``<s>``), as Mistral's: reading it
    makes a note (control pieces are special tokens)."""
    import struct

    from fetch_tokenizers import proto_field, proto_varint

    pieces = [("<unk>", 0.0, 2), ("<s>", 0.0, 3), ("▁", -1.0, 1), ("a", -2.0, 1), ("▁a", -0.5, 1)]
    out = b""
    for text, score, kind in pieces:
        out += proto_field(1, proto_field(1, text.encode()) + proto_varint(2 << 3 | 5) + struct.pack("<f", score)
                           + proto_field(3, kind))
    out += proto_field(2, proto_field(3, 2) + proto_field(35, 0))
    out += proto_field(3, proto_field(1, b"identity") + proto_field(3, 1) + proto_field(4, 0))
    path.write_bytes(out)


@pytest.mark.parametrize("command", [["encode", "a a"], ["decode", "4", "4"]])
def test_encode_and_decode_keep_the_files_notes_for_verbose(command, tmp_path):
    model = tmp_path / "m.model"
    control_piece_model(model)
    name, *rest = command
    out, err = io.StringIO(), io.StringIO()
    assert cli.main([name, "-t", str(model), *rest], out=out, err=err) == 0
    assert err.getvalue() == "" and out.getvalue().strip() in ("4 4", "a a")
    out, err = io.StringIO(), io.StringIO()
    assert cli.main([name, "-t", str(model), "--verbose", *rest], out=out, err=err) == 0
    assert err.getvalue().startswith(f"bpe-lab: note: {model}: 1 control piece(s) (<s>, ...) are special tokens")
    assert err.getvalue().count("\n") == 1


# -- install hints that work for how bpe-lab was installed ---------------------------------------

def test_a_missing_extra_is_named_for_the_checkout_it_was_installed_from(monkeypatch):
    """This environment is the README's: a venv in the checkout (here editable)."""
    from tui import extras

    monkeypatch.chdir(ROOT)
    venv_pip = os.path.relpath(os.path.join(os.path.dirname(sys.executable), "pip"), ROOT)
    command = extras.install_command("plots")
    assert command in (f"{venv_pip} install -e '.[plots]'", f"{venv_pip} install '.[plots]'"), command
    hint = "figures need matplotlib: pip install 'bpe-lab[plots]' (or pip install matplotlib)"
    assert extras.with_install_hints(hint) == f"figures need matplotlib: {command}"
    scale = "needs pyarrow: pip install 'bpe-lab[scale]' (pyarrow, dask[distributed], zstandard)"
    assert extras.with_install_hints(scale) == f"needs pyarrow: {extras.install_command('scale')}"
    assert "bpe-lab[" not in extras.with_install_hints(scale)


def test_pipx_and_uv_installs_are_told_their_own_commands(monkeypatch, tmp_path):
    from tui import extras

    assert extras.libraries("plots") == ["matplotlib>=3.7"]
    monkeypatch.setattr(sys, "prefix", str(tmp_path / ".local/share/pipx/venvs/bpe-lab"))
    assert extras.install_command("plots") == "pipx inject bpe-lab 'matplotlib>=3.7'"
    monkeypatch.setattr(sys, "prefix", str(tmp_path / ".local/share/uv/tools/bpe-lab"))
    command = extras.install_command("serve")
    assert command.startswith("uv tool install --reinstall ") and command.endswith(" --with 'textual-serve>=1.1'")


def test_the_cli_error_line_carries_the_working_command(monkeypatch, tmp_path):
    """bpe-lab plot without matplotlib (its import blocked): one line, exit 2, a command that exists."""
    from tui import extras

    (tmp_path / "curve.csv").write_text("merges,tokens,bytes_per_token,undone\n0,10,1.0,False\n1,8,1.25,False\n",
                                        encoding="utf-8")
    command = extras.install_command("plots")
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as without the plots extra
    err = io.StringIO()
    code = cli.main(["plot", str(tmp_path / "curve.csv"), "-o", str(tmp_path / "c.svg")], out=io.StringIO(), err=err)
    assert code == 2
    assert err.getvalue() == f"bpe-lab: error: figures need matplotlib: {command}\n"
