"""Anna rule scenarios (docs/rules.md section 5), each from a fixed deal.

``anna_deck(layout, pack)`` inverts the deal: ``layout`` is the cards as they turn up while the
helps are laid out (knaves included: they go to the foundations and the next card takes the
place), ``pack`` the cards turned next, and the cards not named follow (:func:`rest_of_pack`).
Most scenarios start from ``LAYOUT``:

    foundations: JC JC (both clubs piles started by the knaves in the layout)
    help 0: 5H   help 1: QD   help 2: 4H   help 3: 5S
    help 4: 6S   help 5: 7S   help 6: 8S   help 7: 9S
"""

from __future__ import annotations

import json
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import patience_gym  # noqa: F401
from patience_gym.core.cards import NAME, names, parse_card
from patience_gym.core.game import IllegalMove
from patience_gym.core.moves import Move
from patience_gym.games.anna import PLACES, TABLE, Anna, Kind
from patience_gym.testing import act, action_id, check_position, deck, legal_moves_text, rest_of_pack
from tests.helpers import (
    DATA,
    check_scenario_rollout,
    check_the_talons_order_is_seen,
    play_to_the_end,
    scenario_deal,
)

# each scenario on the Python engine, then in lockstep with the native one (tests/conftest.py)
pytestmark = pytest.mark.both_engines


LAYOUT = "JC 5H JC QD 4H 5S 6S 7S 8S 9S"


def anna_deck(layout: str, pack: str = "") -> list[str]:
    """A two-pack deck that lays out ``layout`` and then turns ``pack``; the cards not named
    follow in the ordered packs' order."""
    named = deck(layout) + deck(pack)
    return named + rest_of_pack(named, 2)


def game_for(pack: str = "", layout: str = LAYOUT, **options: Any) -> Anna:
    return scenario_deal(Anna, anna_deck(layout, pack), **options)


def helps(g: Anna) -> list[list[str]]:
    return [names(h) for h in g.helps]


def sizes(g: Anna) -> list[int]:
    """Cards on each foundation (0-7: two per suit, C C D D H H S S)."""
    return [len(pile) for pile in g.foundations]


def test_the_action_table_is_read_off_by_kind() -> None:
    assert [TABLE.first[k] for k in Kind] == [0, 1, 2, 3, 11, 19] and len(TABLE) == 75
    assert TABLE[TABLE.first[Kind.HELP_TO_HELP] + 7 * 3 + 5].text == "help 3 -> help 6"
    assert all(TABLE[a].kind is Kind.HELP_TO_HELP for a in TABLE.ids(Kind.HELP_TO_HELP))
    assert Anna().moves == TABLE.moves


def test_a_move_of_an_unknown_kind_is_refused_not_taken_for_a_marriage() -> None:
    g = game_for()
    with pytest.raises(AssertionError):
        g._apply(Move("help_h", 0, 2))  # type: ignore[arg-type]  # a string, not Kind.HELP_TO_HELP
    assert helps(g)[0] == ["5H"] and helps(g)[2] == ["4H"]


def test_knaves_in_the_layout_go_up_and_the_next_card_takes_their_place() -> None:
    g = game_for()
    assert helps(g) == [["5H"], ["QD"], ["4H"], ["5S"], ["6S"], ["7S"], ["8S"], ["9S"]]
    assert sizes(g) == [1, 1, 0, 0, 0, 0, 0, 0], "the two clubs knaves start piles 0 and 1"
    assert g.foundation_cards == 2 and len(g.pack) == 94 and g.talon == []
    check_position(g)


def test_a_knave_turned_from_the_pack_goes_up_at_once() -> None:
    g = game_for("JH 3C JH")
    act(g, "pack -> talon")
    assert sizes(g)[4] == 1 and g.talon == [], "JH starts the first hearts pile"
    act(g, "pack -> talon")
    assert names(g.talon) == ["3C"]
    act(g, "pack -> talon")
    assert sizes(g)[4:6] == [1, 1] and len(g.talon) == 1, "the second JH starts pile 5"


def test_foundations_build_down_in_suit() -> None:
    g = game_for("TC 8C TC 9C TD")
    act(g, "pack -> talon")
    assert legal_moves_text(g)[:2] == ["pack -> talon", "TC talon -> foundation 0"]
    act(g, "TC talon -> foundation 0")
    act(g, "pack -> talon")  # 8C: pile 0 wants 9C, pile 1 wants TC
    assert not g.is_legal(action_id(g, "talon -> foundation"))
    act(g, "pack -> talon")  # the second TC goes to pile 1, the one it fits
    act(g, "TC talon -> foundation 1")
    act(g, "pack -> talon")
    act(g, "9C talon -> foundation 0")
    act(g, "8C talon -> foundation 0")
    assert sizes(g)[:2] == [4, 2]
    act(g, "pack -> talon")  # TD: no diamonds knave is up yet
    assert not g.is_legal(action_id(g, "talon -> foundation"))
    # a help card goes up the same way: 9S has no pile (no spades knave)
    assert not g.is_legal(action_id(g, "help 7 -> foundation"))


def test_after_the_ace_comes_the_king_and_a_queen_never_goes_up() -> None:
    descending = "TC 9C 8C 7C 6C 5C 4C 3C 2C AC KC QC"
    g = game_for(descending, layout="JC 5H 6H QD 4H 5S 6S 7S 8S")
    for c in descending.split()[:-1]:
        act(g, "pack -> talon")
        act(g, f"{c} talon -> foundation 0")
    assert sizes(g)[0] == 12 and NAME[g.helps[0][0]] == "5H"
    assert names(g.foundations[0]) == ["JC", *descending.split()[:-1]], "the pile, knave first"
    act(g, "pack -> talon")
    assert NAME[g.talon[-1]] == "QC"
    assert not g.is_legal(action_id(g, "talon -> foundation")), "queens never go to the foundations"
    check_position(g)


def test_marriages_on_the_helps_ascend_in_suit() -> None:
    g = game_for()
    moves = legal_moves_text(g)
    assert "5H help 0 -> help 2" in moves, "5H on 4H"
    assert "4H help 2 -> help 0" not in moves, "never descending"
    assert "6S help 4 -> help 3" in moves and "5S help 3 -> help 2" not in moves, "same suit only"
    assert "6S help 4 -> help 0" not in moves and "5H help 0 -> help 3" not in moves
    act(g, "5H help 0 -> help 2")
    assert helps(g)[2] == ["4H", "5H"] and helps(g)[0] == []
    # help 2's top is now 5H: 6S still may not go there (suit), and the empty help 0 takes no help card
    for i in range(1, 8):
        assert not g.is_legal(action_id(g, f"help {i} -> help 0")), "an empty help takes only the talon"
    check_position(g)


def test_talon_marriage_and_nothing_is_put_on_a_queen() -> None:
    g = game_for("KD 6H 3H")
    act(g, "pack -> talon")  # KD: QD in help 1 would be the next lower card, but it is a queen
    assert not g.is_legal(action_id(g, "talon -> help 1"))
    assert not any("talon ->" in m for m in legal_moves_text(g)), "KD goes nowhere"
    act(g, "pack -> talon")  # 6H goes on 5H
    act(g, "6H talon -> help 0")
    assert helps(g)[0] == ["5H", "6H"]
    act(g, "pack -> talon")  # 3H goes nowhere: 4H's help wants 5H
    assert not any(g.is_legal(action_id(g, f"talon -> help {j}")) for j in range(8))


def test_vacancies_are_filled_only_from_the_talon_and_not_automatically() -> None:
    g = game_for("TC 9C KS QH 8S")
    act(g, "pack -> talon")
    act(g, "TC talon -> foundation 0")
    act(g, "pack -> talon")
    act(g, "9C talon -> foundation 0")
    # make a vacancy: 5H onto 4H
    act(g, "5H help 0 -> help 2")
    assert g.helps[0] == [] and len(g.pack) == 92, "the vacancy is not refilled from the pack"
    act(g, "pack -> talon")  # KS
    moves = legal_moves_text(g)
    assert "KS talon -> help 0" in moves, "any card from the talon may fill an empty help"
    act(g, "pack -> talon")  # QH: a queen may fill it too, and then nothing goes on it
    act(g, "QH talon -> help 0")
    act(g, "pack -> talon")  # 8S: would fit nothing but an empty help; QH blocks help 0
    assert not g.is_legal(action_id(g, "talon -> help 0"))
    assert helps(g)[0] == ["QH"]


def test_a_vacancy_left_after_laying_out_stays_open() -> None:
    # TC in the layout plays at once onto the JC pile; the pack does not refill its place
    g = game_for(layout="JC TC 5H QD 4H 5S 6S 7S 8S")
    act(g, "TC help 0 -> foundation 0")
    assert g.helps[0] == [] and len(g.pack) == 104 - 9
    assert legal_moves_text(g)[0] == "pack -> talon"
    act(g, "pack -> talon")
    assert g.helps[0] == [], "turning a card does not fill the vacancy by itself"
    assert g.is_legal(action_id(g, "talon -> help 0"))


def test_redeal_turns_the_talon_over_twice_and_no_more() -> None:
    first = "2D 3D 8H 4C"
    g = game_for(first)
    assert not g.is_legal(action_id(g, "re-deal: talon turned over -> pack"))
    turned: list[str] = []
    while g.pack:
        act(g, "pack -> talon")
    turned = names(g.talon)
    assert turned[:4] == first.split() and g.talon  # nothing played: every non-knave is there
    assert len(g.talon) == 94 - 6, "the six knaves left in the pack went up"
    act(g, "re-deal: talon turned over -> pack")
    assert g.talon == [] and g.redeals == 1
    assert names(g.pack_order()) == turned, "the first card turned is turned first again"
    act(g, "pack -> talon")
    assert NAME[g.talon[-1]] == "2D"
    while g.pack:
        act(g, "pack -> talon")
    act(g, "re-deal: talon turned over -> pack")
    while g.pack:
        act(g, "pack -> talon")
    assert g.redeals == 2 and not g.is_legal(action_id(g, "re-deal: talon turned over -> pack"))
    assert g.extra_info() == {"redeals_left": 0}
    with pytest.raises(IllegalMove):
        g.apply(action_id(g, "re-deal: talon turned over -> pack"))


def test_the_pack_stays_hidden() -> None:
    ga, gb = game_for("2D 3D"), game_for("3D 2D")
    assert np.array_equal(ga.observation(), gb.observation())
    act(ga, "pack -> talon")
    act(gb, "pack -> talon")
    assert not np.array_equal(ga.observation(), gb.observation()), "the turned card is seen"


def test_observation_segments() -> None:
    g = game_for("6H")
    act(g, "pack -> talon")
    act(g, "6H talon -> help 0")
    obs = g.observation()
    place, depth = g.layout.view(obs, "card_place"), g.layout.view(obs, "depth")
    h5, h6, jc = parse_card("5H"), parse_card("6H"), parse_card("JC")
    assert place[h5, 0, 0] == 1 and depth[h5, 0] == pytest.approx(1 / 12)
    assert place[h6, 0, 0] == 1 and depth[h6, 0] == 0
    found, pack = PLACES.index("foundation"), PLACES.index("pack (face down)")
    assert place[jc, 0, found] == 1 and place[jc, 1, found] == 1, "both clubs knaves are up"
    assert place[h6, 1, pack] == 1, "the other 6H is in the pack"
    assert g.layout.view(obs, "foundation")[:3].tolist() == pytest.approx([1 / 12, 1 / 12, 0])
    assert g.layout.view(obs, "pack_size")[0] == pytest.approx(93 / 104)


def places(g: Anna, *cards: str) -> list[str]:
    """The observation's place of each named card's first copy."""
    grid = g.layout.view(g.observation(), "card_place")
    return [PLACES[int(np.argmax(grid[parse_card(c), 0]))] for c in cards]


def test_the_talons_top_three_cards_are_in_the_observation_in_order() -> None:
    # The render shows the talon's top three cards in order; so must the observation. Two deals
    # that differ only in the order of the first two cards turned look different once turned.
    a, b = game_for("2D 3D 4D 6H"), game_for("3D 2D 4D 6H")
    check_the_talons_order_is_seen(a, b, "2D 3D 4D", "3D 2D 4D")
    fan = ["talon top", "talon second from top", "talon third from top"]
    assert places(a, "4D", "3D", "2D") == fan
    act(a, "pack -> talon")  # 6H on top: 2D goes below the top three
    assert places(a, "6H", "4D", "3D", "2D") == [*fan, "talon below the top three (seen)"]
    act(a, "6H talon -> help 0")  # and comes back into the fan when the top card leaves
    assert places(a, "4D", "3D", "2D") == fan


def test_a_fixed_deal_and_move_list_win(engine: str) -> None:
    record = json.loads((DATA / "anna_win.json").read_text())
    env = gym.make("patience_gym/Anna-v0", engine=engine)
    _, info = env.reset(options={"deck": record["deck"].split()})
    game: Anna = env.unwrapped.game  # type: ignore[attr-defined]
    term = False
    for text in record["moves"]:
        assert not term
        found = [a for a in np.flatnonzero(info["action_mask"]).tolist() if game.describe(a) == text]
        assert len(found) == 1, (text, legal_moves_text(game))
        _, _, term, trunc, info = env.step(found[0])
        assert not trunc
    assert term and info["won"] and info["foundation_cards"] == 96
    assert "re-deal: talon turned over -> pack" in record["moves"], "the recorded win uses a re-deal"
    assert all(len(h) == 1 and NAME[h[0]][0] == "Q" for h in game.helps if h), "queens stay"


def test_a_stuck_game_ends_lost(engine: str) -> None:
    # Always take the lowest legal id (turning first, playing only when the pack is out): on this
    # deal the game sticks with the pack and both re-deals spent.
    game: Anna
    game, info = play_to_the_end("Anna-v0", engine, pick=0)
    assert not info["won"] and not info["action_mask"].any()
    assert game.pack == [] and game.redeals == 2 and game.talon
    assert game.foundation_for(game.talon[-1]) < 0
    assert all(game.foundation_for(h[-1]) < 0 for h in game.helps if h)


# ---- refill="pack": Dick's stricter rule ---------------------------------------------------------


def test_refill_pack_fills_an_emptied_help_at_once_from_the_pack_unseen() -> None:
    g = game_for("8D 3D", refill="pack")
    act(g, "5H help 0 -> help 2")
    assert helps(g)[0] == ["8D"] and g.talon == [] and len(g.pack) == 93, "the pack's next card"
    act(g, "pack -> talon")
    assert names(g.talon) == ["3D"]
    # A help emptied to the foundations is refilled the same way.
    g = game_for("9D", layout="JC TC 5H QD 4H 5S 6S 7S 8S", refill="pack")
    act(g, "TC help 0 -> foundation 0")
    assert helps(g)[0] == ["9D"] and sizes(g)[0] == 2
    check_position(g)


def test_refill_pack_a_knave_drawn_goes_up_and_the_next_card_fills_the_help() -> None:
    g = game_for("JD 7C", refill="pack")
    act(g, "5H help 0 -> help 2")
    assert sizes(g)[2] == 1, "JD starts the first diamonds pile"
    assert helps(g)[0] == ["7C"] and g.talon == [] and len(g.pack) == 92


def test_refill_pack_an_empty_help_waits_while_the_pack_is_out_and_fills_at_the_redeal() -> None:
    g = game_for("2D 3D 8H 4C", refill="pack")
    while g.pack:
        act(g, "pack -> talon")
    act(g, "5H help 0 -> help 2")
    act(g, "6S help 4 -> help 3")
    assert helps(g)[0] == [] and helps(g)[4] == []
    assert not g.is_legal(action_id(g, "talon -> help 0")), "the talon may not fill it: it waits"
    assert not g.legal_mask()[action_id(g, "talon -> help 4")]
    check_position(g)  # the fast mask agrees while the helps wait
    act(g, "re-deal: talon turned over -> pack")
    assert helps(g)[0] == ["2D"] and helps(g)[4] == ["3D"], "help 0 first, from the new pack"
    assert g.talon == [] and names(g.pack_order()[:2]) == ["8H", "4C"]
    check_position(g)


def test_refill_pack_a_knave_as_the_packs_last_card_leaves_the_help_waiting() -> None:
    deck = anna_deck(LAYOUT)
    deck.remove("JS")
    deck.append("JS")  # the last card of the pack
    g = scenario_deal(Anna, deck, refill="pack")
    while len(g.pack) > 1:
        act(g, "pack -> talon")
    act(g, "5H help 0 -> help 2")
    assert g.pack == [] and helps(g)[0] == [] and sizes(g)[6:] == [1, 1], "both spades knaves up"
    assert not g.is_legal(action_id(g, "talon -> help 0"))


def test_refill_free_is_unchanged_the_talon_fills_a_help_when_the_player_chooses() -> None:
    for pack_out in (False, True):
        g = game_for("2D 3D 8H 4C", refill="free")
        while pack_out and g.pack:
            act(g, "pack -> talon")
        left = len(g.pack)
        act(g, "5H help 0 -> help 2")
        assert helps(g)[0] == [] and len(g.pack) == left, "no automatic refill"
        if not pack_out:
            act(g, "pack -> talon")
        assert g.is_legal(action_id(g, "talon -> help 0"))
    act(g, "re-deal: talon turned over -> pack")
    assert helps(g)[0] == [], "a re-deal fills nothing either"


def test_refill_option_is_validated_and_observed() -> None:
    assert Anna().options == {"refill": "free"}
    with pytest.raises(ValueError, match="refill='talon' is not allowed; choose one of 'free', 'pack'"):
        Anna(refill="talon")
    free, pack = game_for(), game_for(refill="pack")
    assert free.layout.view(free.observation(), "refill_pack")[0] == 0
    assert pack.layout.view(pack.observation(), "refill_pack")[0] == 1
    assert "refill from the pack" in pack.render() and "refill" not in free.render()


def test_refill_pack_random_games_keep_the_contract() -> None:
    check_scenario_rollout(Anna, 3, max_steps=400, refill="pack")
