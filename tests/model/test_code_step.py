"""The code view's model (tui/model/code_step.py), headless: the step it describes and its values
come from the trainer's events and candidates; every comment of the reference has its translation."""

from __future__ import annotations

from engine import TrainConfig
from engine.corpus.reading import decode_corpus
from engine.train import reference_excerpt
from tui.i18n import set_language
from tui.model.code_step import COMMENTS, code_step, comment
from tui.model.workbench import LoadedCorpus, Workbench


def workbench(text: str, **config) -> Workbench:
    corpus = LoadedCorpus.from_corpus(decode_corpus(text.encode(), name="t.txt"), config.get("base", "bytes"), None)
    return Workbench(corpus, TrainConfig(**config))


def test_every_comment_of_the_excerpt_is_in_the_table():
    said = [line.text[line.comment:] for line in reference_excerpt() if line.comment is not None]
    assert sorted(said) == sorted(COMMENTS)


def test_comments_are_said_in_german_and_chinese():
    try:
        for lang in ("de", "zh"):
            set_language(lang)
            assert all(comment(c) != c and comment(c).startswith("# ") for c in COMMENTS)
    finally:
        set_language("en")
    assert comment("# not in the table") == "# not in the table"


def test_step_zero_shows_the_next_merge_and_a_step_its_event():
    bench = workbench("low lower lowest newest widest", pretokenizer="simple", max_merges=6)
    trainer = bench.trainer
    ahead = code_step(bench)
    top = trainer.candidates(4)
    assert not ahead.made and ahead.step == 1 and ahead.pair == top[0].pair and ahead.count == top[0].count
    assert ahead.tie_total == trainer.tie_count(top[0].count) and ahead.before == trainer.corpus_tokens
    assert [count for _, count in ahead.top] == [c.count for c in top]
    event = bench.step()
    made = code_step(bench)
    assert made.made and made.pair == event.pair == ahead.pair and made.new_id == str(event.new_id)
    assert (made.before, made.after, made.count, made.tie_total) == (event.tokens_before, event.tokens_after, event.count,
                                                                     event.tie_total)
    assert made.marked == ("tie-lowest-ids" if event.tied else "count")
    assert [count for _, count in made.then] == [c.count for c in trainer.candidates(4)]
    bench.undo()
    redo = code_step(bench)  # back at 0: the recorded merge, its length after known
    assert not redo.made and redo.pair == event.pair and redo.after == event.tokens_after


def test_the_end_names_its_stop_line():
    bench = workbench("aaab aaab", pretokenizer="simple", max_merges=1)
    bench.step()
    assert code_step(bench).stop == "stop-merges"
    bench = workbench("ab cd", pretokenizer="simple")
    step = code_step(bench)
    assert step.pair is None and step.marked is None and step.stop == "stop-min-frequency" and step.stop_text


def test_a_manual_merge_is_marked_as_forced():
    bench = workbench("aaab aaab abab", pretokenizer="simple")
    bench.force((97, 98))
    step = code_step(bench)
    assert step.marked == "forced" and "manual" in step.why


def test_a_replay_marks_apply_and_names_the_files_next_merge():
    from engine import Trainer

    trainer = Trainer("the cat sat on the mat. " * 20, TrainConfig(max_merges=10, min_frequency=1))
    trainer.train()
    tok = trainer.tokenizer()
    bench = Workbench(LoadedCorpus.open("sample:low-lower-lowest.txt", "bytes"), TrainConfig(), script=tok)
    ahead = code_step(bench)
    assert ahead.marked == "apply" and ahead.pair == tok.merges[0] and "best_pair is not asked" in ahead.why
    bench.step()
    made = code_step(bench)
    assert made.made and made.marked == "apply" and made.pair == tok.merges[0]
    upcoming = bench.trainer.scripted_next()
    assert [count for _, count in made.then] == [upcoming[1]]  # the file's next merge, not the top pair
