"""Issue 40, item 3: the compiled core and the pure path give one answer for every value a user
gives, refusals included. Every count or index has one range, 0 to ``engine.config.MAX_WHOLE``
(2**63 - 1, what the core's ``int64_t`` and ``Py_ssize_t`` parameters take), checked where it
enters: ``TrainConfig`` for the training options (train's and compare's, a lesson's ``open``
settings, a session file's config), the lesson parser for a lesson's numbers (steps, candidates,
merges, token ids, quiz rounds).

A differential fuzz: extreme values (0, 1, -1, 2**31 - 1, 2**31, 2**32, 2**63 - 1, 2**63, 2**64,
huge, a number of 5000 digits) of every option and claim, each entry run on the pure path and on
the compiled one (``engine.native.door.using``), whose outcomes (exit code, every line printed, the
merges written or made, or the exception raised) must be equal; and past MAX_WHOLE the value must
be refused. The ``@example`` rows are the cases of the issue, each of which raised OverflowError
on the compiled path before (a traceback, exit 1) where the pure path trained, and the range's
last value, 2**63 - 1, which both paths take. Without the compiled core (BPE_LAB_PURE=1, or no
build) the pure path runs alone and the refusals are checked.

Budgets: a handful of drawn examples in the default run, more under HYPOTHESIS_PROFILE=slow.
"""

from __future__ import annotations

import io
import json
import os
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import tui.cli.commands as cli
from engine import TIE_RULES, TrainConfig, Trainer
from engine.native.door import COMPILED, PURE, using

#: The range of every count and index (engine.config.MAX_WHOLE, checked by the last test; said here
#: so that each test runs, and fails, on a version without it).
MAX_WHOLE = (1 << 63) - 1
#: The paths here: the pure one always, the compiled one where it is built.
BACKENDS = [PURE] + ([COMPILED] if COMPILED is not None else [])

_PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "default")
fuzz = settings(max_examples={"default": 6, "slow": 80, "thorough": 600}.get(_PROFILE, 6), deadline=None,
                suppress_health_check=[HealthCheck.too_slow])

#: The values every option and claim is tried with (as text: what a command line or a lesson holds).
EXTREMES = (0, 1, -1, 2**31 - 1, 2**31, 2**32, 2**63 - 1, 2**63, 2**64, 10**30)
HUGE_DIGITS = "9" * 5000  # more digits than Python's int() converts (4300)
NUMBERS = st.sampled_from([str(v) for v in EXTREMES] + [HUGE_DIGITS])

CORPUS = "the cat in the hat sat on the mat\nthe cat ate the rat\n"
#: A lesson's ``open text=`` of it (one line).
OPEN = f'open text="{CORPUS.replace(chr(10), " ").strip()}"'
_TIMING = re.compile(r" in \d+\.\d+ s")


def past_the_range(word: str) -> bool:
    return word.isdigit() and (len(word) > len(str(MAX_WHOLE)) or int(word) > MAX_WHOLE)


def on_both(run):
    """``run()``'s outcome on every path, as ``{path name: outcome}``; an exception is an outcome
    (its class and message), so a traceback on one path and an answer on the other differ."""
    outcomes = {}
    for backend in BACKENDS:
        with using(backend):
            try:
                outcomes[backend.name] = run()
            except Exception as exc:  # what the compiled path did past int64: an outcome too
                outcomes[backend.name] = ("raised", type(exc).__name__, str(exc))
    return outcomes


def the_same(outcomes: dict) -> object:
    """The one outcome of every path (fails, showing each, when they differ)."""
    first = next(iter(outcomes.values()))
    assert all(o == first for o in outcomes.values()), outcomes
    return first


def command(argv: list[str], written: Path | None = None) -> tuple:
    """``bpe-lab ARGV`` in this process: exit code, stdout, stderr (timings blanked), and the merges
    of the tokenizer it wrote at ``written``."""
    if written is not None and written.exists():
        written.unlink()
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(argv, out=out, err=err)
    merges = json.loads(written.read_text(encoding="utf-8"))["merges"] if written is not None and code == 0 else None
    return code, out.getvalue(), _TIMING.sub(" in T s", err.getvalue()), merges


# -- the training options: train and compare ---------------------------------------------------


@st.composite
def training_options(draw) -> list[str]:
    argv: list[str] = []
    limit = draw(st.sampled_from(["--vocab-size", "--merges", None]))
    if limit:
        argv += [limit, draw(NUMBERS)]
    if limit is None or draw(st.booleans()):
        argv += ["--min-frequency", draw(NUMBERS)]
    argv += ["--tie-break", draw(st.sampled_from(TIE_RULES)), "--base", draw(st.sampled_from(["bytes", "chars"]))]
    return argv


@fuzz
@given(st.sampled_from(["train", "compare"]), training_options())
@example("train", ["--min-frequency", str(2**63)])
@example("compare", ["--min-frequency", str(2**63)])
@example("train", ["--min-frequency", str(2**64), "--tie-break", "first-seen"])
@example("train", ["--min-frequency", str(2**63 - 1), "--merges", str(2**31)])
def test_training_options_give_one_answer_on_both_paths(name, options):
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "c.txt"
        corpus.write_text(CORPUS, encoding="utf-8")
        written = Path(tmp) / "tok.json"
        argv = [name, str(corpus), *(["-o", str(written)] if name == "train" else []), *options]
        code, out, err, merges = the_same(on_both(lambda: command(argv, written if name == "train" else None)))
    if any(past_the_range(word) for word in options):
        assert code == 2 and out == "" and err.startswith("bpe-lab: error: ") and err.count("\n") == 1, err


# -- a lesson: its open settings, moves and claims ---------------------------------------------

#: What a lesson line may do with a number: the moves and claims that take one. ``True``: the
#: number is one of the lesson's own (a step, a candidate, ...), refused past MAX_WHOLE at parse.
LINES = {
    "goto {n}": True,
    "run {n}": True,
    "step {n}": True,
    "undo {n}": True,
    "quiz rounds={n}": True,
    'expect candidate {n} == "t h"': True,
    'expect merge {n} == "th"': True,
    'expect token #{n} == "t"': True,
    'expect count "#{n} #{n}" == 1': False,  # the find syntax: a token id, looked up in Python
    "select #{n}": False,
    'expect decode "[{n}]" == "t"': False,
    "expect vocab == {n}": False,  # a claim's value, compared
    "expect tokens <= {n}": False,
}
SETTINGS = ("min_frequency", "vocab_size", "vocab", "max_merges", "merges")


@st.composite
def lessons(draw) -> tuple[list[str], bool]:
    """A lesson's one step, and whether a number in it is past the range."""
    tie = draw(st.sampled_from(TIE_RULES))
    opened = f"{OPEN} tie_rule={tie}"
    past = False
    for key in draw(st.lists(st.sampled_from(SETTINGS), max_size=2, unique=True)):
        value = draw(NUMBERS)
        opened += f" {key}={value}"
        past |= past_the_range(value)
    lines = [opened]
    for template in draw(st.lists(st.sampled_from(list(LINES)), min_size=1, max_size=3)):
        value = draw(NUMBERS)
        lines.append(template.format(n=value))
        past |= LINES[template] and past_the_range(value)
    return lines, past


def _lesson_outcome(folder: Path, lines: list[str]) -> tuple:
    path = folder / "l.md"
    path.write_text('+++\ntitle = "t"\n+++\n## one\n```bpe\n' + "\n".join(lines) + "\n```\n", encoding="utf-8")
    return command(["lesson", "--check", str(path)]) + command(["lesson", "--run", str(path)])


@fuzz
@given(lessons())
@example(([f'{OPEN} min_frequency={2**63}', "step"], True))
@example(([f'{OPEN} tie_rule=lowest-ids', f'expect candidate {2**63} == "t h"'], True))
@example(([f'{OPEN} tie_rule=subword-nmt', f'expect candidate {2**64} == "t h"'], True))
@example(([f'{OPEN} tie_rule=lowest-ids', f'expect candidate {2**63 - 1} == "t h"'], False))
def test_a_lesson_gives_one_answer_on_both_paths(lesson):
    lines, past = lesson
    with tempfile.TemporaryDirectory() as tmp:
        outcome = the_same(on_both(lambda: _lesson_outcome(Path(tmp), lines)))
    if past:  # refused at parse, by --check (every problem) and --run (the first), each naming its line
        checked, ran = outcome[:4], outcome[4:]
        assert checked[0] == ran[0] == 2 and ran[1] == "", outcome
        assert re.fullmatch(r"bpe-lab: error: \S*l\.md:\d+: .*\n", ran[2]), ran[2]
        assert ran[2] in checked[2] and all(re.fullmatch(r"bpe-lab: error: \S*l\.md:\d+: .*", line)
                                            for line in checked[2].splitlines()), checked[2]


def test_the_largest_numbers_are_in_the_range_and_answered_alike():
    """2**63 - 1 itself is taken: the lesson runs on either path, and its verdicts are the same."""
    lines = [f"{OPEN} tie_rule=lowest-ids min_frequency={MAX_WHOLE}", "step",
             f"{OPEN} tie_rule=lowest-ids min_frequency=1", f"goto {MAX_WHOLE}",
             f'expect candidate {MAX_WHOLE} == "t h"', f'expect merge {MAX_WHOLE} == "th"', f'expect token #{MAX_WHOLE} == "t"']
    with tempfile.TemporaryDirectory() as tmp:
        outcome = the_same(on_both(lambda: _lesson_outcome(Path(tmp), lines)))
    checked, ran = outcome[:4], outcome[4:]
    assert checked[0] == 0 and ran[0] == 1, outcome
    for verdict in ("only 0 candidates", "only 20 merges made", f"no token #{MAX_WHOLE}", "0 of 3 claims hold"):
        assert verdict in ran[1], ran[1]


# -- a session file's config ---------------------------------------------------------------------


def _session_outcome(folder: Path, config: dict) -> tuple:
    """What resuming does with the session (tui.model.workbench.Workbench.restore, without the
    app): read the file, build the trainer of its config, train through its merges."""
    from tui.model.session import Session, fingerprint

    data = {"format": "bpe-lab session", "version": 1,
            "corpus": {"source": "c.txt", "sha256": fingerprint(CORPUS.encode("utf-8")), "size": len(CORPUS)},
            "config": config, "merges": [[116, 104], [256, 101], [32, 116]], "step": 2, "selected": None,
            "replay": None}
    path = folder / "s.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    try:
        session = Session.load(path)
    except ValueError as exc:
        return ("refused", str(exc))
    trainer = Trainer(CORPUS, session.config)
    trainer.goto(len(session.merges))
    return ("trained", [event.pair for event in trainer.events()], trainer.steps)


@fuzz
@given(st.sampled_from(["min_frequency", "vocab_size", "max_merges"]), st.sampled_from(EXTREMES), st.sampled_from(TIE_RULES))
@example("min_frequency", 2**63, "lowest-ids")
@example("min_frequency", 2**64, "first-seen")
def test_a_session_files_config_gives_one_answer_on_both_paths(key, value, tie):
    config = {**TrainConfig(max_merges=3, tie_rule=tie).to_dict(), key: value}
    with tempfile.TemporaryDirectory() as tmp:
        outcome = the_same(on_both(lambda: _session_outcome(Path(tmp), config)))
    if value > MAX_WHOLE:
        assert outcome[0] == "refused" and re.search(rf's\.json: "config": .*{value} is too large', outcome[1]), outcome


# -- the engine's own entry: a TrainConfig made in Python ------------------------------------------


@pytest.mark.parametrize("value", [2**63, 2**64, 10**30])
def test_a_minimum_pair_count_past_the_range_is_refused_by_the_config(value):
    from engine import config
    from engine.errors import ConfigError

    assert getattr(config, "MAX_WHOLE", None) == MAX_WHOLE

    with pytest.raises(ConfigError, match=rf"^minimum pair count {value} is too large \(at most {MAX_WHOLE}\)$"):
        TrainConfig(min_frequency=value)
    for backend in BACKENDS:  # the largest one trains on either path: no pair occurs that often
        with using(backend):
            trainer = Trainer(CORPUS, TrainConfig(min_frequency=MAX_WHOLE))
            assert trainer.train() == [] and trainer.candidates(MAX_WHOLE) == []
