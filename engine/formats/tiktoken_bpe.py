"""tiktoken's ``.tiktoken`` rank file (one ``base64(token bytes) rank`` line per token), plus
the pattern and specials that ``tiktoken.Encoding`` also needs, in a sidecar ``PATH.json``::

    {"name": "tok", "pat_str": "...", "special_tokens": {"<eos>": 300}}

so that ``tiktoken.Encoding(**json.load(open(PATH + ".json")),
mergeable_ranks=tiktoken.load.load_tiktoken_bpe(PATH))`` is the tokenizer. Ranks are our ids.

A rank file has no merge pairs: they are recovered as minbpe's ``recover_merges`` does (run
tiktoken's merging on each token's bytes with only the lower-ranked tokens; the two parts left
are its merge). tiktoken merges the adjacent pair whose *bytes* rank lowest, bpe-lab the
lowest-ranked *pair*; when every token is recovered this way the two encode alike. tiktoken
first looks each piece up whole, and so does a tokenizer read from a rank file
(``whole_first``): a token that route never reaches (more than two parts left; Llama 3 has 695,
such as " Belediyesi") is a whole-piece token, which only a whole matching piece gives. Its id
follows the merges, and it keeps its rank in the file's ids.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import operator
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.config import MAX_VOCAB_BYTES
from engine.corpus.files import atomic_write_files
from engine.encode.models import RankMerging, WholeFirst
from engine.encode.tiktoken_merge import (
    PROGRESS_EVERY,
    RECOVERY_BUDGET,
    SHORTCUT_FROM,
    TooCostly,
    any_formable,
    rank_merge,
)
from engine.encode.tokenizer import Tokenizer
from engine.encode.vocabulary import BaseUnits, Vocabulary
from engine.errors import ExportError, size_text
from engine.formats import loading, merge_cache
from engine.formats import sniff as sniffed
from engine.formats.common import (
    MAX_ID,
    Imported,
    build,
    byte_alphabet,
    fail,
    identity,
    json_bytes,
    no_gaps,
    output_ids,
    portable_pattern,
    pretokenizer_from_pattern,
    read_json,
    read_text,
    show,
)
from engine.formats.known_ranks import KNOWN_EXTRAS, known_rank_file
from engine.formats.rank_json import checked_specials, inline_rank_text, inline_ranks, inline_side
from engine.native import backend
from engine.text.pretokenize import PreTokenizer, pretokenizer_named

if TYPE_CHECKING:
    from engine.formats.sniff import Probe

#: The pattern that makes the whole text one piece (pre-tokenizer ``none``).
WHOLE_TEXT = r"[\s\S]+"

def sidecar_path(path: str | Path) -> Path:
    """Where the pattern and specials of a rank file live: ``PATH.json``."""
    path = Path(path)
    return path.with_name(path.name + ".json")


def save_tiktoken(tok: Tokenizer, path: str | Path, ids: Sequence[int | None] | None = None) -> list[str]:
    """Write the rank file and its sidecar (each atomically); returns warnings."""
    if tok.base != "bytes":
        raise ExportError("a .tiktoken file is byte-level: this tokenizer has the chars base (use hf or seed001)")
    pre = tok.pretokenizer
    if pre.per_line or pre.split_digits or pre.split_newlines:
        raise ExportError(
            "tiktoken splits text with one pattern: per-line, digit or newline splitting cannot be written (use hf)"
        )
    warnings = []
    out = output_ids(tok, ids)
    merged = [out[i] for i in range(256, len(tok.pieces))]
    if any(b <= a for a, b in zip(merged, merged[1:])) or any(r < 0 for r in out):
        out = output_ids(tok, None)  # ranks must grow in merge order: use ours
        warnings.append("the ids did not grow in merge order, so the ranks are bpe-lab's ids")
    lines = []
    seen: set[bytes] = set()
    for i, piece in enumerate(tok.pieces):
        if piece not in seen:
            seen.add(piece)
            lines.append(f"{base64.b64encode(piece).decode('ascii')} {out[i]}")
    ranks = {piece: out[i] for i, piece in reversed(list(enumerate(tok.pieces)))}
    for k, piece in enumerate(tok.whole_pieces):  # tokens only a whole piece gives, as tiktoken's lookup does
        if piece not in ranks:
            ranks[piece] = out[len(tok.pieces) + k]
            lines.append(f"{base64.b64encode(piece).decode('ascii')} {ranks[piece]}")
    recovered, unreachable = _recover(ranks)
    ours = [(tok.pieces[a], tok.pieces[b]) for a, b in tok.merges]
    odd = _ambiguous(tok)
    whole = set(unreachable) == set(tok.whole_pieces)
    if not whole or recovered != ours or odd:
        differ = (sum(1 for x, y in zip(recovered, ours) if x != y) + abs(len(recovered) - len(ours)) + len(odd)
                  + len(set(unreachable) ^ set(tok.whole_pieces)))
        warnings.append(
            f"tiktoken merges by token bytes, not by pair: for {differ} merge(s) the ranks imply other pairs, "
            "so some texts may encode differently"
        )
    pattern = portable_pattern(pre) if pre.name != "none" else WHOLE_TEXT
    sidecar = {
        "name": Path(path).stem,
        "pat_str": pattern,
        "special_tokens": {text: out[i] for text, i in tok.specials.items()},
    }
    # The ranks and their sidecar together: a failed write leaves the old pair as it was.
    atomic_write_files([(path, ("\n".join(lines) + "\n").encode("ascii")), (sidecar_path(path), json_bytes(sidecar))])
    return warnings


def _limited_bpe(ranks: dict[bytes, int], token: bytes, max_rank: int) -> list[bytes]:
    """tiktoken's merging on ``token`` using only tokens ranked below ``max_rank``: merge the
    adjacent pair whose bytes rank lowest (the leftmost on a tie) until none is ranked
    (:func:`engine.encode.tiktoken_merge.rank_merge`)."""
    order = ranks if max_rank >= _NO_LIMIT else {t: r for t, r in ranks.items() if r < max_rank}
    return rank_merge(token, order)


def recover_merges(ranks: dict[bytes, int]) -> tuple[list[tuple[bytes, bytes]], list[str]]:
    """The merge pairs, in rank order, that rebuild each multi-byte token; plus warnings.

    Example: ``recover_merges({b"a": 0, b"b": 1, b"ab": 2})[0] -> [(b'a', b'b')]``
    """
    merges, unreachable = _recover(ranks)
    return merges, _unreachable_notes(unreachable)


def _recover(ranks: dict[bytes, int], path: Path | None = None) -> tuple[list[tuple[bytes, bytes]], list[bytes]]:
    """The recovered merges and the tokens no merge reaches (both in rank order).

    Each token is merged as tiktoken would with the tokens ranked below it
    (:meth:`engine.native.door.Backend.split_points`, compiled or pure); two parts left, both reached before,
    are its merge. Past :data:`~engine.encode.tiktoken_merge.RECOVERY_BUDGET` a TokenizerFileError
    naming ``path`` (without a path, an ExportError: the ranks of a tokenizer being written)."""
    merges: list[tuple[bytes, bytes]] = []
    known = {token for token in ranks if len(token) == 1}
    unreachable: list[bytes] = []
    longer = sorted((t for t in ranks if len(t) > 1), key=ranks.__getitem__)
    try:
        cuts = backend().split_points(longer, loading.reporter(loading.STAGES[0]))
    except TooCostly as exc:
        token = longer[exc.place]
        budget = size_text(RECOVERY_BUDGET)
        message = (f"recovering its merges means merging long tokens byte by byte, which passed {budget} of lookups "
                   f"at the token of rank {ranks[token]} ({len(token)} bytes); bpe-lab stops at {budget}")
        raise (fail(path, message) if path is not None else ExportError(message)) from None
    for token, cut in zip(longer, cuts):
        if cut:
            left, right = token[:cut], token[cut:]
            if left in known and right in known:
                merges.append((left, right))
                known.add(token)
                continue
        unreachable.append(token)
    return merges, unreachable


def _unreachable_notes(unreachable: Sequence[bytes]) -> list[str]:
    if not unreachable:
        return []
    return [
        f"{len(unreachable)} token(s) (first: {show(unreachable[0])}) are whole-piece tokens: recovering merges from "
        "the ranks is ambiguous for them, as tiktoken's merging never builds them from two lower-ranked tokens; "
        "tiktoken gives them only when a whole piece matches, and so does bpe-lab"
    ]


def _whole_ranks(ranks: dict[bytes, int], products: Sequence[int], unreachable: Sequence[bytes],
                 odd: Sequence[bytes] | None) -> list[int] | None:
    """For each whole piece, how many merges rank below it, when the tokenizer must merge by
    rank as tiktoken does (:mod:`engine.encode.tiktoken_merge`); None when its merge rules give the same.

    Rules fall short where tiktoken's merging of a whole piece's own bytes ends in that token (it
    then builds it inside longer pieces too: Llama 3's " nghiệ" in " nghiệx"), or where a token
    is not what the rules make of its bytes (``odd``; None: not known yet). Finding that out
    merges whole pieces' bytes; past :data:`~engine.encode.tiktoken_merge.FORMABLE_BUDGET` of
    it, the tokenizer merges by rank without knowing (:func:`~engine.encode.tiktoken_merge.any_formable`)."""
    formable = any_formable(unreachable, ranks)
    if not formable and not odd:
        return None
    return [bisect.bisect_left(products, ranks[token]) for token in unreachable]


#: A rank above every rank: :func:`_limited_bpe` with every token.
_NO_LIMIT = 1 << 62


def _odd_warning(odd: Sequence[bytes]) -> list[str]:
    if not odd:
        return []
    return [
        f"{len(odd)} token(s) (first: {show(odd[0])}) are not what the recovered merges make of their own "
        "bytes, so tiktoken and bpe-lab can encode some texts differently"
    ]


def _from_cache(
    cached: merge_cache.Recovered, ranks: dict[bytes, int], base_ids: list[int | None],
    specials: list[tuple[str, int]], pretokenizer: PreTokenizer,
) -> tuple[Tokenizer, list[int | None], list[bytes], list[bytes]] | None:
    """The tokenizer a cache entry describes, with its file ids and the unreachable and odd
    tokens; None unless the entry is exactly a recovery of ``ranks`` (each merge's parts made
    before it, its token the one of its rank, ranks growing, every longer token accounted for)."""
    first = len(base_ids)
    products = cached.product
    tokens = _tokens_by_rank(ranks)
    if tokens is None:
        return None  # ranks far apart: the file is recovered each time
    found = backend().recovered_parts(base_ids, products, cached.left, cached.right, tokens)  # in C when compiled
    if found is None:
        return None
    lefts, rights, made = found
    pieces = [bytes([b]) for b in range(first)] + made
    file_ids: list[int | None] = [*base_ids, *products]
    top = len(tokens)
    unreachable = [tokens[rank] if 0 <= rank < top else None for rank in cached.unreachable]
    odd = [tokens[rank] if 0 <= rank < top else None for rank in cached.odd]
    longer = len(ranks) - sum(rank is not None for rank in base_ids)
    left_out = set(cached.unreachable)
    if (not no_gaps(odd) or not no_gaps(unreachable) or any(len(token) < 2 for token in unreachable)
            or len(left_out) != len(unreachable) or not left_out.isdisjoint(file_ids) or len(products) + len(left_out) != longer):
        return None
    try:  # the tokenizer refuses a part made later than the merge that uses it, and repeats
        vocab = Vocabulary.from_parts(BaseUnits(), lefts, rights, tokens=pieces, whole_pieces=unreachable,
                                      specials=[text for text, _ in specials])
        whole_ranks = _whole_ranks(ranks, products, unreachable, odd)
        model = WholeFirst(vocab) if whole_ranks is None else RankMerging(vocab, whole_ranks)
        tok = Tokenizer.compose(model, pretokenizer=pretokenizer)
    except ValueError:
        return None
    file_ids += cached.unreachable
    file_ids += [theirs for _, theirs in specials]
    return tok, file_ids, unreachable, odd


def _tokens_by_rank(ranks: dict[bytes, int]) -> list[bytes | None] | None:
    """The rank file's tokens by rank (None where no token has a rank): the dict's own order for a
    file listing ranks 0, 1, 2, ... in order (every real one); None for ranks too far apart to
    list (past twice their number)."""
    tokens: list[bytes | None] = list(ranks)
    top = len(tokens)
    if all(map(operator.eq, ranks.values(), range(top))):
        return tokens
    if any(rank < 0 for rank in ranks.values()) or max(ranks.values(), default=0) >= 2 * top + 1024:
        return None
    tokens = [None] * (max(ranks.values(), default=-1) + 1)
    for token, rank in ranks.items():
        tokens[rank] = token
    return tokens


def _ambiguous(tok: Tokenizer) -> list[bytes]:
    """Tokens that bpe-lab's pair merges do not rebuild from their own bytes (tiktoken would:
    it looks a whole piece up before merging).

    A token of :data:`~engine.encode.tiktoken_merge.SHORTCUT_FROM` bytes or more is not
    merged to find out, as its merging costs a step a byte (``a`` x 5000 and every shorter
    run: 12.5 MB of merging): each merged token is regular (recovered from two tokens reached
    before it, down to bytes), and tiktoken's merging of a regular token's bytes joins exactly
    its merge tree's nodes, lowest (rank, start) first (see ``_walk`` there). Each node is a
    recovered merge of the two parts beside each other, so the pair merges, which see a subset
    of tiktoken's candidates (a merge's pair, joined, is a token of the same rank) and choose
    the same way (lowest rank, leftmost), choose that node each step too, and end in the token."""
    encode = tok.model.merge_ids  # the tokenizer's own merging of a chunk's base ids (engine.native.door)
    progress = loading.reporter(loading.STAGES[1])
    pieces = tok.pieces
    first, total = tok.base_size, len(pieces) - tok.base_size
    odd = []
    for i, piece in enumerate(pieces[first:], first):
        if progress is not None and not (i - first) % PROGRESS_EVERY:
            progress(i - first, total)
        if len(piece) < SHORTCUT_FROM and encode(list(piece)) != [i]:
            odd.append(piece)
    if progress is not None:
        progress(total, total)
    return odd


def _well_formed_ranks(text: str) -> dict[bytes, int] | None:
    """The ranks of a file with nothing unusual in it, read in bulk (as tiktoken's own loader
    does); None for anything else (an empty token, a bad line, a repeat), which the line-by-line
    reader then reports exactly."""
    parts = text.split()
    encoded, digits = parts[0::2], parts[1::2]
    try:
        if "\n".join(map(" ".join, zip(encoded, digits))) + "\n" != text:  # not plain "token rank" lines
            rows = [line.split() for line in text.splitlines() if line]
            encoded, digits = [token for token, _ in rows], [rank for _, rank in rows]
        tokens = [binascii.a2b_base64(token, strict_mode=True) for token in encoded]
    except (ValueError, binascii.Error):
        return None
    if not tokens or not all(tokens) or max(map(len, digits)) > 10:
        return None
    joined = "".join(digits)
    if not (joined.isascii() and joined.isdigit()):
        return None
    numbers = list(map(int, digits))
    ranks = dict(zip(tokens, numbers))
    if len(ranks) != len(tokens) or len(set(numbers)) != len(tokens) or max(numbers) > MAX_ID:
        return None
    return ranks


def read_ranks(path: Path, text: str | None = None, notes: list[str] | None = None) -> dict[bytes, int]:
    """The rank file's token -> rank map; malformed lines raise ValueError naming the line.

    ``text`` is the file's text when it was read already. An empty token (``= 50256``, the last
    line of Whisper's ``multilingual.tiktoken``; tiktoken's loader accepts it, and no text ever
    encodes to it) is skipped with a note in ``notes``; its rank stays taken.
    """
    if text is None:
        text = read_text(path)
    fast = _well_formed_ranks(text)
    if fast is not None:
        return fast
    ranks: dict[bytes, int] = {}
    by_rank: dict[int, int] = {}
    empty_line = 0
    lines = text.splitlines()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        parts = line.split()
        cut = " (the file ends there: is it truncated?)" if number == len(lines) and not text.endswith("\n") else ""
        if len(parts) != 2:
            raise fail(path, f"line {number} is not 'base64-token rank'{cut}")
        if parts[1].isascii() and parts[1].isdigit() and len(parts[1]) > 10:
            raise fail(path, f"line {number} has a rank of {len(parts[1])} digits, more than tiktoken's largest ({MAX_ID})")
        try:
            token = b"" if parts[0] in ("=", "==") else base64.b64decode(parts[0], validate=True)
            rank = int(parts[1])
        except (binascii.Error, ValueError):
            raise fail(path, f"line {number} is not 'base64-token rank'{cut}") from None
        if rank < 0:
            raise fail(path, f"line {number} has a negative rank ({rank})")
        if rank > MAX_ID:
            raise fail(path, f"line {number} has rank {show(rank)}, more than tiktoken's largest ({MAX_ID})")
        if token in ranks or (not token and empty_line):
            raise fail(path, f"line {number} repeats the token {show(token)}{cut}")
        if rank in by_rank:
            raise fail(path, f"line {number} gives rank {rank} again (line {by_rank[rank]} has it){cut}")
        by_rank[rank] = number
        if not token:
            empty_line = number
            if notes is not None:
                notes.append(f"line {number} is an empty token (rank {rank}); skipped")
            continue
        ranks[token] = rank
    if not ranks:
        raise fail(path, "holds no tokens")
    return ranks


#: Recovering merges costs time and memory for every byte of a token (docs/benchmarks.md), so a
#: rank file's tokens may be at most 1 MB each (tiktoken's own are at most a few hundred bytes).
MAX_RECOVERED_TOKEN = 1 << 20


def check_rank_bytes(path: Path, ranks: dict[bytes, int]) -> None:
    """Refuse a rank file whose tokens would cost too much before merges are recovered from them:
    more than :data:`~engine.config.MAX_VOCAB_BYTES` in all (as every tokenizer), or a token
    above :data:`MAX_RECOVERED_TOKEN`."""
    held = sum(map(len, ranks))
    if held > MAX_VOCAB_BYTES:
        raise fail(path, f"its tokens hold {size_text(held)} in all, more than the {size_text(MAX_VOCAB_BYTES)} a tokenizer may hold")
    if max(map(len, ranks), default=0) > MAX_RECOVERED_TOKEN:
        longest = max(ranks, key=len)
        raise fail(path, f"the token of rank {ranks[longest]} is {len(longest)} bytes long; bpe-lab reads tokens of at most "
                         f"{MAX_RECOVERED_TOKEN} bytes ({size_text(MAX_RECOVERED_TOKEN)})")


def _sidecar(path: Path, data: Any = None) -> dict[str, Any] | None:
    """The sidecar's pattern and specials (``data``: its JSON when it was read already)."""
    side = sidecar_path(path)
    if data is None:
        if not side.exists():
            return None
        data = read_json(side)
    if not isinstance(data, dict) or not isinstance(data.get("pat_str"), str):
        raise fail(side, "not a tiktoken sidecar (expected an object with \"pat_str\")")
    return checked_specials(side, data)


def pattern_pretokenizer(pat_str: str) -> PreTokenizer:
    """The pre-tokenizer a tiktoken ``pat_str`` stands for (a named one when it is one)."""
    if pat_str == WHOLE_TEXT:
        return PreTokenizer("none")
    return pretokenizer_from_pattern(pat_str)


def load_tiktoken(path: str | Path, pretokenizer: PreTokenizer | None = None, content: str | dict | None = None, *,
                  need_pattern: bool = True) -> Imported:
    """Read a rank file; its pattern and specials come from the sidecar, or ``pretokenizer``.

    ``path`` is the rank file or its sidecar ``PATH.json``; ``content`` is what was read of it
    already (the rank file's text, or the sidecar's JSON), so no file is read twice. Without a
    pattern from either, a rank file is refused unless ``need_pattern`` is false (decoding needs
    no pattern: the tokenizer then splits nothing, pre-tokenizer ``none``).
    """
    path = Path(path)
    side_data = None
    if content is None and path.name.endswith(".json"):
        content = read_json(path)
    inline: dict[bytes, int] | None = None
    if isinstance(content, dict) and "bpe_ranks" in content:  # npm tiktoken's encoders/*.json, claude.json
        inline = inline_ranks(content.get("bpe_ranks"))
        side_data, content = content, (content["bpe_ranks"] if inline is not None else
                                       inline_rank_text(path, content.get("bpe_ranks")))
        if "pat_str" not in side_data and pretokenizer is None and need_pattern:
            raise fail(path, "its ranks hold no pattern (\"pat_str\"): give --pattern-name or --pattern")
        side_data = {"pat_str": WHOLE_TEXT, **side_data}
    elif isinstance(content, dict):
        # the sidecar PATH.json: the ranks are PATH
        if not path.name.endswith(".json"):
            raise fail(path, "is a tiktoken sidecar (it has \"pat_str\"), but its rank file is named by this "
                             "name without .json, and this name does not end in .json")
        side_data, content = content, None
        sidecar_file, path = path, path.with_name(path.name[: -len(".json")])
        if not path.exists():
            raise fail(path, f"no such file ({sidecar_file.name} is a tiktoken sidecar: its rank file has its name without .json)")
    warnings: list[str] = []
    text = content if isinstance(content, str) else read_text(path)
    ranks = inline if inline is not None else read_ranks(path, text, warnings)
    check_rank_bytes(path, ranks)
    side = _sidecar(path, side_data) if side_data is None or "bpe_ranks" not in side_data else inline_side(path, side_data)
    known = known_rank_file(ranks) if pretokenizer is None and side is None else None
    normalizer = None
    if known is not None:
        name, pattern = known
        pretokenizer = pretokenizer_named(pattern)
        warnings.append(f"{name}'s rank file ({len(ranks):,} ranks): text is split with its pattern, {pattern} "
                        "(--pattern-name or --pattern gives another)")
        if name in KNOWN_EXTRAS:
            spec, extra = KNOWN_EXTRAS[name]
            side = {"pat_str": pretokenizer.pattern or "", "special_tokens": dict(extra)}
            if spec is not None:
                from engine.text.normalize import Normalizer

                normalizer = Normalizer(spec)
                warnings.append(f"{name}'s library normalizes text first ({spec['type']}), and so does bpe-lab")
    if pretokenizer is None:
        if side is None and need_pattern:
            raise fail(path, "this tiktoken rank file is not one bpe-lab knows, and holds no pattern: give --pattern-name "
                             "gpt2|gpt4|o200k|llama3|qwen|simple|none or --pattern REGEX")
        try:
            pretokenizer = pattern_pretokenizer(side["pat_str"]) if side is not None else PreTokenizer("none")
        except ValueError as exc:
            raise fail(sidecar_path(path), str(exc)) from None
    specials = sorted((side or {}).get("special_tokens", {}).items(), key=lambda s: s[1])
    taken = set(ranks.values()) if specials else set()  # (once, not once a special: 200,000 ranks)
    clash = [t for t, i in specials if i in taken]
    if clash:
        raise fail(sidecar_path(path), f"special token {show(clash[0])} has an id the rank file already uses")
    tok, file_ids, warnings = ranked_tokenizer(path, ranks, merge_cache.key_of(text), specials, pretokenizer, warnings)
    if normalizer is not None:
        tok.normalizer = normalizer  # nothing is encoded yet: the chunk cache is empty
    return Imported(tok, "tiktoken", str(path), None if identity(file_ids) else file_ids, warnings)


def ranked_tokenizer(
    path: Path, ranks: dict[bytes, int], key: str, specials: list[tuple[str, int]], pretokenizer: PreTokenizer,
    warnings: list[str],
) -> tuple[Tokenizer, list[int | None], list[str]]:
    """The tokenizer for tiktoken ``ranks`` (token bytes -> rank), with its file ids and
    ``warnings`` plus its own; ``key`` names the ranks in the merge cache (the file's hash)."""
    # Recovering the merges (and finding the tokens they don't rebuild) depends on the ranks
    # alone and is the costly part of a load: the merge cache keeps it per file content.
    alphabet, base_ids = byte_alphabet(ranks, "the ranks lack", warnings)
    cached = merge_cache.load(key, ranks)
    built = _from_cache(cached, ranks, base_ids, specials, pretokenizer) if cached is not None else None
    if built is not None:
        tok, file_ids, unreachable, odd = built
        more: list[str] = []
    else:
        merges, unreachable = _recover(ranks, path)
        products = [ranks[a + b] for a, b in merges]
        whole = [(token, ranks[token]) for token in unreachable]
        tok, file_ids, more = build(
            path, base="bytes", alphabet=alphabet, base_ids=base_ids, vocab=ranks,
            merges=merges, specials=specials, pretokenizer=pretokenizer,
            whole=(True, whole, _whole_ranks(ranks, products, unreachable, None)),
        )
        odd = _ambiguous(tok)
        if odd and tok.whole_ranks is None:  # tiktoken's merging by rank, for the odd tokens too
            tok, file_ids, more = build(
                path, base="bytes", alphabet=alphabet, base_ids=base_ids, vocab=ranks,
                merges=merges, specials=specials, pretokenizer=pretokenizer,
                whole=(True, whole, _whole_ranks(ranks, products, unreachable, odd)),
            )
        merge_cache.store(key, merge_cache.Recovered(
            [ranks[a] for a, _ in merges], [ranks[b] for _, b in merges], products,
            [ranks[t] for t in unreachable], [ranks[t] for t in odd]))
    warnings += _unreachable_notes(unreachable)
    if tok.whole_ranks is None:
        warnings += _odd_warning(odd)
    if not odd:  # every token rebuilds itself: the encoders need not look whole pieces up first
        if isinstance(tok.model, WholeFirst):
            tok.model.all_rebuild_themselves()
    return tok, file_ids, warnings + more


# -- the format's hooks (engine.formats.REGISTRY) --------------------------------------------


def sniff(probe: Probe) -> int:
    if probe.kind == "json":
        if not isinstance(probe.data, dict):
            return 0
        if "pat_str" in probe.data or isinstance(probe.data.get("bpe_ranks"), str):
            return sniffed.TIKTOKEN
        return sniffed.NAMED if probe.path.name.endswith(".tiktoken.json") else 0
    if probe.kind == "text":
        if probe.lines and all(sniffed.RANK_LINE.match(line) for line in probe.lines):
            return sniffed.TIKTOKEN
        return sniffed.NAMED if probe.path.name.endswith(".tiktoken") else 0
    return 0


def load(path: Path, content: Any, pretokenizer: PreTokenizer | None, need_pattern: bool) -> Imported:
    return load_tiktoken(path, pretokenizer, content, need_pattern=need_pattern)


def save(tok: Tokenizer, path: Path, ids: Sequence[int | None] | None, source: str) -> list[str]:
    return save_tiktoken(tok, path, ids)


def reads(path: Path) -> list[Path]:
    ranks = path.with_name(path.name[: -len(".json")]) if path.name.endswith(".json") else path
    return [ranks, sidecar_path(ranks)]


def writes(path: Path) -> list[Path]:
    return [path, sidecar_path(path)]
