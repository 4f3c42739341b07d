"""What tests of every layer share: where things are, and how to wait on an app's state.

Imported as ``from helpers import ...`` (``tests/`` is on the path through the root conftest).
:func:`screen_settled` is the one place the tests read Textual's private state.
"""

from __future__ import annotations

import functools
import shutil
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
CORPORA = SHARED / "corpora"
SAMPLES = ROOT / "assets" / "samples"


def shared_corpus(name: str) -> Path:
    """A file from ../shared/corpora, or skip the test when the folder is absent (a user's clone)."""
    path = CORPORA / name
    if not path.exists():
        pytest.skip(f"../shared/corpora/{name} is not available")
    return path


def sample_text(name: str) -> str:
    """A bundled sample corpus, exactly as stored."""
    return (SAMPLES / name).read_bytes().decode("utf-8")


#: How long :func:`settle_until` lets the app work before giving up: a hang guard, tens of times
#: what a loaded one-core machine needs, never a clock the test waits on.
HANG_GUARD = 60.0


async def settle_until(pilot, ready, what: str, workers: bool = True) -> None:
    """Let the app work until ``ready()`` holds (its messages handled, and with ``workers`` its
    workers finished: leave it False while a training run goes on).

    ``pilot.pause()`` returns once the process looks idle, which on a loaded machine it does while
    work is still queued (a footer recomposing, a pane redrawn after a worker): one pause is not
    always enough, so this waits on the state the test needs, not on a number of pauses."""
    import time

    deadline = time.monotonic() + HANG_GUARD
    while True:
        await pilot.pause()
        if workers:
            await pilot.app.workers.wait_for_complete()
        if ready():
            return
        assert time.monotonic() < deadline, f"not {what} after {HANG_GUARD:.0f} s"


async def run_from_palette(pilot, title: str) -> None:
    """Open the command palette, type ``title``, wait until its search lists that one command,
    press Enter, and let the command run. The palette searches in a worker and, on Enter, closes
    and queues the command on the app a few messages later: each step waits on its state."""
    from textual.command import CommandList, CommandPalette

    app = pilot.app
    await pilot.press("ctrl+p")
    palette = app.screen
    assert isinstance(palette, CommandPalette)
    await pilot.press(*title)
    await settle_until(pilot, lambda: palette.query_one(CommandList).option_count == 1, f"{title!r} the one hit")
    await pilot.press("enter")
    await settle_until(pilot, lambda: not app.is_running or palette not in app.screen_stack, "the palette closed")
    await pilot.pause()  # the command was queued on the app as the palette closed: this lets it run


def screen_settled(app) -> bool:
    """Nothing left to do on the current screen: no message waiting in the app or any widget of
    the screen, nothing to lay out or repaint, and every footer composed and laid out (a footer
    recomposes after the screen's bindings are known, a few refreshes after the screen shows).
    Reads Textual's private state (pinned: textual < 9); a test helper, nothing the app relies on."""
    from textual.widgets import Footer
    from textual.widgets._footer import FooterKey

    screen = app.screen
    nodes = [app, *screen.walk_children(with_self=True)]
    if any(not node._message_queue.empty() or node._next_callbacks for node in nodes):
        return False
    if screen._layout_required or screen._repaint_required or screen._dirty_widgets or screen._callbacks:
        return False
    for footer in screen.query(Footer):
        keys = list(footer.query(FooterKey))
        if not any(key.has_class("-command-palette") for key in keys) or not all(key.region.width for key in keys):
            return False
    return True


async def settled(pilot, workers: bool = True) -> None:
    """Wait until the app has handled what the test set off: nothing waiting on the screen (see
    :func:`screen_settled`) and, with ``workers``, no worker left running (leave it False while a
    training run goes on). For a test that asserts what a key did, or that it did nothing."""
    app = pilot.app
    await settle_until(pilot, lambda: not app.is_running or screen_settled(app), "the screen settled", workers)


def app_on(sample="workshop.txt", config=None, *, still: bool = False, lesson=None, lesson_note=None, **settings):
    """The app, as tests make it: on a bundled ``sample`` (its file name), a path, a
    :class:`~tui.model.workbench.LoadedCorpus` or a ready :class:`~tui.model.workbench.Workbench`
    (None: no corpus yet, as a lesson starts). A LoadedCorpus is built into a workbench by the
    app (a worker, as a launch does); a sample or a path is built here.

    ``settings`` are :class:`engine.TrainConfig` fields (``vocab_size=600``) and
    :class:`tui.app.options.LaunchOptions` fields (``autosave=False``), told apart by name;
    ``config`` is a whole TrainConfig instead. ``still``: no animation (the tabs' underline glides,
    which a test need not wait for)."""
    from dataclasses import fields

    from engine import TrainConfig
    from tui.app import BpeApp
    from tui.app.options import LaunchOptions
    from tui.model.workbench import LoadedCorpus, Workbench

    launch = {f.name for f in fields(LaunchOptions)}
    options = LaunchOptions(**{k: v for k, v in settings.items() if k in launch})
    trained = {k: v for k, v in settings.items() if k not in launch}
    if trained:
        assert config is None, "give a TrainConfig or its fields, not both"
        config = TrainConfig(**trained)
    if isinstance(sample, Workbench):
        assert config is None, "a workbench has its own config"
        app = BpeApp(workbench=sample, options=options, lesson=lesson, lesson_note=lesson_note)
    elif sample is None:
        app = BpeApp(None, config, options=options, lesson=lesson, lesson_note=lesson_note)
    elif isinstance(sample, LoadedCorpus):  # built into a workbench by the app, as a launch does
        app = BpeApp(sample, config, options=options, lesson=lesson, lesson_note=lesson_note)
    else:
        config = config or TrainConfig()
        source = str(sample)
        is_sample = isinstance(sample, str) and "/" not in source and ":" not in source
        corpus = LoadedCorpus.open(f"sample:{source}" if is_sample else source, config.base)
        app = BpeApp(workbench=Workbench(corpus, config), options=options, lesson=lesson, lesson_note=lesson_note)
    if still:
        app.animation_level = "none"
    return app


def spm_model_bytes(pieces: list[tuple[str, float, int]], *, fallback: bool = True, squeeze: bool = False,
                    table: bytes | None = None) -> bytes:
    """A SentencePiece ModelProto: the pieces (text, score, type), a BPE trainer spec and an
    identity normalizer spec (or an nmt_nfkc one holding ``table``, a precompiled charsmap)."""
    import struct

    from fetch_tokenizers import proto_field as _field
    from fetch_tokenizers import proto_varint as _varint

    out = b"".join(_field(1, _field(1, text.encode()) + _varint(2 << 3 | 5) + struct.pack("<f", score) + _field(3, kind))
                   for text, score, kind in pieces)
    out += _field(2, _field(3, 2) + _field(35, int(fallback)))
    name = b"identity" if table is None else b"nmt_nfkc"
    spec = _field(1, name) + (b"" if table is None else _field(2, table))
    out += _field(3, spec + _field(3, 1) + _field(4, int(squeeze)))  # remove_extra_whitespaces
    return out


# -- GPT-2's pair under OpenAI's names --------------------------------------------------------


@functools.cache
def openai_gpt2_pair(folder: str) -> Path:
    """Whisper's GPT-2 pair copied into ``folder`` under OpenAI's names, byte for byte."""
    from fetch_tokenizers import needed_folder

    pair = needed_folder("whisper-gpt2-pair")
    where = Path(folder) / "openai"
    where.mkdir(exist_ok=True)
    shutil.copy(pair / "vocab.json", where / "encoder.json")
    shutil.copy(pair / "merges.txt", where / "vocab.bpe")
    return where


@functools.cache
def tiktoken_gpt2(folder: Path, digests: bool = False):
    """tiktoken's gpt2 encoding of the two files in ``folder``: with ``digests``, made by
    ``tiktoken_ext.openai_public.gpt2`` itself, reading these files for OpenAI's addresses and
    checking them against the sha256 it expects of OpenAI's (so they must be those); else as it
    makes it, of these files unchecked (its pattern, ``<|endoftext|>`` 50256)."""
    pytest.importorskip("tiktoken")
    import tiktoken
    import tiktoken.load
    import tiktoken_ext.openai_public as openai_public

    files = {"vocab.bpe": folder / "vocab.bpe", "encoder.json": folder / "encoder.json"}
    reading = tiktoken.load.read_file

    def local(blobpath: str) -> bytes:  # OpenAI's address -> the file of that name here
        return reading(str(files[blobpath.rsplit("/", 1)[-1]]))

    with pytest.MonkeyPatch.context() as mp, tempfile.TemporaryDirectory() as cache:
        mp.setenv("TIKTOKEN_CACHE_DIR", cache)  # an empty cache: the files are read (and their digests checked)
        mp.setattr(tiktoken.load, "read_file", local)
        if digests:
            spec = openai_public.gpt2()
        else:
            ranks = tiktoken.load.data_gym_to_mergeable_bpe_ranks(vocab_bpe_file=str(files["vocab.bpe"]),
                                                                  encoder_json_file=str(files["encoder.json"]))
            spec = {"name": "gpt2", "explicit_n_vocab": 50257, "pat_str": openai_public.r50k_pat_str,
                    "mergeable_ranks": ranks, "special_tokens": {openai_public.ENDOFTEXT: 50256}}
    return tiktoken.Encoding(**spec)
