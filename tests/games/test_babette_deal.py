"""Babette rule scenarios (docs/rules.md section 3), each from a fixed deal: the table, the deal,
which garden cards are available, the pack and re-deals, and what the player sees.

Decks and helpers: tests/helpers/babette.py.
"""

from __future__ import annotations

import numpy as np
import pytest

import patience_gym  # noqa: F401
from patience_gym.agents.policies.heuristics.babette import heuristic
from patience_gym.core.cards import names, parse_card
from patience_gym.core.moves import Move
from patience_gym.games.babette import EMPTY, TABLE, UP_ROW, Babette, Kind
from patience_gym.testing import act, action_id, check_position, legal_moves_text
from tests.helpers import pile_read_back, scenario_deal
from tests.helpers.babette import (
    ORDERLY,
    RELEASE,
    babette_deck,
    cells,
    game_for,
    garden,
    orderly_row,
    place,
    play_row,
    up,
)

# each scenario on the Python engine, then in lockstep with the native one (tests/conftest.py)
pytestmark = pytest.mark.both_engines


# ---- the table and the deal ---------------------------------------------------------------------


def test_the_action_table_names_every_garden_place_and_both_foundations() -> None:
    g = Babette()
    assert g.n_actions == 2 * 13 * 8 + 2
    assert TABLE.ids(Kind.UP) == range(104) and TABLE.ids(Kind.DOWN) == range(104, 208)
    for r in range(13):
        for c in range(8):
            for pile, kind in (("up", Kind.UP), ("down", Kind.DOWN)):
                m = g.moves[action_id(g, place(r, c, pile))]
                assert (m.kind, divmod(m.src, 8)) == (kind, (r, c))
    assert [m.kind for m in g.moves[-2:]] == [Kind.DEAL, Kind.REDEAL]
    assert TABLE.first[Kind.DEAL] == 208 and TABLE.first[Kind.REDEAL] == 209


def test_a_move_of_an_unknown_kind_is_refused_not_taken_for_a_card_move() -> None:
    g = game_for()
    with pytest.raises(AssertionError):
        g._apply(Move("up", 0, UP_ROW))  # type: ignore[arg-type]  # a string, not Kind.UP
    assert g.foundation_cards == 0 and garden(g)[0][0] == "AC"


def test_describe_names_the_card_its_place_and_the_foundation() -> None:
    g = game_for()
    assert g.describe(action_id(g, place(0, 5, "down"))) == "KD garden row 0 col 5 -> down foundation"
    assert g.describe(action_id(g, place(3, 5, "up"))) == place(3, 5, "up"), "no card there yet"


def test_the_first_row_is_laid_out_by_the_deal() -> None:
    g = game_for()
    assert garden(g) == [orderly_row(1).split()]
    assert len(g.pack) == 96
    assert names(g.pack_order()[:8]) == orderly_row(2).split(), "the pack deals on in order"


def test_dealing_a_row_is_one_action_and_the_new_row_blocks_the_one_above() -> None:
    g = game_for()
    act(g, "deal a row")
    assert garden(g) == [orderly_row(1).split(), orderly_row(2).split()]
    assert not any(g.is_available(0, c) for c in range(8)), "row 1 covers row 0"
    assert all(g.is_available(1, c) for c in range(8))
    assert legal_moves_text(g) == ["deal a row"], "2s and queens fit no empty foundation"


# ---- blocking: only the next row ----------------------------------------------------------------


def test_a_card_is_released_when_the_place_below_it_is_vacated() -> None:
    g = game_for(RELEASE)
    act(g, "deal a row")
    assert not g.is_legal(action_id(g, place(0, 0, "up"))), "2C is covered by AC"
    act(g, "AC " + place(1, 0, "up"))
    assert g.grid[1][0] == EMPTY
    assert g.is_available(0, 0)
    assert "2C " + place(0, 0, "up") in legal_moves_text(g)
    check_position(g)


def test_a_released_card_stays_available_when_later_rows_are_dealt() -> None:
    g = game_for(RELEASE)
    act(g, "deal a row")
    act(g, "AC " + place(1, 0, "up"))
    act(g, "deal a row")  # JC 3C 9C 4C 4D 4H 4S 6C into row 2
    act(g, "deal a row")  # TC 3D 3H 3S 7C 7H 7S 8C into row 3
    assert garden(g)[:3] == [
        cells("2C 5D 5H 5S 6D 6H 6S 7D"),
        cells(".. 8D 8H 8S 9D 9H 9S TD"),
        cells("JC 3C 9C 4C 4D 4H 4S 6C"),
    ]
    # The place below 2C is still the vacancy: two rows further down do not block it (the
    # first edition's reading made JC and TC cover it, as the last cards of a column pile).
    assert g.is_available(0, 0)
    act(g, "2C " + place(0, 0, "up"))
    assert up(g)[0] == 2
    check_position(g)


def test_a_column_can_hold_several_available_cards() -> None:
    g = game_for(RELEASE)
    act(g, "deal a row")
    act(g, "AC " + place(1, 0, "up"))
    act(g, "deal a row")
    # column 0: 2C (row 0, over the vacancy) and JC (row 2, the last row) are both available
    assert [r for r in range(3) if g.is_available(r, 0)] == [0, 2]
    assert [r for r in range(3) if g.is_available(r, 1)] == [2], "5D and 8D stay covered"
    obs = g.observation()
    assert g.layout.view(obs, "available")[:3, 0].tolist() == [1.0, 0.0, 1.0]
    # 3C lies in row 2 of column 1: play 2C from row 0, then 3C, with JC still in column 0
    act(g, "2C " + place(0, 0, "up"))
    act(g, "3C " + place(2, 1, "up"))
    assert g.is_available(1, 1), "8D is released by 3C"
    assert up(g)[0] == 3 and garden(g)[2][0] == "JC"
    check_position(g)


def test_a_new_row_goes_below_and_never_into_a_vacancy() -> None:
    g = game_for()
    act(g, "AC " + place(0, 0, "up"))
    assert garden(g)[0][0] == ".." and len(g.pack) == 96, "the vacancy stays empty"
    act(g, "deal a row")  # the new row goes into row 1, under the vacancy too
    assert garden(g) == [["..", *orderly_row(1).split()[1:]], orderly_row(2).split()]
    act(g, "2C " + place(1, 0, "up"))
    assert garden(g)[1][0] == ".."
    act(g, "deal a row")
    assert garden(g)[2] == orderly_row(3).split() and len(g.grid) == 3
    assert g.is_available(1, 1) is False and g.is_available(2, 0) is True


def test_a_short_last_row_leaves_the_cards_above_its_gaps_available() -> None:
    g = _partly_played()
    act(g, "re-deal the garden")
    act(g, "deal a row")  # 12 cards in the garden: the second row holds 4
    assert garden(g)[1] == ["KS", "KH", "KD", "KC", "..", "..", "..", ".."]
    assert [g.is_available(0, c) for c in range(8)] == [False] * 4 + [True] * 4
    assert g.pack == [] and not g.is_legal(action_id(g, "deal a row"))
    check_position(g)


# ---- pack and re-deals --------------------------------------------------------------------------


def test_deal_only_while_the_pack_lasts_and_redeal_only_when_it_is_out() -> None:
    g = game_for()
    for _ in range(12):
        assert not g.is_legal(action_id(g, "re-deal the garden"))
        act(g, "deal a row")
    assert g.pack == [] and not g.is_legal(action_id(g, "deal a row"))
    assert len(g.grid) == 13 and all(EMPTY not in row for row in g.grid)
    assert g.is_legal(action_id(g, "re-deal the garden"))


def _partly_played() -> Babette:
    """ORDERLY with rows 0-10 played off, row 11 dealt and its queens played, row 12 dealt.

    grid rows 11 and 12:   .. .. .. .. 2C 2D 2H 2S
                           KC KD KH KS AC AD AH AS
    """
    g = game_for()
    for r in range(11):
        play_row(g, r)
        act(g, "deal a row")
    for i in range(4):
        act(g, place(11, i, "up"))  # QC QD QH QS
    act(g, "deal a row")
    assert garden(g)[11:] == [
        cells(".. .. .. .. 2C 2D 2H 2S"),
        cells("KC KD KH KS AC AD AH AS"),
    ]
    assert g.pack == [] and all(x == EMPTY for row in g.grid[:11] for x in row)
    return g


def test_redeal_gathers_the_columns_in_the_rule_book_order() -> None:
    g = _partly_played()
    act(g, "re-deal the garden")
    # column 0 picked up first, the next under it, and turned over: the rightmost column comes
    # first, each column from its first-dealt card
    new_pack = ["2S", "AS", "2H", "AH", "2D", "AD", "2C", "AC", "KS", "KH", "KD", "KC"]
    assert garden(g) == [new_pack[:8]], "the re-deal lays out the first row of the new pack"
    assert names(g.pack_order()) == new_pack[8:]
    assert g.redeals == 1
    check_position(g)


def test_gathering_skips_vacancies_and_keeps_dealing_order() -> None:
    g = game_for()
    act(g, "AC " + place(0, 0, "up"))
    act(g, "KS " + place(0, 7, "down"))
    for _ in range(12):
        act(g, "deal a row")
    # vacancies at the top of columns 0 and 7, under which 12 rows were dealt
    assert garden(g)[0][0] == ".." and garden(g)[0][7] == ".." and len(g.grid) == 13
    act(g, "re-deal the garden")
    order = names(g.grid[0]) + names(g.pack_order())
    # column 7 first, from its first-dealt card (QS, row 1) to its last (AS, row 12)
    assert order[:13] == ["QS", "JS", "TS", "9S", "8S", "7S", "6S", "5S", "4S", "3S", "2S", "AS", "KH"]
    assert order[-12:] == ["2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC", "JC", "QC", "KC"]
    assert len(order) == 104 - 2


def test_two_redeals_and_no_more() -> None:
    g = game_for()
    for _ in range(3):
        while g.pack:
            act(g, "deal a row")
        if g.redeals < 2:
            act(g, "re-deal the garden")
    assert g.redeals == 2 and g.pack == []
    assert not g.is_legal(action_id(g, "re-deal the garden"))
    assert all(m.kind in (Kind.UP, Kind.DOWN) for m in (g.moves[a] for a in g.legal_actions()))
    assert g.extra_info() == {"redeals_left": 0}


# ---- what the player sees -----------------------------------------------------------------------


def test_the_pack_stays_hidden() -> None:
    # two decks that differ only in cards still in the pack give the same observation
    a = babette_deck([orderly_row(1)], rest="5C 9H")
    b = babette_deck([orderly_row(1)], rest="9H 5C")
    ga, gb = game_for(a), game_for(b)
    assert np.array_equal(ga.observation(), gb.observation())
    assert heuristic(ga) == heuristic(gb)
    act(ga, "deal a row")
    act(gb, "deal a row")
    assert not np.array_equal(ga.observation(), gb.observation()), "dealt cards are seen"


def test_recall_shows_a_redealt_packs_order_and_nothing_of_the_first() -> None:
    g, plain = scenario_deal(Babette, ORDERLY, recall=True), game_for()
    assert g.layout.size == plain.layout.size + 3 * 52 == 5731
    for k in range(3):
        while g.pack:
            if k == 0:  # the first deal's pack: never seen, never shown
                assert not g.observation()[plain.layout.size :].any() and "pack, next" not in g.render()
                assert np.array_equal(g.observation()[: plain.layout.size], plain.observation())
                act(plain, "deal a row")
            rows = (
                g.layout.view(g.observation(), s) for s in ("pack_cards", "pack_depth", "pack_depth_lower")
            )
            assert k == 0 or pile_read_back(*rows) == g.pack, "the gathered pack, in its order"
            assert k == 0 or "pack, next first: " + " ".join(names(g.pack_order())) in g.render()
            act(g, "deal a row")
        if k < 2:
            act(g, "re-deal the garden")
            assert len(g.pack) == 104 - 8


def test_observation_shows_each_card_in_its_place_and_what_is_available() -> None:
    g = game_for()
    act(g, "AC " + place(0, 0, "up"))
    act(g, "deal a row")
    obs = g.observation()
    grid = g.layout.view(obs, "garden")
    assert grid[0, 1, parse_card("AD")] == 1 and grid[0, 1].sum() == 1
    assert grid[1, 0, parse_card("2C")] == 1
    assert grid[0, 0].sum() == 0, "the vacancy holds no card"
    assert grid[2:].sum() == 0, "no row dealt there yet"
    avail = g.layout.view(obs, "available")
    assert avail[0].tolist() == [0.0] * 8 and avail[1].tolist() == [1.0] * 8
    assert g.layout.view(obs, "rows_dealt")[0] == pytest.approx(2 / 13)
    assert g.layout.view(obs, "foundation")[0] == pytest.approx(1 / 13)
    unseen = g.layout.view(obs, "unseen")
    assert unseen[parse_card("AC")] == pytest.approx(0.5), "one AC on a pile, the other in the pack"
    assert unseen[parse_card("2C")] == pytest.approx(0.5) and unseen[parse_card("7H")] == 1.0
    assert g.layout.view(obs, "pack_size")[0] == pytest.approx(88 / 104)
    assert g.layout.view(obs, "redeals_left")[0] == 1.0


def test_the_heuristic_never_prefers_a_deal_to_a_foundation_move() -> None:
    # The greedy baseline scores a deal after looking at the dealt row: that row must not sway it.
    g = game_for()
    dealt = g.clone()
    dealt.apply(action_id(g, "deal a row"))
    for a in g.legal_actions():
        if g.moves[a].kind in (Kind.UP, Kind.DOWN):
            played = g.clone()
            played.apply(a)
            assert heuristic(played) > heuristic(dealt)
