"""Expert iteration's throughput (issue 46): labelling, replaying, training and the net's play.

For each variant, on one core (torch at one thread):

- ``planner dec/s``: decisions with a choice a CPU second of the planner playing alone (the
  variant's results-row settings, :data:`patience_gym.agents.policies.planner.ROW_SETTINGS`), on ``--games``
  training deals from :data:`patience_gym.agents.training.exit.EXIT_DEAL_SEED`;
- ``label dec/s``: the same games labelled (:func:`patience_gym.agents.training.exit.label_game`: the planner
  plus the recording of its vote shares);
- ``replay dec/s``: those decisions regenerated from the records (observation and move features);
- ``train dec/s``: decisions a second through the net's training (forward, losses, backward, Adam)
  over ``--epochs`` passes of those decisions;
- ``play moves/s``: the trained net choosing moves alone.

::

    python benchmarks/bench_exit.py                              # Nestor and Babette, 4 games each
    python benchmarks/bench_exit.py --env TheKings-v0 --games 10 --epochs 3
"""

from __future__ import annotations

import argparse
import time

import torch
from common import run_script, variant_names  # benchmarks/common.py (the scripts' folder is on sys.path)

from patience_gym.agents.policies.exit_net import ExitPolicy
from patience_gym.agents.policies.planner import ROW_SETTINGS
from patience_gym.agents.registry import make_policy
from patience_gym.agents.training.exit import EXIT_DEAL_SEED, label_game, make_env, replay
from patience_gym.agents.training.exit_train import new_net, train

DEFAULT_ENVS = ["Nestor-v0", "Babette-v0"]
HEADS = ("planner dec/s", "label dec/s", "replay dec/s", "train dec/s", "play moves/s")
WIDTHS = (14, 13, 14, 13, 14)


def planner_rate(env_name: str, seeds: range) -> float:
    """Decisions with a choice a CPU second of the planner playing alone."""
    env = make_env(env_name)
    core = env.unwrapped
    planner = make_policy(f"planner:{ROW_SETTINGS[env_name]}")
    decisions, cpu = 0, 0.0
    for seed in seeds:
        obs, _ = env.reset(seed=seed)
        planner.reset(seed)
        done = False
        while not done:
            start = time.process_time()
            choice = int(core.action_masks().sum()) > 1  # type: ignore[attr-defined]
            action = planner(core, obs)  # type: ignore[arg-type]
            cpu += time.process_time() - start
            decisions += choice
            obs, _, term, trunc, _ = env.step(action)
            done = term or trunc
    return decisions / max(cpu, 1e-9)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--env", action="append", help="a variant (repeatable; default Nestor and Babette)")
    p.add_argument("--games", type=int, default=4, help="training deals labelled per variant")
    p.add_argument("--epochs", type=int, default=2, help="training passes over their decisions")
    args = p.parse_args()
    if args.games < 1 or args.epochs < 1:
        raise ValueError("--games and --epochs must be >= 1")
    envs = variant_names(args.env or DEFAULT_ENVS)
    unknown = [e for e in envs if e not in ROW_SETTINGS]
    if unknown:
        raise ValueError(f"no planner row settings for {', '.join(unknown)}; use {', '.join(ROW_SETTINGS)}")
    torch.set_num_threads(1)
    print(f"one core, torch {torch.__version__} at 1 thread, {args.games} games, {args.epochs} epochs")
    print(f"{'env':<14}" + "".join(f"{h:>{w}}" for h, w in zip(HEADS, WIDTHS, strict=True)))
    for env_name in envs:
        seeds = range(EXIT_DEAL_SEED, EXIT_DEAL_SEED + args.games)
        planner = planner_rate(env_name, seeds)
        env = make_env(env_name)
        labeller = make_policy(f"planner:{ROW_SETTINGS[env_name]}")
        start = time.process_time()
        records = [label_game(env, labeller, s) for s in seeds]
        label_cpu = time.process_time() - start
        n = sum(len(r.decisions) for r in records)
        options = dict(env.unwrapped.game.options)  # type: ignore[attr-defined]
        start = time.perf_counter()
        data = replay(env_name, options, records)
        replay_s = time.perf_counter() - start
        net = new_net(data, env_name, options)
        stats = train(net, data, epochs=args.epochs, report=lambda s: None)
        policy = ExitPolicy(net)
        obs, _ = env.reset(seed=0)
        moves, start = 0, time.perf_counter()
        while time.perf_counter() - start < 2.0:
            obs, _, term, trunc, _ = env.step(policy(env.unwrapped, obs))  # type: ignore[arg-type]
            moves += 1
            if term or trunc:
                obs, _ = env.reset(seed=moves)
        play = moves / (time.perf_counter() - start)
        rates = (
            planner,
            n / max(label_cpu, 1e-9),
            n / max(replay_s, 1e-9),
            stats.decisions_seen / stats.seconds,
            play,
        )
        print(
            f"{env_name:<14}"
            + "".join(f"{r:>{w},.0f}" for r, w in zip(rates, (14, 13, 14, 13, 14), strict=True))
        )


if __name__ == "__main__":
    run_script(main, __file__)
