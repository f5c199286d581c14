"""The Kings rule scenarios (RULES.md section 8), each from a fixed pack.

Rows are written from the inner end (next to the foundations) outward, so the last card named is
the outermost, available one. Foundations 2l and 2l+1 lie on line l; rows L<l> and R<l> too.
"""

from __future__ import annotations

from collections import Counter

import gymnasium as gym
import numpy as np
import pytest

import patience_gym  # noqa: F401
from patience_gym.core.cards import NAME, RANK, parse_card
from patience_gym.core.game import IllegalMove
from patience_gym.games.the_kings import ROW_NAMES, TheKings, kings_deal
from patience_gym.testing import act, action_id, check_position, legal_moves_text

ACES = ["AC", "AD", "AH", "AS", "AC", "AD", "AH", "AS"]
ROW = {name: r for r, name in enumerate(ROW_NAMES)}
FULL = ["2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"]


def ranks(suit: str) -> list[str]:
    return [r + suit for r in FULL]


def row_lengths(landed: int) -> dict[str, int]:
    """How many cards each row receives when ``landed`` cards stay in the rows."""
    full, rem = divmod(landed, 4)
    out = {}
    for name, r in ROW.items():
        side, line = divmod(r, 4)
        out[name] = sum(1 for k in range(full + 1) if k % 2 == side and (k < full or line < rem))
    return out


def kings_pack(
    outer: dict[str, str], before: dict[str, str] | None = None, inner: dict[str, str] | None = None
) -> list[str]:
    """Invert the deal: a 104-card pack (the eight aces first) that deals this layout.

    ``outer[row]``: the row's outermost cards, inner first. ``before[row]``: cards dealt just
    before the row's innermost card and played to its line's foundations (default: 2C and 2D on
    line 3, so that the other 2s have a line to land on). ``inner[row]``: the row's innermost
    cards, inner first. Every other card fills the rows' middles: at each slot, in deal order, the lowest card that does not fit the line's foundations.
    The pack is checked by dealing it: a layout the deal cannot produce raises.
    """
    before = {"L3": "2C 2D"} if before is None else before
    want = {row: cards.split() for row, cards in outer.items()}
    first = {row: cards.split() for row, cards in (inner or {}).items()}
    plays = {row: cards.split() for row, cards in before.items()}
    pool = Counter(NAME[c] for c in range(52) for _ in range(2))
    pool.subtract(ACES)
    for cards in [*want.values(), *plays.values(), *first.values()]:
        pool.subtract(cards)
    assert all(n >= 0 for n in pool.values()), f"a card is named too often: {+pool}"
    landed = 96 - sum(len(p) for p in plays.values())
    length = row_lengths(landed)
    heights = [1] * 8
    pack = list(ACES)
    placed = dict.fromkeys(ROW, 0)
    for k in range(landed):  # slot k of the deal: column k // 4, line k % 4
        column, line = divmod(k, 4)
        name = ROW_NAMES[4 * (column % 2) + line]
        pair = heights[2 * line : 2 * line + 2]
        for c in plays.get(name, []) if placed[name] == 0 else []:
            pack.append(c)
            assert RANK[parse_card(c)] - 1 in pair, f"{c} does not fit line {line}'s foundations"
            f = 2 * line + (0 if pair[0] == RANK[parse_card(c)] - 1 else 1)
            heights[f] += 1
            pair = heights[2 * line : 2 * line + 2]
        pos = placed[name] - (length[name] - len(want.get(name, [])))
        if pos >= 0:
            c = want[name][pos]
        elif placed[name] < len(first.get(name, [])):
            c = first[name][placed[name]]
        else:
            fits = [c for c in sorted(+pool) if RANK[parse_card(c)] - 1 not in pair]
            assert fits, f"no card left that stays in row {name}"
            c = min(fits, key=lambda x: RANK[parse_card(x)])
            pool[c] -= 1
        pack.append(c)
        placed[name] += 1
    assert len(pack) == 104 and not +pool, "pack does not hold two packs"
    rows, _ = kings_deal([parse_card(c) for c in pack])
    for name, cards in want.items():
        got = [NAME[c] for c in rows[ROW[name]]]
        assert got[len(got) - len(cards) :] == cards, f"row {name} deals as {got}, not ending {cards}"
    for name, cards in first.items():
        got = [NAME[c] for c in rows[ROW[name]]]
        assert got[: len(cards)] == cards, f"row {name} deals as {got}, not starting {cards}"
    return pack


def game_for(
    outer: dict[str, str], before: dict[str, str] | None = None, inner: dict[str, str] | None = None
) -> TheKings:
    game = TheKings()
    game.new_game(deck=kings_pack(outer, before, inner))
    return game


def row(game: TheKings, name: str) -> list[str]:
    return [NAME[c] for c in game.rows[ROW[name]]]


def heights(game: TheKings) -> list[int]:
    return [len(f) for f in game.foundations]


def step_text(env: gym.Env, text: str) -> tuple[float, bool, bool, dict]:
    """Step the env with the legal action described as ``text``."""
    game: TheKings = getattr(env.unwrapped, "game")  # noqa: B009  (Env does not declare it)
    ids = [a for a in game.legal_actions() if game.describe(a) == text]
    assert len(ids) == 1, f"{text!r} is not one legal move; legal: {legal_moves_text(game)}\n{game.render()}"
    _, reward, term, trunc, info = env.step(ids[0])
    return float(reward), term, trunc, info


# ---- the deal ------------------------------------------------------------------------------------


def test_the_eight_aces_are_taken_out_wherever_they_lie() -> None:
    pack = kings_pack({})
    assert pack[:8] == ACES
    rest = pack[8:]
    moved = rest[:30] + ["AS", "AH"] + rest[30:60] + ["AC", "AD", "AC"] + rest[60:] + ["AD", "AS", "AH"]
    a, b = TheKings(), TheKings()
    a.new_game(deck=pack)
    b.new_game(deck=moved)
    assert a.rows == b.rows
    for game in (a, b):
        assert [NAME[f[0]] for f in game.foundations] == ACES  # AC AD AH AS on each half
        assert sum(len(r) for r in game.rows) + sum(heights(game)) == 104
        assert game.foundation_cards == sum(heights(game)) - 8


def test_columns_of_four_alternate_left_and_right_each_outside_the_last() -> None:
    pack = kings_pack({})  # line 3's first slot plays 2C and 2D before its card lands
    dealt = pack[8:]
    assert dealt[3:5] == ["2C", "2D"]
    game = TheKings()
    game.new_game(deck=pack)
    # column 0 -> left rows (inner ends), top line first
    assert [row(game, n)[0] for n in ("L0", "L1", "L2")] == dealt[0:3]
    assert row(game, "L3")[0] == dealt[5]
    # column 1 -> right rows, column 2 -> left rows again, outside column 0
    assert [row(game, n)[0] for n in ("R0", "R1", "R2", "R3")] == dealt[6:10]
    assert [row(game, n)[1] for n in ("L0", "L1", "L2", "L3")] == dealt[10:14]
    assert [row(game, n)[1] for n in ("R0", "R1", "R2", "R3")] == dealt[14:18]
    # 94 cards stay in the rows: 23 full columns (12 left, 11 right) and a 24th (right side)
    # that the pack runs out in after two cards
    assert [len(r) for r in game.rows] == [12, 12, 12, 12, 12, 12, 11, 11]
    assert heights(game) == [1, 1, 1, 1, 1, 1, 2, 2]


def test_the_deal_plays_a_card_only_on_its_own_line_and_the_next_takes_its_place() -> None:
    before = {"L0": "2H 3S 2D", "R0": "3C 4D", "R1": "2C 3C", "L3": "2S 2H"}
    inner = {"L0": "9C", "L1": "4C", "R0": "JS", "R1": "KD"}
    game = game_for({}, before, inner)
    f = [[NAME[c] for c in pile] for pile in game.foundations]
    # both foundations at A: the 2 goes on the left one (0); 3S follows it; 2D then fits only 1
    assert f[0] == ["AC", "2H", "3S", "4D"] and f[1] == ["AD", "2D", "3C"]
    assert f[2] == ["AH", "2C", "3C"] and f[3] == ["AS"]
    assert f[4] == ["AC"] and f[5] == ["AD"] and f[6] == ["AH", "2S"] and f[7] == ["AS", "2H"]
    assert row(game, "L0")[0] == "9C" and row(game, "R0")[0] == "JS" and row(game, "R1")[0] == "KD"
    # 4C fitted foundation 0 (line 0) when dealt to line 1: it stays. Line 1 reached 3 later
    # (R1's plays), but a card already in a row is not played during the deal.
    assert row(game, "L1")[0] == "4C"
    assert game.extra_info() == {"cards_on_foundations": 17, "dealt_to_foundations": 9}
    assert game.foundation_cards == 9 and game.win_cards == 96


def test_a_full_line_does_not_stop_the_deal() -> None:
    # line 0 plays 24 cards (both its foundations reach K); the next card lands in L0 whatever it is
    game = game_for({}, {"L0": " ".join(ranks("C") + ranks("D")), "L3": "2H 2S"}, {"L0": "2D"})
    assert heights(game)[:2] == [13, 13] and row(game, "L0")[0] == "2D"
    assert game.foundation_cards == 26 and game.extra_info()["dealt_to_foundations"] == 26


# ---- play ----------------------------------------------------------------------------------------

# After the default deal foundations 6 and 7 hold 2C and 2D; 0-5 their aces.
MOVES_TABLE = {
    "L0": "8S 9H",  # 9H onto TC; back onto 8S
    "L1": "TC",
    "L2": "9D",
    "L3": "KS",
    "R0": "5C",
    "R1": "7D",
    "R2": "QH",
    "R3": "JD",
}


def test_outermost_card_goes_onto_another_rows_outermost_one_rank_apart_any_suit() -> None:
    game = game_for(MOVES_TABLE)
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


def test_outermost_card_goes_to_any_foundation_one_rank_below_it() -> None:
    game = game_for({"L0": "4D 3H", "L3": "7C 2S", "R1": "6C"})
    assert heights(game) == [1, 1, 1, 1, 1, 1, 2, 2]
    # L0 is on line 0 but its 3 goes to line 3's foundation: the line restriction has ended
    act(game, "3H row L0 -> foundation 6")
    assert NAME[game.foundations[6][-1]] == "3H" and row(game, "L0")[-1] == "4D"
    act(game, "4D row L0 -> foundation 6")
    act(game, "2S row L3 -> foundation 0")  # the lowest-numbered foundation one rank below
    assert heights(game) == [2, 1, 1, 1, 1, 1, 4, 2]
    assert not game.is_legal(action_id(game, "row R1 -> foundation"))  # 6C: no foundation at 5
    assert not game.is_legal(action_id(game, "row L3 -> foundation"))  # 7C: the 2S was outermost
    assert game.foundation_cards == 5 and game.extra_info()["cards_on_foundations"] == 13


# The winning deal: lines 0-2 play out whole during the deal (their foundations reach K), and the
# other 24 cards (the second hearts and spades) stay in the rows, three to a row.
WIN_BEFORE = {
    "L0": " ".join(ranks("C") + ranks("D")),
    "L1": " ".join(ranks("H") + ranks("S")),
    "L2": " ".join(ranks("C") + ranks("D")),
}
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
    game = game_for(WIN_ROWS, WIN_BEFORE)
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


def test_a_fixed_deal_is_won_through_the_env() -> None:
    env = gym.make("patience_gym/TheKings-v0")
    _, info = env.reset(options={"deck": kings_pack(WIN_ROWS, WIN_BEFORE)})
    assert info["cards_on_foundations"] == 80 and info["foundation_cards"] == 72
    total = 0.0
    for i, text in enumerate(WIN_MOVES):
        reward, term, trunc, info = step_text(env, text)
        total += reward
        assert term == (i == len(WIN_MOVES) - 1) and not trunc
    assert info["won"] is True and info["cards_on_foundations"] == 104
    assert info["foundation_cards"] == 96
    assert total == pytest.approx(1.0), "rewards share out what the deal left to win"


def test_no_legal_move_left_loses() -> None:
    outer = {"L0": "5C", "L1": "7D", "L2": "9H", "L3": "JS", "R0": "KC", "R1": "5D", "R2": "7H", "R3": "9S"}
    game = game_for(outer)
    assert not game.legal_mask().any() and not game.won
    env = gym.make("patience_gym/TheKings-v0")
    _, info = env.reset(options={"deck": kings_pack(outer)})
    assert not info["action_mask"].any()
    _, _, term, _, info = env.step(0)
    assert term and info["won"] is False


def test_the_step_limit_stops_endless_back_and_forth() -> None:
    env = gym.make("patience_gym/TheKings-v0")
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
    assert [NAME[int(np.flatnonzero(o)[0])] for o in outer] == [
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
    long = TheKings()
    long.new_game(deck=kings_pack({}))
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
