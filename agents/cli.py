"""The ``patience-gym`` command.

::

    patience-gym list
    patience-gym show Nestor-v0 --seed 3
    patience-gym show Nestor-v0 --seed 3 --image table.png
    patience-gym replay --env Klondike-v0 --policy greedy --seed 3 --out replay.html
    patience-gym evaluate --env Klondike-v0 --policy greedy --episodes 1000 --seed 0
    patience-gym evaluate klondike --set episodes=200
    patience-gym evaluate --env Klondike-v0 --policy greedy --backend ray --address auto
    patience-gym train tiny --set output_dir=runs/ppo/tiny
    patience-gym train nestor --set total_timesteps=100000
    patience-gym train configs/ppo/nestor.yaml --set total_timesteps=100000
    patience-gym train nestor --trainer rllib
    patience-gym solve --env Nestor-v0 --seeds 0:1000 --workers 2

Each subcommand is one entry of :data:`COMMANDS`: a name, a help line, a function adding its
arguments and the function running it (returning the exit status). Errors a user can fix (a bad
config, option, path or missing extra) print one line, ``patience-gym <command>: error: ...``,
and exit with 2; Ctrl-C exits with 130 after one line.

A config is a YAML file's path or the name of a shipped one (``nestor``: ``configs/ppo/nestor.yaml``
for train, ``configs/rllib/nestor.yaml`` with ``--trainer rllib``, ``configs/eval/nestor.yaml`` for
evaluate; :func:`agents.common.data.find_config`): a file that exists wins over a name.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any, Literal

from .common.backends import ChunkError, add_backend_arguments
from .common.config import ConfigError, load
from .common.data import add_labels_argument, find_config
from .registry import spec_help, spec_table


@dataclass
class EvalConfig:
    """``configs/eval/*.yaml``: which env, which policies, how many deals from which seed."""

    env: str
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    policies: list[str] = field(default_factory=lambda: ["random", "greedy"])
    episodes: int = 1000
    seed: int = 0
    workers: int = 1
    backend: Literal["local", "ray"] = "local"
    address: str | None = None
    labels: str | None = None
    """A folder of solver labels (patience-gym solve; default the package's own): where present,
    each policy is set against the winnable deals."""

    def __post_init__(self) -> None:
        for key, low in (("episodes", 1), ("seed", 0), ("workers", 1)):
            if getattr(self, key) < low:
                raise ConfigError(f"key {key!r} must be >= {low}, got {getattr(self, key)}")
        if self.address is not None and self.backend != "ray":
            raise ConfigError("key 'address' names a Ray cluster: use it with backend: ray (--backend ray)")


# ---- list, show ---------------------------------------------------------------------------------


def _args_list(p: argparse.ArgumentParser) -> None:
    pass


def _cmd_list(args: argparse.Namespace) -> int:
    from patience_gym.games import VARIANTS

    for v in VARIANTS:
        values = {k: v.options.get(k, o.default) for k, o in v.game.OPTIONS.items()}
        opts = ", ".join(f"{k}={val!r}" for k, val in values.items()) or "-"
        print(f"{v.env_id:<32} {v.summary}  [options: {opts}; max steps {v.max_episode_steps}]")
    return 0


def _args_show(p: argparse.ArgumentParser) -> None:
    p.add_argument("env", help="environment id, e.g. Klondike-v0")
    p.add_argument("--seed", type=int, default=0, help="the deal's seed (>= 0, default 0)")
    p.add_argument("--image", metavar="PNG", help="also write the table as a PNG picture")


def _cmd_show(args: argparse.Namespace) -> int:
    import gymnasium as gym
    import numpy as np

    import patience_gym  # noqa: F401  (registers the ids)
    from patience_gym.env import PatienceEnv
    from patience_gym.games import get_variant

    if args.seed < 0:
        raise ConfigError(f"--seed must be >= 0, got {args.seed}")
    if args.image:
        from .evaluation.replay import check_output

        check_output(args.image, "--image")
    variant = get_variant(args.env)
    env = gym.make(variant.env_id, render_mode="ansi")
    env.reset(seed=args.seed)
    print(env.render())
    core: PatienceEnv = env.unwrapped  # type: ignore[assignment]
    legal = np.flatnonzero(core.action_masks())
    print("legal:", "; ".join(f"{a}: {core.describe_action(int(a))}" for a in legal))
    if args.image:
        from .evaluation.replay import save_table_png

        print(f"picture: {save_table_png(variant.env_id, args.seed, args.image)}")
    return 0


# ---- replay -------------------------------------------------------------------------------------


def _args_replay(p: argparse.ArgumentParser) -> None:
    p.add_argument("--env", required=True, help="environment id, e.g. Klondike-v0")
    p.add_argument(
        "--policy",
        default="greedy",
        help=spec_help(detailed=False),
    )
    p.add_argument("--seed", type=int, default=0, help="the deal: env.reset(seed=SEED) (>= 0, default 0)")
    p.add_argument("--out", default="replay.html", help="the HTML file to write (default replay.html)")


def _cmd_replay(args: argparse.Namespace) -> int:
    from .evaluation.replay import run

    return run(args)


# ---- evaluate -----------------------------------------------------------------------------------


def _args_evaluate(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "config",
        nargs="?",
        help="a YAML config's path or a shipped one's name (nestor: configs/eval/nestor.yaml); "
        "flags override it",
    )
    p.add_argument("--env", help="environment id, e.g. Klondike-v0")
    p.add_argument(
        "--policy",
        action="append",
        help=f"{spec_help(detailed=False)}; repeat for several",
    )
    p.add_argument("--episodes", type=int, help="number of deals (default 1000)")
    p.add_argument("--seed", type=int, help="first deal's seed (>= 0, default 0)")
    add_backend_arguments(p, "episodes")
    add_labels_argument(p, "read for each policy's wins among the winnable deals")
    _add_set(p, "override a config key, e.g. env_kwargs.draw=3")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")


def _cmd_evaluate(args: argparse.Namespace) -> int:
    from .evaluation.evaluate import evaluate, format_table, to_json

    given = ("env", "episodes", "seed", "workers", "backend", "address", "labels")
    flags = {k: getattr(args, k) for k in given}  # the flags given override the config file
    path = find_config(args.config, "eval") if args.config else None
    cfg = load(EvalConfig, path, args.set, policies=args.policy, **flags)
    if not cfg.policies:
        raise ConfigError(f"no policy given: use --policy ({spec_help(detailed=False)})")
    ray: Any = nullcontext()
    if cfg.backend == "ray":
        from .common.backends import ray_command, refuse_workers_on_a_cluster

        refuse_workers_on_a_cluster(args.workers, cfg.address)
        # Ray starts (or is reached) on entering the block: one line for a missing extra or
        # cluster, and its start-up does not count in the first policy's games per second. Inside
        # it Ray's own prints go to stderr; the Ray it started stops on leaving it, before the
        # results are printed, so --json's output is JSON alone.
        ray = ray_command(cfg.address, cfg.workers if cfg.workers > 1 else None)
    keys = ("episodes", "seed", "workers", "env_kwargs", "backend", "address")
    how = {k: getattr(cfg, k) for k in keys}  # every policy plays the same deals, the same way
    with ray:
        results = [evaluate(cfg.env, p, progress=not args.json, **how) for p in cfg.policies]
    from .solving.labels import attach_labels, missing_note

    for missing in attach_labels(results, cfg.labels):  # one line, on stderr: --json stays JSON
        print(f"patience-gym evaluate: {missing_note(cfg.env, cfg.env_kwargs, missing)}", file=sys.stderr)
    print(to_json(results) if args.json else format_table(results))
    return 0


# ---- train --------------------------------------------------------------------------------------


def _args_train(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "config",
        help="a YAML config's path or a shipped one's name: nestor is configs/ppo/nestor.yaml "
        "(configs/rllib/nestor.yaml with --trainer rllib); tiny is a smoke run of seconds",
    )
    p.add_argument(
        "--trainer",
        choices=["sb3", "rllib"],
        default="sb3",
        help="sb3: MaskablePPO in this process (default, the train extra); rllib: RLlib PPO with "
        "action masking on Ray (the scale extra)",
    )
    p.add_argument(
        "--address", help="with --trainer rllib: the Ray cluster to train on (default: a local Ray)"
    )
    _add_set(p, "override a config key, e.g. total_timesteps=100000 or resume=<checkpoint.zip>")
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="replace the run already in output_dir (its models, checkpoints and logs)",
    )


def _cmd_train(args: argparse.Namespace) -> int:
    if args.trainer == "rllib":
        return _train_rllib(args)
    if args.address is not None:
        raise ConfigError("--address names a Ray cluster: use it with --trainer rllib")
    from .common.extras import require

    require("train", "training")  # one line naming the extra, not an ImportError
    from .training.config import load_config
    from .training.sb3 import train

    train(load_config(str(find_config(args.config, "ppo")), args.set), overwrite=args.overwrite)
    return 0


def _train_rllib(args: argparse.Namespace) -> int:
    from .common.backends import require_scale

    require_scale("--trainer rllib")  # one line naming the extra, not an ImportError
    from .training.rllib import train
    from .training.rllib_config import load_config

    overrides = [*args.set, *([f"address={args.address}"] if args.address else [])]
    train(load_config(str(find_config(args.config, "rllib")), overrides), overwrite=args.overwrite)
    return 0


# ---- the command table --------------------------------------------------------------------------


@dataclass(frozen=True)
class Command:
    name: str
    help: str
    arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
    description: str | None = None


COMMANDS: tuple[Command, ...] = (
    Command("list", "list the registered environments and their options", _args_list, _cmd_list),
    Command("show", "deal a game and print the table and the legal moves", _args_show, _cmd_show),
    Command(
        "evaluate",
        "play policies on fixed deals and report win rates",
        _args_evaluate,
        _cmd_evaluate,
        f"Episode i is dealt with reset(seed=SEED+i): every policy plays the same deals. Policies: "
        f"{spec_table()}.",
    ),
    Command(
        "replay",
        "play one episode and write it as an HTML page to step through",
        _args_replay,
        _cmd_replay,
        "Deal with reset(seed=SEED), play the policy to the end, and write one self-contained HTML "
        "file that opens offline: buttons, arrow keys and a slider step through the game.",
    ),
    Command(
        "solve",
        "label deals won / lost / unknown for a player who sees every card (native solver)",
        lambda p: _solve().add_arguments(p),
        lambda args: int(_solve().run(args)),
        "Solve the deals of seeds START:STOP with every card known and write one label file per "
        "variant and option set (--labels DIR; in a checkout the package's own agents/data/labels/ by "
        "default, an installed package needs --labels); an interrupted run resumes where it stopped. "
        "Options as for evaluate (--set env_kwargs.draw=3, or a config file); --deck FILE solves one deal.",
    ),
    Command(
        "train",
        "train MaskablePPO from a config (a path, or a shipped name: tiny, nestor, ...; needs the train "
        "extra), or RLlib PPO",
        _args_train,
        _cmd_train,
        "Train sb3-contrib MaskablePPO as the YAML config says, or with --trainer rllib RLlib PPO with "
        "action masking on Ray (configs/rllib/...). CONFIG is a YAML file's path or a shipped config's "
        "name (nestor: configs/ppo/nestor.yaml, or configs/rllib/nestor.yaml with --trainer rllib). "
        "Any key may be overridden with --set "
        "(dotted for nested keys: --set ppo.n_steps=256 --set env_kwargs.draw=3).",
    ),
)


def _solve() -> Any:
    from .solving import solve

    return solve


def _add_set(p: argparse.ArgumentParser, help: str) -> None:
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help=help)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="patience-gym", description="Patience (solitaire) environments: evaluate and train agents."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for cmd in COMMANDS:
        p = sub.add_parser(cmd.name, help=cmd.help, description=cmd.description or cmd.help)
        cmd.arguments(p)
        p.set_defaults(func=cmd.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    prefix = f"patience-gym {args.command}"
    try:
        return int(args.func(args))
    except (ConfigError, ValueError, TypeError, ChunkError) as exc:
        print(f"{prefix}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (`patience-gym evaluate --json | head`): stop quietly, as Unix tools
        # do, with SIGPIPE's status; stdout goes to devnull so that the exit's flush cannot fail.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # 128 + SIGPIPE (13)
    except KeyboardInterrupt as exc:
        # A trainer's interruption says what it saved (agents.training.sb3.TrainingInterrupted,
        # agents.training.rllib.RLlibInterrupted); a bare Ctrl-C says nothing more.
        path = getattr(exc, "path", None)  # a model to resume from
        resume = f"; resume with --set resume={path}" if path else ""
        said = f": {exc}" if str(exc) else ""
        print(f"{prefix}: interrupted{said}{resume}", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
