"""The ``patience-gym`` command.

::

    patience-gym list
    patience-gym evaluate --env Klondike-v0 --policy greedy --episodes 1000 --seed 0
    patience-gym evaluate configs/eval/klondike.yaml --set episodes=200
    patience-gym show Nestor-v0 --seed 3
    patience-gym show Nestor-v0 --seed 3 --image table.png
    patience-gym replay --env Klondike-v0 --policy greedy --seed 3 --out replay.html
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.config import ConfigError, load


@dataclass
class EvalConfig:
    """``configs/eval/*.yaml``: which env, which policies, how many deals from which seed."""

    env: str
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    policies: list[str] = field(default_factory=lambda: ["random", "greedy"])
    episodes: int = 1000
    seed: int = 0
    workers: int = 1


def _cmd_list(args: argparse.Namespace) -> int:
    from patience_gym.games import VARIANTS

    for v in VARIANTS:
        values = {k: v.options.get(k, o.default) for k, o in v.game.OPTIONS.items()}
        opts = ", ".join(f"{k}={val!r}" for k, val in values.items()) or "-"
        print(f"{v.env_id:<32} {v.summary}  [options: {opts}; max steps {v.max_episode_steps}]")
    return 0


def _cmd_show(args: argparse.Namespace) -> int:
    import gymnasium as gym
    import numpy as np

    import patience_gym  # noqa: F401
    from patience_gym.games import get_variant

    from patience_gym.env import PatienceEnv

    variant = get_variant(args.env)
    env = gym.make(variant.env_id, render_mode="ansi")
    env.reset(seed=args.seed)
    print(env.render())
    core: PatienceEnv = env.unwrapped  # type: ignore[assignment]
    legal = np.flatnonzero(core.action_masks())
    print("legal:", "; ".join(f"{a}: {core.describe_action(int(a))}" for a in legal))
    if args.image:
        from agents.replay import save_table_png

        print(f"picture: {save_table_png(variant.env_id, args.seed, args.image)}")
    return 0


def _cmd_replay(args: argparse.Namespace) -> int:
    from agents.replay import run

    return run(args)


def _cmd_evaluate(args: argparse.Namespace) -> int:
    from agents.evaluate import evaluate, format_table, to_json

    cfg = load(
        EvalConfig,
        args.config,
        args.set,
        env=args.env,
        policies=args.policy,
        episodes=args.episodes,
        seed=args.seed,
        workers=args.workers,
    )
    if not cfg.policies:
        raise ConfigError("no policy given: use --policy (random, greedy, ppo:<model path>)")
    results = [
        evaluate(
            cfg.env,
            p,
            episodes=cfg.episodes,
            seed=cfg.seed,
            workers=cfg.workers,
            env_kwargs=cfg.env_kwargs,
            progress=not args.json,
        )
        for p in cfg.policies
    ]
    print(to_json(results) if args.json else format_table(results))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="patience-gym", description="Patience (solitaire) environments: evaluate and train agents."
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("list", help="list the registered environments and their options")
    p.set_defaults(func=_cmd_list)

    p = sub.add_parser("show", help="deal a game and print the table and the legal moves")
    p.add_argument("env", help="environment id, e.g. Klondike-v0")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--image", metavar="PNG", help="also write the table as a PNG picture")
    p.set_defaults(func=_cmd_show)

    p = sub.add_parser(
        "replay",
        help="play one episode and write it as an HTML page to step through",
        description="Deal with reset(seed=SEED), play the policy to the end, and write one self-contained "
        "HTML file that opens offline: buttons, arrow keys and a slider step through the game.",
    )
    p.add_argument("--env", required=True, help="environment id, e.g. Klondike-v0")
    p.add_argument("--policy", default="greedy", help="random, greedy or ppo:<model.zip or run folder>")
    p.add_argument("--seed", type=int, default=0, help="the deal: env.reset(seed=SEED) (>= 0, default 0)")
    p.add_argument("--out", default="replay.html", help="the HTML file to write (default replay.html)")
    p.set_defaults(func=_cmd_replay)

    p = sub.add_parser(
        "evaluate",
        help="play policies on fixed deals and report win rates",
        description="Episode i is dealt with reset(seed=SEED+i): every policy plays the same deals.",
    )
    p.add_argument("config", nargs="?", help="YAML config (configs/eval/...); flags override it")
    p.add_argument("--env", help="environment id, e.g. Klondike-v0")
    p.add_argument(
        "--policy", action="append", help="random, greedy or ppo:<model.zip>; repeat for several"
    )
    p.add_argument("--episodes", type=int, help="number of deals (default 1000)")
    p.add_argument("--seed", type=int, help="first deal's seed (default 0)")
    p.add_argument("--workers", type=int, help="processes to spread episodes over (default 1)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a config key, e.g. env_kwargs.draw=3")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")
    p.set_defaults(func=_cmd_evaluate)

    try:  # training needs the optional extra (torch, stable-baselines3, sb3-contrib)
        from agents.train import add_train_parser
    except ImportError:
        pass
    else:
        add_train_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except (ConfigError, ValueError, TypeError) as exc:
        print(f"patience-gym {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
