"""What docs/bad-input.md's rows check beyond their message: a file kept, a round trip, the
corpus unchanged, nothing written. tests/app/test_bad_input.py runs them after a row's command."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest

import tui.cli.commands as cli
from engine import TrainConfig, Trainer
from engine.encode.tokenizer import load_tokenizer
from engine.formats import export_tokenizer, load_any

from bad_input_areas import SETUP_COUNTS, let_go
from bad_input_files import CORPUS
from bad_input_tables import VERIFY_TABLES, _nothing_written

# -- checks beyond the message ----------------------------------------------------------------


def _round_trip(tmp: Path) -> None:
    """CRLF, CR and LF survive encode and decode exactly, through the command line."""
    text = (tmp / "mixed.txt").read_bytes().decode("utf-8")
    out = io.StringIO()
    assert cli.main(["encode", "-t", "tok.json", "--json", text], out=out, err=io.StringIO()) == 0
    ids = json.loads(out.getvalue())
    assert len(ids) < len(text)  # it learned something
    out = io.StringIO()
    assert cli.main(["decode", "-t", "tok.json", json.dumps(ids)], out=out, err=io.StringIO()) == 0
    assert out.getvalue() == text


def _old_file_kept(tmp: Path) -> None:
    assert (tmp / "tok.json").read_text() == "old"
    assert sorted(p.name for p in tmp.iterdir()) == ["c.txt", "tok.json"]  # no temp file left


def _old_pair_kept(tmp: Path) -> None:
    assert sorted(p.name for p in (tmp / "pair").iterdir()) == ["merges.txt", "vocab.json"]  # no temp file
    export_tokenizer(load_tokenizer(tmp / "tok.json"), "gpt2", tmp / "again")
    for name in ("vocab.json", "merges.txt"):  # as the setup's export wrote them
        assert (tmp / "pair" / name).read_bytes() == (tmp / "again" / name).read_bytes()


VERIFY: dict[str, Callable[[Path], None]] = {
    "corpus-line-endings": _round_trip,
    "merges-zero": lambda tmp: (load_tokenizer(tmp / "tok.json").merges == [] or pytest.fail("merges written")),
    "corpus-whitespace": lambda tmp: load_tokenizer(tmp / "tok.json").merges,
    "write-disk-full": _old_file_kept,
    "write-permission": _old_file_kept,
    "export-pair-disk-full": _old_pair_kept,
    "write-device": lambda tmp: Path("/dev/full").is_char_device() or pytest.fail("/dev/full was replaced"),
}


def _stopped_at_the_bound(tmp: Path) -> None:
    """Training stopped before 30,000 merges, at the bound, and bpe-lab reads what it wrote."""
    from engine.config import MAX_VOCAB_BYTES

    tok = load_tokenizer(tmp / "tok.json")
    held = sum(map(len, tok.pieces))
    assert 1000 < len(tok.merges) < 30_000
    assert MAX_VOCAB_BYTES - 3 * 20_000 < held <= MAX_VOCAB_BYTES  # one more merge would pass it
    assert tok.pieces[-1] == "".join(chr(0x4E00 + i) for i in range(len(tok.merges) + 1)).encode("utf-8")


def _specials_found(tmp: Path) -> None:
    out = io.StringIO()
    assert cli.main(["encode", "-t", "specials.json", "--json", "<s7>hi <s199999><s1999999>"], out=out, err=io.StringIO()) == 0
    assert json.loads(out.getvalue()) == [263, 104, 105, 32, 256 + 199_999, *b"<s1999999>"]  # no such special
    exported = load_any(tmp / "tokenizer.json")
    assert exported.encode("<s5>") == [256 + 5] and exported.tokenizer.vocab_size == 256 + 200_000


VERIFY_BOUNDS: dict[str, Callable[[Path], None]] = {
    "train-chained-merges": _stopped_at_the_bound,
    "tok-many-specials": _specials_found,
}


def _trained_on_the_corpus(pretokenizer: str) -> Callable[[Path], None]:
    """tok.json holds the merges that training on the same text from a file makes."""

    def check(tmp: Path) -> None:
        trainer = Trainer(CORPUS, TrainConfig(max_merges=5, pretokenizer=pretokenizer))
        trainer.train()
        assert load_tokenizer(tmp / "tok.json").merges == trainer.tokenizer().merges

    return check


def _corpus_kept(tmp: Path) -> None:
    assert (tmp / "c.txt").read_text(encoding="utf-8") == CORPUS
    assert not [p.name for p in tmp.iterdir() if p.name.startswith(".")]  # no temp file left


VERIFY_STREAMS: dict[str, Callable[[Path], None]] = {
    "stream-fifo": _trained_on_the_corpus("gpt2"),
    "stream-stdin": _trained_on_the_corpus("gpt2"),
    "stream-stdin-whole": _trained_on_the_corpus("none"),
    "output-is-corpus": _corpus_kept,
    "output-hard-link": _corpus_kept,
    "output-symlink": lambda tmp: (_corpus_kept(tmp), (tmp / "alias.txt").is_symlink() or pytest.fail("link replaced")),
    "output-is-stdin": _corpus_kept,
    "export-onto-tokenizer": lambda tmp: load_tokenizer(tmp / "tok.json").merges,
    "export-new-folder-disk-full": lambda tmp: not (tmp / "new").exists() or pytest.fail("an empty folder is left"),
    "output-trailing-slash": lambda tmp: sorted(p.name for p in tmp.iterdir()) == ["c.txt"] or pytest.fail("written"),
    "export-trailing-slash-file": lambda tmp: not (tmp / "newdir").exists() or pytest.fail("written"),
    "export-trailing-slash-folder": lambda tmp: load_any(tmp / "newdir").tokenizer.merges
                                                == load_tokenizer(tmp / "tok.json").merges or pytest.fail("not the same"),
    "output-read-only": lambda tmp: ((tmp / "tok.json").read_text() == "old" and (tmp / "tok.json").stat().st_mode & 0o777 == 0o444)
                                    or pytest.fail("the read-only file was replaced"),
    "app-session-is-corpus": _corpus_kept,
    "app-session-is-tokenizer": lambda tmp: load_tokenizer(tmp / "tok.json").merges,
}


VERIFY_SESSIONS: dict[str, Callable[[Path], None]] = {
}


def _encodes_as_trained(name: str) -> Callable[[Path], None]:
    """The file train wrote under a name of another format is read back as what it is (native)."""

    def verify(tmp: Path) -> None:
        out, err = io.StringIO(), io.StringIO()
        assert cli.main(["encode", "-t", name, "--json", "the cat sat"], out=out, err=err) == 0, err.getvalue()
        assert err.getvalue() == ""
        trainer = Trainer(CORPUS, TrainConfig(max_merges=10))
        trainer.train()
        assert json.loads(out.getvalue()) == trainer.tokenizer().encode("the cat sat")

    return verify


def _same_hf(tmp: Path) -> None:
    assert json.loads((tmp / "tokenizer.json").read_text("utf-8")) == json.loads((tmp / "myvocab.json").read_text("utf-8"))


def _empty_token_skipped(tmp: Path) -> None:
    vocab = json.loads((tmp / "tokenizer.json").read_text("utf-8"))["model"]["vocab"]
    assert len(vocab) == 259 and "" not in vocab and 259 not in vocab.values()


def _renumbered(tmp: Path) -> None:
    tok = load_tokenizer(tmp / "tok.json")
    assert tok.merges == [(116, 104), (256, 101)] and tok.specials == {"<pad>": 258}


VERIFY_FIGURES: dict[str, Callable[[Path], None]] = {
    "export-no-matplotlib": lambda tmp: sorted(p.name for p in (tmp / "out").iterdir()) == sorted(
        f"{n}.{s}" for n in ("curve", "composition", "merges") for s in ("csv", "json")) or pytest.fail("not the tables"),
    "plot-no-matplotlib": lambda tmp: not (tmp / "curve.svg").exists() or pytest.fail("a figure was written"),
}


VERIFY_FORMATS: dict[str, Callable[[Path], None]] = {
    "format-named-vocab-json": _encodes_as_trained("my_vocab.json"),
    "format-named-merges-txt": _encodes_as_trained("tok-merges.txt"),
    "format-named-tiktoken-json": _encodes_as_trained("x.tiktoken.json"),
    "format-hf-renamed": _same_hf,
    "format-tiktoken-empty-token": _empty_token_skipped,
    "format-special-surrogate-option": lambda tmp: not (tmp / "tok.json").exists() or pytest.fail("trained anyway"),
    "format-native-renumbered": _renumbered,
}


VERIFY_SERVE: dict[str, Callable[[Path], None]] = {
    "serve-port-in-use": let_go,
}


def read_counts_of(path: Path) -> None:
    """The table is still the one the setup wrote, whole."""
    from engine.corpus import read_counts

    assert read_counts(path).chunks


VERIFY_COUNTS: dict[str, Callable[[Path], None]] = {
    key: _nothing_written("c.parquet" if key.startswith("counts-no") or "scheduler" in key or "vanish" in key or "glob" in key
                          else ("all.parquet" if "merge" in key else "tok.json"))
    for key in SETUP_COUNTS if key not in ("counts-table-corrupt", "counts-table-foreign")
}
VERIFY_COUNTS["counts-output-in-folder"] = lambda tmp: read_counts_of(tmp / "shards" / "all.parquet")
VERIFY_COUNTS["counts-table-corrupt"] = _nothing_written("tok.json")
VERIFY_COUNTS["counts-table-foreign"] = _nothing_written("tok.json")


for _area in (VERIFY_BOUNDS, VERIFY_STREAMS, VERIFY_SESSIONS, VERIFY_FORMATS, VERIFY_FIGURES, VERIFY_SERVE, VERIFY_COUNTS,
              VERIFY_TABLES):
    VERIFY.update(_area)
