"""configs/ppo/: reward-only MaskablePPO on the batched native env. Every variant's config is
reward-only and trains a short run that plays; the same command resumes an interrupted run,
extends a finished one and does nothing once done; the validation curve starts from the untrained
network and is played batched on exactly the deals ``patience-gym evaluate`` plays."""

from __future__ import annotations

import csv
import json
import shutil
import zipfile
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback

from patience_gym.agents.evaluation.evaluate import evaluate
from patience_gym.agents.policies.ppo import play_batched
from patience_gym.agents.training.config import HELD_OUT_SEEDS, load_config
from patience_gym.agents.training.runs import ROLLOUT_STATE, keep_newest_checkpoint, saved_models
from patience_gym.agents.training.sb3 import TrainingInterrupted, train
from tests.helpers import PORTED, ROOT

#: Every variant's config; training needs its native port (the batched engine).
VARIANTS = sorted(p for p in (ROOT / "configs" / "ppo").glob("*.yaml") if p.stem not in ("defaults", "tiny"))
TRAINABLE = [p for p in VARIANTS if load_config(str(p)).env in {v.env_name for v in PORTED}]
#: A short run: one rollout of the config's own 256 envs x 32 steps, validated on 4 deals.
SHORT = [
    "total_timesteps=8192",
    "progress_bar=false",
    "eval_episodes=4",
    "eval_freq=8192",
    "checkpoint_freq=8192",
]


def _rows(out: Path) -> list[dict[str, str]]:
    with (out / "evaluations.csv").open() as f:
        return list(csv.DictReader(f))


@pytest.mark.parametrize("path", VARIANTS, ids=[p.stem for p in VARIANTS])
def test_each_variant_config_is_reward_only(path: Path) -> None:
    cfg = load_config(str(path))
    assert cfg.vec_env == "native" and cfg.policy in ("mlp", "move_policy") and cfg.reward == "foundation"
    assert (
        not cfg.move_features and not cfg.rollout_features and not cfg.imitation and not cfg.revisit_penalty
    )
    assert cfg.total_timesteps >= 10_000_000 and cfg.resume == "auto"
    assert cfg.eval_deal_seed >= HELD_OUT_SEEDS and cfg.train_deal_seed >= HELD_OUT_SEEDS


# The batched training env and the batched validation differ from sb3's one-env evaluation: no warning.
@pytest.mark.filterwarnings("error:Training and eval env are not of the same type")
@pytest.mark.parametrize("path", TRAINABLE, ids=[p.stem for p in TRAINABLE])
def test_each_variant_config_trains_a_short_run_that_plays(path: Path, tmp_path: Path) -> None:
    cfg = load_config(str(path), [*SHORT, f"output_dir={tmp_path}"])
    out = train(cfg, report=lambda line: None)
    assert (out / "final_model.zip").is_file() and (out / "best_model.zip").is_file()
    assert [int(r["steps"]) for r in _rows(out)] == [0, 8192]  # the untrained network first
    result = evaluate(cfg.env, f"ppo:{out}", episodes=2, seed=0)
    assert result.games == 2 and all(e.length > 0 for e in result.episodes)


def test_the_same_command_resumes_extends_and_then_does_nothing(tmp_path: Path) -> None:
    nestor = str(ROOT / "configs" / "ppo" / "nestor.yaml")
    lines: list[str] = []

    class StopAt(BaseCallback):  # Ctrl-C once the run has passed 8,192 steps
        def _on_step(self) -> bool:
            if self.num_timesteps > 8192:
                raise KeyboardInterrupt
            return True

    def run(steps: int, **kw: object) -> Path:
        cfg = load_config(nestor, [*SHORT, f"total_timesteps={steps}", f"output_dir={tmp_path}"])
        return train(cfg, report=lines.append, **kw)  # type: ignore[arg-type]

    with pytest.raises(TrainingInterrupted) as stop:
        run(32768, callbacks=[StopAt()])
    assert stop.value.steps == 8192 + 256 and not (tmp_path / "final_model.zip").exists()
    run(32768)  # resumes from the interruption's checkpoint
    info = json.loads((tmp_path / "train_info.json").read_text())
    assert info["resumed_at"] == 8192 + 256 and info["num_timesteps"] >= 32768  # whole rollouts
    assert info["total_seconds"] >= info["seconds"]
    first = info["num_timesteps"]
    run(first + 8192)  # a finished run, extended: continues from its final model
    info = json.loads((tmp_path / "train_info.json").read_text())
    assert info["resumed_at"] == first and info["num_timesteps"] == first + 8192
    steps = [int(r["steps"]) for r in _rows(tmp_path)]
    assert steps[0] == 0 and steps == sorted(steps) and len(steps) == len(set(steps))
    lines.clear()
    assert run(first + 8192) == tmp_path  # done: nothing trained, nothing rewritten
    assert lines == [f"{tmp_path} already holds a model trained to {first + 8192:,} steps; nothing to do"]
    assert saved_models(tmp_path)[-1] == (first + 8192, tmp_path / "final_model.zip")


def test_a_kept_checkpoint_is_the_newest_slimmed_and_resumes(tmp_path: Path) -> None:
    """scripts/keep_runs.sh keeps an unfinished run's newest checkpoint (by steps, not by name:
    ``ppo_16384`` after ``ppo_8192``, in a folder whose name has underscores) without the last
    rollout's observations, and a run restored from it resumes where the checkpoint stood."""
    nestor = str(ROOT / "configs" / "ppo" / "nestor.yaml")
    run_dir = tmp_path / "nestor_move_seed1"
    cfg = load_config(nestor, [*SHORT, "total_timesteps=16384", f"output_dir={run_dir}"])
    train(cfg, report=lambda line: None)
    names = {p.name for p in (run_dir / "checkpoints").iterdir()}
    assert names >= {"ppo_8192_steps.zip", "ppo_16384_steps.zip"}
    kept = keep_newest_checkpoint(run_dir, tmp_path / "kept")
    assert kept is not None and kept.name == "ppo_16384_steps.zip"
    full = run_dir / "checkpoints" / kept.name
    assert kept.stat().st_size < full.stat().st_size
    with zipfile.ZipFile(kept) as z:
        data = json.loads(z.read("data"))
    assert not set(ROLLOUT_STATE) & set(data) and "policy_class" in data
    # a new work tree: the kept checkpoint alone in the run folder, resumed by the same command
    restored = tmp_path / "restored"
    (restored / "checkpoints").mkdir(parents=True)
    shutil.copy(kept, restored / "checkpoints" / kept.name)
    cfg = load_config(nestor, [*SHORT, "total_timesteps=24576", f"output_dir={restored}"])
    train(cfg, report=lambda line: None)
    info = json.loads((restored / "train_info.json").read_text())
    assert info["resumed_at"] == 16384 and info["num_timesteps"] == 24576
    model = MaskablePPO.load(restored / "final_model.zip")
    assert model.num_timesteps == 24576


def test_batched_validation_plays_the_deals_evaluate_plays(tmp_path: Path) -> None:
    """play_batched (the validation curve, the table's extra rows) wins exactly the deals that
    ``patience-gym evaluate --policy ppo:<model>`` wins, deal for deal: the flat network, and the
    per-move scoring policy (whose move features the batch and the single env compute alike)."""
    move = ["policy=move_policy", "policy_kwargs={net_arch: [64, 64], scorer_arch: [64]}"]
    runs = (("Nestor-v0", "nestor", []), ("Klondike-v0", "klondike", []), ("Nestor-v0", "nestor", move))
    for env, stem, sets in runs:
        out = tmp_path / f"{stem}{len(sets)}"
        cfg = load_config(
            str(ROOT / "configs" / "ppo" / f"{stem}.yaml"), [*SHORT, *sets, f"output_dir={out}"]
        )
        model_path = train(cfg, report=lambda line: None) / "final_model.zip"
        model = MaskablePPO.load(model_path, device="cpu")
        for spec, sample in (("ppo", False), ("ppo-sample", True)):
            batched = play_batched(model, env, range(40), sample=sample)
            one_by_one = evaluate(env, f"{spec}:{model_path}", episodes=40, seed=0)
            assert batched.won.tolist() == [e.won for e in one_by_one.episodes]
            assert batched.foundation_cards.tolist() == [e.foundation_cards for e in one_by_one.episodes]
            assert batched.length.tolist() == [e.length for e in one_by_one.episodes]


def test_a_sampling_policy_draws_legal_moves_the_same_way_for_the_same_deal(tmp_path: Path) -> None:
    """``ppo-sample`` draws from the model's masked distribution with a generator seeded by the deal:
    the same game for the same seed, another game than the most likely moves' on some deal, only
    legal moves (evaluate refuses an illegal one), and draws that follow the distribution."""
    import numpy as np
    import torch

    from patience_gym.agents.policies.ppo import sampled_action

    cfg = load_config(str(ROOT / "configs" / "ppo" / "nestor.yaml"), [*SHORT, f"output_dir={tmp_path}"])
    model_path = train(cfg, report=lambda line: None) / "final_model.zip"
    sampled = [evaluate("Nestor-v0", f"ppo-sample:{model_path}", episodes=20, seed=0) for _ in range(2)]
    argmax = evaluate("Nestor-v0", f"ppo:{model_path}", episodes=20, seed=0)

    def games(result: Any) -> list[tuple[bool, int, int]]:
        return [(e.won, e.foundation_cards, e.length) for e in result.episodes]

    assert games(sampled[0]) == games(sampled[1])
    assert games(sampled[0]) != games(argmax)

    model = MaskablePPO.load(model_path, device="cpu")
    obs = np.zeros((1, *model.observation_space.shape), dtype=np.float32)
    mask = np.zeros((1, model.action_space.n), dtype=bool)
    mask[0, [3, 7, 11]] = True
    with torch.no_grad():
        dist = model.policy.get_distribution(model.policy.obs_to_tensor(obs)[0], action_masks=mask)
    probs = dist.distribution.probs.numpy()[0]
    rngs = [np.random.default_rng(s) for s in range(3000)]
    draws = sampled_action(model, np.repeat(obs, 3000, axis=0), np.repeat(mask, 3000, axis=0), rngs)
    assert set(draws.tolist()) <= {3, 7, 11}
    for a in (3, 7, 11):
        assert abs(np.mean(draws == a) - probs[a]) < 0.04
    one = np.zeros_like(mask)
    one[0, 5] = True
    assert sampled_action(model, obs, one, [np.random.default_rng(1)]).tolist() == [5]
    # a deal that leaves no legal move (its next step ends the game): action 0, as the argmax plays
    assert sampled_action(model, obs, np.zeros_like(mask), [np.random.default_rng(1)]).tolist() == [0]
