"""subword-nmt's BPE codes file: what ``subword-nmt learn-bpe`` writes and ``apply-bpe -c`` reads
(Sennrich et al. 2016). A ``#version: 0.2`` line, then one merge a line, ``left right``, the
parts spelled as text, a word's last character ending in ``</w>``::

    #version: 0.2
    s t</w>
    e st</w>

The file holds merges only: no vocabulary, no ids, no pattern. bpe-lab reads it with the chars
base: id 0 (``\\ufffd``) for a character no merge names, then the characters the merges name,
sorted, then each again ending a word (``e</w>``), then the merges in order; text is split at
spaces and line ends, as ``apply_bpe`` splits its lines (``--pattern`` gives another split). It
writes a chars-base tokenizer whose words end in ``</w>`` (``bpe-lab train --base chars
--pattern '\\S+' --end-of-word '</w>'``): ``apply_bpe`` then segments every word as bpe-lab does,
writing ``@@`` after each piece that does not end it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.corpus.files import atomic_write_bytes
from engine.encode.tokenizer import Tokenizer
from engine.errors import ExportError
from engine.formats import sniff as sniffed
from engine.formats.common import Imported, build, fail, read_text, show
from engine.formats.gpt2 import BPE, ENCODER, byte_level_merges
from engine.text.pretokenize import PreTokenizer

if TYPE_CHECKING:
    from engine.formats.sniff import Probe

HEADER = "#version: 0.2"
SUFFIX = "</w>"
#: apply_bpe's split: words between spaces, line by line.
WORDS = r"[^ \r\n]+"
#: A codes file outscores a merges.txt header (gpt2's), which it shares, when no vocab.json is beside it.
CODES = sniffed.VOCAB_OBJECT + 5


def load_codes(path: str | Path, pretokenizer: PreTokenizer | None = None, text: str | None = None) -> Imported:
    """Read a codes file (see the module doc); malformed lines raise ``TokenizerFileError``."""
    path = Path(path)
    if text is None:
        text = read_text(path)
    merges: list[tuple[str, str]] = []
    lines = text.split("\n")
    for number, line in enumerate(lines, 1):
        line = line.rstrip("\r")
        if not line or (number == 1 and line.startswith("#version")):
            if number == 1 and line.startswith("#version") and line.strip() != HEADER:
                raise fail(path, f"line 1 {show(line)}: bpe-lab reads subword-nmt's codes of version 0.2 (words end in </w>)")
            continue
        parts = line.split(" ")
        if len(parts) != 2 or not all(parts):
            raise fail(path, f"line {number} {show(line)} is not two subword units separated by one space")
        merges.append((parts[0], parts[1]))
    if not merges:
        raise fail(path, "holds no merges (a codes file lists one 'left right' merge a line after #version: 0.2)")
    products = {a + b for a, b in merges}
    chars: set[str] = set()
    for part in (p for pair in merges for p in pair):
        if part in products:
            continue
        unit = part[: -len(SUFFIX)] if part.endswith(SUFFIX) else part
        if len(unit) != 1:
            raise fail(path, f"{show(part)} is neither one character (with or without </w>) nor made by a merge")
        chars.add(unit)
    plain = ["\ufffd", *sorted(chars - {"\ufffd"})]
    alphabet = plain + [c + SUFFIX for c in plain]
    tok, _, warnings = build(
        path, base="chars", alphabet=alphabet, base_ids=list(range(len(alphabet))), vocab=None, merges=merges,
        specials=[], pretokenizer=pretokenizer or PreTokenizer("custom", WORDS), end_of_word=SUFFIX,
    )
    return Imported(tok, "subword-nmt", str(path), None, warnings)


def save_codes(tok: Tokenizer, path: str | Path) -> list[str]:
    """Write ``tok``'s merges as a codes file (atomically); returns warnings."""
    if tok.end_of_word != SUFFIX:
        raise ExportError(f"subword-nmt codes are for words ending in '{SUFFIX}': train with --end-of-word '{SUFFIX}' "
                          "(export to hf or native otherwise)")
    if tok.base != "chars":
        raise ExportError("subword-nmt codes spell merges as characters: train with --base chars (export to hf to keep bytes)")
    names = [piece.decode("utf-8", "surrogateescape") for piece in tok.pieces]
    spaced = next((n for n in names[tok.base_size:] if any(c.isspace() for c in n)), None)
    if spaced is not None:
        raise ExportError(f"token {show(spaced)} holds whitespace, which a codes line cannot: train with "
                          "--pattern '\\S+' (words between spaces, as subword-nmt)")
    lines = [HEADER] + [f"{names[a]} {names[b]}" for a, b in tok.merges]
    atomic_write_bytes(path, ("\n".join(lines) + "\n").encode("utf-8", "surrogateescape"))
    warnings = []
    if tok.specials:
        warnings.append(f"the {len(tok.specials)} special token(s) are left out: a codes file holds merges only")
    if tok.pretokenizer.name != "custom" or tok.pretokenizer.pattern not in (WORDS, r"\S+"):
        warnings.append("apply_bpe splits words at spaces; this tokenizer splits otherwise, so texts may encode differently")
    return warnings


# -- the format's hooks (engine.formats.REGISTRY) --------------------------------------------


def sniff(probe: Probe) -> int:
    path = probe.path
    if probe.kind != "text" or not probe.lines or (path.parent / "vocab.json").exists():
        return 0
    if path.name == BPE and (path.parent / ENCODER).exists():
        return 0  # OpenAI's GPT-2 pair: vocab.bpe is its merges.txt
    lines = probe.lines[1:] if probe.lines[0].startswith("#version") else probe.lines
    pairs = all(len(parts) == 2 and all(parts) for parts in (line.rstrip("\r").split(" ") for line in lines))
    # a merges.txt without </w>, or byte-level merges (Ġ) under any name, without its vocabulary beside it is
    # GPT-2's half (its reader says the other is missing)
    text = probe.text or ""
    ours = SUFFIX in text or not (path.name.endswith("merges.txt") or byte_level_merges(text))
    return CODES if pairs and ours and probe.lines[0].startswith("#version") else 0


def load(path: Path, content: Any, pretokenizer: PreTokenizer | None, need_pattern: bool) -> Imported:
    return load_codes(path, pretokenizer, content if isinstance(content, str) else None)


def save(tok: Tokenizer, path: Path, ids: Sequence[int | None] | None, source: str) -> list[str]:
    return save_codes(tok, path)


def reads(path: Path) -> list[Path]:
    return [path]


writes = reads
