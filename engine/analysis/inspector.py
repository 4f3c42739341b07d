"""Everything there is to say about one token: bytes, UTF-8 roles, how it was built, where it is."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.text.display import token_display

if TYPE_CHECKING:
    from engine.train.trainer import Trainer


@dataclass(frozen=True)
class ByteRole:
    """One byte and what it does in UTF-8 (seed 003's ``show_utf8``)."""

    value: int
    role: str  # "ASCII", "lead of 2", "lead of 3", "lead of 4", "continuation", "invalid"

    @property
    def hex(self) -> str:
        return f"0x{self.value:02X}"

    @property
    def binary(self) -> str:
        return f"{self.value:08b}"


def byte_role(value: int) -> str:
    """Example: ``byte_role(0xC3) -> 'lead of 2'``; ``byte_role(0xBC) -> 'continuation'``"""
    if value < 0x80:
        return "ASCII"
    if value < 0xC0:
        return "continuation"
    if value < 0xE0:
        return "lead of 2"
    if value < 0xF0:
        return "lead of 3"
    if value < 0xF8:
        return "lead of 4"
    return "invalid"


def utf8_roles(data: bytes) -> list[ByteRole]:
    """Each byte with its role. Example: ``[r.role for r in utf8_roles("ü".encode())]``
    -> ``['lead of 2', 'continuation']``"""
    return [ByteRole(b, byte_role(b)) for b in data]


def completeness(data: bytes) -> str:
    """``complete`` (whole characters), or how the token cuts characters.

    Example: ``completeness(b"\\xe4\\xb8") -> 'ends mid-character'``
    """
    try:
        data.decode("utf-8")
        return "complete"
    except UnicodeDecodeError:
        pass
    starts_inside = bool(data) and 0x80 <= data[0] < 0xC0
    head = data.lstrip(bytes(range(0x80, 0xC0)))  # drop a leading run of continuation bytes
    try:
        head.decode("utf-8")
        ends_inside = False
    except UnicodeDecodeError as exc:
        ends_inside = exc.reason == "unexpected end of data"
    if starts_inside and ends_inside:
        return "starts and ends mid-character"
    if starts_inside:
        return "starts mid-character"
    if ends_inside:
        return "ends mid-character"
    return "not valid UTF-8"


@dataclass(frozen=True)
class MergeTree:
    """How a token was built: a base token (no children) or the merge of two subtrees."""

    token_id: int
    data: bytes
    left: MergeTree | None = None
    right: MergeTree | None = None

    def lines(self, prefix: str = "") -> list[str]:
        """The tree as text, one node per line, children indented under their parent."""
        label = f"{self.token_id} {token_display(self.data, space='·')}"
        out = [prefix + label]
        for child in (self.left, self.right):
            if child is not None:
                out.extend(child.lines(prefix + "  "))
        return out

    def depth(self) -> int:
        if self.left is None or self.right is None:
            return 0
        return 1 + max(self.left.depth(), self.right.depth())


def merge_tree(
    token_id: int, pair_of: Callable[[int], tuple[int, int]], piece_of: Callable[[int], bytes], base_size: int
) -> MergeTree:
    """The merge tree of a token down to base tokens (seed 003 §13.4.2, option A).

    ``pair_of(id)`` gives the pair a merged token was made from; ``piece_of(id)`` its bytes.
    Example: ``merge_tree(258, {256: (1, 2), ...}.get, ...)``
    """
    if token_id < base_size:
        return MergeTree(token_id, piece_of(token_id))
    a, b = pair_of(token_id)
    return MergeTree(
        token_id,
        piece_of(token_id),
        merge_tree(a, pair_of, piece_of, base_size),
        merge_tree(b, pair_of, piece_of, base_size),
    )


@dataclass(frozen=True)
class TokenInfo:
    """What the inspector shows for one token."""

    token_id: int
    data: bytes
    display: str
    completeness: str
    roles: list[ByteRole]
    tree: MergeTree
    born_step: int | None  # the merge that made it (None for base tokens)
    count_then: int | None  # the pair's count when it was merged
    frequency: int  # occurrences in the corpus now
    special: bool = False
    mark: str = ""  # a subword prefix the token's bytes begin with, a mark, not text (``data`` leaves it out)


def token_info(trainer: Trainer, token_id: int) -> TokenInfo:
    """Inspect a token of the trainer's current vocabulary (ValueError if out of range)."""
    size = trainer.vocab_size - len(trainer.config.specials)
    if not 0 <= token_id < size:
        raise ValueError(f"token id {token_id} is not in the vocabulary (0..{size - 1})")
    data = trainer.token_bytes(token_id)
    mark = ""
    if trainer.continues_word(token_id):
        mark = trainer.config.subword_prefix or ""
        data = data[len(mark.encode("utf-8")):]
    merge = trainer.made_by(token_id)

    def pair_of(i: int) -> tuple[int, int]:  # O(1) per node, no list of all merges
        made = trainer.made_by(i)
        assert made is not None, f"token {i} was made by no merge"  # merge_tree asks only of merged tokens
        return made.pair

    return TokenInfo(
        token_id=token_id,
        data=data,
        display=token_display(mark.encode("utf-8") + data, space="·"),
        completeness=completeness(data),
        roles=utf8_roles(data),
        tree=merge_tree(token_id, pair_of, trainer.token_bytes, trainer.base_size),
        born_step=merge.step if merge else None,
        count_then=merge.count if merge else None,
        frequency=trainer.frequency(token_id),
        mark=mark,
    )
