"""Babette rule scenarios (RULES.md section 3), each from a fixed deal.

The garden is drawn as rows, first-dealt row on top; column i is the i-th card of each row.
Most scenarios use ``ORDERLY``: row k (1..13) holds the four suits' rank-k cards (for the up
piles) and then the four suits' rank-(14-k) cards (for the down piles), so row 1 is
``AC AD AH AS KC KD KH KS``, row 7 eight sevens, row 13 ``KC KD KH KS AC AD AH AS``.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import patience_gym  # noqa: F401
from patience_gym.core.cards import NAME, ordered_pack
from patience_gym.core.game import IllegalMove
from patience_gym.games.babette import Babette
from patience_gym.testing import act, action_id, check_position, legal_moves_text

SUITS = "CDHS"


def babette_deck(rows: list[str], rest: str = "") -> list[str]:
    """A two-pack deck that deals ``rows`` (8 cards each, left to right) then ``rest``.

    Cards not named follow in A..K, C D H S order, each pack's copy in turn.
    """
    named = [c for r in rows for c in r.split()] + rest.split()
    assert all(len(r.split()) == 8 for r in rows), "a garden row holds 8 cards"
    pool = [NAME[c] for c in ordered_pack(2)]
    for c in named:
        pool.remove(c)  # raises when a card is named three times
    return named + pool


def orderly_row(k: int) -> str:
    ranks = "A23456789TJQK"
    return " ".join([ranks[k - 1] + s for s in SUITS] + [ranks[13 - k] + s for s in SUITS])


ORDERLY = babette_deck([orderly_row(k) for k in range(1, 14)])


def game_for(deck: list[str] = ORDERLY) -> Babette:
    g = Babette()
    g.new_game(deck=deck)
    return g


def garden(g: Babette) -> list[list[str]]:
    return [[NAME[c] for c in col] for col in g.garden]


def play_row(g: Babette, row: int) -> None:
    """Play the whole top row of ``ORDERLY`` row ``row`` (all available) to the foundations."""
    for i in range(8):
        act(g, f"garden {i} -> {'up' if i < 4 else 'down'} foundation")


def test_the_first_row_is_laid_out_by_the_deal() -> None:
    g = game_for()
    assert garden(g) == [[c] for c in orderly_row(1).split()]
    assert len(g.pack) == 96
    assert g.pack_order()[:8] == [NAME.index(c) for c in orderly_row(2).split()], "the pack deals on in order"


def test_dealing_a_row_is_one_action_covering_every_column() -> None:
    g = game_for()
    act(g, "deal a row")
    assert garden(g) == [[a, b] for a, b in zip(orderly_row(1).split(), orderly_row(2).split())]
    # the row covers the one above: only the new cards are available
    assert legal_moves_text(g) == ["deal a row"], "2s and queens fit no empty foundation"


def test_first_ace_starts_the_up_pile_and_first_king_the_down_pile() -> None:
    g = game_for()
    # row 1: AC AD AH AS KC KD KH KS. An ace fits only an up pile, a king only a down pile.
    moves = legal_moves_text(g)
    assert "AC garden 0 -> up foundation" in moves and "AC garden 0 -> down foundation" not in moves
    assert "KC garden 4 -> down foundation" in moves and "KC garden 4 -> up foundation" not in moves
    act(g, "AC garden 0 -> up foundation")
    act(g, "KC garden 4 -> down foundation")
    assert g.up == [1, 0, 0, 0] and g.down == [1, 0, 0, 0]
    check_position(g)


def test_the_second_ace_and_king_are_ordinary_cards() -> None:
    # row 1: AC KC, then row 2 puts the second AC and KC on columns 0 and 1 once they are empty
    deck = babette_deck(["AC KC 5D 5D 5H 5H 5S 5S", "AC KC 6D 6D 6H 6H 6S 6S"])
    g = game_for(deck)
    act(g, "AC garden 0 -> up foundation")
    act(g, "KC garden 1 -> down foundation")
    act(g, "deal a row")
    # the second AC fits no pile (up wants 2C, down wants QC); likewise the second KC
    assert not g.is_legal(action_id(g, "garden 0 -> up foundation"))
    assert not g.is_legal(action_id(g, "garden 0 -> down foundation"))
    assert not g.is_legal(action_id(g, "garden 1 -> up foundation"))
    assert not g.is_legal(action_id(g, "garden 1 -> down foundation"))
    assert legal_moves_text(g) == ["deal a row"]


def test_foundations_follow_suit_and_sequence() -> None:
    g = game_for()
    play_row(g, 1)
    act(g, "deal a row")  # 2C 2D 2H 2S QC QD QH QS
    act(g, "2H garden 2 -> up foundation")
    with pytest.raises(IllegalMove):
        g.apply(action_id(g, "garden 2 -> up foundation"))  # column 2 is empty now
    assert g.up == [1, 1, 2, 1]
    act(g, "QS garden 7 -> down foundation")
    assert g.down == [1, 1, 1, 2]
    # 2C cannot go down (the clubs down pile wants QC) and QC cannot go up
    assert not g.is_legal(action_id(g, "garden 0 -> down foundation"))
    assert not g.is_legal(action_id(g, "garden 4 -> up foundation"))


def test_a_card_that_fits_both_piles_goes_where_the_player_chooses() -> None:
    g = game_for()
    for row in range(1, 7):
        play_row(g, row)
        act(g, "deal a row")
    # row 7: eight sevens; up piles are at 6, down piles at 8: every seven fits both
    assert g.up == [6] * 4 and g.down == [6] * 4
    moves = legal_moves_text(g)
    for i, c in enumerate(orderly_row(7).split()):
        assert f"{c} garden {i} -> up foundation" in moves
        assert f"{c} garden {i} -> down foundation" in moves
    act(g, "7C garden 0 -> down foundation")
    assert g.down[0] == 7 and g.up[0] == 6
    # the other 7C now fits only the up pile
    assert not g.is_legal(action_id(g, "garden 4 -> down foundation"))
    act(g, "7C garden 4 -> up foundation")
    check_position(g)


def test_vacancies_are_not_refilled_and_nothing_is_built_in_the_garden() -> None:
    assert [m.kind for m in Babette().moves] == ["up"] * 8 + ["down"] * 8 + ["deal", "redeal"]
    g = game_for()
    act(g, "AC garden 0 -> up foundation")
    assert g.garden[0] == [] and len(g.pack) == 96, "the vacancy stays empty"
    act(g, "deal a row")  # the new row puts its first card into the emptied column
    assert garden(g)[0] == ["2C"] and garden(g)[1] == ["AD", "2D"]
    act(g, "2C garden 0 -> up foundation")
    assert garden(g)[0] == []
    # taking a card out makes the one above it available
    act(g, "deal a row")
    assert garden(g)[1] == ["AD", "2D", "3D"]


def test_deal_only_while_the_pack_lasts_and_redeal_only_when_it_is_out() -> None:
    g = game_for()
    for _ in range(12):
        assert not g.is_legal(action_id(g, "re-deal the garden"))
        act(g, "deal a row")
    assert g.pack == [] and not g.is_legal(action_id(g, "deal a row"))
    assert [len(c) for c in g.garden] == [13] * 8
    assert g.is_legal(action_id(g, "re-deal the garden"))


def _partly_played() -> Babette:
    """ORDERLY with rows 1-11 played off, row 12 dealt and its queens played, row 13 dealt.

    garden (columns 0..7):   KC KD KH KS 2C 2D 2H 2S
                                         AC AD AH AS
    """
    g = game_for()
    for row in range(1, 12):
        play_row(g, row)
        act(g, "deal a row")
    for i in range(4):
        act(g, f"garden {i} -> up foundation")  # QC QD QH QS
    act(g, "deal a row")
    assert garden(g) == [
        ["KC"],
        ["KD"],
        ["KH"],
        ["KS"],
        ["2C", "AC"],
        ["2D", "AD"],
        ["2H", "AH"],
        ["2S", "AS"],
    ]
    assert g.pack == []
    return g


def test_redeal_gathers_the_columns_in_the_rule_book_order() -> None:
    g = _partly_played()
    act(g, "re-deal the garden")
    # column 0 picked up first, the next under it, and turned over: the rightmost column comes
    # first, each column from its first-dealt card
    new_pack = ["2S", "AS", "2H", "AH", "2D", "AD", "2C", "AC", "KS", "KH", "KD", "KC"]
    dealt = [NAME[col[0]] for col in g.garden]
    assert dealt == new_pack[:8], "the re-deal lays out the first row of the new pack"
    assert [NAME[c] for c in g.pack_order()] == new_pack[8:]
    assert g.redeals == 1
    # the last row is short: 4 cards, left to right
    act(g, "deal a row")
    assert [len(c) for c in g.garden] == [2, 2, 2, 2, 1, 1, 1, 1]
    assert [NAME[col[-1]] for col in g.garden[:4]] == ["KS", "KH", "KD", "KC"]
    assert g.pack == [] and not g.is_legal(action_id(g, "deal a row"))
    check_position(g)


def test_gathering_skips_empty_columns_and_keeps_dealing_order() -> None:
    g = game_for()
    for _ in range(12):
        act(g, "deal a row")
    # column 7 reads KS QS JS ... 2S AS from its first-dealt card: play it all off, A up to K
    for _ in range(13):
        act(g, "garden 7 -> up foundation")
    act(g, "AH garden 6 -> up foundation")
    assert g.garden[7] == [] and len(g.garden[6]) == 12
    act(g, "re-deal the garden")
    order = [NAME[col[0]] for col in g.garden] + [NAME[c] for c in g.pack_order()]
    assert order[:16] == [
        "KH",
        "QH",
        "JH",
        "TH",
        "9H",
        "8H",
        "7H",
        "6H",
        "5H",
        "4H",
        "3H",
        "2H",
        "KD",
        "QD",
        "JD",
        "TD",
    ]
    assert order[-3:] == ["JC", "QC", "KC"], "column 0 (AC .. KC) comes last, its last-dealt card at the end"
    assert len(order) == 104 - 14


def test_two_redeals_and_no_more() -> None:
    g = game_for()
    for _ in range(3):
        while g.pack:
            act(g, "deal a row")
        if g.redeals < 2:
            act(g, "re-deal the garden")
    assert g.redeals == 2 and g.pack == []
    assert not g.is_legal(action_id(g, "re-deal the garden"))
    assert all(m.kind in ("up", "down") for m in (g.moves[a] for a in g.legal_actions()))
    assert g.extra_info() == {"redeals_left": 0}


def test_the_pack_stays_hidden() -> None:
    # two decks that differ only in cards still in the pack give the same observation
    a = babette_deck([orderly_row(1)], rest="5C 9H")
    b = babette_deck([orderly_row(1)], rest="9H 5C")
    ga, gb = game_for(a), game_for(b)
    assert np.array_equal(ga.observation(), gb.observation())
    act(ga, "deal a row")
    act(gb, "deal a row")
    assert not np.array_equal(ga.observation(), gb.observation()), "dealt cards are seen"


def test_observation_shows_garden_depth_and_foundations() -> None:
    g = game_for()
    act(g, "AC garden 0 -> up foundation")
    act(g, "deal a row")
    obs = g.observation()
    place = g.layout.view(obs, "card_place")
    depth = g.layout.view(obs, "depth")
    ad = NAME.index("AD")
    assert place[ad, 0, 1] == 1 and depth[ad, 0] == pytest.approx(1 / 12)  # AD under 2D
    assert place[NAME.index("AC"), 0, 8] == 1  # on an up foundation
    assert place[NAME.index("AC"), 1, 10] == 1  # the other AC: in the pack
    assert g.layout.view(obs, "foundation")[0] == pytest.approx(1 / 13)
    assert g.layout.view(obs, "pack_size")[0] == pytest.approx(88 / 104)


def _win_moves() -> list[str]:
    """Moves that win ORDERLY's mirror deal: deal everything, re-deal, then play row by row."""
    moves = ["deal a row"] * 12 + ["re-deal the garden"]
    for row in range(1, 14):
        moves += [f"garden {i} -> {'up' if i < 4 else 'down'} foundation" for i in range(8)]
        if row < 13:
            moves.append("deal a row")
    return moves


def test_a_fixed_deal_and_move_list_win_through_a_redeal() -> None:
    # The deal whose first re-deal gathers into ORDERLY: the new pack reads column 7 top to
    # bottom, then column 6, ..., so ORDERLY's card (7 - i) * 13 + r is dealt at row r, column i.
    deck = [ORDERLY[(7 - i) * 13 + r] for r in range(13) for i in range(8)]
    env = gym.make("patience_gym/Babette-v0")
    _, info = env.reset(options={"deck": deck})
    game = env.unwrapped.game
    term = False
    for text in _win_moves():
        assert not term
        a = [x for x in np.flatnonzero(info["action_mask"]) if game.moves[x].text == text]
        assert len(a) == 1, (text, legal_moves_text(game))
        _, _, term, trunc, info = env.step(a[0])
        assert not trunc
    assert term and info["won"] is True and info["foundation_cards"] == 104
    assert info["redeals_left"] == 1


def test_a_stuck_game_ends_lost_once_pack_and_redeals_are_spent() -> None:
    # Always take the lowest legal id (plays before dealing): on this deal the game sticks.
    env = gym.make("patience_gym/Babette-v0")
    _, info = env.reset(seed=0)
    game = env.unwrapped.game
    term = False
    while not term:
        _, _, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        assert not trunc
    assert info["won"] is False and not info["action_mask"].any()
    assert game.pack == [] and game.redeals == 2 and any(game.garden)
    for col in game.garden:  # no available card fits a foundation
        if col:
            assert not game.fits_up(col[-1]) and not game.fits_down(col[-1])
