"""scripts/planner_losses.py: the move that loses a winnable deal is found, and it is the right one."""

from __future__ import annotations

import importlib.util
import re
import sys

import gymnasium as gym
import numpy as np
import pytest

from patience_gym.native import native_available
from tests.helpers import ROOT

spec = importlib.util.spec_from_file_location("planner_losses", ROOT / "scripts" / "planner_losses.py")
assert spec and spec.loader
planner_losses = importlib.util.module_from_spec(spec)
sys.modules["planner_losses"] = planner_losses  # its dataclass looks itself up there
spec.loader.exec_module(planner_losses)

pytestmark = pytest.mark.skipif(not native_available(), reason="the solver needs the native engine")


def test_the_losing_move_is_the_first_after_which_the_deal_is_not_won(capsys):
    from patience_gym.games import get_variant
    from patience_gym.solver import solve_line

    budget, planner = 200_000, "planner:samples=4,budget=5000"
    argv = ["--seeds", "0:4", "--budget", str(budget), "--spec", planner, "--hindsight", "3"]
    assert planner_losses.main([*argv, "--sample-budget", "2000"]) == 0
    out = capsys.readouterr().out
    found = re.findall(
        r"seed (\d+): still won after (\d+) moves; move (\d+) \((\w+): ([^)]*)\) leaves it (\w+)", out
    )
    summary = re.search(r"planner won (\d+), lost (\d+)", out)
    assert summary and int(summary.group(2)) == len(found), out
    assert found, out  # seeds 1 and 3 are won with every card seen and lost by this planner
    options = planner_losses.parse_sets(planner_losses.DEFAULT_SETS)
    variant = get_variant("Klondike-v0")
    for seed, before, move, how, text, label in found:
        env_id = "patience_gym/Klondike-v0"
        core, actions, hows, won = planner_losses.play(env_id, options, planner, int(seed))
        assert not won and hows[int(move) - 1] == (how, text) and label in ("lost", "unknown")
        deck = planner_losses.deck_of(core)
        verdicts = [
            solve_line(variant, options, deck, actions[:n], max_nodes=budget, probe_nodes=budget // 2).label
            for n in (int(before), int(move))
        ]
        assert int(move) == int(before) + 1
        assert verdicts == ["won", label]
        # --hindsight: one line per legal move at that decision, 3 sampled deals each, and the
        # real deal's verdict after the losing move is the label found above
        block = out.split(f"seed {seed}: ", 1)[1].split("\n", 1)[1].split("seed ", 1)[0]
        rows = re.findall(
            r"^    (.+?) +sampled deals won +(\d+), lost +(\d+), unknown +(\d+); the real deal: (\w+)$",
            block,
            re.MULTILINE,
        )
        env = gym.make(env_id, **options)
        env.reset(seed=int(seed))
        for a in actions[: int(before)]:
            env.step(a)
        legal = [env.unwrapped.describe_action(int(a)) for a in np.flatnonzero(env.unwrapped.action_masks())]
        assert [r[0] for r in rows] == legal
        assert all(int(w) + int(lo) + int(u) == 3 for _, w, lo, u, _ in rows)
        assert dict((r[0], r[4]) for r in rows)[text] == label


def test_bad_options_are_refused_in_one_line(capsys):
    assert planner_losses.main(["--set", "draw=7"]) == 2
    assert "draw=7 is not allowed" in capsys.readouterr().err
    assert planner_losses.main(["--seeds", "5:2"]) == 2
    assert capsys.readouterr().err.startswith("planner_losses: ")
    assert planner_losses.main(["--hindsight", "-1"]) == 2
    assert "--hindsight must be a whole number >= 0" in capsys.readouterr().err
    assert planner_losses.main(["--rejudge", "3000,0"]) == 2
    assert "--rejudge node caps must be whole numbers >= 1" in capsys.readouterr().err


def test_the_macro_planners_losing_search_shows_its_candidates_and_their_real_verdicts(capsys):
    from patience_gym.games import get_variant
    from patience_gym.solver import solve_line

    budget, spec = 200_000, "macro:samples=10,batch=5,nodes=1000"
    argv = ["--seeds", "0:2", "--budget", str(budget), "--spec", spec, "--candidates"]
    assert planner_losses.main([*argv, "--rejudge", "1000,5000", "--rejudge-deals", "5"]) == 0
    out = capsys.readouterr().out
    assert "planner won" in out
    blocks = re.findall(
        r"seed (\d+): still won after (\d+) moves; move \d+ \((\w+): ([^)]*)\)[^\n]*\n((?:  .*\n)+)", out
    )
    assert blocks, out  # seeds 0 and 1 are won with every card seen and lost by this planner
    options = planner_losses.parse_sets(planner_losses.DEFAULT_SETS)
    row = re.compile(
        r"^  ([* ]) (.+?) +deals +(\d+), won +(\d+), value ([\d.]+)"
        r"; 1000 nodes: (\d+)/(\d+); 5000 nodes: (\d+)/(\d+); the real deal: (\w+)$"
    )
    for seed, before, how, text, block in blocks:
        rows = [row.match(line) for line in block.splitlines()]
        assert all(rows), block
        chosen = [r for r in rows if r and r.group(1) == "*"]
        assert len(chosen) == 1 and how in ("bandit", "line")
        # the chosen line holds the losing move, and after it the real deal is not won
        assert text in chosen[0].group(2).split(", ") and chosen[0].group(10) in ("lost", "unknown")
        for r in rows:
            assert r and 0 <= int(r.group(4)) <= int(r.group(3)) and 0 <= float(r.group(5)) <= 1
            # --rejudge: every candidate met at least the 5 common deals, at both caps
            for won, deals in ((r.group(6), r.group(7)), (r.group(8), r.group(9))):
                assert int(deals) in (5, 10) and 0 <= int(won) <= int(deals)
        # the verdicts are the solver's on the real deal after the search's position and the line
        game = planner_losses.play_game("patience_gym/Klondike-v0", options, spec, int(seed))
        move = int(before) + 1
        start = game.actions[: game.started_at[move - 1]]
        found = game.decisions[game.chosen_by[move - 1]]
        deck = planner_losses.deck_of(game.core)
        verdicts = [
            solve_line(
                get_variant("Klondike-v0"),
                options,
                deck,
                [*start, *line],
                max_nodes=budget,
                probe_nodes=budget // 2,
            ).label
            for line in found.lines
        ]
        assert verdicts == [r.group(10) for r in rows if r]


def test_any_policy_on_another_variant_gets_its_losing_moves_found(capsys):
    """``greedy`` on The Kings (the variant's own options; no planner's ``how``): each losing move
    printed is the first after which the solver no longer wins the deal."""
    from patience_gym.games import get_variant
    from patience_gym.solver import solve_line

    budget = 100_000
    assert (
        planner_losses.main(
            ["--env", "TheKings-v0", "--spec", "greedy", "--seeds", "0:4", "--budget", str(budget)]
        )
        == 0
    )
    out = capsys.readouterr().out
    found = re.findall(
        r"seed (\d+): still won after (\d+) moves; move (\d+) \(move: ([^)]*)\) leaves it (\w+)", out
    )
    assert found, out
    variant = get_variant("TheKings-v0")
    for seed, before, move, text, label in found:
        core, actions, hows, won = planner_losses.play("patience_gym/TheKings-v0", {}, "greedy", int(seed))
        assert not won and hows[int(move) - 1] == ("move", text)
        deck = planner_losses.deck_of(core)
        verdicts = [
            solve_line(variant, {}, deck, actions[:n], max_nodes=budget, probe_nodes=budget // 2).label
            for n in (int(before), int(move))
        ]
        assert verdicts == ["won", label] and label in ("lost", "unknown")
    assert planner_losses.main(["--env", "TheKings-v0", "--set", "draw=3"]) == 2
    assert "no option 'draw'" in capsys.readouterr().err
