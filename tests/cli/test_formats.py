"""Tokenizer file formats without the libraries: round trips, detection, id mapping, seed 001's
own code, recovering merges from ranks, and malformed files (one error line, exit code 2)."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import pytest
from helpers import sample_text

from engine import Tokenizer, TrainConfig, Trainer
from engine.formats import FORMATS, detect_format, export_tokenizer, load_any, recover_merges, written_paths
from engine.formats.hf import tokenizer_json
from engine.text.bytelevel import hf_byte_rank, token_to_unicode
from engine.text.pretokenize import PreTokenizer
from tui.cli.commands import main

TEXTS = [
    "The baker opens the bakery at six. It's 7:45 already!",
    "Grüße aus München, Köln und Düsseldorf! Straßenbahnhaltestelle.",
    "分词器不认识汉字，它只认识字节。今天天气很好。",
    "emoji 😀👍🏽 family 👨‍👩‍👧 flags 🇩🇪",
    "def merge(ids, pair):\n    out = []\n\tfor i in ids:\n        out.append(i)  \n\n    return out\r\n",
    "1234567890 12 3 0.5 ٣٤٥ 2024-11-30",
    "a   b\n\n\n  c \t\t d    \r\n\r\n  ",
    "<eos>between<pad> specials <eos><eos>",
    "",
]
SPECIALS = ("<pad>", "<eos>")


def trained(**options) -> Tokenizer:
    config = TrainConfig(**{"vocab_size": 700, "min_frequency": 1, **options})
    trainer = Trainer(sample_text("workshop.txt"), config)
    for _ in trainer.run():
        pass
    return trainer.tokenizer()


CONFIGS = {
    "gpt2": dict(pretokenizer="gpt2", specials=SPECIALS),
    "gpt4": dict(pretokenizer="gpt4", specials=SPECIALS),
    "simple": dict(pretokenizer="simple"),
    "none": dict(pretokenizer="none", vocab_size=400),
    "custom-skipping": dict(pretokenizer="custom", pattern=r"\p{L}+|\d"),
    "gpt2-digits": dict(pretokenizer="gpt2", split_digits=True),
    "chars-seed001": dict(base="chars", pretokenizer="none", no_merge_newline=True, tie_rule="first-seen"),
    "chars-gpt4": dict(base="chars", pretokenizer="gpt4", specials=SPECIALS),
}


def target(tmp_path: Path, fmt: str) -> Path:
    return tmp_path / {"gpt2": "pair", "tiktoken": "tok.tiktoken"}.get(fmt, f"{fmt}.json")


def cases():
    for name, options in CONFIGS.items():
        for fmt in FORMATS:
            chars = options.get("base") == "chars"
            if chars and fmt in ("gpt2", "tiktoken"):
                continue
            if fmt == "seed001" and not (chars and options["pretokenizer"] == "none"):
                continue
            if fmt == "tiktoken" and options.get("split_digits"):
                continue
            if fmt == "subword-nmt":
                continue  # words ending in </w> only: tests/engine/test_subword_nmt_codes.py
            yield name, fmt


@pytest.fixture(scope="module")
def tokenizers_by_config():
    return {name: trained(**options) for name, options in CONFIGS.items()}


@pytest.mark.parametrize("name,fmt", list(cases()))
def test_round_trip_keeps_merges_and_encodings(tmp_path, tokenizers_by_config, name, fmt):
    tok = tokenizers_by_config[name]
    path = target(tmp_path, fmt)
    export_tokenizer(tok, fmt, path)
    for written in written_paths(fmt, path):
        assert written.is_file()
    # The pair holds no pre-tokenizer: it is given at import (the CLI's --pattern-name).
    given = tok.pretokenizer if fmt == "gpt2" else None
    imported = load_any(path, pretokenizer=given)
    back = imported.tokenizer
    assert imported.format == fmt
    assert imported.file_ids is None, "files bpe-lab writes keep bpe-lab's ids"
    assert back.merges == tok.merges
    assert back.pieces == tok.pieces
    assert back.specials == tok.specials
    assert back.alphabet == tok.alphabet
    if fmt != "seed001":
        assert back.pretokenizer == tok.pretokenizer
    for text in TEXTS:
        assert back.encode(text) == tok.encode(text), text
        assert imported.encode(text) == tok.encode(text)
        assert imported.decode(tok.encode(text)) == tok.decode(tok.encode(text))


@pytest.mark.parametrize(
    "name,fmt,fragment",
    [
        ("chars-gpt4", "gpt2", "chars base"),
        ("chars-gpt4", "tiktoken", "chars base"),
        ("chars-gpt4", "seed001", "no pre-tokenizer"),
        ("gpt2", "seed001", "chars base"),
        ("gpt2-digits", "tiktoken", "one pattern"),
    ],
)
def test_formats_that_cannot_hold_a_tokenizer_say_why(tmp_path, tokenizers_by_config, name, fmt, fragment):
    with pytest.raises(ValueError, match=fragment):
        export_tokenizer(tokenizers_by_config[name], fmt, target(tmp_path, fmt))
    assert list(tmp_path.iterdir()) == []


def test_gpt2_pair_warns_when_the_pretokenizer_is_not_gpt2(tmp_path, tokenizers_by_config):
    notes = export_tokenizer(tokenizers_by_config["gpt4"], "gpt2", tmp_path / "pair")
    assert len(notes) == 1 and "readers assume GPT-2's" in notes[0] and "gpt4" in notes[0]
    assert load_any(tmp_path / "pair").tokenizer.pretokenizer == PreTokenizer("gpt2")


# -- seed 001's own code ------------------------------------------------------------------------


def seed_merge(ids, pair, new_id):
    result, i = [], 0
    while i < len(ids):
        if tuple(ids[i:i + 2]) == tuple(pair):
            result.append(new_id)
            i += 2
        else:
            result.append(ids[i])
            i += 1
    return result


class SeedBPE:
    """Seed 001's tokenizer.py BPE class, verbatim apart from the merge() name."""

    def __init__(self, vocab, merges):
        self.vocab, self.merges = vocab, merges
        self.chars = {c: i for i, c in enumerate(vocab) if len(c) == 1}

    @classmethod
    def train(cls, text, count):
        from collections import Counter

        vocab = ['\ufffd'] + sorted(set(text) - {'\ufffd'})
        ids = [vocab.index(c) for c in text]
        merges = []
        for _ in range(count):
            pairs = Counter((a, b) for a, b in zip(ids, ids[1:]) if '\n' not in vocab[a] + vocab[b])
            if not pairs:
                break
            pair, frequency = pairs.most_common(1)[0]
            if frequency < 2:
                break
            new_id = len(vocab)
            vocab.append(vocab[pair[0]] + vocab[pair[1]])
            merges.append([list(pair), new_id])
            ids = seed_merge(ids, pair, new_id)
        return cls(vocab, merges)

    def encode(self, text):
        ids = [self.chars.get(c, 0) for c in text]
        for pair, new_id in self.merges:
            ids = seed_merge(ids, pair, new_id)
        return ids

    def state(self):
        return {'vocab': self.vocab, 'merges': self.merges}


def test_seed001_file_loads_in_the_seeds_code(tmp_path, tokenizers_by_config):
    tok = tokenizers_by_config["chars-seed001"]
    export_tokenizer(tok, "seed001", tmp_path / "tokenizer.json")
    seed = SeedBPE(**json.loads((tmp_path / "tokenizer.json").read_text(encoding="utf-8")))
    for text in TEXTS + [sample_text("workshop.txt")[:800]]:
        if "<" not in text:
            assert seed.encode(text) == tok.encode(text)


def test_seed001_file_written_by_the_seeds_code_imports(tmp_path):
    text = sample_text("workshop.txt")
    seed = SeedBPE.train(text, 60)
    (tmp_path / "tokenizer.json").write_text(json.dumps(seed.state(), ensure_ascii=False), encoding="utf-8")
    imported = load_any(tmp_path / "tokenizer.json")
    assert imported.format == "seed001" and imported.file_ids is None
    ours = trained(base="chars", pretokenizer="none", no_merge_newline=True, tie_rule="first-seen",
                   vocab_size=None, max_merges=60, min_frequency=2)
    assert imported.tokenizer.merges == ours.merges
    for sample in TEXTS:
        assert imported.encode(sample) == seed.encode(sample)


# -- detection and id mapping -------------------------------------------------------------------


def test_detect_format_by_name_and_content(tmp_path, tokenizers_by_config):
    tok = tokenizers_by_config["gpt2"]
    for fmt in ("hf", "gpt2", "tiktoken", "native"):
        export_tokenizer(tok, fmt, target(tmp_path, fmt))
    assert detect_format(tmp_path / "hf.json") == "hf"
    assert detect_format(tmp_path / "native.json") == "native"
    assert detect_format(tmp_path / "pair") == "gpt2"
    assert detect_format(tmp_path / "pair" / "vocab.json") == "gpt2"
    assert detect_format(tmp_path / "pair" / "merges.txt") == "gpt2"
    assert detect_format(tmp_path / "tok.tiktoken") == "tiktoken"
    assert detect_format(tmp_path / "tok.tiktoken.json") == "tiktoken"
    renamed = tmp_path / "ranks.bin"
    renamed.write_bytes((tmp_path / "tok.tiktoken").read_bytes())
    assert detect_format(renamed) == "tiktoken"
    seed = tmp_path / "s.json"
    seed.write_text('{"vocab": ["\\ufffd", "a"], "merges": []}', encoding="utf-8")
    assert detect_format(seed) == "seed001"
    # the sidecar sits beside the rank file, so either path loads the same tokenizer
    assert load_any(tmp_path / "tok.tiktoken.json").tokenizer.merges == tok.merges


def test_a_file_with_its_own_id_order_keeps_it(tmp_path, tokenizers_by_config):
    """HF's trainer numbers specials first, then the byte alphabet by character, then merges:
    bpe-lab reads such ids, encodes and decodes in them, and writes them back out."""
    tok = tokenizers_by_config["gpt2"]
    rank = hf_byte_rank()
    specials = len(tok.specials)
    ids = [specials + rank[b] for b in range(256)]
    ids += [specials + 256 + k for k in range(len(tok.merges))]
    ids += list(range(specials))
    path = tmp_path / "hf-order.json"
    path.write_text(json.dumps(tokenizer_json(tok, ids), ensure_ascii=False), encoding="utf-8")
    imported = load_any(path)
    assert imported.file_ids == ids
    assert imported.tokenizer.merges == tok.merges
    text = TEXTS[0] + TEXTS[7]
    assert imported.encode(text) == [ids[i] for i in tok.encode(text)]
    assert imported.decode(imported.encode(text)) == text
    assert imported.encode("<pad>") == [0]
    export_tokenizer(imported.tokenizer, "hf", tmp_path / "again.json", ids=imported.file_ids)
    assert json.loads((tmp_path / "again.json").read_text(encoding="utf-8"))["model"]["vocab"] == \
        json.loads(path.read_text(encoding="utf-8"))["model"]["vocab"]
    with pytest.raises(ValueError, match="not in"):
        imported.decode([len(ids) + 5])


def test_two_merges_making_one_token_fold_to_one_id(tmp_path):
    a, b, c = ord("a"), ord("b"), ord("c")
    tok = Tokenizer([(a, b), (256, c), (b, c), (a, 258)], pretokenizer=PreTokenizer("gpt2"))
    assert tok.pieces[257] == tok.pieces[259] == b"abc"
    notes = export_tokenizer(tok, "hf", tmp_path / "t.json")
    assert any("repeat an earlier token's bytes" in n for n in notes)
    imported = load_any(tmp_path / "t.json")
    assert imported.tokenizer.merges == tok.merges
    assert imported.file_ids[259] == 257 and any("already made" in w for w in imported.warnings)


# -- tiktoken: merges from ranks ----------------------------------------------------------------


def test_recover_merges_rebuilds_trained_pairs(tokenizers_by_config):
    tok = tokenizers_by_config["gpt4"]
    ranks = {piece: i for i, piece in enumerate(tok.pieces)}
    merges, notes = recover_merges(ranks)
    assert notes == []
    assert merges == [(tok.pieces[x], tok.pieces[y]) for x, y in tok.merges]


def write_ranks(path: Path, tokens: list[bytes]) -> None:
    path.write_text("".join(f"{base64.b64encode(t).decode()} {i}\n" for i, t in enumerate(tokens)), encoding="ascii")


def recovered(path: Path, tokens: list[bytes]):
    write_ranks(path, [bytes([i]) for i in range(256)] + tokens)
    imported = load_any(path, pretokenizer=PreTokenizer("none"))
    tok = imported.tokenizer
    return [(tok.pieces[x], tok.pieces[y]) for x, y in tok.merges], imported.warnings


def test_recovery_follows_tiktokens_route_and_says_when_it_is_ambiguous(tmp_path):
    # 'abc' is both ab+c and a+bc; the ranks decide which pair tiktoken meets first.
    merges, warnings = recovered(tmp_path / "a.tiktoken", [b"bc", b"ab", b"abc"])
    assert merges == [(b"b", b"c"), (b"a", b"b"), (b"a", b"bc")] and warnings == []
    merges, warnings = recovered(tmp_path / "b.tiktoken", [b"ab", b"bc", b"abc"])
    assert merges == [(b"a", b"b"), (b"b", b"c"), (b"ab", b"c")] and warnings == []
    # 'abcd' ranks above ab, cd and bcd, but tiktoken's route leaves a|b|cd before bcd can
    # form... here ab comes first: ab|cd, and abcd = ab + cd is recovered.
    merges, warnings = recovered(tmp_path / "c.tiktoken", [b"ab", b"cd", b"bcd", b"abcd"])
    assert merges[-1] == (b"ab", b"cd") and warnings == []
    # 'xyz' cannot be built from two lower-ranked tokens at all: ambiguous, so a whole-piece
    # token, which only a whole matching piece gives (as in tiktoken).
    merges, warnings = recovered(tmp_path / "d.tiktoken", [b"ab", b"xyz", b"abc"])
    assert merges == [(b"a", b"b"), (b"ab", b"c")]
    assert len(warnings) == 1 and "1 token(s) (first: b'xyz') are whole-piece tokens" in warnings[0]
    imported = load_any(tmp_path / "d.tiktoken", pretokenizer=PreTokenizer("none"))
    assert imported.tokenizer.whole_pieces == [b"xyz"]
    assert imported.file_ids[256:] == [256, 258, 257]  # the ranks: merges, then the whole piece
    assert imported.encode("abc") == [258]
    assert imported.encode("xyz") == [257]
    assert imported.encode("xyzxyz") == [ord("x"), ord("y"), ord("z")] * 2  # not a whole piece: merged


# -- malformed files: one clear line, exit code 2 ---------------------------------------------

HF_CHARS = {"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "c": 2, "ab": 3, "abc": 4}, "merges": ["a b", "ab c"]}}


def hf_with(**model) -> str:
    data = json.loads(json.dumps(HF_CHARS))
    data["model"].update(model)
    return json.dumps(data)


BYTE_ALPHABET = {token_to_unicode(bytes([b])): b for b in range(256)}
MALFORMED = {
    "wordpiece": ({"t.json": json.dumps({"model": {"type": "WordPiece", "vocab": {"a": 0}, "unk_token": "[UNK]"}})}, "WordPiece model is not supported"),
    "unigram": ({"t.json": json.dumps({"model": {"type": "Unigram", "vocab": [["a", -1.0]]}})}, "Unigram model is not supported"),
    "invalid-json": ({"t.json": '{"model": {"type": "BPE", '}, "invalid JSON at line 1"),
    "unknown-json": ({"t.json": "[1, 2, 3]"}, "not a tokenizer file"),
    "hf-negative-id": ({"t.json": hf_with(vocab={"a": -1, "b": 1})}, "not a non-negative integer"),
    "hf-same-id": ({"t.json": hf_with(vocab={"a": 0, "b": 0})}, "given to both"),
    "hf-later-merge": ({"t.json": hf_with(merges=["ab c", "a b"])}, "only a later merge makes"),
    "hf-duplicate-merge": ({"t.json": hf_with(merges=["a b", "a b"])}, "repeats merge 1"),
    "hf-merge-not-in-vocab": ({"t.json": hf_with(merges=["a b", "b c"])}, "which is not in the vocabulary"),
    "hf-pretokenizer": ({"t.json": json.dumps({**HF_CHARS, "pre_tokenizer": {"type": "Metaspace"}})}, "Metaspace pre-tokenizer is not supported"),
    "hf-prefix": ({"t.json": hf_with(continuing_subword_prefix="##")}, "its right part lacks the subword prefix '##'"),
    "seed-out-of-range": ({"t.json": json.dumps({"vocab": ["\ufffd", "a", "b", "ab"], "merges": [[[1, 9], 3]]})}, "outside the vocab"),
    "seed-later-id": ({"t.json": json.dumps({"vocab": ["\ufffd", "a", "b", "aab", "ab"], "merges": [[[1, 4], 3], [[1, 2], 4]]})}, "only a later merge makes"),
    "seed-self": ({"t.json": json.dumps({"vocab": ["\ufffd", "a", "b", "ab"], "merges": [[[1, 3], 3]]})}, "it makes itself"),
    "seed-duplicate": ({"t.json": json.dumps({"vocab": ["\ufffd", "a", "b", "ab", "ab"], "merges": [[[1, 2], 3], [[1, 2], 4]]})}, "repeats merge 1"),
    "seed-contradiction": ({"t.json": json.dumps({"vocab": ["\ufffd", "a", "b", "ba"], "merges": [[[1, 2], 3]]})}, "but vocab[3] is 'ba'"),
    "seed-shape": ({"t.json": json.dumps({"vocab": ["\ufffd", "a"], "merges": [[1, 1]]})}, "not [[left, right], id]"),
    "native-later-id": ({"t.json": json.dumps({"format": "bpe-lab", "version": 1, "base": "bytes", "merges": [[257, 97], [97, 98]]})}, "refers to id 257, which only a later merge makes"),
    "native-self": ({"t.json": json.dumps({"format": "bpe-lab", "version": 1, "base": "bytes", "merges": [[256, 97]]})}, "refers to the id it makes itself (256)"),
    "gpt2-missing-merges": ({"vocab.json": json.dumps(BYTE_ALPHABET)}, "no such file"),
    "gpt2-bad-line": ({"vocab.json": json.dumps(BYTE_ALPHABET), "merges.txt": "#version: 0.2\na b c\n"}, "line 2 'a b c' is not two tokens"),
    "gpt2-not-in-vocab": ({"vocab.json": json.dumps(BYTE_ALPHABET), "merges.txt": "#version: 0.2\na b\n"}, "'ab', which is not in the vocabulary"),
    "tiktoken-bad-line": ({"t.tiktoken": "YQ== 0\n!!!! 1\n"}, "line 2 is not 'base64-token rank'"),
    "tiktoken-duplicate-rank": ({"t.tiktoken": "YQ== 0\nYg== 0\n"}, "gives rank 0 again"),
    "tiktoken-no-pattern": ({"t.tiktoken": "YQ== 0\nYg== 1\n"}, "holds no pattern: give --pattern-name"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_files_give_one_line_and_exit_2(tmp_path, case):
    files, fragment = MALFORMED[case]
    for name, content in files.items():
        (tmp_path / name).write_text(content, encoding="utf-8")
    path = tmp_path / next(iter(files))
    for command in (["encode", "-t", str(path), "abc"], ["export", "-t", str(path), "--format", "native", "-o", str(tmp_path / "o.json")]):
        out, err = io.StringIO(), io.StringIO()
        assert main(command, out=out, err=err) == 2, case
        message = err.getvalue()
        assert message.count("\n") == 1 and message.startswith("bpe-lab: error: "), message
        assert str(tmp_path) in message and fragment in message, message
        assert out.getvalue() == ""
    assert not (tmp_path / "o.json").exists()


def test_pattern_name_is_refused_for_formats_with_their_own(tmp_path, tokenizers_by_config):
    tokenizers_by_config["gpt2"].save(tmp_path / "t.json")
    err = io.StringIO()
    assert main(["encode", "-t", str(tmp_path / "t.json"), "--pattern-name", "gpt4", "x"], out=io.StringIO(), err=err) == 2
    assert "has its own" in err.getvalue()


def test_cli_export_writes_each_format_and_encodes_alike(tmp_path, tokenizers_by_config):
    source = tmp_path / "t.json"
    tokenizers_by_config["gpt4"].save(source)
    expected = tokenizers_by_config["gpt4"].encode(TEXTS[4])
    for fmt in ("hf", "gpt2", "tiktoken", "native"):
        err = io.StringIO()
        out_path = target(tmp_path, fmt)
        assert main(["export", "-t", str(source), "--format", fmt, "-o", str(out_path)], out=io.StringIO(), err=err) == 0
        assert err.getvalue().splitlines()[-1].startswith("bpe-lab: wrote ")
        extra = ["--pattern-name", "gpt4"] if fmt == "gpt2" else []
        out = io.StringIO()
        assert main(["encode", "-t", str(out_path), *extra, "--json", TEXTS[4]], out=out, err=io.StringIO()) == 0
        assert json.loads(out.getvalue()) == expected
        out = io.StringIO()
        assert main(["decode", "-t", str(out_path), *extra, json.dumps(expected)], out=out, err=io.StringIO()) == 0
        assert out.getvalue() == TEXTS[4]
    err = io.StringIO()
    assert main(["export", "-t", str(source), "--format", "seed001", "-o", str(tmp_path / "s.json")], out=io.StringIO(), err=err) == 2
    assert err.getvalue().count("\n") == 1 and "chars base" in err.getvalue()


# -- the content decides the format (issue 11) --------------------------------------------------


def encode_cli(path: Path, text: str, *extra: str) -> list[int]:
    out, err = io.StringIO(), io.StringIO()
    assert main(["encode", "-t", str(path), *extra, "--json", text], out=out, err=err) == 0, err.getvalue()
    return json.loads(out.getvalue())


@pytest.mark.parametrize("name", ["my_vocab.json", "vocab.json", "tok-merges.txt", "merges.txt", "x.tiktoken.json",
                                  "x.tiktoken", "tokenizer.json", "noname"])
def test_a_native_file_loads_under_any_name(tmp_path, tokenizers_by_config, name):
    tok = tokenizers_by_config["gpt2"]
    tok.save(tmp_path / name)
    imported = load_any(tmp_path / name)
    assert imported.format == "native" and imported.warnings == []
    assert encode_cli(tmp_path / name, TEXTS[0] + TEXTS[7]) == tok.encode(TEXTS[0] + TEXTS[7])


def test_other_formats_load_under_other_names(tmp_path, tokenizers_by_config):
    tok = tokenizers_by_config["gpt2"]
    text = TEXTS[0] + TEXTS[2]
    expected = tok.encode(text)
    export_tokenizer(tok, "hf", tmp_path / "tokenizer.json")
    export_tokenizer(tok, "gpt2", tmp_path / "pair")
    export_tokenizer(tok, "tiktoken", tmp_path / "tok.tiktoken")
    renamed = {
        "myvocab.json": (tmp_path / "tokenizer.json", "hf"),          # an HF file under a GPT-2 half's name
        "merges.txt": (tmp_path / "tokenizer.json", "hf"),
        "ranks.tiktoken.json": (tmp_path / "tokenizer.json", "hf"),
    }
    for name, (source, fmt) in renamed.items():
        (tmp_path / name).write_bytes(source.read_bytes())
        assert detect_format(tmp_path / name) == fmt
        assert load_any(tmp_path / name).encode(text) == expected
    # each half of a pair under another name finds its partner beside it under the usual name
    (tmp_path / "pair" / "v.json").write_bytes((tmp_path / "pair" / "vocab.json").read_bytes())
    (tmp_path / "pair" / "rules.txt").write_bytes((tmp_path / "pair" / "merges.txt").read_bytes())
    for half in ("v.json", "rules.txt"):
        assert detect_format(tmp_path / "pair" / half) == "gpt2"
        assert encode_cli(tmp_path / "pair" / half, text) == expected
    # a merges.txt without its #version line is still one, beside its vocab.json
    lines = (tmp_path / "pair" / "merges.txt").read_text(encoding="utf-8").splitlines(keepends=True)
    (tmp_path / "pair" / "plain.txt").write_text("".join(lines[1:]), encoding="utf-8")
    assert encode_cli(tmp_path / "pair" / "plain.txt", text) == expected
    # a rank file named like a GPT-2 half: its lines say it is ranks
    (tmp_path / "vocab.json").write_bytes((tmp_path / "tok.tiktoken").read_bytes())
    (tmp_path / "vocab.json.json").write_bytes((tmp_path / "tok.tiktoken.json").read_bytes())
    assert detect_format(tmp_path / "vocab.json") == "tiktoken"
    assert encode_cli(tmp_path / "vocab.json", text) == expected
    # a sidecar under a name without .json cannot say where its ranks are
    (tmp_path / "side").write_bytes((tmp_path / "tok.tiktoken.json").read_bytes())
    with pytest.raises(ValueError, match="is a tiktoken sidecar"):
        load_any(tmp_path / "side")


def test_gpt2s_own_vocab_json_is_not_taken_for_native(tmp_path):
    """GPT-2's vocabulary holds the tokens "format" and "model": it is still a vocab.json."""
    vocab = {token_to_unicode(bytes([b])): b for b in range(256)}
    vocab.update({"format": 256, "model": 257, "vocab": 258, "merges": 259, "pat_str": 260})
    (tmp_path / "vocab.json").write_text(json.dumps(vocab), encoding="utf-8")
    (tmp_path / "merges.txt").write_text("#version: 0.2\n", encoding="utf-8")
    assert detect_format(tmp_path / "vocab.json") == "gpt2"
    imported = load_any(tmp_path / "vocab.json")
    assert set(imported.tokenizer.specials) == {"format", "model", "vocab", "merges", "pat_str"}


@pytest.mark.parametrize("fmt", ["native", "hf", "seed001", "gpt2", "gpt2-vocab", "gpt2-merges", "tiktoken", "tiktoken-sidecar"])
def test_each_file_is_read_once(tmp_path, tokenizers_by_config, monkeypatch, fmt):
    import engine.corpus.files
    import engine.formats.common as common

    tok = tokenizers_by_config["chars-seed001" if fmt == "seed001" else "gpt2"]
    base = fmt.split("-")[0]
    export_tokenizer(tok, base, target(tmp_path, base))
    path = {"gpt2": tmp_path / "pair", "gpt2-vocab": tmp_path / "pair" / "vocab.json",
            "gpt2-merges": tmp_path / "pair" / "merges.txt", "tiktoken-sidecar": tmp_path / "tok.tiktoken.json"}.get(
        fmt, target(tmp_path, base))
    reads: list[str] = []
    real = engine.corpus.files.read_file

    def counting(p, *args, **kwargs):
        reads.append(Path(p).name)
        return real(p, *args, **kwargs)

    monkeypatch.setattr(common, "read_file", counting)
    monkeypatch.setattr(engine.corpus.files, "read_file", counting)
    imported = load_any(path)
    assert imported.tokenizer.merges == tok.merges
    assert sorted(reads) == sorted(set(reads)) and reads, reads  # every file once
    assert len(reads) == (2 if base in ("gpt2", "tiktoken") else 1)


# -- empty tokens, empty vocabularies, specials (issue 11) ---------------------------------------


def test_an_empty_token_in_a_rank_file_is_skipped_with_a_note(tmp_path):
    lines = [f"{base64.b64encode(bytes([b])).decode()} {b}" for b in range(256)]
    (tmp_path / "w.tiktoken").write_text("\n".join(lines + ["YWI= 256", "= 257", "YWJj 258"]) + "\n", encoding="ascii")
    imported = load_any(tmp_path / "w.tiktoken", pretokenizer=PreTokenizer("none"))
    assert imported.warnings == ["line 258 is an empty token (rank 257); skipped"]
    assert imported.encode("abcab") == [258, 256]
    with pytest.raises(ValueError, match="not in"):
        imported.decode([257])  # no token has it
    # two empty tokens are one token twice, as for any other token
    (tmp_path / "w.tiktoken").write_text("\n".join(lines + ["= 256", "== 257"]) + "\n", encoding="ascii")
    with pytest.raises(ValueError, match=r"line 258 repeats the token b''"):
        load_any(tmp_path / "w.tiktoken", pretokenizer=PreTokenizer("none"))
    (tmp_path / "w.tiktoken").write_text("\n".join(lines[:2] + ["YWI= -3"]) + "\n", encoding="ascii")
    with pytest.raises(ValueError, match=r"line 3 has a negative rank \(-3\)"):
        load_any(tmp_path / "w.tiktoken", pretokenizer=PreTokenizer("none"))


@pytest.mark.parametrize("vocab, merges, fragment", [
    ([], [], '"vocab" is empty'),
    (["ab", "c"], [], "vocab entry 0 'ab' is not one character"),
    (["a", "b", "ab"], [[[0, 1], 0]], "merge 1 makes id 0, which leaves no alphabet"),
    (["a", "b"], [[[0, 1], 5]], r"merge 1 makes id 5, outside the vocab \(0-1\)"),
])
def test_degenerate_seed001_files_say_what_is_wrong(tmp_path, vocab, merges, fragment):
    (tmp_path / "s.json").write_text(json.dumps({"vocab": vocab, "merges": merges}), encoding="utf-8")
    with pytest.raises(ValueError, match=fragment):
        load_any(tmp_path / "s.json")


def test_empty_files_in_every_format(tmp_path):
    (tmp_path / "empty.json").write_bytes(b"")
    (tmp_path / "blank.tiktoken").write_bytes(b"\n \n")
    for name, fragment in (("empty.json", "the file is empty"), ("blank.tiktoken", "holds only whitespace")):
        with pytest.raises(ValueError, match=fragment):
            load_any(tmp_path / name)
    (tmp_path / "pair").mkdir()
    (tmp_path / "pair" / "vocab.json").write_text("{}", encoding="utf-8")
    (tmp_path / "pair" / "merges.txt").write_text("#version: 0.2\n", encoding="utf-8")
    for path in (tmp_path / "pair", tmp_path / "pair" / "vocab.json", tmp_path / "pair" / "merges.txt"):
        with pytest.raises(ValueError, match=r"vocab.json: is empty"):
            load_any(path)
    # an empty merges.txt beside a full vocab.json is a tokenizer of no merges
    (tmp_path / "pair" / "vocab.json").write_text(json.dumps({token_to_unicode(bytes([b])): b for b in range(256)}), encoding="utf-8")
    (tmp_path / "pair" / "merges.txt").write_bytes(b"")
    assert load_any(tmp_path / "pair").tokenizer.merges == []


SURROGATE = "<\udcff>"


def test_specials_must_be_utf8_text_in_every_place():
    from engine.errors import ConfigError

    with pytest.raises(ConfigError, match=r"special token '<\\udcff>' holds a lone surrogate \(U\+DCFF\)"):
        TrainConfig(specials=(SURROGATE,))
    with pytest.raises(ConfigError, match="lone surrogate"):
        TrainConfig.from_dict({"specials": ["ok", "\ud800"]})  # a session's config
    with pytest.raises(ConfigError, match="lone surrogate"):
        Tokenizer([], specials=["\udfff"])  # from Python, too
    TrainConfig(specials=("<|endoftext|>", "\U0001f600", "\ufffd"))  # any real text is fine


def test_a_special_in_invalid_utf8_bytes_is_refused_before_training(tmp_path):
    """The real thing: bash's $'\\xff\\xfe' reaches Python as lone surrogates (surrogateescape)."""
    import os
    import subprocess
    import sys

    from helpers import ROOT

    (tmp_path / "c.txt").write_text("the cat sat on the mat\n" * 2000, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    argv = [sys.executable.encode(), b"-m", b"tui", b"train", b"c.txt", b"-o", b"tok.json", b"--special", b"\xff\xfe"]
    run = subprocess.run(argv, capture_output=True, cwd=tmp_path, env=env, timeout=120)
    assert run.returncode == 2
    assert run.stderr == (b"bpe-lab: error: special token '\\udcff\\udcfe' holds a lone surrogate (U+DCFF), "
                          b"which is not UTF-8 text: give specials as valid UTF-8\n")
    assert not (tmp_path / "tok.json").exists()


def test_native_export_says_when_ids_are_renumbered(tmp_path, tokenizers_by_config):
    tok = tokenizers_by_config["gpt2"]
    export_tokenizer(tok, "hf", tmp_path / "ours.json")  # our numbering: nothing to say
    err = io.StringIO()
    assert main(["export", "-t", str(tmp_path / "ours.json"), "--format", "native", "-o", str(tmp_path / "n.json")],
                out=io.StringIO(), err=err) == 0
    assert "note" not in err.getvalue()
    ids = list(range(2, tok.vocab_size)) + [0, 1]  # specials first
    (tmp_path / "theirs.json").write_text(json.dumps(tokenizer_json(tok, ids)), encoding="utf-8")
    err = io.StringIO()
    assert main(["export", "-t", str(tmp_path / "theirs.json"), "--format", "native", "-o", str(tmp_path / "n.json")],
                out=io.StringIO(), err=err) == 0
    notes = [line for line in err.getvalue().splitlines() if "note" in line]
    assert notes == [f"bpe-lab: note: native ids differ from {tmp_path / 'theirs.json'}'s for {tok.vocab_size} of "
                     f"{tok.vocab_size} tokens (first: b'\\x00' is 2 there, 0 here); ids are renumbered: bases, then "
                     "merges, then specials"]
    assert Tokenizer.load(tmp_path / "n.json").encode(TEXTS[7]) == tok.encode(TEXTS[7])


def test_only_bpe_labs_own_format_key_makes_a_file_native(tmp_path, tokenizers_by_config):
    tok = tokenizers_by_config["gpt2"]
    data = tokenizer_json(tok)
    data["format"] = "huggingface"  # a stray key of that name does not make an HF file native
    (tmp_path / "t.json").write_text(json.dumps(data), encoding="utf-8")
    assert detect_format(tmp_path / "t.json") == "hf"
    (tmp_path / "n.json").write_text(json.dumps({"format": "other", "merges": []}), encoding="utf-8")
    with pytest.raises(ValueError, match=r'n.json: not a bpe-lab tokenizer \(no "format": "bpe-lab"\)'):
        load_any(tmp_path / "n.json")
