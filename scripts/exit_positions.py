"""One solved position a game, as a labelling folder, resumably (issue 46): value targets that are
independent of each other, where a labelled game's positions all share one deal.

::

    nice -n 5 python scripts/exit_positions.py --root /work/data/positions --env Klondike-v0 \\
        --option draw=3 --option passes=null --option partial_moves=true --games 20000

A player (``--player``, greedy by default, a random legal move instead with chance ``--epsilon``)
plays each training deal for a number of moves drawn from 0 to ``--max-moves`` - 1; the solver then
judges the position on its real deal (every card seen, ``--budget`` nodes, half in its probe). The
game is kept as one decision there, the player's next move its policy target, ``won`` the verdict;
a position the budget leaves unknown, or a game over before it, is dropped (the progress line counts
both). Chunks of 100 games go to ``ROOT/<variant>/<--folder>`` (:mod:`patience_gym.agents.training.exit`'s
layout, seeds from :data:`POSITION_DEAL_SEED`); the same command continues a stopped run.
``scripts/exit_train.py --folder positions`` trains on it (the outcome is the verdict).

Why: the won probability of a position is a function of what the player sees, whoever played
there, so any player's positions teach it; a game's positions share one deal, so 1,000 labelled
games are about 1,000 examples however many positions they hold (docs/exit.md, "The net inside the
macro planner's bandit").
"""

from __future__ import annotations

import argparse
import gzip
import sys
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from patience_gym.agents.common.losing import deck_of, label_after
from patience_gym.agents.registry import make_policy
from patience_gym.agents.training.exit import (
    GameRecord,
    LabelRun,
    chunk_path,
    env_options,
    make_env,
    open_run,
)
from patience_gym.env import PatienceEnv
from patience_gym.games import BY_NAME

#: The first deal: above the DAgger rounds' (3,000,000 up) and the afterstate labels' (4,000,000 up).
POSITION_DEAL_SEED = 5_000_000

#: The player's random stream for a deal is ``seed + PLAYER_STREAM`` (the deal's own is ``seed``).
PLAYER_STREAM = 7

#: Games a chunk file.
CHUNK = 100


def position(
    env: gym.Env[np.ndarray, Any], player: Any, seed: int, args: argparse.Namespace
) -> GameRecord | str:
    """The game of ``seed`` up to its drawn position, judged; or why it is dropped."""
    core: PatienceEnv = env.unwrapped  # type: ignore[assignment]
    rng = np.random.default_rng(seed + PLAYER_STREAM)
    obs, _ = env.reset(seed=seed)
    player.reset(seed)
    moves = int(rng.integers(0, args.max_moves))
    actions: list[int] = []
    while len(actions) < moves:
        legal = np.flatnonzero(core.action_masks())
        if rng.random() < args.epsilon:
            a = int(rng.choice(legal))
            player.follow(core, a)
        else:
            a = int(player(core, obs))
        actions.append(a)
        obs, _, terminated, truncated, _ = env.step(a)
        if terminated or truncated:
            return "over"
    if not core.action_masks().any():
        return "over"
    label = label_after(core, deck_of(core), actions, args.budget, args.budget // 2)
    if label == "unknown":
        return label
    a = int(player(core, obs))
    return GameRecord(seed, [*actions, a], [(len(actions), [a], [1.0])], "v", label == "won")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--root", type=Path, required=True, help="where the variant's folder goes")
    p.add_argument("--env", required=True, help="a variant, e.g. Klondike-v0")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="an env option")
    p.add_argument("--folder", default="positions", help="the run's folder under ROOT/<variant>")
    p.add_argument("--player", default="greedy", help="the policy that plays to the positions")
    p.add_argument("--epsilon", type=float, default=0.15, help="the chance of a random legal move")
    p.add_argument("--max-moves", type=int, default=160, help="positions from 0 to this many moves in")
    p.add_argument("--budget", type=int, default=500_000, help="solver nodes a position (half: probe)")
    p.add_argument("--games", type=int, default=20_000, help="games to play (chunks of 100)")
    args = p.parse_args(argv)
    for name in ("max_moves", "budget", "games"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1, got {getattr(args, name)}")
    if not 0 <= args.epsilon <= 1:
        p.error(f"--epsilon must be from 0 to 1, got {args.epsilon}")
    if args.env not in BY_NAME:
        p.error(f"--env {args.env}: not a variant (the variants: {', '.join(BY_NAME)})")
    try:
        options = env_options(args.env, args.option)
        player = make_policy(args.player)
    except ValueError as exc:
        p.error(str(exc))
    if args.epsilon and not hasattr(player, "follow"):
        p.error(f"--player {args.player} cannot be told of the random moves; give --epsilon 0 or greedy")
    env = make_env(args.env, options)
    core: PatienceEnv = env.unwrapped
    labeller = f"positions: {args.player}, epsilon {args.epsilon}, up to {args.max_moves} moves"
    labeller += f", solver {args.budget}"
    run = LabelRun(args.env, dict(core.game.options), labeller, POSITION_DEAL_SEED, CHUNK)
    folder = args.root / args.env / args.folder
    try:
        open_run(folder, run)
    except ValueError as exc:
        p.error(str(exc))
    start, counts = time.time(), {"won": 0, "lost": 0, "unknown": 0, "over": 0}
    for chunk in range(-(-args.games // CHUNK)):
        path = chunk_path(folder, chunk)
        if path.exists():
            continue
        kept = []
        for seed in run.seeds(chunk):
            got = position(env, player, seed, args)
            if isinstance(got, str):
                counts[got] += 1
            else:
                kept.append(got)
                counts["won" if got.won else "lost"] += 1
        tmp = path.with_suffix(".tmp")
        with gzip.open(tmp, "wt") as f:
            f.writelines(r.to_json() + "\n" for r in kept)
        tmp.rename(path)
        print(f"chunk {chunk}: {counts} ({time.time() - start:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
