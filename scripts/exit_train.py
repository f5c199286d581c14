"""Train the expert-iteration network (issue 46) on a variant's labels, resumably.

::

    nice -n 19 python scripts/exit_train.py --root /work/data/exit --env Babette-v0 \\
        --out /work/data/exit/Babette-v0/net.pt --epochs 8

Reads every labelling folder of the variant (``ROOT/<variant>/planner`` and the DAgger rounds'
``ROOT/<variant>/dagger-R``, :mod:`agents.training.exit`), replays the games to regenerate the
observations, and trains :class:`agents.policies.exit_net.PolicyValueNet`; after each epoch the
checkpoint ``OUT.ckpt`` is written, and the same command resumes from it. ``--decisions N`` keeps
the first N decisions of the planner's folder (seed order) and of each round's: the points of the
curve of win rate against decisions seen. ``--episodes E`` then plays the net on seeds 0..E-1 and
prints its row (wins, Wilson interval, mean foundation cards).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import torch

from agents.evaluation.evaluate import Result
from agents.policies.exit_net import ExitPolicy, save_net
from agents.training.exit import GameRecord, read_games, read_run, replay
from agents.training.exit_train import new_net, train


def games_upto(folder: Path, decisions: int | None) -> list[GameRecord]:
    """The folder's games in seed order, until ``decisions`` decisions (all with ``None``)."""
    out, n = [], 0
    for g in read_games(folder):
        if decisions is not None and n >= decisions:
            break
        out.append(g)
        n += len(g.decisions)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--root", type=Path, required=True)
    p.add_argument("--env", required=True)
    p.add_argument("--out", type=Path, required=True, help="the model file to write")
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--decisions", type=int, help="at most this many decisions of each folder")
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--episodes", type=int, default=0, help="then play seeds 0..E-1 and print the row")
    args = p.parse_args(argv)
    torch.set_num_threads(1)  # one core: on a shared machine more threads wait on each other (25x slower)
    folders = sorted(f for f in (args.root / args.env).iterdir() if (f / "run.json").is_file())
    if not folders:
        p.error(f"no labelling folder under {args.root / args.env}")
    run = read_run(folders[0])
    start = time.perf_counter()
    games = [g for f in folders for g in games_upto(f, args.decisions)]
    data = replay(run.env, run.options, iter(games))
    prep = time.perf_counter() - start
    print(
        f"{args.env}: {data.games} games, {len(data):,} decisions from {', '.join(f.name for f in folders)} "
        f"replayed in {prep:.0f} s",
        flush=True,
    )
    net = new_net(data, run.env, run.options, hidden=args.hidden)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    ckpt = args.out.with_suffix(".ckpt")
    stats = train(
        net,
        data,
        epochs=args.epochs,
        batch_size=args.batch_size,
        lr=args.lr,
        checkpoint=ckpt,
        report=lambda s: print(s, flush=True),
    )
    meta = {
        "games": data.games,
        "decisions": len(data),
        "folders": [f.name for f in folders],
        "labeller": run.labeller,
        "epochs": stats.epochs,
        "train_seconds": round(stats.seconds, 1),
        "replay_seconds": round(prep, 1),
        "agreement": round(stats.agreement[-1], 4) if stats.agreement else None,
    }
    save_net(args.out, net, {"meta": meta})
    print(json.dumps(meta), flush=True)
    if args.episodes:
        from agents.evaluation.evaluate import evaluate

        result = evaluate(args.env, ExitPolicy(net, "exit"), episodes=args.episodes, env_kwargs=run.options)
        print(json.dumps({"episodes": args.episodes, **_row(result)}), flush=True)
    return 0


def _row(result: Result) -> dict[str, object]:
    low, high = result.interval
    return {
        "wins": result.wins,
        "win_rate": round(result.win_rate, 4),
        "wilson95": [round(low, 4), round(high, 4)],
        "mean_foundation_cards": round(result.mean_foundation_cards, 2),
        "mean_length": round(result.mean_length, 1),
        "seconds": round(result.seconds, 1),
    }


if __name__ == "__main__":
    sys.exit(main())
