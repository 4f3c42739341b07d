"""Shared pieces for the hand-run benchmarks: corpora, timing child processes, reporting.

Every benchmark times a peer in the same run, alternating ours and theirs, and reports medians
and ratios (ours / peer; lower is better). Nothing here asserts a time: these machines are noisy.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "corpora"
CACHE = Path(tempfile.gettempdir()) / "bpe-lab-bench"


def code_files() -> list[Path]:
    """Distinct Python source files (by content) of the running interpreter's standard library,
    then of its site-packages, each list shuffled with a fixed seed: realistic code, never one
    text repeated and never a sorted prefix (which puts one package's near-identical files
    side by side)."""
    seen: set[bytes] = set()
    out: list[Path] = []
    for root in (Path(sysconfig.get_paths()["stdlib"]), Path(sysconfig.get_paths()["purelib"])):
        files = []
        for source in sorted(root.rglob("*.py")):
            if root.name != "site-packages" and "site-packages" in source.parts:
                continue
            try:
                data = source.read_bytes()
                data.decode("utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            digest = hashlib.sha256(data).digest()
            if digest not in seen and data.strip():
                seen.add(digest)
                files.append(source)
        random.Random(0).shuffle(files)
        out += files
    return out


def stdlib_corpus(size: int) -> Path:
    """``size`` bytes of distinct Python source files, shuffled (:func:`code_files`: the standard
    library first, then site-packages past 31 MB), cached in /tmp."""
    CACHE.mkdir(exist_ok=True)
    path = CACHE / f"code-shuffled-{size}.txt"
    if path.exists() and path.stat().st_size >= size - 4:
        return path
    chunks: list[bytes] = []
    total = 0
    for source in code_files():
        data = source.read_bytes()
        chunks.append(data)
        total += len(data)
        if total >= size:
            break
    blob = b"".join(chunks)[:size]
    blob = blob.decode("utf-8", "ignore").encode("utf-8")  # never cut a character in half
    path.write_bytes(blob)
    return path


def shared_corpus(name: str) -> Path | None:
    path = SHARED / name
    return path if path.exists() else None


#: CPU seconds (user + system) of each contender's runs in the last :func:`alternate`, by name:
#: steadier than wall time on a machine shared with other work (:func:`report` prints both).
CPU: dict[str, list[float]] = {}


def run_child(argv: list[str], env: dict[str, str | None] | None = None, cpu: list[float] | None = None,
              stdin: Path | None = None) -> tuple[float, int]:
    """Wall seconds and peak RSS (MB) of one child process (its CPU seconds appended to ``cpu``).

    GNU time (``/usr/bin/time``) reports the RSS: a child forked from this (large) process would
    count this process's pages as its own before it execs.
    """
    timer = ["/usr/bin/time", "-f", "%e %M %U %S"] if Path("/usr/bin/time").exists() else []
    started = time.perf_counter()
    merged = {name: value for name, value in {**os.environ, **(env or {})}.items() if value is not None}
    with open(stdin or os.devnull, "rb") as given:
        proc = subprocess.run(timer + argv, stdin=given, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=merged)
    elapsed = time.perf_counter() - started
    err = proc.stderr.decode("utf-8", "replace")
    if proc.returncode != 0:
        raise RuntimeError(f"{argv[:3]} failed: {err.strip()[-500:]}")
    if timer:
        wall, kb, user, system = err.strip().splitlines()[-1].split()
        if cpu is not None:
            cpu.append(float(user) + float(system))
        return float(wall), int(kb) // 1024
    return elapsed, 0


def alternate(contenders: dict[str, list[str] | tuple[list[str], dict]], runs: int = 3,
              stdin: Path | None = None) -> dict[str, tuple[float, int]]:
    """Run each contender ``runs`` times, interleaved (each reading ``stdin``, when given);
    return (median seconds, max RSS MB)."""
    times: dict[str, list[float]] = {name: [] for name in contenders}
    rss: dict[str, int] = {name: 0 for name in contenders}
    CPU.clear()
    CPU.update({name: [] for name in contenders})
    for _ in range(runs):
        for name, spec in contenders.items():
            argv, env = spec if isinstance(spec, tuple) else (spec, {})
            seconds, peak = run_child(argv, env, CPU[name], stdin)
            times[name].append(seconds)
            rss[name] = max(rss[name], peak)
    return {name: (statistics.median(times[name]), rss[name]) for name in contenders}


#: Run our code as an installed copy runs: with its modules' bytecode cached (pip compiles it at
#: install, as it did for the peers' packages). Where PYTHONDONTWRITEBYTECODE is set, a source
#: checkout would otherwise compile every module of engine/ and tui/ at each launch (~25 ms).
INSTALLED: dict[str, str | None] = {"PYTHONDONTWRITEBYTECODE": None, "PYTHONPYCACHEPREFIX": str(CACHE / "pycache")}


def ours(*args: str, root: Path = ROOT) -> list[str]:
    """The real command line, from this checkout (or the one at ``root``: ``--before``)."""
    return [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(root)!r}); from tui.main import entry; sys.argv[0] = 'bpe-lab'; entry()", *args]


#: The environment that forces bpe-lab's pure-Python path (engine/native/door.py).
PURE: dict[str, str | None] = {**INSTALLED, "BPE_LAB_PURE": "1"}


def record(key: str, value: float) -> None:
    """Hand one measured figure to ``run_all.py``'s summary table (nothing when run alone)."""
    path = os.environ.get("BPE_LAB_BENCH_RESULTS")
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps({"key": key, "value": value}) + "\n")


def report(title: str, results: dict[str, tuple[float, int]], baseline: str) -> None:
    """Print medians, peak memory and ratios against ``baseline``."""
    print(f"\n== {title}")
    base_time, base_rss = results[baseline]
    base_cpu = cpu_median(baseline)
    for name, (seconds, peak) in results.items():
        used = cpu_median(name)
        cpu = f"   CPU {used:5.2f} s x{used / base_cpu:5.2f}" if used and base_cpu else ""
        print(f"  {name:<34} {seconds:7.2f} s  {peak:6d} MB   time x{seconds / base_time:5.2f}   memory x{peak / max(base_rss, 1):5.2f}{cpu}")


def cpu_median(name: str) -> float:
    """Median CPU seconds of a contender of the last :func:`alternate` (0 when not measured)."""
    return statistics.median(CPU[name]) if CPU.get(name) else 0.0


# --- English prose -------------------------------------------------------------------------------

#: Words that make up a good part of any English text and little of code or of other languages.
_ENGLISH = frozenset("the of and to in is that for it as with be on are this by or not an can from at which if "
                     "you when will all its has have was one but more than these other also used see only".split())
_TROFF_KEEP = {"B", "I", "R", "BR", "BI", "IB", "IR", "RB", "RI", "SH", "SS", "SM", "SB", "IP", "TP", "Nm", "Nd", "Ar", "Fl",
               "Op", "Pa", "Xr", "Em", "Sy", "Dq", "Qq", "Sq", "Ql", "Li", "Cm", "Ic", "Va", "Ev", "Fn", "Ft", "Fa", "Sh",
               "Ss", "It", "Dv", "Er", "Cd", "Ad", "Ms", "Tn", "Ux"}
_TROFF_NAMED = {"em": "\u2014", "en": "\u2013", "aq": "'", "dq": '"', "lq": "\u201c", "rq": "\u201d", "oq": "\u2018",
                "cq": "\u2019", "hy": "-", "bu": "\u2022", "co": "\u00a9", "rg": "\u00ae", "tm": "\u2122", "mu": "\u00d7",
                "ti": "~", "ha": "^", "rs": "\\", "dg": "\u2020", "de": "\u00b0", "->": "\u2192", "<-": "\u2190"}


def troff_text(source: str) -> str:
    """A man page's text without its troff: font and size escapes dropped, named characters
    spelled, macro lines reduced to their words (headings, bold and italic runs, mdoc's
    ``.Nm``/``.Ar``...) and the rest (layout requests, definitions, comments) left out. Not a
    renderer (``man`` takes ~40 ms a page): prose, as a person reads it, is what it keeps."""
    out: list[str] = []
    skipping = False
    for line in source.splitlines():
        if skipping:
            skipping = not line.startswith("..")
            continue
        if line.startswith((".\\\"", "'\\\"", '\\"', ".\\#")):
            continue
        if line.startswith((".", "'")):
            name, _, rest = line[1:].strip().partition(" ")
            if name in ("de", "de1", "am", "ig"):
                skipping = True
                continue
            if name not in _TROFF_KEEP or not rest.strip():
                continue
            words = [w.strip('"') for w in rest.split()]
            line = " ".join(w for w in words if w not in _TROFF_KEEP)
        out.append(line)
    text = "\n".join(out)
    text = regex_sub(r"\\f(\[[^\]]*\]|\(..|.)", "", text)
    text = regex_sub(r"\\s[+-]?\d+|\\s\[[^\]]*\]|\\[*n](\[[^\]]*\]|\(..|.)|\\[&c%/,:|^!]|\\[hvwkoHSlLDXZ]'[^']*'", "", text)
    text = regex_sub(r"\\\((..)|\\\[([^\]]+)\]", lambda m: _TROFF_NAMED.get(m.group(1) or m.group(2), ""), text)
    return text.replace("\\-", "-").replace("\\e", "\\").replace("\\ ", " ").replace("\\~", " ").replace("\\0", " ")


def regex_sub(pattern: str, replacement, text: str) -> str:
    import re

    return re.sub(pattern, replacement, text)


def english_share(text: str) -> float:
    """The share of a text's words that are among the commonest English words (prose: 0.2-0.3;
    code, tables and other languages: under 0.1)."""
    words = regex_sub(r"[^a-z]+", " ", text[:200_000].lower()).split()
    return sum(w in _ENGLISH for w in words) / max(len(words), 1)


#: At most this many man pages of one family (``git-*``, ``gcloud-*``) in the English prose.
MAN_FAMILY = 200


def english_documents() -> list[tuple[str, str]]:
    """English prose found on this machine, each document once (by content), as (source, text):
    the Python documentation the interpreter carries (``pydoc_data.topics``: the language
    reference and library topics ``help()`` shows; this machine has no python3-doc, so that is
    all of Python's own docs there is), then the documentation of the installed packages
    (``*.rst``, ``*.md``, ``*.txt`` and ``METADATA`` in the Python installations, CMake's Help
    pages) and the English man pages (``/usr/share/man/man1``-``man8``, troff taken out:
    :func:`troff_text`), at most ``MAN_FAMILY`` pages a family (the name's first word: the
    Google Cloud SDK's 16,631 ``gcloud-*`` pages, one template filled in, would otherwise be 49
    of the 84 MB). A document is kept when it is at least 1 kB and at least 12 % of its words are
    among the commonest English words (:func:`english_share`), which leaves out code, tables and
    other languages. In a fixed order (shuffle before use); about 35 MB here."""
    import gzip
    import importlib

    seen: set[bytes] = set()
    docs: list[tuple[str, str]] = []

    def keep(source: str, text: str) -> None:
        text = text.strip()
        digest = hashlib.sha256(text.encode("utf-8", "replace")).digest()
        if len(text) >= 1000 and digest not in seen and english_share(text) >= 0.12:
            seen.add(digest)
            docs.append((source, text.encode("utf-8", "replace").decode("utf-8") + "\n"))

    topics = importlib.import_module("pydoc_data.topics").topics
    for name in sorted(topics):
        keep(f"pydoc_data.topics[{name}]", topics[name])
    paths = sysconfig.get_paths()
    for root in dict.fromkeys((Path(paths["stdlib"]), Path(paths["purelib"]), Path("/usr/lib/python3"), *Path("/usr/share").glob("cmake*/Help"))):
        if not root.is_dir():
            continue
        for path in sorted(root.rglob("*")):
            if path.suffix in (".rst", ".md", ".txt") or path.name == "METADATA":
                try:
                    keep(str(path), path.read_text(encoding="utf-8"))
                except (OSError, UnicodeDecodeError):
                    continue
    families: dict[str, int] = {}
    for section in range(1, 9):
        for path in sorted(Path(f"/usr/share/man/man{section}").glob("*.gz")):
            family = path.name.split("-")[0].split("_")[0].split(".")[0]
            families[family] = families.get(family, 0) + 1
            if families[family] > MAN_FAMILY:
                continue
            try:
                raw = gzip.decompress(path.read_bytes())
            except (OSError, EOFError, gzip.BadGzipFile):
                continue
            if raw.startswith(b".so ") and raw.count(b"\n") <= 2:
                continue  # a link to another page
            keep(str(path), troff_text(raw.decode("utf-8", "replace")))
    return docs


def english_corpus(size: int = 20_000_000) -> Path:
    """``size`` bytes of English prose (:func:`english_documents`), the documents shuffled with
    a fixed seed, cached in /tmp; a sidecar ``.sources`` lists what went in, in order."""
    CACHE.mkdir(exist_ok=True)
    path = CACHE / f"english-shuffled-{size}.txt"
    if path.exists() and path.stat().st_size >= size - 4:
        return path
    docs = english_documents()
    random.Random(0).shuffle(docs)
    chunks: list[str] = []
    sources: list[str] = []
    total = 0
    for source, text in docs:
        chunks.append(text)
        sources.append(source)
        total += len(text.encode("utf-8"))
        if total >= size:
            break
    if total < size:
        print(f"note: only {total / 1e6:.1f} MB of English prose found (asked for {size / 1e6:.0f} MB)")
    blob = "".join(chunks).encode("utf-8")[:size].decode("utf-8", "ignore").encode("utf-8")
    path.with_suffix(".sources").write_text("\n".join(sources) + "\n", encoding="utf-8")
    path.write_bytes(blob)
    return path


# --- code and mixed-language text at scale (bench_scale.py) --------------------------------------

CODE_SUFFIXES = frozenset({".py", ".pyi", ".pyx", ".pxd", ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".inc", ".js", ".mjs",
                           ".cjs", ".ts", ".go", ".rs", ".java", ".sh", ".pl", ".pm", ".rb", ".lua", ".tcl", ".el", ".cmake", ".m4"})
DOC_SUFFIXES = frozenset({".txt", ".md", ".rst", ".html", ".htm", ".tex", ".texi", ".adoc", ".1", ".5", ".7"})


def toolchain_roots() -> list[Path]:
    """Where code is looked for: this interpreter's standard library and site-packages, every
    pyenv-installed Python beside it, Rust's toolchains (the standard library's sources), then the
    system's /usr/lib, /usr/include, /usr/share and /usr/local. Never the checkouts' folder (other
    worktrees and their venvs) and no hidden folder below a root."""
    paths = sysconfig.get_paths()
    found = [Path(paths["stdlib"]), Path(paths["purelib"])]
    prefix = Path(sys.base_prefix)
    if prefix.parent.name == "versions":  # pyenv: its other versions too
        found += sorted(prefix.parent.iterdir())
    found += sorted((Path.home() / ".rustup" / "toolchains").glob("*"))
    found += [Path("/usr/lib"), Path("/usr/include"), Path("/usr/share"), Path("/usr/local")]
    return [root for root in dict.fromkeys(found) if root.is_dir()]


def walk_files(roots: list[Path], suffixes: frozenset[str]):
    """Files under ``roots`` with one of ``suffixes``, in a fixed order, never below /work's
    checkouts, the bench cache or a hidden folder; symbolic links not followed."""
    skip = {ROOT.parent.resolve(), CACHE.resolve()}
    for root in roots:
        for folder, dirs, files in os.walk(root):
            here = Path(folder)
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and (here / d).resolve() not in skip)
            for name in sorted(files):
                if Path(name).suffix in suffixes:
                    yield here / name


def distinct_texts(paths, seen: set[bytes], minimum: int = 256):
    """(path, text) of each readable UTF-8 file whose content was not met before (``seen``)."""
    for path in paths:
        try:
            data = path.read_bytes()
            text = data.decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        digest = hashlib.blake2b(data, digest_size=16).digest()
        if len(data) >= minimum and digest not in seen and text.strip():
            seen.add(digest)
            yield str(path), text if text.endswith("\n") else text + "\n"


_CODE: list[tuple[str, str]] = []


def code_documents(seen: set[bytes] | None = None) -> list[tuple[str, str]]:
    """Every distinct source file (``CODE_SUFFIXES``) of :func:`toolchain_roots`, in a fixed order,
    leaving out any whose content is in ``seen`` (read once a process, then kept)."""
    if not _CODE:
        _CODE.extend(distinct_texts(walk_files(toolchain_roots(), CODE_SUFFIXES), set()))
    if seen is None:
        return list(_CODE)
    return [(source, text) for source, text in _CODE if hashlib.blake2b(text.encode(), digest_size=16).digest() not in seen]


def foreign_documents(seen: set[bytes]) -> list[tuple[str, str]]:
    """Text in languages other than English found here: ../shared/corpora/tang_all.txt (Chinese
    poems) in blocks of about 64 kB, the man pages translated into 30 languages
    (``/usr/share/man/LANG/``: German, French, Japanese, Chinese, Russian, Ukrainian ...; troff
    taken out), and gettext catalogs (``.po``: English beside a translation) in the toolchains."""
    import gzip

    docs: list[tuple[str, str]] = []
    tang = shared_corpus("tang_all.txt")
    if tang is not None:
        lines = tang.read_text(encoding="utf-8").splitlines(keepends=True)
        block: list[str] = []
        for line in lines:
            block.append(line)
            if sum(map(len, block)) >= 24_000:  # characters: ~64 kB of UTF-8
                docs.append((f"{tang}#{len(docs)}", "".join(block)))
                block = []
        if block:
            docs.append((f"{tang}#{len(docs)}", "".join(block)))
    for folder in sorted(Path("/usr/share/man").iterdir()):
        if folder.name.startswith("man"):
            continue
        for path in sorted(folder.rglob("*.gz")):
            try:
                raw = gzip.decompress(path.read_bytes())
            except (OSError, EOFError, gzip.BadGzipFile):
                continue
            text = troff_text(raw.decode("utf-8", "replace")).strip() + "\n"
            digest = hashlib.blake2b(text.encode(), digest_size=16).digest()
            if len(text) >= 500 and digest not in seen:
                seen.add(digest)
                docs.append((str(path), text))
    docs += distinct_texts(walk_files(toolchain_roots(), frozenset({".po"})), seen)
    return docs


def doc_documents(seen: set[bytes]) -> list[tuple[str, str]]:
    """Documentation in English: :func:`english_documents`, then the other documentation files of
    the toolchains (``DOC_SUFFIXES``: READMEs, HTML pages, texinfo ...) and the packages'
    compressed changelogs and READMEs under /usr/share/doc."""
    import gzip

    docs = []
    for source, text in english_documents():
        digest = hashlib.blake2b(text.encode(), digest_size=16).digest()
        if digest not in seen:
            seen.add(digest)
            docs.append((source, text))
    docs += distinct_texts(walk_files(toolchain_roots(), DOC_SUFFIXES), seen)
    for path in sorted(Path("/usr/share/doc").rglob("*.gz")):
        if path.name.endswith((".tar.gz", ".ps.gz", ".json.gz", ".pdf.gz")):
            continue
        try:
            data = gzip.decompress(path.read_bytes())
            text = data.decode("utf-8")
        except (OSError, EOFError, gzip.BadGzipFile, UnicodeDecodeError):
            continue
        digest = hashlib.blake2b(data, digest_size=16).digest()
        if len(data) >= 256 and digest not in seen:
            seen.add(digest)
            docs.append((str(path), text if text.endswith("\n") else text + "\n"))
    return docs


def write_corpus(path: Path, docs: list[tuple[str, str]], size: int) -> Path:
    """Write ``docs`` (in their order) up to ``size`` bytes, cut at a character; their sources in
    ``path.sources`` and, when the corpus falls short, a line saying so."""
    total = 0
    with open(path.with_suffix(".part"), "wb") as out, open(path.with_suffix(".sources"), "w", encoding="utf-8") as sources:
        for source, text in docs:
            data = text.encode("utf-8")
            if total + len(data) > size:
                data = data[: size - total].decode("utf-8", "ignore").encode("utf-8")
            out.write(data)
            sources.write(f"{len(data)}\t{source}\n")
            total += len(data)
            if total >= size - 4:
                break
    os.replace(path.with_suffix(".part"), path)
    if total < size * 0.98:
        print(f"note: {path.name}: only {total / 1e6:.0f} MB of distinct text (asked for {size / 1e6:.0f} MB)")
    return path


def code_corpus(size: int) -> Path:
    """``size`` bytes of distinct source files of every language found (:func:`code_documents`),
    shuffled with a fixed seed, so that the smaller corpora are the larger ones' beginnings;
    cached in /tmp."""
    CACHE.mkdir(exist_ok=True)
    path = CACHE / f"code-all-{size // 1_000_000}MB.txt"
    if path.exists() and path.with_suffix(".sources").exists():
        return path
    docs = code_documents()
    random.Random(0).shuffle(docs)
    return write_corpus(path, docs, size)


_POOLS: dict[str, list[tuple[str, str]]] = {}

#: The share of :func:`mixed_corpus` given to other languages than English, as far as there is text.
FOREIGN_SHARE = 0.10


def mixed_corpus(size: int) -> Path:
    """``size`` bytes of mixed-language text: other languages (:func:`foreign_documents`: Chinese,
    the translated man pages, catalogs) up to ``FOREIGN_SHARE`` of it, the rest English
    documentation (:func:`doc_documents`) and code (:func:`code_documents`) half and half (the one
    that runs out topped up by the other); each kind shuffled with a fixed seed, the chosen files
    shuffled together. Cached in /tmp; ``.sources`` lists each file and its bytes."""
    CACHE.mkdir(exist_ok=True)
    path = CACHE / f"mixed-{size // 1_000_000}MB.txt"
    if path.exists() and path.with_suffix(".sources").exists():
        return path
    if not _POOLS:
        seen: set[bytes] = set()
        _POOLS.update({"foreign": foreign_documents(seen), "docs": doc_documents(seen), "code": code_documents(seen)})
    pools = {kind: list(docs) for kind, docs in _POOLS.items()}
    for number, docs in enumerate(pools.values()):
        random.Random(number).shuffle(docs)
    chosen: list[tuple[str, str]] = []
    taken = dict.fromkeys(pools, 0)
    budget = {"foreign": size * FOREIGN_SHARE}
    while sum(taken.values()) < size and any(pools.values()):
        open_kinds = [k for k in pools if pools[k] and (k not in budget or taken[k] < budget[k])]
        if not open_kinds:
            break
        kind = min(open_kinds, key=lambda k: (k != "foreign", taken[k]))
        source, text = pools[kind].pop()
        chosen.append((source, text))
        taken[kind] += len(text.encode("utf-8"))
    random.Random(7).shuffle(chosen)
    print(f"{path.name}: " + ", ".join(f"{kind} {taken[kind] / 1e6:.1f} MB" for kind in taken))
    return write_corpus(path, chosen, size)
