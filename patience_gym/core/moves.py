"""Typed action tables: move kinds as enums, action ids derived from the table.

A variant declares its move kinds as an :class:`enum.Enum` and builds its fixed action table as a
:class:`MoveTable`, kind by kind. The table numbers the moves itself, so no id is written by hand:
``table.first[Kind.PAIR]`` is the first id of that kind and ``table.ids(Kind.PAIR)`` their range.
Dispatch on ``move.kind`` with ``match`` ending in ``assert_never``: a misspelt or forgotten kind
is a type error, not a silent fall-through to the last branch. (Every game's ``is_legal`` so ends
alike, a case per kind asking a named rule, then ``assert_never``: a scan for repeated code pairs
Babette's and The Congress's endings by shape; each case asks a different game's rule.)

::

    class Kind(Enum):
        PAIR = "pair"
        TURN = "turn"

    TABLE = MoveTable.build(
        group(Kind.PAIR, "place {0} + place {1}", PAIRS),
        group(Kind.TURN, "turn up reserve"),
    )

:func:`group` writes one kind's moves from a text pattern and its ``(src, dst)`` places; a kind
whose texts need more than the two numbers (a packet's letter, a row's name) lists its
:class:`Move` objects itself, as ``(kind, moves)``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Generic, TypeVar

if sys.version_info >= (3, 11):
    from typing import assert_never
else:  # pragma: no cover
    from typing_extensions import assert_never

__all__ = ["K", "Move", "MoveTable", "assert_never", "group"]

K = TypeVar("K", bound=Enum)


@dataclass(frozen=True)
class Move(Generic[K]):
    """One entry of a variant's fixed action table: a kind and up to two place indices."""

    kind: K
    src: int = -1
    dst: int = -1
    text: str = ""

    def __str__(self) -> str:
        return self.text or str(self.kind.value)


#: The places of a move that names none (a turn, a re-deal): one move, no source, no destination.
NO_PLACES: tuple[tuple[int, int], ...] = ((-1, -1),)


def group(kind: K, text: str, places: Iterable[tuple[int, int]] = NO_PLACES) -> tuple[K, list[Move[K]]]:
    """The moves of ``kind``, one per ``(src, dst)`` of ``places``, in that order.

    Each move's text is ``text.format(src, dst)``: ``{0}`` stands for the source, ``{1}`` for the
    destination (``"help {0} -> help {1}"``). The pair is what :meth:`MoveTable.build` takes.
    """
    return kind, [Move(kind, src, dst, text.format(src, dst)) for src, dst in places]


@dataclass(frozen=True)
class MoveTable(Generic[K]):
    """A fixed action table: ``moves[a]`` is action ``a``; each kind's moves are contiguous."""

    moves: tuple[Move[K], ...]
    first: dict[K, int]
    count: dict[K, int]

    @staticmethod
    def build(*groups: tuple[K, Iterable[Move[K]]]) -> MoveTable[K]:
        """The table of ``groups`` in order; each group lists the moves of one kind."""
        moves: list[Move[K]] = []
        first: dict[K, int] = {}
        count: dict[K, int] = {}
        for kind, group in groups:
            if kind in first:
                raise ValueError(f"move kind {kind} appears in two groups")
            items = list(group)
            wrong = [m for m in items if m.kind is not kind]
            if wrong:
                raise ValueError(f"group {kind} holds moves of kind {wrong[0].kind}")
            first[kind] = len(moves)
            count[kind] = len(items)
            moves.extend(items)
        return MoveTable(tuple(moves), first, count)

    def __len__(self) -> int:
        return len(self.moves)

    def __getitem__(self, action: int) -> Move[K]:
        return self.moves[action]

    def ids(self, kind: K) -> range:
        """The action ids of ``kind``, in table order."""
        start = self.first[kind]
        return range(start, start + self.count[kind])

    def by_source(self, kind: K, sources: Iterable[int]) -> tuple[tuple[tuple[int, int], ...], ...]:
        """``[s]``: the ``(dst, action)`` of each move of ``kind`` from source ``s``, in table order.

        A fast mask walks these instead of the whole kind: only the moves from a source that has a
        card to move are looked at.
        """
        moves = [(a, self.moves[a]) for a in self.ids(kind)]
        return tuple(tuple((m.dst, a) for a, m in moves if m.src == s) for s in sources)

    def texts(self) -> Sequence[str]:
        return [m.text for m in self.moves]
