"""Warm start by behaviour cloning (agents.imitation): the policy learns the teacher's choices,
the cloned model is saved and evaluated before PPO moves it."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from agents.imitation import IMITATION_DEAL_SEED, collect
from agents.train import load_config, train

ROOT = Path(__file__).resolve().parent.parent
TINY = str(ROOT / "configs" / "ppo" / "tiny.yaml")


def test_the_teacher_is_recorded_decision_by_decision():
    demos = collect("patience_gym/Nestor-v0", {}, "greedy", 3, reward="foundation", gamma=1.0, report=print)
    n = len(demos.actions)
    assert n > 0 and demos.obs.shape[0] == n and demos.masks.shape[0] == n
    assert demos.masks[range(n), demos.actions].all()  # every recorded action was legal
    # With gamma 1 and foundation rewards the first return of a game is its share of cards won,
    # at most 1; a return never grows along a game (rewards are >= 0).
    assert 0 < demos.returns[0] <= 1.0 + 1e-6
    assert IMITATION_DEAL_SEED >= 500_000 + 100_000  # clear of every evaluated deal


#: A tiny run that clones greedy on 12 games and then takes 64 PPO steps (tests/test_move_features.py too).
CLONING_RUN = [
    "imitation={teacher: greedy, episodes: 12, epochs: 15, batch_size: 64}",
    "total_timesteps=64",
    "ppo.n_steps=32",
    "ppo.batch_size=32",
    "eval_freq=32",
    "eval_episodes=4",
    "checkpoint_freq=0",
]


def agreement_share(lines: list[str]) -> float:
    """The share (%) of the teacher's decisions the cloned policy takes, from train's report."""
    agreement = [ln for ln in lines if "agrees with it on" in ln]
    assert agreement, lines
    return float(agreement[-1].split("agrees with it on ")[1].split("%")[0])


def test_cloning_makes_the_policy_agree_with_the_teacher(tmp_path):
    lines: list[str] = []
    cfg = load_config(TINY, [f"output_dir={tmp_path}", "env=Nestor-v0", *CLONING_RUN])
    out = train(cfg, report=lines.append)
    assert (out / "imitation_model.zip").is_file()
    share = agreement_share(lines)
    # An untrained policy picks the teacher's move about 1/(legal moves) of the time; cloning on a
    # dozen games must do far better.
    assert share > 70.0, lines
    with (out / "evaluations.csv").open() as f:
        steps = [int(r["steps"]) for r in csv.DictReader(f)]
    assert steps[0] <= cfg.n_envs  # the cloned policy was evaluated before PPO changed it


def test_agreement_is_the_same_in_batches(tmp_path):
    """The agreement is computed in batches (one pass over every decision exhausted memory on
    Babette); the batches must give exactly the whole-set answer."""
    import gymnasium as gym
    import torch
    from sb3_contrib import MaskablePPO

    from agents.imitation import _agreement

    demos = collect("patience_gym/Nestor-v0", {}, "greedy", 4, reward="foundation", gamma=1.0, report=print)
    model = MaskablePPO("MlpPolicy", gym.make("patience_gym/Nestor-v0"), seed=0)
    obs = torch.as_tensor(demos.obs)
    actions = torch.as_tensor(demos.actions)
    whole = _agreement(model.policy, obs, demos.masks, actions, batch=len(demos.actions))
    assert 0.0 < whole < 1.0  # an untrained policy: some decisions agree, not all
    assert _agreement(model.policy, obs, demos.masks, actions, batch=7) == pytest.approx(whole)
