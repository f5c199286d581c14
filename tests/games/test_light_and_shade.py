"""Light and Shade rule scenarios (docs/rules.md section 6), each from a fixed deal.

``ls_deck`` inverts the deal: give the four Auxiliaries, the four Rivals and the first pack cards
(next card first) and it returns the 104-card pack that deals them, the eight aces in front.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import patience_gym  # noqa: F401
from patience_gym.agents.policies.heuristics.light_and_shade import heuristic
from patience_gym.core.cards import NAME, names, parse_card
from patience_gym.core.game import IllegalMove, house_rules
from patience_gym.core.moves import Move
from patience_gym.games.light_and_shade import PLACES, TABLE, Kind, LightAndShade
from patience_gym.testing import act, action_id, deck, legal_moves_text, rest_of_pack
from tests.helpers import (
    check_action_table,
    check_scenario_rollout,
    check_the_talons_order_is_seen,
    scenario_deal,
)

# each scenario on the Python engine, then in lockstep with the native one (tests/conftest.py)
pytestmark = pytest.mark.both_engines


ACES = ["AC", "AD", "AH", "AS", "AC", "AD", "AH", "AS"]


def ls_deck(aux: str, rivals: str, pack: str = "", aces_first: bool = True) -> list[str]:
    """A pack dealing ``aux`` (4 cards) and ``rivals`` (4), then ``pack`` in turning order; the
    cards not named follow in the ordered packs' order."""
    named = deck(aux) + deck(rivals) + deck(pack)
    assert len(deck(aux)) == 4 and len(deck(rivals)) == 4
    tail = rest_of_pack(ACES + named, 2)
    cards = ACES + named + tail if aces_first else named + tail + ACES
    assert len(cards) == 104
    return cards


def game_for(aux: str, rivals: str, pack: str = "", **options: object) -> LightAndShade:
    return scenario_deal(LightAndShade, ls_deck(aux, rivals, pack), **options)


def found_tops(g: LightAndShade) -> list[str]:
    return [NAME[p[-1]] for p in g.foundations]


def test_aces_are_taken_out_and_the_rest_dealt_in_order() -> None:
    # Aces placed in the middle and at the end of the pack: the first copies go to foundations
    # 0-3 and the second to 4-7; the other cards are dealt as if the aces were never there.
    deck = ls_deck("KC QD JH TS", "9C 8D 7H 6S", "5C 4D")
    deck.remove("AD")
    deck.insert(5, "AD")  # between two auxiliaries
    g = scenario_deal(LightAndShade, deck)
    assert found_tops(g) == ACES
    assert [names(p) for p in g.aux] == [["KC"], ["QD"], ["JH"], ["TS"]]
    assert names(g.rivals) == ["9C", "8D", "7H", "6S"]
    assert len(g.pack) == 88 and g.talon == [] and g.foundation_cards == 0
    act(g, "pack -> talon")
    act(g, "pack -> talon")
    assert names(g.talon) == ["5C", "4D"]


def test_foundations_build_up_in_alternating_colours_suit_ignored() -> None:
    g = game_for("2H 2D 3H 3D", "2C KS KS KH")
    # 2H goes on the leftmost black ace (AC, foundation 0); 2D on the next black ace (AS, 3).
    act(g, "2H auxiliary 0 -> foundation")
    act(g, "2D auxiliary 1 -> foundation")
    assert found_tops(g) == ["2H", "AD", "AH", "2D", "AC", "AD", "AH", "AS"]
    # Every rank-2 top is red now: a red 3 fits nowhere.
    assert not g.is_legal(action_id(g, "auxiliary 2 -> foundation"))
    assert not g.is_legal(action_id(g, "auxiliary 3 -> foundation"))
    # A black 2 goes on a red ace; then the red 3 above it fits that black 2.
    act(g, "2C rival 0 -> auxiliary 2")  # onto 3H: one lower, other colour
    act(g, "2C auxiliary 2 -> foundation")
    assert found_tops(g)[1] == "2C"
    act(g, "3H auxiliary 2 -> foundation")
    assert found_tops(g)[1] == "3H" and g.foundation_cards == 4
    assert not g.is_legal(action_id(g, "auxiliary 3 -> foundation"))  # 3D: no black 2 top left


def test_a_rank_must_follow_in_sequence_on_the_foundations() -> None:
    g = game_for("3C 4H 2C KH", "QS QS QH QH")
    assert not g.is_legal(action_id(g, "auxiliary 0 -> foundation"))  # 3C on an ace
    act(g, "2C auxiliary 2 -> foundation")  # on AD
    assert not g.is_legal(action_id(g, "auxiliary 0 -> foundation"))  # 3C on black 2: same colour
    assert not g.is_legal(action_id(g, "auxiliary 1 -> foundation"))  # 4H skips the 3


def test_only_auxiliaries_reach_the_foundations() -> None:
    # 2C in a Rival and 2D on the talon both fit an ace, but neither may go there.
    g = game_for("KC KD KH KS", "2C QS QH QD", "2D")
    act(g, "pack -> talon")
    moves = legal_moves_text(g)
    assert not [m for m in moves if "foundation" in m]
    to_foundation = [m for m in g.moves if "foundation" in m.text]
    assert [m.kind for m in to_foundation] == [Kind.AUX_TO_FOUNDATION] * 4, "no other way up in the table"
    # Through an Auxiliary the 2C goes: first into a vacancy of the Auxiliaries.
    assert "2C rival 0 -> auxiliary 0" not in moves  # on KC: not one lower
    g2 = game_for("2H KD KH KS", "2C QS QH QD")
    act(g2, "auxiliary 0 -> foundation")
    act(g2, "2C rival 0 -> auxiliary 0")
    act(g2, "2C auxiliary 0 -> foundation")
    assert g2.foundation_cards == 2


def test_rival_onto_auxiliary_needs_one_lower_and_the_other_colour() -> None:
    g = game_for("9H 9C 9D 9S", "8C 8H 7C TC")
    legal = set(legal_moves_text(g))
    assert "8C rival 0 -> auxiliary 0" in legal  # black 8 on red 9
    assert "8C rival 0 -> auxiliary 2" in legal
    assert "8C rival 0 -> auxiliary 1" not in legal  # same colour
    assert "8H rival 1 -> auxiliary 1" in legal and "8H rival 1 -> auxiliary 0" not in legal
    assert not [m for m in legal if m.startswith("7C rival 2")]  # two lower
    assert not [m for m in legal if m.startswith("TC rival 3")]  # one higher
    act(g, "8C rival 0 -> auxiliary 0")
    assert names(g.aux[0]) == ["9H", "8C"] and g.rivals[0] == -1
    # Auxiliary cards never move between Auxiliaries (nor back to a Rival): no such move in the table.
    assert not [m.text for m in g.moves if m.text.startswith("auxiliary") and "foundation" not in m.text]


def test_an_empty_auxiliary_takes_any_rival_and_waits_for_it() -> None:
    g = game_for("2D KC KD KH", "QC QH 5S 5S")
    act(g, "2D auxiliary 0 -> foundation")
    assert g.aux[0] == []  # not refilled automatically
    legal = set(legal_moves_text(g))
    for r, c in enumerate(["QC", "QH", "5S", "5S"]):
        assert f"{c} rival {r} -> auxiliary 0" in legal
    act(g, "5S rival 2 -> auxiliary 0")
    assert names(g.aux[0]) == ["5S"]


def test_rival_vacancies_are_filled_from_the_pack_or_the_talon_by_choice() -> None:
    g = game_for("9H KC KD KH", "8C QS QH QD", "7D 6S 5H")
    assert not g.is_legal(action_id(g, "pack -> rival 1"))  # rival 1 is occupied
    act(g, "pack -> talon")  # 7D
    assert not g.is_legal(action_id(g, "talon -> rival 1"))
    act(g, "8C rival 0 -> auxiliary 0")
    assert g.rivals[0] == -1  # no automatic refill
    legal = set(legal_moves_text(g))
    assert {"7D talon -> rival 0", "pack -> rival 0"} <= legal
    act(g, "pack -> rival 0")  # the pack's next card goes straight in
    assert NAME[g.rivals[0]] == "6S" and names(g.talon) == ["7D"] and len(g.pack) == 86
    assert not g.is_legal(action_id(g, "rival 0 -> auxiliary 0"))  # 6S is two below 8C
    g2 = game_for("9H KC KD KH", "8C QS QH QD", "7D 6S 5H")
    act(g2, "pack -> talon")
    act(g2, "8C rival 0 -> auxiliary 0")
    act(g2, "7D talon -> rival 0")
    assert NAME[g2.rivals[0]] == "7D" and g2.talon == []
    act(g2, "7D rival 0 -> auxiliary 0")
    assert names(g2.aux[0]) == ["9H", "8C", "7D"]


def test_the_talon_top_goes_on_an_auxiliary_by_default_not_under_the_strict_option() -> None:
    deal = ("9H KC KD 5S", "JS JS JH JH", "8C")
    g = game_for(*deal)
    act(g, "pack -> talon")  # 8C: one lower than 9H, the other colour
    assert legal_moves_text(g) == ["8C talon -> auxiliary 0", "pack -> talon"]
    act(g, "8C talon -> auxiliary 0")
    assert names(g.aux[0]) == ["9H", "8C"] and g.talon == []
    # The first edition's strict reading: the talon only fills empty Rivals.
    g = game_for(*deal, talon_to_auxiliaries=False)
    act(g, "pack -> talon")
    assert legal_moves_text(g) == ["pack -> talon"]
    with pytest.raises(IllegalMove):
        g.apply(action_id(g, "talon -> auxiliary 0"))
    assert names(g.talon) == ["8C"] and names(g.aux[0]) == ["9H"]


def test_a_talon_card_laid_aside_earlier_goes_on_an_auxiliary_once_uncovered() -> None:
    g = game_for("9H KC KD 5S", "JS JS JH JH", "7D 8C")
    act(g, "pack -> talon")  # 7D fits nothing yet (two below 9H)
    assert not any(g.is_legal(action_id(g, f"talon -> auxiliary {a}")) for a in range(4))
    act(g, "pack -> talon")
    act(g, "8C talon -> auxiliary 0")
    assert "7D talon -> auxiliary 0" in legal_moves_text(g)  # uncovered, and now it fits 8C
    act(g, "7D talon -> auxiliary 0")
    assert names(g.aux[0]) == ["9H", "8C", "7D"] and g.talon == []


def test_the_talon_never_goes_to_a_foundation_nor_into_an_empty_auxiliary() -> None:
    g = game_for("2D KC KD KH", "JS JS JH JH", "2H")
    act(g, "auxiliary 0 -> foundation")
    assert g.aux[0] == []
    act(g, "pack -> talon")  # 2H fits a black ace, and auxiliary 0 is empty: neither is allowed
    legal = legal_moves_text(g)
    assert not [m for m in legal if m.startswith("2H")]
    assert not g.is_legal(action_id(g, "talon -> auxiliary 0"))
    assert "JS rival 0 -> auxiliary 0" in legal  # the empty Auxiliary takes a Rival
    act(g, "JS rival 0 -> auxiliary 0")
    act(g, "2H talon -> rival 0")  # the talon's other way into play: an empty Rival
    assert NAME[g.rivals[0]] == "2H" and g.talon == []


def stuck_env(engine: str, **options: Any) -> tuple[Any, dict[str, Any]]:
    """Kings in the Rivals fit nothing, the 5s cannot reach the foundations, and talon cards
    only fill Rivals: turning the pack is the only move (and the re-deal, where allowed)."""
    env = gym.make("patience_gym/LightAndShade-v0", engine=engine, talon_to_auxiliaries=False, **options)
    _, info = env.reset(options={"deck": ls_deck("5H 5D 5C 5S", "KC KD KH KS")})
    return env, info


def test_no_redeal_by_default_the_game_is_lost_when_stuck(engine: str) -> None:
    env, info = stuck_env(engine)
    turn = action_id(env.unwrapped.game, "pack -> talon")
    assert info["redeals_left"] == 0
    for _ in range(88):
        assert np.flatnonzero(info["action_mask"]).tolist() == [turn]
        _, _, term, trunc, info = env.step(turn)
    assert term and not trunc and not info["won"]
    assert not info["action_mask"].any() and len(env.unwrapped.game.talon) == 88


@pytest.mark.parametrize("redeals", [0, 1, 2])
def test_redeals_turn_the_talon_over_without_shuffle_and_no_more(redeals: int) -> None:
    g = game_for("9H KC KD 5S", "JS JS JH JH", "8C 7D 3S", redeals=redeals)
    redeal = action_id(g, "re-deal: talon turned over -> pack")
    assert not g.is_legal(redeal)  # the pack is not out yet
    for k in range(redeals):
        while g.pack:
            act(g, "pack -> talon")
        turned = names(g.talon)
        assert g.layout.view(g.observation(), "redeals_left")[0] == pytest.approx((redeals - k) / 2)
        act(g, "re-deal: talon turned over -> pack")
        assert g.talon == [] and g.extra_info() == {"redeals_left": redeals - k - 1}
        assert names(g.pack_order()) == turned  # the first card turned is turned first again
        assert turned[:3] == ["8C", "7D", "3S"]
        act(g, "pack -> talon")
        assert names(g.talon) == ["8C"]
    while g.pack:
        act(g, "pack -> talon")
    assert not g.is_legal(redeal) and not g.legal_mask()[redeal]
    with pytest.raises(IllegalMove):
        g.apply(redeal)
    assert len(g.talon) == 88 and g.layout.view(g.observation(), "redeals_left")[0] == 0


def test_a_redeal_is_the_only_way_on_when_stuck_and_the_game_ends_after_the_last(engine: str) -> None:
    env, info = stuck_env(engine, redeals=1)
    game = env.unwrapped.game
    turn, redeal = action_id(game, "pack -> talon"), action_id(game, "re-deal: talon turned over -> pack")
    assert info["redeals_left"] == 1 and "not the book's rule" in game.render()
    for _ in range(88):
        _, _, term, _, info = env.step(turn)
    assert not term and np.flatnonzero(info["action_mask"]).tolist() == [redeal]
    _, _, term, _, info = env.step(redeal)
    assert not term and info["redeals_left"] == 0 and len(game.pack) == 88
    for _ in range(88):
        assert np.flatnonzero(info["action_mask"]).tolist() == [turn]
        _, _, term, trunc, info = env.step(turn)
    assert term and not trunc and not info["won"]


def test_options_are_validated_and_redeals_is_marked_as_not_the_books_rule() -> None:
    assert LightAndShade().options == {"talon_to_auxiliaries": True, "redeals": 0}
    with pytest.raises(ValueError, match="redeals=3 is not allowed; choose one of 0, 1, 2"):
        LightAndShade(redeals=3)
    with pytest.raises(ValueError, match="choose one of 0, 1, 2"):
        LightAndShade(redeals=True)
    with pytest.raises(ValueError, match="choose one of True, False"):
        LightAndShade(talon_to_auxiliaries="yes")
    assert "NOT THE BOOK'S RULE" in LightAndShade.OPTIONS["redeals"].doc
    assert LightAndShade.OPTIONS["redeals"].house_rules == (1, 2)
    assert "not the book's rule" not in game_for("9H KC KD 5S", "JS JS JH JH").render()  # unless used


def test_results_with_redeals_are_labelled_house_rules_and_the_books_rule_is_not() -> None:
    assert house_rules(LightAndShade.OPTIONS, {"redeals": 1}) == ["redeals=1"]
    assert house_rules(LightAndShade.OPTIONS, {"redeals": 2, "talon_to_auxiliaries": False}) == ["redeals=2"]
    assert house_rules(LightAndShade.OPTIONS, {"redeals": 0, "talon_to_auxiliaries": True}) == []
    assert house_rules(LightAndShade.OPTIONS, LightAndShade().options) == []


@pytest.mark.parametrize(
    "options",
    [{}, {"talon_to_auxiliaries": False}, {"redeals": 2}, {"talon_to_auxiliaries": False, "redeals": 1}],
)
def test_random_games_keep_the_contract_under_every_option(options: dict[str, object]) -> None:
    check_scenario_rollout(LightAndShade, 7, max_steps=600, **options)


def test_the_pack_order_is_not_observed() -> None:
    # Two deals that differ only in the order of face-down pack cards look the same...
    a = game_for("9H KC KD KH", "8C QS QH QD", "7D 6S")
    b = game_for("9H KC KD KH", "8C QS QH QD", "6S 7D")
    assert np.array_equal(a.observation(), b.observation())
    assert np.array_equal(a.legal_mask(), b.legal_mask())
    # ...until a card is turned; the talon's lower cards stay visible.
    act(a, "pack -> talon")
    act(b, "pack -> talon")
    assert not np.array_equal(a.observation(), b.observation())
    act(a, "pack -> talon")
    place = a.layout.view(a.observation(), "card_place")
    assert place[a.rivals[0], 4] == 0.5  # 8C: one copy in rival 0
    assert place[parse_card("7D"), 9] == 0.5 and place[parse_card("6S"), 8] == 0.5  # second, top


def seen_at(g: LightAndShade, c: str) -> list[str]:
    """The observation's places, other than the pack, holding a copy of card ``c``, by name."""
    row = g.layout.view(g.observation(), "card_place")[parse_card(c)]
    return [PLACES.places[p] for p in np.flatnonzero(row) if PLACES.places[p] != "pack (not visible)"]


def test_the_talons_top_three_cards_are_in_the_observation_in_order() -> None:
    # The render shows the talon's top three cards in order; so must the observation. Two deals
    # that differ only in the order of the first two cards turned look different once turned.
    a = game_for("9H KC KD KH", "8C QS QH QD", "7D 6S 5H 8S")
    b = game_for("9H KC KD KH", "8C QS QH QD", "6S 7D 5H 8S")
    check_the_talons_order_is_seen(a, b, "7D 6S 5H", "6S 7D 5H")
    fan = [["talon top"], ["talon second from top"], ["talon third from top"]]
    assert [seen_at(a, c) for c in ("5H", "6S", "7D")] == fan
    act(a, "pack -> talon")  # 8S on top: 7D goes below the top three
    assert seen_at(a, "8S") == ["talon top"] and seen_at(a, "7D") == ["talon below the top three (seen)"]
    act(a, "8S talon -> auxiliary 0")  # and comes back into the fan when the top card leaves
    assert [seen_at(a, c) for c in ("5H", "6S", "7D")] == fan


def greedy_choice(g: LightAndShade) -> str:
    """The greedy baseline's move: best heuristic after the move, ties to the lowest id."""
    best, best_score = -1, float("-inf")
    for a in g.legal_actions():
        trial = g.clone()
        trial.apply(a)
        if heuristic(trial) > best_score:
            best, best_score = a, heuristic(trial)
    return g.describe(best)


def test_the_heuristic_never_chooses_by_an_unseen_pack_card() -> None:
    # The next pack card fits auxiliary 0 in deal a (7D on 8C) and not in deal b (6S): the
    # greedy choice must not depend on it. Once the card is seen, it may decide.
    a = game_for("9H KC KD KH", "8C JS JH JD", "7D 6S")
    b = game_for("9H KC KD KH", "8C JS JH JD", "6S 7D")
    for g in (a, b):  # default: full Rivals are worth more than the talon
        act(g, "8C rival 0 -> auxiliary 0")
        assert greedy_choice(g) == "pack -> rival 0"
        act(g, "pack -> rival 0")
    assert greedy_choice(a) == "7D rival 0 -> auxiliary 0"
    assert greedy_choice(b) == "pack -> talon"
    # Strict rule: a Rival is kept empty for the talon, whatever the pack's next card.
    a = game_for("9H KC KD KH", "8C JS JH JD", "7D 6S", talon_to_auxiliaries=False)
    b = game_for("9H KC KD KH", "8C JS JH JD", "6S 7D", talon_to_auxiliaries=False)
    for g in (a, b):
        act(g, "8C rival 0 -> auxiliary 0")
        assert greedy_choice(g) == "pack -> talon"
        act(g, "pack -> talon")
    assert greedy_choice(a) == "7D talon -> rival 0"
    assert greedy_choice(b) == "pack -> talon"


def test_the_action_table_is_read_off_by_kind() -> None:
    assert [TABLE.first[k] for k in Kind] == [0, 4, 20, 24, 28, 32, 33] and len(TABLE) == 34
    assert TABLE[TABLE.first[Kind.RIVAL_TO_AUX] + 4 * 2 + 3].text == "rival 2 -> auxiliary 3"
    assert all(TABLE[a].kind is Kind.PACK_TO_RIVAL for a in TABLE.ids(Kind.PACK_TO_RIVAL))
    assert LightAndShade(redeals=2, talon_to_auxiliaries=False).moves == TABLE.moves, "fixed for every option"


def test_a_move_of_an_unknown_kind_is_refused_not_taken_for_a_turn() -> None:
    g = game_for("9H KC KD 5S", "JS JS JH JH")
    with pytest.raises(AssertionError):
        g._apply(Move("turn"))  # type: ignore[arg-type]  # a string, not Kind.TURN
    assert g.talon == [] and len(g.pack) == 88


def test_every_action_has_a_distinct_readable_text() -> None:
    check_action_table(LightAndShade, 34)


def _winning_moves() -> tuple[list[str], list[str]]:
    """A deck and a move list that wins, using every kind of move of the default rules."""
    # 2s: four dealt to the Auxiliaries, four to the Rivals.
    aux, rivals = "2H 2D 2C 2S", "2H 2D 2C 2S"
    moves = [f"auxiliary {i} -> foundation" for i in range(4)]
    for r in range(4):
        moves += [f"rival {r} -> auxiliary 0", "auxiliary 0 -> foundation"]
    # 3s: all turned onto the talon, then played through a Rival and an Auxiliary.
    pack = ["3C 3D 3H 3S 3C 3D 3H 3S"]
    moves += ["pack -> talon"] * 8
    moves += ["talon -> rival 1", "rival 1 -> auxiliary 2", "auxiliary 2 -> foundation"] * 8
    # 4s and 5s: each 4 built on a 5 of the other colour in an Auxiliary, then both played off.
    pack.append("5C 4H 5S 4D 5D 4C 5H 4S 5C 4H 5S 4D 5D 4C 5H 4S")
    moves += [
        "pack -> rival 3",
        "rival 3 -> auxiliary 1",
        "pack -> rival 0",
        "rival 0 -> auxiliary 1",
        "auxiliary 1 -> foundation",
        "auxiliary 1 -> foundation",
    ] * 8
    # 6 to K: straight from the pack through a Rival and an Auxiliary.
    for rank in "6789TJQK":
        pack.append(" ".join(f"{rank}{s}" for s in "CDHS" * 2))
        moves += ["pack -> rival 2", "rival 2 -> auxiliary 3", "auxiliary 3 -> foundation"] * 8
    return ls_deck(aux, rivals, " ".join(pack)), moves


def test_a_fixed_deck_is_won_through_the_env(engine: str) -> None:
    deck, moves = _winning_moves()
    env = gym.make("patience_gym/LightAndShade-v0", engine=engine)
    _, info = env.reset(options={"deck": deck})
    game: LightAndShade = env.unwrapped.game  # type: ignore[attr-defined]
    total = 0.0
    for k, text in enumerate(moves):
        a = action_id(game, text)
        assert info["action_mask"][a], f"move {k} {text!r} is not legal\n{game.render()}"
        _, reward, term, trunc, info = env.step(a)
        total += float(reward)
        assert term == (k == len(moves) - 1) and not trunc
    assert info["won"] and info["foundation_cards"] == 96
    assert total == pytest.approx(1.0)
    assert len(moves) < game.default_max_steps


def test_the_step_limit_is_registered() -> None:
    # 4 moves a dealt card in a pass, plus 88 turns and the re-deal itself, twice: 562 < 600.
    assert (
        gym.spec("patience_gym/LightAndShade-v0").max_episode_steps == LightAndShade.default_max_steps == 600
    )
