"""The Kings rule scenarios (docs/rules.md section 8), each from a fixed pack: play (row to row
in sequence, foundations, lanes), whole games through the env, the observation, the text and
the action table.

Packs and helpers: tests/helpers/the_kings.py.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import patience_gym  # noqa: F401
from patience_gym.core.cards import card_name, names, parse_card
from patience_gym.core.game import IllegalMove
from patience_gym.core.moves import Move
from patience_gym.games.the_kings import TABLE, Kind, TheKings
from patience_gym.testing import act, action_id, check_position, legal_moves_text
from tests.helpers import scenario_deal
from tests.helpers.the_kings import ROW, foundations, game_for, heights, kings_pack, ranks, row, step_text

# each scenario on the Python engine, then in lockstep with the native one (tests/conftest.py)
pytestmark = pytest.mark.both_engines


# ---- play ----------------------------------------------------------------------------------------

# After the default deal foundations 6 and 7 hold 2C and 2D; 0-5 their aces.
# The pairs under 9H and TC are out of sequence, so that 9H may go to and fro under either option.
MOVES_TABLE = {
    "L0": "KC 8S 9H",  # 9H onto TC; back onto 8S
    "L1": "KD TC",
    "L2": "9D",
    "L3": "KS",
    "R0": "5C",
    "R1": "7D",
    "R2": "QH",
    "R3": "JD",
}


def test_outermost_card_goes_onto_another_rows_outermost_one_rank_apart_any_suit() -> None:
    # "either": one rank apart is the whole rule (the monotone restriction is pinned below)
    game = game_for(MOVES_TABLE, sequences="either")
    check_position(game)
    assert set(legal_moves_text(game)) == {
        "9H row L0 -> row L1",
        "TC row L1 -> row L0",
        "TC row L1 -> row L2",
        "TC row L1 -> row R3",
        "9D row L2 -> row L1",
        "KS row L3 -> row R2",
        "QH row R2 -> row L3",
        "QH row R2 -> row R3",
        "JD row R3 -> row L1",
        "JD row R3 -> row R2",
    }
    before = game.state_key()
    for text in ("row L0 -> row L2", "row R0 -> row R1", "row L0 -> row R3", "row L0 -> foundation"):
        with pytest.raises(IllegalMove):
            game.apply(action_id(game, text))  # equal rank, two apart, no foundation one below
    assert game.state_key() == before
    act(game, "9H row L0 -> row L1")
    assert row(game, "L1")[-2:] == ["TC", "9H"] and row(game, "L0")[-1] == "8S"
    act(game, "9H row L1 -> row L0")  # and back: endless back-and-forth is legal
    assert game.state_key() == before


# Rows ending in a rise (L0), a fall (L1), a pair out of sequence (L2) and two equal ranks (L3);
# R0 and R1 offer a 7 and a 9 to each of them.
SEQUENCE_TABLE = {
    "L0": "7H 8S",
    "L1": "9D 8C",
    "L2": "QH 8D",
    "L3": "8H 8C",
    "R0": "KC 7C",
    "R1": "KH 9S",
}


def onto(game: TheKings, card: str, src: str, dst: str) -> bool:
    legal = f"{card} row {src} -> row {dst}" in legal_moves_text(game)
    assert legal == game.is_legal(action_id(game, f"row {src} -> row {dst}"))
    return legal


def test_a_monotone_row_refuses_a_reversal_that_either_accepts() -> None:
    mono, either = game_for(SEQUENCE_TABLE), game_for(SEQUENCE_TABLE, sequences="either")
    assert mono.options == {"sequences": "monotone"}  # the default
    check_position(mono)
    # 7H 8S rose: monotone takes only the 9; 9D 8C fell: only the 7
    assert onto(mono, "9S", "R1", "L0") and not onto(mono, "7C", "R0", "L0")
    assert onto(mono, "7C", "R0", "L1") and not onto(mono, "9S", "R1", "L1")
    # "either" lets each row turn (7 on 8 on 7, 9 on 8 on 9)
    assert onto(either, "7C", "R0", "L0") and onto(either, "9S", "R1", "L1")
    act(either, "7C row R0 -> row L0")
    assert row(either, "L0")[-3:] == ["7H", "8S", "7C"]
    # a monotone row keeps the direction of its outermost pair as it grows
    act(mono, "7C row R0 -> row L1")  # 9D 8C 7C: still falling
    assert row(mono, "R0")[-1] == "KC"
    assert not mono.is_legal(action_id(mono, "row L0 -> row L1"))  # 8S onto 7C would turn it
    check_position(mono)


def test_a_pair_out_of_sequence_and_a_one_card_row_take_either_direction() -> None:
    game = game_for(SEQUENCE_TABLE)
    for dst in ("L2", "L3"):  # QH 8D; 8H 8C
        assert onto(game, "7C", "R0", dst) and onto(game, "9S", "R1", dst)
    # a one-card row (a card put into a lane) takes either direction too
    game = win_game()
    for text in WIN_MOVES[:3]:
        act(game, text)
    act(game, "QS row L1 -> lane L0")
    assert row(game, "L0") == ["QS"]
    assert onto(game, "KH", "L1", "L0") and onto(game, "JH", "R2", "L0")
    act(game, "KH row L1 -> row L0")  # QS KH: a rise, which nothing can continue past K
    assert not onto(game, "JH", "R2", "L0")
    check_position(game)


def test_the_sequences_option_is_validated(engine: str) -> None:
    with pytest.raises(ValueError, match="sequences='up' is not allowed; choose one of 'monotone', 'either'"):
        TheKings(sequences="up")
    env = gym.make("patience_gym/TheKings-v0", engine=engine, sequences="either")
    game: TheKings = getattr(env.unwrapped, "game")  # noqa: B009
    assert game.options == {"sequences": "either"} and not game.monotone


def test_outermost_card_goes_to_any_foundation_one_rank_below_it() -> None:
    game = game_for({"L0": "4D 3H", "L3": "7C 2S", "R1": "6C"})
    assert heights(game) == [1, 1, 1, 1, 1, 1, 2, 2]
    # L0 is on line 0 but its 3 goes to line 3's foundation: the line restriction has ended
    act(game, "3H row L0 -> foundation 6")
    assert card_name(game.foundations[6][-1]) == "3H" and row(game, "L0")[-1] == "4D"
    act(game, "4D row L0 -> foundation 6")
    act(game, "2S row L3 -> foundation 0")  # the lowest-numbered foundation one rank below
    assert heights(game) == [2, 1, 1, 1, 1, 1, 4, 2]
    assert not game.is_legal(action_id(game, "row R1 -> foundation"))  # 6C: no foundation at 5
    assert not game.is_legal(action_id(game, "row L3 -> foundation"))  # 7C: the 2S was outermost
    assert game.foundation_cards == 5 and game.extra_info()["cards_on_foundations"] == 13


# The winning deal: lines 0-2 play out whole during the deal (their foundations reach K), and the
# other 24 cards (the second hearts and spades) stay in the rows, three to a row. On line 0, 6D
# lands as L0's first card (foundation 1 is at 4D) and is played from there when R0's slot deals
# 5D; the diamonds after it are played as they are dealt.
WIN_BEFORE = {
    "L0": " ".join([*ranks("C"), "2D", "3D", "4D"]),
    "R0": " ".join(["5D", *ranks("D")[5:]]),
    "L1": " ".join(ranks("H") + ranks("S")),
    "L2": " ".join(ranks("C") + ranks("D")),
}
WIN_INNER = {"L0": "6D"}
WIN_ROWS = {
    "L0": "2H 3H 4H",
    "L1": "2S KH QS",
    "L2": "9H 7S 5H",
    "L3": "KS 8H TH",
    "R0": "8S 9S 5S",
    "R1": "4S 3S 6H",
    "R2": "6S 7H JH",
    "R3": "QH JS TS",
}
WIN_MOVES = [
    "4H row L0 -> row L2",  # 4H onto 5H, then 3H onto 4H: the sequence is reversed
    "3H row L0 -> row L2",
    "2H row L0 -> foundation 6",  # L0 is now a lane
    "3H row L2 -> foundation 6",
    "4H row L2 -> foundation 6",
    "5H row L2 -> foundation 6",
    "6H row R1 -> foundation 6",
    "7S row L2 -> foundation 6",
    "TH row L3 -> row L2",
    "8H row L3 -> foundation 6",
    "TH row L2 -> row R2",
    "9H row L2 -> foundation 6",
    "TH row R2 -> foundation 6",
    "JH row R2 -> foundation 6",
    "QS row L1 -> foundation 6",
    "KH row L1 -> foundation 6",  # foundation 6 is complete
    "2S row L1 -> foundation 7",
    "3S row R1 -> foundation 7",
    "4S row R1 -> foundation 7",
    "5S row R0 -> foundation 7",
    "7H row R2 -> lane L0",  # any card into a lane
    "6S row R2 -> foundation 7",
    "7H row L0 -> foundation 7",
    "9S row R0 -> row R3",
    "8S row R0 -> foundation 7",
    "9S row R3 -> foundation 7",
    "TS row R3 -> foundation 7",
    "JS row R3 -> foundation 7",
    "QH row R3 -> foundation 7",
    "KS row L3 -> foundation 7",
]


def win_game() -> TheKings:
    game = game_for(WIN_ROWS, WIN_BEFORE, WIN_INNER)
    assert {n: row(game, n) for n in ROW} == {n: cards.split() for n, cards in WIN_ROWS.items()}
    return game


def test_sequences_are_reversed_by_moving_card_by_card() -> None:
    game = win_game()
    act(game, "4H row L0 -> row L2")
    act(game, "3H row L0 -> row L2")
    assert row(game, "L0") == ["2H"]
    assert row(game, "L2") == ["9H", "7S", "5H", "4H", "3H"]


def test_an_emptied_row_is_a_lane_that_takes_any_available_card_at_its_inner_end() -> None:
    game = win_game()
    assert heights(game) == [13] * 6 + [1, 1]  # no card goes on a king: no wrap-around
    assert not game.is_legal(action_id(game, "row L1 -> row L0"))  # QS onto 4H
    for text in WIN_MOVES[:3]:
        act(game, text)
    assert row(game, "L0") == [] and game.layout.view(game.observation(), "lane")[0] == 1.0
    check_position(game)
    lane_moves = [t for t in legal_moves_text(game) if t.endswith("-> lane L0")]
    assert lane_moves == [
        "QS row L1 -> lane L0",
        "3H row L2 -> lane L0",
        "TH row L3 -> lane L0",
        "5S row R0 -> lane L0",
        "6H row R1 -> lane L0",
        "JH row R2 -> lane L0",
        "TS row R3 -> lane L0",
    ]
    act(game, "QS row L1 -> lane L0")
    act(game, "KH row L1 -> row L0")  # the lane is a row again: builds go on its outer end
    assert row(game, "L0") == ["QS", "KH"] and row(game, "L1") == ["2S"]
    act(game, "2S row L1 -> foundation 7")
    act(game, "KH row L0 -> lane L1")  # a card with another under it may go into a lane
    assert row(game, "L1") == ["KH"] and row(game, "L0") == ["QS"]
    # but a row's only card may not: that would only swap two rows' places
    assert not any(t.startswith("KH row L1 -> lane") for t in legal_moves_text(game))
    assert not any(t.startswith("QS row L0 -> lane") for t in legal_moves_text(game))
    check_position(game)


def test_a_fixed_deal_is_won_through_the_env(engine: str) -> None:
    env = gym.make("patience_gym/TheKings-v0", engine=engine)
    _, info = env.reset(options={"deck": kings_pack(WIN_ROWS, WIN_BEFORE, WIN_INNER)})
    assert info["cards_on_foundations"] == 80 and info["foundation_cards"] == 72
    game: TheKings = getattr(env.unwrapped, "game")  # noqa: B009
    assert foundations(game)[1][4:6] == ["5D", "6D"]  # 6D was played from L0 by the deal
    total = 0.0
    for i, text in enumerate(WIN_MOVES):
        reward, term, trunc, info = step_text(env, text)
        total += reward
        assert term == (i == len(WIN_MOVES) - 1) and not trunc
    assert info["won"] and info["cards_on_foundations"] == 104
    assert info["foundation_cards"] == 96
    assert total == pytest.approx(1.0), "rewards share out what the deal left to win"


def test_no_legal_move_left_loses(engine: str) -> None:
    outer = {"L0": "5C", "L1": "7D", "L2": "9H", "L3": "JS", "R0": "KC", "R1": "5D", "R2": "7H", "R3": "9S"}
    game = game_for(outer)
    assert not game.legal_mask().any() and not game.won
    env = gym.make("patience_gym/TheKings-v0", engine=engine)
    _, info = env.reset(options={"deck": kings_pack(outer)})
    assert not info["action_mask"].any()
    _, _, term, _, info = env.step(0)
    assert term and not info["won"]


def test_the_step_limit_stops_endless_back_and_forth(engine: str) -> None:
    env = gym.make("patience_gym/TheKings-v0", engine=engine)
    assert env.spec is not None and env.spec.max_episode_steps == TheKings.default_max_steps == 1000
    env.reset(options={"deck": kings_pack(MOVES_TABLE)})
    game: TheKings = getattr(env.unwrapped, "game")  # noqa: B009
    there, back = action_id(game, "row L0 -> row L1"), action_id(game, "row L1 -> row L0")
    for step in range(1000):
        _, _, term, trunc, _ = env.step(there if step % 2 == 0 else back)
        assert not term and trunc == (step == 999)


# ---- observation, text --------------------------------------------------------------------------


def test_observation_is_bounded_and_holds_what_decides_legality() -> None:
    game = win_game()
    layout = game.layout
    assert layout.size == 1480
    for text in WIN_MOVES[:2]:
        act(game, text)  # L2 is now 9H 7S 5H 4H 3H
    obs = game.observation()
    place = layout.view(obs, "card_place")
    assert place.sum() == 104 and (place.sum(axis=1) == 1).all()
    h3 = 2 * parse_card("3H")
    assert place[h3, ROW["L2"]] + place[h3 + 1, ROW["L2"]] == 1  # one 3H in L2, one on a foundation
    assert place[h3, 8] + place[h3 + 1, 8] == 1
    depth = layout.view(obs, "card_depth")
    s9 = 2 * parse_card("9H") + (0 if place[2 * parse_card("9H"), ROW["L2"]] else 1)
    assert depth[s9] == pytest.approx(4 / 95)  # four cards lie outward of 9H
    outer = layout.view(obs, "outer_card")
    assert names(int(np.flatnonzero(o)[0]) for o in outer) == [
        "2H",
        "QS",
        "3H",
        "TH",
        "5S",
        "6H",
        "JH",
        "TS",
    ]
    assert layout.view(obs, "row_length")[ROW["L2"]] == pytest.approx(5 / 96)
    assert not layout.view(obs, "lane").any()
    assert layout.view(obs, "foundation_height") == pytest.approx([1.0] * 6 + [1 / 13] * 2)
    # the bound: the longest row there can be (all 96 cards in one row, set by hand) still fits
    long = scenario_deal(TheKings, kings_pack({}))
    long.rows = [[c for r in long.rows for c in r] + [c for f in long.foundations for c in f[1:]]] + [[]] * 7
    long.foundations = [f[:1] for f in long.foundations]
    obs = long.observation()
    assert obs.shape == (1480,) and obs.max() == 1.0
    assert layout.view(obs, "card_depth").max() == 1.0 and layout.view(obs, "row_length")[0] == 1.0
    assert layout.view(obs, "lane").tolist() == [0.0] + [1.0] * 7


def test_describe_and_render() -> None:
    game = win_game()
    assert game.describe(action_id(game, "row L0 -> foundation")) == "4H row L0 -> foundation"
    assert game.describe(action_id(game, "row L0 -> row L2")) == "4H row L0 -> row L2"
    text = game.render()
    assert "L0 4H 3H 2H | KC KD | 8S 9S 5S R0" in text  # left rows read outward to the left
    assert "L3 TH 8H KS | AH AS | QH JS TS R3" in text


# ---- the action table ---------------------------------------------------------------------------


def test_the_action_table_is_read_off_by_kind() -> None:
    assert [TABLE.first[k] for k in Kind] == [0, 8] and len(TABLE) == 64
    assert TABLE[TABLE.first[Kind.ROW_TO_ROW] + 7 * ROW["R1"] + ROW["L2"]].text == "row R1 -> row L2"
    assert all(TABLE[a].kind is Kind.ROW_TO_ROW for a in TABLE.ids(Kind.ROW_TO_ROW))
    assert len({m.text for m in TABLE.moves}) == 64


def test_a_move_of_an_unknown_kind_is_refused_and_moves_nothing() -> None:
    game = game_for(MOVES_TABLE)
    before = game.state_key()
    with pytest.raises(AssertionError):
        game._apply(Move("row", ROW["L0"], ROW["L1"]))  # type: ignore[arg-type]  # a string, not Kind.ROW_TO_ROW
    assert game.state_key() == before
