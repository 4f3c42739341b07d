"""Training Chinese as ``bpe-lab train`` does (issue 43): the corpus counted block by block, the
trainer built from the counted chunks (at the characters base, laid out straight from them), no
undo log. On tang_2000.txt, both bases: the compiled path's merges are the pure path's, and are
the merges bpe-lab made before the compiled counter and layout (main at 0a7d7b3, by digest)."""

from __future__ import annotations

import hashlib
import json

import pytest
from helpers import shared_corpus

from engine import TrainConfig, Trainer, count_corpus
from engine.native.door import COMPILED, PURE, WHY_PURE, using
from engine.text.pretokenize import pretokenizer_for

#: The vocabulary size trained to at each base, and the sha256 of ``json.dumps(merges)`` (first 16
#: hex digits) with the merge count, as main at 0a7d7b3 wrote them: ``bpe-lab train tang_2000.txt
#: --vocab-size SIZE --base BASE -o OUT`` (its "merges").
BEFORE = {"chars": (5000, "8a6977f7d20f70f0", 1534), "bytes": (2500, "82a4570185480018", 2244)}


def merges_of(path, base: str) -> list[list[int]]:
    config = TrainConfig(base=base, vocab_size=BEFORE[base][0])
    pre = pretokenizer_for(config)
    corpus = count_corpus(path, pre, base=base, processes=2)
    trainer = Trainer("", config, pretokenizer=pre, chunks=corpus.chunks, undo_log=False)
    trainer.train()
    return [list(pair) for pair in trainer.tokenizer().merges]


@pytest.mark.parametrize("base", ["chars", "bytes"])
def test_tang_2000_trains_the_merges_of_before_on_both_paths(base):
    path = shared_corpus("tang_2000.txt")
    paths = [PURE] if COMPILED is None else [PURE, COMPILED]
    made = []
    for native in paths:
        with using(native):
            made.append(merges_of(path, base))
    digest = hashlib.sha256(json.dumps(made[0]).encode()).hexdigest()[:16]
    assert (digest, len(made[0])) == BEFORE[base][1:]
    assert all(merges == made[0] for merges in made)


@pytest.mark.skipif(COMPILED is None, reason=f"no compiled core here: {WHY_PURE}")
def test_the_compiled_count_of_tang_2000_is_the_pure_one():
    """Counted chunks, counts and their order of first appearance, both bases."""
    path = shared_corpus("tang_2000.txt")
    for base in ("chars", "bytes"):
        pre = pretokenizer_for(TrainConfig(base=base))
        counted = []
        for native in (PURE, COMPILED):
            with using(native):
                counted.append(list(count_corpus(path, pre, base=base).chunks.items()))
        assert counted[0] == counted[1]
