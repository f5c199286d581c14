"""PPO's per-move scoring policy (patience_gym.agents.policies.move_policy): it trains on the batched env with
the native move features, saves and loads, ignores illegal actions, scores alike what looks alike,
and plays through one env with the same observations as the batch."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import patience_gym  # noqa: F401  (registers the ids)
from patience_gym.native import native_available

pytest.importorskip("sb3_contrib")

import torch  # (after the skip: torch comes with the train extra)
from sb3_contrib import MaskablePPO

from patience_gym.agents.policies.move_policy import (
    LEGAL,
    MovePolicy,
    MoveScorer,
    is_move_policy,
    observe_with_features,
)

if not native_available():  # pragma: no cover
    pytest.fail("the native engine is not built (pip install -e . with a C++17 compiler)", pytrace=False)


def _model(env_id: str = "Nestor-v0", **kwargs: Any) -> tuple[Any, Any]:
    from patience_gym.vector import PatienceSB3VecEnv

    venv = PatienceSB3VecEnv(env_id, n_envs=8, move_features=True)
    venv.seed(0)
    policy_kwargs = {"net_arch": [32, 32], "scorer_arch": [16]}
    model = MaskablePPO(
        MovePolicy, venv, n_steps=32, batch_size=64, n_epochs=1, seed=0, device="cpu",
        policy_kwargs=policy_kwargs, **kwargs,
    )  # fmt: skip
    return model, venv


def test_it_trains_saves_and_loads(tmp_path: Path) -> None:
    model, venv = _model()
    model.learn(total_timesteps=512)
    assert model.num_timesteps >= 512 and is_move_policy(model)
    model.save(tmp_path / "model.zip")
    loaded = MaskablePPO.load(tmp_path / "model.zip", device="cpu")
    assert is_move_policy(loaded) and loaded.policy.scorer_arch == [16]
    obs = venv.reset()
    masks = venv.action_masks()
    a1, _ = model.predict(obs, action_masks=masks, deterministic=True)
    a2, _ = loaded.predict(obs, action_masks=masks, deterministic=True)
    assert np.array_equal(a1, a2) and masks[np.arange(len(a1)), a1].all()


def test_the_logits_ignore_illegal_actions_and_the_value_reads_the_board_alone() -> None:
    model, venv = _model()
    policy: MovePolicy = model.policy
    obs = torch.as_tensor(venv.reset())
    masks = venv.action_masks()
    with torch.no_grad():
        dist: Any = policy.get_distribution(obs, action_masks=masks).distribution
        probs, logits = dist.probs.numpy(), dist.logits.clone()  # sb3 reuses the distribution object
        assert np.allclose(probs[~masks], 0) and np.allclose(probs.sum(axis=1), 1, atol=1e-5)
        # the features of every action changed: the value stays, the logits move
        moved = obs.clone()
        board = obs.shape[1] - policy.n_actions * policy.move_k
        moved[:, board:] = torch.rand_like(moved[:, board:])
        assert torch.equal(policy.predict_values(obs), policy.predict_values(moved))
        again: Any = policy.get_distribution(moved, action_masks=masks).distribution
        assert not torch.equal(again.logits, logits)


def test_one_scorer_scores_equal_features_alike_whichever_the_action() -> None:
    torch.manual_seed(0)
    scorer = MoveScorer(embedding=8, n_actions=5, k=11, arch=[16, 8], activation_fn=torch.nn.Tanh)
    embedding, moves = torch.randn(3, 8), torch.randn(3, 5, 11)
    moves[:, :, LEGAL] = 1
    moves[:, 4] = moves[:, 1]  # actions 1 and 4 look the same
    with torch.no_grad():
        scores = scorer(torch.cat([embedding, moves.reshape(3, -1)], dim=1))
        assert scores.shape == (3, 5)
        # equal up to rounding (a batched matmul may sum in another order at another row)
        assert torch.allclose(scores[:, 1], scores[:, 4], rtol=0, atol=1e-6)
        assert not torch.allclose(scores[:, 1], scores[:, 2], rtol=0, atol=1e-3)
        # the first layer split in two is the scorer over concat(e, features[a])
        concat = torch.cat([embedding.unsqueeze(1).expand(-1, 5, -1), moves], dim=2)
        first = torch.cat([scorer.board.weight, scorer.move.weight], dim=1)
        direct = scorer.rest(concat @ first.T + scorer.board.bias).squeeze(-1)
        assert torch.allclose(scores, direct, atol=1e-6)
        moves[0, 2, LEGAL] = 0  # an illegal move is not scored
        assert scorer(torch.cat([embedding, moves.reshape(3, -1)], dim=1))[0, 2] == 0


def test_a_policy_without_the_features_is_refused() -> None:
    from patience_gym.vector import PatienceSB3VecEnv

    with pytest.raises(ValueError, match="move features"):
        MaskablePPO(MovePolicy, PatienceSB3VecEnv("Nestor-v0", n_envs=2), n_steps=8, device="cpu")


def test_a_saved_model_plays_one_env_as_it_plays_the_batch() -> None:
    """observe_with_features on a single env gives the batch's observation, and the model's
    choice follows."""
    from patience_gym.vector import PatienceVectorEnv

    model, _ = _model()
    venv = PatienceVectorEnv(1, "Nestor-v0", move_features=True)
    batch_obs, _ = venv.reset(seed=[3])
    env = gym.make("patience_gym/Nestor-v0", engine="native")
    obs, single_info = env.reset(seed=3)
    for _ in range(30):
        single = observe_with_features(env, obs)
        assert np.array_equal(single, batch_obs[0])
        a, _ = model.predict(single, action_masks=single_info["action_mask"].astype(bool), deterministic=True)
        b, _ = model.predict(batch_obs, action_masks=venv.action_masks(), deterministic=True)
        assert int(a) == int(b[0])
        obs, _, term, trunc, single_info = env.step(int(a))
        batch_obs, *_ = venv.step(b)
        if term or trunc:
            break
