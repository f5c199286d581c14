"""The Kings rule scenarios (docs/rules.md section 8), each from a fixed pack: the deal (aces
taken out, columns of four, cards played on their line while dealing).

Packs and helpers: tests/helpers/the_kings.py.
"""

from __future__ import annotations

import pytest

import patience_gym  # noqa: F401
from patience_gym.core.cards import names
from patience_gym.games.the_kings import TheKings
from patience_gym.testing import act, legal_moves_text, scenario_game
from tests.helpers import scenario_deal
from tests.helpers.the_kings import ACES, foundations, game_for, heights, kings_pack, ranks, row

# each scenario on the Python engine, then in lockstep with the native one (tests/conftest.py)
pytestmark = pytest.mark.both_engines


# ---- the deal ------------------------------------------------------------------------------------


def test_the_eight_aces_are_taken_out_wherever_they_lie() -> None:
    pack = kings_pack({})
    assert pack[:8] == ACES
    rest = pack[8:]
    moved = [*rest[:30], "AS", "AH", *rest[30:60], "AC", "AD", "AC", *rest[60:], "AD", "AS", "AH"]
    a, b = scenario_game(TheKings), scenario_game(TheKings)
    a.new_game(deck=pack)
    b.new_game(deck=moved)
    assert a.rows == b.rows
    for game in (a, b):
        assert names(f[0] for f in game.foundations) == ACES  # AC AD AH AS on each half
        assert sum(len(r) for r in game.rows) + sum(heights(game)) == 104
        assert game.foundation_cards == sum(heights(game)) - 8


def test_columns_of_four_alternate_left_and_right_each_outside_the_last() -> None:
    pack = kings_pack({})  # line 3's first slot plays 2C and 2D before its card lands
    dealt = pack[8:]
    assert dealt[3:5] == ["2C", "2D"]
    game = scenario_deal(TheKings, pack)
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
    before = {"L0": "2H 3S 2D", "R0": "3C 4D", "R1": "2C", "L3": "2S 2H"}
    inner = {"L0": "9C", "L1": "4C", "R0": "JS", "R1": "KD"}
    game = game_for({}, before, inner)
    f = foundations(game)
    # both foundations at A: the 2 goes on the left one (0); 3S follows it; 2D then fits only 1
    assert f[0] == ["AC", "2H", "3S", "4D"] and f[1] == ["AD", "2D", "3C"]
    assert f[2] == ["AH", "2C"] and f[3] == ["AS"]
    assert f[4] == ["AC"] and f[5] == ["AD"] and f[6] == ["AH", "2S"] and f[7] == ["AS", "2H"]
    assert row(game, "L0")[0] == "9C" and row(game, "R0")[0] == "JS" and row(game, "R1")[0] == "KD"
    # 4C fitted foundation 0 (line 0 at 3S) when it was dealt to line 1: it stays in L1
    assert row(game, "L1")[0] == "4C"
    assert game.extra_info() == {"cards_on_foundations": 16, "dealt_to_foundations": 8}
    assert game.foundation_cards == 8 and game.win_cards == 96


def test_an_outside_card_is_played_during_the_deal_when_its_line_rises_to_fit_it() -> None:
    # L1's first card 4C does not fit line 1 (both at A) and lands. R1's first slot then deals 2C
    # and 3C, which are played on foundation 2: 4C, still L1's outside card (column 2 has not
    # reached L1), now fits and is played too. Its place is not refilled: L1 starts with 9C,
    # the card of column 2, and is one card shorter than L0 and L2.
    game = game_for({}, {"R1": "2C 3C", "L3": "2S 2H"}, {"L1": "4C 9C"})
    assert foundations(game)[2] == ["AH", "2C", "3C", "4C"]
    assert row(game, "L1")[0] == "9C" and "4C" not in row(game, "L1")
    assert [len(r) for r in game.rows] == [12, 11, 12, 12, 11, 11, 11, 11]
    assert game.extra_info()["dealt_to_foundations"] == 5  # 2S 2H 2C 3C, and 4C


def test_outside_cards_cascade_before_the_next_card_is_turned_the_left_row_first() -> None:
    before = {"L0": "| 2C 5C", "L1": "| 2D", "L3": "2S 2H"}
    inner = {"L0": "3H 9D", "R0": "4S", "L1": "3D 9S", "R1": "3C"}
    game = game_for({}, before, inner)
    f = foundations(game)
    # line 0: column 2 deals 2C onto foundation 0; L0's outside card 3H (column 0) follows it,
    # then R0's (4S, column 1); only then is the next card turned: 5C, which fits and is played.
    # 9D then lands in L0, whose first card it now is.
    assert f[0] == ["AC", "2C", "3H", "4S", "5C"] and f[1] == ["AD"]
    assert row(game, "L0")[0] == "9D" and len(row(game, "R0")) == 10
    # line 1: after 2D both 3D (L1) and 3C (R1) fit foundation 2; the left row's card goes, and
    # 3C, which fits neither foundation then, stays in R1
    assert f[2] == ["AH", "2D", "3D"] and f[3] == ["AS"]
    assert row(game, "L1")[0] == "9S" and row(game, "R1")[0] == "3C"


def test_an_uncovered_inner_card_stays_blocked_for_the_rest_of_the_deal() -> None:
    # L0 gets 5H (column 0) and 3S (column 2). Column 3 deals 2D then 4C in R0's slot: 2D is
    # played, 3S (L0's outside card) follows it, and 4C, turned next, is played as well. 5H,
    # uncovered by 3S, then fits foundation 0, but it is an inner card: it stays, and column 4
    # covers it.
    game = game_for({}, {"R0": "| 2D 4C", "L3": "2S 2H"}, {"L0": "5H 3S"})
    assert foundations(game)[0] == ["AC", "2D", "3S", "4C"]
    assert row(game, "L0")[0] == "5H" and len(row(game, "L0")) == 11
    assert row(game, "L0")[1] != "3S"


def test_a_card_outermost_only_because_its_outside_card_was_played_counts_as_inner() -> None:
    # The deal's last columns: L0 ends 4H 3S (columns 20 and 22); R0's last slot (column 23)
    # deals 2D, then QD lands. 2D is played, then L0's outside card 3S; 4H is now outermost and
    # fits foundation 0, but it is an inner card: the deal ends with it in L0.
    game = game_for({"L0": "4H 3S", "R0": "KC QD"}, {"R0": "| " * 11 + "2D", "L3": "2S 2H"})
    assert foundations(game)[0] == ["AC", "2D", "3S"]
    assert row(game, "L0")[-1] == "4H" and row(game, "R0")[-2:] == ["KC", "QD"]
    # after the deal it is available like any outermost card
    assert "4H row L0 -> foundation 0" in legal_moves_text(game)
    act(game, "4H row L0 -> foundation 0")
    assert foundations(game)[0][-1] == "4H"


def test_a_full_line_does_not_stop_the_deal() -> None:
    # line 0 plays 24 cards (both its foundations reach K); the next card lands in L0 whatever it is
    game = game_for({}, {"L0": " ".join(ranks("C") + ranks("D")), "L3": "2H 2S"}, {"L0": "2D"})
    assert heights(game)[:2] == [13, 13] and row(game, "L0")[0] == "2D"
    assert game.foundation_cards == 26 and game.extra_info()["dealt_to_foundations"] == 26
