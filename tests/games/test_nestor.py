"""Nestor rule scenarios (docs/rules.md section 2), each from a fixed deal.

Boards list the six rows top to bottom; the last row holds the available cards.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import patience_gym  # noqa: F401
from patience_gym.core.cards import RANK, names, parse_card
from patience_gym.core.moves import Move
from patience_gym.games.nestor import TABLE, Kind, Nestor, rectified_deal
from patience_gym.testing import act, action_id, deck, legal_moves_text, rest_of_pack
from tests.helpers import replay_the_recorded_win, scenario_deal

# each scenario on the Python engine, then in lockstep with the native one (tests/conftest.py)
pytestmark = pytest.mark.both_engines


def nestor_deck(rows: list[str], reserve: str) -> list[str]:
    """A pack dealing ``rows`` (6 rows of 8, no rank twice in a column) and then ``reserve``."""
    pack = deck(" ".join(rows) + " " + reserve)
    assert len(pack) == 52 and len(set(pack)) == 52
    return pack


# Every column holds six different ranks, so the deal needs no rectifying.
#   col:  0  1  2  3  4  5  6  7
ROWS = [
    "AC 2C 3C 4C 5C 6C 7C 8C",
    "9C TC JC QC KC AD 2D 3D",
    "4D 5D 6D 7D 8D 9D TD JD",
    "QD KD AH 2H 3H 4H 5H 6H",
    "7H 8H 9H TH JH QH KH AS",
    "2S 3S 4S 5S 6S 7S 8S 9S",
]
RESERVE = "TS JS QS KS"
RESERVE_UP = 8  # the card_place column "reserve 0, face up"; reserve place k is RESERVE_UP + k


def game_for(rows: list[str] = ROWS, reserve_cards: str = RESERVE, **options: object) -> Nestor:
    return scenario_deal(Nestor, nestor_deck(rows, reserve_cards), **options)


def test_deal_without_conflicts_is_row_by_row() -> None:
    g = game_for()
    assert names(g.cols[0]) == ["AC", "9C", "4D", "QD", "7H", "2S"]
    assert names(g.cols[7]) == ["8C", "3D", "JD", "6H", "AS", "9S"]
    assert names(c for c in g.reserve if c is not None) == RESERVE.split()


def test_a_card_whose_rank_is_in_its_column_goes_to_the_bottom_of_the_pack() -> None:
    # The 9th card (row 1, column 0) is 5D, but column 0 already holds 5C: 5D goes to the
    # bottom of the pack and 9C, the next card, takes its place; every later card shifts by
    # one, and 5D, now last in the pack, ends as the last reserve card.
    head = ["5C", "2C", "3C", "4C", "AC", "6C", "7C", "8C", "5D", "9C", "TC", "JC", "QC", "KC", "AD", "2D"]
    cols, reserve = rectified_deal([parse_card(c) for c in head + rest_of_pack(head, 1)])
    assert names(cols[0][:2]) == ["5C", "9C"]
    assert names(cols[1][:2]) == ["2C", "TC"]
    assert names(cols[7]) == ["8C", "3D", "QD", "7H", "2S", "TS"]
    assert names(reserve) == ["JS", "QS", "KS", "5D"]


def test_when_no_card_left_fits_the_next_card_is_placed_anyway() -> None:
    # Columns 0-6 get six distinct ranks each; column 7 gets A 2 3 4 5 in its first five rows.
    # The last five cards (the 48th place and the reserve) are all of ranks A-5: none fits
    # column 7, so after trying every one the next card (AD) is placed anyway, and the reserve
    # keeps the pack's order.
    col7 = ["AC", "2C", "3C", "4C", "5C"]
    last5 = ["AD", "2D", "3D", "4D", "5D"]
    others = rest_of_pack(col7 + last5, 1)
    # 42 cards for columns 0-6 (six each, distinct ranks per column): ranks 6..K x 4 suits and
    # A-5 of hearts and spades: deal them so each column gets distinct ranks
    assert len(others) == 42
    by_rank = sorted(others, key=lambda n: (RANK[parse_card(n)], n))
    cols = [by_rank[i::7] for i in range(7)]  # 7 columns of 6, ranks spread apart
    for col in cols:
        assert len({RANK[parse_card(c)] for c in col}) == 6
    rows = []
    for r in range(6):
        row = [cols[i][r] for i in range(7)] + ([col7[r]] if r < 5 else [])
        rows.append(row)
    pack = [c for row in rows for c in row] + last5
    cols_dealt, reserve = rectified_deal([parse_card(c) for c in pack])
    assert names(cols_dealt[7]) == [*col7, "AD"]
    assert names(reserve) == ["2D", "3D", "4D", "5D"]


def _pair_position(reserve_cards: str = "TS JS QS KS", **options: object) -> Nestor:
    """Bottom row ends 7S (column 5) and 7D (column 7): one pair is on offer from the start.

    Row 4 (above the bottom row) is 7H 8H 9H TH JH QH KH AS.
    """
    rows = [
        "AC 2C 3C 4C 5C 6C 8S 8C",
        "9C TC JC QC KC AD 7C 3D",
        "4D 5D 6D 8D 9D TD 2D JD",
        "QD KD AH 2H 3H 4H 5H 6H",
        "7H 8H 9H TH JH QH KH AS",
        "2S 3S 4S 5S 6S 7S 9S 7D",
    ]
    return game_for(rows, reserve_cards, **options)


def test_only_available_cards_of_equal_rank_pair() -> None:
    g = _pair_position()
    # 7H (column 0, row 4) has rank 7 too but is covered by 2S: only 7S + 7D pair
    assert legal_moves_text(g) == ["pair 7S (column 5) + 7D (column 7)"]
    act(g, "pair 7S (column 5) + 7D (column 7)")
    assert names((g.cols[5][-1], g.cols[7][-1])) == ["QH", "AS"]
    assert g.foundation_cards == 2 and names(g.discard) == ["7S", "7D"]


def test_strict_reserve_turns_only_when_no_pair_can_be_made() -> None:
    g = _pair_position()
    assert not g.is_legal(action_id(g, "turn up reserve")), "a pair is on offer"
    act(g, "pair 7S (column 5) + 7D (column 7)")
    assert legal_moves_text(g) == ["turn up reserve"]


def test_a_turned_reserve_card_stays_available_until_paired() -> None:
    g = _pair_position("KS JS QS TS")
    act(g, "pair 7S (column 5) + 7D (column 7)")
    act(g, "turn up reserve")  # KS: KH is covered by 9S, no pair
    act(g, "turn up reserve")  # JS: no pair
    act(g, "turn up reserve")  # QS pairs with QH, uncovered by the first pair
    assert legal_moves_text(g) == ["pair QH (column 5) + QS (reserve 2)"]
    act(g, "pair QH (column 5) + QS (reserve 2)")
    place = g.layout.view(g.observation(), "card_place")
    for name, k in (("KS", 0), ("JS", 1)):  # turned earlier, never paired: face up in their places
        assert place[parse_card(name), RESERVE_UP + k] == 1.0
    assert "pair 4S (column 2) + 4H (column 5)" in legal_moves_text(g)


def test_stuck_with_the_reserve_turned_is_a_loss() -> None:
    g = game_for()
    for _ in range(4):
        act(g, "turn up reserve")
    assert not g.legal_mask().any() and not g.won


def test_open_reserve_shows_all_four_and_never_turns() -> None:
    g = _pair_position("TS JS QS KS", reserve="open")
    assert "pair KH (column 6) + KS (reserve 3)" not in legal_moves_text(g), "KH is covered"
    assert not g.is_legal(action_id(g, "turn up reserve"))
    act(g, "pair 7S (column 5) + 7D (column 7)")
    assert "pair QH (column 5) + QS (reserve 2)" in legal_moves_text(g)
    place = g.layout.view(g.observation(), "card_place")
    assert all(
        place[parse_card(n), RESERVE_UP + k] == 1.0
        for k, n in enumerate(("TS", "JS", "QS", "KS"))
        if n != "QS"
    )


def test_a_deal_with_no_move_at_all_ends_at_once(engine: str) -> None:
    # open reserve, no two equal ranks available: lost before the first move
    env = gym.make("patience_gym/Nestor-v0", engine=engine, reserve="open")
    _, info = env.reset(options={"deck": nestor_deck(ROWS, RESERVE)})
    assert not info["action_mask"].any()
    _, reward, term, trunc, info = env.step(0)
    assert term and not trunc and reward == 0.0 and not info["won"]


def test_unturned_reserve_never_reaches_the_observation() -> None:
    a = game_for(ROWS, "TS JS QS KS")
    b = game_for(ROWS, "KS QS JS TS")
    assert a.state_key() != b.state_key()
    assert np.array_equal(a.observation(), b.observation())
    act(a, "turn up reserve")
    act(b, "turn up reserve")
    assert not np.array_equal(a.observation(), b.observation())


def test_a_fixed_deal_and_move_list_win(engine: str) -> None:
    info, total = replay_the_recorded_win("nestor_win.json", "Nestor-v0", engine)
    assert info["won"] and total == pytest.approx(1.0)


def test_lost_game_terminates_without_a_win(engine: str) -> None:
    env = gym.make("patience_gym/Nestor-v0", engine=engine)
    _, info = env.reset(options={"deck": nestor_deck(ROWS, RESERVE)})
    for _ in range(4):
        assert env.unwrapped.describe_action(int(np.flatnonzero(info["action_mask"])[0])) == "turn up reserve"
        _, _, term, _, info = env.step(action_id(env.unwrapped.game, "turn up reserve"))
    assert term and not info["won"] and info["foundation_cards"] == 0


def test_the_action_table_pairs_every_two_places_then_turns() -> None:
    g = Nestor()
    assert len(g.moves) == 67 and TABLE.ids(Kind.PAIR) == range(66) and TABLE.first[Kind.TURN] == 66
    assert g.moves[0].text == "column 0 + column 1" and g.moves[65].text == "reserve 2 + reserve 3"
    assert g.moves[66].text == "turn up reserve"


def test_a_move_of_an_unknown_kind_is_refused_not_taken_for_a_pair() -> None:
    g = game_for()
    with pytest.raises(AssertionError):
        g._apply(Move("pair", 0, 1))  # a string, not Kind.PAIR
    assert g.foundation_cards == 0


def test_the_observation_says_which_reserve_place_holds_a_turned_card() -> None:
    """The actions name reserve places 8-11, so the observation must place a turned card in its
    own reserve place: the same reserve cards in another order read differently."""
    a = game_for(reserve="open")
    b = game_for(reserve_cards="JS TS QS KS", reserve="open")
    assert a.render() != b.render()
    assert not np.array_equal(a.observation(), b.observation())
