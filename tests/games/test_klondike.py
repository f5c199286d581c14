"""Klondike rule scenarios (docs/rules.md section 1), each from a fixed deal.

Boards in comments list piles bottom card first; ``##`` is a face-down card.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import patience_gym  # noqa: F401
from patience_gym.agents.policies.heuristics.klondike import heuristic
from patience_gym.core.cards import NAME, names, parse_card
from patience_gym.core.game import IllegalMove
from patience_gym.core.moves import Move
from patience_gym.games.klondike import PLACES, TABLE, TABLE_WORRYING, Kind, Klondike
from patience_gym.testing import act, action_id, check_position, deck, legal_moves_text, rest_of_pack
from tests.helpers import replay_the_recorded_win, scenario_deal

# each scenario on the Python engine, then in lockstep with the native one (tests/conftest.py)
pytestmark = pytest.mark.both_engines


def klondike_deck(piles: list[str], stock: str = "") -> list[str]:
    """A pack that deals ``piles`` (pile i: i+1 cards, bottom first) and turns ``stock`` first.

    Cards not named go to the end of the stock in A..K, C D H S order (:func:`rest_of_pack`).
    """
    rows = [deck(p) for p in piles]
    assert [len(r) for r in rows] == list(range(1, 8)), "pile i holds i+1 cards"
    pack = [rows[i][row] for row in range(7) for i in range(row, 7)] + deck(stock)
    return pack + rest_of_pack(pack, 1)


# A deal with a lot to test: a four-card face-up build can only be made by play, so most
# scenarios start from this table and the stock order below.
#   pile 0: KH
#   pile 1: ## QS
#   pile 2: ## ## AS
#   pile 3: ## ## ## 2S
#   pile 4: ## ## ## ## JD
#   pile 5: ## ## ## ## ## TC
#   pile 6: ## ## ## ## ## ## 2H
PILES = [
    "KH",
    "3C QS",
    "4C 4D AS",
    "5C 5D 5H 2S",
    "6C 6D 6H 6S JD",
    "7C 7D 7H 7S 8C TC",
    "8D 8H 8S 9C 9D 9H 2H",
]
STOCK = "JC 9S AD TH 3S"


def game_for(piles: list[str] = PILES, stock: str = STOCK, **options: object) -> Klondike:
    return scenario_deal(Klondike, klondike_deck(piles, stock), **options)


def test_staircase_deal_with_last_card_face_up() -> None:
    g = game_for()
    assert [len(p) for p in g.piles] == [1, 2, 3, 4, 5, 6, 7]
    assert g.down == [0, 1, 2, 3, 4, 5, 6]
    assert [NAME[p[-1]] for p in g.piles] == ["KH", "QS", "AS", "2S", "JD", "TC", "2H"]
    assert len(g.stock) == 24 and g.talon == []
    act(g, "stock -> talon")
    assert NAME[g.talon[-1]] == "JC", "the first stock card turned is the 29th card of the pack"


def test_deal_goes_row_by_row() -> None:
    pack = klondike_deck(PILES, STOCK)
    # row 0 deals piles 0..6, row 1 piles 1..6: the 8th card of the pack is pile 1's bottom card
    assert pack[:8] == ["KH", "3C", "4C", "5C", "6C", "7C", "8D", "QS"]


def test_aces_start_foundations_and_build_up_in_suit() -> None:
    g = game_for()
    assert "AS pile 2 -> foundation" in legal_moves_text(g)
    assert "2S pile 3 -> foundation" not in legal_moves_text(g), "a two needs its ace first"
    act(g, "AS pile 2 -> foundation")
    act(g, "2S pile 3 -> foundation")
    assert g.foundations == [[], [], [], [parse_card("AS"), parse_card("2S")]]
    assert not g.is_legal(action_id(g, "pile 6 -> foundation")), "2H may not go on the spades"


def test_tableau_builds_down_in_alternate_colour() -> None:
    g = game_for()
    act(g, "stock -> talon")  # JC
    assert g.is_legal(action_id(g, "talon -> pile 0")) is False, "JC is not one below KH"
    act(g, "stock -> talon")  # 9S
    assert g.is_legal(action_id(g, "talon -> pile 5")) is False, "9S on TC: same colour"
    assert "9S talon -> pile 4" not in legal_moves_text(g), "9S on JD: two ranks lower"
    act(g, "AS pile 2 -> foundation")
    act(g, "2S pile 3 -> foundation")
    # pile 2 now ends 4D (turned up), pile 3 ends 5H
    assert [NAME[p[-1]] for p in g.piles[2:4]] == ["4D", "5H"]
    assert "QS pile 1 -> pile 0" in legal_moves_text(g), "black queen on red king"


def test_an_ace_is_never_placed_on_a_two() -> None:
    # AS (black) could otherwise go on 2H (red, one higher)
    g = game_for()
    assert not g.is_legal(action_id(g, "pile 2 -> pile 6"))
    assert "AS pile 2 -> pile 6" not in legal_moves_text(g)


def test_face_down_card_turns_up_automatically() -> None:
    g = game_for()
    act(g, "AS pile 2 -> foundation")
    assert g.down[2] == 1 and NAME[g.piles[2][-1]] == "4D"


def _two_card_build() -> Klondike:
    """Play QS onto KH: pile 0 becomes the face-up build KH QS, pile 1 turns up 3C."""
    g = game_for()
    act(g, "QS pile 1 -> pile 0")
    assert g.down[0] == 0 and names(g.piles[0]) == ["KH", "QS"]
    assert NAME[g.piles[1][-1]] == "3C" and g.down[1] == 0
    return g


# pile 2 ends KD here, so the run QS JD built on pile 0 has a place to go
PILES_KD = [
    "KH",
    "3C QS",
    "4C 4D KD",
    "5C 5D 5H 2S",
    "6C 6D 6H 6S JD",
    "7C 7D 7H 7S 8C TC",
    "8D 8H 8S 9C 9D 9H 2H",
]


def _three_card_build(**options: object) -> Klondike:
    """Play QS then JD onto KH: pile 0 is the face-up build KH QS JD."""
    g = game_for(PILES_KD, "JC", **options)
    act(g, "QS pile 1 -> pile 0")
    act(g, "JD pile 4 -> pile 0")
    assert g.down[0] == 0 and names(g.piles[0]) == ["KH", "QS", "JD"]
    return g


def test_whole_build_moves_together_or_not_at_all() -> None:
    g = _three_card_build()
    # QS (and JD under it) would fit on KD, but the build is headed by KH: no move
    assert not g.is_legal(action_id(g, "pile 0 -> pile 2"))
    # nor may JD alone leave it; with no empty pile, the build cannot move at all
    assert all(g.piles)
    for j in range(1, 7):
        assert not g.is_legal(action_id(g, f"pile 0 -> pile {j}"))


def test_whole_build_moves_as_one_into_a_space() -> None:
    g = game_for(["AC", *PILES_KD[1:]], "")  # pile 0 an ace that goes up at once: a space
    act(g, "QS pile 1 -> pile 2")
    act(g, "JD pile 4 -> pile 2")  # pile 2: ## ## KD QS JD
    act(g, "AC pile 0 -> foundation")
    act(g, "KD pile 2 -> pile 0")
    assert names(g.piles[0]) == ["KD", "QS", "JD"] and g.down[2] == 1


@pytest.mark.parametrize("partial", [False, True])
def test_a_whole_pile_never_moves_into_a_space(partial: bool) -> None:
    g = game_for(
        [
            "KD",
            "AC QS",
            "4C 4D KS",
            "5C 5D 5H QH",
            "6C 6D 6H 6S JD",
            "7C 7D 7H 7S 8C TC",
            "8D 8H 8S 9C 9D 9H 2H",
        ],
        "",
        partial_moves=partial,
    )
    act(g, "QS pile 1 -> pile 0")  # pile 0: KD QS, nothing beneath; pile 1 turns up AC
    act(g, "AC pile 1 -> foundation")  # pile 1 is empty
    # KD QS is the whole of pile 0: moving it would only swap two piles' places
    assert not g.is_legal(action_id(g, "pile 0 -> pile 1"))
    assert g.is_legal(action_id(g, "pile 2 -> pile 1")), "KS has face-down cards beneath it"
    act(g, "KS pile 2 -> pile 1")
    assert names(g.piles[1]) == ["KS"] and NAME[g.piles[2][-1]] == "4D"
    assert not g.is_legal(action_id(g, "pile 1 -> pile 0"))


def test_partial_moves_option_lets_any_run_move() -> None:
    g = _three_card_build(partial_moves=True)
    a = action_id(g, "pile 0 -> pile 2")
    assert g.is_legal(a) and g.describe(a) == "QS pile 0 -> pile 2"
    act(g, "QS pile 0 -> pile 2")
    assert names(g.piles[0]) == ["KH"]
    assert names(g.piles[2][-3:]) == ["KD", "QS", "JD"]


def test_last_card_alone_may_go_to_a_foundation() -> None:
    g = game_for(
        [
            "KH",
            "3C QS",
            "4C 4D AS",
            "5C 5D 5H 3H",
            "6C 6D 6H 6S JD",
            "7C 7D 7H 7S 8C TC",
            "8D 8H 8S 9C 9D 9H 2H",
        ],
        "AH",
    )
    act(g, "stock -> talon")
    act(g, "AH talon -> foundation")
    act(g, "2H pile 6 -> foundation")
    act(g, "QS pile 1 -> pile 0")
    act(g, "JD pile 4 -> pile 0")  # pile 0: KH QS JD (a build of three)
    act(g, "3H pile 3 -> foundation")
    assert names(g.foundations[2]) == ["AH", "2H", "3H"]


def test_empty_pile_takes_only_a_king_or_king_build() -> None:
    g = game_for(
        [
            "AC",
            "3C QS",
            "4C 4D KD",
            "5C 5D 5H QH",
            "6C 6D 6H 6S JD",
            "7C 7D 7H 7S 8C TC",
            "8D 8H 8S 9C 9D 9H 2H",
        ],
        "",
    )
    act(g, "AC pile 0 -> foundation")
    assert g.piles[0] == []
    assert not g.is_legal(action_id(g, "pile 1 -> pile 0")), "a queen may not fill a space"
    assert not g.is_legal(action_id(g, "pile 3 -> pile 0"))
    assert g.is_legal(action_id(g, "pile 2 -> pile 0"))
    act(g, "KD pile 2 -> pile 0")
    assert names(g.piles[0]) == ["KD"] and NAME[g.piles[2][-1]] == "4D"


def test_stock_is_gone_through_once_by_default() -> None:
    g = game_for()
    turn = action_id(g, "stock -> talon")
    for _ in range(24):
        g.apply(turn)
    assert g.stock == [] and len(g.talon) == 24
    assert not g.is_legal(turn)
    with pytest.raises(IllegalMove):
        g.apply(turn)


def test_more_passes_turn_the_talon_over_without_shuffling() -> None:
    g = game_for(passes=2)
    turn = action_id(g, "stock -> talon")
    for _ in range(24):
        g.apply(turn)
    first_pass = names(g.talon)
    assert g.describe(turn) == "talon turned over -> stock (new pass)"
    g.apply(turn)
    assert g.talon == [] and len(g.stock) == 24
    second = []
    for _ in range(24):
        g.apply(turn)
        second.append(NAME[g.talon[-1]])
    assert second == first_pass, "the second pass turns the cards in the same order"
    assert not g.is_legal(turn), "two passes only"


def test_unlimited_passes() -> None:
    g = game_for(passes=None)
    turn = action_id(g, "stock -> talon")
    for _ in range(5 * 25):
        g.apply(turn)
    assert g.is_legal(turn)


def test_draw_three_turns_three_and_only_the_top_is_available() -> None:
    g = game_for(draw=3, stock="JC 9S AD TH 3S")
    act(g, "stock -> talon")
    assert names(g.talon) == ["JC", "9S", "AD"]
    assert g.describe(action_id(g, "talon -> foundation")) == "AD talon -> foundation"
    act(g, "AD talon -> foundation")
    assert NAME[g.talon[-1]] == "9S"


def test_counter_score_in_info(engine: str) -> None:
    env = gym.make("patience_gym/Klondike-v0", engine=engine)
    _, info = env.reset(options={"deck": klondike_deck(PILES, STOCK)})
    assert info["counter_score"] == -52
    game: Klondike = env.unwrapped.game  # type: ignore[attr-defined]
    a = action_id(game, "pile 2 -> foundation")
    _, reward, _, _, info = env.step(a)
    assert info["counter_score"] == -47 and info["foundation_cards"] == 1
    assert reward == pytest.approx(1 / 52)


def test_hidden_cards_never_reach_the_observation() -> None:
    a = game_for()
    piles = list(PILES)
    piles[6] = "9H 8H 8S 9C 9D 8D 2H"  # same face-up card, face-down cards shuffled
    b = game_for(piles, "JC 9S AD TH 3S")
    assert a.state_key() != b.state_key()
    assert np.array_equal(a.observation(), b.observation())
    stock_b = ["JC", "9S", "AD", "TH", "3S"]
    rest = [c for c in klondike_deck(PILES, STOCK)[28:] if c not in stock_b]
    c = scenario_deal(Klondike, klondike_deck(PILES, " ".join(stock_b + rest[::-1])))
    assert np.array_equal(a.observation(), c.observation()), "stock order must not leak"


def places(g: Klondike, *cards: str) -> list[str]:
    """The observation's place of each card, by name."""
    grid = g.layout.view(g.observation(), "card_place")
    return [PLACES.places[int(np.argmax(grid[parse_card(c)]))] for c in cards]


@pytest.mark.parametrize("draw", [1, 3])
def test_the_talon_fan_is_in_the_observation_in_order(draw: int) -> None:
    # The render shows the talon's top three cards in order; so must the observation. Two deals
    # that differ only in the order of the first three stock cards look different once turned.
    a = game_for(draw=draw, stock="JC 9S AD TH 3S")
    b = game_for(draw=draw, stock="9S JC AD TH 3S")
    assert np.array_equal(a.observation(), b.observation()), "still in the stock: hidden"
    for g in (a, b):
        for _ in range(3 if draw == 1 else 1):
            act(g, "stock -> talon")
    assert "talon: JC 9S AD" in a.render() and "talon: 9S JC AD" in b.render()
    assert not np.array_equal(a.observation(), b.observation())
    assert places(a, "AD", "9S", "JC") == [
        "talon top",
        "talon second from top",
        "talon third from top",
    ]
    act(a, "AD talon -> foundation")
    assert places(a, "9S", "JC") == ["talon top", "talon second from top"]
    act(a, "stock -> talon")  # draw 1: TH; draw 3: TH 3S and the next stock card
    assert places(a, "JC") == ["talon below the top three (seen)" if draw == 3 else "talon third from top"]


# ---- stock="known" (not the book's rule; the published planners' "K+") ------------------------


def known_game(stock: str = STOCK, **options: object) -> Klondike:
    """:func:`game_for`'s deal with the stock known (``stock`` is its first cards, as there)."""
    return scenario_deal(Klondike, klondike_deck(PILES, stock), stock="known", **options)


def stock_order(g: Klondike) -> list[str]:
    """The stock's cards as the ``stock_order`` segment gives them, the next to turn first."""
    order = g.layout.view(g.observation(), "stock_order")
    held = np.flatnonzero(order)
    return [NAME[int(c)] for c in held[np.argsort(order[held])]]


@pytest.mark.parametrize("draw", [1, 3])
def test_a_known_stock_is_observed_in_order_and_a_hidden_one_is_not(draw: int) -> None:
    hidden, known = game_for(draw=draw), known_game(draw=draw)
    assert hidden.layout.size == 690 and "stock_order" not in [s.name for s in hidden.layout.segments]
    assert known.layout.size == 742 and known.layout.offset("stock_order") == 690
    assert stock_order(known)[:5] == ["JC", "9S", "AD", "TH", "3S"] and len(stock_order(known)) == 24
    values = known.layout.view(known.observation(), "stock_order")
    assert values[parse_card("JC")] == np.float32(1 / 24) and values[parse_card("3S")] == np.float32(5 / 24)
    assert values[parse_card("KH")] == 0.0, "a card off the stock has no turn"
    # the rest is the hidden observation (a stock card keeps its "not visible" place)
    assert np.array_equal(known.observation()[:690], hidden.observation())
    assert "stock (known), next first: JC 9S AD TH 3S " in known.render()
    assert "stock (known)" not in hidden.render()
    for g in (hidden, known):
        act(g, "stock -> talon")
    rest = ["TH", "3S"] if draw == 3 else ["9S", "AD", "TH", "3S"]
    assert stock_order(known)[: len(rest)] == rest and len(stock_order(known)) == 24 - draw
    assert np.array_equal(known.observation()[:690], hidden.observation())
    # two deals differing only in the stock's order: alike with the stock hidden, not known
    swapped = "9S JC AD TH 3S"
    assert np.array_equal(game_for(stock=swapped).observation(), game_for().observation())
    assert stock_order(known_game(swapped))[:2] == ["9S", "JC"]
    assert not np.array_equal(known_game(swapped).observation(), known_game().observation())


def test_a_known_stock_is_seen_again_in_order_after_a_new_pass() -> None:
    g = known_game(passes=2)
    turn = action_id(g, "stock -> talon")
    for _ in range(24):
        g.apply(turn)
    assert stock_order(g) == [] and "stock (known), next first: (empty)" in g.render()
    turned = names(g.talon)
    g.apply(turn)  # the talon turned over: a new pass
    assert stock_order(g) == turned


def test_a_known_stock_holds_no_unseen_card() -> None:
    # determinize.py deals the unseen positions again: with the stock known, only the face-down
    # pile cards (positions 0-27 of the pack hold the piles, 28-51 the stock).
    hidden, known = game_for(), known_game()
    face_down = sorted(p for p in hidden.unseen_positions() if p < 28)
    assert len(face_down) == 21
    assert sorted(hidden.unseen_positions()) == face_down + list(range(28, 52))
    assert sorted(known.unseen_positions()) == face_down


def test_a_known_stock_changes_no_rule() -> None:
    rng = np.random.default_rng(0)
    for options in ({}, {"draw": 3, "passes": None, "partial_moves": True}):
        hidden, known = game_for(**options), known_game(**options)
        for _ in range(150):
            mask = hidden.legal_mask()
            assert np.array_equal(mask, known.legal_mask()) and hidden.state_key() == known.state_key()
            if not mask.any():
                break
            a = int(rng.choice(np.flatnonzero(mask)))
            assert hidden.apply(a) == known.apply(a)


# pile 4 ends 3D: once AS and 2S are up, worrying back may bring 2S down onto it
PILES_3D = [*PILES[:4], "6C 6D 6H 6S 3D", *PILES[5:]]


def _spades_up(**options: object) -> Klondike:
    g = game_for(PILES_3D, **options)
    act(g, "AS pile 2 -> foundation")
    act(g, "2S pile 3 -> foundation")
    return g


def test_foundation_cards_never_come_back_by_default() -> None:
    g = _spades_up()
    assert g.n_actions == 58 and "foundation" not in " ".join(t.split(" -> ")[0] for t in legal_moves_text(g))
    check_position(g)


def test_worrying_back_brings_a_foundation_top_card_down_where_it_fits() -> None:
    g = _spades_up(worrying_back=True)
    assert g.n_actions == 86
    assert "2S foundation S -> pile 4" in legal_moves_text(g), "2S fits 3D as any card would"
    assert not g.is_legal(action_id(g, "foundation S -> pile 6")), "2S on 2H: not one rank lower"
    assert not g.is_legal(action_id(g, "foundation H -> pile 4")), "an empty foundation has no card"
    check_position(g)
    act(g, "2S foundation S -> pile 4")
    assert g.foundation_cards == 1
    assert names(g.piles[4][-2:]) == ["3D", "2S"] and names(g.foundations[3]) == ["AS"]
    # the ace under it never comes back: an ace is never placed on a two (2S now, or 2H)
    assert not any(g.is_legal(action_id(g, f"foundation S -> pile {j}")) for j in range(7))
    check_position(g)
    act(g, "2S pile 4 -> foundation")  # and it may go up again
    assert names(g.foundations[3]) == ["AS", "2S"]


def test_worrying_back_loses_the_card_in_the_reward(engine: str) -> None:
    env = gym.make("patience_gym/Klondike-v0", engine=engine, worrying_back=True)
    env.reset(options={"deck": klondike_deck(PILES_3D, STOCK)})
    assert env.action_space.n == 86
    for text in ("pile 2 -> foundation", "pile 3 -> foundation", "foundation S -> pile 4"):
        _, reward, terminated, _, info = env.step(action_id(env.unwrapped.game, text))
    assert reward == pytest.approx(-1 / 52) and not terminated and info["foundation_cards"] == 1
    assert gym.make("patience_gym/Klondike-v0", engine=engine).action_space.n == 58


def test_the_stock_option_reaches_the_game_through_make(engine: str) -> None:
    env = gym.make("patience_gym/Klondike-v0", engine=engine, stock="known")
    obs, _ = env.reset(options={"deck": klondike_deck(PILES, STOCK)})
    assert env.observation_space.shape == obs.shape == (742,)
    assert gym.make("patience_gym/Klondike-v0", engine=engine).observation_space.shape == (690,)
    with pytest.raises(ValueError, match="stock='seen' is not allowed; choose one of 'hidden', 'known'"):
        gym.make("patience_gym/Klondike-v0", engine=engine, stock="seen")


def test_mask_is_exact_on_the_scenario_positions() -> None:
    g = game_for()
    for text in ["QS pile 1 -> pile 0", "AS pile 2 -> foundation", "stock -> talon"]:
        check_position(g)
        act(g, text)
    check_position(g)


@pytest.mark.parametrize("passes", [None, 4])
def test_passes_after_the_first_are_one_position_without_a_limit(engine: str, passes: int | None) -> None:
    """A cycle guard (greedy's) must meet a position again when the stock comes round to it: with
    unlimited passes, the start of pass 3 is the start of pass 2 (nothing else differs), while the
    start of pass 1 is not (the stock was unseen then). With a limit, the passes left differ."""
    env = gym.make("patience_gym/Klondike-v0", engine=engine, draw=3, passes=passes)
    env.reset(options={"deck": klondike_deck(PILES, STOCK)})
    core = env.unwrapped
    turn = action_id(core.game, "stock -> talon")
    starts = [core.state_key()]
    while len(starts) < 4:
        env.step(turn)
        if not core.game.talon:  # the talon was just turned over: a new pass begins
            starts.append(core.state_key())
    assert starts[0] != starts[1]
    assert (starts[1] == starts[2] == starts[3]) == (passes is None)


def test_options_reach_the_game_through_make(engine: str) -> None:
    env = gym.make("patience_gym/Klondike-v0", engine=engine, draw=3, passes=None, partial_moves=True)
    g: Klondike = env.unwrapped.game  # type: ignore[attr-defined]
    assert (g.draw, g.passes, g.partial) == (3, None, True)
    for bad in ({"draw": 2}, {"passes": 0}, {"passes": 1.5}, {"partial_moves": "yes"}, {"draw": True}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            gym.make("patience_gym/Klondike-v0", engine=engine, **bad)


def test_a_fixed_deal_and_move_list_win(engine: str) -> None:
    info, total = replay_the_recorded_win("klondike_win.json", "Klondike-v0", engine)
    assert info["won"]
    assert total == pytest.approx(1.0) and info["counter_score"] == 208
    assert not info["action_mask"].any()


def test_the_action_table_is_read_off_by_kind() -> None:
    assert [TABLE.first[k] for k in list(Kind)[:5]] == [0, 1, 8, 15, 16] and len(TABLE) == 58
    assert Kind.FOUNDATION_TO_PILE not in TABLE.first, "worrying_back's moves are not in the book's table"
    # worrying_back=True: the same 58 ids, then foundation f -> pile j, f-major
    assert TABLE_WORRYING.moves[:58] == TABLE.moves and len(TABLE_WORRYING) == 86
    assert TABLE_WORRYING[58 + 7 * 3 + 4].text == "foundation S -> pile 4"
    assert TABLE.ids(Kind.PILE_TO_FOUNDATION) == range(1, 8) and TABLE.ids(Kind.PILE_TO_PILE) == range(16, 58)
    assert TABLE[TABLE.first[Kind.PILE_TO_PILE] + 6 * 3 + 4].text == "pile 3 -> pile 5"  # j skips i
    assert all(TABLE[a].dst == a - 8 for a in TABLE.ids(Kind.TALON_TO_PILE))


def test_a_move_of_an_unknown_kind_is_refused_not_taken_for_a_pile_move() -> None:
    g = game_for()
    before = g.state_key()
    with pytest.raises(AssertionError):
        g._apply(Move("pile_p", 1, 0))  # type: ignore[arg-type]  # a string, not Kind.PILE_TO_PILE
    assert g.state_key() == before


def test_greedy_heuristic_reads_counts_of_hidden_cards_only() -> None:
    # foundation cards first (10 each), then face-down cards (-5 each), then stock and talon
    a = game_for()
    piles = list(PILES)
    piles[6] = "9H 8H 8S 9C 9D 8D 2H"  # the same face-up card, face-down cards shuffled
    b = game_for(piles)
    assert heuristic(a) == heuristic(b) == -5.0 * 21 - 0.5 * 24
    act(a, "AS pile 2 -> foundation")  # one foundation card, one card turned up
    assert heuristic(a) == 10.0 - 5.0 * 20 - 0.5 * 24


def test_parse_card_rejects_bad_names() -> None:
    with pytest.raises(ValueError, match="rank then suit"):
        parse_card("10H")
