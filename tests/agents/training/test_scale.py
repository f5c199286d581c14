"""The scale extra: chunks of deals on a local Ray (2 CPUs), and RLlib PPO with action masking.

The Ray tests are skipped without Ray (``pip install -e '.[scale]'``); the one-line errors for a
missing Ray are checked either way.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import patience_gym  # noqa: F401  (registers the ids)
from patience_gym.agents.cli import main
from patience_gym.agents.common.backends import ChunkError, map_chunks
from patience_gym.agents.common.extras import MissingExtra
from patience_gym.agents.evaluation.evaluate import EvaluationError, evaluate
from patience_gym.env import PatienceEnv
from tests.helpers import RAY, ROOT, needs_ray

CONFIGS = ROOT / "configs" / "rllib"
TINY = str(CONFIGS / "tiny.yaml")


@pytest.fixture(scope="module")
def local_ray(local_ray: Any) -> Any:
    """The test session's local Ray (tests/conftest.py), which also runs this module's functions."""
    # The test module is not importable on Ray's workers: its functions travel by value.
    local_ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    return local_ray


# ---- a missing extra ----------------------------------------------------------------------------


def test_without_ray_the_backend_and_trainer_name_the_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now raises ImportError
    with pytest.raises(MissingExtra, match=r"pip install -e '\.\[scale\]'"):
        list(map_chunks(len, [[1]], backend="ray"))
    assert main(["evaluate", "--env", "Nestor-v0", "--policy", "random", "--backend", "ray"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "install the scale extra" in err
    assert main(["train", TINY, "--trainer", "rllib"]) == 2
    assert "install the scale extra" in capsys.readouterr().err
    assert main(["evaluate", "--env", "Nestor-v0", "--policy", "rllib:runs/none"]) == 2
    assert "install the scale extra" in capsys.readouterr().err


def test_an_address_needs_the_ray_backend(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate", "--env", "Nestor-v0", "--policy", "random", "--address", "auto"]) == 2
    assert "use it with backend: ray" in capsys.readouterr().err
    with pytest.raises(ValueError, match="use it with backend='ray'"):
        list(map_chunks(len, [[1]], address="auto"))
    with pytest.raises(ValueError, match="unknown backend 'spark'"):
        list(map_chunks(len, [[1]], backend="spark"))


# ---- chunks on Ray ------------------------------------------------------------------------------

BAD_SEED = 13


def deal_chunk(seeds: list[int]) -> list[tuple[int, int]]:
    """Each seed's deal and its first legal move; seed ``BAD_SEED`` gets a malformed pack."""
    env = gym.make("patience_gym/Nestor-v0")
    core: PatienceEnv = env.unwrapped  # type: ignore[assignment]
    out = []
    for s in seeds:
        options = {"deck": ["AS", "AS"]} if s == BAD_SEED else None
        env.reset(seed=s, options=options)
        out.append((s, int(np.flatnonzero(core.action_masks())[0])))
    return out


CHUNKS = [list(range(i, i + 3)) for i in range(0, 15, 3)]  # BAD_SEED is in the last chunk


@pytest.mark.parametrize("backend", ["local", pytest.param("ray", marks=RAY)])
def test_a_bad_deck_names_its_chunk_and_the_chunks_before_are_kept(backend: str, request: Any) -> None:
    if backend == "ray":
        request.getfixturevalue("local_ray")
    kept: dict[int, list[tuple[int, int]]] = {}
    with pytest.raises(ChunkError, match="chunk 4 failed: ValueError: ") as exc:
        for i, got in map_chunks(deal_chunk, CHUNKS, backend=backend, workers=2 if backend == "ray" else 1):
            kept[i] = got
    assert exc.value.index == 4 and "deal_chunk" in exc.value.details  # the worker's traceback
    assert sorted(kept) == [0, 1, 2, 3]  # every chunk that started before the failure
    assert kept == {i: deal_chunk(CHUNKS[i]) for i in range(4)}


@needs_ray
def test_ray_evaluation_is_the_local_one_deal_for_deal(local_ray: Any) -> None:
    for env, policy, n in (("Klondike-v0", "random", 30), ("Nestor-v0", "greedy", 24)):
        here = evaluate(env, policy, episodes=n, seed=7, workers=2)
        there = evaluate(env, policy, episodes=n, seed=7, workers=2, backend="ray")
        assert there.episodes == here.episodes and there.summary().keys() == here.summary().keys()
        assert [e.index for e in there.episodes] == list(range(n))
        assert (there.wins, there.mean_length) == (here.wins, here.mean_length)


class FailsOnDeal:
    """Plays the first legal move, but raises on one deal (a policy that meets a bad position)."""

    name = "fails-on-deal"

    def __init__(self, bad: int) -> None:
        self.bad = bad

    def reset(self, seed: int) -> None:
        if seed == self.bad:
            raise RuntimeError("cannot read this deck")

    def __call__(self, env: PatienceEnv, obs: np.ndarray) -> int:
        return int(np.flatnonzero(env.action_masks())[0])


@needs_ray
def test_a_failing_episode_names_its_seed_and_keeps_what_finished(local_ray: Any) -> None:
    # 12 episodes from seed 100 in chunks of 1 (workers=4): deal 111, the last, raises.
    with pytest.raises(EvaluationError, match=r"Nestor-v0 deal seed 111 \(episode 11\): RuntimeError") as exc:
        evaluate("Nestor-v0", FailsOnDeal(111), episodes=12, seed=100, workers=4, backend="ray")
    partial_result = exc.value.partial
    assert "11 of 12 episodes finished" in str(exc.value)
    good = evaluate("Nestor-v0", FailsOnDeal(-1), episodes=11, seed=100)
    assert partial_result.episodes == good.episodes and partial_result.games == 11


@needs_ray
def test_the_cli_evaluates_on_ray(local_ray: Any, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["evaluate", "--env", "Nestor-v0", "--policy", "random", "--episodes", "8", "--json"]
    assert main([*argv, "--backend", "ray"]) == 0
    there = capsys.readouterr().out
    assert main(argv) == 0
    here = capsys.readouterr().out

    def games(text: str) -> Any:
        import json

        return [(r["games"], r["wins"], r["mean_length"]) for r in json.loads(text)]

    assert games(there) == games(here)


# ---- RLlib --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny_rllib_run(local_ray: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from patience_gym.agents.training.rllib import train
    from patience_gym.agents.training.rllib_config import load_config

    out = tmp_path_factory.mktemp("rllib") / "tiny"
    train(load_config(TINY, [f"output_dir={out}"]), report=RLLIB_REPORTED.append)
    return out


#: What the tiny RLlib run reported (progress: false in its config: the closing line alone).
RLLIB_REPORTED: list[str] = []


@needs_ray
def test_tiny_rllib_run_trains_saves_reloads_and_plays_only_legal_moves(tiny_rllib_run: Path) -> None:
    from patience_gym.agents.registry import make_policy

    assert (tiny_rllib_run / "checkpoint" / "rllib_checkpoint.json").is_file()
    # issue 47: a run always ends with one line saying what it trained and where its checkpoint is
    [closing] = RLLIB_REPORTED
    assert closing.startswith("trained Nestor-v0 with RLlib PPO to ") and "last mean return " in closing
    assert (
        f"checkpoint in {tiny_rllib_run / 'checkpoint'}/ (evaluate with --policy rllib:{tiny_rllib_run})"
        in closing
    )
    assert "total_timesteps: 256" in (tiny_rllib_run / "config.yaml").read_text()
    policy = make_policy(f"rllib:{tiny_rllib_run}")
    env = gym.make("patience_gym/Nestor-v0")
    core: PatienceEnv = env.unwrapped  # type: ignore[assignment]
    moves = 0
    for seed in range(3):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            action = policy(core, obs)
            assert core.action_masks()[action], (seed, action)
            obs, _, term, trunc, info = env.step(action)
            assert not info["illegal_action"]
            done, moves = term or trunc, moves + 1
    assert moves > 3


@needs_ray
def test_a_trained_rllib_policy_evaluates_like_any_other(tiny_rllib_run: Path) -> None:
    here = evaluate("Nestor-v0", f"rllib:{tiny_rllib_run}", episodes=4, seed=0)
    there = evaluate("Nestor-v0", f"rllib:{tiny_rllib_run}", episodes=4, seed=0, backend="ray")
    assert here.episodes == there.episodes and here.policy == f"rllib:{tiny_rllib_run}"
    with pytest.raises(ValueError, match="trained on observations"):
        evaluate("Klondike-v0", f"rllib:{tiny_rllib_run}", episodes=1)


@needs_ray
def test_rllib_checkpoints_and_configs_refuse_clearly(
    tiny_rllib_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from patience_gym.agents.training.rllib_config import load_config

    assert main(["train", TINY, "--trainer", "rllib", "--set", f"output_dir={tiny_rllib_run}"]) == 2
    assert "--overwrite" in capsys.readouterr().err
    assert main(["evaluate", "--env", "Nestor-v0", "--policy", f"rllib:{tmp_path}"]) == 2
    assert "no trained module found" in capsys.readouterr().err
    with pytest.raises(ValueError, match=r"'ppo\.learning_rate' is not a PPOConfig.training argument"):
        load_config(TINY, ["ppo.learning_rate=0.1"])
    with pytest.raises(ValueError, match=r"'model\.net_arch' is not a DefaultModelConfig field"):
        load_config(TINY, ["model.net_arch=[8]"])


@needs_ray
@pytest.mark.parametrize("name", sorted(p.stem for p in CONFIGS.glob("*.yaml") if p.stem != "defaults"))
def test_every_rllib_config_loads(name: str) -> None:
    from patience_gym.agents.training.rllib_config import load_config

    cfg = load_config(str(CONFIGS / f"{name}.yaml"))
    assert cfg.output_dir == f"runs/rllib/{name}"
