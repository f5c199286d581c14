"""The Congress rule scenarios (docs/rules.md section 7), each from a fixed deal.

``congress_deck`` inverts the deal: give the four helps, the first row of rivers and the first
pack cards (next card first) and it returns the 104-card pack that deals them, aces in front.
"""

from __future__ import annotations

from collections import Counter

import gymnasium as gym
import numpy as np
import pytest

import patience_gym  # noqa: F401
from patience_gym.agents.policies.heuristics.congress import heuristic
from patience_gym.core.cards import NAME, names, ordered_pack
from patience_gym.core.moves import Move
from patience_gym.games.congress import TABLE, Congress, Kind
from patience_gym.testing import act, action_id, legal_moves_text, rest_of_pack
from tests.helpers import check_action_table, scenario_deal

# each scenario on the Python engine, then in lockstep with the native one (tests/conftest.py)
pytestmark = pytest.mark.both_engines


ACES = ["AC", "AD", "AH", "AS", "AC", "AD", "AH", "AS"]
FULL = Counter(NAME[c] for c in ordered_pack(2))


def congress_deck(helps: str, row: str, pack: str = "", aces_first: bool = True) -> list[str]:
    """A pack dealing ``helps`` (4 cards) and the river ``row`` (8), then ``pack`` in order; the
    cards not named follow in the ordered packs' order."""
    named = helps.split() + row.split() + pack.split()
    assert len(helps.split()) == 4 and len(row.split()) == 8
    tail = rest_of_pack(ACES + named, 2)
    deck = ACES + named + tail if aces_first else named + tail + ACES
    assert len(deck) == 104
    return deck


def game_for(helps: str, row: str, pack: str = "") -> Congress:
    return scenario_deal(Congress, congress_deck(helps, row, pack))


def ranks(g: Congress) -> list[int]:
    """The rank of each foundation's top card, C D H S C D H S."""
    return [len(pile) for pile in g.foundations]


def test_aces_are_taken_out_and_helps_then_rivers_dealt() -> None:
    deck = congress_deck("KC QD JH TS", "9C 8D 7H 6S 5C 4D 3H 2S", "KD QC")
    deck.remove("AH")
    deck.insert(7, "AH")  # among the river cards: dealt as if it were not there
    g = scenario_deal(Congress, deck)
    assert names(p[-1] for p in g.foundations) == ACES and g.foundation_cards == 0
    assert [names(h) for h in g.helps] == [["KC"], ["QD"], ["JH"], ["TS"], [], [], [], []]
    assert [names(col) for col in g.rivers] == [[c] for c in ["9C", "8D", "7H", "6S", "5C", "4D", "3H", "2S"]]
    assert g.rows == 1 and len(g.pack) == 84
    act(g, "deal the next row")
    assert [NAME[col[-1]] for col in g.rivers[:2]] == ["KD", "QC"]


def test_river_and_help_cards_go_to_the_foundations_in_suit() -> None:
    g = game_for("2C 2C KH KS", "3C 2D 4C 3D QS QS 2H JD")
    legal = set(legal_moves_text(g))
    assert {"2C help 0 -> foundation", "2C help 1 -> foundation", "2D river 1 -> foundation"} <= legal
    assert "3C river 0 -> foundation" not in legal  # the 2C is not up yet
    assert "2H river 6 -> foundation" in legal and "3D river 3 -> foundation" not in legal
    act(g, "2C help 0 -> foundation")
    act(g, "2C help 1 -> foundation")
    assert ranks(g) == [2, 1, 1, 1, 2, 1, 1, 1]  # the leftmost clubs foundation, then the other
    assert not g.is_legal(action_id(g, "river 2 -> foundation"))  # 4C: both clubs tops are 2s
    act(g, "3C river 0 -> foundation")
    assert ranks(g)[0] == 3 and ranks(g)[4] == 2
    act(g, "4C river 2 -> foundation")  # on the 3C
    assert names(g.foundations[0]) == ["AC", "2C", "3C", "4C"] and g.foundation_cards == 4


def test_only_the_last_card_of_a_river_column_is_available() -> None:
    g = game_for("KC KD KH KS", "2C 2D 2H 2S QC QD QH QS", "9C 9D 9H 9S 8C 8D 8H 8S")
    assert g.is_legal(action_id(g, "river 0 -> foundation"))
    act(g, "deal the next row")
    assert not [m for m in legal_moves_text(g) if "foundation" in m]  # the 2s are covered


def test_marriages_onto_help_tops_same_suit_one_lower() -> None:
    g = game_for("8C 9D 8D KS", "7C 9C 7D QS 8D 3C 2H KH")
    legal = set(legal_moves_text(g))
    assert "7C river 0 -> help 0" in legal  # same suit, one lower
    assert not [m for m in legal if m.startswith("9C river 1 -> help")]  # one higher
    assert "7D river 2 -> help 0" not in legal and "7D river 2 -> help 2" in legal  # suit
    assert {"QS river 3 -> help 3", "8D river 4 -> help 1"} <= legal
    assert "8D help 2 -> help 1" in legal  # a help top married onto another help
    assert not [a for a in g.legal_actions() if g.moves[a].dst >= 4]  # while the pack lasts: 4 helps
    act(g, "8D help 2 -> help 1")
    assert names(g.helps[1]) == ["9D", "8D"] and g.helps[2] == []
    act(g, "7D river 2 -> help 1")
    assert names(g.helps[1]) == ["9D", "8D", "7D"]
    # Help cards never go to the rivers: the table has no such move.
    assert not any(m.src >= 0 and "river" in m.text.split("->")[1] for m in g.moves)


def test_refill_fills_river_gaps_top_row_first_then_help_gaps() -> None:
    row1 = "QD 8D JS 7C 9H 5C 3H 4H"
    g = game_for("8C 9D 2H KS", "QC 4S JD 2C TD 5S 6H 7H", row1 + " 3S 4D 5H 6C 7S 8S")
    assert not g.is_legal(action_id(g, "refill gaps from the pack"))  # no gap yet
    act(g, "deal the next row")
    assert g.rows == 2 and [NAME[col[-1]] for col in g.rivers] == row1.split()
    act(g, "7C river 3 -> help 0")
    act(g, "2C river 3 -> foundation")  # column 3 is empty: two gaps
    act(g, "8D river 1 -> help 1")
    act(g, "2H help 2 -> foundation")
    act(g, "3H river 6 -> foundation")
    assert g.helps[2] == [] and g.is_legal(action_id(g, "refill gaps from the pack"))
    act(g, "refill gaps from the pack")
    # row 0: column 3; row 1: columns 1, 3, 6; then help 2.
    assert names(g.rivers[3]) == ["3S", "5H"]
    assert names(g.rivers[1]) == ["4S", "4D"]
    assert names(g.rivers[6]) == ["6H", "6C"]
    assert names(g.helps[2]) == ["7S"]
    assert NAME[g.pack[-1]] == "8S" and len(g.pack) == 84 - 8 - 5
    assert not g.is_legal(action_id(g, "refill gaps from the pack"))


def test_dealing_a_row_refills_every_gap_first() -> None:
    g = game_for("2C KD KH KS", "2D QC QC QD QD JS JS JH", "3S 4D 5H 6C 7S 8S 9S TS JD QH")
    act(g, "2C help 0 -> foundation")
    act(g, "2D river 0 -> foundation")
    act(g, "deal the next row")
    assert names(g.rivers[0]) == ["3S", "5H"] and names(g.helps[0]) == ["4D"]
    assert [NAME[col[-1]] for col in g.rivers] == ["5H", "6C", "7S", "8S", "9S", "TS", "JD", "QH"]
    assert g.rows == 2 and len(g.pack) == 84 - 10


def _exhaust(g: Congress) -> None:
    while g.pack:
        act(g, "deal the next row")


def test_once_the_pack_is_exhausted_eight_help_places_open_to_river_cards() -> None:
    g = game_for("2C KD KH KS", "QC QC QD QD JS JS JH JH", "2C")
    act(g, "2C help 0 -> foundation")
    # While the pack lasts an empty help waits for a refill; places 4-7 are closed.
    assert not [
        a for a in g.legal_actions() if g.moves[a].kind is Kind.RIVER_TO_HELP and g.moves[a].dst in (0, 4)
    ]
    assert g.is_legal(action_id(g, "refill gaps from the pack"))
    _exhaust(g)  # the first deal puts the second 2C in help 0
    assert g.rows == 12 and [len(col) for col in g.rivers] == [12, 12, 12, 11, 11, 11, 11, 11]
    obs = g.observation()
    assert g.layout.view(obs, "pack_exhausted")[0] == 1.0
    assert not g.is_legal(action_id(g, "refill gaps from the pack"))
    assert not g.is_legal(action_id(g, "deal the next row"))
    for c in range(8):
        for h in range(4, 8):
            assert g.is_legal(action_id(g, f"river {c} -> help {h}"))
    assert not g.is_legal(action_id(g, "help 1 -> help 4"))  # helps start from the rivers only
    act(g, "2C help 0 -> foundation")  # a help played off may be started again
    assert ranks(g)[4] == 2
    for c in range(8):
        assert g.is_legal(action_id(g, f"river {c} -> help 0"))
    assert g.describe(action_id(g, "river 7 -> help 0")).endswith("river 7 -> empty help 0")
    for c, h in ((0, 4), (1, 5), (2, 6), (3, 7), (4, 0)):
        act(g, f"river {c} -> help {h}")
    # Eight helps: no place is left, so a river card may only be married.
    for a in g.legal_actions():
        move = g.moves[a]
        if move.kind is Kind.RIVER_TO_HELP:
            assert g.helps[move.dst], g.describe(a)
    assert sum(1 for h in g.helps if h) == 8 and len(g.helps) == 8


def test_help_to_help_back_and_forth_is_stopped_by_the_step_limit(engine: str) -> None:
    deck = congress_deck("6H 6H KS KC", "5H QC QD QS JC JD JS TC")
    env = gym.make("patience_gym/Congress-v0", engine=engine)
    env.reset(options={"deck": deck})
    game = env.unwrapped.game
    env.step(action_id(game, "river 0 -> help 0"))
    start = game.state_key()
    there, back = action_id(game, "help 0 -> help 1"), action_id(game, "help 1 -> help 0")
    env.step(there)
    env.step(back)
    assert game.state_key() == start  # the rules allow an endless loop
    steps, trunc, term = 3, False, False
    while not (term or trunc):
        _, _, term, trunc, _ = env.step(there if steps % 2 == 1 else back)
        steps += 1
    assert trunc and not term and steps == Congress.default_max_steps == 600
    assert gym.spec("patience_gym/Congress-v0").max_episode_steps == 600


def test_the_pack_order_is_not_observed_but_the_river_order_is() -> None:
    a = game_for("KC KD KH KS", "QC QD QH QS JC JD JH JS", "2C 3C")
    b = game_for("KC KD KH KS", "QC QD QH QS JC JD JH JS", "3C 2C")
    assert np.array_equal(a.observation(), b.observation())
    act(a, "deal the next row")
    act(b, "deal the next row")
    assert not np.array_equal(a.observation(), b.observation())
    grid = a.layout.view(a.observation(), "river_grid")
    assert grid[0, 0] == pytest.approx((NAME.index("QC") + 1) / 52)
    assert grid[1, 0] == pytest.approx((NAME.index("2C") + 1) / 52)
    assert heuristic(a) == heuristic(b)  # the heuristic reads counts only


def test_every_action_has_a_distinct_readable_text() -> None:
    check_action_table(Congress, 138)


def test_a_fixed_deck_is_won_through_the_env(engine: str) -> None:
    """Pack in rank order: play every card that fits a foundation, else refill, else deal."""
    rest = [
        n for n in sorted(FULL.elements(), key=lambda n: ("A23456789TJQK".index(n[0]), "CDHS".index(n[1])))
    ]
    for c in [*ACES, "2C", "2D", "2H", "2S", "2C", "2D", "2H", "2S", "3C", "3D", "3H", "3S"]:
        rest.remove(c)
    deck = congress_deck("2C 2D 2H 2S", "2C 2D 2H 2S 3C 3D 3H 3S", " ".join(rest))
    env = gym.make("patience_gym/Congress-v0", engine=engine)
    _, info = env.reset(options={"deck": deck})
    game = env.unwrapped.game
    refill, deal = action_id(game, "refill gaps from the pack"), action_id(game, "deal the next row")
    moves: list[str] = []
    total, term, trunc = 0.0, False, False
    while not (term or trunc):
        legal = np.flatnonzero(info["action_mask"]).tolist()
        to_found = [a for a in legal if game.moves[a].text.endswith("-> foundation")]
        a = to_found[0] if to_found else refill if refill in legal else deal
        assert a in legal, game.render()
        moves.append(game.describe(a))
        _, reward, term, trunc, info = env.step(a)
        total += reward
    assert term and not trunc and info["won"] and info["foundation_cards"] == 96
    assert total == pytest.approx(1.0)
    assert moves[:2] == ["2C river 0 -> foundation", "2D river 1 -> foundation"]
    assert moves.count("refill gaps from the pack") == 7 and len(moves) == 103


def test_the_action_table_is_read_off_by_kind() -> None:
    assert [TABLE.first[k] for k in Kind] == [0, 8, 16, 80, 81, 82] and len(TABLE) == 138
    assert TABLE[TABLE.first[Kind.RIVER_TO_HELP] + 8 * 3 + 5].text == "river 3 -> help 5"
    assert all(TABLE[a].kind is Kind.HELP_TO_HELP for a in TABLE.ids(Kind.HELP_TO_HELP))


def test_a_move_of_an_unknown_kind_is_refused_not_taken_for_a_deal() -> None:
    g = game_for("KC KD KH KS", "QC QD QH QS JC JD JH JS")
    with pytest.raises(AssertionError):
        g._apply(Move("deal"))  # a string, not Kind.DEAL
    assert g.rows == 1 and len(g.pack) == 84
