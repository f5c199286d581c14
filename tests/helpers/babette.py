"""Babette scenario decks and helpers, shared by tests/games/test_babette_deal.py and test_babette_moves.py.

The garden is a grid drawn as rows, first-dealt row (row 0) on top; column i is the i-th card of
each row. Most scenarios use ``ORDERLY``: deal k (1..13) holds the four suits' rank-k cards (for
the up piles) and then the four suits' rank-(14-k) cards (for the down piles), so row 0 is
``AC AD AH AS KC KD KH KS``, row 6 eight sevens, row 12 ``KC KD KH KS AC AD AH AS``.
"""

from __future__ import annotations

from patience_gym.core.cards import RANKS, SUITS, card_name
from patience_gym.games.babette import DOWN_ROW, EMPTY, UP_ROW, Babette
from patience_gym.testing import act, deck, rest_of_pack
from tests.helpers import scenario_deal


def babette_deck(rows: list[str], rest: str = "") -> list[str]:
    """A two-pack deck that deals ``rows`` (8 cards each, left to right) then ``rest``, then the
    cards not named in the ordered packs' order (:func:`rest_of_pack`)."""
    assert all(len(r.split()) == 8 for r in rows), "a garden row holds 8 cards"
    named = deck(" ".join([*rows, rest]))
    return named + rest_of_pack(named, 2)


def orderly_row(k: int) -> str:
    return " ".join([RANKS[k - 1] + s for s in SUITS] + [RANKS[13 - k] + s for s in SUITS])


ORDERLY = babette_deck([orderly_row(k) for k in range(1, 14)])

# Column 0 holds 2C over AC; the other cards of the two rows fit no pile until much later.
RELEASE = babette_deck(
    ["2C 5D 5H 5S 6D 6H 6S 7D", "AC 8D 8H 8S 9D 9H 9S TD"],
    rest="JC 3C 9C 4C 4D 4H 4S 6C  TC 3D 3H 3S 7C 7H 7S 8C",
)


def game_for(deck: list[str] = ORDERLY) -> Babette:
    return scenario_deal(Babette, deck)


def garden(g: Babette) -> list[list[str]]:
    """The grid as card names, ``..`` for an empty place."""
    return [[".." if x == EMPTY else card_name(x) for x in row] for row in g.grid]


def up(g: Babette) -> list[int]:
    """Cards on the ascending foundations, C D H S."""
    return [len(pile) for pile in g.foundations[UP_ROW : UP_ROW + 4]]


def down(g: Babette) -> list[int]:
    """Cards on the descending foundations, C D H S."""
    return [len(pile) for pile in g.foundations[DOWN_ROW : DOWN_ROW + 4]]


def cells(text: str) -> list[str]:
    """A grid row written as text: 8 card names or ``..``."""
    return text.split()


def place(r: int, c: int, pile: str) -> str:
    return f"garden row {r} col {c} -> {pile} foundation"


def play_row(g: Babette, r: int) -> None:
    """Play the whole grid row ``r`` of an ``ORDERLY`` game (all available) to the foundations."""
    for i in range(8):
        act(g, place(r, i, "up" if i < 4 else "down"))
