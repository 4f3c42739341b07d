"""Issue 13 point 7: a replayed tokenizer (--tokenizer) shows and copies the file's ids, its
next-merge pane shows the file's next merge, and the log marks no ties.

The file is GPT-2-shaped: the 256 bytes ranked in GPT-2's order (printable bytes first, so
``!`` is 0 and ``Z`` is 57), then merges; the ids are checked against ``bpe-lab encode -t``
and the real ``tiktoken``."""

from __future__ import annotations

import base64
import io
import json

import pytest
from helpers import app_on, sample_text, settled

from engine import TrainConfig, Trainer
from engine.formats import load_any
from engine.text import token_display
from engine.text.pretokenize import GPT2_PATTERN, PreTokenizer
from tui.app.widgets.candidates import Candidates
from tui.app.widgets.inspector import Inspector
from tui.app.widgets.merge_log import MergeLog
from tui.cli.commands import main as cli_main
from tui.model.workbench import LoadedCorpus

SIZE = (80, 24)
TEXT = " Hello world!"
CORPUS = "Hello world! Zebras here, there and everywhere.\nThe world is here; hello again!\n" * 8


def gpt2_byte_order() -> list[int]:
    """The bytes in the order GPT-2's encoder ranks them."""
    printable = [b for b in range(256) if chr(b).isprintable() and chr(b) != " "]
    return printable + [b for b in range(256) if b not in printable]


def write_gpt2_style_file(path) -> dict[bytes, int]:
    """Bytes in GPT-2's order, then 40 merges trained on the workshop sample; returns the ranks."""
    trainer = Trainer(sample_text("workshop.txt"), TrainConfig(pretokenizer="gpt2", max_merges=40))
    trainer.train()
    ranks = {bytes([b]): rank for rank, b in enumerate(gpt2_byte_order())}
    for event in trainer.history:
        ranks[event.token] = len(ranks)
    path.write_text("".join(f"{base64.b64encode(t).decode()} {r}\n" for t, r in ranks.items()), encoding="ascii")
    return ranks


def cli_ids(path, text: str) -> list[int]:
    out = io.StringIO()
    assert cli_main(["encode", "-t", str(path), "--pattern-name", "gpt2", "--json", text], out=out, err=io.StringIO()) == 0
    return json.loads(out.getvalue())


def replay_app(tmp_path):
    path = tmp_path / "gpt2ish.tiktoken"
    ranks = write_gpt2_style_file(path)
    imported = load_any(path, pretokenizer=PreTokenizer("gpt2"))
    assert imported.file_ids is not None and not imported.warnings  # the file's numbering is not ours
    corpus = LoadedCorpus.open(_corpus(tmp_path), imported.tokenizer.base)
    app = app_on(corpus, script=imported.tokenizer, file_ids=imported.file_ids, autosave=False)
    return app, path, ranks, imported


def _corpus(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text(CORPUS, encoding="utf-8")
    return path


def shown_ids(app) -> list[str]:
    """The id line of the tokenize pane, as drawn."""
    return str(app.query_one("#tokenize-output").render()).splitlines()[1].split()


async def type_into_tokenize(app, pilot, text: str) -> None:
    await pilot.press("e")
    await pilot.press(*["space" if ch == " " else ch for ch in text])
    await pilot.pause()


@pytest.mark.slow
async def test_replay_shows_and_copies_the_files_ids(tmp_path):
    tiktoken = pytest.importorskip("tiktoken")
    app, path, ranks, imported = replay_app(tmp_path)
    copied: list[str] = []
    app.lab.clipboard_fn = copied.append
    enc = tiktoken.Encoding(name="gpt2ish", pat_str=GPT2_PATTERN, mergeable_ranks=ranks, special_tokens={})
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("right_curly_bracket")  # every merge of the file
        await app.workers.wait_for_complete()
        await settled(pilot)
        assert app.workbench.steps == len(imported.tokenizer.merges) == 40
        expected = enc.encode(TEXT)
        assert cli_ids(path, TEXT) == expected
        assert expected[-1] == 0  # "!" is GPT-2's token 0; bpe-lab's own id for it is 33
        await type_into_tokenize(app, pilot, TEXT)
        assert shown_ids(app) == [str(i) for i in expected]
        await pilot.press("ctrl+y")  # copy the ids from inside the input
        assert copied[-1] == " ".join(map(str, expected))

        # part way through, the ids are still the file's (its merges so far)
        await pilot.press("escape", "g", *"5", "enter")
        await settled(pilot)
        assert app.workbench.steps == 5
        partial = [str(i) for i in imported.to_file_ids(app.workbench.tokenizer().encode(TEXT))]
        assert shown_ids(app) == partial and partial != [str(i) for i in expected]
        last = app.workbench.trainer.last  # the inspector shows it, and its merge tree, by the file's ids
        a, b = (imported.file_ids[i] for i in last.pair)
        lines = app.query_one(Inspector).plain.splitlines()
        assert lines[0].startswith(f"token {imported.file_ids[last.new_id]}  ")
        tree = lines[lines.index("merge tree:") + 1:]
        assert tree[0].split()[0] == str(imported.file_ids[last.new_id])
        children = [line.split()[0] for line in tree if line.startswith("   ") and line[3] != " "]
        assert children == [str(a), str(b)]

        # find by #id reads the file's id: 57 is Z in GPT-2's byte order (bpe-lab's 90)
        await pilot.press("slash", *"#57", "enter")
        await pilot.pause()
        inspector = app.query_one(Inspector).plain
        assert inspector.startswith("token 57  Z"), inspector
        await pilot.press("c")
        assert copied[-1] == "57\t5a"
        assert enc.encode("Z") == [57]


@pytest.mark.slow
async def test_replay_next_merge_is_the_files_and_ties_are_not_marked(tmp_path):
    app, _, _, imported = replay_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        for _ in range(12):
            trainer = app.workbench.trainer
            pair, count, rank = trainer.scripted_next()
            pane = str(app.query_one(Candidates).render())
            lines = pane.splitlines()
            assert lines[0].rstrip() == f"replay: merge {trainer.steps + 1} of 40"
            left, right = (token_display(trainer.token_bytes(i), space="·") for i in pair)
            assert lines[1].rstrip() == f"▶ {left} + {right}"
            assert lines[2].rstrip() == ("  not in this corpus (0×)" if count == 0 else f"  {count}× here, #{rank} by count")
            top = trainer.candidates(1)[0]
            assert (rank == 1) == (top.count == count)  # the file's merge need not be this corpus's top pair
            assert "tie rule" not in pane
            await pilot.press("n")
            await settled(pilot)
            assert trainer.history[-1].pair == pair  # n made the merge the pane showed
        assert any(e.tied for e in app.workbench.trainer.history)  # ties happen here, but the log does not mark them
        log = app.query_one(MergeLog)
        log.action_edge(0)
        await pilot.pause()
        drawn = "\n".join(log.render_line(y).text for y in range(log.size.height))
        assert "step" in drawn and "count" in drawn
        assert "*" not in drawn
        await pilot.press("g", *"40", "enter")
        await settled(pilot)
        assert str(app.query_one(Candidates).render()).startswith("done: all 40 merges made  ")


@pytest.mark.slow
async def test_a_resumed_replay_keeps_the_files_ids(tmp_path):
    from tui.model.session import Session

    app, _, _, imported = replay_app(tmp_path)
    session_file = tmp_path / "session.json"
    app.lab.keeper.explicit, app.lab.keeper.autosave = session_file, True
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("n", "n", "n")
        app.autosave(now=True)
    session = Session.load(session_file)
    assert session.replay_ids == imported.file_ids and session.step == 3
    corpus = LoadedCorpus.open(session.source, session.replay.base)
    resumed = app_on(corpus, session.config, script=session.replay, file_ids=session.replay_ids, resume=session, autosave=False)
    async with resumed.run_test(size=SIZE) as pilot:
        await resumed.workers.wait_for_complete()
        await settled(pilot)
        assert resumed.workbench.steps == 3
        await type_into_tokenize(resumed, pilot, TEXT)
        expected = imported.to_file_ids(resumed.workbench.tokenizer().encode(TEXT))
        assert shown_ids(resumed) == [str(i) for i in expected] and expected[-1] == 0
    damaged = session_file.read_text(encoding="utf-8").replace('"replay_ids": [', '"replay_ids": [-1, ')
    session_file.write_text(damaged, encoding="utf-8")
    with pytest.raises(ValueError, match="must list the replayed tokenizer's 296 file ids"):
        Session.load(session_file)
