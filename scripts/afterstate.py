"""Label, train and ship the afterstate net (issue 46; patience_gym.agents.training.afterstate).

::

    nice -n 5 python scripts/afterstate.py label --root /work/data/afterstate --env Nestor-v0 --games 300000
    python scripts/afterstate.py train --root /work/data/afterstate --env Nestor-v0 \\
        --out /tmp/afterstate/Nestor-v0.pt --episodes 1000 [--ship]

``label`` plays training deals (seeds from 4,000,000) and keeps the decisions the solver tells
apart, in chunks under ``ROOT/<variant>/solver/``; the same command resumes, and a larger
``--games`` goes on. With ``--player exit:<model file> --seed S`` the net plays its own games (a
DAgger round, in ``ROOT/<variant>/dagger/`` unless ``--folder`` names another), and ``train
--folder solver --folder dagger`` learns from both. ``train`` trains a net on them
(``--decisions N``: the first N kept decisions of each folder, a point of the curve of wins
against decisions seen), writes the model and its card (``OUT`` with
``.json``: data, compute, commit), plays the net alone on seeds 0..E-1 (the held-out deals) and
5000..5000+E-1 (the shipped models' check), and with ``--ship`` copies model and card to
``agents/data/exit/<variant>.pt`` and ``.json``, which ``exit:<variant>`` plays.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import torch

import patience_gym  # noqa: F401  (registers the ids)
from patience_gym.agents.common.data import checkout_commit, package_data
from patience_gym.agents.evaluation.evaluate import evaluate, wilson
from patience_gym.agents.policies.afterstate import AfterstatePolicy, save_afterstate
from patience_gym.agents.training.afterstate import (
    AFTERSTATE_DEAL_SEED,
    LabelRun,
    label,
    read_decisions,
    train,
)
from patience_gym.agents.training.exit import view_options
from patience_gym.games import get_variant

#: The shipped models' check: deals from seed 5,000 up, never labelled nor evaluated on.
CHECK_SEED = 5_000
FOLDER = "solver"


def _row(policy: AfterstatePolicy, env: str, first: int, episodes: int) -> dict[str, Any]:
    r = evaluate(env, policy, episodes=episodes, seed=first, progress=True)
    low, high = wilson(r.wins, r.games)
    return {
        "seeds": f"{first}..{first + r.games - 1}",
        "games": r.games,
        "wins": r.wins,
        "win_rate": round(r.wins / r.games, 4),
        "wilson95": [round(low, 4), round(high, 4)],
        "mean_foundation_cards": round(r.mean_foundation_cards, 2),
        "mean_length": round(r.mean_length, 1),
        "cpu_seconds_per_game": round(r.seconds / r.games, 4),
    }


def _label(args: argparse.Namespace) -> None:
    options = dict(gym.make(get_variant(args.env).env_id).unwrapped.game.options)  # type: ignore[attr-defined]
    env = get_variant(args.env).env_name
    options.update(view_options(env, args.view))
    run = LabelRun(env, options, args.budget, args.seed, args.chunk, player=args.player)
    folder = args.folder or (FOLDER if args.player is None else "dagger")
    label(args.root / env / folder, run, args.games, say=lambda s: print(s, flush=True))


def _train(args: argparse.Namespace) -> None:
    env = get_variant(args.env).env_name
    folders = [args.root / env / name for name in (args.folder or [FOLDER])]
    for folder in folders:
        if not (folder / "run.json").is_file():
            raise ValueError(
                f"no labels of {env} under {args.root} (no {folder / 'run.json'}): run `label` first"
            )
    run = json.loads((folders[0] / "run.json").read_text())
    data = read_decisions(folders, args.decisions)
    print(
        f"{env}: {len(data.count):,} decisions told apart, of {data.decisions:,} in {data.games:,} games",
        flush=True,
    )
    start = time.process_time()
    net, stats = train(data, env, run["options"], epochs=args.epochs, hidden=args.hidden)
    seconds = time.process_time() - start
    card: dict[str, Any] = {
        "env": env,
        "options": run["options"],
        "method": "an afterstate net learnt from the solver's verdicts (every card seen) on training deals, "
        "at the decisions where some moves keep the deal won and others lose it (not reward-only RL); "
        "plays alone, one move ahead as greedy looks, no search",
        "labeller": f"solver, {run['budget']:,} nodes a move",
        "folders": [f.name for f in folders],
        "games": data.games,
        "decisions": len(data.count),
        "decisions_with_a_choice": data.decisions,
        "epochs": args.epochs,
        "net": {"hidden": args.hidden, "inputs": "afterstate"},
        "held_out_keeps_win": round(stats["held_out_keeps_win"], 4),
        "label_cpu_seconds": round(data.seconds, 1),
        "train_seconds": round(seconds, 1),
        "core_hours": round((data.seconds + seconds) / 3600, 3),
        "commit": checkout_commit(),
        "torch": str(torch.__version__),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    save_afterstate(args.out, net, {"meta": {k: v for k, v in card.items() if k != "options"}})
    if args.episodes:
        for name, first in (("heldout", 0), ("check", CHECK_SEED)):
            card[name] = _row(AfterstatePolicy(net), env, first, args.episodes)
            print(name, json.dumps(card[name]), flush=True)
    args.out.with_suffix(".json").write_text(json.dumps(card, indent=1) + "\n")
    if args.ship:
        card["spec"] = f"exit:{env}"
        shipped = package_data("data", "exit")
        shutil.copy(args.out, shipped / f"{env}.pt")
        (shipped / f"{env}.json").write_text(json.dumps(card, indent=1) + "\n")
        print(f"shipped as {shipped / env}.pt", flush=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    lab = sub.add_parser("label", help="label training deals (resumable)")
    tra = sub.add_parser("train", help="train a net on the labels, play it, ship it")
    for q in (lab, tra):
        q.add_argument("--root", type=Path, required=True, help="the labels' folder (ROOT/<variant>/solver)")
        q.add_argument("--env", required=True, help="the variant, e.g. Nestor-v0")
    lab.add_argument("--games", type=int, required=True, help="games in all (finished chunks are kept)")
    lab.add_argument("--budget", type=int, default=20_000, help="solver nodes a move (default 20,000)")
    lab.add_argument("--chunk", type=int, default=1000, help="games a chunk (default 1,000)")
    lab.add_argument("--seed", type=int, default=AFTERSTATE_DEAL_SEED, help="the first deal's seed")
    lab.add_argument(
        "--view",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a view option of the env (changes only the observation, e.g. recall=true) to label under",
    )
    lab.add_argument(
        "--player", help="a policy spec playing its own moves (a DAgger round: exit:<model file>)"
    )
    lab.add_argument(
        "--folder", help="the run's folder under ROOT/<variant> (default solver; dagger with --player)"
    )
    tra.add_argument("--out", type=Path, required=True, help="the model file to write")
    tra.add_argument(
        "--folder", action="append", help="a labelling folder to learn from (repeatable; default solver)"
    )
    tra.add_argument("--decisions", type=int, help="at most this many decisions told apart (whole chunks)")
    tra.add_argument("--epochs", type=int, default=1)
    tra.add_argument("--hidden", type=int, default=512)
    tra.add_argument("--episodes", type=int, default=0, help="then play seeds 0..E-1 and 5000..5000+E-1")
    tra.add_argument("--ship", action="store_true", help="copy the model and its card to agents/data/exit/")
    args = p.parse_args(argv)
    for name in ("games", "budget", "chunk", "epochs", "hidden", "decisions", "episodes"):
        value = getattr(args, name, None)
        if value is not None and value < (0 if name == "episodes" else 1):
            p.error(f"--{name} must be a whole number >= {0 if name == 'episodes' else 1}, got {value}")
    torch.set_num_threads(1)  # one core: on a shared machine more threads wait on each other
    try:
        (_label if args.command == "label" else _train)(args)
    except ValueError as exc:  # a bad variant, a folder of other settings, no labels: one line
        p.exit(1, f"afterstate.py: {exc}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
