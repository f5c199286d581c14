"""Warm start by behaviour cloning (patience_gym.agents.training.imitation): the policy learns the teacher's
choices, the cloned model is saved and evaluated before PPO moves it."""

from __future__ import annotations

import csv
import json

import pytest

pytest.importorskip("sb3_contrib")

from patience_gym.agents.training.config import load_config
from patience_gym.agents.training.imitation import IMITATION_DEAL_SEED, collect
from patience_gym.agents.training.sb3 import train
from tests.helpers import CLONING_RUN, TINY, agreement_share


def test_the_teacher_is_recorded_decision_by_decision():
    demos = collect("patience_gym/Nestor-v0", {}, "greedy", 3, reward="foundation", gamma=1.0, report=print)
    n = len(demos.actions)
    assert n > 0 and demos.obs.shape[0] == n and demos.masks.shape[0] == n
    assert demos.masks[range(n), demos.actions].all()  # every recorded action was legal
    # With gamma 1 and foundation rewards the first return of a game is its share of cards won,
    # at most 1; a return never grows along a game (rewards are >= 0).
    assert 0 < demos.returns[0] <= 1.0 + 1e-6
    assert IMITATION_DEAL_SEED >= 500_000 + 100_000  # clear of every evaluated deal


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
    info = json.loads((out / "train_info.json").read_text())
    assert info["imitation_seconds"] > 0  # the warm start's time is reported beside PPO's


def test_agreement_is_the_same_in_batches(tmp_path):
    """The agreement is computed in batches (one pass over every decision exhausted memory on
    Babette); the batches must give exactly the whole-set answer."""
    import gymnasium as gym
    import torch
    from sb3_contrib import MaskablePPO

    from patience_gym.agents.training.imitation import _agreement

    demos = collect("patience_gym/Nestor-v0", {}, "greedy", 4, reward="foundation", gamma=1.0, report=print)
    model = MaskablePPO("MlpPolicy", gym.make("patience_gym/Nestor-v0"), seed=0)
    obs = torch.as_tensor(demos.obs)
    actions = torch.as_tensor(demos.actions)
    whole = _agreement(model.policy, obs, demos.masks, actions, batch=len(demos.actions))
    assert 0.0 < whole < 1.0  # an untrained policy: some decisions agree, not all
    assert _agreement(model.policy, obs, demos.masks, actions, batch=7) == pytest.approx(whole)


def test_a_dagger_round_plays_the_students_moves_and_records_the_teachers_advice():
    """In a DAgger round the student's (deterministic) move is played and the teacher's advice in
    the position it reached is recorded: replaying the played moves with a fresh teacher gives the
    recorded advice, decision by decision."""
    import gymnasium as gym
    from sb3_contrib import MaskablePPO

    from patience_gym.agents.policies.base import GreedyPolicy

    env_id, first = "patience_gym/Nestor-v0", IMITATION_DEAL_SEED + 5_000
    student = MaskablePPO("MlpPolicy", gym.make(env_id), seed=0)  # untrained: it strays from greedy
    lines: list[str] = []
    demos = collect(
        env_id,
        {},
        "greedy",
        3,
        reward="foundation",
        gamma=1.0,
        report=lines.append,
        student=student,
        first_seed=first,
    )
    env, teacher, i = gym.make(env_id), GreedyPolicy(), 0
    for episode in range(3):
        obs, info = env.reset(seed=first + episode)
        teacher.reset(first + episode)
        done = False
        while not done:
            assert teacher.advise(env.unwrapped, obs) == demos.actions[i]
            mask = info["action_mask"].astype(bool)
            assert demos.played[i] == int(student.predict(obs, action_masks=mask, deterministic=True)[0])
            teacher.commit(env.unwrapped, int(demos.played[i]))
            obs, _, term, trunc, info = env.step(int(demos.played[i]))
            done, i = term or trunc, i + 1
    assert i == len(demos.actions)
    assert (demos.played != demos.actions).any()  # the student's moves were played, not the advice
    taken = float(lines[-1].split("(")[-1].split("%")[0])  # "... decisions (x% as advised)"
    assert taken == pytest.approx(100 * (demos.played == demos.actions).mean(), abs=0.06)


def test_dagger_rounds_train_on_the_students_games(tmp_path):
    lines: list[str] = []
    run = [r for r in CLONING_RUN if not r.startswith("imitation=")]
    dagger = (
        "imitation={teacher: greedy, episodes: 6, epochs: 10, batch_size: 64, dagger: 2, dagger_episodes: 3}"
    )
    cfg = load_config(TINY, [f"output_dir={tmp_path}", "env=Nestor-v0", dagger, *run])
    train(cfg, report=lines.append)
    assert sum("DAgger round" in ln for ln in lines) == 2
    # The last agreement is over the teacher's 6 games and the student's 2 x 3 games together.
    final = [ln for ln in lines if "agrees with it on" in ln][-1]
    decisions = int(final.split(" of ")[-1].split(" decisions")[0].replace(",", ""))
    recorded = [ln for ln in lines if "played 6/6" in ln or "played 3/3" in ln]
    assert len(recorded) == 3
    counts = [int(ln.split(", ")[-1].split(" decisions")[0].replace(",", "")) for ln in recorded]
    assert decisions == sum(counts)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"teacher": "ppo:runs/x.zip", "dagger": 2}, "needs a teacher that can advise without playing"),
        ({"dagger": -1}, "'imitation.dagger' must be a whole number >= 0"),
        ({"dagger": 2, "dagger_episodes": 0}, "'imitation.dagger_episodes' must be a positive integer"),
        ({"episodes": 1000, "dagger": 100, "dagger_episodes": 1000}, "must be at most 100000"),
    ],
)
def test_bad_dagger_settings_are_refused(settings, message):
    from patience_gym.agents.training.imitation import check_imitation

    with pytest.raises(ValueError, match=message):
        check_imitation(settings)
