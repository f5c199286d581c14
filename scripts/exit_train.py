"""Train the expert-iteration network (issue 46) on a variant's labels, resumably.

::

    nice -n 19 python scripts/exit_train.py --root /work/data/exit --env Babette-v0 \\
        --out /work/data/exit/Babette-v0/net.pt --epochs 8

Reads every labelling folder of the variant (``ROOT/<variant>/planner`` and the DAgger rounds'
``ROOT/<variant>/dagger-R``, :mod:`patience_gym.agents.training.exit`; ``--folder`` names the
ones to read), replays the games to regenerate the
observations, and trains :class:`patience_gym.agents.policies.exit_net.PolicyValueNet`; after each epoch the
checkpoint ``OUT.ckpt`` is written, and the same command resumes from it. ``--decisions N`` keeps
the first N decisions of the planner's folder (seed order) and of each round's: the points of the
curve of win rate against decisions seen. ``--episodes E`` then plays the net alone on seeds
0..E-1 (the held-out deals) and 5000..5000+E-1 (the shipped models' check) and writes the rows into
its card (``OUT`` with ``.json``: data, compute, commit); ``--ship`` copies model and card to
``agents/data/exit/<variant>.pt`` and ``.json``, which ``exit:<variant>`` plays.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import torch

from patience_gym.agents.common.data import checkout_commit, package_data
from patience_gym.agents.evaluation.evaluate import wilson
from patience_gym.agents.policies.exit_net import ENCODERS, INPUTS, Played, play_many, save_net
from patience_gym.agents.training.exit import GameRecord, read_games, read_run, replay, view_options
from patience_gym.agents.training.exit_mine import decisive_rows, read_decisive
from patience_gym.agents.training.exit_train import new_net, train
from patience_gym.agents.training.exit_verdicts import Verdict, read_verdicts, verdict_targets


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
    p.add_argument(
        "--folder",
        action="append",
        help="only this labelling folder of the variant (planner, dagger-1; repeatable)",
    )
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--hidden", type=int, default=128, help="the board's width (cards: each token's)")
    p.add_argument(
        "--encoder",
        choices=ENCODERS,
        default="mlp",
        help="how the net reads the board: one flat vector (mlp) or a token per card through a transformer",
    )
    p.add_argument("--layers", type=int, default=2, help="the cards encoder's transformer layers")
    p.add_argument(
        "--skip-lost",
        action="store_true",
        help="leave out decisions the labeller marked lost (safe's 'lost')",
    )
    p.add_argument(
        "--inputs",
        choices=INPUTS,
        default="native",
        help="each move's features: the native ones, or with greedy's one-move columns (PPO's per-move ones)",
    )
    p.add_argument(
        "--interchange",
        type=int,
        default=0,
        help="share a one-move target with the next N moves played that commute with it",
    )
    p.add_argument("--balance", type=float, default=0.0, help="weigh decisions by share of their kind ** -B")
    p.add_argument(
        "--decisive-weight",
        type=float,
        default=0.0,
        help="weigh the decisive decisions mined in the folders (scripts/exit_mine.py) W times the others",
    )
    p.add_argument(
        "--view",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a view option of the env (one that changes only the observation, e.g. recall=true) to "
        "train and play under: the labels replay alike under it (repeatable)",
    )
    p.add_argument(
        "--value-target",
        choices=("outcome", "verdicts"),
        default="outcome",
        help="the won head's target: the game's outcome, or the solver's verdict of each position "
        "(each folder's verdicts.jsonl: scripts/exit_verdicts.py)",
    )
    p.add_argument("--episodes", type=int, default=0, help="then play seeds 0..E-1 and 5000..5000+E-1")
    p.add_argument("--ship", action="store_true", help="copy the model and its card to agents/data/exit/")
    args = p.parse_args(argv)
    torch.set_num_threads(1)  # one core: on a shared machine more threads wait on each other (25x slower)
    folders = sorted(f for f in (args.root / args.env).iterdir() if (f / "run.json").is_file())
    folders = [f for f in folders if args.folder is None or f.name in args.folder]
    if not folders:
        p.error(f"no labelling folder under {args.root / args.env}")
    if args.decisive_weight and args.skip_lost:
        p.error("--decisive-weight finds its decisions among all those replayed: leave out --skip-lost")
    run = read_run(folders[0])
    other = [f.name for f in folders[1:] if read_run(f).options != run.options]
    if other:
        p.error(
            f"the folders were labelled under other options ({folders[0].name}: {run.options}; "
            f"{', '.join(other)} differ): name with --folder those of one set"
        )
    try:
        run = replace(run, options={**run.options, **view_options(run.env, args.view)})
    except ValueError as exc:
        p.error(str(exc))
    start = time.perf_counter()
    used = {f.name: games_upto(f, args.decisions) for f in folders}
    games = [g for part in used.values() for g in part]
    won_at = None
    if args.value_target == "verdicts":
        try:
            won_at = verdicts_of(folders, used)
        except ValueError as exc:
            p.error(str(exc))
    data = replay(
        run.env,
        run.options,
        iter(games),
        interchange=args.interchange,
        inputs=args.inputs,
        skip_lost=args.skip_lost,
        won_at=won_at,
    )
    prep = time.perf_counter() - start
    weights, decisive = None, 0
    if args.decisive_weight:
        rows, offset = [], 0
        for f in folders:
            rows += [offset + r for r in decisive_rows(used[f.name], read_decisive(f))]
            offset += sum(len(g.decisions) for g in used[f.name])
        weights, decisive = np.ones(len(data), np.float32), len(rows)
        weights[rows] = args.decisive_weight
        print(f"{decisive} decisive decisions weighted {args.decisive_weight:g} times the others", flush=True)
    print(
        f"{args.env}: {data.games} games, {len(data):,} decisions from {', '.join(f.name for f in folders)} "
        f"replayed in {prep:.0f} s",
        flush=True,
    )
    net = new_net(
        data,
        run.env,
        run.options,
        hidden=args.hidden,
        inputs=args.inputs,
        encoder=args.encoder,
        layers=args.layers,
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    ckpt = args.out.with_suffix(".ckpt")
    stats = train(
        net,
        data,
        epochs=args.epochs,
        batch_size=args.batch_size,
        lr=args.lr,
        balance=args.balance,
        checkpoint=ckpt,
        report=lambda s: print(s, flush=True),
        weights=weights,
    )
    label_seconds = sum(g.seconds for g in games)
    card: dict[str, Any] = {
        "env": run.env,
        "options": run.options,
        "method": "expert iteration: a per-move policy-value net learnt from the search's labels "
        f"({run.labeller}) and {VALUE_TARGETS[args.value_target]} on training deals (not reward-only RL); "
        "plays alone, no search",
        "labeller": run.labeller,
        "folders": {name: seed_span(part) for name, part in used.items()},
        "games": data.games,
        "decisions": len(data),
        "epochs": stats.epochs,
        "value_target": args.value_target,
        "interchange": args.interchange,
        "balance": args.balance,
        **({"decisive_weight": args.decisive_weight, "decisive_decisions": decisive} if decisive else {}),
        "net": {
            "hidden": args.hidden,
            "scorer": list(net.cfg.scorer),
            "k": net.cfg.k,
            "inputs": args.inputs,
            "encoder": args.encoder,
            **({"layers": args.layers, "heads": net.cfg.heads} if args.encoder == "cards" else {}),
        },
        "label_cpu_seconds": round(label_seconds, 1),
        "train_seconds": round(stats.seconds, 1),
        "core_hours": round((label_seconds + stats.seconds) / 3600, 3),
        "agreement": round(stats.agreement[-1], 4) if stats.agreement else None,
        "commit": checkout_commit(),
        "torch": str(torch.__version__),
    }
    save_net(args.out, net, {"meta": {k: v for k, v in card.items() if k != "options"}})
    for name, first in (("heldout", 0), ("check", CHECK_SEED)):
        if args.episodes:
            card[name] = row(play_many(net, range(first, first + args.episodes)), first)
            print(name, json.dumps(card[name]), flush=True)
    args.out.with_suffix(".json").write_text(json.dumps(card, indent=1) + "\n")
    print(json.dumps(card), flush=True)
    if args.ship:
        card["spec"] = f"exit:{run.env}"
        card["guard"] = GUARD
        shipped = package_data("data", "exit")
        shipped.mkdir(parents=True, exist_ok=True)
        shutil.copy(args.out, shipped / f"{run.env}.pt")
        (shipped / f"{run.env}.json").write_text(json.dumps(card, indent=1) + "\n")
        print(f"shipped as {shipped / run.env}.pt", flush=True)
    return 0


#: What the won head learnt from, as the card says it.
VALUE_TARGETS = {"outcome": "outcomes", "verdicts": "the solver's verdicts of each position"}

#: How a shipped net plays (its card says so).
GUARD = "greedy's cycle guard: the most likely move among those to the positions met least (issue 46 fix)"

#: The shipped models' check: deals from seed 5,000 up, never labelled nor evaluated on.
CHECK_SEED = 5_000


def verdicts_of(folders: list[Path], used: dict[str, list[GameRecord]]) -> Callable[[GameRecord, int], float]:
    """The verdicts' target of each position of the games ``used`` of each folder; ``ValueError``
    where a game has none (its folder's verdicts are not all written yet)."""
    by_seed: dict[tuple[int, int], Verdict] = {}
    for i, f in enumerate(folders):
        verdicts = read_verdicts(f)
        missing = [g.seed for g in used[f.name] if g.seed not in verdicts]
        if missing:
            raise ValueError(
                f"{f}: {len(missing)} of the {len(used[f.name])} games have no verdict (the first: seed "
                f"{missing[0]}); run scripts/exit_verdicts.py --folder {f}, or train on fewer --decisions"
            )
        by_seed.update({(i, g.seed): verdicts[g.seed] for g in used[f.name]})
    index = {id(g): i for i, f in enumerate(folders) for g in used[f.name]}
    return lambda g, t: verdict_targets(by_seed[(index[id(g)], g.seed)], [t])[0]


def seed_span(games: list[GameRecord]) -> str:
    """The seeds of a folder's games that were learnt from, as ``first..last (n games)``."""
    if not games:
        return "none"
    return f"{games[0].seed}..{games[-1].seed} ({len(games)} games)"


def row(played: list[Played], first: int) -> dict[str, Any]:
    """A results row of the net's games: wins with their 95% Wilson interval, mean foundation
    cards and length."""
    wins, n = sum(p.won for p in played), len(played)
    low, high = wilson(wins, n)
    return {
        "seeds": f"{first}..{first + n - 1}",
        "games": n,
        "wins": wins,
        "win_rate": round(wins / n, 4),
        "wilson95": [round(low, 4), round(high, 4)],
        "mean_foundation_cards": round(sum(p.cards for p in played) / n, 2),
        "mean_length": round(sum(p.length for p in played) / n, 1),
    }


if __name__ == "__main__":
    sys.exit(main())
