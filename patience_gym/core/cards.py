"""Cards, packs and the pack validation shared by every variant.

A card is a small ``int``: ``suit * 13 + (rank - 1)`` with suits in the order ``C D H S`` and
ranks ace = 1 ... king = 13, so the 52 distinct cards are ``0 .. 51``. Two-pack games hold two
copies of each id; the copies are interchangeable for every rule (docs/rules.md, "Common terms"), so a
copy needs no identity of its own.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

RANKS = "A23456789TJQK"
SUITS = "CDHS"
N_KINDS = 52
ACE, KING = 1, 13

#: Per-card lookup tables (index = card id). Plain tuples: indexing them is the fastest read.
RANK: tuple[int, ...] = tuple(c % 13 + 1 for c in range(N_KINDS))
SUIT: tuple[int, ...] = tuple(c // 13 for c in range(N_KINDS))
RED: tuple[bool, ...] = tuple(SUIT[c] in (1, 2) for c in range(N_KINDS))
NAME: tuple[str, ...] = tuple(RANKS[c % 13] + SUITS[c // 13] for c in range(N_KINDS))
_BY_NAME: dict[str, int] = {name: c for c, name in enumerate(NAME)}


def card(rank: int, suit: int) -> int:
    """The id of the card of ``rank`` (1..13) and ``suit`` (0..3, ``C D H S``)."""
    return suit * 13 + rank - 1


def parse_card(text: str) -> int:
    """``"TD"`` -> id. Raises ``ValueError`` naming the accepted form."""
    try:
        return _BY_NAME[text]
    except (KeyError, TypeError):
        raise ValueError(
            f"{text!r} is not a card: write rank then suit, rank one of {' '.join(RANKS)} "
            f"and suit one of {' '.join(SUITS)} (e.g. 'TD' for the ten of diamonds)"
        ) from None


def card_name(c: int | None) -> str:
    return "--" if c is None else NAME[c]


def names(cards: Iterable[int]) -> list[str]:
    return [NAME[c] for c in cards]


def ordered_pack(n_packs: int = 1) -> list[int]:
    """The unshuffled pack(s): A..K of clubs, diamonds, hearts, spades, repeated."""
    return [c for _ in range(n_packs) for c in range(N_KINDS)]


def parse_pack(deck: object, n_packs: int, game: str) -> list[int]:
    """Validate a user-supplied pack (``reset(options={"deck": ...})``) and return card ids.

    The pack must be a sequence of ``52 * n_packs`` card strings holding every card exactly
    ``n_packs`` times. Anything else raises ``ValueError`` saying what is wrong.
    """
    size = N_KINDS * n_packs
    packs = "one pack" if n_packs == 1 else f"{n_packs} packs"
    if isinstance(deck, (str, bytes)) or not isinstance(deck, Sequence):
        raise ValueError(
            f"{game} deck must be a list of {size} card strings ({packs}), got {type(deck).__name__}"
        )
    if len(deck) != size:
        raise ValueError(f"{game} is played with {packs}: the deck must hold {size} cards, got {len(deck)}")
    cards = [parse_card(x) for x in deck]
    counts = Counter(cards)
    wrong = [c for c in range(N_KINDS) if counts[c] != n_packs]
    if wrong:
        detail = ", ".join(f"{NAME[c]} x{counts[c]}" for c in wrong[:8])
        more = f" and {len(wrong) - 8} more" if len(wrong) > 8 else ""
        raise ValueError(
            f"{game} deck must hold every card exactly {n_packs} time(s); wrong counts: {detail}{more}"
        )
    return cards


def take_out(pack: list[int], wanted: Sequence[int]) -> list[int]:
    """Remove the first copy of each card in ``wanted`` from ``pack`` (in place); return them.

    docs/rules.md: games that take foundation cards out before dealing remove the first copies and
    deal the rest in order.
    """
    for c in wanted:
        pack.remove(c)
    return list(wanted)
