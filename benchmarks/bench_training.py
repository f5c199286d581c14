"""Training steps per second of MaskablePPO on the batched native env, against its ceiling.

For each variant, the same learner (sb3-contrib's ``MaskablePPO``, ``MlpPolicy``) and network train
on two envs of the same sizes: the batched native env as ``vec_env: native`` builds it
(:class:`~patience_gym.vector.PatienceSB3VecEnv`, N games in one native call, in ``VecMonitor``),
and the ceiling, an sb3 ``VecEnv`` of N envs with the same observation size and action count whose
step does no game work (a fixed observation, a fixed mask, reward 0, no episode ever ends). The
ceiling is what the learner alone costs: rollout collection (the policy's forward pass, the
buffer) plus the PPO update. Rounds alternate real and ceiling (each model trained one warm-up
rollout first) and the median of the rounds is printed; ``ratio`` is real / ceiling.

The ceiling's mask (``--ceiling-mask``) is by default the real env's masks at its first deals
(``dealt``: as few legal moves as the game has), since the learner's own cost depends on it:
sb3-contrib's masked distribution (logits set to -1e8, then ``logsumexp``) runs slower on a mask
with few legal moves than on ``all`` (every action legal), by up to 15% of a training step.

Settings default to the fast ones of issue 35 (``configs/ppo/fast.yaml``): a [64, 64] network,
N = 256, 32 steps per env per rollout, one epoch over the whole rollout as one batch, one torch
thread, on the CPU.

    python benchmarks/bench_training.py                         # Nestor and Klondike
    python benchmarks/bench_training.py --env all --rounds 5
    python benchmarks/bench_training.py --env Babette-v0 --n-envs 64 --n-epochs 4 --batch-size 256
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

import numpy as np
from common import run_script, variant_names  # benchmarks/common.py (the scripts' folder is on sys.path)

DEFAULT_ENVS = ["Nestor-v0", "Klondike-v0"]


def ceiling_env(masks: np.ndarray, obs_size: int, obs: np.ndarray | None = None, space: Any = None) -> Any:
    """An sb3 ``VecEnv`` of ``len(masks)`` envs shaped as the variant's, whose step does no game
    work: the same observation every step (``obs``, else random numbers in [0, 1]; ``space``, else
    a [0, 1] box), reward 0, never done, ``masks`` (N, n) the legal moves."""
    from gymnasium import spaces
    from stable_baselines3.common.vec_env import VecEnv

    n_envs, n_actions = masks.shape

    class Ceiling(VecEnv):
        def __init__(self) -> None:
            obs_space = space if space is not None else spaces.Box(0.0, 1.0, (obs_size,), np.float32)
            super().__init__(n_envs, obs_space, spaces.Discrete(n_actions))
            fixed = np.random.default_rng(0).random((n_envs, obs_size), dtype=np.float32)
            self.obs = fixed if obs is None else obs.astype(np.float32)
            self.mask = masks.copy()
            self.rewards = np.zeros(n_envs, dtype=np.float32)
            self.dones = np.zeros(n_envs, dtype=bool)

        def reset(self) -> np.ndarray:
            obs: np.ndarray = self.obs.copy()
            return obs

        def step_async(self, actions: np.ndarray) -> None:
            pass

        def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
            return self.obs.copy(), self.rewards.copy(), self.dones.copy(), [{} for _ in range(n_envs)]

        def close(self) -> None:
            pass

        def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
            return [None] * n_envs  # has_attr("action_masks") holds; render_mode is None

        def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
            pass

        def env_method(self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any) -> Any:
            return self.mask  # action_masks: one (N, n) array, as the native env answers it

        def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
            return [False] * n_envs

    return Ceiling()


def real_env(name: str, n_envs: int, policy: str = "mlp") -> Any:
    """The batched native env as ``patience-gym train`` builds it for ``vec_env: native`` (with the
    move features for ``policy: move_policy``)."""
    from patience_gym.agents.training.config import TrainConfig
    from patience_gym.agents.training.envs import make_train_env

    cfg = TrainConfig(env=name, total_timesteps=1, n_envs=n_envs, vec_env="native", policy=policy)  # type: ignore[arg-type]
    return make_train_env(cfg, first_deal=cfg.train_deal_seed)


def learner(env: Any, args: argparse.Namespace) -> Any:
    from sb3_contrib import MaskablePPO

    policy: Any = "MlpPolicy"
    kwargs: dict[str, Any] = {"net_arch": args.net_arch}
    if args.policy == "move_policy":
        from patience_gym.agents.policies.move_policy import MovePolicy

        policy, kwargs["scorer_arch"] = MovePolicy, [64]
    return MaskablePPO(
        policy,
        env,
        n_steps=args.n_steps,
        batch_size=args.batch_size or args.n_envs * args.n_steps,
        n_epochs=args.n_epochs,
        policy_kwargs=kwargs,
        device=args.device,
        seed=0,
        verbose=0,
    )


def train_rate(model: Any, rollouts: int) -> float:
    """Steps per second of ``rollouts`` more rollouts and their updates."""
    before = model.num_timesteps
    start = time.perf_counter()
    model.learn(rollouts * model.n_steps * model.n_envs, reset_num_timesteps=False)
    return float((model.num_timesteps - before) / (time.perf_counter() - start))


def bench_variant(name: str, args: argparse.Namespace) -> tuple[float, float]:
    """Median steps/s of the real env and of the ceiling, rounds interleaved."""
    env = real_env(name, args.n_envs, args.policy)
    size, n_actions = env.observation_space.shape[0], int(env.action_space.n)
    dealt = real_env(name, args.n_envs, args.policy)  # a second batch, dealt as the real one is
    first = dealt.reset()
    if args.ceiling_mask == "all":
        masks = np.ones((args.n_envs, n_actions), dtype=bool)
    else:  # its first positions' masks
        masks = np.stack(dealt.env_method("action_masks"))
    # the move policy reads its features off the observation: the ceiling shows it real ones
    moves = args.policy == "move_policy"
    ceiling = ceiling_env(masks, size, first if moves else None, env.observation_space if moves else None)
    models = {"real": learner(env, args), "ceiling": learner(ceiling, args)}
    per_rollout = args.n_envs * args.n_steps
    rollouts = max(1, -(-args.steps // per_rollout))
    rates: dict[str, list[float]] = {"real": [], "ceiling": []}
    for model in models.values():
        train_rate(model, 1)  # warm-up: the first reset, torch's first passes
    for _ in range(args.rounds):
        for key, model in models.items():
            rates[key].append(train_rate(model, rollouts))
    env.close()
    return statistics.median(rates["real"]), statistics.median(rates["ceiling"])


def _layers(text: str) -> list[int]:
    try:
        sizes = [int(t) for t in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of layer sizes (e.g. 64,64)") from None
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: layer sizes must be >= 1")
    return sizes


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--env", action="append", help="variant(s), or 'all' (default: Nestor, Klondike)")
    parser.add_argument("--n-envs", type=int, default=256, help="envs per rollout (N)")
    parser.add_argument("--n-steps", type=int, default=32, help="steps per env per rollout")
    parser.add_argument("--batch-size", type=int, default=0, help="minibatch (default: N * n-steps)")
    parser.add_argument("--n-epochs", type=int, default=1, help="passes over each rollout")
    parser.add_argument("--net-arch", type=_layers, default=[64, 64], help="hidden layers, e.g. 64,64")
    parser.add_argument("--threads", type=int, default=1, help="torch.set_num_threads")
    parser.add_argument(
        "--policy", choices=("mlp", "move_policy"), default="mlp",
        help="the flat MLP, or the per-move scoring policy (its move features computed in the batch)",
    )  # fmt: skip
    parser.add_argument("--device", default="cpu", help="torch device")
    parser.add_argument("--steps", type=int, default=3 * 256 * 32, help="steps per round (whole rollouts)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (median printed)")
    parser.add_argument(
        "--ceiling-mask", choices=("dealt", "all"), default="dealt", help="the ceiling's fixed mask"
    )
    args = parser.parse_args()
    counts = ("n_envs", "n_steps", "n_epochs", "threads", "steps", "rounds")
    for key in counts:
        if getattr(args, key) < 1:
            raise ValueError(f"--{key.replace('_', '-')} must be >= 1, got {getattr(args, key)}")
    if args.batch_size < 0:
        raise ValueError(f"--batch-size must be >= 1 (0: N * n-steps), got {args.batch_size}")
    envs = None if args.env == ["all"] else (args.env or DEFAULT_ENVS)
    names = variant_names(envs)

    import torch

    torch.set_num_threads(args.threads)
    batch = args.batch_size or args.n_envs * args.n_steps
    print(
        f"MaskablePPO {args.policy} {args.net_arch}, N={args.n_envs}, n_steps={args.n_steps}, batch={batch}, "
        f"epochs={args.n_epochs}, torch threads={args.threads}, {args.device}; "
        f"ceiling mask {args.ceiling_mask}; median of {args.rounds} rounds"
    )
    print(f"{'env':<20}{'real steps/s':>14}{'ceiling steps/s':>17}{'ratio':>7}")
    for name in names:
        real, ceiling = bench_variant(name, args)
        print(f"{name:<20}{real:>14,.0f}{ceiling:>17,.0f}{real / ceiling:>7.2f}", flush=True)


if __name__ == "__main__":
    run_script(main, __file__)
