"""The reference trainer's own code, cut down to what a step runs, and which of its lines decides
a merge: what the app shows beside a step (the code view) and marks.

The lines come from :mod:`engine.train.reference` itself (read with :mod:`inspect`), so what a
student reads is what the tests compare the real trainer with: ``count_pairs`` and ``best_pair``
without their docstrings, then ``train``'s ``apply`` and its loop. Each line can carry *roles*,
the part it plays in a step, found by the statement it starts with (a statement that spans two
lines gives both the role; an ``if ...: break`` gives its ``break`` too):

- ``count``: a pair's count grows (``pairs[pair] += weight``): an untied step's decider;
- ``tie-lowest-ids`` and ``tie-first-seen``: ``best_pair``'s line for each tie rule the reference
  teaches (a tied step's decider); ``best``: the loop's call of ``best_pair`` (the rules the
  reference does not teach: ``hf``, ``subword-nmt``);
- ``forced``: a manual merge; ``apply``: the loop's merge (a replay's decider: the file's merge);
- ``counting``, ``new-id``, ``merge``, ``length``: where the step's values come from;
- ``stop-merges``, ``stop-vocab``, ``stop-no-pairs``, ``stop-min-frequency``: the stop rules.

Example: ``[line.number for line in reference_excerpt() if "count" in line.roles]`` -> the
line numbers of ``pairs[pair] += weight`` in reference.py.
"""

from __future__ import annotations

import ast
import inspect
import io
import tokenize
from functools import lru_cache
from typing import NamedTuple

from engine.train import reference
from engine.train.events import Merge


class CodeLine(NamedTuple):
    """One line of the excerpt: its ``number`` in reference.py (None between two parts), its
    ``text`` (indented as in its function: the loop of ``train`` one level less), the ``part`` it
    belongs to (``count_pairs``, ``best_pair`` or ``train``), its ``roles`` in a step and where
    its comment starts in ``text`` (None without one; the app shows comments translated)."""

    number: int | None
    text: str
    part: str
    roles: frozenset[str]
    comment: int | None = None


#: Each role's function and how its statement starts (the stripped line; ``=`` for a whole line).
ROLES: dict[str, tuple[str, str]] = {
    "count": ("count_pairs", "pairs[pair] += weight"),
    "tie-lowest-ids": ("best_pair", "return max("),
    "tie-first-seen": ("best_pair", "return pairs.most_common(1)[0]"),
    "counting": ("train", "pairs = count_pairs(sequences)"),
    "best": ("train", "pair, count = best_pair("),
    "forced": ("train", "=apply((left, right))"),
    "apply": ("train", "=apply(pair)"),
    "new-id": ("train", "new_id = len(pieces)"),
    "merge": ("train", "sequences[:] = ["),
    "length": ("train", "sizes.append("),
    "stop-merges": ("train", "while max_merges is None"),
    "stop-vocab": ("train", "if vocab_size is not None and size >= vocab_size:"),
    "stop-no-pairs": ("train", "=if not pairs:"),
    "stop-min-frequency": ("train", "if count < min_frequency:"),
}

#: The trainer's stop reasons that a line of the reference makes (the others, ``vocab-bytes`` and
#: ``replay-end``, are the real trainer's own).
STOP_ROLES = {
    "merges": "stop-merges",
    "vocab-size": "stop-vocab",
    "no-pairs": "stop-no-pairs",
    "min-frequency": "stop-min-frequency",
}


@lru_cache(maxsize=1)
def reference_excerpt() -> tuple[CodeLine, ...]:
    """``count_pairs``, ``best_pair`` and ``train``'s ``apply`` and loop, as reference.py has them."""
    source = inspect.getsource(reference)
    lines = source.splitlines()
    tree = ast.parse(source)
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    spans: dict[str, tuple[int, int, set[int]]] = {}  # part -> first, last line, lines left out
    for name in ("count_pairs", "best_pair"):
        node = functions[name]
        doc = node.body[0]
        spans[name] = (node.lineno, _end(node), set(range(doc.lineno, _end(doc) + 1)))
    train = functions["train"]
    apply = next(n for n in train.body if isinstance(n, ast.FunctionDef) and n.name == "apply")
    loop = next(n for n in train.body if isinstance(n, ast.While))
    spans["train"] = (apply.lineno, _end(loop), set())
    roles = _roles(lines, functions, spans)
    comments = {token.start[0]: token.start[1] for token in tokenize.generate_tokens(io.StringIO(source).readline)
                if token.type == tokenize.COMMENT}
    excerpt: list[CodeLine] = []
    for part, (first, last, skipped) in spans.items():
        if excerpt:
            excerpt.append(CodeLine(None, "", part, frozenset()))
        indent = 4 if part == "train" else 0
        for number in range(first, last + 1):
            if number not in skipped:
                text = lines[number - 1][indent:].rstrip()
                at = comments.get(number)
                excerpt.append(CodeLine(number, text, part, frozenset(roles.get(number, ())),
                                        None if at is None else at - indent))
    return tuple(excerpt)


def _end(node: ast.stmt) -> int:
    return node.end_lineno if node.end_lineno is not None else node.lineno


def _roles(lines: list[str], functions: dict[str, ast.FunctionDef],
           spans: dict[str, tuple[int, int, set[int]]]) -> dict[int, set[str]]:
    """Line number -> its roles; a role whose statement is not found is an error (the code changed)."""
    found: dict[int, set[str]] = {}
    for role, (part, start) in ROLES.items():
        first, last, _ = spans[part]
        node = next((n for n in ast.walk(functions[part]) if isinstance(n, ast.stmt) and first <= n.lineno <= last
                     and _starts(lines[n.lineno - 1].strip(), start)), None)
        if node is None:
            raise LookupError(f"reference.py has no line {start!r} in {part} (role {role})")
        for number in _statement_lines(node):
            found.setdefault(number, set()).add(role)
    return found


def _starts(line: str, start: str) -> bool:
    return line == start[1:] if start.startswith("=") else line.startswith(start)


def _statement_lines(node: ast.stmt) -> range:
    """A simple statement's lines; a compound one's header (with its ``break`` when that is all)."""
    body = getattr(node, "body", None)
    if not body:
        return range(node.lineno, _end(node) + 1)
    if isinstance(node, ast.If) and len(body) == 1 and isinstance(body[0], ast.Break) and not node.orelse:
        return range(node.lineno, body[0].lineno + 1)
    return range(node.lineno, body[0].lineno)


def deciding_role(event: Merge, tie_rule: str, *, replay: bool = False) -> str:
    """The role of the line that decided ``event``: a manual merge's ``forced``, a replay's
    ``apply``, a tie's ``best_pair`` line for ``tie_rule`` (``best`` for a rule the reference
    does not teach), else ``count`` (the top count alone decides).

    >>> deciding_role(Merge(1, (1, 2), 3, b"ab", 5, ((1, 2), (2, 1)), 2, 10, 5), "first-seen")
    'tie-first-seen'
    """
    if event.manual:
        return "forced"
    if replay:
        return "apply"
    if not event.tied:
        return "count"
    return f"tie-{tie_rule}" if f"tie-{tie_rule}" in ROLES else "best"
