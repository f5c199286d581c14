"""The expert-iteration network's win rate against the decisions it learnt from (issue 46).

::

    nice -n 19 python scripts/exit_curve.py --root /work/data/exit --env Babette-v0 \\
        --decisions 2500 --decisions 10000 --decisions 40000 --episodes 300
    python scripts/exit_curve.py --plot            # draws docs/images/exit-curve.png from the points

For each ``--decisions N`` a fresh net (:mod:`patience_gym.agents.training.exit_train`) learns the first N
decisions of the variant's planner folder (seed order; ``--dagger`` adds every DAgger round's
folder whole) for ``--epochs`` passes (at least ``--min-steps`` batches in all), then plays seeds
``0 .. episodes-1`` alone, every game at once (:func:`patience_gym.agents.policies.exit_net.play_many`;
held-out deals: measured, never learnt from). Each point is appended to ``--points`` (default
``results/exit/curve.json``) with its games, decisions, epochs, seconds and
commit; a point already there (same variant, decisions, rounds, episodes) is skipped, so the same
command resumes.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import torch

from patience_gym.agents.common.data import checkout_commit
from patience_gym.agents.evaluation.evaluate import wilson
from patience_gym.agents.policies.exit_net import play_many
from patience_gym.agents.training.exit import read_games, read_run, replay
from patience_gym.agents.training.exit_train import new_net, train

ROOT = Path(__file__).resolve().parent.parent
POINTS = ROOT / "results" / "exit" / "curve.json"
PICTURE = ROOT / "docs" / "images" / "exit-curve.png"


def load_points(path: Path) -> list[dict[str, Any]]:
    return list(json.loads(path.read_text())) if path.is_file() else []


def point_key(q: dict[str, Any]) -> tuple[str, int, bool, int]:
    return q["env"], q["planner_decisions"], bool(q["dagger_rounds"]), q["episodes"]


def point(args: argparse.Namespace, decisions: int) -> dict[str, Any]:
    """Train on the first ``decisions`` labelled decisions and play the held-out deals."""
    folder = args.root / args.env / "planner"
    run = read_run(folder)
    games, n = [], 0
    for g in read_games(folder):
        if n >= decisions:
            break
        games.append(g)
        n += len(g.decisions)
    rounds = sorted(f for f in (args.root / args.env).glob("dagger-*") if (f / "run.json").is_file())
    if args.dagger:
        games += [g for f in rounds for g in read_games(f)]
    else:
        rounds = []
    data = replay(run.env, run.options, games)
    steps_per_epoch = max(1, -(-len(data) // args.batch_size))
    epochs = max(args.epochs, -(-args.min_steps // steps_per_epoch))
    net = new_net(data, run.env, run.options)
    stats = train(net, data, epochs=epochs, report=lambda s: print(s, flush=True))
    if args.save:
        from patience_gym.agents.policies.exit_net import save_net

        save_net(args.save, net, {"meta": {"decisions": len(data), "games": data.games, "epochs": epochs}})
    start = time.perf_counter()
    played = play_many(net, range(args.episodes))
    wins = sum(p.won for p in played)
    low, high = wilson(wins, len(played))
    return {
        "env": run.env,
        "labeller": run.labeller,
        "decisions": len(data),
        "planner_decisions": decisions,
        "games": data.games,
        "dagger_rounds": [f.name for f in rounds],
        "epochs": epochs,
        "train_seconds": round(stats.seconds, 1),
        "agreement": round(stats.agreement[-1], 4),
        "episodes": args.episodes,
        "wins": wins,
        "win_rate": round(wins / len(played), 4),
        "wilson95": [round(low, 4), round(high, 4)],
        "mean_foundation_cards": round(sum(p.cards for p in played) / len(played), 2),
        "play_seconds": round(time.perf_counter() - start, 1),
        "commit": checkout_commit(),
    }


def plot(points: list[dict[str, Any]], path: Path) -> None:
    """Win rate against decisions seen, one line per variant, with the Wilson intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    for env in sorted({p["env"] for p in points}):
        rows = sorted(
            (p for p in points if p["env"] == env and not p["dagger_rounds"]), key=lambda p: p["decisions"]
        )
        xs = [p["decisions"] for p in rows]
        ys = [100 * p["win_rate"] for p in rows]
        lo = [100 * (p["win_rate"] - p["wilson95"][0]) for p in rows]
        hi = [100 * (p["wilson95"][1] - p["win_rate"]) for p in rows]
        ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", capsize=3, label=env.removesuffix("-v0"))
    ax.set_xscale("log")
    ax.set_xlabel("planner decisions learnt from")
    ax.set_ylabel("win rate alone, held-out seeds (%)")
    ax.set_title("expert iteration: the network alone against its labels")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--root", type=Path, help="the labelling folders (scripts/exit_label.py's --root)")
    p.add_argument("--env", help="the variant")
    p.add_argument("--decisions", type=int, action="append", default=[], help="a point (repeatable)")
    p.add_argument("--dagger", action="store_true", help="add the DAgger rounds' folders whole")
    p.add_argument("--episodes", type=int, default=300, help="held-out seeds 0..E-1 played per point")
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--min-steps", type=int, default=1500, help="at least this many batches a point")
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--points", type=Path, default=POINTS)
    p.add_argument("--save", type=Path, help="keep the last point's net here")
    p.add_argument("--plot", action="store_true", help="draw the picture from the points")
    p.add_argument("--picture", type=Path, default=PICTURE)
    args = p.parse_args(argv)
    torch.set_num_threads(1)  # one core: on a shared machine more threads wait on each other
    points = load_points(args.points)
    if args.decisions and (args.root is None or args.env is None):
        p.error("--decisions needs --root and --env")
    for n in args.decisions:
        key = (args.env, n, args.dagger, args.episodes)
        if any(
            (q["env"], q["planner_decisions"], bool(q["dagger_rounds"]), q["episodes"]) == key for q in points
        ):
            print(f"{args.env} at {n:,} decisions: done already", flush=True)
            continue
        start = time.perf_counter()
        row = point(args, n)
        print(json.dumps(row), f"({time.perf_counter() - start:.0f} s)", flush=True)
        points.append(row)
        args.points.parent.mkdir(parents=True, exist_ok=True)
        args.points.write_text(json.dumps(points, indent=1) + "\n")
    if args.plot:
        plot(points, args.picture)
        print(f"wrote {args.picture}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
