"""Warm start for PPO: behaviour cloning of a teacher policy (greedy, the planner) before PPO.

A config's ``imitation`` key turns it on::

    imitation:
      teacher: greedy        # any policy spec of patience-gym evaluate
      episodes: 300          # teacher games recorded (deals 900,000 up: never evaluated on)
      epochs: 20             # passes over the recorded steps
      batch_size: 256
      learning_rate: 1.0e-3
      value: true            # also fit the value head to the teacher's discounted returns
      dagger: 0              # DAgger rounds after the clone (0: none)
      dagger_episodes: 100   # games the policy plays per round, the teacher advising each decision
      dagger_epochs: 3       # passes over all the recorded decisions after each round

The teacher plays ``episodes`` games; every decision (observation, legal mask, the teacher's
action, and the discounted return that followed) is recorded. The PPO policy's masked action
distribution is then trained to give the teacher's action the highest probability (cross-entropy
on the masked logits), and its value head to predict the return, so PPO starts from the
teacher's play with a critic that already knows what that play is worth. The report shows the
share of recorded decisions on which the policy's most likely action is the teacher's.

A clone goes wrong where its teacher never went: one decision it misses leads to positions the
teacher's games never showed, and there the clone may move cards to and fro until the step limit.
DAgger (Ross, Gordon and Bagnell, 2011) teaches it those positions: in each of ``dagger`` rounds the
*policy* plays ``dagger_episodes`` new deals, the teacher is asked at every decision what it would
play (its advice is recorded, the policy's move is played), and the policy is trained again on
every decision recorded so far. The teacher must be able to advise without playing (``greedy`` and
``planner`` can: their ``advise`` and ``commit``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np

#: The deals the teacher plays: between the periodic evaluation's (500,000 up) and training's
#: (1,000,000 up) so that no evaluated deal is ever learnt from.
IMITATION_DEAL_SEED = 900_000
DEFAULTS: dict[str, Any] = {
    "teacher": "greedy",
    "episodes": 300,
    "epochs": 20,
    "batch_size": 256,
    "learning_rate": 1.0e-3,
    "value": True,
    "dagger": 0,
    "dagger_episodes": 100,
    "dagger_epochs": 3,
}


def check_imitation(settings: dict[str, Any]) -> dict[str, Any]:
    """The settings with defaults filled in; an unknown key or a bad value is refused."""
    unknown = sorted(set(settings) - set(DEFAULTS))
    if unknown:
        raise ValueError(f"key 'imitation': unknown setting(s) {unknown}; allowed: {', '.join(DEFAULTS)}")
    out = {**DEFAULTS, **settings}
    for key in ("episodes", "epochs", "batch_size", "dagger", "dagger_episodes", "dagger_epochs"):
        least = 0 if key == "dagger" else 1
        if isinstance(out[key], bool) or not isinstance(out[key], int) or out[key] < least:
            kind = "a whole number >= 0" if least == 0 else "a positive integer"
            raise ValueError(f"key 'imitation.{key}' must be {kind}, got {out[key]!r}")
    if out["episodes"] + out["dagger"] * out["dagger_episodes"] > 100_000:
        raise ValueError(
            "keys 'imitation.episodes' + 'imitation.dagger' * 'imitation.dagger_episodes' must be at most "
            "100000 (their deals must stay below training's)"
        )
    if not isinstance(out["learning_rate"], (int, float)) or not out["learning_rate"] > 0:
        raise ValueError(
            f"key 'imitation.learning_rate' must be a positive number, got {out['learning_rate']!r}"
        )
    if not isinstance(out["value"], bool):
        raise ValueError(f"key 'imitation.value' must be true or false, got {out['value']!r}")
    if not isinstance(out["teacher"], str):
        raise ValueError(f"key 'imitation.teacher' must be a policy spec, got {out['teacher']!r}")
    if out["dagger"] and not (out["teacher"] == "greedy" or out["teacher"].split(":")[0] == "planner"):
        raise ValueError(
            f"key 'imitation.dagger' needs a teacher that can advise without playing (greedy or "
            f"planner[:settings]), got {out['teacher']!r}"
        )
    return out


@dataclass
class Demonstrations:
    """The teacher's decisions: observations, legal masks, actions and the returns that followed."""

    obs: np.ndarray  # (n, obs_size) float32
    masks: np.ndarray  # (n, n_actions) bool
    actions: np.ndarray  # (n,) int64: the teacher's choice (played, or advised in a DAgger round)
    played: np.ndarray  # (n,) int64: the move played (the teacher's, or the student's in DAgger)
    returns: np.ndarray  # (n,) float32
    wins: int
    episodes: int

    @staticmethod
    def join(parts: Sequence[Demonstrations]) -> Demonstrations:
        """All the parts' decisions, in order (each array concatenated once)."""
        return Demonstrations(
            obs=np.concatenate([d.obs for d in parts]),
            masks=np.concatenate([d.masks for d in parts]),
            actions=np.concatenate([d.actions for d in parts]),
            played=np.concatenate([d.played for d in parts]),
            returns=np.concatenate([d.returns for d in parts]),
            wins=sum(d.wins for d in parts),
            episodes=sum(d.episodes for d in parts),
        )


def collect(
    env_id: str,
    env_kwargs: dict[str, Any],
    teacher: str,
    episodes: int,
    *,
    reward: str,
    gamma: float,
    report: Callable[[str], None],
    move_features: bool = False,
    rollout_features: int = 0,
    student: Any = None,
    first_seed: int = IMITATION_DEAL_SEED,
) -> Demonstrations:
    """Play ``teacher`` on ``episodes`` deals (``first_seed`` up) and record every decision (with
    ``move_features``, the observations carry :mod:`agents.policies.features`' numbers, as the trained
    policy's do). With a ``student`` (a MaskablePPO model), the student plays, deterministically,
    and the teacher's advice at each of its decisions is recorded (a DAgger round); ``wins`` then
    counts the student's wins."""
    from ..registry import make_policy

    policy: Any = make_policy(teacher)
    if student is not None and not hasattr(policy, "advise"):
        raise ValueError(f"teacher {teacher!r} cannot advise without playing (DAgger: greedy or planner)")
    who = teacher if student is None else f"the policy (advised by {teacher})"
    env = gym.make(env_id, reward=reward, **env_kwargs)
    if move_features:
        from ..policies.features import MoveFeatures

        env = MoveFeatures(env, rollout_features)
    parts: list[Demonstrations] = []
    for i in range(episodes):
        parts.append(_episode(env, policy, first_seed + i, gamma, student))
        if (i + 1) % max(1, episodes // 10) == 0 or i + 1 == episodes:
            wins = sum(d.wins for d in parts)
            decisions = sum(len(d.actions) for d in parts)
            taken = sum(int((d.played == d.actions).sum()) for d in parts)
            advised = f" ({100 * taken / decisions:.1f}% as advised)" if student is not None else ""
            report(
                f"imitation: {who} played {i + 1}/{episodes} deals, {wins} won, "
                f"{decisions:,} decisions{advised}"
            )
    env.close()  # type: ignore[no-untyped-call, unused-ignore]
    return Demonstrations.join(parts)


def _episode(env: Any, policy: Any, seed: int, gamma: float, student: Any) -> Demonstrations:
    """One deal played by ``policy`` (or by ``student``, ``policy`` advising), every decision recorded."""
    obs_l: list[np.ndarray] = []
    mask_l: list[np.ndarray] = []
    act_l: list[int] = []
    played_l: list[int] = []
    rewards: list[float] = []
    obs, info = env.reset(seed=seed)
    policy.reset(seed)
    done = False
    while not done:
        mask = info["action_mask"].astype(bool)
        if student is None:
            a = played = policy(env.unwrapped, obs)
        else:
            a = policy.advise(env.unwrapped, obs)
            played = int(student.predict(obs, action_masks=mask, deterministic=True)[0])
            policy.commit(env.unwrapped, played)
        obs_l.append(obs)
        mask_l.append(mask)
        act_l.append(a)
        played_l.append(played)
        obs, r, term, trunc, info = env.step(played)
        rewards.append(float(r))
        done = term or trunc
    g, returns = 0.0, []
    for r in reversed(rewards):
        g = r + gamma * g
        returns.append(g)
    return Demonstrations(
        obs=np.asarray(obs_l, dtype=np.float32),
        masks=np.asarray(mask_l, dtype=bool),
        actions=np.asarray(act_l, dtype=np.int64),
        played=np.asarray(played_l, dtype=np.int64),
        returns=np.asarray(returns[::-1], dtype=np.float32),
        wins=int(bool(info.get("won"))),
        episodes=1,
    )


def pretrain(
    model: Any, demos: Demonstrations, settings: dict[str, Any], report: Callable[[str], None]
) -> float:
    """Clone the teacher into ``model``'s policy (and value head); return the final agreement."""
    import torch

    policy = model.policy
    policy.set_training_mode(True)
    optimizer = torch.optim.Adam(policy.parameters(), lr=settings["learning_rate"])
    n = len(demos.actions)
    obs = torch.as_tensor(demos.obs, device=policy.device)
    masks = demos.masks
    actions = torch.as_tensor(demos.actions, device=policy.device)
    returns = torch.as_tensor(demos.returns, device=policy.device)
    rng = np.random.default_rng(0)
    agreement = 0.0
    for epoch in range(settings["epochs"]):
        order = rng.permutation(n)
        total = 0.0
        for start in range(0, n, settings["batch_size"]):
            idx = order[start : start + settings["batch_size"]]
            dist = policy.get_distribution(obs[idx], action_masks=masks[idx])
            loss = -dist.log_prob(actions[idx]).mean()
            if settings["value"]:
                values = policy.predict_values(obs[idx]).flatten()
                loss = loss + 0.5 * torch.nn.functional.mse_loss(values, returns[idx])
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optimizer.step()
            total += loss.item() * len(idx)
        agreement = _agreement(policy, obs, masks, actions)
        report(
            f"imitation: epoch {epoch + 1}/{settings['epochs']}, loss {total / n:.4f}, "
            f"agrees with the teacher on {100 * agreement:.1f}% of its decisions"
        )
    policy.set_training_mode(False)
    return agreement


def _agreement(policy: Any, obs: Any, masks: np.ndarray, actions: Any, batch: int = 4096) -> float:
    """The share of decisions whose most likely action is the teacher's, in batches: one forward
    pass over every recorded decision at once held them all in memory (a move scorer's
    activations for 122,000 Babette decisions exhausted 24 GiB)."""
    import torch

    agree = 0
    with torch.no_grad():
        for start in range(0, len(masks), batch):
            end = start + batch
            dist = policy.get_distribution(obs[start:end], action_masks=masks[start:end])
            agree += int((dist.distribution.probs.argmax(dim=1) == actions[start:end]).sum())
    return agree / len(masks) if len(masks) else 0.0
