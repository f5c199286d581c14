"""The ``macro`` planner's visit shares as the policy target (issue 46: "the search's vote or visit
shares"): what ``visit_shares()`` says at each kind of decision, and ``exit_label.py --targets``."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from patience_gym.agents.policies.macro import MacroPolicy
from patience_gym.agents.registry import make_policy
from patience_gym.agents.training.exit import make_env, read_games
from tests.helpers import script

SPEC = "macro:samples=6,batch=2,nodes=200"


def test_visit_shares_are_the_bandits_deals_per_first_move_and_all_on_the_move_elsewhere() -> None:
    env = make_env("Nestor-v0")
    obs, _ = env.reset(seed=3)
    policy = make_policy(SPEC)
    assert isinstance(policy, MacroPolicy)
    policy.reset(3)
    seen, done = Counter[str](), False
    while not done:
        action = policy.advise(env.unwrapped, obs)
        shares = policy.visit_shares()
        assert sum(shares.values()) == pytest.approx(1.0) and shares[action] > 0
        assert set(shares) <= set(np.flatnonzero(env.unwrapped.action_masks()).tolist())
        if policy.how == "bandit":
            last = policy.last
            assert last is not None
            plays = Counter[int]()
            for line, n in zip(last.lines, last.plays, strict=True):
                plays[line[0]] = max(plays[line[0]], n)
            total = sum(plays.values())
            assert shares == {a: n / total for a, n in plays.items() if n}
            seen["spread" if len(shares) > 1 else "bandit"] += 1
        else:
            assert shares == {action: 1.0}
            seen[policy.how] += 1
        policy.commit(env.unwrapped, action)
        obs, _, terminated, truncated, _ = env.step(action)
        done = terminated or truncated
    assert seen["spread"] > 0 and len(seen) > 1  # the deal meets both kinds of decision


def test_the_label_script_records_visit_shares_and_refuses_a_labeller_without_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels = script("exit_label")
    base = ["--root", str(tmp_path), "--env", "Nestor-v0", "--chunks", "1", "--chunk-games", "2"]
    assert labels.main([*base, "--labeller", SPEC, "--targets", "visits", "--folder", "v"]) == 0
    assert json.loads((tmp_path / "Nestor-v0" / "v" / "run.json").read_text())["targets"] == "visits"
    games = list(read_games(tmp_path / "Nestor-v0" / "v"))
    assert any(len(moves) > 1 for g in games for _, moves, _ in g.decisions)
    assert labels.main([*base, "--labeller", SPEC, "--folder", "one"]) == 0
    one = list(read_games(tmp_path / "Nestor-v0" / "one"))
    assert all(len(moves) == 1 for g in one for _, moves, _ in g.decisions)  # macro's default: its move
    capsys.readouterr()
    with pytest.raises(SystemExit):
        labels.main([*base, "--labeller", "greedy", "--targets", "visits", "--folder", "g"])
    assert "--targets visits: the labeller greedy has no visit_shares()" in capsys.readouterr().err
