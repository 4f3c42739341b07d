"""sentencepiece's normalization table (a ``precompiled_charsmap``), applied as its two owners
apply it.

The table is what ``spm_train`` compiles from a normalization rule (``nmt_nfkc``, its default,
or ``nfkc``): a little-endian 32-bit size, a darts-clone double-array trie of that many bytes
whose keys are UTF-8 strings, and the strings they become, each ended by a NUL byte (a key's
value is its string's offset). Two libraries apply it, by two rules:

- **sentencepiece** (a ``.model``): at each place in the text the *longest* key that starts
  there is replaced by its string; where none starts, one character is copied.
  ``Ａ\\u0301`` (a full-width A and a combining acute) is one key, ``Á``.
- **tokenizers** (a ``Precompiled`` normalizer in a ``tokenizer.json``): text is cut into
  grapheme clusters; a cluster shorter than 6 bytes that a key starts is replaced *whole* by
  the *shortest* such key's string, and any other cluster is done character by character
  (the same rule on one character). ``Ａ\\u0301`` is one cluster whose shortest key is ``Ａ``:
  it becomes ``A``, and the accent is lost.

Both are pure Python. Text that holds no character a key can start with (found by one regex
search; most scripts, Chinese ideographs among them, have none) is returned as it is; elsewhere
the trie is walked from each character that can start a key. A table whose trie points outside
itself is read as far as it holds together: a walk that would leave it stops there, and none
goes further than :data:`MAX_KEY_BYTES`.
Example: ``Charsmap(model.charsmap).sentencepiece("ｶﾞ①") -> 'ガ1'``
"""

from __future__ import annotations

import struct
import sys
from array import array
from functools import lru_cache

#: The most keys one walk reports (sentencepiece's kMaxTrieResultsSize).
MAX_RESULTS = 32
#: The longest key a table may hold, in bytes: the tables spm_train makes hold keys of a few
#: characters (nmt_nfkc's longest is 10 bytes). A walk from each character goes at most as far
#: as the table's longest key, so a text costs at most this many steps a character; a table
#: with a longer key, or one whose trie loops back on itself (which would walk the whole rest
#: of the text from every character), is refused when it is read.
MAX_KEY_BYTES = 32
#: tokenizers replaces a grapheme cluster whole only below this many UTF-8 bytes.
WHOLE_BELOW = 6


class CharsmapError(ValueError):
    """The table is not a precompiled charsmap (too short, or its trie's size does not fit)."""


def _ranges_of_lead_bytes(leads: set[int]) -> str:
    """A regex character class body of the characters whose UTF-8 encoding starts with one of
    ``leads`` (lead bytes: 0x00-0x7F, 0xC2-0xF4)."""
    spans: list[tuple[int, int]] = []
    for lead in sorted(leads):
        if lead < 0x80:
            spans.append((lead, lead))
        elif 0xC2 <= lead <= 0xDF:
            low = (lead & 0x1F) << 6
            spans.append((low, low + 0x3F))
        elif 0xE0 <= lead <= 0xEF:
            low = (lead & 0x0F) << 12
            spans.append((max(low, 0x800), low + 0xFFF))
        elif 0xF0 <= lead <= 0xF4:
            low = (lead & 0x07) << 18
            spans.append((max(low, 0x10000), min(low + 0x3FFFF, 0x10FFFF)))
    merged: list[list[int]] = []
    for lo, hi in spans:
        if merged and lo <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    return "".join(f"\\U{lo:08x}" if lo == hi else f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in merged)


class Charsmap:
    """A precompiled charsmap, read from its bytes; :meth:`sentencepiece` and :meth:`tokenizers`
    apply it."""

    def __init__(self, blob: bytes) -> None:
        import regex  # (only a table needs it: bpe-lab encode starts without it)

        if len(blob) < 4:
            raise CharsmapError(f"{len(blob)} bytes, shorter than its 4-byte header")
        (size,) = struct.unpack_from("<I", blob)
        if size % 4 or size + 4 > len(blob) or size < 4:
            raise CharsmapError(f"its trie of {size} bytes does not fit in its {len(blob)}")
        units = array("I", blob[4:4 + size])
        if sys.byteorder == "big":
            units.byteswap()
        self._units = units
        self._strings = blob[4 + size:]
        #: the longest key, in bytes: no walk goes further
        self.longest_key = _longest_key(units)
        self._texts: dict[int, bytes | None] = {}
        #: the most characters a key becomes (nmt_nfkc's: 18): how much the table can grow a text
        self.longest = max((len(text.decode("utf-8", "replace")) for text in self._strings.split(b"\0")), default=1) or 1
        starts = {byte for byte in range(1, 256) if self._child(_offset(units[0]), byte)}
        # keys start with lead bytes; a continuation byte there could only begin a malformed key
        self._leads = {b for b in starts if b < 0x80 or 0xC2 <= b <= 0xF4}
        body = _ranges_of_lead_bytes(self._leads)
        #: the characters a key can start with (none: nothing is ever replaced)
        self._starter = regex.compile(f"[{body}]") if body else None
        self._starter_bytes = regex.compile(b"[" + b"".join(b"\\x%02x" % b for b in sorted(self._leads)) + b"]") if body else None
        self._graphemes = regex.compile(r"\X")
        self._cluster_cache: dict[str, str] = {}

    # -- the double array (darts-clone's units) ---------------------------------------------

    def _child(self, node: int, byte: int) -> bool:
        """Whether a key goes on from ``node`` with ``byte``."""
        pos = node ^ byte
        return pos < len(self._units) and self._units[pos] & 0x800000FF == byte

    def _matches(self, data: bytes, start: int) -> list[tuple[int, int]]:
        """The keys that start at ``data[start:]``, shortest first, as (value, length in bytes),
        at most :data:`MAX_RESULTS` of them (a NUL byte ends the walk, as both libraries stop)."""
        units = self._units
        n = len(units)
        node = _offset(units[0])
        found: list[tuple[int, int]] = []
        for i in range(start, min(len(data), start + self.longest_key)):
            byte = data[i]
            if not byte:
                break
            pos = node ^ byte
            if pos >= n:
                break
            unit = units[pos]
            if unit & 0x800000FF != byte:
                break
            node = pos ^ ((unit >> 10) << ((unit & (1 << 9)) >> 6))  # (_offset, inline: the hot loop)
            if (unit >> 8) & 1:
                if node >= n:
                    break
                found.append((units[node] & 0x7FFFFFFF, i + 1 - start))
                if len(found) == MAX_RESULTS:  # (sentencepiece reads no more)
                    break
        return found

    def _text(self, value: int) -> bytes | None:
        """The string a key becomes (its bytes up to the NUL), or None when ``value`` points
        outside the table."""
        texts = self._texts
        if value in texts:
            return texts[value]
        strings = self._strings
        if value >= len(strings):
            texts[value] = None
            return None
        end = strings.find(b"\0", value)
        texts[value] = text = strings[value:end if end >= 0 else len(strings)]
        return text

    # -- the two rules -----------------------------------------------------------------------

    def needs(self, text: str) -> bool:
        """Whether any character of ``text`` can start a key (else both rules leave it alone)."""
        return self._starter is not None and self._starter.search(text) is not None

    def sentencepiece(self, text: str) -> str:
        """``text`` as sentencepiece's normalizer maps it: the longest key at each place."""
        if not self.needs(text):
            return text
        data, errors = _encoded(text)
        search = self._starter_bytes.search  # type: ignore[union-attr]
        out: list[bytes] = []
        pos = 0
        end = len(data)
        while pos < end:
            hit = search(data, pos)
            if hit is None:
                out.append(data[pos:])
                break
            at = hit.start()
            if at > pos:
                out.append(data[pos:at])
            best = None
            for value, length in self._matches(data, at):
                replaced = self._text(value)
                if replaced is not None and (best is None or length > best[1]):
                    best = (replaced, length)
            if best is not None:
                out.append(best[0])
                pos = at + best[1]
            else:  # no key: one character is copied (one byte of a malformed sequence)
                step = _char_length(data, at)
                out.append(data[at:at + step])
                pos = at + step
        return b"".join(out).decode("utf-8", errors)

    def _first(self, piece: str) -> str | None:
        """tokenizers' ``transform``: the string of the shortest key that starts ``piece``."""
        for value, _ in self._matches(_encoded(piece)[0], 0):
            replaced = self._text(value)
            if replaced is None:
                return None
            return replaced.decode("utf-8", "replace")
        return None

    def _cluster(self, cluster: str) -> str:
        cache = self._cluster_cache
        done = cache.get(cluster)
        if done is not None:
            return done
        if self._starter is None or not self._starter.search(cluster):
            done = cluster
        else:
            done = None
            if len(_encoded(cluster)[0]) < WHOLE_BELOW:
                done = self._first(cluster)
            if done is None:
                parts = []
                for ch in cluster:
                    replaced = self._first(ch)
                    parts.append(ch if replaced is None else replaced)
                done = "".join(parts)
        if len(cache) < 1 << 16:
            cache[cluster] = done
        return done

    def tokenizers(self, text: str) -> str:
        """``text`` as tokenizers' ``Precompiled`` normalizer maps it: grapheme cluster by cluster."""
        if not self.needs(text):
            return text
        return self._graphemes.sub(lambda m: self._cluster(m.group()), text)


@lru_cache(maxsize=8)
def charsmap(blob: bytes) -> Charsmap:
    """The table of ``blob``, read once (a replay and its file share it); CharsmapError when it
    does not hold together."""
    return Charsmap(blob)


def _char_length(data: bytes, at: int) -> int:
    """The length of the UTF-8 character at ``data[at]``, or 1 where the bytes there are not one
    (sentencepiece consumes one byte of a malformed sequence)."""
    lead = data[at]
    step = 1 if lead < 0xC0 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
    if step > 1:
        try:
            data[at:at + step].decode("utf-8")
        except UnicodeDecodeError:
            return 1
    return step


def _longest_key(units: array) -> int:
    """The longest key of the trie, in bytes, from one pass over its units (each labelled unit is
    an edge from the node its label is xored from to the node its offset leads to); a trie that
    loops, or holds a key longer than :data:`MAX_KEY_BYTES`, raises :class:`CharsmapError`."""
    children: dict[int, list[int]] = {}
    n = len(units)
    for pos in range(n):
        unit = units[pos]
        label = unit & 0xFF
        if label and not unit >> 31:
            children.setdefault(pos ^ label, []).append(pos ^ _offset(unit))
    depth: dict[int, int] = {}  # node -> the longest key below it (done)
    on_path: set[int] = set()
    root = _offset(units[0]) if n else 0
    stack: list[tuple[int, int]] = [(root, 0)]
    while stack:  # depth first, without recursion: (node, how many of its children are done)
        node, k = stack[-1]
        below = children.get(node, [])
        if k == 0:
            on_path.add(node)
        if k < len(below):
            stack[-1] = (node, k + 1)
            child = below[k]
            if child in on_path:
                raise CharsmapError("its trie loops back on itself")
            if child not in depth:
                if len(stack) > MAX_KEY_BYTES:
                    raise CharsmapError(f"it holds a key longer than {MAX_KEY_BYTES} bytes")
                stack.append((child, 0))
            continue
        stack.pop()
        on_path.discard(node)
        depth[node] = 1 + max((depth[c] for c in below), default=-1) if below else 0
    return depth.get(root, 0)


def _offset(unit: int) -> int:
    """A darts-clone unit's offset to its node's children."""
    return (unit >> 10) << ((unit & (1 << 9)) >> 6)


def _encoded(text: str) -> tuple[bytes, str]:
    """``text``'s UTF-8 and how it is decoded again unchanged: ``surrogateescape`` (bpe-lab reads
    undecodable bytes as U+DC80-U+DCFF), or ``surrogatepass`` for any other lone surrogate."""
    try:
        return text.encode("utf-8", "surrogateescape"), "surrogateescape"
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass"), "surrogatepass"
