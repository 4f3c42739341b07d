"""Issue 11, sessions and decode's input: hostile session files and id streams are refused in one
line within a memory limit; encode -> decode --bytes is byte-exact; the session lock holds
against other processes, killed owners and garbage.

The bombs run ``python -m tui`` in a subprocess under ``RLIMIT_AS`` (1 GB) with a timeout, so a
regression fails the test instead of taking the machine down. Lock tests use real processes that
hold the lock until the test closes their standard input (no sleeping: every wait is on a line
or an exit).
"""

from __future__ import annotations

import json
import os
import random
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT, app_on

import tui.cli.commands as cli
from engine import TrainConfig, Trainer
from engine.formats import export_tokenizer
from tui.model.session import (
    MAX_SESSION_BYTES,
    MAX_SESSION_CONTAINERS,
    Session,
    SessionError,
    SessionLock,
    claim_session_file,
    fingerprint,
    lock_path,
)

MEMORY = 1 << 30
TEXT = "the cat in the hat sat on the mat\nthe cat ate the rat\n" * 20 + "Grüße, 中文, emoji 🙂\n"
ENV = dict(os.environ, PYTHONPATH=str(ROOT))


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def bpe_lab(args: list[str], cwd: Path, stdin=None, data: bytes | None = None, limited: bool = True) -> subprocess.CompletedProcess:
    """``bpe-lab ARGS`` as a real process (under the memory limit), its output as bytes."""
    return subprocess.run([sys.executable, "-m", "tui", *args], cwd=cwd, env=ENV, stdin=stdin, input=data,
                          capture_output=True, timeout=120, preexec_fn=_limit if limited else None)


def refused(run: subprocess.CompletedProcess) -> str:
    """The one error line of a refused command (exit 2, nothing else printed)."""
    err = run.stderr.decode("utf-8")
    assert run.returncode == 2, err[-2000:]
    assert err.count("\n") == 1 and err.startswith("bpe-lab: error: "), err[-2000:]
    assert len(err) < 400, err
    return err.rstrip("\n")


@pytest.fixture
def tok(tmp_path) -> Path:
    trainer = Trainer(TEXT, TrainConfig(max_merges=40))
    trainer.train()
    trainer.tokenizer().save(tmp_path / "tok.json")
    (tmp_path / "c.txt").write_text(TEXT, encoding="utf-8")
    return tmp_path / "tok.json"


def session_dict(tmp_path: Path, **changes) -> dict:
    data = {"format": "bpe-lab session", "version": 1,
            "corpus": {"source": "c.txt", "sha256": fingerprint((tmp_path / "c.txt").read_bytes()), "size": 10},
            "config": TrainConfig(max_merges=5).to_dict(), "merges": [[116, 104], [256, 101], [32, 116]],
            "step": 2, "selected": None, "replay": None}
    data.update(changes)
    return data


# -- session files under a memory limit ---------------------------------------------------------


def _write(path: Path, data: bytes | str) -> Path:
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


SESSION_BOMBS = {
    # 5000 and a million nested lists: the parser's recursion
    "nested": (lambda p: _write(p, "[" * 5000), "s.json: invalid JSON (nested too deeply)"),
    "nested-deep": (lambda p: _write(p, "[" * 1_000_000 + "]" * 1_000_000), "s.json: invalid JSON (nested too deeply)"),
    # 20 MB of empty lists (7M of them, ~500 MB as Python lists): refused before parsing
    "many-lists": (lambda p: _write(p, "[" + "[]," * 7_000_000 + "[]]"), "s.json: holds more values than a session can"),
    # 40 MB of small numbers in one list (20M values): refused before parsing
    "many-numbers": (lambda p: _write(p, "[" + "7," * 20_000_000 + "7]"), "s.json: holds more values than a session can"),
    # a 10,000-digit number and 1e400
    "digits": (lambda p: _write(p, '{"step": ' + "9" * 10_000 + "}"), "s.json: invalid JSON (a number has too many digits)"),
    # a 1 GB file: refused before reading
    "huge": (lambda p: (_write(p, "{"), os.truncate(p, 1 << 30)), "s.json: 1 GB is too large for a session file (the limit is 64 MB)"),
    # 60 MB of one string: within the bounds, parsed, refused by its type
    "one-string": (lambda p: _write(p, '"' + "a" * (60 << 20) + '"'), "s.json: not a bpe-lab session file (expected a JSON object)"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", SESSION_BOMBS)
def test_session_bombs_are_refused_in_one_line_within_a_memory_limit(name, tmp_path):
    make, message = SESSION_BOMBS[name]
    make(tmp_path / "s.json")
    line = refused(bpe_lab(["--resume", "--session", "s.json"], tmp_path))
    assert line.startswith(f"bpe-lab: error: {message}"), line


@pytest.mark.slow
def test_a_device_or_a_fifo_as_the_session_file_is_refused_at_once(tmp_path):
    line = refused(bpe_lab(["--resume", "--session", "/dev/zero"], tmp_path))
    assert line == "bpe-lab: error: /dev/zero: not a regular file (a session is a file bpe-lab writes)"
    os.mkfifo(tmp_path / "fifo")  # no writer: a blocking open would wait for ever
    line = refused(bpe_lab(["--resume", "--session", "fifo"], tmp_path))
    assert line == "bpe-lab: error: fifo: not a regular file (a session is a file bpe-lab writes)"
    (tmp_path / "folder").mkdir()
    assert refused(bpe_lab(["--resume", "--session", "folder"], tmp_path)) == "bpe-lab: error: folder: is a directory, not a session file"


@pytest.mark.slow
def test_a_session_of_a_million_merges_is_within_the_bounds(tmp_path, tok):
    """The largest real session (MAX_VOCAB merges) passes the value bounds: refused only by its step."""
    from engine.config import MAX_VOCAB

    merges = [[116, 104]] + [[256 + k, 97] for k in range(MAX_VOCAB - 1)]
    data = session_dict(tmp_path, merges=merges, step=MAX_VOCAB + 1, replay=None)
    text = json.dumps(data)
    assert len(text) < MAX_SESSION_BYTES and text.count("[") < MAX_SESSION_CONTAINERS
    (tmp_path / "s.json").write_text(text, encoding="utf-8")
    line = refused(bpe_lab(["--resume", "--session", "s.json"], tmp_path))
    assert line == f'bpe-lab: error: s.json: "step" must be a whole number from 0 to {MAX_VOCAB}, not {MAX_VOCAB + 1}'


# -- every field of a session ---------------------------------------------------------------------

FIELDS = {
    "step-float": (dict(step=2.0), '"step" must be a whole number from 0 to 3, not 2.0'),
    "step-bool": (dict(step=True), '"step" must be a whole number from 0 to 3, not true'),
    "step-text": (dict(step="2"), "\"step\" must be a whole number from 0 to 3, not '2'"),
    "step-negative": (dict(step=-1), '"step" must be a whole number from 0 to 3, not -1'),
    "selected-huge": (dict(selected=10**100), '"selected" must be a whole number from 0 to 258, not a number of more than 40 digits'),
    "merges-object": (dict(merges={}), '"merges" must be a list of [left, right] pairs, not an object'),
    "merge-triple": (dict(merges=[[1, 2, 3]]), 'merge 1 in "merges" must be a [left, right] pair, not a list'),
    "merge-later-id": (dict(merges=[[116, 104], [257, 101]]), 'merge 2 in "merges" refers to id 257, which is not a whole number from 0 to 256'),
    "merge-negative": (dict(merges=[[-1, 104]]), 'merge 1 in "merges" refers to id -1'),
    "corpus-source": (dict(corpus={"source": 7, "sha256": "0" * 64, "size": 1}), '"corpus.source" must be a file path or sample:NAME, not 7'),
    "corpus-sha": (dict(corpus={"source": "c.txt", "sha256": "xyz", "size": 1}), "\"corpus.sha256\" must be 64 hexadecimal digits, not 'xyz'"),
    "corpus-long": (dict(corpus={"source": "a" * 4097, "sha256": "0" * 64, "size": 1}),
                    "\"corpus.source\" must be a file path or sample:NAME, not 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa..."),
    "corpus-nul": (dict(corpus={"source": "c\0.txt", "sha256": "0" * 64, "size": 1}), '"corpus.source" must be a file path'),
    "config-list": (dict(config=[1]), '"config" must be an object of training options, not a list'),
    "config-unknown": (dict(config={"colour": 1}), '"config": unknown config keys: colour'),
    "config-bool": (dict(config={"split_digits": 1}), '"config": split digits must be true or false, not int'),
    "config-merges": (dict(config={"merges": 10**50}), '"config": merge count 1000000000000000000000000000000000000... is too large'),
    "config-specials": (dict(config={"specials": [["x"]]}), "\"config\": a special token must be text, not ['x']"),
    "replay-list": (dict(replay=[1]), '"replay": not a bpe-lab tokenizer (expected a JSON object)'),
    "version": (dict(version=2), "unsupported session version 2"),
}


@pytest.mark.parametrize("name", FIELDS)
def test_every_field_is_checked_with_a_line_naming_it(name, tmp_path, tok):
    changes, message = FIELDS[name]
    path = tmp_path / "s.json"
    path.write_text(json.dumps(session_dict(tmp_path, **changes)), encoding="utf-8")
    with pytest.raises(SessionError) as caught:
        Session.load(path)
    text = str(caught.value)
    assert text.startswith(f"{path}: {message}"), text
    assert "\n" not in text and len(text) < 300


def test_a_sessions_pattern_is_refused_before_the_app_starts(tmp_path, tok):
    """The config's pattern is compiled (and refused, naming the file) as a --pattern is."""
    from engine.text.pretokenize import pretokenizer_for

    config = {**TrainConfig(max_merges=5).to_dict(), "pretokenizer": "custom", "pattern": "(a"}
    (tmp_path / "s.json").write_text(json.dumps(session_dict(tmp_path, config=config)), encoding="utf-8")
    with pytest.raises(ValueError) as expected:
        pretokenizer_for(TrainConfig(pretokenizer="custom", pattern="(a"))
    line = refused(bpe_lab(["--resume", "--session", "s.json"], tmp_path))
    assert line == f'bpe-lab: error: s.json: "config": {expected.value}'


def test_a_valid_session_loads_as_written(tmp_path, tok):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(session_dict(tmp_path, selected=257)), encoding="utf-8")
    session = Session.load(path)
    assert (session.merges, session.step, session.selected, session.size) == ([(116, 104), (256, 101), (32, 116)], 2, 257, 10)
    assert Session.load(session.save(tmp_path / "again.json")).merges == session.merges


# -- decode's input under a memory limit ---------------------------------------------------------

DECODE_BOMBS = {
    "nested": ("[" * 1000 + "]" * 1000 + "\n", "standard input: expected a JSON list of integers"),
    "nested-deep": ("[" * 1_000_000, "standard input: expected a JSON list of integers"),
    "long-id": ("9" * 10_000 + "\n", "standard input: a token id of more than 40 digits is out of range of any vocabulary"),
    "long-id-json": ("[1, " + "9" * 10_000 + "]", "standard input: a token id of more than 40 digits is out of range of any vocabulary"),
    "many-ids": ("1 " * 9_000_000, "standard input: more than 8,388,608 token ids (decode them in parts)"),
    "many-ids-json": ("[" + "1," * 9_000_000 + "1]", "standard input: more than 8,388,608 token ids (decode them in parts)"),
    "unicode-digits": ("١٢\n", "standard input: '١٢' is not a token id"),
    "sign-alone": ("1 + 2", "standard input: '+' is not a token id"),
    "long-id-signed": ("-" + "9" * 50, "standard input: a token id of more than 40 digits is out of range of any vocabulary"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", DECODE_BOMBS)
def test_decode_input_bombs_are_refused_in_one_line_within_a_memory_limit(name, tmp_path, tok):
    data, message = DECODE_BOMBS[name]
    line = refused(bpe_lab(["decode", "-t", "tok.json"], tmp_path, data=data.encode("utf-8")))
    assert line == f"bpe-lab: error: {message}"


def test_decode_reads_an_endless_stream_only_up_to_its_bound(tmp_path, tok):
    with open("/dev/zero", "rb") as zero:
        line = refused(bpe_lab(["decode", "-t", "tok.json"], tmp_path, stdin=zero))
    assert line == "bpe-lab: error: standard input: more than 128 MB of token ids (decode them in parts)"


@pytest.mark.slow
def test_encode_reads_a_stream_only_up_to_its_bound_but_a_file_whole(tmp_path, tok):
    with open("/dev/zero", "rb") as zero:
        line = refused(bpe_lab(["encode", "-t", "tok.json"], tmp_path, stdin=zero))
    assert line == "bpe-lab: error: standard input: more than 128 MB from a pipe or device (redirect a file instead: < FILE)"
    big = tmp_path / "big.txt"
    big.write_bytes(b"\xe6\x97 ab" * 10)  # a regular file past a (lowered) stream bound: read whole
    script = "import sys, tui.cli.common as c; c.MAX_TEXT_BYTES = 10; sys.stdout.write(ascii(c.read_stdin()))"
    with open(big, "rb") as handle:
        run = subprocess.run([sys.executable, "-c", script], stdin=handle, env=ENV, capture_output=True, timeout=120)
    assert run.stdout.decode() == ascii(big.read_bytes().decode("utf-8", "surrogateescape")), run.stderr
    run = subprocess.run([sys.executable, "-c", script], input=big.read_bytes(), env=ENV, capture_output=True, timeout=120)
    assert run.returncode == 1 and b"more than 10 bytes from a pipe or device" in run.stderr  # a pipe: bounded


@pytest.mark.slow
def test_decode_streams_a_long_output_within_a_memory_limit(tmp_path, tok):
    """2M ids of the longest token: the text is written a batch at a time."""
    from engine.encode.tokenizer import load_tokenizer

    tokenizer = load_tokenizer(tok)
    longest = max(range(tokenizer.vocab_size), key=lambda i: len(tokenizer.token_bytes(i)))
    count = 1 << 21
    run = subprocess.run([sys.executable, "-m", "tui", "decode", "-t", "tok.json", "--bytes"], cwd=tmp_path, env=ENV,
                         input=(f"{longest} " * count).encode("ascii"), capture_output=True,
                         timeout=300, preexec_fn=_limit)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout == tokenizer.token_bytes(longest) * count


# -- encode -> decode --bytes is byte-exact -------------------------------------------------------


def hostile_bytes(seed: int) -> bytes:
    rng = random.Random(seed)
    parts = [TEXT.encode("utf-8"), b"\xe6\x97", b"\xff\xfe", "中".encode()[:2], b"\xed\xa0\x80", b"\x00\r\n\r",
             bytes(rng.randrange(256) for _ in range(2000)), "🙂".encode()[:3]]
    rng.shuffle(parts)
    return b"".join(parts)


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["native", "hf", "gpt2", "tiktoken"])
def test_encode_then_decode_bytes_gives_back_any_input_exactly(fmt, tmp_path, tok):
    if fmt == "native":
        target = "tok.json"
    else:
        from engine.encode.tokenizer import load_tokenizer

        target = {"hf": "tokenizer.json", "gpt2": "pair", "tiktoken": "t.tiktoken"}[fmt]
        export_tokenizer(load_tokenizer(tok), fmt, tmp_path / target)
    for seed in range(3):
        data = hostile_bytes(seed)
        for shape in ([], ["--json"]):
            encoded = bpe_lab(["encode", "-t", target, *shape], tmp_path, data=data, limited=False)
            assert encoded.returncode == 0, encoded.stderr
            decoded = bpe_lab(["decode", "-t", target, "--bytes"], tmp_path, data=encoded.stdout, limited=False)
            assert decoded.returncode == 0, decoded.stderr
            assert decoded.stdout == data


def test_partial_characters_decode_to_their_bytes(tmp_path, tok):
    """GPT-2's [e6 97] (two thirds of 日): --bytes writes the two bytes, text mode U+FFFD."""
    assert bpe_lab(["decode", "-t", "tok.json", "--bytes", "230", "151"], tmp_path, limited=False).stdout == b"\xe6\x97"
    assert bpe_lab(["decode", "-t", "tok.json", "230", "151"], tmp_path, limited=False).stdout == "\ufffd".encode("utf-8")


def test_text_decode_is_the_same_in_batches(tmp_path, tok, monkeypatch):
    """A character cut between two batches comes out whole (the decoder carries it over)."""
    import io

    from engine.encode.tokenizer import load_tokenizer

    tokenizer = load_tokenizer(tok)
    ids = tokenizer.encode(TEXT * 3)
    monkeypatch.setattr("tui.cli.decode.DECODE_BATCH", 3)  # decode's batch (tui/cli/decode.py)
    out = io.StringIO()
    assert cli.main(["decode", "-t", str(tok), json.dumps(ids)], out=out, err=io.StringIO()) == 0
    assert out.getvalue() == TEXT * 3


def test_a_tiktoken_file_decodes_without_a_pattern(tmp_path, tok):
    from engine.encode.tokenizer import load_tokenizer

    export_tokenizer(load_tokenizer(tok), "tiktoken", tmp_path / "t.tiktoken")
    (tmp_path / "t.tiktoken.json").unlink()
    ids = load_tokenizer(tok).encode("the cat")
    run = bpe_lab(["decode", "-t", "t.tiktoken", *map(str, ids)], tmp_path, limited=False)
    assert (run.returncode, run.stdout, run.stderr) == (0, b"the cat", b"")
    line = refused(bpe_lab(["encode", "-t", "t.tiktoken", "hi"], tmp_path, limited=False))
    assert "holds no pattern" in line  # encoding does need one


def test_the_pattern_name_help_claims_no_default_for_tiktoken(capsys):
    with pytest.raises(SystemExit):
        cli.main(["decode", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "vocab.json + merges.txt (default gpt2), or for a tiktoken rank file without its PATH.json (a well-known one" in help_text
    assert "another needs one to encode or export, not to decode" in help_text  # no default claimed for the rest


# -- the session lock ---------------------------------------------------------------------------

HOLDER = """
import sys
from pathlib import Path
from tui.model.session import SessionLock
lock = SessionLock.acquire(Path(sys.argv[1]))
print("locked" if lock is not None else "busy", flush=True)
sys.stdin.read()  # hold it until the test closes our standard input
"""


def holder(session_file: Path) -> tuple[subprocess.Popen, str]:
    """Another process trying the lock; it holds what it got until its stdin closes."""
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(session_file)], env=ENV, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    return proc, proc.stdout.readline().strip()


def let_go(proc: subprocess.Popen) -> None:
    proc.stdin.close()
    assert proc.wait(timeout=60) == 0


def test_another_process_holds_the_lock_until_it_ends(tmp_path):
    session_file = tmp_path / "session.json"
    proc, state = holder(session_file)
    try:
        assert state == "locked"
        assert SessionLock.acquire(session_file) is None
        assert f"pid {proc.pid} on " in SessionLock.owner(session_file)
    finally:
        let_go(proc)
    lock = SessionLock.acquire(session_file)
    assert lock is not None and f"pid {os.getpid()} on " in SessionLock.owner(session_file)
    lock.release()
    assert not lock_path(session_file).exists()


def test_a_killed_owner_leaves_no_lock_that_blocks(tmp_path):
    session_file = tmp_path / "session.json"
    proc, state = holder(session_file)
    assert state == "locked"
    os.kill(proc.pid, signal.SIGKILL)
    assert proc.wait(timeout=60) == -signal.SIGKILL
    assert f"pid {proc.pid} on " in SessionLock.owner(session_file)  # its lock file is still there
    lock = SessionLock.acquire(session_file)
    assert lock is not None
    assert f"pid {os.getpid()} on " in SessionLock.owner(session_file)
    proc2, state = holder(session_file)
    try:
        assert state == "busy"
    finally:
        let_go(proc2)
    lock.release()


@pytest.mark.parametrize("garbage", [b"", b"\xff\xfe\x00garbage", b"[" * 100_000, b'{"pid": 1e400, "host": 7}', b"x" * 100_000])
def test_a_garbage_lock_file_neither_blocks_nor_breaks(tmp_path, garbage):
    session_file = tmp_path / "session.json"
    lock_path(session_file).write_bytes(garbage)
    assert SessionLock.owner(session_file) == "another bpe-lab"
    lock = SessionLock.acquire(session_file)
    assert lock is not None
    assert f"pid {os.getpid()} on " in SessionLock.owner(session_file)
    lock.release()


def test_a_fifo_as_the_lock_file_is_not_read(tmp_path):
    session_file = tmp_path / "session.json"
    os.mkfifo(lock_path(session_file))
    assert SessionLock.owner(session_file) == "another bpe-lab"


@pytest.mark.slow
def test_processes_racing_for_the_lock_get_it_once(tmp_path):
    session_file = tmp_path / "session.json"
    procs = [subprocess.Popen([sys.executable, "-c", HOLDER, str(session_file)], env=ENV, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True) for _ in range(6)]
    try:
        states = sorted(proc.stdout.readline().strip() for proc in procs)
        assert states == ["busy"] * 5 + ["locked"]
    finally:
        for proc in procs:
            let_go(proc)


def test_a_lock_file_that_cannot_be_made_leaves_the_session_file_unlocked(tmp_path):
    session_file = tmp_path / "session.json"
    lock_path(session_file).mkdir()  # the lock's name is taken by a folder
    with pytest.raises(OSError):
        SessionLock.acquire(session_file)
    assert claim_session_file(session_file) == (None, session_file, None)


def test_a_file_system_without_locks_is_not_taken_for_another_owner(tmp_path, monkeypatch):
    """flock failing for a reason other than a holder (ENOLCK on some network file systems)
    means no lock, not "in use": the app keeps its session file (simulated)."""
    import errno
    import fcntl

    def no_locks(fd, operation):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(fcntl, "flock", no_locks)
    session_file = tmp_path / "session.json"
    with pytest.raises(OSError):
        SessionLock.acquire(session_file)
    assert claim_session_file(session_file) == (None, session_file, None)


def test_claiming_a_taken_session_file_gives_a_sibling(tmp_path):
    session_file = tmp_path / "session.json"
    proc, state = holder(session_file)
    try:
        lock, target, note = claim_session_file(session_file)
        assert target == tmp_path / f"session-{os.getpid()}.json"
        assert lock is not None and lock.path == tmp_path / f"session-{os.getpid()}.json.lock"
        assert note == (f"{session_file} is in use by {SessionLock.owner(session_file)}: this session is saved to "
                        f"{target} (--resume --session {target})")
        lock.release()
    finally:
        let_go(proc)


async def test_an_app_does_not_write_a_session_file_another_holds(tmp_path):
    from tui.model.workbench import LoadedCorpus, Workbench

    session_file = tmp_path / "session.json"
    proc, state = holder(session_file)
    try:
        assert state == "locked"
        app = app_on(Workbench(LoadedCorpus.open("sample:workshop.txt", "bytes"), TrainConfig(max_merges=50)), session_file=session_file)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("n", "n")
            app.autosave(now=True)
            await pilot.pause()
            sibling = tmp_path / f"session-{os.getpid()}.json"
            assert not session_file.exists()
            assert Session.load(sibling).step == 2
            notes = [said for said in app.toasts.texts() if "is in use by" in said]
            assert len(notes) == 1 and f"pid {proc.pid}" in notes[0] and str(sibling) in notes[0]
        assert not (tmp_path / f"session-{os.getpid()}.json.lock").exists()  # released when the app ended
    finally:
        let_go(proc)
