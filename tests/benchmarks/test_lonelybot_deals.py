"""benchmarks/lonelybot_deals.py: this project's Klondike deals in lonelybot's layout, and its
results read back (the comparison in docs/planner.md)."""

from __future__ import annotations

import importlib.util
import json
import sys

import gymnasium as gym
import pytest

from patience_gym.core.cards import SUITS
from tests.helpers import ROOT

spec = importlib.util.spec_from_file_location("lonelybot_deals", ROOT / "benchmarks" / "lonelybot_deals.py")
assert spec and spec.loader
lonelybot_deals = importlib.util.module_from_spec(spec)
sys.modules["lonelybot_deals"] = lonelybot_deals
spec.loader.exec_module(lonelybot_deals)


def test_cards_keep_their_rank_and_colour_and_are_a_pack() -> None:
    cards = [lonelybot_deals.lonelybot_card(c) for c in range(52)]
    assert sorted(cards) == list(range(52))
    for c, lb in zip(range(52), cards, strict=True):
        assert lb // 4 == c % 13  # rank, the ace 0
        assert (lb % 4 in (0, 1)) == (SUITS[c // 13] in "DH")  # lonelybot's suits 0 and 1 are red


@pytest.mark.parametrize("seed", [0, 1, 17, 999])
def test_a_deal_line_is_the_engines_deal(seed: int) -> None:
    env = gym.make("patience_gym/Klondike-v0", engine="python", draw=3, passes=None, partial_moves=True)
    line = lonelybot_deals.deal_line(env, seed)
    game = env.unwrapped.game
    card = lonelybot_deals.lonelybot_card
    start = 0
    for i in range(7):  # pile i: i + 1 cards, bottom first, the last face up
        assert line[start : start + i + 1] == [card(c) for c in game.piles[i]]
        start += i + 1
    assert line[28:] == [card(c) for c in reversed(game.stock)]  # the next card turned first


def test_summary_reads_hopbench_and_compares_on_the_same_deals(tmp_path, capsys) -> None:
    out = tmp_path / "hop.txt"
    out.write_text("0 1 2.0 50\n1 0 1.0 20\n2 1 3.0 60\n3 0 2.0 10\n")
    (tmp_path / "summary.json").write_text(json.dumps({"won_seeds": [1, 2, 7]}))
    assert lonelybot_deals.main(["summary", str(out), "--against", str(tmp_path / "summary.json")]) == 0
    text = capsys.readouterr().out
    assert "lonelybot: 2/4 = 50.0% [15.0%, 85.0%], 2.00 s a game" in text
    assert "the other policy on the same 4 deals: 2; won by lonelybot only 1, by the other only 1" in text
    other = tmp_path / "other.txt"  # another hopbench run: its wins are 1 and 3
    other.write_text("0 0 1.0 9 100\n1 1 1.0 9 100\n2 0 1.0 9 100\n3 1 1.0 9 100\n")  # with visits
    assert lonelybot_deals.main(["summary", str(out), "--against", str(other)]) == 0
    assert "same 4 deals: 2; won by lonelybot only 2, by the other only 2" in capsys.readouterr().out
    out.write_text("0 1 2.0\n")
    assert lonelybot_deals.main(["summary", str(out)]) == 2
    assert "not a hopbench line" in capsys.readouterr().err
