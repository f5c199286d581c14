"""Babette rule scenarios (docs/rules.md section 3), each from a fixed deal: the foundations
(which card goes where) and whole games, won and lost.

Decks and helpers: tests/helpers/babette.py.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import patience_gym  # noqa: F401
from patience_gym.core.game import IllegalMove
from patience_gym.games.babette import SUIT_PILES, Babette, Kind
from patience_gym.testing import act, action_id, check_position, legal_moves_text
from tests.helpers import play_to_the_end
from tests.helpers.babette import ORDERLY, babette_deck, down, game_for, orderly_row, place, play_row, up

# each scenario on the Python engine, then in lockstep with the native one (tests/conftest.py)
pytestmark = pytest.mark.both_engines


# ---- foundations --------------------------------------------------------------------------------


def test_first_ace_starts_the_up_pile_and_first_king_the_down_pile() -> None:
    g = game_for()
    # row 0: AC AD AH AS KC KD KH KS. An ace fits only an up pile, a king only a down pile.
    moves = legal_moves_text(g)
    assert "AC " + place(0, 0, "up") in moves and "AC " + place(0, 0, "down") not in moves
    assert "KC " + place(0, 4, "down") in moves and "KC " + place(0, 4, "up") not in moves
    act(g, "AC " + place(0, 0, "up"))
    act(g, "KC " + place(0, 4, "down"))
    assert up(g) == [1, 0, 0, 0] and down(g) == [1, 0, 0, 0]
    check_position(g)


def test_the_second_ace_and_king_are_ordinary_cards() -> None:
    # row 0: AC KC, then row 1 puts the second AC and KC below them once they are played
    deck = babette_deck(["AC KC 5D 5D 5H 5H 5S 5S", "AC KC 6D 6D 6H 6H 6S 6S"])
    g = game_for(deck)
    act(g, "AC " + place(0, 0, "up"))
    act(g, "KC " + place(0, 1, "down"))
    act(g, "deal a row")
    # the second AC fits no pile (up wants 2C, down wants QC); likewise the second KC
    for c in (0, 1):
        assert not g.is_legal(action_id(g, place(1, c, "up")))
        assert not g.is_legal(action_id(g, place(1, c, "down")))
    assert legal_moves_text(g) == ["deal a row"]


def _check_first_copy_then_second(rows: list[str], card: str, *, first: str, second: str, suit: int) -> None:
    """Rows 0 and 1 of ``rows`` hold one suit's cards from the end of its ``second`` pile on: all
    of row 0 and row 1's first four go there, leaving that pile one card short and the ``first``
    pile empty. Row 1's places 4 and 5 both hold ``card``, the last card of the one and the first of
    the other: either copy may go to the ``first`` pile only; once one has, the other may go only
    to the ``second`` pile, and goes."""
    g = game_for(babette_deck(rows))
    pile = {"up": up, "down": down}
    for c in range(8):
        act(g, place(0, c, second))
    act(g, "deal a row")
    for c in range(4):
        act(g, place(1, c, second))
    assert pile[second](g)[suit] == 12 and pile[first](g)[suit] == 0, f"the {second} pile is a card short"
    for c in (4, 5):
        assert g.is_legal(action_id(g, place(1, c, first)))
        assert not g.is_legal(action_id(g, place(1, c, second)))
    act(g, f"{card} " + place(1, 4, first))
    assert not g.is_legal(action_id(g, place(1, 5, first)))
    act(g, f"{card} " + place(1, 5, second))
    assert pile[second](g)[suit] == 13 and pile[first](g)[suit] == 1
    check_position(g)


def test_an_ace_goes_on_a_king_pile_only_once_its_ascending_pile_is_started() -> None:
    # The clubs king pile is down to 2C. The first ace of the suit starts the ascending pile: it
    # may not go onto the king pile; the second ace then ends the king pile.
    rows = ["KC QC JC TC 9C 8C 7C 6C", "5C 4C 3C 2C AC AC 9H 9S"]
    _check_first_copy_then_second(rows, "AC", first="up", second="down", suit=0)


def test_a_king_goes_on_an_ace_pile_only_once_its_descending_pile_is_started() -> None:
    rows = ["AH 2H 3H 4H 5H 6H 7H 8H", "9H TH JH QH KH KH 9C 9S"]
    _check_first_copy_then_second(rows, "KH", first="down", second="up", suit=2)


def test_foundations_follow_suit_and_sequence() -> None:
    g = game_for()
    play_row(g, 0)
    act(g, "deal a row")  # 2C 2D 2H 2S QC QD QH QS
    act(g, "2H " + place(1, 2, "up"))
    with pytest.raises(IllegalMove):
        g.apply(action_id(g, place(1, 2, "up")))  # the place is empty now
    assert up(g) == [1, 1, 2, 1]
    act(g, "QS " + place(1, 7, "down"))
    assert down(g) == [1, 1, 1, 2]
    # 2C cannot go down (the clubs down pile wants QC) and QC cannot go up
    assert not g.is_legal(action_id(g, place(1, 0, "down")))
    assert not g.is_legal(action_id(g, place(1, 4, "up")))


def test_a_card_that_fits_both_piles_goes_where_the_player_chooses() -> None:
    g = game_for()
    for r in range(6):
        play_row(g, r)
        act(g, "deal a row")
    # row 6: eight sevens; up piles are at 6, down piles at 8: every seven fits both
    assert up(g) == [6] * 4 and down(g) == [6] * 4
    moves = legal_moves_text(g)
    for i, c in enumerate(orderly_row(7).split()):
        assert f"{c} {place(6, i, 'up')}" in moves
        assert f"{c} {place(6, i, 'down')}" in moves
    act(g, "7C " + place(6, 0, "down"))
    assert down(g)[0] == 7 and up(g)[0] == 6
    # the other 7C now fits only the up pile
    assert not g.is_legal(action_id(g, place(6, 4, "down")))
    act(g, "7C " + place(6, 4, "up"))
    check_position(g)


def test_nothing_is_built_in_the_garden() -> None:
    kinds = {m.kind for m in Babette().moves}
    assert kinds == {Kind.UP, Kind.DOWN, Kind.DEAL, Kind.REDEAL}, "every card move goes to a foundation"


# ---- whole games --------------------------------------------------------------------------------


def _win_moves() -> list[str]:
    """Moves that win ORDERLY's mirror deal: deal everything, re-deal, then play row by row."""
    moves = ["deal a row"] * 12 + ["re-deal the garden"]
    for r in range(13):
        moves += [place(r, i, "up" if i < 4 else "down") for i in range(8)]
        if r < 12:
            moves.append("deal a row")
    return moves


def test_a_fixed_deal_and_move_list_win_through_a_redeal(engine: str) -> None:
    # The deal whose first re-deal gathers into ORDERLY: the new pack reads column 7 top to
    # bottom, then column 6, ..., so ORDERLY's card (7 - i) * 13 + r is dealt at row r, column i.
    deck = [ORDERLY[(7 - i) * 13 + r] for r in range(13) for i in range(8)]
    env = gym.make("patience_gym/Babette-v0", engine=engine)
    _, info = env.reset(options={"deck": deck})
    game: Babette = env.unwrapped.game  # type: ignore[attr-defined]
    term = False
    for text in _win_moves():
        assert not term
        a = [x for x in np.flatnonzero(info["action_mask"]) if game.moves[x].text == text]
        assert len(a) == 1, (text, legal_moves_text(game))
        _, _, term, trunc, info = env.step(a[0])
        assert not trunc
    assert term and info["won"] and info["foundation_cards"] == 104
    assert info["redeals_left"] == 1


def test_a_stuck_game_ends_lost_once_pack_and_redeals_are_spent(engine: str) -> None:
    # Always take the highest legal id (deal before playing): on this deal the game sticks.
    game: Babette
    game, info = play_to_the_end("Babette-v0", engine, pick=-1)
    assert not info["won"] and not info["action_mask"].any()
    assert game.pack == [] and game.redeals == 2 and game.garden_cards()
    for _, x in game.available_places():  # no available card fits a foundation
        assert not any(game.fits(f, x) for f in SUIT_PILES[x])
