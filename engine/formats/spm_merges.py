"""How a SentencePiece BPE model's pieces become merges (:func:`engine.formats.sentencepiece.read_model`):
each piece's two parts by sentencepiece's own rule (:func:`_parts`), and an order and split for
pieces that tie as runs of one character (:func:`_run_plan`), so that merging pair after pair
gives what sentencepiece's leftmost rule gives."""

from __future__ import annotations

from heapq import heappop, heappush

#: At most this many characters of pieces are split into merges (:func:`_parts`, about three heap
#: entries and 5 microseconds of pure Python each when every split is a piece): the work is
#: known from the file before it starts. Llama 2's and Mistral's models hold about 160,000.
MAX_PARTED_CHARS = 4_000_000

#: The longest run of one character a tie plan is made for (Llama 2's and Mistral's: 16). A plan
#: is checked on every run up to four times its longest piece, a run's square each: past this,
#: pieces keep the converter's split.
MAX_PLANNED_RUN = 64


def _parts(text: str, order: dict[str, int], limit: int) -> list[str]:
    """sentencepiece's merging of ``text`` with only the pieces of rank below ``limit``: join
    the adjacent pair of lowest rank, the leftmost of equal ranks, until none is a piece.

    A heap of candidate joins over a linked list of parts, as HuggingFace's ``merge_all``
    (O(n log n): a piece of 32,000 characters once took a rescan of every pair at every join)."""
    n = len(text)
    if n < 2:
        return list(text)
    ends = list(range(1, n + 1))  # the part starting at i ends at ends[i] (where it is a start)
    prev = list(range(-1, n - 1))
    alive = [True] * n
    heap: list[tuple[int, int, int, int]] = []

    def push(i: int) -> None:
        j = ends[i]
        if j < n:
            rank = order.get(text[i:ends[j]])
            if rank is not None and rank < limit:
                heappush(heap, (rank, i, j, ends[j]))

    for i in range(n - 1):
        push(i)
    while heap:
        _, i, j, end = heappop(heap)
        if not (alive[i] and alive[j] and ends[i] == j and ends[j] == end):
            continue  # a stale join: a part it names has joined another since
        ends[i] = end
        alive[j] = False
        if end < n:
            prev[end] = i
        push(i)
        if prev[i] >= 0:
            push(prev[i])
    parts, i = [], 0
    while i < n:
        parts.append(text[i:ends[i]])
        i = ends[i]
    return parts


def _planned_run(m: int, plan: list[tuple[int, int]]) -> list[int]:
    """Pair merges (left length, right length) made in turn on a run of ``m``, each left to
    right and non-overlapping, as a replay makes them."""
    parts = [1] * m
    for x, y in plan:
        out: list[int] = []
        i = 0
        while i < len(parts):
            if i + 1 < len(parts) and parts[i] == x and parts[i + 1] == y:
                out.append(x + y)
                i += 2
            else:
                out.append(parts[i])
                i += 1
        parts = out
    return parts


def _run_plan(lengths: frozenset[int]) -> list[tuple[int, int]] | None:
    """An order and a split for runs of one character that all share one score, such that
    merging pair after pair (a replay's steps, tokenizers' BPE) gives what sentencepiece's
    leftmost rule gives on a run of any length, or None when this plan does not.

    Llama 2's and Mistral's runs of ``▁`` (2-16) all score -1e9: sentencepiece joins them
    leftmost first, so four spaces before ``if`` are ``▁▁▁`` + ``▁if``; merged in the file's
    order, split as the converter splits them, a replay would leave ``▁▁`` + ``▁``. The plan
    doubles (``▁▁``, then ``▁▁▁▁`` of two of them, ...), which lays a run out as its binary
    digits from the left, then joins each run of digits left to right (8 + 4, then 12 + 2).
    It is checked on every run up to four times the longest piece (past two of the longest, a
    run only repeats how its start was cut)."""
    plan: list[tuple[int, int]] = []
    power = 2
    while power in lengths:
        plan.append((power // 2, power // 2))
        power *= 2
    digits = [1] + [x + x for x, _ in plan]

    def extend(left: int, low: int) -> None:
        for d in reversed(digits):
            if d < low and left + d in lengths:
                plan.append((left, d))
                extend(left + d, d)

    for top in reversed(digits[1:]):
        extend(top, top)
    if len(plan) != len(lengths) or {x + y for x, y in plan} != lengths:
        return None
    longest = max(lengths)
    if longest > MAX_PLANNED_RUN:
        return None
    tied = {"a" * n: 0 for n in lengths}  # sentencepiece's rule on runs of "a" with only the tied pieces
    if any(_planned_run(m, plan) != list(map(len, _parts("a" * m, tied, 1))) for m in range(2, 4 * longest + 2)):
        return None
    return plan


def _plan_ties(longer: list[tuple[str, float, int]]) -> dict[str, tuple[str, str]]:
    """The splits of pieces that tie as runs of one character (see :func:`_run_plan`), and
    ``longer`` reordered in place to make them in the plan's order; other pieces keep theirs."""
    splits: dict[str, tuple[str, str]] = {}
    by_score: dict[float, list[int]] = {}
    for k, (_, score, _) in enumerate(longer):
        by_score.setdefault(score, []).append(k)
    for score, at in by_score.items():
        texts = [longer[k][0] for k in at]
        unit = texts[0][0]
        if len(at) < 2 or any(text != unit * len(text) for text in texts):
            continue
        if any(unit + unit in text for text, other, _ in longer if other != score):
            continue  # another score's piece takes part of a run first: the plan's runs differ
        plan = _run_plan(frozenset(map(len, texts)))
        if plan is None:
            continue
        entry = {len(longer[k][0]): longer[k] for k in at}
        for k, (x, y) in zip(at, plan):
            longer[k] = entry[x + y]
            splits[unit * (x + y)] = (unit * x, unit * y)
    return splits
